"""Placement: which topology domains of a cluster hold each gang of a workload, and where the pods go.

:func:`place` places one workload (after any given to take capacity first), :func:`place_together`
several in turn on one cluster, :func:`rank_clusters` ranks clusters by how tightly they hold a
workload, :func:`place_on` chooses between one cluster and a ranking, and :func:`place_many` places
several workloads as the command line does (together or each alone, on one cluster or ranked).
Each report holds, per PodGroup and SubGroup, how the gang fits the cluster as given (per level,
required and preferred levels, candidates; :mod:`.analysis`) and the scheduler's verdict with
its assignment (:mod:`.schedule`, by Kueue's or KAI's rule).

Domains: a node belongs to a domain of level *i* when it carries the labels of levels ``0..i``;
the domain is identified by those label values (so rack ``r1`` under block ``a`` and rack ``r1``
under block ``b`` are two domains). Nodes that are NotReady or cordoned hold nothing, and nodes
without the label of every level are left out, as Kueue and KAI do.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..errors import DeadlineError, PlacementError, WorkloadMapError, internal_error
from ..loader import paused_gc
from ..resources import count_gpus
from ..topology import Cluster, apply_pods, resolve_level
from ..tree import WorkloadTree
from .analysis import all_shapes
from .policy import LevelOption
from .report import ClusterFit, ClusterRanking, ClusterUnfit, JointPlacement, PlacementReport, TopologyRef, Verdict
from .schedule import Options, Session

__all__ = [
    "place",
    "place_together",
    "rank_clusters",
    "place_on",
    "place_many",
    "Placement",
    "PlacedWorkload",
    "FailedWorkload",
    "ManyPlacements",
]

_ZERO = Fraction(0)


def _session(cluster: Cluster, pods: Sequence[Mapping[str, Any]] | None, options: Options) -> Session:
    for option, what in ((options.required, "required"), (options.preferred, "preferred")):
        values = [option] if isinstance(option, str) else list(option.values()) if option else []
        for value in values:
            resolve_level(value, cluster.levels, what=what)
    if pods:
        nodes = [replace(node, used=dict(node.used), labels=dict(node.labels)) for node in cluster.nodes]
        cluster = replace(cluster, nodes=nodes)
        # Items of a PodList come without a kind; a bare object in this list is a Pod.
        documents = [{"kind": "Pod", **copy.deepcopy(dict(pod))} for pod in pods]
        apply_pods(cluster, documents, file="pods")
    return Session(cluster, options)


def place(
    tree: WorkloadTree,
    cluster: Cluster,
    *,
    required: LevelOption = None,
    preferred: LevelOption = None,
    auto: bool = True,
    max_candidates: int = 10,
    policy: str = "kueue",
    balanced: bool = False,
    pods: Sequence[Mapping[str, Any]] | None = None,
    before: Sequence[WorkloadTree] = (),
) -> PlacementReport:
    """Place every gang of ``tree`` on ``cluster`` as the chosen scheduler would, after ``before``.

    GPUs are counted from the resource names the tree was inspected with (``tree.gpu_resources``).

    Args:
        tree: the workload tree. A tree without PodGroups (Deployment, batch Job) is placed as
            pods without a gang: one entry per component, ``gang: false``.
        cluster: nodes and levels (widest first); never modified.
        required: a level every PodGroup must fit in (node-label key, or a unique tail such as
            ``rack``), or a mapping from PodGroup/SubGroup name (``"*"`` = every PodGroup) to a
            level. Overrides requirements written on the workload.
        preferred: the preferred level instead of the one written on the workload or the
            narrowest fitting one; same forms as ``required``.
        auto: give a SubGroup that fits in one accelerator (NVLink) domain that level as its
            required level (see :func:`~workloadmap.topology.accelerator_level`).
        max_candidates: how many best-fit candidate domains to list per group.
        policy: whose choice rule assigns the pods: ``"kueue"`` (topology-aware scheduling:
            BestFit per PodSet) or ``"kai"`` (KAI Scheduler: the most packed domain first).
        balanced: with ``kueue``, Kueue's balanced placement for preferred levels (the
            ``TASBalancedPlacement`` feature gate).
        pods: Pod objects (or PodLists) bound to the cluster's nodes; their requests use capacity.
        before: workloads placed first, in order; their pods take capacity this one cannot use.

    Returns:
        The report. Its ``verdict`` is ``DoesNotFit`` when a PodGroup gets no assignment, else
        ``Unknown`` when some gang's fit could not be decided within the search budget, else
        ``Fits``; ``fits`` is true only for ``Fits``.

    Raises:
        PlacementError: ``required``/``preferred`` names no level of the cluster, or a Kueue
            annotation on a pod template is one Kueue would reject.
        TopologyError: a bad Pod in ``pods``.
        ValueError: an unknown policy.
    """
    options = Options(required, preferred, auto, max_candidates, policy, balanced)
    with paused_gc():  # node trees and indexes are acyclic: see loader.paused_gc
        session = _session(cluster, pods, options)
        for earlier in before:
            session.place(earlier)
        return session.place(tree)


def place_together(
    trees: Sequence[WorkloadTree],
    cluster: Cluster,
    *,
    pods: Sequence[Mapping[str, Any]] | None = None,
    on_error: Callable[[int, WorkloadMapError], None] | None = None,
    **options: Any,
) -> JointPlacement:
    """Place several workloads on one cluster in turn, each taking capacity the next cannot use.

    The order is the order given: the queue order of workloads of equal priority submitted in
    that order (both Kueue and KAI are first-in, first-out within a priority). ``options`` are
    those of :func:`place` (``required``, ``preferred``, ``auto``, ``max_candidates``,
    ``policy``, ``balanced``).

    Args:
        trees: the workloads, in queue order.
        cluster: the cluster; never modified.
        pods: Pod objects bound to the cluster's nodes (see :func:`place`).
        on_error: called with a workload's position and its error instead of raising; that
            workload is then left out (it takes no capacity) and the others are placed. An
            unexpected exception comes as an :class:`~workloadmap.errors.InternalError`.
        **options: as :func:`place`.

    Raises:
        PlacementError: as :func:`place`, when ``on_error`` is not given.
    """
    reports = []
    with paused_gc():
        session = _session(cluster, pods, Options(**options))
        for position, tree in enumerate(trees):
            try:
                reports.append(session.place(tree))
            except DeadlineError:
                raise
            except Exception as error:  # one workload's failure must not hide the others'
                if on_error is None:
                    raise
                on_error(position, error if isinstance(error, WorkloadMapError) else internal_error(error))
    unfit = [f"{report.workload} {group.name}" for report in reports for group in report.pod_groups if not group.fits]
    total = sum(len(report.pod_groups) for report in reports)
    return JointPlacement(
        topology=TopologyRef(name=cluster.name, levels=list(cluster.levels)),
        policy=session.options.policy,
        reports=reports,
        groups=total,
        fitting=total - len(unfit),
        unfit=unfit,
    )


def _ranking_figures(tree: WorkloadTree, cluster: Cluster, report: PlacementReport) -> ClusterFit:
    levels = list(cluster.levels)
    depth_from_bottom = 0
    widest: str | None = None
    for group in report.pod_groups:
        level = group.preferred_level
        height = len(levels) if level is None else len(levels) - 1 - levels.index(level)
        if height >= depth_from_bottom:
            depth_from_bottom, widest = height, level
    free_gpus = sum((node.free_gpus(tree.gpu_resources) for node in cluster.nodes), _ZERO)
    needed = sum((count_gpus(request, tree.gpu_resources) * count for request, count in all_shapes(tree)), _ZERO)
    return ClusterFit(
        cluster=cluster.name,
        preferred_level=widest,
        levels_from_bottom=depth_from_bottom,
        leftover_gpus=free_gpus - needed,
        report=report,
    )


def rank_clusters(
    tree: WorkloadTree,
    clusters: Sequence[Cluster],
    *,
    place_fn: Callable[..., PlacementReport] | None = None,
    **options: Any,
) -> ClusterRanking:
    """Rank the clusters that can hold ``tree``, tightest fit first.

    Order: the fewest levels above the narrowest one that the widest-placed PodGroup needs
    (``levelsFromBottom``; the whole cluster counts as one above the widest level), then the least
    leftover GPUs in the cluster once the workload is placed, then the cluster name. Clusters that
    cannot hold it are listed under ``unfit`` with the reason. ``options`` go to :func:`place`.
    """
    placer = place_fn or place
    return _rank(tree, clusters, lambda _, cluster: placer(tree, cluster, **options))[0]


def _rank(
    tree: WorkloadTree, clusters: Sequence[Cluster], place_one: Callable[[int, Cluster], PlacementReport]
) -> tuple[ClusterRanking, int | None]:
    """The ranking of :func:`rank_clusters`, and the position of the best ranked cluster (None: none holds it)."""
    fitting: list[tuple[ClusterFit, int]] = []
    unfit: list[ClusterUnfit] = []
    for position, cluster in enumerate(clusters):
        try:
            report = place_one(position, cluster)
        except PlacementError as error:
            unfit.append(ClusterUnfit(cluster.name, str(error)))
            continue
        if not report.fits:
            unfit.append(ClusterUnfit(cluster.name, report.reason or "does not fit", report.verdict))
            continue
        fitting.append((_ranking_figures(tree, cluster, report), position))
    fitting.sort(key=lambda item: (item[0].levels_from_bottom, item[0].leftover_gpus, item[0].cluster))
    ranking = ClusterRanking(workload=tree.workload, ranked=[fit for fit, _ in fitting], unfit=unfit)
    return ranking, fitting[0][1] if fitting else None


@dataclass
class Placement:
    """A workload placed on one cluster, or ranked across several.

    Attributes:
        report: the placement on the chosen cluster (the only one, or the best ranked); None
            when no cluster holds the workload.
        cluster: the cluster ``report`` is about.
        ranking: with several clusters, the ranking the choice came from.
    """

    report: PlacementReport | None
    cluster: Cluster | None
    ranking: ClusterRanking | None = None

    @property
    def fits(self) -> bool:
        """Whether the workload is known to fit the chosen cluster."""
        return self.report is not None and self.report.fits

    @property
    def verdict(self) -> Verdict:
        """The chosen cluster's verdict; without one, unknown when some cluster's fit is unknown."""
        if self.report is not None:
            return self.report.verdict
        unknown = self.ranking is not None and any(u.verdict is Verdict.UNKNOWN for u in self.ranking.unfit)
        return Verdict.UNKNOWN if unknown else Verdict.DOES_NOT_FIT


def place_on(tree: WorkloadTree, clusters: Sequence[Cluster], **options: Any) -> Placement:
    """Place ``tree`` on one cluster, or rank several and keep the best (``options`` go to :func:`place`).

    Raises:
        ValueError: no clusters given.
        PlacementError: with one cluster, as :func:`place`.
    """
    if not clusters:
        raise ValueError("place_on needs at least one cluster")
    return _place_on(tree, clusters, lambda _, cluster: place(tree, cluster, **options))[0]


def _place_on(
    tree: WorkloadTree, clusters: Sequence[Cluster], place_one: Callable[[int, Cluster], PlacementReport]
) -> tuple[Placement, int | None]:
    """:func:`place_on` with each cluster's placement made by ``place_one``, and the position of the cluster chosen."""
    if len(clusters) == 1:
        return Placement(place_one(0, clusters[0]), clusters[0]), 0
    ranking, best = _rank(tree, clusters, place_one)
    if best is None:
        return Placement(None, None, ranking), None
    return Placement(ranking.ranked[0].report, clusters[best], ranking), best


