"""What ``wmap describe`` reports: the workload tree with live pods, events and the placement audit.

``DescribeReport.to_dict()`` is the ``-o json|yaml`` contract: every field of ``wmap inspect -o
json`` (workload, definition, phase, phases, totals, podGroups ...), with ``components`` in their
live form (``replicas {desired, current, ready}``, ``gpus``, ``nodes``, ``pods``, ``components``),
plus ``unattributedPods``, ``events``, ``placement`` and ``kueue`` (the workload's Kueue Workloads with their
admission and its audit; null where Kueue's Workloads were not read). Fields are only ever added.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..tree import WorkloadTree
from ..values import JsonForm, to_json
from .kueue import KueueWorkload

if TYPE_CHECKING:  # the audit (and the placement stage under it) loads only when nodes are audited
    from .audit import PlacementAudit

__all__ = ["ReplicaCounts", "PodStatus", "ComponentStatus", "EventRecord", "DescribeReport"]


@dataclass
class ReplicaCounts(JsonForm):
    """Pods of a component across the whole workload.

    Attributes:
        desired: at the declared scale.
        current: pods that exist and have not terminated (Pending included); null when no pods
            were read (``describe -f`` without ``--objects``).
        ready: pods whose ``Ready`` condition is true; null when no pods were read.
    """

    desired: int
    current: int | None
    ready: int | None


@dataclass(kw_only=True)
class PodStatus(JsonForm):
    """One pod as describe shows it.

    Attributes:
        pod_group, sub_group: the gang a scheduler put the pod in (KAI ``pod-group-name`` and
            ``kai.scheduler/subgroup-name``, Volcano, Kueue), as the pod says.
        reason, message: why it is not running (``Unschedulable`` and the scheduler's text ...).
        replica: the pod's replica index of its component, when a label carries it.
        gang, gang_sub_group: wmap's PodGroup and innermost SubGroup for the pod.
    """

    name: str
    phase: str
    ready: bool
    node: str | None = None
    restarts: int = 0
    pod_group: str | None = None
    sub_group: str | None = None
    reason: str | None = None
    message: str | None = None
    replica: int | None = None
    gang: str | None = None
    gang_sub_group: str | None = None


@dataclass(kw_only=True)
class ComponentStatus(JsonForm):
    """One component with its live pods (children nested as in the tree).

    Attributes:
        gpus: GPUs declared for the component's pods across the workload.
        nodes: the nodes its pods run on.
        pods_omitted: pods left out by ``--pod-limit`` (the healthiest ones).
    """

    name: str
    role: str
    instance: str | None = None
    kind: str | None = None
    replicas: ReplicaCounts
    gpus: Fraction = Fraction(0)
    nodes: list[str] = field(default_factory=list)
    pods: list[PodStatus] = field(default_factory=list)
    pods_omitted: int = 0
    components: list[ComponentStatus] = field(default_factory=list)

    def walk(self) -> Any:
        """This component and every descendant, depth first."""
        yield self
        for child in self.components:
            yield from child.walk()


@dataclass(kw_only=True)
class EventRecord(JsonForm):
    """An Event of the workload, one of its owners on the way down, or one of its pods.

    Attributes:
        object: ``Kind/name`` of the object it is about.
        last_seen: when it was last seen (RFC 3339), the time kubectl orders events by.
    """

    type: str
    reason: str
    message: str
    object: str
    last_seen: str | None = None
    count: int = 1


@dataclass(kw_only=True)
class DescribeReport:
    """A workload described: its tree, live components, unattributed pods, events and audit.

    Attributes:
        pods_read: whether live pods were read (False for ``describe -f`` without objects).
        events_api: the Events API the events came from (``events.k8s.io/v1`` or ``v1``).
        warnings: what could not be read (nodes, events), one line each.
        kueue: the workload's Kueue Workloads (:mod:`.kueue`); None when Kueue's Workloads were not read.
    """

    tree: WorkloadTree
    components: list[ComponentStatus]
    unattributed_pods: list[PodStatus] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
    placement: PlacementAudit | None = None
    pods_read: bool = False
    events_api: str | None = None
    warnings: list[str] = field(default_factory=list)
    kueue: list[KueueWorkload] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``-o json`` form (see the module docstring)."""
        data: dict[str, Any] = self.tree.to_dict()
        data["warnings"] = list(self.tree.warnings) + list(self.warnings)
        data["components"] = to_json(self.components)
        data["unattributedPods"] = to_json(self.unattributed_pods)
        data["events"] = to_json(self.events)
        data["placement"] = self.placement.to_dict() if self.placement is not None else None
        data["podsRead"] = self.pods_read
        data["eventsApi"] = self.events_api
        data["kueue"] = to_json(self.kueue) if self.kueue is not None else None
        return data
