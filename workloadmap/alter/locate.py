"""Where each pod-bearing component keeps its pod fields: the catalog's read path turned into places to write.

The interpreter expands the workload as ``wmap inspect`` does; each pod template it reads is traced
back into the object (:class:`~workloadmap.alter.paths.Locator`). A template found there is written
in place, so what wmap writes is exactly what it reads. A template the definition computes (KServe's
predictor, NIM, Milvus, Dynamo's extraPodSpec) is written through the component's ``podFields``,
the fragment's own fields, when the operator supports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..catalog import Catalog
from ..errors import AlterError, format_path
from ..expressions import field_path
from ..interpreter import EvaluationContext, ExpandedComponent, Expander
from .changes import POD_METADATA_FIELDS, POD_SPEC_FIELDS
from .paths import Locator, Path, get_at

__all__ = ["PodSlot", "locate_pods"]


@dataclass
class PodSlot:
    """One pod-bearing component and where its pod fields live.

    Attributes:
        component: the component path (``group/leader``, ``replicatedJob`` instance names included).
        role: the definition component it comes from.
        instance: the instance name of a multi-instance component.
        view: the pod template as the catalog reads it (the values in effect).
        places: pod field (``schedulerName``, ``labels`` ...) -> where it is written; a field the
            operator takes no value for has no entry.
        why_not: why fields without a place have none (for the error).
        seed: where the pod in effect is written before any field, when the operator builds a
            default pod only while that field is absent (KubeRay's submitter).
    """

    component: str
    role: str
    instance: str | None
    view: Mapping[str, Any]
    places: dict[str, Path] = field(default_factory=dict)
    why_not: str = ""
    seed: Path | None = None

    def effective(self, name: str) -> Any:
        """The value of pod field ``name`` in effect now (what the operator would put in the pods)."""
        part = self.view.get("metadata" if name in POD_METADATA_FIELDS else "spec")
        return part.get(name) if isinstance(part, Mapping) else None

    def place(self, name: str, kind: str) -> Path:
        """Where pod field ``name`` is written.

        Raises:
            AlterError: the operator keeps no such field for this component (naming the kind).
        """
        found = self.places.get(name)
        if found is None:
            raise AlterError(f"{kind} component {self.component}: no place for the pods' {name}: {self.why_not}")
        return found


def locate_pods(context: EvaluationContext, *, catalog: Catalog) -> list[PodSlot]:
    """Every pod-bearing component of the context's resource with the places of its pod fields, depth first.

    The resource must be the object that will be written (places are found by identity in it).
    """
    refs = context.refs
    locator = Locator(context.resource)
    referenced = {name: Locator(obj) for name, obj in refs.items() if isinstance(obj, Mapping)}
    slots = []
    for root in Expander(context, catalog=catalog).expand():
        for node in root.walk():
            if node.template is not None and node.demand is not None:
                slots.append(_slot(node, locator, referenced, refs))
    return slots


def _slot(
    node: ExpandedComponent, locator: Locator, referenced: Mapping[str, Locator], refs: Mapping[str, Any]
) -> PodSlot:
    template = node.template or {}
    slot = PodSlot(node.path, node.definition.name, node.instance, template)
    spec_at = locator.path_of(template.get("spec"))
    template_at = locator.path_of(template)
    metadata_at = locator.path_of(template.get("metadata"))
    fragment = node.pod_definition.pod_fields
    scope_at = locator.origin_of(node.scope) if fragment is not None else None
    for name in POD_SPEC_FIELDS:
        if spec_at is not None:
            slot.places[name] = (*spec_at, name)
        elif fragment and fragment.spec and scope_at is not None:
            if fragment.spec_fields is None or name in fragment.spec_fields:
                slot.places[name] = (*scope_at, *field_path(fragment.spec), name)
    for name in POD_METADATA_FIELDS:
        fragment_path = getattr(fragment, name) if fragment is not None else None
        if metadata_at is not None:
            slot.places[name] = (*metadata_at, name)
        elif template_at is not None:
            slot.places[name] = (*template_at, "metadata", name)
        elif fragment_path and scope_at is not None:
            slot.places[name] = (*scope_at, *field_path(fragment_path))
    if fragment is not None and fragment.seed and scope_at is not None:
        seed_at = (*scope_at, *field_path(fragment.seed))
        slot.seed = seed_at if get_at(locator.root, seed_at) is None else None
    slot.why_not = _why_not(node, template, referenced, refs, fragment is not None, scope_at)
    return slot


def _why_not(
    node: ExpandedComponent,
    template: Mapping[str, Any],
    referenced: Mapping[str, Locator],
    refs: Mapping[str, Any],
    has_fragment: bool,
    scope_at: Path | None,
) -> str:
    for name, found in referenced.items():
        traced = (node.scope, template, template.get("spec"), template.get("metadata"))
        places = (found.path_of(value) for value in traced if value is not found.root)
        where = next((place for place in places if place is not None), None)
        if where is not None:
            obj = refs[name]
            kind, name_ = obj.get("kind"), (obj.get("metadata") or {}).get("name")
            return f"its pod template lives in the referenced {kind}/{name_} ({format_path(where)}); alter that object"
    if has_fragment and scope_at is None:
        return "its fields sit in an element the definition computes, which cannot be traced back into the object"
    if has_fragment:
        return f"the operator takes no such field for it (definition podFields of component {node.definition.name})"
    return (
        "the definition computes its pod template from other fields and declares no podFields "
        f"for component {node.definition.name}, so there is no field wmap could write"
    )
