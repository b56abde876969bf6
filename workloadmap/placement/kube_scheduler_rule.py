"""kube-scheduler's rule for a workload: each PodGroup by the native workload-aware scheduling (KEP-4671, KEP-5732).

With the ``TopologyAwareWorkloadScheduling`` gate on, kube-scheduler schedules every PodGroup
through its placement algorithm (kubernetes ``pkg/scheduler/algorithm_podgroup.go``,
``podGroupSchedulingPlacementAlgorithm``):

* **generate** — the ``TopologyPlacement`` plugin (``plugins/topologyaware/topology_placement.go``)
  makes one candidate placement per value of the group's topology key
  (``schedulingConstraints.topology[0].key``) among the nodes; nodes without the label belong to
  none, and a group without a constraint has one placement, every node. Placements are label
  values, so ``rack=r0`` under two blocks is one placement;
* **filter** — in each placement the group's pods are scheduled pod by pod (the normal Filter and
  Score of each pod, assumed in the snapshot), and the ``GangScheduling`` plugin's
  ``PlacementFeasible`` (``plugins/gangscheduling/gangscheduling.go``) rejects it as soon as the
  scheduled pods plus the pods left cannot reach ``minCount`` (1 for a ``basic`` group);
* **score** — among the feasible placements (one alone is taken unscored), the placement score
  plugins, each of weight 1: ``PodGroupPodsCount`` (the group's pods the placement schedules,
  normalized to 0-100 against the best) and ``NodeResourcesFit``, which scores a placement by the
  ``MostAllocated`` ratio of all its nodes' requests (what runs there and the proposed pods) to
  their allocatable, over the plugin's resources (cpu and memory, weight 1 each, by default).
  The highest total wins; kube-scheduler breaks ties at random, wmap takes the first in node order
  and says so.

Where kube-scheduler is random or reads what a file does not hold, wmap decides one way and writes
it down: a pod goes to the node with the highest ``LeastAllocated`` score (the default scoring
strategy of ``NodeResourcesFit``; the other score plugins of a pod, spread and affinity, are not
modelled), the first such node on a tie; pods go in the order of the PodGroup's pod sets. A gang's
required level (its topology constraint, the workload's annotations or ``--require-level``) is the
placement's topology key; a preferred level has no native counterpart (KEP-5732 lists preferred
constraints as future work) and is ignored. kube-scheduler knows no SubGroups: its decisions are
per PodGroup. Pods without a gang are ``basic`` groups of the whole component.
"""

from __future__ import annotations

import heapq
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ..budgets import check_deadline
from ..scheduling import PodScheduling
from ..tree import Component, PodGroup, PodSet, WorkloadTree
from .analysis import GangFit, WorkloadAnalysis, never_forms
from .nodes import NodeTree
from .packing import Amount, capacity_of, subtract
from .policy import component_paths, find_path, group_pod_sets
from .report import Assignment, NodePods
from .rules import Decision, Decisions, RuleOptions, requested

__all__ = ["assign_kube_scheduler", "SCORED_RESOURCES", "MAX_SCORE"]

_ZERO = Fraction(0)

MAX_SCORE = 100
"""``framework.MaxNodeScore``: the top of every score plugin's range."""

SCORED_RESOURCES: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))
"""``NodeResourcesFit``'s default ``scoringStrategy.resources`` (name, weight): what both its pod and its
placement scores read (``pkg/scheduler/apis/config/v1/defaults.go``)."""


@dataclass(frozen=True)
class _Pods:
    """One pod set of a group as kube-scheduler sees its pods: the request, how many, the node filters."""

    request: dict[str, Amount]
    count: int
    scheduling: PodScheduling


@dataclass(frozen=True)
class _Candidate:
    """One feasible placement: its label value, its nodes, the pods it schedules, its resource score."""

    value: str | None
    members: tuple[int, ...]
    scheduled: int
    fit_score: int


