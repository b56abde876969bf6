"""The normalized workload tree: what :func:`workloadmap.inspect` returns.

Values are typed: resource amounts are exact :class:`~fractions.Fraction` maps, the phase is a
:class:`~workloadmap.definitions.Phase`. ``WorkloadTree.to_dict()`` is the contract of
``wmap inspect -o json``: camelCase keys, resource amounts as quantity strings (``"500m"``,
``"16Gi"``), counts as integers, GPU counts as numbers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any

from .kai_releases import DEFAULT_KAI_RELEASE, KAI_RELEASES, kai_release
from .numa.pod import QosClass
from .quantities import parse_quantity
from .resources import DEFAULT_GPU_RESOURCES
from .runtime_definitions import Phase
from .scheduling import PodScheduling
from .values import OMIT, OPTIONAL, QUANTITIES, JsonForm

DEFAULT_KAI_VERSION = KAI_RELEASES[DEFAULT_KAI_RELEASE].tag.removeprefix("v")

__all__ = [
    "DEFAULT_KAI_VERSION",
    "Resources",
    "WorkloadRef",
    "Component",
    "PodSet",
    "TopologyConstraint",
    "Grouping",
    "Preemptibility",
    "SubGroup",
    "GangOrigin",
    "GangCondition",
    "GangSource",
    "object_conditions",
    "PodGroup",
    "fewest_pods",
    "gate_parents",
    "Totals",
    "SharedClaim",
    "ExportHints",
    "WorkloadTree",
]

Resources = dict[str, Fraction]
"""Exact amounts per resource name (``cpu``, ``memory``, ``nvidia.com/gpu`` ...)."""


class Grouping(str, Enum):
    """How KAI groups a workload's pods: into the tree's PodGroups, or one PodGroup per pod."""

    GANG = "gang"
    PER_POD = "perPod"


class Preemptibility(str, Enum):
    """KAI's preemptibility of a PodGroup (``kai.scheduler/preemptibility``)."""

    PREEMPTIBLE = "preemptible"
    NON_PREEMPTIBLE = "non-preemptible"


def _resources(data: Mapping[str, Any] | None) -> Resources:
    return {str(name): parse_quantity(value) for name, value in (data or {}).items()}


def _counts(data: Mapping[str, Any] | None) -> dict[str, int]:
    return {str(name): int(value) for name, value in (data or {}).items()}


def _fraction(value: Any) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


