"""The standalone analysis of each gang: how it fits the cluster as given, per level, and what it requires.

For every PodGroup and SubGroup (or, without gangs, every component's pods), per topology level:
how many domains exist and how many hold the whole group, the narrowest level that holds it,
the required level (option, workload annotations or the auto NVLink policy), the preferred
level (option, annotations, else the narrowest fitting one) and the best-fit candidate domains.
Nodes count when they pass the group's node filters (taints, nodeSelector, required affinity).
The result is a :class:`WorkloadAnalysis` of :class:`GangFit` values, built once and frozen: the
scheduler's rule decides on it (:mod:`.rules`), and the report's placements are built from it and
the rule's decisions (:mod:`.settle`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..budgets import active as active_budgets
from ..budgets import check_deadline
from ..labels import KUEUE_SLICE_CONSTRAINTS, KUEUE_SLICE_REQUIRED, KUEUE_SLICE_SIZE
from ..resources import count_gpus
from ..scheduling import PodScheduling
from ..topology import Cluster, accelerator_level, resolve_level
from ..tree import PodGroup, PodSet, SubGroup, TopologyConstraint, WorkloadRef, WorkloadTree
from .devices import pod_sets_hold_compute_domain
from .fitting import pack_types
from .index import ClusterIndex, Evaluation, evaluate
from .packing import Shape, merge_shapes
from .policy import (
    LevelRequest,
    annotation_preferred,
    annotation_required,
    component_paths,
    constraint_preferred,
    describe_shapes,
    find_path,
    group_pod_sets,
    shapes_of,
    subgroup_pod_sets,
)
from .report import LevelFit, SliceFit, TopologyRef, Verdict
from .search import explain

__all__ = ["Analysis", "GangFit", "WorkloadAnalysis", "all_shapes", "never_forms"]

_ZERO = Fraction(0)

IndexFor = Callable[[Sequence[PodScheduling]], ClusterIndex]
"""The index of the nodes that pass at least one of the given pod templates' node filters."""


@dataclass(frozen=True, kw_only=True)
class GangFit:
    """One PodGroup or SubGroup (or, without gangs, a component's pods) on the cluster as given, alone.

    The standalone analysis of :class:`~workloadmap.placement.report.GroupPlacement`'s fields of the
    same names; ``verdict`` and ``reason`` are the analysis' (a domain of the required level, else
    the cluster, known to hold the gang), before any scheduler's rule ran.
    """

    name: str
    min_member: int
    pods: int
    gang: bool = True
    parent: str | None = None
    verdict: Verdict
    reason: str | None = None
    preferred_level: str | None = None
    required_level: str | None = None
    required_source: str | None = None
    preferred_source: str | None = None
    candidates: tuple[str, ...] = ()
    levels: tuple[LevelFit, ...] = ()
    approximate: bool = False
    sub_groups: tuple[GangFit, ...] = ()

    @property
    def fits(self) -> bool:
        """Whether the gang is known to fit the cluster as given."""
        return self.verdict is Verdict.FITS


@dataclass(frozen=True, kw_only=True)
class WorkloadAnalysis:
    """Every gang of one workload on one cluster as given: what a scheduler's rule decides on.

    Attributes:
        pod_groups: one per PodGroup with its SubGroups, in the tree's order; without PodGroups,
            one per component with pods (``gang`` false).
        slices: components whose replicas are several pods each, and where one replica fits.
    """

    workload: WorkloadRef
    topology: TopologyRef
    pod_groups: tuple[GangFit, ...]
    slices: tuple[SliceFit, ...] = ()

    def groups(self) -> Iterator[GangFit]:
        """Yield every PodGroup and SubGroup, parents first."""
        for group in self.pod_groups:
            yield group
            yield from group.sub_groups