def assign_kube_scheduler(
    nodes: NodeTree, tree: WorkloadTree, analysis: WorkloadAnalysis, options: RuleOptions
) -> Decisions:
    """Schedule every PodGroup (or, without PodGroups, every component's pods) as kube-scheduler does."""
    paths = component_paths(tree)
    notes: list[str] = []
    decisions: dict[str, Decision] = {}
    groups = {group.name: group for group in tree.pod_groups}
    scorer = _scorer(nodes)
    for fit in analysis.pod_groups:
        check_deadline(f"placing {tree.workload} {fit.name}")
        refusal = never_forms(fit)
        if refusal is not None:  # GangScheduling's PreEnqueue waits for minCount pods that never come
            decisions[fit.name] = Decision(reason=refusal)
            continue
        group = groups.get(fit.name)
        if group is not None:
            pods = _group_pods(group, paths)
            min_count = max(1, group.min_member)
        else:
            component = paths[fit.name]
            pods = [_Pods(requested(component.pod_resources), component.pods, component.scheduling)]
            min_count = 1
        decisions[fit.name] = _schedule_group(nodes, scorer, fit, pods, min_count, notes)
        if fit.preferred_level and fit.preferred_level != fit.required_level:
            notes.append(
                f"{fit.name}: kube-scheduler has no preferred topology constraint (KEP-5732 leaves it for"
                f" later); the preferred level {fit.preferred_level} is not read"
            )
        if any(sub.required_level for sub in fit.sub_groups):
            notes.append(
                f"{fit.name}: kube-scheduler schedules PodGroups, not SubGroups: the SubGroups' levels are not"
                " read (a CompositePodGroup of PodGroups would carry them)"
            )
    return Decisions(decisions, tuple(dict.fromkeys(notes)))


def _group_pods(group: PodGroup, paths: Mapping[str, Component]) -> list[_Pods]:
    pods = []
    for pod_set in group_pod_sets(group):
        if pod_set.count > 0:
            pods.append(_Pods(requested(pod_set.pod_resources), pod_set.count, _scheduling(pod_set, paths)))
    return pods


def _scheduling(pod_set: PodSet, paths: Mapping[str, Component]) -> PodScheduling:
    key = find_path(paths, pod_set.component)
    return paths[key].scheduling if key is not None else PodScheduling()


def _placements(nodes: NodeTree, key: str | None) -> list[tuple[str | None, tuple[int, ...]]]:
    """``TopologyPlacement.GeneratePlacements``: one placement per value of ``key``, in node order."""
    if key is None:
        return [(None, tuple(range(len(nodes.nodes))))]
    by_value: dict[str, list[int]] = {}
    for index, node in enumerate(nodes.nodes):
        value = node.labels.get(key)
        if value is not None:  # an empty value is a domain too (TestGeneratePlacements)
            by_value.setdefault(value, []).append(index)
    return [(value, tuple(members)) for value, members in by_value.items()]


