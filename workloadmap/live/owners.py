"""Owner chains: which workload a pod belongs to, followed through its controller owners.

A pod belongs to a workload when its chain of *controller* owner references reaches the
workload's UID: a JobSet's pod through its Job, an LWS worker through its StatefulSet and the
leader pod that owns that StatefulSet, a Knative pod through ReplicaSet, Deployment, Revision,
Configuration. Chains are followed at most :data:`MAX_OWNER_DEPTH` owners up; each owner is
looked up once per call (:class:`OwnerChains` remembers every chain it walked). Owners come from
an :class:`OwnerLookup`: the live cluster (``workloadmap.kube.OwnerCache``) or the objects of a
dump (:class:`ObjectsByUid`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..values import mapping_at

__all__ = ["OwnerLookup", "ObjectsByUid", "OwnerChains", "OwnerLink", "controller_of", "MAX_OWNER_DEPTH"]

MAX_OWNER_DEPTH = 8
"""Owners followed above a pod (Knative needs five; upstream Workload Map stops at six)."""


class OwnerLookup(Protocol):
    """Finds the object an owner reference names."""

    def owner(self, namespace: str | None, reference: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The object, or None when it is gone or cannot be read."""


def _uid(obj: Mapping[str, Any]) -> str:
    return str(mapping_at(obj, "metadata").get("uid") or "")


def controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The owner reference marked ``controller: true``, else the only owner reference, else None."""
    references = [ref for ref in mapping_at(obj, "metadata").get("ownerReferences") or [] if isinstance(ref, Mapping)]
    for reference in references:
        if reference.get("controller") is True:
            return reference
    return references[0] if len(references) == 1 else None


class ObjectsByUid:
    """An :class:`OwnerLookup` over objects in memory (a ``kubectl get -o yaml`` dump)."""

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self.by_uid = {_uid(obj): obj for obj in objects if _uid(obj)}

    def owner(self, namespace: str | None, reference: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The dumped object with the reference's UID, or None."""
        return self.by_uid.get(str(reference.get("uid") or ""))


@dataclass(frozen=True)
class OwnerLink:
    """One owner above an object: what the reference says, and the object when it could be read."""

    uid: str
    api_version: str
    kind: str
    name: str
    obj: Mapping[str, Any] | None


class OwnerChains:
    """Controller-owner chains of objects, each owner looked up once.

    Args:
        lookup: where owners come from.
        max_depth: owners followed above an object.
    """

    def __init__(self, lookup: OwnerLookup, max_depth: int = MAX_OWNER_DEPTH) -> None:
        self.lookup = lookup
        self.max_depth = max_depth
        self._owners: dict[str, Mapping[str, Any] | None] = {}
        self._indexes: dict[int, tuple[Sequence[Mapping[str, Any]], dict[Any, list[Mapping[str, Any]]]]] = {}

    def _owner(self, namespace: str | None, reference: Mapping[str, Any]) -> Mapping[str, Any] | None:
        uid = str(reference.get("uid") or "")
        if not uid:
            return self.lookup.owner(namespace, reference)
        if uid not in self._owners:
            self._owners[uid] = self.lookup.owner(namespace, reference)
        return self._owners[uid]

    def chain(self, obj: Mapping[str, Any]) -> tuple[OwnerLink, ...]:
        """The controller owners above ``obj``, nearest first (at most ``max_depth``; a cycle stops it)."""
        links: list[OwnerLink] = []
        seen = {_uid(obj)}
        current: Mapping[str, Any] | None = obj
        while current is not None and len(links) < self.max_depth:
            reference = controller_of(current)
            if reference is None:
                break
            uid = str(reference.get("uid") or "")
            if uid in seen:
                break
            seen.add(uid)
            namespace = mapping_at(current, "metadata").get("namespace")
            owner = self._owner(str(namespace) if namespace else None, reference)
            links.append(
                OwnerLink(
                    uid=uid,
                    api_version=str(reference.get("apiVersion") or ""),
                    kind=str(reference.get("kind") or ""),
                    name=str(reference.get("name") or ""),
                    obj=owner,
                )
            )
            current = owner
        return tuple(links)

    def below(self, objects: Sequence[Mapping[str, Any]]) -> dict[Any, list[Mapping[str, Any]]]:
        """``objects`` by every owner above them: by UID, and by ``(kind, name)``; built once per sequence.

        ``wmap get`` asks this for every workload of a namespace: the chains are walked once.
        """
        cached = self._indexes.get(id(objects))
        if cached is not None and cached[0] is objects:
            return cached[1]
        index: dict[Any, list[Mapping[str, Any]]] = {}
        for obj in objects:
            for link in self.chain(obj):
                if link.uid:
                    index.setdefault(link.uid, []).append(obj)
                index.setdefault((link.kind, link.name), []).append(obj)
        self._indexes[id(objects)] = (objects, index)
        return index

    def uids(self, obj: Mapping[str, Any]) -> list[str]:
        """The UIDs of the owners above ``obj``, nearest first."""
        return [link.uid for link in self.chain(obj) if link.uid]