@dataclass(frozen=True)
class _Measured:
    """A gang's levels on the cluster as given and what it requires and prefers (before its verdict)."""

    index: ClusterIndex
    evaluation: Evaluation
    levels: list[LevelFit]
    required: str | None
    required_source: str | None
    preferred: str | None
    preferred_source: str | None


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
    annotated: str | None = None  # a slice's own Kueue slice level, when its template states one
    constraint: TopologyConstraint | None = None  # the gang's own, as KAI's pod-grouper sets it


class Analysis:
    """The standalone analysis of one workload's gangs on one cluster."""

    def __init__(
        self, tree: WorkloadTree, cluster: Cluster, request: LevelRequest, auto: bool, limit: int, index_for: IndexFor
    ) -> None:
        self.tree = tree
        self.cluster = cluster
        self.index_for = index_for
        self.levels = list(cluster.levels)
        self.request = request
        self.auto = auto
        self.limit = limit
        self.paths = component_paths(tree)
        self.accelerator = accelerator_level(self.levels)

    def resolve(self, value: str | None, what: str) -> str | None:
        """The cluster level a user-given level names (see :func:`~workloadmap.topology.resolve_level`)."""
        return None if value is None else resolve_level(value, self.levels, what=what)

    def required(self, gang: _Gang, levels: list[LevelFit]) -> tuple[str | None, str | None]:
        """The level the gang must fit in and where that comes from: option, annotation or auto."""
        option = self.request.lookup(self.request.required, gang.name, root=gang.root)
        if option is not None:
            return self.resolve(option, "required"), "option"
        if gang.annotated is not None:
            return gang.annotated, "annotation"
        annotated = annotation_required(
            self.tree,
            gang.pod_sets,
            self.paths,
            root=gang.root,
            constraint=gang.constraint,
            levels=self.levels,
            aliases=self.cluster.aliases,
            topology=self.cluster.topology,
        )
        if annotated is not None:
            return annotated, "annotation"
        if self.accelerator is not None and gang.gang and self._compute_domain(gang):
            return self.accelerator, "computeDomain"
        if self.auto and not gang.root and gang.gang and self.accelerator is not None:
            # A SubGroup that fits one NVLink domain is required to stay in one, unless its
            # parent already requires something at least as narrow.
            depth = self.levels.index(self.accelerator)
            parent = gang.parent_required
            parent_depth = self.levels.index(parent) if parent in self.levels else -1
            if levels[depth].fitting and parent_depth < depth:
                return self.accelerator, "auto"
        return None, None

    def _compute_domain(self, gang: _Gang) -> bool:
        """Whether some pod of the gang holds a ComputeDomain channel: its IMEX domain needs one NVLink clique."""
        return pod_sets_hold_compute_domain(self.paths, gang.pod_sets, self.tree.gpu_resources)

    def schedulings(self, gang: _Gang) -> list[PodScheduling]:
        """The node filters of the gang's pod templates."""
        found: list[PodScheduling] = []
        for pod_set in gang.pod_sets:
            key = find_path(self.paths, pod_set.component)
            scheduling = self.paths[key].scheduling if key is not None else PodScheduling()
            if scheduling not in found:
                found.append(scheduling)
        return found or [PodScheduling()]

    def preferred(self, gang: _Gang, narrowest: str | None) -> tuple[str | None, str | None]:
        """The preferred level and its source: the option, an annotation, else the narrowest fitting level."""
        option = self.request.lookup(self.request.preferred, gang.name, root=gang.root)
        if option:
            return self.resolve(option, "preferred"), "option"
        cluster = self.cluster
        annotated = constraint_preferred(
            gang.constraint, self.levels, cluster.aliases, cluster.topology
        ) or annotation_preferred(
            self.tree, gang.pod_sets, self.paths, root=gang.root, levels=self.levels, aliases=cluster.aliases
        )
        if annotated is not None:
            return annotated, "annotation"
        return narrowest, "fit" if narrowest else None

    def measure(self, gang: _Gang) -> _Measured:
        """The gang's levels on the cluster as given, and its required and preferred levels."""
        check_deadline(f"placing {self.tree.workload} {gang.name}")
        index = self.index_for(self.schedulings(gang))
        evaluation = evaluate(index, gang.shapes)
        levels = [
            LevelFit(
                level=level.key,
                domains=len(level.domains),
                fitting=evaluation.level_fitting[depth],
                undecided=evaluation.level_undecided[depth],
            )
            for depth, level in enumerate(index.levels)
        ]
        narrowest = next((fit.level for fit in reversed(levels) if fit.fitting), None)
        required, source = self.required(gang, levels)
        preferred, preferred_source = self.preferred(gang, narrowest)
        return _Measured(index, evaluation, levels, required, source, preferred, preferred_source)

    def group(self, gang: _Gang, measured: _Measured | None = None, sub_groups: Sequence[GangFit] = ()) -> GangFit:
        """The gang on the cluster as given: per level, its requirement, preference, candidates and verdict."""
        found = measured if measured is not None else self.measure(gang)
        index, evaluation, required = found.index, found.evaluation, found.required
        wrong = self.wrong_level(found)
        if gang.gang and gang.min_member > gang.pods:
            wrong = _never_forms_reason(gang.min_member, gang.pods)
        verdict = (
            self.verdict(index, gang, evaluation, found.levels, required) if wrong is None else Verdict.DOES_NOT_FIT
        )
        refusal = next(filter(None, map(_sub_never_forms, sub_groups)), None) if verdict is Verdict.FITS else None
        if refusal is not None:  # a SubGroup that never forms keeps its whole PodGroup out
            verdict, wrong = Verdict.DOES_NOT_FIT, refusal
        if verdict is Verdict.UNKNOWN:
            reason: str | None = _unknown_reason(gang, required)
        elif verdict is Verdict.FITS:
            reason = None
        else:
            reason = wrong if wrong is not None else self.reason(index, gang, evaluation, required)
        fits = verdict is Verdict.FITS
        return GangFit(
            name=gang.name,
            min_member=gang.min_member,
            pods=gang.pods,
            gang=gang.gang,
            parent=gang.parent,
            verdict=verdict,
            reason=reason,
            preferred_level=found.preferred,
            required_level=required,
            required_source=found.required_source,
            preferred_source=found.preferred_source,
            candidates=tuple(self.candidates(index, found.preferred, evaluation, gang.shapes)) if fits else (),
            levels=tuple(found.levels),
            approximate=evaluation.approximate,
            sub_groups=tuple(sub_groups),
        )

    def wrong_level(self, measured: _Measured) -> str | None:
        """Why the required or preferred level cannot be met: it is not one of the cluster's."""
        for level, what, origin in (
            (measured.required, "required", measured.required_source),
            (measured.preferred, "preferred", measured.preferred_source),
        ):
            if level is not None and level not in self.levels:
                # KAI: "the topology tree '<name>' does not contain a level with this name" (job_filtering.go)
                topology = self.cluster.topology or self.cluster.name
                return f"{what} level {level!r} ({origin}) is not a level of topology {topology!r}"
        return None

    def verdict(
        self, index: ClusterIndex, gang: _Gang, evaluation: Evaluation, levels: list[LevelFit], required: str | None
    ) -> Verdict:
        """Fits when a domain of the required level (else the cluster) is known to hold the gang."""
        if required is not None:
            fit = levels[self.levels.index(required)]
            verdict = _verdict(fit.fitting > 0, fit.undecided > 0)
        else:
            verdict = _verdict(evaluation.cluster_fits, evaluation.cluster_undecided)
        if not gang.gang and verdict is Verdict.FITS:
            # Pods without a gang spread freely: the cluster must hold them all, one anywhere.
            every_pod = [(gang.shapes[0][0], gang.pods)] if gang.shapes else []
            answer = self.pack(index, every_pod)
            verdict = _verdict(answer is True, answer is None)
        return verdict

    def pack(self, index: ClusterIndex, shapes: list[Shape]) -> bool | None:
        """Whether ``shapes`` fit the whole cluster at once."""
        return pack_types(shapes, index.composition(index.whole), gpu_resources=self.tree.gpu_resources)

    def candidates(
        self, index: ClusterIndex, level_key: str | None, evaluation: Evaluation, shapes: list[Shape]
    ) -> list[str]:
        """Fitting domains at ``level_key``, least leftover GPUs (then cpu) first, names breaking ties."""
        if level_key is None or level_key not in self.levels or not shapes:
            return []
        depth = self.levels.index(level_key)
        level = index.levels[depth]
        need_gpus = sum((count_gpus(request, self.tree.gpu_resources) * count for request, count in shapes), _ZERO)
        need_cpu = sum((request.get("cpu", _ZERO) * count for request, count in shapes), _ZERO)
        by_leftover: dict[tuple[Fraction, Fraction], list[int]] = {}
        for signature_id, ok in enumerate(evaluation.signature_fits[depth]):
            if ok:
                signature = level.signatures[signature_id]
                leftover = (index.gpus(signature) - need_gpus, index.resource(signature, "cpu") - need_cpu)
                by_leftover.setdefault(leftover, []).extend(level.signature_domains[signature_id])
        chosen: list[str] = []
        # Domains of one signature leave the same leftover: rank signatures, names break ties.
        for leftover in sorted(by_leftover):
            names = sorted(index.display(depth, domain_id) for domain_id in by_leftover[leftover])
            chosen.extend(names[: self.limit - len(chosen)])
            if len(chosen) >= self.limit:
                break
        return chosen

    def reason(self, index: ClusterIndex, gang: _Gang, evaluation: Evaluation, required: str | None) -> str:
        """Why the gang does not fit the cluster as given."""
        offered = {name for free in index.types for name, amount in free.items() if amount > 0}
        missing = sorted({name for request, _ in gang.shapes for name in request} - offered)
        if not index.types:
            return f"topology {self.cluster.name!r} has no node these pods may use"
        if missing:
            return f"no node these pods may use offers {', '.join(missing)}"
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
        elif len(gang.shapes) > 1:
            proof = explain(gang.shapes, index.composition(index.whole), active_budgets().search_steps)
            text += f": {proof}" if proof else ""
        return text

    def pod_group(self, group: PodGroup) -> GangFit:
        """A PodGroup and its SubGroups, parents analysed before children."""
        pod_sets = group_pod_sets(group)
        shapes = shapes_of(pod_sets)
        pods = group.pods or sum(count for _, count in shapes)
        root = _Gang(
            group.name, group.min_member, pods, shapes, pod_sets, root=True, constraint=group.topology_constraint
        )
        measured = self.measure(root)
        required_of: dict[str, str | None] = {}
        subgroups = []
        # Parents before children, so a child knows its parent's requirement.
        for sub in _parents_first(group.sub_groups):
            sub_sets = subgroup_pod_sets(group, sub.name)
            parent_required = required_of.get(sub.parent) if sub.parent else measured.required
            sub_fit = self.group(
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
            required_of[sub.name] = sub_fit.required_level or parent_required
            subgroups.append(sub_fit)
        order = {sub.name: i for i, sub in enumerate(group.sub_groups)}
        return self.group(root, measured, sorted(subgroups, key=lambda sub: order[sub.name]))

    def workload(self) -> WorkloadAnalysis:
        """Every gang of the workload (or, without PodGroups, every component's pods), then the slices."""
        tree = self.tree
        groups = [self.pod_group(group) for group in tree.pod_groups] if tree.pod_groups else self.independent()
        return WorkloadAnalysis(
            workload=tree.workload,
            topology=TopologyRef(name=self.cluster.name, levels=list(self.levels)),
            pod_groups=tuple(groups),
            slices=tuple(self.slices()),
        )

    def slices(self) -> list[SliceFit]:
        """One :class:`SliceFit` per component with several pods per replica and several replicas."""
        fits = []
        for path, component in self.paths.items():
            size = component.pods_per_replica
            if not component.has_pod_template or size <= 1 or component.pods <= size:
                continue
            pod_set = PodSet(component=path, count=size, pod_resources=component.pod_resources)
            shapes = merge_shapes([(component.pod_resources, size)])
            annotated = _slice_level(component.topology_annotations, size)
            report = self.group(_Gang(f"{path}[slice]", size, size, shapes, [pod_set], root=False, annotated=annotated))
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

    def independent(self) -> list[GangFit]:
        """Each component's pods, without a gang."""
        reports = []
        for path, component in self.paths.items():
            pods = component.concurrent_pods  # pods in order: those at the workload's peak moment
            if not component.has_pod_template or pods <= 0:
                continue
            pod_set = PodSet(component=path, count=1, pod_resources=component.pod_resources)
            shapes = merge_shapes([(component.pod_resources, 1)])
            reports.append(self.group(_Gang(path, 1, pods, shapes, [pod_set], root=True, gang=False)))
        return reports


def _never_forms_reason(min_member: int, pods: int) -> str:
    counted = f"{pods} pod" if pods == 1 else f"{pods} pods"
    return f"minMember {min_member} is more than its {counted}: the gang can never form, so no scheduler starts it"


def _sub_never_forms(sub: GangFit) -> str | None:
    own = never_forms(sub)
    return None if own is None else f"its SubGroup {sub.name}: {own}"


def never_forms(group: GangFit) -> str | None:
    """Why a PodGroup (or one of its SubGroups) can never form: its minMember is above its pods; else None.

    A gang scheduler waits for minMember pods before it binds any (KAI, Volcano, the coscheduling
    plugin alike), so such a gang is never started, whatever room the cluster has: it does not
    fit, and every scheduler's rule must leave it unplaced.
    """
    for gang in (group, *group.sub_groups):
        if gang.gang and gang.min_member > gang.pods:
            own = _never_forms_reason(gang.min_member, gang.pods)
            return own if gang is group else f"its SubGroup {gang.name}: {own}"
    return None


def _verdict(fits: bool, undecided: bool) -> Verdict:
    if fits:
        return Verdict.FITS
    return Verdict.UNKNOWN if undecided else Verdict.DOES_NOT_FIT


def _unknown_reason(gang: _Gang, required: str | None) -> str:
    where = f"one {required} domain" if required is not None else "the cluster"
    return (
        f"unknown: within its budget of {active_budgets().search_steps} steps, the exact search could not tell "
        f"whether {where} holds the {gang.pods} pods of {len(gang.shapes)} shapes (raise it with --search-budget)"
    )


def _slice_level(annotations: dict[str, str], size: int) -> str | None:
    """The Kueue slice level a template states for slices of ``size`` pods (validated later, with the PodSet)."""
    if annotations.get(KUEUE_SLICE_SIZE) == str(size) and annotations.get(KUEUE_SLICE_REQUIRED):
        return annotations[KUEUE_SLICE_REQUIRED]
    try:
        layers = json.loads(annotations.get(KUEUE_SLICE_CONSTRAINTS, "[]"))
        first = layers[0] if isinstance(layers, list) and layers else {}
    except ValueError:
        return None
    if isinstance(first, dict) and first.get("size") == size and isinstance(first.get("topology"), str):
        return str(first["topology"])
    return None


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


def all_shapes(tree: WorkloadTree) -> list[Shape]:
    """Every pod of the workload: the gangs' pods, or each component's pods without gangs."""
    if tree.pod_groups:
        return merge_shapes([shape for group in tree.pod_groups for shape in shapes_of(group_pod_sets(group))])
    return merge_shapes(
        [
            (component.pod_resources, component.concurrent_pods)
            for component in component_paths(tree).values()
            if component.has_pod_template and component.concurrent_pods > 0
        ]
    )
