"""The scheduler's verdict for each gang, and where it puts the pods, as workloads are placed in turn.

A :class:`Session` holds one cluster's nodes (:class:`~.nodes.NodeTree`) and places workloads on
it one after another: each takes the capacity it is assigned, which the next can no longer use.
Per workload, :class:`~.analysis.Analysis` first says how each gang fits the cluster as given;
then the chosen scheduler's rule decides, on what is left:

* ``kueue``: the workload's PodSets (:func:`~.kueue_requests.kueue_pod_sets`) in order, PodSet
  groups (leader and workers) together, each by :func:`~.kueue_tas.find_assignment`; Kueue admits
  a Workload whole, so when one PodSet does not fit, none of that Workload's pods are placed;
* ``kai``: each PodGroup with its SubGroups by :func:`~.kai_tas.allocate_group`; PodGroups are
  independent, pods without a gang are placed one by one (KAI makes a PodGroup per pod).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..budgets import check_deadline
from ..errors import PlacementError
from ..labels import KUEUE_PODSET_PREFIX
from ..scheduling import PodScheduling
from ..topology import Cluster
from ..tree import PodGroup, PodSet, WorkloadRef, WorkloadTree
from .analysis import Analysis
from .index import ClusterIndex
from .kai_tas import KaiGroup, KaiTasks, allocate_group, allocate_pods
from .kueue_model import KueuePodSet
from .kueue_requests import KueueUnit, kueue_pod_sets
from .kueue_tas import find_assignment
from .nodes import NodeTree
from .numa_fit import numa_notes, reject_on_admission
from .packing import Amount
from .policy import LevelOption, LevelRequest, component_paths, find_path, group_pod_sets, subgroup_pod_sets
from .report import Assignment, GroupPlacement, NodePods, PlacementReport, TopologyRef, Verdict

__all__ = ["POLICIES", "Options", "Session"]

POLICIES = ("kueue", "kai")
"""The schedulers whose choice rule :class:`Session` applies."""


@dataclass(frozen=True)
class Options:
    """The options of :func:`~workloadmap.placement.place` that shape every placement of a session."""

    required: LevelOption = None
    preferred: LevelOption = None
    auto: bool = True
    max_candidates: int = 10
    policy: str = "kueue"
    balanced: bool = False

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")


def _clean(request: dict) -> dict[str, Amount]:
    return {name: amount for name, amount in request.items() if amount > 0 and name != "pods"}


class Session:
    """One cluster on which workloads are placed in turn, each taking the capacity it is assigned."""

    def __init__(self, cluster: Cluster, options: Options) -> None:
        self.cluster = cluster
        self.options = options
        self.nodes = NodeTree(cluster)
        # The cluster as given, for the standalone analysis (placements change the tree's types).
        self.initial = list(self.nodes.types)
        self._initial_types = list(self.nodes.node_type)
        self.placed: list[WorkloadRef] = []
        self._indexes: dict[tuple, ClusterIndex] = {}
        self._crowded: set[int] = set()  # groups placed after others had taken capacity
        self._decided: set[int] = set()  # groups whose verdict the scheduler's rule gave

    def index_for(self, schedulings: Sequence[PodScheduling], gpu_resources: tuple[str, ...]) -> ClusterIndex:
        """The nodes of the cluster as given that pass at least one of the node filters, indexed."""
        key = (frozenset(schedulings), gpu_resources)
        index = self._indexes.get(key)
        if index is None:
            flags = [self.nodes.eligible(scheduling)[0] for scheduling in schedulings]
            chosen = [position for position in range(len(self.nodes.nodes)) if any(f[position] for f in flags)]
            nodes = [self.nodes.nodes[position] for position in chosen]
            frees = [self.initial[self._initial_types[position]] for position in chosen]
            tree = self.nodes
            # The tree's domains, but for its last (hostname) level, where it keeps one domain per
            # node and the index one per label value.
            grouped = [
                ([tree.node_domain[depth][position] for position in chosen], tree.paths[depth])
                for depth in range(min(len(self.cluster.levels), len(tree.levels) - 1))
            ]
            index = self._indexes[key] = ClusterIndex(self.cluster, gpu_resources, nodes, frees, grouped)
        return index

    def place(self, tree: WorkloadTree) -> PlacementReport:
        """Analyse the workload, then place it by the policy's rule on what earlier workloads left.

        Raises:
            PlacementError: a requested level that is not one of the cluster's, or a Kueue
                request on a pod template that Kueue would reject.
        """
        options = self.options
        analysis = Analysis(
            tree,
            self.cluster,
            LevelRequest(options.required, options.preferred),
            options.auto,
            options.max_candidates,
            lambda schedulings: self.index_for(schedulings, tree.gpu_resources),
        )
        groups = [analysis.pod_group(group) for group in tree.pod_groups] if tree.pod_groups else analysis.independent()
        report = PlacementReport(
            workload=tree.workload,
            topology=TopologyRef(name=self.cluster.name, levels=list(self.cluster.levels)),
            fits=False,
            pod_groups=groups,
            slices=analysis.slices(),
            policy=options.policy,
            notes=self.nodes.left_out.notes(),
            placed_before=list(self.placed),
        )
        alone = {id(group): group.fits for group in report.groups()}
        self._crowded = set()
        mark = self.nodes.mark()
        try:
            if options.policy == "kueue":
                self._kueue(tree, report)
            else:
                self._kai(tree, report)
        except Exception:
            self.nodes.rollback(mark)  # a rejected (or failed) workload takes nothing
            raise
        if self.nodes.numa is not None:
            report.notes += numa_notes(tree, self.nodes.eligible)
            reject_on_admission(report, self.nodes.numa.since(mark))
        for group in report.groups():
            if not group.fits and alone[id(group)] and group.gang and group.reason and id(group) in self._crowded:
                group.reason += "; it fits the cluster as given, before the groups placed ahead of it"
        for group in report.pod_groups:
            if not group.fits:
                for sub in group.sub_groups:
                    sub.fits, sub.assignment = False, None
                    sub.reason = sub.reason or f"its PodGroup {group.name} is not placed"
        unfit = self._settle(report)
        if unfit:
            # How many fit and the first reason: a ranking across clusters keeps it as the cluster's reason.
            first = unfit[0]
            fitting = len(report.pod_groups) - len(unfit)
            report.reason = (
                f"{fitting} of {len(report.pod_groups)} groups fit; {first.name} does not: {first.reason or 'no room'}"
            )
        self.placed.append(tree.workload)
        return report

    def _settle(self, report: PlacementReport) -> list[GroupPlacement]:
        """Each group's verdict: the scheduler's where its rule placed the group, else the analysis'.

        Kueue places PodGroups (as PodSets), not SubGroups: a SubGroup of a placed PodGroup keeps
        the analysis' verdict, which may be unknown. Returns the PodGroups that do not fit.
        """
        kai = self.options.policy == "kai"
        for group in report.pod_groups:
            decided = [group] if kai or id(group) in self._decided else []
            decided += [sub for sub in group.sub_groups if kai or not group.fits]
            for placed in decided:
                placed.verdict = Verdict.FITS if placed.fits else Verdict.DOES_NOT_FIT
            for sub in (group, *group.sub_groups):
                if sub.fits:
                    sub.verdict = Verdict.FITS
        unfit = [group for group in report.pod_groups if group.verdict is Verdict.DOES_NOT_FIT]
        unknown = [group.name for group in report.groups() if group.verdict is Verdict.UNKNOWN]
        # A SubGroup Kueue does not place cannot make the workload unfit, but an unknown one is not a fit.
        report.verdict = Verdict.DOES_NOT_FIT if unfit else Verdict.UNKNOWN if unknown else Verdict.FITS
        report.fits = report.verdict is Verdict.FITS
        if unknown and not unfit:
            report.reason = f"the exact search spent its budget on {', '.join(unknown)}: their fit is unknown"
        return unfit

    # -- assignments ----------------------------------------------------------------------------

    def assignment(self, nodes: dict[int, int], level: str | None) -> Assignment:
        """The assignment of pods per node: the chosen domain at ``level`` (or the narrowest holding them all)."""
        tree = self.nodes
        ordered = sorted(nodes, key=lambda node: tree.paths[-1][node])
        found = tree.common_domain(ordered)
        if found is not None and level in tree.levels:
            depth, domain = found
            while depth > tree.levels.index(level):
                depth, domain = depth - 1, tree.parents[depth][domain]
            found = depth, domain
        domain_name = level_key = None
        if found is not None:
            domain_name, level_key = tree.display(*found), tree.levels[found[0]]
        return Assignment(
            domain=domain_name,
            level=level_key,
            nodes=[NodePods(tree.nodes[node].name, nodes[node]) for node in ordered],
        )

    def _take(self, pod_set: KueuePodSet, nodes: dict[int, int]) -> None:
        for node, count in nodes.items():
            self.nodes.consume(node, _clean(pod_set.request), count, pod_set.scheduling)

    # -- Kueue ----------------------------------------------------------------------------------

    def _kueue(self, tree: WorkloadTree, report: PlacementReport) -> None:
        by_name = {group.name: group for group in report.pod_groups}
        units = kueue_pod_sets(tree, report, list(self.cluster.levels))
        _note_split_gangs(report, units)
        for unit in units:
            check_deadline(f"placing {tree.workload} {unit.name}")
            mark = self.nodes.mark()
            got: dict[str, dict[int, int]] = {}
            levels: dict[str, str | None] = {}
            failed: tuple[str, str, set[str]] | None = None
            for workers, leader, owners in _kueue_groups(unit):
                result = find_assignment(
                    self.nodes, workers[1], leader[1] if leader else None,
                    topology=self.cluster.name, balanced=self.options.balanced,
                )  # fmt: skip
                if result.reason is not None:
                    failed = (workers[1].name, result.reason, owners)
                    break
                for member, nodes in ((workers, result.nodes), (leader, result.leader_nodes)):
                    if member is None:
                        continue
                    owner, pod_set = member
                    self._take(pod_set, nodes)
                    mine = got.setdefault(owner, {})
                    for node, count in nodes.items():
                        mine[node] = mine.get(node, 0) + count
                    levels.setdefault(owner, pod_set.topology.level)
            owners_in_unit = {owner for owner, _ in unit.pod_sets}
            self._decided.update(id(by_name[owner]) for owner in owners_in_unit)
            if failed is not None:
                self.nodes.rollback(mark)
                name, reason, failing = failed
                for owner in owners_in_unit:
                    group = by_name[owner]
                    if mark:
                        self._crowded.add(id(group))
                    group.fits, group.assignment = False, None
                    group.reason = f"PodSet {name}: {reason}"
                    if owner not in failing:
                        group.reason = f"Kueue admits {unit.name} whole and its PodSet {name} does not fit: {reason}"
                continue
            for owner in owners_in_unit:
                group = by_name[owner]
                group.fits, group.reason = True, None
                group.assignment = self.assignment(got.get(owner, {}), levels.get(owner))

    # -- KAI ------------------------------------------------------------------------------------

    def _kai(self, tree: WorkloadTree, report: PlacementReport) -> None:
        paths = component_paths(tree)
        marked = [path for path, component in paths.items() if _has_kueue_request(component.topology_annotations)]
        if marked:
            report.notes.append(
                f"KAI does not read the Kueue podset annotations on {', '.join(marked)}: what applies to a whole"
                " gang becomes its PodGroup constraint (as --emit kai writes it); slices and a PodSet's own request"
                " inside a larger gang are Kueue's (--policy kueue)"
            )
        if not tree.pod_groups:
            for group in report.pod_groups:
                component = paths[group.name]
                pods = component.concurrent_pods
                tasks = KaiTasks(_clean(component.pod_resources), pods, component.scheduling)
                nodes, placed = allocate_pods(self.nodes, tasks, gpu_resources=tree.gpu_resources)
                group.fits = placed == pods
                group.assignment = self.assignment(nodes, None) if nodes else None
                group.reason = None if group.fits else f"only {placed} of {pods} pods find a node"
            return
        by_name = {group.name: group for group in report.pod_groups}
        levels = set(self.cluster.levels) | {None}
        for tree_group in tree.pod_groups:
            check_deadline(f"placing {tree.workload} {tree_group.name}")
            placed_group = by_name[tree_group.name]
            wrong = [
                group
                for group in (placed_group, *placed_group.sub_groups)
                if group.required_level not in levels or group.preferred_level not in levels
            ]
            if wrong:
                # KAI rejects a constraint naming a level its Topology lacks (newTopologyConstraintConfigError).
                placed_group.fits, placed_group.assignment = False, None
                placed_group.reason = placed_group.reason if wrong[0] is placed_group else wrong[0].reason
                continue
            root = _kai_group(tree_group, placed_group, paths)
            if self.nodes.mark():
                self._crowded.add(id(placed_group))
            result = allocate_group(self.nodes, root, gpu_resources=tree.gpu_resources, topology=self.cluster.name)
            if isinstance(result, str):
                placed_group.fits, placed_group.reason, placed_group.assignment = False, result, None
                for sub in placed_group.sub_groups:
                    sub.assignment = None
                continue
            placed_group.fits, placed_group.reason = True, None
            every: dict[int, int] = {}
            for where in result.values():
                for node, count in where.nodes.items():
                    every[node] = every.get(node, 0) + count
            chosen = result.get(root.name)
            placed_group.assignment = self._kai_assignment(every, chosen.domain if chosen else None)
            for sub in placed_group.sub_groups:
                mine = _subtree_nodes(root, sub.name, result)
                own = result.get(sub.name)
                sub.fits, sub.reason = True, None
                sub.assignment = self._kai_assignment(mine, own.domain if own else None)

    def _kai_assignment(self, nodes: dict[int, int], domain: tuple[int, int] | None) -> Assignment:
        if domain is None:
            return self.assignment(nodes, None)
        tree = self.nodes
        ordered = sorted(nodes, key=lambda node: tree.paths[-1][node])
        return Assignment(
            domain=tree.display(*domain),
            level=tree.levels[domain[0]],
            nodes=[NodePods(tree.nodes[node].name, nodes[node]) for node in ordered],
        )


def _note_split_gangs(report: PlacementReport, units: Sequence[KueueUnit]) -> None:
    """Say where a gang's required level binds each of its PodSets but not the gang as a whole."""
    by_name = {group.name: group for group in report.pod_groups}
    members: dict[str, list[KueuePodSet]] = {}
    for unit in units:
        for owner, pod_set in unit.pod_sets:
            members.setdefault(owner, []).append(pod_set)
    for owner, pod_sets in members.items():
        group = by_name.get(owner)
        if group is None or not group.gang or not group.required_level or len(pod_sets) < 2:
            continue
        if len({pod_set.topology.group for pod_set in pod_sets}) == 1 and pod_sets[0].topology.group:
            continue  # one PodSet group: Kueue keeps it in one domain
        names = ", ".join(pod_set.name for pod_set in pod_sets)
        report.notes.append(
            f"Kueue binds {group.required_level} per PodSet: the PodSets of {owner} ({names}) may each land in"
            " a different domain of that level"
        )