@dataclass(frozen=True)
class PlacedWorkload:
    """One workload given to :func:`place_many` and where it went (on one cluster, or ranked across several)."""

    tree: WorkloadTree
    placement: Placement


@dataclass(frozen=True)
class FailedWorkload:
    """One workload given to :func:`place_many` that was not placed: its request is invalid, or placing it failed.

    ``error`` is located in the workload's file; the workload took no capacity.
    """

    tree: WorkloadTree
    error: WorkloadMapError


@dataclass(frozen=True)
class ManyPlacements:
    """Several workloads placed as ``wmap place`` places them (see :func:`place_many`).

    Attributes:
        workloads: one entry per workload given, in the order given.
        joint: with one cluster and the workloads placed together, the joint summary (how many
            gangs fit, which do not); None otherwise.
    """

    workloads: list[PlacedWorkload | FailedWorkload]
    joint: JointPlacement | None = None

    @property
    def verdict(self) -> Verdict:
        """The worst verdict of the workloads placed (``Fits`` when none was)."""
        return Verdict.worst([item.placement.verdict for item in self.workloads if isinstance(item, PlacedWorkload)])


def place_many(
    trees: Sequence[WorkloadTree], clusters: Sequence[Cluster], *, together: bool = True, **options: Any
) -> ManyPlacements:
    """Place several workloads on one cluster, or rank each across several, in the order given.

    With ``together`` the workloads take capacity in turn: on one cluster as :func:`place_together`
    does; across several clusters each is ranked (:func:`rank_clusters`) as if the workloads before
    it were already on the cluster that took them. Without it each is placed on the empty
    cluster(s). A workload whose request is invalid (or whose placement fails) gets its error,
    located in its file, and takes nothing; the others are placed.

    Args:
        trees: the workloads, in queue order.
        clusters: one cluster, or several to rank.
        together: place each workload after the ones before it (else each alone).
        **options: as :func:`place` (``required``, ``preferred``, ``auto``, ``max_candidates``,
            ``policy``, ``balanced``, ``pods``).

    Raises:
        ValueError: no clusters, or an unknown policy.
        TypeError: an unknown option.
        DeadlineError: the command's deadline passed.
    """
    if not clusters:
        raise ValueError("place_many needs at least one cluster")
    Options(**{name: value for name, value in options.items() if name != "pods"})  # misuse fails here, not per workload
    if together and len(clusters) == 1 and len(trees) > 1:
        failed: dict[int, WorkloadMapError] = {}
        joint = place_together(trees, clusters[0], on_error=failed.__setitem__, **options)
        reports = iter(joint.reports)
        items: list[PlacedWorkload | FailedWorkload] = [
            FailedWorkload(tree, failed[position].located(file=tree.source))
            if position in failed
            else PlacedWorkload(tree, Placement(next(reports), clusters[0]))
            for position, tree in enumerate(trees)
        ]
        return ManyPlacements(items, joint)
    earlier: list[list[WorkloadTree]] = [[] for _ in clusters]
    items = []
    for tree in trees:
        try:
            placement, chosen = _place_on(tree, clusters, _after(tree, earlier if together else None, options))
        except DeadlineError:
            raise
        except Exception as error:  # one workload's failure must not hide the others'
            found = error if isinstance(error, WorkloadMapError) else internal_error(error)
            items.append(FailedWorkload(tree, found.located(file=tree.source)))
            continue
        if chosen is not None:
            earlier[chosen].append(tree)
        items.append(PlacedWorkload(tree, placement))
    return ManyPlacements(items)


def _after(
    tree: WorkloadTree, earlier: list[list[WorkloadTree]] | None, options: Mapping[str, Any]
) -> Callable[[int, Cluster], PlacementReport]:
    """Place ``tree`` on the cluster at a position, after the workloads that cluster already took."""

    def place_one(position: int, cluster: Cluster) -> PlacementReport:
        return place(tree, cluster, before=list(earlier[position]) if earlier is not None else [], **options)

    return place_one
