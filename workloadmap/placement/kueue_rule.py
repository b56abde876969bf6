"""Kueue's rule for a workload: its PodSets in order, PodSet groups together, each Workload admitted whole.

The workload's Workloads and PodSets (:func:`~.kueue_requests.kueue_pod_sets`) are placed in
order, a ``podset-group-name`` pair (leader and workers) together, each PodSet by Kueue's
topology-aware assignment (:func:`~.kueue_tas.find_assignment`) on what the ones before it left
(``FindTopologyAssignmentsForFlavor``). Kueue admits a Workload whole: when one of its PodSets
does not fit, none of that Workload's pods are placed. Kueue places PodSets, not SubGroups: the
decisions are per PodGroup, and a SubGroup keeps the analysis' verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..budgets import check_deadline
from ..errors import PlacementError
from ..tree import WorkloadTree
from .analysis import WorkloadAnalysis, never_forms
from .kueue_model import KueuePodSet
from .kueue_requests import KueueUnit, kueue_pod_sets
from .kueue_tas import find_assignment
from .nodes import NodeTree
from .reasons import split_note
from .rules import Decision, Decisions, RuleOptions, assignment_at, requested

__all__ = ["assign_kueue"]

_Member = tuple[str, KueuePodSet]


def assign_kueue(nodes: NodeTree, tree: WorkloadTree, analysis: WorkloadAnalysis, options: RuleOptions) -> Decisions:
    """Place the workload's PodSets as Kueue does; one decision per PodGroup in a Workload.

    Raises:
        PlacementError: a request Kueue's webhook would reject (see :func:`_kueue_groups`).
    """
    units = kueue_pod_sets(tree, analysis, list(analysis.topology.levels))
    decisions: dict[str, Decision] = {}
    for unit in units:
        check_deadline(f"placing {tree.workload} {unit.name}")
        refused = _never_formed(unit, analysis)
        decisions.update(refused or _admit(nodes, unit, analysis, options.balanced))
    return Decisions(decisions, tuple(_split_gang_notes(analysis, units)))


def _admit(nodes: NodeTree, unit: KueueUnit, analysis: WorkloadAnalysis, balanced: bool) -> dict[str, Decision]:
    """One Workload: every PodSet placed on what the ones before it left, or none of them.

    A gang placed across several domains of its preferred level gets a note (:func:`split_note`),
    which says one domain could hold it whole only of the first gang placed on the cluster: the
    standalone analysis saw the cluster that gang was placed on.
    """
    topology = analysis.topology.name
    mark = nodes.mark()
    got: dict[str, dict[int, int]] = {}
    levels: dict[str, str | None] = {}
    owners = list(dict.fromkeys(owner for owner, _ in unit.pod_sets))
    for workers, leader, members in _kueue_groups(unit):
        result = find_assignment(nodes, workers[1], leader[1] if leader else None, topology=topology, balanced=balanced)
        if result.reason is not None:
            nodes.rollback(mark)
            return {
                owner: _refusal(unit, workers[1].name, result.reason, owner in members, mark > 0) for owner in owners
            }
        for member, where in ((workers, result.nodes), (leader, result.leader_nodes)):
            if member is None:
                continue
            owner, pod_set = member
            for node, count in where.items():
                nodes.consume(node, requested(pod_set.request), count, pod_set.scheduling)
            mine = got.setdefault(owner, {})
            for node, count in where.items():
                mine[node] = mine.get(node, 0) + count
            levels.setdefault(owner, pod_set.topology.level)
    fits = {fit.name: fit for fit in analysis.pod_groups}
    decided = {}
    for position, owner in enumerate(owners):
        assignment = assignment_at(nodes, got.get(owner, {}), levels.get(owner))
        fit = fits.get(owner)
        first = mark == 0 and position == 0
        note = split_note(analysis.topology.levels, fit, assignment, first=first) if fit is not None else None
        decided[owner] = Decision(assignment, note=note)
    return decided


def _never_formed(unit: KueueUnit, analysis: WorkloadAnalysis) -> dict[str, Decision] | None:
    """A Workload left unplaced, taking nothing, when one of its PodGroups can never form; else None."""
    by_name = {group.name: group for group in analysis.pod_groups}
    owners = [by_name[owner] for owner in dict.fromkeys(owner for owner, _ in unit.pod_sets) if owner in by_name]
    never = next((group for group in owners if never_forms(group) is not None), None)
    if never is None:
        return None
    text = f"Kueue admits {unit.name} whole and PodGroup {never.name} never forms"
    return {group.name: Decision(reason=never_forms(group) or text) for group in owners}


def _refusal(unit: KueueUnit, pod_set: str, reason: str, own: bool, crowded: bool) -> Decision:
    """Kueue's reason for a Workload it does not admit, as each PodGroup in it sees it."""
    if own:
        return Decision(reason=f"PodSet {pod_set}: {reason}", crowded=crowded)
    text = f"Kueue admits {unit.name} whole and its PodSet {pod_set} does not fit: {reason}"
    return Decision(reason=text, crowded=crowded)


def _split_gang_notes(analysis: WorkloadAnalysis, units: Sequence[KueueUnit]) -> list[str]:
    """Where a gang's required level binds each of its PodSets but not the gang as a whole."""
    by_name = {group.name: group for group in analysis.pod_groups}
    members: dict[str, list[KueuePodSet]] = {}
    for unit in units:
        for owner, pod_set in unit.pod_sets:
            members.setdefault(owner, []).append(pod_set)
    notes = []
    for owner, pod_sets in members.items():
        group = by_name.get(owner)
        if group is None or not group.gang or not group.required_level or len(pod_sets) < 2:
            continue
        if len({pod_set.topology.group for pod_set in pod_sets}) == 1 and pod_sets[0].topology.group:
            continue  # one PodSet group: Kueue keeps it in one domain
        names = ", ".join(pod_set.name for pod_set in pod_sets)
        notes.append(
            f"Kueue binds {group.required_level} per PodSet: the PodSets of {owner} ({names}) may each land in"
            " a different domain of that level"
        )
    return notes


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