def _has_kueue_request(annotations: dict[str, str]) -> bool:
    return any(key.startswith(KUEUE_PODSET_PREFIX) for key in annotations)


_Member = tuple[str, KueuePodSet]


def _kueue_groups(unit: KueueUnit) -> list[tuple[_Member, _Member | None, set[str]]]:
    """``FindTopologyAssignmentsForFlavor``: PodSets in order, a ``podset-group-name`` pair together.

    In a pair the PodSet with more pods is the workers, the other the leader.

    Raises:
        PlacementError: a group that Kueue's webhook rejects (not exactly 2 PodSets, neither with
            one pod, or different levels).
    """
    order: list[str] = []
    grouped: dict[str, list[tuple[str, KueuePodSet]]] = {}
    for position, (owner, pod_set) in enumerate(unit.pod_sets):
        key = pod_set.topology.group or f"\0{position}"
        if key not in grouped:
            order.append(key)
        grouped.setdefault(key, []).append((owner, pod_set))
    result: list[tuple[_Member, _Member | None, set[str]]] = []
    for key in order:
        members = grouped[key]
        if len(members) == 1:
            result.append((members[0], None, {members[0][0]}))
            continue
        names = ", ".join(pod_set.name for _, pod_set in members)
        if len(members) != 2:
            raise PlacementError(
                f"podset group {key!r} ({names}) must hold exactly 2 pod sets, got {len(members)}", document=unit.name
            )
        workers, leader = members
        if leader[1].count > workers[1].count:
            workers, leader = leader, workers
        if leader[1].count != 1:
            raise PlacementError(f"podset group {key!r} ({names}) needs one pod set of 1 pod", document=unit.name)
        a, b = workers[1].topology, leader[1].topology
        if (a.required, a.preferred) != (b.required, b.preferred) or a.level is None:
            raise PlacementError(
                f"podset group {key!r} ({names}) needs the same required or preferred level on both", document=unit.name
            )
        result.append((workers, leader, {workers[0], leader[0]}))
    return result


