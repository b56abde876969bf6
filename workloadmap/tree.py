"""The normalized workload tree: what :func:`workloadmap.inspect` returns.

The JSON form (``WorkloadTree.to_dict()``) is the contract of ``wmap inspect -o json``.
Resource amounts are quantity strings there (``"500m"``, ``"16Gi"``); counts are integers.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "WorkloadRef",
    "Component",
    "PodSet",
    "SubGroup",
    "PodGroup",
    "Totals",
    "WorkloadTree",
]


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (camelCase keys)."""
        return self.model_dump(mode="json", by_alias=True)


class WorkloadRef(_Model):
    """Which object the tree describes."""

    api_version: str = Field(alias="apiVersion")
    kind: str
    name: str
    namespace: str | None = None


class Component(_Model):
    """One role of the workload (master, worker, head, leader, a JobSet replicatedJob ...).

    ``replicas`` counts replicas per replica of the parent component; ``pods`` counts the pods of
    this component in the whole workload at the declared scale (parent multiplicity included).
    For a component without a pod template of its own (a logical grouping such as an LWS group),
    ``pods`` and ``gpus`` are the sums over its children.
    """

    name: str
    role: str = Field(description="The definition component this comes from.")
    instance: str | None = Field(
        default=None, description="Instance key for multi-instance components (e.g. a replicatedJob name)."
    )
    kind: str | None = Field(default=None, description="Kind of the object the operator creates, if known.")
    replicas: int
    min_replicas: int | None = Field(default=None, alias="minReplicas")
    max_replicas: int | None = Field(default=None, alias="maxReplicas")
    pods_per_replica: int = Field(default=1, alias="podsPerReplica")
    parent_replicas: int = Field(default=1, alias="parentReplicas", description="Replicas of the parent chain.")
    pods: int
    min_pods: int = Field(alias="minPods", description="Pods at the minimum scale.")
    max_pods: int | None = Field(default=None, alias="maxPods", description="Pods at the maximum scale, if bounded.")
    has_pod_template: bool = Field(alias="hasPodTemplate")
    per_node: bool = Field(default=False, alias="perNode", description="One pod per eligible node (DaemonSet).")
    pod_resources: dict[str, str] = Field(default_factory=dict, alias="podResources")
    gpus_per_pod: int | float = Field(default=0, alias="gpusPerPod")
    gpus: int | float = 0
    resource_claims: list[dict[str, str]] = Field(default_factory=list, alias="resourceClaims")
    topology_annotations: dict[str, str] = Field(
        default_factory=dict, alias="topologyAnnotations", description="KAI/Kueue topology annotations on the pod template."
    )
    template_path: list[str | int] | None = Field(
        default=None, alias="templatePath", description="Where the pod template sits in the object (keys and indexes)."
    )
    components: list["Component"] = Field(default_factory=list)

    def walk(self):
        """Yield this component and every descendant, depth first."""
        yield self
        for child in self.components:
            yield from child.walk()


class PodSet(_Model):
    """Pods of one shape that belong to a gang: ``count`` pods of ``component`` (a path like
    ``group/worker``), each requesting ``podResources``."""

    component: str
    count: int
    pod_resources: dict[str, str] = Field(default_factory=dict, alias="podResources")


class SubGroup(_Model):
    """A KAI-style SubGroup: a gang within the PodGroup (``parent`` names the enclosing one)."""

    name: str
    min_member: int = Field(alias="minMember")
    parent: str | None = None
    pods: int = 0
    pod_sets: list[PodSet] = Field(default_factory=list, alias="podSets")


class PodGroup(_Model):
    """A gang: the pods a gang scheduler places together, with its ``minMember`` threshold."""

    name: str
    min_member: int = Field(alias="minMember")
    pods: int = 0
    sub_groups: list[SubGroup] = Field(default_factory=list, alias="subGroups")
    pod_sets: list[PodSet] = Field(default_factory=list, alias="podSets")


class Totals(_Model):
    """Sums over the whole workload at the declared scale."""

    pods: int
    gpus: int | float
    resources: dict[str, str] = Field(default_factory=dict)


class WorkloadTree(_Model):
    """A custom resource expanded through its catalog definition."""

    workload: WorkloadRef
    definition: str
    phase: str
    phases: list[str]
    totals: Totals
    components: list[Component]
    pod_groups: list[PodGroup] = Field(alias="podGroups")
    gang_policy: str = Field(alias="gangPolicy", description="Where the gang rule comes from (e.g. KAI pod-grouper).")
    topology_annotations: dict[str, str] = Field(
        default_factory=dict, alias="topologyAnnotations", description="KAI/Kueue topology annotations on the object itself."
    )
    warnings: list[str] = Field(default_factory=list)
    source: str | None = Field(default=None, description="File the object was read from, if any.")

    def walk(self):
        """Yield every component of the tree, depth first."""
        for component in self.components:
            yield from component.walk()
