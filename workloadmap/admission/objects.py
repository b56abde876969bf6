"""Typed models of the queue objects a preview reads: Kueue's and KAI's, as the API serves them.

Kueue (``kueue.x-k8s.io``, v1beta2 and v1beta1, normalised to v1beta2 with the renames of
``apis/kueue/v1beta1/*_conversion.go``): :class:`ClusterQueue`, :class:`Cohort`,
:class:`LocalQueue`, :class:`ResourceFlavor`, :class:`Topology`, :class:`PriorityValue` (a
WorkloadPriorityClass or a PriorityClass) and :class:`QueuedWorkload` (a Workload). KAI
(``scheduling.run.ai/v2``): :class:`KaiQueue`. Quotas are Kueue's integers
(:mod:`.amounts`), keyed by ``(flavor, resource)``.

The defaults are those Kueue's scheduler cache applies to fields the object leaves out
(``pkg/cache/scheduler/clusterqueue.go``): preemption ``Never``/``Never``, ``whenCanBorrow:
MayStopSearch``, ``whenCanPreempt: TryNextFlavor``, ``stopPolicy: None``; a namespaceSelector
left out is "nothing" (``LabelSelectorAsSelector(nil)``), an empty one ``{}`` is everything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from ..scheduling import PodScheduling, Requirement, Taint, Toleration

__all__ = [
    "FlavorResource",
    "Quota",
    "FlavorQuotas",
    "ResourceGroup",
    "Preemption",
    "Fungibility",
    "LabelSelector",
    "ClusterQueue",
    "Cohort",
    "LocalQueue",
    "ResourceFlavor",
    "Topology",
    "PriorityValue",
    "Namespace",
    "QueuedPodSet",
    "TopologyDomain",
    "TopologyAssignment",
    "AdmittedPodSet",
    "QueuedWorkload",
    "KaiResource",
    "KaiQueue",
]

FlavorResource = tuple[str, str]
"""``(flavor, resource)``: the unit Kueue keeps quota and usage in."""

NEVER = "Never"
LOWER_PRIORITY = "LowerPriority"
LOWER_OR_NEWER_EQUAL = "LowerOrNewerEqualPriority"
ANY = "Any"
MAY_STOP_SEARCH = "MayStopSearch"
TRY_NEXT_FLAVOR = "TryNextFlavor"
BORROWING_OVER_PREEMPTION = "BorrowingOverPreemption"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"
STRICT_FIFO = "StrictFIFO"
BEST_EFFORT_FIFO = "BestEffortFIFO"


@dataclass(frozen=True)
class Quota:
    """One resource of one flavor: ``nominalQuota``, ``borrowingLimit``, ``lendingLimit`` (None: unset)."""

    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass(frozen=True)
class FlavorQuotas:
    """One flavor of a resource group, with the quota of each covered resource (in spec order)."""

    name: str
    resources: dict[str, Quota]


@dataclass(frozen=True)
class ResourceGroup:
    """``spec.resourceGroups[]``: covered resources and the flavors tried for them, in order."""

    covered: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True)
class Preemption:
    """``spec.preemption`` with Kueue's defaults."""

    within_cluster_queue: str = NEVER
    reclaim_within_cohort: str = NEVER
    borrow_within_cohort: str = NEVER
    max_priority_threshold: int | None = None


@dataclass(frozen=True)
class Fungibility:
    """``spec.flavorFungibility`` with Kueue's defaults (v1beta1's ``Borrow``/``Preempt`` read as ``MayStopSearch``)."""

    when_can_borrow: str = MAY_STOP_SEARCH
    when_can_preempt: str = TRY_NEXT_FLAVOR
    preference: str | None = None


