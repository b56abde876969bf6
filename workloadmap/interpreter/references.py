"""Related objects: what a workload references by name (a TrainJob's runtime), and where to find it.

wmap fetches nothing by itself here. A :class:`RelatedObjects` source answers ``find(kind, name,
namespace, namespaced)``: :class:`ObjectIndex` from objects in memory (the other documents of the
input, ``--related`` files), the cluster-backed source of :mod:`workloadmap.kube` from a live API
server, or several of them tried in turn with :class:`ChainedObjects`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..documents import load_objects
from ..errors import WorkloadMapError
from ..labels import NVIDIA_COMPUTE_DOMAIN_KIND
from ..runtime_definitions import Definition, ReferenceKind

__all__ = ["RelatedObjects", "ObjectIndex", "ChainedObjects", "resolve_references", "qualified_kind", "of_group"]


def qualified_kind(kind: str) -> tuple[str, str | None]:
    """``Kind.group`` as ``(Kind, group)``; a bare kind as ``(Kind, None)`` (any group)."""
    bare, dot, group = kind.partition(".")
    return (bare, group) if dot else (kind, None)


def of_group(obj: Mapping[str, Any], group: str | None) -> bool:
    """Whether the object's ``apiVersion`` is of that API group (None: any)."""
    if group is None:
        return True
    api_version = obj.get("apiVersion")
    return isinstance(api_version, str) and "/" in api_version and api_version.split("/")[0] == group


@runtime_checkable
class RelatedObjects(Protocol):
    """Anything that can find an object a workload references."""

    def find(self, kind: str, name: str, namespace: str | None, namespaced: bool) -> Mapping[str, Any] | None:
        """The object of that kind and name (for namespaced kinds, in ``namespace``), or None.

        ``kind`` may be qualified, ``Kind.group`` (``PodGroup.scheduling.k8s.io``), where several API
        groups have a kind of that name (KAI's and Kubernetes' PodGroups).
        """
        ...


class ObjectIndex:
    """Objects in memory, indexed by kind and name (with their namespace)."""

    def __init__(self, objects: Iterable[Any] = ()) -> None:
        self._index: dict[tuple[str, str], list[tuple[str | None, Mapping[str, Any]]]] = {}
        self._pending: Iterable[Any] | None = None
        self._kinds: frozenset[str] | None = None
        for obj in objects:
            self.add(obj)

    @classmethod
    def deferred(cls, objects: Iterable[Any], *, kinds: Iterable[str] | None = None) -> ObjectIndex:
        """An index of ``objects`` built when it is first used: most workloads reference nothing.

        ``objects`` is read then, so it must not change before. With ``kinds`` (a catalog's
        :meth:`~workloadmap.catalog.Catalog.referenced_kinds`), only objects of those kinds are
        indexed, now and by later :meth:`add` calls: a stream's ConfigMaps and Jobs are never looked up.
        """
        index = cls()
        index._pending = objects
        index._kinds = frozenset(kinds) if kinds is not None else None
        return index

    def _index_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        kinds = self._kinds
        for obj in pending:
            # the kind test first, on the exact type: most objects of a stream are of no referenced kind
            if kinds is not None and obj.__class__ is dict:
                kind = obj.get("kind")
                if kind.__class__ is not str or kind not in kinds:  # a list or a map is no kind (and unhashable)
                    continue
            self.add(obj)

    @classmethod
    def from_paths(cls, paths: Iterable[str]) -> ObjectIndex:
        """Every object in the given FILEs or DIRs (read recursively).

        Raises:
            InputError: a file is missing or a document does not parse.
        """
        index = cls()
        for path in paths:
            for document in load_objects(path, recursive=True):
                if isinstance(document, WorkloadMapError):
                    raise document
                index.add(document.body)
        return index

    def add(self, obj: Any) -> None:
        """Index an object (anything without kind and metadata.name is ignored)."""
        if self._pending is not None:  # the deferred objects first: the first one indexed wins a find
            self._index_pending()
        # the exact type first: parsed documents are dicts, and the Mapping check costs several times more
        if obj.__class__ is not dict and not isinstance(obj, Mapping):
            return
        metadata = obj.get("metadata")
        if metadata.__class__ is not dict and not isinstance(metadata, Mapping):
            return
        kind, name = obj.get("kind"), metadata.get("name")
        if isinstance(kind, str) and isinstance(name, str) and (self._kinds is None or kind in self._kinds):
            self._index.setdefault((kind, name), []).append((metadata.get("namespace"), obj))
            if kind == NVIDIA_COMPUTE_DOMAIN_KIND:  # the channel template its controller creates
                from ..dra.compute_domains import channel_template

                template = channel_template(obj)
                if template is not None:
                    self.add(template)

    def find(self, kind: str, name: str, namespace: str | None, namespaced: bool) -> Mapping[str, Any] | None:
        """The object of that kind and name; for namespaced kinds, in the workload's namespace."""
        if self._pending is not None:
            self._index_pending()
        kind, group = qualified_kind(kind)
        candidates = self._index.get((kind, name), [])
        if group is not None:
            candidates = [candidate for candidate in candidates if of_group(candidate[1], group)]
        if not namespaced:
            return candidates[0][1] if candidates else None
        for candidate_namespace, obj in candidates:
            if candidate_namespace == namespace or candidate_namespace is None or namespace is None:
                return obj
        return None