class _Scorer:
    """The plugins' scores for one workload, cached: a node's score depends only on its type and allocatable.

    ``NodeTree`` keeps free resources per node *type* (nodes with equal free vectors share one),
    so a pod's ``LeastAllocated`` score is computed once per (type, allocatable, request).
    """

    def __init__(self, nodes: NodeTree) -> None:
        self.nodes = nodes
        # Per node, an id of its allocatable (cpu, memory): -1 until first asked; readers share one Fraction
        # per distinct quantity, so object identities tell equal nodes apart without hashing fractions.
        self._allocatable_id = [-1] * len(nodes.nodes)
        self._allocatable: list[tuple[Amount, ...]] = []
        self._allocatable_ids: dict[tuple[int, ...], int] = {}
        self._request_ids: dict[tuple[tuple[str, Amount], ...], int] = {}
        self._least: dict[tuple[int, int, int], int | None] = {}
        self._capacity: dict[tuple[int, ...], tuple[Amount, ...]] = {}

    def allocatable(self, node: int) -> tuple[Amount, ...]:
        """The node's allocatable amounts of :data:`SCORED_RESOURCES`."""
        return self._allocatable[self._allocatable_of(node)]

    def _allocatable_of(self, node: int) -> int:
        known = self._allocatable_id[node]
        if known >= 0:
            return known
        values = tuple(self.nodes.nodes[node].allocatable.get(name, _ZERO) for name, _ in SCORED_RESOURCES)
        identity = tuple(id(value) for value in values)
        known = self._allocatable_ids.get(identity, -1)
        if known < 0:
            known = self._allocatable_ids[identity] = len(self._allocatable)
            self._allocatable.append(values)
        self._allocatable_id[node] = known
        return known

    def request_id(self, request: dict[str, Amount]) -> int:
        """A small id for a pod request (hashed once per pod set and placement, not per node)."""
        key = tuple(sorted(request.items()))
        found = self._request_ids.get(key)
        if found is None:
            found = self._request_ids[key] = len(self._request_ids)
        return found

    def least_allocated(self, node: int, request: dict[str, Amount], request_id: int) -> int | None:
        """``NodeResourcesFit``'s ``LeastAllocated`` pod score on the node, or None when the pod does not fit.

        ``leastRequestedScore`` (``noderesources/least_allocated.go``): per resource,
        ``(allocatable - requested) * 100 / allocatable`` with the pod counted, weighted mean, integers.
        """
        nodes = self.nodes
        type_id = nodes.node_type[node]
        allocatable_id = self._allocatable_of(node)
        cached = (type_id, allocatable_id, request_id)
        if cached in self._least:
            return self._least[cached]
        allocatable = self._allocatable[allocatable_id]
        score = _least_score(nodes.types[type_id], allocatable, request)
        self._least[cached] = score
        return score

    def most_allocated(self, members: tuple[int, ...], touched: Mapping[int, Mapping[str, Amount]]) -> int:
        """``NodeResourcesFit``'s placement score: ``MostAllocated`` over the placement's nodes summed.

        Per resource ``min(requested, allocatable) * 100 / allocatable``, requested being everything the
        nodes run (earlier pods, and the proposed ones: ``touched`` holds the free resources of the nodes
        they went to), weighted mean, integers (``most_allocated.go``'s ``mostRequestedScore``; web
        ``topology-aware-scheduling.md``).
        """
        nodes = self.nodes
        capacity = self._capacity.get(members)
        if capacity is None:
            sums: list[Amount] = [0] * len(SCORED_RESOURCES)
            for node in members:
                for index, amount in enumerate(self.allocatable(node)):
                    sums[index] += amount
            capacity = self._capacity[members] = tuple(sums)
        per_type: dict[int, int] = {}
        for node in members:
            if node not in touched:
                type_id = nodes.node_type[node]
                per_type[type_id] = per_type.get(type_id, 0) + 1
        total = weights = 0
        for (name, weight), have in zip(SCORED_RESOURCES, capacity, strict=True):
            if have <= 0:
                continue
            free = sum(nodes.types[type_id].get(name, 0) * count for type_id, count in per_type.items())
            free += sum(left.get(name, 0) for left in touched.values())
            used = have - free
            total += int(min(used, have) * MAX_SCORE // have) * weight
            weights += weight
        return total // weights if weights else 0

    def bound(self, members: Sequence[int], pods: Sequence[_Pods]) -> int:
        """At most how many of the pods the placement can hold: each pod set against the nodes alone."""
        nodes = self.nodes
        total = 0
        for entry in pods:
            flags, _ = nodes.eligible(entry.scheduling)
            per_type = nodes.type_capacity(entry.request)
            room = 0
            for node in members:
                if flags[node]:
                    room += per_type[nodes.node_type[node]]
                    if room >= entry.count:
                        break
            total += min(room, entry.count)
        return total


_SCORERS: weakref.WeakKeyDictionary[NodeTree, _Scorer] = weakref.WeakKeyDictionary()
"""One scorer per node tree: type ids, nodes and request ids stay valid for the tree's life (workloads placed
in turn on one cluster share the scores of the nodes they did not change)."""


def _scorer(nodes: NodeTree) -> _Scorer:
    found = _SCORERS.get(nodes)
    if found is None:
        found = _SCORERS[nodes] = _Scorer(nodes)
    return found


def _schedule_group(
    nodes: NodeTree, scorer: _Scorer, fit: GangFit, pods: Sequence[_Pods], min_count: int, notes: list[str]
) -> Decision:
    """One PodGroup: every placement tried, the feasible ones scored, the best one's pods consumed."""
    key = fit.required_level
    crowded = nodes.mark() > 0
    total = sum(entry.count for entry in pods)
    placements = _placements(nodes, key)
    feasible: list[_Candidate] = []
    best_shortfall: tuple[int, int] | None = None
    closest: tuple[int, tuple[int, ...]] | None = None
    for value, members in placements:
        room = scorer.bound(members, pods)
        if room < min_count:
            # Pod by pod it could only fail: PlacementFeasible rejects it (tried below for the reason only).
            if closest is None or room > closest[0]:
                closest = (room, members)
            continue
        trial = _try(nodes, scorer, members, pods, min_count)
        if trial.scheduled >= min_count:
            # NodeResourcesFit reads the proposed pods' requests: the trial's free resources.
            feasible.append(_Candidate(value, members, trial.scheduled, scorer.most_allocated(members, trial.free)))
        elif best_shortfall is None or trial.scheduled > best_shortfall[0]:
            best_shortfall = (trial.scheduled, trial.remaining)
    if not feasible:
        if best_shortfall is None and closest is not None:
            trial = _try(nodes, scorer, closest[1], pods, min_count)
            best_shortfall = (trial.scheduled, trial.remaining)
        return Decision(reason=_refusal(key, len(placements), min_count, best_shortfall), crowded=crowded)
    chosen, tied = _best(feasible)
    if tied:
        notes.append(
            f"{fit.name}: {tied + 1} placements score alike; kube-scheduler picks one of them at random, wmap"
            " the first in node order"
        )
    trial = _try(nodes, scorer, chosen.members, pods, min_count)
    where: dict[int, int] = {}
    for entry, placed in zip(pods, trial.placed, strict=True):
        for node, count in placed.items():
            nodes.consume(node, entry.request, count, entry.scheduling)
            where[node] = where.get(node, 0) + count
    if trial.scheduled < total:
        notes.append(
            f"{fit.name}: {total - trial.scheduled} of its {total} pods find no node in the chosen placement and stay"
            f" pending (minCount {min_count} is met)"
        )
    return Decision(_assignment(nodes, key, chosen, where), crowded=crowded)


def _refusal(key: str | None, count: int, min_count: int, shortfall: tuple[int, int] | None) -> str:
    """Why no placement is feasible, in the ``GangScheduling`` plugin's words."""
    scheduled, remaining = shortfall or (0, 0)
    words = f"minCount ({min_count}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"
    if key is None:
        return words
    if count == 0:
        return f"no node carries the topology key {key}: kube-scheduler has no placement for the group"
    return f"no placement by {key} is feasible ({count} tried); in the best, {words}"


@dataclass
class _Trial:
    """The pods of a group scheduled one by one in a placement, on copies of the nodes' free resources.

    Attributes:
        placed: per pod set, the pods per node.
        free: the free resources of the nodes the pods went to, after them.
        scheduled: pods scheduled.
        remaining: pods not tried when ``PlacementFeasible`` stopped it (0 when every pod was tried).
    """

    placed: list[dict[int, int]] = field(default_factory=list)
    free: dict[int, dict[str, Amount]] = field(default_factory=dict)
    scheduled: int = 0
    remaining: int = 0


def _try(nodes: NodeTree, scorer: _Scorer, members: Sequence[int], pods: Sequence[_Pods], min_count: int) -> _Trial:
    """The pods scheduled one by one in a placement, until ``PlacementFeasible`` rejects it.

    Nothing is consumed on the tree: each placement is tried on copies of the free resources of the
    nodes its pods land on (kube-scheduler assumes them in a snapshot), the chosen one is consumed by
    the caller.
    """
    trial = _Trial(remaining=sum(entry.count for entry in pods))
    for entry in pods:
        placed: dict[int, int] = {}
        trial.placed.append(placed)
        flags, _ = nodes.eligible(entry.scheduling)
        request = entry.request
        key = scorer.request_id(request)
        heap: list[tuple[int, int]] = []
        for node in members:
            if flags[node]:
                fits = _score(scorer, trial, node, request, key)
                if fits is not None:
                    heap.append((-fits, node))
        heapq.heapify(heap)
        for _ in range(entry.count):
            trial.remaining -= 1
            chosen = heapq.heappop(heap)[1] if heap else None
            if chosen is not None:
                left = trial.free.get(chosen)
                trial.free[chosen] = subtract(left if left is not None else nodes.free(chosen), request, 1)
                placed[chosen] = placed.get(chosen, 0) + 1
                trial.scheduled += 1
                score = _score(scorer, trial, chosen, request, key)
                if score is not None:  # the node holds another pod: back in line with its new score
                    heapq.heappush(heap, (-score, chosen))
            elif trial.scheduled + trial.remaining < min_count:
                return trial  # Unschedulable: minCount cannot be satisfied
    return trial


def _score(scorer: _Scorer, trial: _Trial, node: int, request: dict[str, Amount], key: int) -> int | None:
    """The pod's score on the node as the trial left it (cached while no pod of the trial is on it)."""
    left = trial.free.get(node)
    if left is None:
        return scorer.least_allocated(node, request, key)
    return _least_score(left, scorer.allocatable(node), request)


def _least_score(free: Mapping[str, Amount], allocatable: Sequence[Amount], request: dict[str, Amount]) -> int | None:
    """``NodeResourcesFit``'s ``LeastAllocated`` pod score on a node with ``free``, or None when the pod does not fit.

    ``leastRequestedScore`` (``noderesources/least_allocated.go``): per resource,
    ``(allocatable - requested) * 100 / allocatable`` with the pod counted, weighted mean, integers.
    """
    if capacity_of(free, request) < 1:
        return None
    total = weights = 0
    for (name, weight), capacity in zip(SCORED_RESOURCES, allocatable, strict=True):
        if capacity <= 0:
            continue
        left = free.get(name, 0) - request.get(name, 0)
        total += max(0, int(left * MAX_SCORE // capacity)) * weight
        weights += weight
    return total // weights if weights else 0


def _best(feasible: Sequence[_Candidate]) -> tuple[_Candidate, int]:
    """``findBestPodGroupPlacement``: one feasible placement unscored, else the highest total score.

    ``PodGroupPodsCount`` normalizes each count against the highest: ``count * 100 / max``
    (``NormalizePlacementScore``). Returns the best and how many others tie with it.
    """
    if len(feasible) == 1:
        return feasible[0], 0
    top = max(candidate.scheduled for candidate in feasible)
    totals = [candidate.scheduled * MAX_SCORE // top + candidate.fit_score for candidate in feasible]
    best = max(totals)
    first = totals.index(best)
    return feasible[first], totals.count(best) - 1


def _assignment(nodes: NodeTree, key: str | None, chosen: _Candidate, where: Mapping[int, int]) -> Assignment:
    """The chosen placement's pods per node, named by its domain: a tree domain when it is one, else the value."""
    ordered = sorted(where, key=lambda node: nodes.paths[-1][node])
    per_node = [NodePods(nodes.nodes[node].name, where[node]) for node in ordered]
    if key is None or chosen.value is None:
        return Assignment(domain=None, level=None, nodes=per_node)
    found = nodes.common_domain(list(chosen.members))
    if found is not None and key in nodes.levels and found[0] == nodes.levels.index(key):
        return Assignment(domain=nodes.display(*found), level=key, nodes=per_node)
    return Assignment(domain=chosen.value, level=key, nodes=per_node)
