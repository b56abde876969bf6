"""Placement results: per gang, per level, per cluster. ``to_dict()`` is the ``-o json`` contract."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from ..tree import WorkloadRef
from ..values import JsonForm

__all__ = [
    "TopologyRef",
    "LevelFit",
    "GroupPlacement",
    "SliceFit",
    "PlacementReport",
    "ClusterFit",
    "ClusterUnfit",
    "ClusterRanking",
]


@dataclass
class TopologyRef(JsonForm):
    """Which cluster a report is about: its name and levels, widest first."""

    name: str
    levels: list[str]


@dataclass
class LevelFit(JsonForm):
    """Domains of one topology level and how many of them hold the whole group."""

    level: str
    domains: int
    fitting: int


@dataclass(kw_only=True)
class GroupPlacement(JsonForm):
    """Placement of one PodGroup or SubGroup.

    Attributes:
        gang: false for pods without a gang (each pod is its own group of one).
        parent: the enclosing SubGroup (SubGroups only).
        required_source: where the required level comes from: ``option``, ``annotation`` or ``auto``.
        candidates: the best-fit domains at the preferred level, tightest first.
        approximate: a mixed-shape search ran out of budget and assumed a fit.
    """

    name: str
    min_member: int
    pods: int
    gang: bool = True
    parent: str | None = None
    fits: bool
    preferred_level: str | None = None
    required_level: str | None = None
    required_source: str | None = None
    candidates: list[str] = field(default_factory=list)
    levels: list[LevelFit] = field(default_factory=list)
    reason: str | None = None
    approximate: bool = False
    sub_groups: list[GroupPlacement] = field(default_factory=list)


@dataclass(kw_only=True)
class SliceFit(JsonForm):
    """Where one replica of a multi-pod component fits; Kueue calls such a unit a slice.

    A slice is a JobSet Job of ``parallelism`` pods, or a Ray multi-host group replica of
    ``numOfHosts`` pods.

    Attributes:
        size: pods in one slice.
        count: slices of this component in the workload.
    """

    component: str
    size: int
    count: int
    fits: bool
    preferred_level: str | None = None
    required_level: str | None = None
    required_source: str | None = None


@dataclass(kw_only=True)
class PlacementReport(JsonForm):
    """Placement of every gang of a workload on one cluster.

    Attributes:
        slices: components whose replicas are several pods each, and where one replica fits (the
            auto policy requires an accelerator domain for a slice that fits one).
    """

    workload: WorkloadRef
    topology: TopologyRef
    fits: bool
    reason: str | None = None
    pod_groups: list[GroupPlacement]
    slices: list[SliceFit] = field(default_factory=list)

    def groups(self) -> Iterator[GroupPlacement]:
        """Yield every PodGroup and SubGroup placement, parents first."""
        for group in self.pod_groups:
            yield group
            yield from group.sub_groups


@dataclass(kw_only=True)
class ClusterFit(JsonForm):
    """One cluster that holds the workload, with its ranking figures.

    Attributes:
        levels_from_bottom: how many levels above the narrowest one the workload needs (0 = one node).
        leftover_gpus: free GPUs the cluster keeps once the workload is placed.
    """

    cluster: str
    preferred_level: str | None
    levels_from_bottom: int
    leftover_gpus: Fraction
    report: PlacementReport


@dataclass
class ClusterUnfit(JsonForm):
    """A cluster that cannot hold the workload, and why."""

    cluster: str
    reason: str


@dataclass
class ClusterRanking(JsonForm):
    """Clusters that can hold the workload, tightest fit first, and the reasons of the others."""

    workload: WorkloadRef
    ranked: list[ClusterFit]
    unfit: list[ClusterUnfit]