class ChainedObjects:
    """Several sources tried in order; the first that finds the object wins."""

    def __init__(self, *sources: RelatedObjects) -> None:
        self.sources = sources

    def find(self, kind: str, name: str, namespace: str | None, namespaced: bool) -> Mapping[str, Any] | None:
        """The object from the first source that has it, or None."""
        for source in self.sources:
            found = source.find(kind, name, namespace, namespaced)
            if found is not None:
                return found
        return None


def resolve_references(
    definition: Definition,
    resource: Mapping[str, Any],
    related: RelatedObjects,
    namespace: str | None,
    warnings: list[str],
) -> dict[str, Any]:
    """Find each reference a definition declares; a missing one adds a warning and resolves to None.

    A reference's expressions may read ``ref()`` of the references declared before it.
    """
    refs: dict[str, Any] = {}
    for reference in definition.references:
        name_expression = reference.compiled("name_expression")
        kind_expression = reference.compiled("kind_expression")
        # ref() of the references declared before this one (a Pipeline's tasks read ref('pipeline')); a new
        # mapping each time, since an expression reading only ref() repeats its result for the same one.
        known = dict(refs)
        name = name_expression.search(resource, refs=known) if name_expression is not None else None
        kind = kind_expression.search(resource, refs=known) if kind_expression is not None else None
        candidates = [k for k in reference.kinds if kind in (None, k.kind)] or reference.kinds[:1]
        if isinstance(name, list):  # several objects (the Tasks of a Pipeline's taskRefs): the list of those found
            names = list(dict.fromkeys(item for item in name if isinstance(item, str) and item))
            found_all = [
                _find(reference.name, candidates, item, related, namespace, warnings, optional=reference.optional)
                for item in names
            ]
            refs[reference.name] = [obj for obj in found_all if obj is not None]
            continue
        if not isinstance(name, str) or not name:
            continue
        refs[reference.name] = _find(
            reference.name, candidates, name, related, namespace, warnings, optional=reference.optional
        )
    return refs


def _find(
    label: str,
    candidates: Sequence[ReferenceKind],
    name: str,
    related: RelatedObjects,
    namespace: str | None,
    warnings: list[str],
    *,
    optional: bool = False,
) -> Mapping[str, Any] | None:
    """The object of the first candidate kind that has it; a warning when none does (unless ``optional``)."""
    for candidate in candidates:
        found = related.find(candidate.kind, name, namespace, candidate.namespaced)
        if found is not None:
            return found
    if optional:
        return None
    warnings.append(
        f"{label} {candidates[0].kind}/{name} is not in the input; pass it with --related FILE|DIR "
        "for the pods it defines (expanded what the workload itself declares)"
    )
    return None
