"""The service's cache: the watched objects (cut down), which are workloads, and which pods are theirs.

One thread applies every watch event (:meth:`Cache.apply`), so the cache needs no lock; the
interpreter reads it on the same thread. Besides the objects it keeps the indexes an informer-fed
service needs to re-interpret only what changed:

* owner links: each object's controller owner, and each owner's children, so an owner that
  arrives (or goes) re-classifies what sits below it;
* workloads: objects of a kind the catalog covers that no covered kind owns (``wmap get all``'s
  rule, :func:`workloadmap.live.top_level`);
* each pod's workload: the top-most covered owner on its controller chain (a JobSet's pod through
  its Job; an LWS worker through its StatefulSet, leader pod and leader StatefulSet), or the pod
  itself when no covered kind owns it;
* nodes and the pods on each, the namespace's Events (bounded), and which workloads read which
  referenced objects (a TrainJob's runtime).

A change marks the workloads it touches as dirty (:attr:`Cache.dirty`); the interpreter takes
them in batches, so a burst of pod updates is one re-interpretation per workload.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..live import OwnerChains, controller_of
from .objects import (
    EVENT_FIELDS,
    NODE_FIELDS,
    OWNER_FIELDS,
    POD_FIELDS,
    cut,
    keep,
    object_key,
    object_uid,
    workload_copy,
)

__all__ = ["Cache", "Role", "MAX_EVENTS_CACHED", "kind_key", "prepared"]

MAX_EVENTS_CACHED = 50_000
"""Events kept at most (the oldest-updated go first); the API server keeps them an hour anyway."""


class Role:
    """What the objects of a watched resource type are to the cache."""

    WORKLOADS = "workloads"  # a kind the catalog covers (workloads and the owners below them)
    OWNERS = "owners"  # a kind no definition covers, found between a workload and its pods
    PODS = "pods"
    NODES = "nodes"
    EVENTS = "events"
    KARTAS = "kartas"


def kind_key(api_version: str, kind: str) -> tuple[str, str]:
    """``(group, kind)`` of an apiVersion and kind: owner references may name another version."""
    return api_version.rpartition("/")[0], kind


def prepared(role: str, obj: dict[str, Any], covered: Callable[[str, str], bool]) -> tuple[dict[str, Any], bool]:
    """An object as a watch hands it on: cut down already where its kind and owner say enough (and whether it was).

    Cut on the watch's thread, so the whole object is dropped at once and the worker's queue
    holds only what is kept: a pod that has a controller owner (pods of workloads), an object of
    a covered kind whose controller owner is of a covered kind too (a JobSet's Job), an owner in
    between, a node, an Event. Should a pod or object so cut turn out to be a workload after all
    (its owner's kind not covered after all), the cache reads it again whole.
    """
    if role == Role.PODS:
        return (cut(obj, POD_FIELDS), True) if controller_of(obj) is not None else (obj, False)
    if role == Role.OWNERS:
        return cut(obj, OWNER_FIELDS), True
    if role == Role.NODES:
        return keep(obj, NODE_FIELDS), True
    if role == Role.EVENTS:
        return keep(obj, EVENT_FIELDS), True
    if role == Role.WORKLOADS:
        reference = controller_of(obj)
        if reference is not None and covered(str(reference.get("apiVersion") or ""), str(reference.get("kind") or "")):
            return cut(obj, OWNER_FIELDS), True
    return obj, False


@dataclass
class _Entry:
    obj: dict[str, Any]
    role: str
    resource: tuple[str, str]
    parent: str | None = None
    workload: bool = False
    cut: bool = False
    waiting: tuple[str, str] | None = None


@dataclass
class Counters:
    """Per resource type (``plural.group``): watch events by type, and objects held."""

    events: dict[tuple[str, str], int] = field(default_factory=dict)
    objects: dict[str, int] = field(default_factory=dict)

    def event(self, resource: str, event_type: str) -> None:
        """Count one event."""
        key = (resource, event_type)
        self.events[key] = self.events.get(key, 0) + 1

    def held(self, resource: str, change: int) -> None:
        """Objects of ``resource`` held went up or down by ``change``."""
        self.objects[resource] = self.objects.get(resource, 0) + change


class Cache:
    """Watched objects cut down to what wmap reads, and the indexes between them.

    Args:
        covered: ``covered(apiVersion, kind)``: whether a definition covers the kind.
        in_shard: ``in_shard(namespace)``: whether this process handles the namespace.
    """

    def __init__(self, covered: Callable[[str, str], bool], in_shard: Callable[[str], bool] = lambda _: True) -> None:
        self.covered = covered
        self.in_shard = in_shard
        self.entries: dict[str, _Entry] = {}
        self.children: dict[str, set[str]] = {}
        self.workloads: dict[str, None] = {}
        self.pod_workload: dict[str, str] = {}
        self.workload_pods: dict[str, set[str]] = {}
        self.nodes: dict[str, dict[str, Any]] = {}
        self.node_pods: dict[str, set[str]] = {}
        self.pod_node: dict[str, str] = {}
        self.events: dict[str, dict[str, Any]] = {}
        self.kartas: dict[str, dict[str, Any]] = {}
        self.by_name: dict[tuple[str, str, str], str] = {}
        self.readers: dict[tuple[str, str, str], set[str]] = {}
        self.dirty: set[str] = set()
        self.nodes_changed = True
        self.catalog_changed = False
        self.pending_kinds: set[tuple[str, str]] = set()
        """(group, kind) of owners being watched but not listed yet, or asked for (:attr:`wanted_kinds`)."""
        self.watched_kinds: set[tuple[str, str]] = set()
        self.wanted_kinds: set[tuple[str, str]] = set()
        """Owner kinds met on a chain that nothing watches yet: the watcher starts (or refuses) them."""
        self.refused_kinds: set[tuple[str, str]] = set()
        """Owner kinds that cannot be watched (not served, or forbidden): chains end there."""
        self.refetch: set[str] = set()
        """Objects kept cut down that turned out to be workloads: their whole object is read again."""
        self.counters = Counters()

    # -- the OwnerLookup protocol ---------------------------------------------------------------

    def owner(self, namespace: str | None, reference: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The cached object an owner reference names (by UID), or None."""
        entry = self.entries.get(str(reference.get("uid") or ""))
        return entry.obj if entry is not None else None

    # -- events ---------------------------------------------------------------------------------

    def apply(
        self, role: str, resource: tuple[str, str], event_type: str, obj: Mapping[str, Any], *, precut: bool = False
    ) -> None:
        """Apply one watch event (``ADDED``, ``MODIFIED`` or ``DELETED``) of a resource type with ``role``.

        ``precut``: the object was already cut down (:func:`prepared`, in the watch's thread);
        should it turn out to be a workload, its whole object is read again.
        """
        name = f"{resource[1]}.{resource[0]}" if resource[0] else resource[1]
        self.counters.event(name, event_type)
        body = obj if isinstance(obj, dict) else dict(obj)
        if role == Role.NODES:
            self._node(event_type, body, name)
        elif role == Role.EVENTS:
            self._event(event_type, body, name)
        elif role == Role.KARTAS:
            self._karta(event_type, body, name)
        else:
            namespace = str((body.get("metadata") or {}).get("namespace") or "")
            if namespace and not self.in_shard(namespace):
                return
            if event_type == "DELETED":
                self._remove(object_uid(body), name)
            else:
                self._store(role, resource, body, name, precut)

    def drop_resource(self, resource: tuple[str, str]) -> None:
        """Forget every object of a resource type no longer watched (its CRD was removed)."""
        name = f"{resource[1]}.{resource[0]}" if resource[0] else resource[1]
        for uid in [uid for uid, entry in self.entries.items() if entry.resource == resource]:
            self._remove(uid, name)

    def _node(self, event_type: str, node: dict[str, Any], name: str) -> None:
        node_name = object_key(node)[1]
        if event_type == "DELETED":
            if self.nodes.pop(node_name, None) is not None:
                self.counters.held(name, -1)
        else:
            kept = keep(node, NODE_FIELDS)
            previous = self.nodes.get(node_name)
            if previous == kept:
                return  # a heartbeat: nothing wmap reads changed
            if previous is None:
                self.counters.held(name, 1)
            self.nodes[node_name] = kept
        self.nodes_changed = True
        for pod in self.node_pods.get(node_name, ()):
            self._touch_pod(pod)

    def _event(self, event_type: str, event: dict[str, Any], name: str) -> None:
        uid = object_uid(event)
        namespace = object_key(event)[0]
        if namespace and not self.in_shard(namespace):
            return
        if event_type == "DELETED":
            if self.events.pop(uid, None) is not None:
                self.counters.held(name, -1)
            return
        if self.events.pop(uid, None) is None:
            self.counters.held(name, 1)
        self.events[uid] = keep(event, EVENT_FIELDS)  # re-inserted: dict order is update order
        while len(self.events) > MAX_EVENTS_CACHED:
            del self.events[next(iter(self.events))]
            self.counters.held(name, -1)

    def _karta(self, event_type: str, karta: dict[str, Any], name: str) -> None:
        uid = object_uid(karta)
        if event_type == "DELETED":
            if self.kartas.pop(uid, None) is not None:
                self.counters.held(name, -1)
        else:
            if uid not in self.kartas:
                self.counters.held(name, 1)
            self.kartas[uid] = workload_copy(karta)
        self.catalog_changed = True

    # -- objects and pods -----------------------------------------------------------------------

    def _store(self, role: str, resource: tuple[str, str], obj: dict[str, Any], name: str, precut: bool) -> None:
        uid = object_uid(obj)
        previous = self.entries.get(uid)
        reference = controller_of(obj)
        parent = str(reference.get("uid") or "") or None if reference is not None else None
        if previous is None:
            self.counters.held(name, 1)
            entry = _Entry(obj={}, role=role, resource=resource, parent=parent)
            self.entries[uid] = entry
        else:
            entry = previous
            if entry.parent != parent and entry.parent:
                self._unlink(uid, entry.parent)
        moved = previous is None or previous.parent != parent
        entry.parent = parent
        if parent:
            self.children.setdefault(parent, set()).add(uid)
        was = entry.workload
        self._classify(uid, entry, obj, precut)
        if moved or was != entry.workload:
            self._reclassify_below(uid)
        self._touch_readers(obj)

    def _remove(self, uid: str, name: str) -> None:
        entry = self.entries.pop(uid, None)
        if entry is None:
            return
        self.counters.held(name, -1)
        self.refetch.discard(uid)
        if entry.parent:
            self._unlink(uid, entry.parent)
        if entry.workload:
            self.workloads.pop(uid, None)
            self.dirty.add(uid)
            self._unindex_name(entry.obj)
        if entry.role == Role.PODS:
            self._set_pod_workload(uid, None, True)
            self._set_pod_node(uid, None)
        self._reclassify_below(uid)
        self._touch_readers(entry.obj)

    def _unlink(self, uid: str, parent: str) -> None:
        siblings = self.children.get(parent)
        if siblings is not None:
            siblings.discard(uid)
            if not siblings:
                del self.children[parent]

    def _reclassify_below(self, uid: str) -> None:
        """Owners changed above everything below ``uid``: classify those objects and pods again."""
        stack = list(self.children.get(uid, ()))
        seen = {uid}
        while stack:
            child = stack.pop()
            entry = self.entries.get(child)
            if child in seen or entry is None:
                continue
            seen.add(child)
            self._classify(child, entry, None)
            stack.extend(self.children.get(child, ()))

    def reclassify(self, uids: Iterable[str]) -> None:
        """Classify these objects (and what sits below them) again: an owner kind became known or refused."""
        for uid in list(uids):
            entry = self.entries.get(uid)
            if entry is not None:
                self._classify(uid, entry, None)
                self._reclassify_below(uid)

    def waiting_on(self, kinds: Iterable[tuple[str, str]]) -> list[str]:
        """The objects whose chain stops at a missing owner of one of ``kinds`` (to classify again)."""
        wanted = set(kinds)
        found = []
        for uid, entry in self.entries.items():
            if entry.waiting and entry.waiting in wanted:
                found.append(uid)
        return found

    def _chain_end(self, obj: Mapping[str, Any]) -> tuple[str | None, tuple[str, str] | None]:
        """The UID of the top-most covered owner above ``obj`` (None: none), and the kind it waits for.

        It waits when the chain stops at an owner that is not cached yet but of a kind being (or
        about to be) watched; the object is classified again when that owner arrives or its kind
        is refused.
        """
        top = None
        for link in OwnerChains(self).chain(obj):
            covered = self.covered(link.api_version, link.kind)
            if covered:
                top = link.uid
            if link.obj is None:
                kind = kind_key(link.api_version, link.kind)
                if kind in self.pending_kinds:
                    return top, kind
                if kind not in self.watched_kinds and kind not in self.refused_kinds and not covered:
                    self.wanted_kinds.add(kind)
                    self.pending_kinds.add(kind)
                    return top, kind
        return top, None

    def _classify(self, uid: str, entry: _Entry, fresh: dict[str, Any] | None, precut: bool = False) -> None:
        """Decide what ``entry`` is and keep what that needs; ``fresh``: the object just received.

        An entry kept cut down (classified again without a fresh object after an owner came or
        went, or received cut down) cannot grow back: when it turns out to be a workload its whole
        object is fetched again (:attr:`refetch`).
        """
        source = fresh if fresh is not None else entry.obj
        top, waiting = self._chain_end(source) if entry.parent else (None, None)
        entry.waiting = waiting
        was = entry.workload
        if entry.role == Role.OWNERS:
            entry.obj, entry.cut = cut(source, OWNER_FIELDS), True
            return
        owned = top is not None
        workload = top is None and waiting is None
        was_cut = precut if fresh is not None else entry.cut
        if owned:
            kept = cut(source, POD_FIELDS if entry.role == Role.PODS else OWNER_FIELDS)
        else:
            kept = workload_copy(fresh) if fresh is not None else entry.obj
            if was_cut and workload:
                self.refetch.add(uid)
        changed = kept != entry.obj
        entry.obj = kept
        entry.cut = owned or was_cut
        entry.workload = workload
        if workload:
            self.workloads[uid] = None
            self._index_name(uid, kept)
        elif was:
            self.workloads.pop(uid, None)
            self._unindex_name(kept)
        if (workload and changed) or was != workload:
            self.dirty.add(uid)
        if entry.role == Role.PODS:
            self._set_pod_workload(uid, top if top is not None else (None if waiting else uid), changed)
            node = (kept.get("spec") or {}).get("nodeName")
            self._set_pod_node(uid, str(node) if node else None)

    def _set_pod_workload(self, pod: str, workload: str | None, changed: bool) -> None:
        old = self.pod_workload.get(pod)
        if old is not None and old != workload:
            pods = self.workload_pods.get(old)
            if pods is not None:
                pods.discard(pod)
                if not pods:
                    del self.workload_pods[old]
        if workload is None:
            self.pod_workload.pop(pod, None)
        else:
            self.pod_workload[pod] = workload
            self.workload_pods.setdefault(workload, set()).add(pod)
        if changed or old != workload:
            for uid in {old, workload} - {None}:
                self.dirty.add(str(uid))

    def _set_pod_node(self, pod: str, node: str | None) -> None:
        old = self.pod_node.get(pod)
        if old == node:
            return
        if old is not None:
            on_node = self.node_pods.get(old)
            if on_node is not None:
                on_node.discard(pod)
                if not on_node:
                    del self.node_pods[old]
            del self.pod_node[pod]
        if node is not None:
            self.pod_node[pod] = node
            self.node_pods.setdefault(node, set()).add(pod)

    def _touch_pod(self, pod: str) -> None:
        workload = self.pod_workload.get(pod)
        if workload is not None and workload in self.workloads:
            self.dirty.add(workload)

    # -- referenced objects ---------------------------------------------------------------------

    def _index_name(self, uid: str, obj: Mapping[str, Any]) -> None:
        namespace, name = object_key(obj)
        self.by_name[(str(obj.get("kind") or ""), namespace, name)] = uid

    def _unindex_name(self, obj: Mapping[str, Any]) -> None:
        namespace, name = object_key(obj)
        self.by_name.pop((str(obj.get("kind") or ""), namespace, name), None)

    def _touch_readers(self, obj: Mapping[str, Any]) -> None:
        namespace, name = object_key(obj)
        key = (str(obj.get("kind") or ""), namespace, name)
        for reader in self.readers.get(key, ()):
            if reader in self.workloads:
                self.dirty.add(reader)

    def find(self, kind: str, name: str, namespace: str | None) -> dict[str, Any] | None:
        """A cached workload-kind object by kind and name (``namespace`` None: cluster-scoped)."""
        uid = self.by_name.get((kind, namespace or "", name))
        entry = self.entries.get(uid) if uid is not None else None
        return entry.obj if entry is not None else None

    def read_by(self, reader: str, keys: Iterable[tuple[str, str, str]]) -> None:
        """Record that workload ``reader`` read these ``(kind, namespace, name)`` objects (it is dirtied with them)."""
        for key in keys:
            self.readers.setdefault(key, set()).add(reader)

    # -- reading --------------------------------------------------------------------------------

    def workload(self, uid: str) -> dict[str, Any] | None:
        """A workload object by UID (None when it is gone or is no workload)."""
        entry = self.entries.get(uid)
        return entry.obj if entry is not None and entry.workload else None

    def pods_of(self, uid: str) -> list[dict[str, Any]]:
        """The pods whose owner chain ends at workload ``uid`` (a bare pod: itself)."""
        found = []
        for pod in self.workload_pods.get(uid, ()):
            entry = self.entries.get(pod)
            if entry is not None:
                found.append(entry.obj)
        return found

    def all_pods(self) -> list[dict[str, Any]]:
        """Every cached pod (those of this shard)."""
        return [entry.obj for entry in self.entries.values() if entry.role == Role.PODS]

    def events_of(self, namespace: str | None) -> list[dict[str, Any]]:
        """The cached Events of a namespace (None: all)."""
        if namespace is None:
            return list(self.events.values())
        return [event for event in self.events.values() if object_key(event)[0] == namespace]
