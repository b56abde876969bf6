"""Admission results. ``to_dict()`` is the ``-o json`` contract of ``wmap admit`` and ``wmap capacity``.

``wmap admit`` prints a ``List`` of :class:`WorkloadAdmission`::

    {workload: {kind, namespace, name}, localQueue, clusterQueue, verdict,
     podSets: [{name, count, flavors: {RESOURCE: FLAVOR}, borrowing}], reasons: [...]}

plus Kueue's QuotaReserved ``reason``, the ``priority``, the ``preemptionCandidates`` and, for
KAI, the ``queue`` figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ..values import OMIT, JsonForm

__all__ = [
    "AdmissionVerdict",
    "WorkloadKey",
    "PodSetAdmission",
    "Candidate",
    "KaiQuota",
    "WorkloadAdmission",
    "AdmissionReport",
    "DomainCapacity",
    "CapacityReport",
]


class AdmissionVerdict(str, Enum):
    """What the scheduler would do with a Workload now.

    ``admitted``: quota reserved (with every resource's flavor); ``pending``: it waits (for quota,
    for preemptions, behind an older Workload); ``inadmissible``: it cannot be admitted as the
    queues stand (no such queue, queue stopped, namespace not selected, no flavor for a
    resource); ``unknown``: the inputs do not decide it (the reason says what is missing).
    """

    ADMITTED = "admitted"
    PENDING = "pending"
    INADMISSIBLE = "inadmissible"
    UNKNOWN = "unknown"

    @staticmethod
    def worst(verdicts: list[AdmissionVerdict]) -> AdmissionVerdict:
        """Inadmissible or pending over unknown over admitted (for exit codes)."""
        for verdict in (AdmissionVerdict.INADMISSIBLE, AdmissionVerdict.PENDING, AdmissionVerdict.UNKNOWN):
            if verdict in verdicts:
                return verdict
        return AdmissionVerdict.ADMITTED


@dataclass
class WorkloadKey(JsonForm):
    """The workload a verdict is about (the object given, not Kueue's Workload object)."""

    kind: str
    namespace: str
    name: str


@dataclass
class PodSetAdmission(JsonForm):
    """One PodSet: its pods, the flavor of each resource (when assigned), whether it borrows."""

    name: str
    count: int
    flavors: dict[str, str] = field(default_factory=dict)
    borrowing: bool = False
    mode: str = ""


@dataclass
class Candidate(JsonForm):
    """An admitted Workload Kueue's preemption rules would consider evicting (a possibility, not a promise)."""

    namespace: str
    name: str
    cluster_queue: str
    priority: int
    reason: str


@dataclass
class KaiQuota(JsonForm):
    """A KAI queue's figures for one resource: deserved quota, limit, allocated, this gang's request (-1: unlimited)."""

    resource: str
    deserved: float
    limit: float
    allocated: float
    requested: float


@dataclass
class WorkloadAdmission(JsonForm):
    """The verdict for one Workload the scheduler would make of a given workload.

    Attributes:
        group: the Kueue Workload when the integration makes several (one per LeaderWorkerSet
            group); None when the workload is one Kueue Workload.
        reason: Kueue's QuotaReserved reason (``WaitingForQuota``, ``ExceedsMaxQuota``,
            ``NoMatchingFlavor``, ``Misconfigured``, ``Suspended`` ...) or KAI's (``OverLimit``,
            ``NonPreemptibleOverQuota``); empty when admitted.
        queue: KAI: the queue the PodGroup is in.
        quota: KAI: ``withinQuota`` (not reclaimable) or ``overQuota`` (runs now, reclaimable).
    """

    workload: WorkloadKey
    local_queue: str | None
    cluster_queue: str | None
    verdict: AdmissionVerdict
    pod_sets: list[PodSetAdmission] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    group: str | None = None
    scheduler: str = "kueue"
    priority: int | None = None
    reason: str = ""
    preemption_candidates: list[Candidate] = field(default_factory=list)
    queue: str | None = None
    quota: str | None = None
    queue_figures: list[KaiQuota] = field(default_factory=list)


@dataclass
class AdmissionReport(JsonForm):
    """Every verdict, in the order the scheduler takes the Workloads, and what the preview noticed."""

    items: list[WorkloadAdmission] = field(default_factory=list)
    notes: list[str] = field(default_factory=list, metadata=OMIT)

    @property
    def verdict(self) -> AdmissionVerdict:
        """The worst verdict (admitted when there are none)."""
        return AdmissionVerdict.worst([item.verdict for item in self.items])


@dataclass
class DomainCapacity(JsonForm):
    """How many more copies fit in one domain of the gang's level (``lowerBound``: the search ran out)."""

    domain: str
    copies: int
    lower_bound: bool = False


@dataclass
class CapacityReport(JsonForm):
    """How many more copies of a workload fit now, per domain and in all, and what the quota allows.

    Attributes:
        level: the level the copies are counted per (the gangs' required level; None: no level).
        copies: copies placed one after another on the whole cluster, as the scheduler would.
        lower_bound: ``copies`` may be short: some copy's fit was unknown within the search
            budget (unknown is never counted as a fit), or the count stopped at ``limit``.
        quota_copies: with queues, how many copies the workload's ClusterQueue (or KAI queue)
            admits, one after another; None without queues.
        admitted: ``min(copies, quota_copies)``: what fits both the nodes and the quota.
    """

    workload: WorkloadKey
    topology: str
    policy: str
    level: str | None
    copies: int
    lower_bound: bool = False
    domains: list[DomainCapacity] = field(default_factory=list)
    quota_copies: int | None = None
    quota_lower_bound: bool = False
    quota_reason: str | None = None
    admitted: int | None = None
    limit: int = 0
    notes: list[str] = field(default_factory=list)
