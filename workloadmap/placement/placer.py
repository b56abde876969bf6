"""Placement: which topology domains of a cluster can hold each gang of a workload.

For every PodGroup and SubGroup, per topology level: how many domains exist and how many hold
the whole group, the narrowest level that holds it, the required level (option, workload
annotations or the auto NVLink policy) and the best-fit candidate domains. Several clusters are
ranked by how tightly they hold the workload (:func:`rank_clusters`), and :func:`place_on`
chooses between one cluster and a ranking as the command line does.

Domains: a node belongs to a domain of level *i* when it carries the labels of levels ``0..i``;
the domain is identified by those label values (so rack ``r1`` under block ``a`` and rack ``r1``
under block ``b`` are two domains). The hostname level falls back to the node name when the
``kubernetes.io/hostname`` label is missing. Unready nodes hold nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import PlacementError
from ..resources import count_gpus
from ..topology import Cluster, accelerator_level, resolve_level
from ..tree import PodGroup, PodSet, SubGroup, TopologyConstraint, WorkloadTree
from .index import ClusterIndex, Evaluation, evaluate
from .packing import Shape, merge_shapes, pack_types
from .policy import (
    LevelOption,
    LevelRequest,
    annotation_required,
    component_paths,
    constraint_preferred,
    describe_shapes,
    group_pod_sets,
    shapes_of,
    subgroup_pod_sets,
)
from .report import (
    ClusterFit,
    ClusterRanking,
    ClusterUnfit,
    GroupPlacement,
    LevelFit,
    PlacementReport,
    SliceFit,
    TopologyRef,
)

__all__ = ["place", "rank_clusters", "place_on", "Placement"]

_ZERO = Fraction(0)


@dataclass
class _Gang:
    """One PodGroup, SubGroup or slice to place, with its pods."""

    name: str
    min_member: int
    pods: int
    shapes: list[Shape]
    pod_sets: Sequence[PodSet]
    root: bool
    parent: str | None = None
    parent_required: str | None = None
    gang: bool = True
    constraint: TopologyConstraint | None = None


class _Placer:
    def __init__(self, tree: WorkloadTree, cluster: Cluster, request: LevelRequest, auto: bool, limit: int) -> None:
        self.tree = tree
        self.cluster = cluster
        self.index = ClusterIndex(cluster, tree.gpu_resources)
        self.levels = list(cluster.levels)
        self.request = request
        self.auto = auto
        self.limit = limit
        self.paths = component_paths(tree)
        self.accelerator = accelerator_level(self.levels)

    def resolve(self, value: str | None, what: str) -> str | None:
        return None if value is None else resolve_level(value, self.levels, what=what)

    def required(self, gang: _Gang, levels: list[LevelFit]) -> tuple[str | None, str | None]:
        """The level the gang must fit in and where that comes from: option, annotation or auto."""
        option = self.request.lookup(self.request.required, gang.name, root=gang.root)
        if option is not None:
            return self.resolve(option, "required"), "option"
        annotated = annotation_required(
            self.tree, gang.pod_sets, self.paths, root=gang.root, constraint=gang.constraint, levels=self.levels
        )
        if annotated is not None:
            return annotated, "annotation"
        if self.auto and not gang.root and gang.gang and self.accelerator is not None:
            # A SubGroup that fits one NVLink domain is required to stay in one, unless its
            # parent already requires something at least as narrow.
            depth = self.levels.index(self.accelerator)
            parent = gang.parent_required
            parent_depth = self.levels.index(parent) if parent in self.levels else -1
            if levels[depth].fitting and parent_depth < depth:
                return self.accelerator, "auto"
        return None, None

    def group(self, gang: _Gang) -> GroupPlacement:
        evaluation = evaluate(self.index, gang.shapes)
        levels = [
            LevelFit(level=level.key, domains=len(level.domains), fitting=evaluation.level_fitting[depth])
            for depth, level in enumerate(self.index.levels)
        ]
        narrowest = next((fit.level for fit in reversed(levels) if fit.fitting), None)
        required, source = self.required(gang, levels)
        reason = None
        if required is not None and required not in self.levels:
            fits = False
            reason = f"required level {required!r} ({source}) is not a level of topology {self.cluster.name!r}"
        elif required is not None:
            fits = levels[self.levels.index(required)].fitting > 0
        else:
            fits = evaluation.cluster_fits
        if not gang.gang:
            # Pods without a gang spread freely: the cluster must hold them all, one anywhere.
            every_pod = [(gang.shapes[0][0], gang.pods)] if gang.shapes else []
            fits = fits and self.pack(every_pod) is not False
        preferred_option = self.request.lookup(self.request.preferred, gang.name, root=gang.root)
        preferred = (
            self.resolve(preferred_option, "preferred")
            if preferred_option
            else constraint_preferred(gang.constraint, self.levels) or narrowest
        )
        if not fits and reason is None:
            reason = self.reason(gang, evaluation, required)
        return GroupPlacement(
            name=gang.name,
            min_member=gang.min_member,
            pods=gang.pods,
            gang=gang.gang,
            parent=gang.parent,
            fits=fits,
            preferred_level=preferred,
            required_level=required,
            required_source=source,
            candidates=self.candidates(preferred, evaluation, gang.shapes) if fits else [],
            levels=levels,
            reason=reason,
            approximate=evaluation.approximate,
        )

    def pack(self, shapes: list[Shape]) -> bool | None:
        """Whether ``shapes`` fit the whole cluster at once."""
        return pack_types(shapes, self.index.composition(self.index.whole), gpu_resources=self.tree.gpu_resources)

    def candidates(self, level_key: str | None, evaluation: Evaluation, shapes: list[Shape]) -> list[str]:
        """Fitting domains at ``level_key``, least leftover GPUs (then cpu) first, names breaking ties."""
        if level_key is None or not shapes:
            return []
        depth = self.levels.index(level_key)
        level = self.index.levels[depth]
        need_gpus = sum((count_gpus(request, self.tree.gpu_resources) * count for request, count in shapes), _ZERO)
        need_cpu = sum((request.get("cpu", _ZERO) * count for request, count in shapes), _ZERO)
        by_leftover: dict[tuple[Fraction, Fraction], list[int]] = {}
        for signature_id, ok in enumerate(evaluation.signature_fits[depth]):
            if ok:
                signature = level.signatures[signature_id]
                leftover = (self.index.gpus(signature) - need_gpus, self.index.resource(signature, "cpu") - need_cpu)
                by_leftover.setdefault(leftover, []).extend(level.signature_domains[signature_id])
        chosen: list[str] = []
        # Domains of one signature leave the same leftover: rank signatures, names break ties.
        for leftover in sorted(by_leftover):
            names = sorted(self.index.display(depth, domain_id) for domain_id in by_leftover[leftover])
            chosen.extend(names[: self.limit - len(chosen)])
            if len(chosen) >= self.limit:
                break
        return chosen

    def reason(self, gang: _Gang, evaluation: Evaluation, required: str | None) -> str:
        offered = {name for free in self.index.types for name, amount in free.items() if amount > 0}
        missing = sorted({name for request, _ in gang.shapes for name in request} - offered)
        if not self.index.types:
            return f"topology {self.cluster.name!r} has no ready nodes"
        if missing:
            return f"no ready node offers {', '.join(missing)}"
        demand = describe_shapes(gang.shapes)
        if required is not None:
            depth = self.levels.index(required)
            text = f"no {required} domain holds all {gang.pods} pods ({demand})"
            if evaluation.best_capacity is not None:
                text += f"; the largest holds {evaluation.best_capacity[depth]}"
            return text
        if not gang.gang:
            return f"the cluster cannot hold all {gang.pods} pods ({demand})"
        text = f"the whole cluster cannot hold the {gang.pods} pods ({demand})"
        if evaluation.cluster_capacity is not None:
            text += f"; it holds {evaluation.cluster_capacity}"
        return text

    def pod_group(self, group: PodGroup) -> GroupPlacement:
        pod_sets = group_pod_sets(group)
        shapes = shapes_of(pod_sets)
        pods = group.pods or sum(count for _, count in shapes)
        report = self.group(
            _Gang(group.name, group.min_member, pods, shapes, pod_sets, root=True, constraint=group.topology_constraint)
        )
        required_of: dict[str, str | None] = {}
        subgroups = []
        # Parents before children, so a child knows its parent's requirement.
        for sub in _parents_first(group.sub_groups):
            sub_sets = subgroup_pod_sets(group, sub.name)
            parent_required = required_of.get(sub.parent) if sub.parent else report.required_level
            sub_report = self.group(
                _Gang(
                    sub.name,
                    sub.min_member,
                    sub.pods or sum(pod_set.count for pod_set in sub_sets),
                    shapes_of(sub_sets),
                    sub_sets,
                    root=False,
                    parent=sub.parent,
                    parent_required=parent_required,
                    constraint=sub.topology_constraint,
                )
            )
            required_of[sub.name] = sub_report.required_level or parent_required
            subgroups.append(sub_report)
        order = {sub.name: i for i, sub in enumerate(group.sub_groups)}
        report.sub_groups = sorted(subgroups, key=lambda sub: order[sub.name])
        return report

    def slices(self) -> list[SliceFit]:
        """One :class:`SliceFit` per component with several pods per replica and several replicas."""
        fits = []
        for path, component in self.paths.items():
            size = component.pods_per_replica
            if not component.has_pod_template or size <= 1 or component.pods <= size:
                continue
            pod_set = PodSet(component=path, count=size, pod_resources=component.pod_resources)
            report = self.group(
                _Gang(
                    f"{path}[slice]", size, size, merge_shapes([(component.pod_resources, size)]), [pod_set], root=False
                )
            )
            fits.append(
                SliceFit(
                    component=path,
                    size=size,
                    count=component.pods // size,
                    fits=report.fits,
                    preferred_level=report.preferred_level,
                    required_level=report.required_level,
                    required_source=report.required_source,
                )
            )
        return fits

    def independent(self) -> list[GroupPlacement]:
        reports = []
        for path, component in self.paths.items():
            if not component.has_pod_template or component.pods <= 0:
                continue
            pod_set = PodSet(component=path, count=1, pod_resources=component.pod_resources)
            shapes = merge_shapes([(component.pod_resources, 1)])
            reports.append(self.group(_Gang(path, 1, component.pods, shapes, [pod_set], root=True, gang=False)))
        return reports


def _parents_first(sub_groups: Sequence[SubGroup]) -> list[SubGroup]:
    names = {sub.name for sub in sub_groups}
    done: set[str] = set()
    ordered: list[SubGroup] = []
    pending = list(sub_groups)
    while pending:
        progressed = False
        for sub in list(pending):
            if sub.parent is None or sub.parent not in names or sub.parent in done:
                ordered.append(sub)
                done.add(sub.name)
                pending.remove(sub)
                progressed = True
        if not progressed:  # a cycle: keep the declared order rather than loop
            ordered.extend(pending)
            break
    return ordered


def _all_shapes(tree: WorkloadTree) -> list[Shape]:
    """Every pod of the workload: the gangs' pods, or each component's pods without gangs."""
    if tree.pod_groups:
        return merge_shapes([shape for group in tree.pod_groups for shape in shapes_of(group_pod_sets(group))])
    return merge_shapes(
        [
            (component.pod_resources, component.pods)
            for component in component_paths(tree).values()
            if component.has_pod_template and component.pods > 0
        ]
    )


def place(
    tree: WorkloadTree,
    cluster: Cluster,
    *,
    required: LevelOption = None,
    preferred: LevelOption = None,
    auto: bool = True,
    max_candidates: int = 10,
) -> PlacementReport:
    """Place every gang of ``tree`` on ``cluster`` (each gang considered alone).

    GPUs are counted from the resource names the tree was inspected with (``tree.gpu_resources``).

    Args:
        tree: the workload tree. A tree without PodGroups (Deployment, batch Job) is placed as
            independent pods: one entry per component, ``gang: false``.
        cluster: nodes and levels (widest first).
        required: a level every PodGroup must fit in (node-label key, or a unique tail such as
            ``rack``), or a mapping from PodGroup/SubGroup name (``"*"`` = every PodGroup) to a
            level. Overrides requirements written on the workload.
        preferred: the preferred level to report (and export) instead of the narrowest fitting
            one; same forms as ``required``.
        auto: give a SubGroup that fits in one accelerator (NVLink) domain that level as its
            required level (see :func:`~workloadmap.topology.accelerator_level`).
        max_candidates: how many best-fit candidate domains to list per group.

    Returns:
        The report; ``fits`` is true when every group fits and all pods together fit the cluster.

    Raises:
        PlacementError: ``required``/``preferred`` names no level of the cluster.
    """
    for option, what in ((required, "required"), (preferred, "preferred")):
        values = [option] if isinstance(option, str) else list(option.values()) if option else []
        for value in values:
            resolve_level(value, cluster.levels, what=what)
    placer = _Placer(tree, cluster, LevelRequest(required, preferred), auto, max_candidates)
    groups = [placer.pod_group(group) for group in tree.pod_groups] if tree.pod_groups else placer.independent()
    reason = None
    unfit = [group.name for group in groups if not group.fits]
    if unfit:
        reason = f"{len(unfit)} of {len(groups)} groups do not fit: {', '.join(unfit)}"
    elif placer.pack(_all_shapes(tree)) is False:
        reason = "each group fits alone, but the cluster cannot hold all groups at once"
    return PlacementReport(
        workload=tree.workload,
        topology=TopologyRef(name=cluster.name, levels=list(cluster.levels)),
        fits=reason is None,
        reason=reason,
        pod_groups=groups,
        slices=placer.slices(),
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
    needed = sum((count_gpus(request, tree.gpu_resources) * count for request, count in _all_shapes(tree)), _ZERO)
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
    ranked: list[ClusterFit] = []
    unfit: list[ClusterUnfit] = []
    for cluster in clusters:
        try:
            report = placer(tree, cluster, **options)
        except PlacementError as error:
            unfit.append(ClusterUnfit(cluster.name, str(error)))
            continue
        if not report.fits:
            unfit.append(ClusterUnfit(cluster.name, report.reason or "does not fit"))
            continue
        ranked.append(_ranking_figures(tree, cluster, report))
    ranked.sort(key=lambda fit: (fit.levels_from_bottom, fit.leftover_gpus, fit.cluster))
    return ClusterRanking(workload=tree.workload, ranked=ranked, unfit=unfit)


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
        """Whether the workload fits the chosen cluster."""
        return self.report is not None and self.report.fits


def place_on(tree: WorkloadTree, clusters: Sequence[Cluster], **options: Any) -> Placement:
    """Place ``tree`` on one cluster, or rank several and keep the best (``options`` go to :func:`place`).

    Raises:
        ValueError: no clusters given.
        PlacementError: with one cluster, as :func:`place`.
    """
    if not clusters:
        raise ValueError("place_on needs at least one cluster")
    if len(clusters) == 1:
        return Placement(place(tree, clusters[0], **options), clusters[0])
    ranking = rank_clusters(tree, clusters, **options)
    if not ranking.ranked:
        return Placement(None, None, ranking)
    best = ranking.ranked[0]
    cluster = next(cluster for cluster in clusters if cluster.name == best.cluster)
    return Placement(best.report, cluster, ranking)
