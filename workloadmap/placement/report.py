"""Placement results: per gang, per level, per cluster. ``to_dict()`` is the ``-o json`` contract."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

from ..tree import WorkloadRef
from ..values import OMIT, JsonForm

__all__ = [
    "Verdict",
    "NodePods",
    "Assignment",
    "TopologyRef",
    "LevelFit",
    "GroupPlacement",
    "SliceFit",
    "PlacementReport",
    "JointPlacement",
    "ClusterFit",
    "ClusterUnfit",
    "ClusterRanking",
]


class Verdict(str, Enum):
    """Whether a gang fits: known to fit, known not to fit, or unknown (never counted as a fit)."""

    FITS = "Fits"
    DOES_NOT_FIT = "DoesNotFit"
    UNKNOWN = "Unknown"

    @staticmethod
    def worst(verdicts: "list[Verdict]") -> "Verdict":
        """Does not fit over unknown over fits (fits when there is nothing to place)."""
        for verdict in (Verdict.DOES_NOT_FIT, Verdict.UNKNOWN):
            if verdict in verdicts:
                return verdict
        return Verdict.FITS


@dataclass
class TopologyRef(JsonForm):
    """Which cluster a report is about: its name and levels, widest first."""

    name: str
    levels: list[str]


@dataclass
class LevelFit(JsonForm):
    """Domains of one topology level and how many of them hold the whole group.

    ``undecided`` domains are those whose answer the exact search could not give within its budget;
    they are never counted in ``fitting``.
    """

    level: str
    domains: int
    fitting: int
    undecided: int = 0


@dataclass
class NodePods(JsonForm):
    """How many of a group's pods one node gets."""

    name: str
    pods: int


@dataclass(kw_only=True)
class Assignment(JsonForm):
    """Where the scheduler puts a group: Kueue's ``TopologyAssignment`` shape, with the domain it chose.

    Attributes:
        domain: the domain the group was placed in (its label value, or the path of values when
            the value repeats under other parents); None when it spans the whole cluster.
        level: the level of ``domain``.
        nodes: pods per node, in topology order.
    """

    domain: str | None = None
    level: str | None = None
    nodes: list[NodePods] = field(default_factory=list)

    @property
    def pods(self) -> int:
        """Pods assigned in total."""
        return sum(node.pods for node in self.nodes)


@dataclass(frozen=True, kw_only=True)
class GroupPlacement(JsonForm):
    """Placement of one PodGroup or SubGroup.

    Attributes:
        gang: false for pods without a gang (each pod is its own group of one).
        parent: the enclosing SubGroup (SubGroups only).
        required_source: where the required level comes from: ``option``, ``annotation`` or ``auto``.
        candidates: the best-fit domains at the preferred level, tightest first.
        approximate: a mixed-shape search ran out of budget: some domains are ``undecided`` (never
            counted as fitting), and ``verdict`` may be ``Unknown``.
        verdict: ``Fits``, ``DoesNotFit`` or ``Unknown`` (with ``reason``); ``fits`` is true only for
            ``Fits``.
        assignment: where the scheduler's choice rule puts the group's pods, when it fits.
        preferred_source: where the preferred level comes from: ``option``, ``annotation`` or
            ``fit`` (the narrowest level with a domain that holds the group).
        reason: why the group does not fit, for people: the cause where the pods and nodes show it
            (``each worker pod needs 8 GPUs; the nodes have 4``), else the scheduler's message in words.
        scheduler_reason: the scheduler's own message, when ``reason`` words it otherwise.
        note: what a reader should know of a group that was placed (Kueue's BestFit split it across
            domains of its preferred level, where one of them could hold it whole).

    ``fits`` is the scheduler's verdict, after the groups placed before this one took their
    nodes; ``levels`` and ``candidates`` describe the cluster as given, for this group alone.
    A placement is built once, from the analysis, the scheduler's decision and NUMA admission
    (:func:`~workloadmap.placement.settle.settle`), and never changed: the class is frozen and
    ``fits`` is derived from ``verdict``.
    """

    name: str
    min_member: int
    pods: int
    gang: bool = True
    parent: str | None = None
    fits: bool = field(init=False)
    preferred_level: str | None = None
    required_level: str | None = None
    required_source: str | None = None
    candidates: list[str] = field(default_factory=list)
    levels: list[LevelFit] = field(default_factory=list)
    reason: str | None = None
    approximate: bool = False
    sub_groups: list[GroupPlacement] = field(default_factory=list)
    assignment: Assignment | None = None
    preferred_source: str | None = None
    verdict: Verdict
    scheduler_reason: str | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "fits", self.verdict is Verdict.FITS)  # derived once, at construction


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


@dataclass(frozen=True, kw_only=True)
class PlacementReport(JsonForm):
    """Placement of every gang of a workload on one cluster.

    Attributes:
        slices: components whose replicas are several pods each, and where one replica fits (the
            auto policy requires an accelerator domain for a slice that fits one).
        policy: the scheduler whose choice rule made the assignments (a name of :data:`~.schedulers.POLICIES`).
        notes: what the verdict rests on that a reader may not expect (nodes left out, requests
            the chosen scheduler does not read).
        placed_before: workloads placed first on the same cluster, whose pods took capacity.
        verdict: ``DoesNotFit`` when a PodGroup does not fit, else ``Unknown`` when some gang's fit is
            unknown, else ``Fits``; ``fits`` is true only for ``Fits`` (derived from it).
        gpus_taken: per node, the GPUs the workload's placed pods take there (what a picture of the
            cluster after the placement subtracts); not part of the JSON form.

    Built once by :func:`~workloadmap.placement.settle.settle`; frozen.
    """

    workload: WorkloadRef
    topology: TopologyRef
    fits: bool = field(init=False)
    reason: str | None = None
    pod_groups: list[GroupPlacement]
    slices: list[SliceFit] = field(default_factory=list)
    policy: str = "kueue"
    notes: list[str] = field(default_factory=list)
    placed_before: list[WorkloadRef] = field(default_factory=list)
    verdict: Verdict
    gpus_taken: dict[str, Fraction] = field(default_factory=dict, metadata=OMIT)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fits", self.verdict is Verdict.FITS)  # derived once, at construction

    def groups(self) -> Iterator[GroupPlacement]:
        """Yield every PodGroup and SubGroup placement, parents first."""
        for group in self.pod_groups:
            yield group
            yield from group.sub_groups


@dataclass(kw_only=True)
class JointPlacement(JsonForm):
    """Several workloads placed on one cluster in turn, each taking capacity the next cannot use.

    Attributes:
        groups: gangs (and pod sets without a gang) in all the workloads.
        fitting: how many of them fit.
        unfit: the ones that do not, as ``Kind/name group``.
    """

    topology: TopologyRef
    policy: str
    reports: list[PlacementReport]
    groups: int
    fitting: int
    unfit: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        """Whether every workload is known to fit."""
        return all(report.fits for report in self.reports)

    @property
    def verdict(self) -> Verdict:
        """The worst verdict of the workloads."""
        return Verdict.worst([report.verdict for report in self.reports])


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
    """A cluster that cannot hold the workload (or of which that is unknown), and why."""

    cluster: str
    reason: str
    verdict: Verdict = Verdict.DOES_NOT_FIT


@dataclass
class ClusterRanking(JsonForm):
    """Clusters that can hold the workload, tightest fit first, and the reasons of the others."""

    workload: WorkloadRef
    ranked: list[ClusterFit]
    unfit: list[ClusterUnfit]