@dataclass(slots=True)
class WorkloadRef(JsonForm):
    """Which object a result describes.

    Attributes:
        generate_name: the object has no name yet, only ``metadata.generateName`` (held in
            ``name``); the API server appends the rest when it is created. Not in the JSON form.
    """

    api_version: str
    kind: str
    name: str
    namespace: str | None = None
    generate_name: bool = field(default=False, metadata=OMIT, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkloadRef:
        """The reference from its JSON form."""
        return cls(data["apiVersion"], data["kind"], data["name"], data.get("namespace"))

    @property
    def display_name(self) -> str:
        """The name as people read it: ``train-<generated>`` for a generateName prefix."""
        return f"{self.name}<generated>" if self.generate_name else self.name

    def __str__(self) -> str:
        return f"{self.kind}/{self.display_name}"


@dataclass(kw_only=True, slots=True)
class Component(JsonForm):
    """One role of the workload (master, worker, head, leader, a JobSet replicatedJob ...).

    ``replicas`` counts replicas per replica of the parent component; ``pods`` counts the pods of
    this component in the whole workload at the declared scale (parent multiplicity included).
    For a component without a pod template of its own (a logical grouping such as an LWS group),
    ``pods`` and ``gpus`` are the sums over its children.

    Attributes:
        role: the definition component this comes from.
        instance: the instance key of a multi-instance component (a replicatedJob name).
        kind: the kind of object the operator creates for it, if known.
        parent_replicas: replicas of the parent chain.
        min_pods: pods at the minimum scale; max_pods: at the maximum scale, if bounded.
        per_node: one pod per eligible node (DaemonSet).
        topology_annotations: KAI/Kueue topology annotations on the pod template.
        template_path: where the pod template sits in the object (keys and indexes).
        scheduling: the pod template's node filters (tolerations, nodeSelector, required node
            affinity, NUMA demand) that placement applies; not part of the JSON form.
        qos_class: the pod template's QoS class (None without a pod template).
        exclusive_cpus: per container of the pod template, whether the static CPU manager gives it
            CPUs of its own (a Guaranteed pod and a whole cpu request).
        devices_per_pod: DRA devices per class each pod's own claims allocate (templates, KEP-5004
            class resources); ``gpus_per_pod`` includes the GPUs among them. Named claims, shared by
            pods, are the tree's ``shared_claims``.
        devices: ``devices_per_pod`` times the pods (for a grouping component, its children's sum).
        pods_at_peak: for a workload whose pods do not all run at once (a definition's ``run``
            order: Argo steps, Tekton runAfter), this component's pods at the moment placement
            uses (the pods at once with the most GPUs, then the most pods); None when every pod of
            the workload runs at once.
    """

    name: str
    role: str
    instance: str | None = None
    kind: str | None = None
    replicas: int
    min_replicas: int | None = None
    max_replicas: int | None = None
    pods_per_replica: int = 1
    parent_replicas: int = 1
    pods: int
    min_pods: int
    max_pods: int | None = None
    has_pod_template: bool
    per_node: bool = False
    pod_resources: Resources = field(default_factory=dict, metadata=QUANTITIES)
    gpus_per_pod: Fraction = Fraction(0)
    gpus: Fraction = Fraction(0)
    resource_claims: list[dict[str, str]] = field(default_factory=list)
    topology_annotations: dict[str, str] = field(default_factory=dict)
    template_path: list[str | int] | None = None
    components: list[Component] = field(default_factory=list)
    qos_class: QosClass | None = None
    exclusive_cpus: dict[str, bool] = field(default_factory=dict)
    devices_per_pod: dict[str, int] = field(default_factory=dict)
    devices: dict[str, int] = field(default_factory=dict)
    pods_at_peak: int | None = None
    scheduling: PodScheduling = field(default_factory=PodScheduling, metadata=OMIT)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Component:
        """A component from its JSON form (as ``to_dict`` writes it)."""
        return cls(
            name=data["name"],
            role=data.get("role", data["name"]),
            instance=data.get("instance"),
            kind=data.get("kind"),
            replicas=data.get("replicas", 1),
            min_replicas=data.get("minReplicas"),
            max_replicas=data.get("maxReplicas"),
            pods_per_replica=data.get("podsPerReplica", 1),
            parent_replicas=data.get("parentReplicas", 1),
            pods=data.get("pods", 0),
            min_pods=data.get("minPods", data.get("pods", 0)),
            max_pods=data.get("maxPods"),
            has_pod_template=data.get("hasPodTemplate", False),
            per_node=data.get("perNode", False),
            pod_resources=_resources(data.get("podResources")),
            gpus_per_pod=_fraction(data.get("gpusPerPod", 0)),
            gpus=_fraction(data.get("gpus", 0)),
            resource_claims=list(data.get("resourceClaims") or []),
            topology_annotations=dict(data.get("topologyAnnotations") or {}),
            template_path=data.get("templatePath"),
            components=[cls.from_dict(child) for child in data.get("components") or []],
            qos_class=QosClass(data["qosClass"]) if data.get("qosClass") else None,
            exclusive_cpus={str(name): bool(value) for name, value in (data.get("exclusiveCpus") or {}).items()},
            devices_per_pod=_counts(data.get("devicesPerPod")),
            devices=_counts(data.get("devices")),
            pods_at_peak=data.get("podsAtPeak"),
        )

    def walk(self) -> Iterator[Component]:
        """Yield this component and every descendant, depth first."""
        yield self
        for child in self.components:
            yield from child.walk()

    @property
    def concurrent_pods(self) -> int:
        """The pods of this component that run at once: at the workload's peak moment when its pods are ordered."""
        return self.pods if self.pods_at_peak is None else self.pods_at_peak


@dataclass(slots=True)
class PodSet(JsonForm):
    """Pods of one shape that belong to a gang.

    ``count`` pods of ``component`` (a path like ``group/worker``), each requesting ``pod_resources``.
    """

    component: str
    count: int
    pod_resources: Resources = field(default_factory=dict, metadata=QUANTITIES)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PodSet:
        """A pod set from its JSON form."""
        return cls(data["component"], data["count"], _resources(data.get("podResources")))


@dataclass(slots=True)
class TopologyConstraint(JsonForm):
    """A gang's topology constraint, as KAI's pod-grouper sets it on the PodGroup or SubGroup.

    Attributes:
        topology: the KAI ``Topology`` (or Grove ClusterTopologyBinding) the levels belong to.
        required_level: the level every pod of the gang must share a domain of.
        preferred_level: the level the scheduler tries to keep the gang in.
        domains: the levels may be Grove domain names (``rack``, ``host`` ...), which Grove
            translates to node-label keys through the ClusterTopologyBinding ``topology`` names;
            otherwise they are node-label keys or aliases of a KAI ``Topology``'s levels, as KAI
            reads them. In the JSON form only when true.
        tiers: the levels are Volcano HyperNode tiers (``highestTierAllowed``, a number, 1 the
            level just above hostname; or ``highestTierName``), read against the cluster's
            levels as its HyperNodes number them. In the JSON form only when true.
    """

    topology: str | None = None
    required_level: str | None = None
    preferred_level: str | None = None
    domains: bool = field(default=False, metadata=OPTIONAL)
    tiers: bool = field(default=False, metadata=OPTIONAL)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> TopologyConstraint:
        """A constraint from its JSON form (absent: no constraint)."""
        data = data or {}
        return cls(
            data.get("topology"),
            data.get("requiredLevel"),
            data.get("preferredLevel"),
            bool(data.get("domains")),
            bool(data.get("tiers")),
        )

    def __bool__(self) -> bool:
        return bool(self.required_level or self.preferred_level)

    def copy(self) -> TopologyConstraint:
        """An equal constraint of its own (each gang holds its own)."""
        return TopologyConstraint(self.topology, self.required_level, self.preferred_level, self.domains, self.tiers)


_BY_SUBGROUPS = {"unless": "min_sub_group"}
"""``minMember`` is written only where KAI sets it: not beside ``minSubGroup`` (the webhook refuses both)."""


@dataclass(slots=True)
class SubGroup(JsonForm):
    """A KAI-style SubGroup: a gang within the PodGroup (``parent`` names the enclosing one).

    Attributes:
        min_member: the fewest pods that satisfy the subgroup. In the JSON form only when
            ``min_sub_group`` is not set: that is the field KAI sets then.
        min_sub_group: how many direct child SubGroups must be satisfied (KAI v0.15+
            ``minSubGroup``, #1127), for a SubGroup that has children; None for a leaf.
    """

    name: str
    min_member: int = field(metadata=_BY_SUBGROUPS)
    parent: str | None = None
    pods: int = 0
    pod_sets: list[PodSet] = field(default_factory=list)
    topology_constraint: TopologyConstraint = field(default_factory=TopologyConstraint)
    min_sub_group: int | None = field(default=None, metadata=OPTIONAL)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SubGroup:
        """A subgroup from its JSON form (without ``minMember``: 0 until :func:`gate_parents` counts it)."""
        return cls(
            name=data["name"],
            min_member=data.get("minMember", 0),
            parent=data.get("parent"),
            pods=data.get("pods", 0),
            pod_sets=[PodSet.from_dict(item) for item in data.get("podSets") or []],
            topology_constraint=TopologyConstraint.from_dict(data.get("topologyConstraint")),
            min_sub_group=data.get("minSubGroup"),
        )


def fewest_pods(sub_groups: list[SubGroup], gate: int | None, parent: str | None) -> int:
    """The fewest pods that satisfy ``gate`` of the SubGroups under ``parent`` (None: the top level).

    KAI satisfies a SubGroupSet when ``minSubGroup`` of its direct children are satisfied
    (``subgroup_info/subgroupset.go`` ``GetMinMembersToSatisfy``), so the fewest pods are those of
    its ``gate`` smallest children; ``gate`` None means every child.
    """
    needs = sorted(sub.min_member for sub in sub_groups if sub.parent == parent)
    return sum(needs if gate is None else needs[: max(gate, 0)])


def gate_parents(sub_groups: list[SubGroup], *, gates: Mapping[str, int] | None = None, add: bool = True) -> None:
    """Give every SubGroup with children its ``minSubGroup`` and, as ``min_member``, the fewest pods that satisfy it.

    A parent's gate is ``gates[name]`` when given, else it already has one, else the number of
    its direct children (what KAI's plugins set: pytorch_grouper.go ``MinSubGroup: numSegments``,
    lws_grouper.go ``len(segmentSubGroups)``, grove_grouper.go ``len(podGroupNames)``, jobset_grouper.go
    the replicas); without ``add``, a parent without a gate keeps its ``min_member`` (a tree read
    from JSON in the shape before gates). Children are counted before their parents, each once.
    """
    by_name = {sub.name: sub for sub in sub_groups}
    children: dict[str, list[SubGroup]] = {}
    for sub in sub_groups:
        if sub.parent is not None and sub.parent != sub.name and sub.parent in by_name:
            children.setdefault(sub.parent, []).append(sub)
    done: set[str] = set()
    for top in [name for name in children]:
        # Depth first without recursion: a parent is settled after all its child parents (cycles stop).
        stack: list[tuple[str, bool]] = [(top, False)]
        on_path: set[str] = set()
        while stack:
            name, expanded = stack.pop()
            if name in done:
                continue
            if not expanded:
                if name in on_path:
                    continue
                on_path.add(name)
                stack.append((name, True))
                stack.extend((child.name, False) for child in children[name] if child.name in children)
                continue
            on_path.discard(name)
            done.add(name)
            sub = by_name[name]
            if gates is not None and name in gates:
                sub.min_sub_group = gates[name]
            elif sub.min_sub_group is None:
                if not add:
                    continue
                sub.min_sub_group = len(children[name])
            needs = sorted(child.min_member for child in children[name])
            sub.min_member = sum(needs[: max(sub.min_sub_group, 0)])


class GangOrigin(str, Enum):
    """Where a gang comes from (JSON ``podGroups[].source.type``; docs/native-gang.md lists them).

    ``WorkloadAPI``: a ``scheduling.k8s.io`` PodGroup (or a v1alpha1 Workload's group, a
    CompositePodGroup) the pods join, read from the input, ``--related`` or the cluster;
    ``JobController``: the Workload and PodGroup the Job controller makes for the Job (its feature
    gate on), as it would make them or as read back; ``SchedulerObject``: a scheduler's own PodGroup
    a user made for the workload (KAI's ``kai.scheduler/skip-podgrouper``); ``Catalog``: the
    definition's gang rules, which model the kind's grouper (KAI's pod-grouper, the operator's
    controller, as ``gangPolicy`` says).
    """

    WORKLOAD_API = "WorkloadAPI"
    JOB_CONTROLLER = "JobController"
    SCHEDULER_OBJECT = "SchedulerObject"
    CATALOG = "Catalog"


@dataclass(slots=True)
class GangCondition(JsonForm):
    """One status condition of a gang's object, as its scheduler wrote it (``PodGroupScheduled``)."""

    type: str
    status: str
    reason: str | None = field(default=None, metadata=OPTIONAL)
    message: str | None = field(default=None, metadata=OPTIONAL)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GangCondition:
        """A condition from its JSON form (a Kubernetes ``metav1.Condition``: other fields ignored)."""
        return cls(str(data.get("type", "")), str(data.get("status", "")), data.get("reason"), data.get("message"))


def object_conditions(obj: Mapping[str, Any] | None) -> list[GangCondition]:
    """An object's ``status.conditions`` as :class:`GangCondition` (entries that are not mappings skipped)."""
    status = obj.get("status") if isinstance(obj, Mapping) else None
    items = status.get("conditions") if isinstance(status, Mapping) else None
    if not isinstance(items, list):
        return []
    return [GangCondition.from_dict(item) for item in items if isinstance(item, Mapping) and item.get("type")]


@dataclass(slots=True)
class GangSource(JsonForm):
    """Where one gang comes from: the JSON ``source`` of a PodGroup, a stable contract.

    Attributes:
        type: the kind of source (:class:`GangOrigin`).
        api_version, kind, name: the object the gang is (``WorkloadAPI``, ``SchedulerObject``, and
            ``JobController`` once its name is known: it hashes the Job's UID); absent for ``Catalog``.
        definition: the catalog definition whose rules formed it (``Catalog``).
        feature_gate: the Kubernetes feature gate under which the Job controller makes it (``JobController``).
        created: False when the object was not read but is what its controller would create (``JobController``).
        conditions: the object's ``status.conditions`` as read (kube-scheduler's ``PodGroupScheduled``);
            empty when it has none or was not read.
    """

    type: GangOrigin
    api_version: str | None = field(default=None, metadata=OPTIONAL)
    kind: str | None = field(default=None, metadata=OPTIONAL)
    name: str | None = field(default=None, metadata=OPTIONAL)
    definition: str | None = field(default=None, metadata=OPTIONAL)
    feature_gate: str | None = field(default=None, metadata=OPTIONAL)
    created: bool = True
    conditions: list[GangCondition] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> GangSource | None:
        """A source from its JSON form (absent: None)."""
        if not data:
            return None
        return cls(
            GangOrigin(data["type"]),
            data.get("apiVersion"),
            data.get("kind"),
            data.get("name"),
            data.get("definition"),
            data.get("featureGate"),
            bool(data.get("created", True)),
            [GangCondition.from_dict(item) for item in data.get("conditions") or []],
        )

    def condition(self, kind: str) -> GangCondition | None:
        """The condition of that type, if the object has it."""
        return next((item for item in self.conditions if item.type == kind), None)


@dataclass(slots=True)
class PodGroup(JsonForm):
    """A gang: the pods a gang scheduler places together, with its ``min_member`` threshold.

    Attributes:
        topology_constraint: the constraint KAI's pod-grouper puts on the PodGroup.
        queue: the KAI queue (label ``kai.scheduler/queue`` on the workload, then the pod
            template, then the ``project`` label, then ``default-queue``).
        priority_class: the priority class KAI gives the PodGroup.
        preemptibility: ``preemptible`` or ``non-preemptible`` (the label, else from the priority).
        min_member: the fewest pods that satisfy the gang; in the JSON form only when
            ``min_sub_group`` is not set.
        min_sub_group: how many top-level SubGroups must be satisfied, where KAI gates the
            PodGroup by them (``spec.minSubGroup``: a JobSet since KAI v0.16); None otherwise.
        source: where the gang comes from (:class:`GangSource`); None only for a PodGroup read
            from JSON that had none.
    """

    name: str
    min_member: int = field(metadata=_BY_SUBGROUPS)
    pods: int = 0
    sub_groups: list[SubGroup] = field(default_factory=list)
    pod_sets: list[PodSet] = field(default_factory=list)
    topology_constraint: TopologyConstraint = field(default_factory=TopologyConstraint)
    queue: str | None = None
    priority_class: str | None = None
    preemptibility: Preemptibility | None = None
    min_sub_group: int | None = field(default=None, metadata=OPTIONAL)
    source: GangSource | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PodGroup:
        """A PodGroup from its JSON form (``minMember`` counted from the SubGroups where ``minSubGroup`` stands)."""
        sub_groups = [SubGroup.from_dict(item) for item in data.get("subGroups") or []]
        gate_parents(sub_groups, add=False)
        min_sub_group = data.get("minSubGroup")
        if "minMember" in data or min_sub_group is None:
            min_member = data["minMember"]
        else:
            min_member = fewest_pods(sub_groups, min_sub_group, None)
        return cls(
            name=data["name"],
            min_member=min_member,
            pods=data.get("pods", 0),
            sub_groups=sub_groups,
            pod_sets=[PodSet.from_dict(item) for item in data.get("podSets") or []],
            topology_constraint=TopologyConstraint.from_dict(data.get("topologyConstraint")),
            queue=data.get("queue"),
            priority_class=data.get("priorityClass"),
            preemptibility=Preemptibility(data["preemptibility"]) if data.get("preemptibility") else None,
            min_sub_group=min_sub_group,
            source=GangSource.from_dict(data.get("source")),
        )


@dataclass(slots=True)
class Totals(JsonForm):
    """Sums over the whole workload at the declared scale.

    Attributes:
        gpus: GPUs of the GPU resource names and of DRA GPU classes (shared claims once).
        devices: DRA devices per DeviceClass, each shared (named) claim once.
        devices_lower_bound: classes whose count is a minimum (``allocationMode: All``).
        devices_unknown: claims and templates that could not be resolved: their devices are unknown.
    As the tree's ``totals``: what runs at one time (for a workload whose pods run in order, each
    figure at its own peak). As its ``over_run``: every pod the run creates.
    """

    pods: int
    gpus: Fraction
    resources: Resources = field(default_factory=dict, metadata=QUANTITIES)
    devices: dict[str, int] = field(default_factory=dict)
    devices_lower_bound: list[str] = field(default_factory=list)
    devices_unknown: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SharedClaim(JsonForm):
    """A named ResourceClaim: one set of devices for every pod that references it.

    Attributes:
        pods: how many pods of the workload reference it (at the declared scale).
        components: the components whose pods reference it.
        gpus: GPUs among ``devices``.
        kai_queue_gpus: what KAI's queues charge for it, once per referencing pod
            (``dra_resource_utils.go`` gives the claim to every pod that lists it); 0 for a
            PodGroup's claim (owned by and reserved for the PodGroup, it maps to no pod there).
        pod_group: for a claim a PodGroup declares (KEP-5729 ``spec.resourceClaims``), the
            PodGroup: one claim generated from ``template`` for all its pods; None for a named
            ResourceClaim.
        template: the ResourceClaimTemplate of a PodGroup's claim.
    """

    name: str
    namespace: str | None
    devices: dict[str, int]
    gpus: int
    pods: int
    components: list[str] = field(default_factory=list)
    kai_queue_gpus: int = 0
    pod_group: str | None = None
    template: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SharedClaim:
        """A shared claim from its JSON form."""
        return cls(
            data["name"],
            data.get("namespace"),
            _counts(data.get("devices")),
            data.get("gpus", 0),
            data.get("pods", 0),
            list(data.get("components") or []),
            data.get("kaiQueueGpus", 0),
            data.get("podGroup"),
            data.get("template"),
        )


def _totals(data: Mapping[str, Any]) -> Totals:
    return Totals(
        pods=data.get("pods", 0),
        gpus=_fraction(data.get("gpus", 0)),
        resources=_resources(data.get("resources")),
        devices=_counts(data.get("devices")),
        devices_lower_bound=list(data.get("devicesLowerBound") or []),
        devices_unknown=list(data.get("devicesUnknown") or []),
    )


@dataclass(frozen=True)
class ExportHints:
    """Kind-specific facts for the exporters, copied from the definition (not part of the JSON).

    Attributes:
        kueue_pod_set_group: the pod templates of one PodGroup form one Kueue PodSet group.
        volcano_network_topology: where the workload itself takes a Volcano ``networkTopology``
            block (keys from the top of the object), if it does.
        kai_pod_groups: standalone KAI PodGroups take effect for the kind (an ownerless pod with a
            ``pod-group-name`` annotation; KAI's pod-grouper regroups every owned pod itself).
    """

    kueue_pod_set_group: bool = False
    volcano_network_topology: tuple[str, ...] | None = None
    kai_pod_groups: bool = False


@dataclass(slots=True)
class WorkloadTree(JsonForm):
    """A custom resource expanded through its catalog definition.

    Attributes:
        gang_policy: where the gang rule comes from (e.g. the KAI pod-grouper plugin).
        topology_annotations: KAI/Kueue topology annotations on the object itself.
        source: the file the object was read from, if any.
        gpu_resources: the resource names counted as GPUs in this tree (placement and the
            exporters count the same ones).
        grouping: ``gang`` when ``pod_groups`` holds every PodGroup KAI makes; ``perPod`` when KAI
            makes one PodGroup of minMember 1 per pod (``pod_groups`` is then empty).
        pod_group_count: how many PodGroups KAI makes for the workload at its declared scale.
        kai_version: the KAI release whose pod-grouper the gangs follow, e.g. ``0.17.0``: the one
            modelled when the tree is made (``--kai-version``; the newest line's by default). JSON ``kaiVersion``.
        shared_claims: the named ResourceClaims the workload's pods reference, each counted once.
        over_run: pods, GPUs and resources over the whole run, pods that run one after another
            included (Argo steps, Tekton tasks); equal to ``totals`` when every pod runs at once.
            JSON ``overRun``.
    """

    workload: WorkloadRef
    definition: str
    phase: Phase
    phases: list[Phase]
    totals: Totals
    components: list[Component]
    pod_groups: list[PodGroup]
    gang_policy: str = ""
    topology_annotations: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    source: str | None = None
    gpu_resources: tuple[str, ...] = field(default=DEFAULT_GPU_RESOURCES, metadata=OMIT)
    export_hints: ExportHints = field(default_factory=ExportHints, metadata=OMIT)
    grouping: Grouping = Grouping.GANG
    pod_group_count: int = 0
    shared_claims: list[SharedClaim] = field(default_factory=list)
    over_run: Totals | None = None
    kai_version: str = field(default_factory=lambda: kai_release().tag.removeprefix("v"))

    def __post_init__(self) -> None:
        if self.over_run is None:
            self.over_run = self.totals

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, gpu_resources: tuple[str, ...] | None = None) -> WorkloadTree:
        """A tree from its JSON form (``wmap inspect -o json``)."""
        totals = data.get("totals") or {}
        over_run = data.get("overRun")
        tree = cls(
            workload=WorkloadRef.from_dict(data["workload"]),
            definition=data.get("definition", ""),
            phase=Phase(data.get("phase", Phase.UNDEFINED.value)),
            phases=[Phase(phase) for phase in data.get("phases") or []],
            totals=_totals(totals),
            components=[Component.from_dict(item) for item in data.get("components") or []],
            pod_groups=[PodGroup.from_dict(item) for item in data.get("podGroups") or []],
            gang_policy=data.get("gangPolicy", ""),
            topology_annotations=dict(data.get("topologyAnnotations") or {}),
            warnings=list(data.get("warnings") or []),
            source=data.get("source"),
            grouping=Grouping(data.get("grouping", Grouping.GANG.value)),
            pod_group_count=data.get("podGroupCount", len(data.get("podGroups") or [])),
            shared_claims=[SharedClaim.from_dict(item) for item in data.get("sharedClaims") or []],
            over_run=_totals(over_run) if over_run else None,
            kai_version=data.get("kaiVersion", DEFAULT_KAI_VERSION),
        )
        if gpu_resources is not None:
            tree.gpu_resources = tuple(gpu_resources)
        return tree

    def walk(self) -> Iterator[Component]:
        """Yield every component of the tree, depth first."""
        for component in self.components:
            yield from component.walk()