def _tasks(pod_sets: Sequence, paths: dict) -> list[KaiTasks]:
    tasks = []
    for pod_set in pod_sets:
        key = find_path(paths, pod_set.component)
        scheduling = paths[key].scheduling if key is not None else PodScheduling()
        if pod_set.count > 0:
            tasks.append(KaiTasks(_clean(pod_set.pod_resources), pod_set.count, scheduling))
    return tasks


def _kai_group(group: PodGroup, placed: GroupPlacement, paths: dict) -> KaiGroup:
    """A PodGroup as KAI sees it: the root constraint, SubGroups nested, pods of no SubGroup at the root."""
    placed_subs = {sub.name: sub for sub in placed.sub_groups}
    names = {sub.name for sub in group.sub_groups}
    members: dict[str, KaiGroup] = {}
    for sub in group.sub_groups:
        placement = placed_subs.get(sub.name)
        required = placement.required_level if placement else None
        preferred = placement.preferred_level if placement else None
        members[sub.name] = KaiGroup(sub.name, required, preferred, _tasks(sub.pod_sets, paths))
    root = KaiGroup(placed.name, placed.required_level, placed.preferred_level)
    for sub in group.sub_groups:
        parent = members.get(sub.parent) if sub.parent in names and sub.parent != sub.name else None
        (parent or root).children.append(members[sub.name])
    if not group.sub_groups:
        root.tasks = _tasks(group_pod_sets(group), paths)
        return root
    covered: dict[str, int] = {}
    for sub in group.sub_groups:
        if not any(other.parent == sub.name for other in group.sub_groups):
            for pod_set in subgroup_pod_sets(group, sub.name):
                covered[pod_set.component] = covered.get(pod_set.component, 0) + pod_set.count
    leftover = []
    for pod_set in group_pod_sets(group):
        extra = pod_set.count - covered.get(pod_set.component, 0)
        covered[pod_set.component] = max(0, -extra)
        if extra > 0:
            leftover.append(PodSet(pod_set.component, extra, pod_set.pod_resources))
    root.tasks = _tasks(leftover, paths)
    return root


def _subtree_nodes(root: KaiGroup, name: str, result: dict) -> dict[int, int]:
    """The pods per node of a SubGroup and every SubGroup below it."""
    stack = [root]
    start = None
    while stack:
        group = stack.pop()
        if group.name == name and group is not root:
            start = group
            break
        stack.extend(group.children)
    if start is None:
        return {}
    total: dict[int, int] = {}
    stack = [start]
    while stack:
        group = stack.pop()
        stack.extend(group.children)
        for node, count in (result[group.name].nodes if group.name in result else {}).items():
            total[node] = total.get(node, 0) + count
    return total
