"""The gangs a gang scheduler builds: PodGroups, their SubGroups, topology constraints and warnings."""

from __future__ import annotations

from pydantic import Field, model_validator

from .. import runtime_definitions as runtime
from ..kai_releases import KAI_CHANGES
from .base import Count, _Compiled

_KAI_RELEASES_HELP = (
    "A change of KAI's pod-grouper (workloadmap/kai_releases.py KAI_CHANGES, docs/kai-releases.md): the rule "
    "holds only for the KAI releases that have it (kaiSince) or that come before it (kaiBefore); the release "
    "modelled is --kai-version's, the newest by default."
)


def _kai_change(value: str | None) -> None:
    if value is not None and value not in KAI_CHANGES:
        raise ValueError(f"unknown KAI change {value!r} (known: {', '.join(KAI_CHANGES)})")


__all__ = ["TopologyRule", "GangWarning", "SubGroupRule", "PodGroupRule", "GangDefinition"]


class TopologyRule(_Compiled, runtime.TopologyRule):
    """A gang's topology constraint: one expression per part, evaluated like the rule holding it."""

    topology: str | None = Field(default=None, description="Expression for the topology name.")
    required: str | None = Field(default=None, description="Expression for the required level.")
    preferred: str | None = Field(default=None, description="Expression for the preferred level.")
    domains: bool = Field(
        default=False,
        description="The levels may be Grove domain names (rack, host ...) that Grove translates to node-label "
        "keys through a ClusterTopologyBinding; otherwise they are node-label keys or KAI Topology aliases.",
    )
    tiers: bool = Field(
        default=False,
        description="The levels are Volcano HyperNode tiers: a tier number (highestTierAllowed; 1 is the level "
        "just above hostname) or a tier name (highestTierName), matched to the cluster's levels.",
    )


class GangWarning(_Compiled, runtime.GangWarning):
    """A shape KAI's pod-grouper refuses, or where the gang can never form: ``message`` when ``when`` holds."""

    when: str
    message: str
    kai_since: str | None = Field(default=None, alias="kaiSince", description=_KAI_RELEASES_HELP)
    kai_before: str | None = Field(default=None, alias="kaiBefore", description=_KAI_RELEASES_HELP)

    @model_validator(mode="after")
    def _known_changes(self) -> "GangWarning":
        for change in (self.kai_since, self.kai_before):
            _kai_change(change)
        return self


class SubGroupRule(_Compiled, runtime.SubGroupRule):
    """A SubGroup of a PodGroup: the pods of one component (or of each of its instances)."""

    component: str = Field(description="The component whose pods form the subgroup.")
    name: str | None = Field(
        default=None,
        description="Subgroup name (default: the component or instance name). May use {group} (the PodGroup), "
        "{base} (the PodGroup a scaled PodGroup belongs to), {instance}, {component}, {replicaOf} and {replica} "
        "(with eachReplicaOf); `|lower` lower-cases a value, e.g. {instance|lower}.",
    )
    each_instance: bool = Field(default=False, alias="eachInstance", description="One subgroup per instance.")
    each_replica_of: str | None = Field(
        default=None,
        alias="eachReplicaOf",
        description="One subgroup per replica of this ancestor component (e.g. each Grove scaling-group replica).",
    )
    min_member: Count | None = Field(
        default=None,
        alias="minMember",
        description="Expression (on the component's instance element, like `when`; root() is the resource) or "
        "constant; `remainder` means the PodGroup's minMember minus the other subgroups'. Default: the component's "
        "pods at minimum scale within the group. A subgroup with child subgroups is gated by minSubGroup instead "
        "(every child, as KAI's plugins set it) and its minMember is the fewest pods that satisfy them.",
    )
    parent: str | None = None
    segment_size: Count | None = Field(
        default=None,
        alias="segmentSize",
        description="Split the subgroup into segments of this many pods (KAI segment-size, a Volcano task's "
        "partitionSize; the last segment holds the rest). Evaluated like minMember, on the component's instance "
        "element (root() is the resource). Null or below 1 means no segments.",
    )
    segment_name: str = Field(
        default="{name}-{index}",
        alias="segmentName",
        description="Name template of a segment: {name} (the subgroup), {index}.",
    )
    segments_replace: bool = Field(
        default=False,
        alias="segmentsReplace",
        description="The segments take the subgroup's place (children of its parent) instead of hanging under it.",
    )
    segment_leader: str | None = Field(
        default=None,
        alias="segmentLeader",
        description="A component whose pods join segment 0 ahead of this one's (the LWS leader); segment 0 then "
        "gets two children, the leader's pods (named after that component) and the rest (this subgroup's name). "
        "When this component's pods divide evenly into segments, the leader is added on top of segment 0.",
    )
    when: str | None = Field(default=None, description="Expression on the component's instance element.")
    topology_constraint: TopologyRule | None = Field(default=None, alias="topologyConstraint")
    segment_topology_constraint: TopologyRule | None = Field(default=None, alias="segmentTopologyConstraint")
    in_scaled_groups: bool = Field(default=True, alias="inScaledGroups", description="false: base PodGroups only.")