@dataclass(frozen=True)
class LabelSelector:
    """A ``metav1.LabelSelector``: every ``matchLabels`` pair and every expression must hold."""

    match_labels: tuple[tuple[str, str], ...] = ()
    expressions: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether an object with these labels is selected (the empty selector selects everything)."""
        if any(labels.get(key) != value for key, value in self.match_labels):
            return False
        return all(requirement.matches(labels.get(requirement.key)) for requirement in self.expressions)


@dataclass(frozen=True)
class ClusterQueue:
    """A ClusterQueue (cluster-scoped).

    Attributes:
        namespace_selector: None when the field is left out: no namespace is selected.
        admission_checks: ``(name, onFlavors)`` of ``admissionChecksStrategy`` (v1beta1's list of names).
        status_reserved: ``status.flavorsReservation`` totals, when the dump carries them.
        where: the file and document it came from.
    """

    name: str
    cohort: str | None = None
    resource_groups: tuple[ResourceGroup, ...] = ()
    namespace_selector: LabelSelector | None = None
    queueing_strategy: str = BEST_EFFORT_FIFO
    fungibility: Fungibility = field(default_factory=Fungibility)
    preemption: Preemption = field(default_factory=Preemption)
    stop_policy: str = "None"
    admission_checks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    status_reserved: dict[FlavorResource, int] | None = None
    where: tuple[str, str] = ("", "")

    def group_of(self, resource: str) -> ResourceGroup | None:
        """The resource group covering ``resource`` (``RGByResource``)."""
        for group in self.resource_groups:
            if resource in group.covered:
                return group
        return None

    def quotas(self) -> dict[FlavorResource, Quota]:
        """Every flavor-resource quota of the queue."""
        return {
            (flavor.name, resource): quota
            for group in self.resource_groups
            for flavor in group.flavors
            for resource, quota in flavor.resources.items()
        }

    def flavor_names(self) -> list[str]:
        """The flavors of every group, in spec order."""
        return [flavor.name for group in self.resource_groups for flavor in group.flavors]


@dataclass(frozen=True)
class Cohort:
    """A Cohort: an optional parent and a shared pool (its own resource groups)."""

    name: str
    parent: str | None = None
    resource_groups: tuple[ResourceGroup, ...] = ()
    where: tuple[str, str] = ("", "")

    def quotas(self) -> dict[FlavorResource, Quota]:
        """Every flavor-resource quota the cohort itself holds."""
        return {
            (flavor.name, resource): quota
            for group in self.resource_groups
            for flavor in group.flavors
            for resource, quota in flavor.resources.items()
        }


@dataclass(frozen=True)
class LocalQueue:
    """A LocalQueue: the namespace's door to one ClusterQueue."""

    namespace: str
    name: str
    cluster_queue: str
    stop_policy: str = "None"


@dataclass(frozen=True)
class ResourceFlavor:
    """A ResourceFlavor: the nodes it stands for (labels, taints), tolerations it adds, its Topology."""

    name: str
    node_labels: dict[str, str] = field(default_factory=dict)
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    topology_name: str | None = None


@dataclass(frozen=True)
class Topology:
    """A Kueue Topology: node-label keys, widest level first."""

    name: str
    levels: tuple[str, ...]


@dataclass(frozen=True)
class PriorityValue:
    """A WorkloadPriorityClass or a (scheduling.k8s.io) PriorityClass."""

    name: str
    value: int
    global_default: bool = False


@dataclass(frozen=True)
class Namespace:
    """A Namespace's labels (what ``namespaceSelector`` is matched against)."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class QueuedPodSet:
    """A PodSet of a Workload as the flavor assigner sees it.

    Attributes:
        request: per pod, in Kueue's integers.
        explicit_tas: the PodSet carries a topology request (``IsExplicitlyRequestingTAS``).
        tas_level: the required or preferred level, if any (to check the flavor's Topology has it).
        group: ``topologyRequest.podSetGroupName``: PodSets of one group are assigned together.
    """

    name: str
    count: int
    request: dict[str, int]
    scheduling: PodScheduling = field(default_factory=PodScheduling)
    explicit_tas: bool = False
    tas_level: str | None = None
    group: str | None = None


@dataclass(frozen=True)
class TopologyDomain:
    """One domain of a topology assignment: its value at each level and how many pods it gets."""

    values: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class TopologyAssignment:
    """``podSetAssignments[].topologyAssignment`` decoded: the levels and the domains, in Kueue's order.

    Both encodings read to this form: v1beta1's ``domains[] {values, count}`` and v1beta2's
    ``slices[]`` (``pkg/util/tas/tas_assignment.go`` ``InternalSeqFrom``: slice by slice, each
    level's value ``universal`` or ``prefix + roots[i] + suffix``, the count ``podCounts.universal``
    or ``podCounts.individual[i]``).
    """

    levels: tuple[str, ...]
    domains: tuple[TopologyDomain, ...]

    @property
    def pods(self) -> int:
        """Pods assigned over every domain."""
        return sum(domain.count for domain in self.domains)


@dataclass(frozen=True)
class AdmittedPodSet:
    """One ``status.admission.podSetAssignments[]`` entry of a Workload.

    Attributes:
        flavors: the flavor of each resource.
        count: pods admitted (``count``; absent: the PodSet's count).
        topology: the topology assignment, None without one (not TAS, or not made yet).
        delayed_topology: ``delayedTopologyRequest`` (``Pending`` until a ProvisioningRequest's
            second pass assigns the topology, then ``Ready``).
    """

    name: str
    count: int
    flavors: dict[str, str] = field(default_factory=dict)
    topology: TopologyAssignment | None = None
    delayed_topology: str | None = None


@dataclass(frozen=True)
class QueuedWorkload:
    """A Workload of the dump: admitted ones use quota, pending ones wait their turn.

    Attributes:
        usage: for one with an active quota reservation, what it uses per flavor-resource
            (``status.admission``, scaled down by ``status.reclaimablePods``).
        flavors: per PodSet, the flavor of each resource (``podSetAssignments[].flavors``).
        reserved_at: the QuotaReserved condition's ``lastTransitionTime`` (preemption order).
        owner: ``(kind, name)`` of the controlling owner (the job the Workload stands for).
        evicted: an ``Evicted`` condition is True (preempted ones are taken first).
        status: Kueue's ``workload.Status`` (``pkg/workload/workload.go``): ``finished``, else
            ``admitted`` (the Admitted condition), else ``quotaReserved``, else ``pending``.
        admitted_condition: the Admitted condition is True (``workload.IsAdmitted``; a finished Workload keeps it).
        reserved_in: ``status.admission.clusterQueue`` as written (kubectl's "Reserved in" column).
        assignments: ``status.admission.podSetAssignments`` read whole (flavors, counts, topology).
    """

    namespace: str
    name: str
    uid: str = ""
    queue_name: str | None = None
    priority: int = 0
    created: str = ""
    cluster_queue: str | None = None
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    flavors: tuple[dict[str, str], ...] = ()
    reserved_at: str = ""
    owner: tuple[str, str] | None = None
    pod_sets: tuple[QueuedPodSet, ...] = ()
    evicted: bool = False
    where: tuple[str, str] = ("", "")
    status: str = "pending"
    admitted_condition: bool = False
    reserved_in: str | None = None
    assignments: tuple[AdmittedPodSet, ...] = ()

    @cached_property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @property
    def admitted(self) -> bool:
        """Whether it holds a quota reservation that counts (QuotaReserved, active, not finished)."""
        return self.cluster_queue is not None

    def uses(self, resources: set[FlavorResource]) -> bool:
        """Whether it uses any of these flavor-resources (``WorkloadUsesResources``)."""
        return any(
            (flavor, resource) in resources for assigned in self.flavors for resource, flavor in assigned.items()
        )


KAI_RESOURCES = ("cpu", "memory", "gpu")
"""KAI's three quota resources, in the order its checks walk them (``rs.AllResources``)."""


@dataclass(frozen=True)
class KaiResource:
    """One resource of a KAI queue: deserved (``quota``), ``limit``, ``overQuotaWeight``; -1 = unlimited.

    CPU in millicores, memory in bytes (the CRD's megabytes times 10^6), GPUs in devices.
    """

    quota: float = 0.0
    limit: float = 0.0
    over_quota_weight: float = 1.0


@dataclass(frozen=True)
class KaiQueue:
    """A KAI ``Queue`` (``scheduling.run.ai/v2``).

    Attributes:
        resources: by ``cpu``, ``memory``, ``gpu``; a resource the spec leaves out has quota 0
            and limit 0 ("no resources allowed", KAI's docs/queues/README.md "Special Values").
        allocated, allocated_non_preemptible: ``status.allocated`` /
            ``status.allocatedNonPreemptible`` in the same units, None when the status is absent.
    """

    name: str
    parent: str | None = None
    priority: int = 100
    resources: dict[str, KaiResource] = field(default_factory=dict)
    allocated: dict[str, float] | None = None
    allocated_non_preemptible: dict[str, float] | None = None
    where: tuple[str, str] = ("", "")
