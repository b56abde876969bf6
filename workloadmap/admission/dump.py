"""Reading queue objects from what ``kubectl get ... -o yaml`` prints (or the API serves).

:func:`read_queue_objects` takes parsed documents (``List`` items flattened) and builds a
:class:`QueueState`: Kueue's ClusterQueues, Cohorts, LocalQueues, ResourceFlavors, Topologies,
WorkloadPriorityClasses and Workloads (v1beta2 and v1beta1), PriorityClasses, Namespaces and
KAI Queues. Other kinds are counted and left out. A field of the wrong shape is an
:class:`~workloadmap.errors.InputError` naming the file, the document and the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import labels
from ..documents import Document
from ..errors import InputError, WorkloadMapError
from ..scheduling import parse_taints, pod_scheduling
from .objects import (
    ClusterQueue,
    Cohort,
    KaiQueue,
    LocalQueue,
    Namespace,
    PriorityValue,
    QueuedWorkload,
    ResourceFlavor,
    Topology,
)
from .parse import (
    Reader,
    cluster_queue,
    cohort,
    kai_queue,
    local_queue,
    queued_workload,
)

__all__ = ["QueueState", "read_queue_objects"]


@dataclass
class QueueState:
    """Every queue object of a dump, by name (namespaced ones by ``namespace/name``).

    Attributes:
        ignored: kinds left out, with how many of each.
        sources: where the objects came from (files, or the live cluster's context), for messages.
    """

    cluster_queues: dict[str, ClusterQueue] = field(default_factory=dict)
    cohorts: dict[str, Cohort] = field(default_factory=dict)
    local_queues: dict[str, LocalQueue] = field(default_factory=dict)
    flavors: dict[str, ResourceFlavor] = field(default_factory=dict)
    topologies: dict[str, Topology] = field(default_factory=dict)
    workload_priority_classes: dict[str, PriorityValue] = field(default_factory=dict)
    priority_classes: dict[str, PriorityValue] = field(default_factory=dict)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    workloads: list[QueuedWorkload] = field(default_factory=list)
    kai_queues: dict[str, KaiQueue] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    @property
    def has_kueue(self) -> bool:
        """Whether the dump holds any Kueue queue object."""
        return bool(self.cluster_queues or self.local_queues)


def _flavor(reader: Reader, body: Mapping[str, Any], name: str) -> ResourceFlavor:
    spec = reader.child(body, ("spec",))
    node_labels = {str(key): str(value) for key, value in reader.child(spec, ("spec", "nodeLabels")).items()}
    try:
        taints = parse_taints(spec.get("nodeTaints") or [], "spec.nodeTaints")
        tolerations = pod_scheduling({"tolerations": spec.get("tolerations") or []}, "spec").tolerations
    except InputError as error:
        raise error.located(file=reader.file, document=reader.document) from None
    topology = spec.get("topologyName")
    return ResourceFlavor(name, node_labels, taints, tolerations, str(topology) if topology else None)


def _topology(reader: Reader, body: Mapping[str, Any], name: str) -> Topology:
    levels = []
    spec = reader.child(body, ("spec",))
    for index, level in enumerate(reader.sequence(spec.get("levels"), ("spec", "levels"))):
        path = ("spec", "levels", index, "nodeLabel")
        levels.append(reader.text(reader.mapping(level, path[:-1]).get("nodeLabel"), path, required=True))
    return Topology(name, tuple(levels))


def _priority(reader: Reader, body: Mapping[str, Any], name: str) -> PriorityValue:
    value = reader.integer(body.get("value"), ("value",), required=True)
    return PriorityValue(name, value, bool(body.get("globalDefault")))


def _namespace(reader: Reader, body: Mapping[str, Any], name: str) -> Namespace:
    metadata = reader.child(body, ("metadata",))
    return Namespace(name, {str(k): str(v) for k, v in reader.child(metadata, ("metadata", "labels")).items()})


def _store(state: QueueState, reader: Reader, group: str, kind: str, body: Mapping[str, Any], name: str) -> bool:
    """File one object in ``state``; False for a kind the preview does not read."""
    if group == labels.KUEUE_GROUP:
        if kind == "ClusterQueue":
            state.cluster_queues[name] = cluster_queue(reader, body, name)
        elif kind == "Cohort":
            state.cohorts[name] = cohort(reader, body, name)
        elif kind == "LocalQueue":
            queue = local_queue(reader, body, name)
            state.local_queues[f"{queue.namespace}/{name}"] = queue
        elif kind == "ResourceFlavor":
            state.flavors[name] = _flavor(reader, body, name)
        elif kind == "Topology":
            state.topologies[name] = _topology(reader, body, name)
        elif kind == "WorkloadPriorityClass":
            state.workload_priority_classes[name] = _priority(reader, body, name)
        elif kind == "Workload":
            state.workloads.append(queued_workload(reader, body, name))
        else:
            return False
    elif group == labels.SCHEDULING_GROUP and kind == "PriorityClass":
        state.priority_classes[name] = _priority(reader, body, name)
    elif group == "" and kind == "Namespace":
        state.namespaces[name] = _namespace(reader, body, name)
    elif group == labels.KAI_QUEUE_GROUP and kind == "Queue":
        state.kai_queues[name] = kai_queue(reader, body, name)
    else:
        return False
    return True


def read_queue_objects(documents: Iterable[Document | WorkloadMapError], state: QueueState | None = None) -> QueueState:
    """The queue objects of these documents, added to ``state`` (a new one when None).

    Raises:
        InputError: a document that is not an object, an object without a name, a field of the
            wrong type or an invalid quantity (located: file, document, field), or a document
            the parser refused.
    """
    state = state if state is not None else QueueState()
    for document in documents:
        if isinstance(document, WorkloadMapError):
            raise document
        body = document.body
        reader = Reader(document.file, document.label)
        if not isinstance(body, Mapping):
            raise InputError("expected a Kubernetes object (a mapping)", file=document.file, document=document.label)
        api_version = reader.text(body.get("apiVersion"), ("apiVersion",))
        kind = reader.text(body.get("kind"), ("kind",))
        group = api_version.rpartition("/")[0]
        name = reader.text(reader.child(body, ("metadata",)).get("name"), ("metadata", "name"), required=True)
        if not _store(state, reader, group, kind, body, name):
            state.ignored[kind or "(no kind)"] = state.ignored.get(kind or "(no kind)", 0) + 1
        if document.file not in state.sources:
            state.sources.append(document.file)
    return state