class PodGroupRule(_Compiled, runtime.PodGroupRule):
    """How the PodGroups of a workload are formed. The first rule whose ``when`` holds is used."""

    when: str | None = Field(default=None, description="Expression on the resource; the rule applies when truthy.")
    kai_since: str | None = Field(default=None, alias="kaiSince", description=_KAI_RELEASES_HELP)
    kai_before: str | None = Field(default=None, alias="kaiBefore", description=_KAI_RELEASES_HELP)
    per_instance: str | None = Field(
        default=None, alias="perInstance", description="One PodGroup per instance of this (multi-instance) component."
    )
    per_replica: str | None = Field(
        default=None, alias="perReplica", description="One PodGroup per replica of this component (LWS group)."
    )
    name: str | None = Field(
        default=None, description="Name suffix; the group is named <workload>[-<suffix>][-<index>]."
    )
    min_member: Count | None = Field(
        default=None,
        alias="minMember",
        description="Expression or constant; null result falls back to the members' pods at minimum scale.",
    )
    sub_groups: list[SubGroupRule] = Field(default_factory=list, alias="subGroups")
    min_sub_group: Count | None = Field(
        default=None,
        alias="minSubGroup",
        description="Expression or constant: how many top-level SubGroups must be satisfied (KAI's spec.minSubGroup, "
        "which then stands instead of minMember: a JobSet since KAI v0.16). Default: none, the PodGroup is gated "
        "by minMember.",
    )
    topology_constraint: TopologyRule | None = Field(
        default=None, alias="topologyConstraint", description="Default: KAI's topology annotations on the workload."
    )
    scaled_topology_constraint: TopologyRule | None = Field(
        default=None, alias="scaledTopologyConstraint", description="On a scaled replica's element; else the base's."
    )

    @model_validator(mode="after")
    def _one_scope(self) -> "PodGroupRule":
        if self.per_instance and self.per_replica:
            raise ValueError("a PodGroup rule takes perInstance or perReplica, not both")
        for change in (self.kai_since, self.kai_before):
            _kai_change(change)
        return self


class GangDefinition(_Compiled, runtime.GangDefinition):
    """Gang rules. ``podGroups: []`` (or no gang section) means the kind is not gang scheduled."""

    policy: str = Field(default="", description="Whose semantics these rules follow (e.g. the KAI pod-grouper plugin).")
    pod_groups: list[PodGroupRule] = Field(default_factory=list, alias="podGroups")
    per_pod: bool = Field(default=False, alias="perPod", description="KAI makes one PodGroup per pod.")
    per_pod_before: str | None = Field(
        default=None,
        alias="perPodBefore",
        description="KAI made one PodGroup per pod in the releases before this change of its pod-grouper "
        "(KAI_CHANGES): there the podGroups rules do not apply.",
    )
    priority_class: str = Field(default="train", alias="priorityClass", description="KAI's default for the kind.")
    operator_gang: str | None = Field(
        default=None, alias="operatorGang", description="Whose gang the PodGroups are where KAI has no plugin."
    )
    warnings: list[GangWarning] = Field(default_factory=list)
    priority_class_name: str | None = Field(
        default=None, alias="priorityClassName", description="Expression: the gang's own class (Grove's PodGang)."
    )
    standalone_pod_groups: bool = Field(
        default=False, alias="standalonePodGroups", description="A PodGroup of one's own takes effect (bare pods)."
    )
