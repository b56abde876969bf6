"""KAI Scheduler's rule for a workload: each PodGroup allocated on its own, with its SubGroups.

Each PodGroup, with its SubGroups nested, is allocated by KAI's allocate action and topology
plugin (:func:`~.kai_tas.allocate_group`) on what the ones before it left; PodGroups are
independent (one that does not fit takes nothing, the others keep their nodes). Pods without a
gang are placed one by one (:func:`~.kai_tas.allocate_pods`: KAI makes a PodGroup per pod). KAI
places SubGroups too, so a placed PodGroup's decision holds one per SubGroup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..budgets import check_deadline
from ..labels import KUEUE_PODSET_PREFIX
from ..scheduling import PodScheduling
from ..tree import Component, PodGroup, PodSet, WorkloadTree
from .analysis import GangFit, WorkloadAnalysis, never_forms
from .kai_tas import KaiGroup, KaiPlaced, KaiTasks, allocate_group, allocate_pods
from .nodes import NodeTree
from .policy import component_paths, find_path, group_pod_sets, subgroup_pod_sets
from .rules import Decision, Decisions, RuleOptions, assignment_at, assignment_in, requested

__all__ = ["assign_kai"]


def assign_kai(nodes: NodeTree, tree: WorkloadTree, analysis: WorkloadAnalysis, options: RuleOptions) -> Decisions:
    """Allocate every PodGroup (or, without PodGroups, every component's pods) as KAI does."""
    paths = component_paths(tree)
    marked = [path for path, component in paths.items() if _has_kueue_request(component.topology_annotations)]
    notes: tuple[str, ...] = ()
    if marked:
        notes = (
            f"KAI does not read the Kueue podset annotations on {', '.join(marked)}: what applies to a whole"
            " gang becomes its PodGroup constraint (as --emit kai writes it); slices and a PodSet's own request"
            " inside a larger gang are Kueue's (--policy kueue)",
        )
    if not tree.pod_groups:
        return Decisions({group.name: _pods(nodes, tree, paths[group.name]) for group in analysis.pod_groups}, notes)
    by_name = {group.name: group for group in analysis.pod_groups}
    levels = set(analysis.topology.levels) | {None}
    decisions: dict[str, Decision] = {}
    for tree_group in tree.pod_groups:
        check_deadline(f"placing {tree.workload} {tree_group.name}")
        fit = by_name[tree_group.name]
        refusal = never_forms(fit)
        if refusal is not None:  # KAI waits for minMember pods that never come
            decisions[fit.name] = Decision(reason=refusal)
            continue
        wrong = [
            group
            for group in (fit, *fit.sub_groups)
            if group.required_level not in levels or group.preferred_level not in levels
        ]
        if wrong:
            # KAI rejects a constraint naming a level its Topology lacks (newTopologyConstraintConfigError).
            decisions[fit.name] = Decision(reason=wrong[0].reason)
            continue
        decisions[fit.name] = _allocate(nodes, tree, tree_group, fit, paths, analysis.topology.name)
    return Decisions(decisions, notes)


def _pods(nodes: NodeTree, tree: WorkloadTree, component: Component) -> Decision:
    """Pods without a gang: each placed where it finds a node, as KAI places one-pod PodGroups."""
    pods = component.concurrent_pods  # pods in order: those at the workload's peak moment
    tasks = KaiTasks(requested(component.pod_resources), pods, component.scheduling)
    where, placed = allocate_pods(nodes, tasks, gpu_resources=tree.gpu_resources)
    reason = None if placed == pods else f"only {placed} of {pods} pods find a node"
    # The pods that found a node keep it (each is its own PodGroup), placed or not.
    return Decision(assignment_at(nodes, where, None) if where else None, reason)


def _allocate(
    nodes: NodeTree, tree: WorkloadTree, group: PodGroup, fit: GangFit, paths: Mapping[str, Component], topology: str
) -> Decision:
    """One PodGroup with its SubGroups: KAI's allocation, or its reason."""
    root = _kai_group(group, fit, paths)
    crowded = nodes.mark() > 0
    result = allocate_group(nodes, root, gpu_resources=tree.gpu_resources, topology=topology)
    if isinstance(result, str):
        return Decision(reason=result, crowded=crowded)
    every: dict[int, int] = {}
    for where in result.values():
        for node, count in where.nodes.items():
            every[node] = every.get(node, 0) + count
    chosen = result.get(root.name)
    subs = {}
    for sub in fit.sub_groups:
        own = result.get(sub.name)
        subs[sub.name] = Decision(
            assignment_in(nodes, _subtree_nodes(root, sub.name, result), own.domain if own else None)
        )
    return Decision(assignment_in(nodes, every, chosen.domain if chosen else None), crowded=crowded, sub_groups=subs)


def _has_kueue_request(annotations: Mapping[str, str]) -> bool:
    return any(key.startswith(KUEUE_PODSET_PREFIX) for key in annotations)


def _tasks(pod_sets: Sequence[PodSet], paths: Mapping[str, Component]) -> list[KaiTasks]:
    tasks = []
    for pod_set in pod_sets:
        key = find_path(paths, pod_set.component)
        scheduling = paths[key].scheduling if key is not None else PodScheduling()
        if pod_set.count > 0:
            tasks.append(KaiTasks(requested(pod_set.pod_resources), pod_set.count, scheduling))
    return tasks


def _kai_group(group: PodGroup, fit: GangFit, paths: Mapping[str, Component]) -> KaiGroup:
    """A PodGroup as KAI sees it: the root constraint, SubGroups nested, pods of no SubGroup at the root."""
    fits = {sub.name: sub for sub in fit.sub_groups}
    names = {sub.name for sub in group.sub_groups}
    members: dict[str, KaiGroup] = {}
    # A SubGroup with children is a SubGroupSet: its pods are its leaves' (subgroup_info/factory.go), none its own.
    parents = {sub.parent for sub in group.sub_groups if sub.parent is not None and sub.parent != sub.name}
    for sub in group.sub_groups:
        own = fits.get(sub.name)
        required = own.required_level if own else None
        preferred = own.preferred_level if own else None
        tasks = [] if sub.name in parents else _tasks(sub.pod_sets, paths)
        members[sub.name] = KaiGroup(sub.name, required, preferred, tasks)
    root = KaiGroup(fit.name, fit.required_level, fit.preferred_level)
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


def _subtree_nodes(root: KaiGroup, name: str, result: Mapping[str, KaiPlaced]) -> dict[int, int]:
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
