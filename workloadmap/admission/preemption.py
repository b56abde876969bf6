"""Which admitted Workloads Kueue's classical preemption would take, and the oracle built on it.

The candidates and the search are those of ``pkg/scheduler/preemption``:

* same ClusterQueue, when ``withinClusterQueue`` is not ``Never`` (policy ``LowerPriority``:
  lower priority; ``LowerOrNewerEqualPriority``: also equal priority and queued later);
* other ClusterQueues of the cohort tree that are over their quota for the flavor-resources to
  free, when ``reclaimWithinCohort`` is not ``Never``, walking from the parent to the root
  (``collectCandidatesForHierarchicalReclaim``); ``borrowWithinCohort`` decides whether the
  preemptor may still borrow after taking them (``classifyPreemptionVariant``);
* ordered evicted first, other queues before its own, lower priority first, the most recently
  admitted first (``CandidatesOrdering``), then removed one by one until the request fits and
  the unneeded ones put back (``classicalPreemptions``, ``fillBackWorkloads``).

:func:`simulate` is the oracle the flavor assigner asks per flavor-resource
(``preemption_oracle.go``): no candidates, preemption inside the ClusterQueue, or reclaim from
the cohort, with the borrowing level left after the preemptions.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from .objects import ANY, LOWER_OR_NEWER_EQUAL, LOWER_PRIORITY, NEVER, ClusterQueue, FlavorResource, QueuedWorkload
from .quota import Node, QuotaTree

__all__ = ["Preemptor", "Target", "Preemptee", "Admitted", "NO_CANDIDATES", "PREEMPT", "RECLAIM"]

NO_CANDIDATES, PREEMPT, RECLAIM = "NoCandidates", "Preempt", "Reclaim"
IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

_WITHIN_CQ, _HIERARCHICAL, _WITHOUT_BORROWING, _WHILE_BORROWING = range(1, 5)
_REASONS = {
    _WITHIN_CQ: IN_CLUSTER_QUEUE,
    _HIERARCHICAL: IN_COHORT_RECLAMATION,
    _WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
    _WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING,
}


@dataclass(frozen=True)
class Preemptee:
    """What the policies compare of the Workload that wants room: priority and queue-order time."""

    priority: int
    queued_at: float


@dataclass(frozen=True)
class Target:
    """An admitted Workload preemption would evict, and Kueue's reason (``InClusterQueue`` ...)."""

    workload: QueuedWorkload
    reason: str


@dataclass(frozen=True)
class _Candidate:
    workload: QueuedWorkload
    lca: Node | None
    variant: int


class Admitted:
    """The admitted Workloads of each ClusterQueue, indexed by the flavor-resources they use.

    Preemption looks only at Workloads using a flavor-resource it must free
    (``WorkloadUsesResources``); the index finds them without scanning every Workload.
    """

    def __init__(self) -> None:
        self.by_queue: dict[str, list[QueuedWorkload]] = {}
        self._by_resource: dict[str, dict[FlavorResource, list[QueuedWorkload]]] = {}
        self.ranks: dict[int, tuple] = {}

    def add(self, workload: QueuedWorkload, reserved_at: float) -> None:
        """A Workload now holding quota in its ClusterQueue, its quota reserved at ``reserved_at``.

        Its place in ``CandidatesOrdering`` among Workloads of its kind (all in the preemptor's
        queue, or all in others) is fixed from now: evicted first, lower priority, the most
        recently admitted, then the UID.
        """
        queue = workload.cluster_queue or ""
        self.ranks[id(workload)] = (not workload.evicted, workload.priority, -reserved_at, workload.uid)
        self.by_queue.setdefault(queue, []).append(workload)
        index = self._by_resource.setdefault(queue, {})
        for fr in {(flavor, resource) for assigned in workload.flavors for resource, flavor in assigned.items()}:
            index.setdefault(fr, []).append(workload)

    def using(self, queue: str, frs: set[FlavorResource]) -> list[QueuedWorkload]:
        """The queue's Workloads that use any of ``frs``, in the order they were admitted."""
        index = self._by_resource.get(queue, {})
        found = [workload for fr in frs for workload in index.get(fr, ())]
        if len(frs) > 1:
            found = list({id(workload): workload for workload in found}.values())
        return found


def satisfies(policy: str, preemptor: Preemptee, candidate: QueuedWorkload, queued_at: float) -> bool:
    """``SatisfiesPreemptionPolicy``."""
    lower = preemptor.priority > candidate.priority
    if policy == LOWER_PRIORITY:
        return lower
    if policy == LOWER_OR_NEWER_EQUAL:
        return lower or (preemptor.priority == candidate.priority and preemptor.queued_at < queued_at)
    return policy == ANY


class Preemptor:
    """Preemption candidates and targets on one quota tree with its admitted Workloads.

    Args:
        tree: the quota tree (usage is removed and restored while searching).
        admitted: the admitted Workloads of each ClusterQueue.
        times: ``(queue-order time, quota-reservation time)`` of a Workload, by key.
    """

    def __init__(
        self,
        tree: QuotaTree,
        admitted: Admitted,
        times: Mapping[str, tuple[float, float]],
    ) -> None:
        self.tree = tree
        self.admitted = admitted
        self.times = times
        self.epoch = 0
        self._memo: dict[tuple, list[Target]] = {}

    def changed(self) -> None:
        """The quota tree's usage or the admitted Workloads changed: earlier searches no longer hold."""
        self.epoch += 1
        self._memo.clear()

    # -- candidates -----------------------------------------------------------------------------

    def _variant(
        self, cq: ClusterQueue, who: Preemptee, candidate: QueuedWorkload, frs: set[FlavorResource], advantage: bool
    ) -> int:
        """``classifyPreemptionVariant`` for a candidate already known to use ``frs``."""
        same = candidate.cluster_queue == cq.name
        policy = cq.preemption.within_cluster_queue if same else cq.preemption.reclaim_within_cohort
        if not satisfies(policy, who, candidate, self.times.get(candidate.key, (0.0, 0.0))[0]):
            return 0
        if same:
            return _WITHIN_CQ
        if advantage:
            return _HIERARCHICAL
        if cq.preemption.borrow_within_cohort == NEVER:
            return _WITHOUT_BORROWING
        threshold = cq.preemption.max_priority_threshold
        if candidate.priority >= who.priority or (threshold is not None and candidate.priority > threshold):
            return _WITHOUT_BORROWING
        return _WHILE_BORROWING

    def _from_queue(
        self, cq: ClusterQueue, queue: str, lca: Node | None, who: Preemptee, frs: set[FlavorResource], advantage: bool
    ) -> list[_Candidate]:
        found = []
        for workload in self.admitted.using(queue, frs):
            variant = self._variant(cq, who, workload, frs, advantage)
            if variant:
                found.append(_Candidate(workload, lca, variant))
        return found

    def _in_subtree(
        self, cq: ClusterQueue, current: Node, lca: Node, skip: Node | None, context: tuple, result: list[_Candidate]
    ) -> None:
        who, frs, advantage = context
        for child in current.children:
            if child.is_queue:
                if child.name != cq.name and not child.within_nominal(frs):
                    result.extend(self._from_queue(cq, child.name, lca, who, frs, advantage))
            elif child is not skip and not child.within_nominal(frs):
                self._in_subtree(cq, child, lca, skip, context, result)

    def _hierarchy(
        self, cq: ClusterQueue, who: Preemptee, frs: set[FlavorResource], requests: Mapping[FlavorResource, int]
    ) -> tuple[list[_Candidate], list[_Candidate]]:
        node = self.tree.queues[cq.name]
        hierarchy: list[_Candidate] = []
        priority: list[_Candidate] = []
        if node.parent is None or cq.preemption.reclaim_within_cohort == NEVER:
            return hierarchy, priority
        advantage, remaining = node.fits_in_quota(requests)
        previous = None
        for root in node.ancestors():
            chosen = hierarchy if advantage else priority
            self._in_subtree(cq, root, root, previous, (who, frs, advantage), chosen)
            fits, remaining = root.fits_in_quota(remaining)
            advantage = advantage or fits
            previous = root
        return hierarchy, priority

    def _candidates(
        self, cq: ClusterQueue, who: Preemptee, frs: set[FlavorResource], requests: Mapping[FlavorResource, int]
    ) -> tuple[list[_Candidate], bool, bool]:
        same = (
            [] if cq.preemption.within_cluster_queue == NEVER else self._from_queue(cq, cq.name, None, who, frs, False)
        )
        hierarchy, priority = self._hierarchy(cq, who, frs, requests)
        ranks = self.admitted.ranks  # within each list the queue test of CandidatesOrdering is the same for all
        lists = [sorted(found, key=lambda c: ranks[id(c.workload)]) for found in (hierarchy, priority, same)]
        ordered = [c for found in lists for c in found if c.workload.evicted]
        ordered += [c for found in lists for c in found if not c.workload.evicted]
        return ordered, not hierarchy and not priority, not hierarchy

    def _valid(self, cq: ClusterQueue, candidate: _Candidate, borrow: bool, frs: set[FlavorResource]) -> bool:
        """``candidateIsValid``: earlier removals may bring a borrowing queue back within its quota."""
        if candidate.workload.cluster_queue == cq.name:
            return True
        if borrow and candidate.variant == _WITHOUT_BORROWING:
            return False
        node = self.tree.queues.get(candidate.workload.cluster_queue or "")
        if node is None or node.within_nominal(frs):
            return False
        for ancestor in node.ancestors():
            if ancestor is candidate.lca:
                break
            if ancestor.within_nominal(frs):
                return False
        return True

    # -- the search -----------------------------------------------------------------------------

    def _fits(self, cq: ClusterQueue, requests: Mapping[FlavorResource, int], borrow: bool) -> bool:
        node = self.tree.queues[cq.name]
        for fr, value in requests.items():
            if not borrow and node.borrowing_with(fr, value):
                return False
            if value > max(0, node.available(fr)):
                return False
        return True

    def _parts(self, workload: QueuedWorkload, keys: Collection[FlavorResource]) -> tuple[Node | None, list]:
        """The workload's queue node and its usage of ``keys``: only those decide whether a request fits."""
        node = self.tree.queues.get(workload.cluster_queue or "")
        return node, [(fr, value) for fr, value in workload.usage.items() if value and fr in keys]

    def _remove(self, workload: QueuedWorkload, keys: Collection[FlavorResource]) -> None:
        node, parts = self._parts(workload, keys)
        if node is not None:
            for fr, value in parts:
                node.remove_usage(fr, value)

    def _add(self, workload: QueuedWorkload, keys: Collection[FlavorResource]) -> None:
        node, parts = self._parts(workload, keys)
        if node is not None:
            for fr, value in parts:
                node.add_usage(fr, value)

    def _restore(self, targets: list[Target], keys: Collection[FlavorResource]) -> None:
        for target in targets:
            self._add(target.workload, keys)

    def _attempts(self, cq: ClusterQueue, frs: set[FlavorResource], no_other: bool, no_hierarchy: bool) -> list[bool]:
        forbidden = cq.preemption.borrow_within_cohort == NEVER
        node = self.tree.queues[cq.name]
        under_nominal = all(
            cq.quotas()[fr].nominal > node.usage.get(fr, 0) if fr in cq.quotas() else False for fr in frs
        )
        if no_other or (forbidden and not under_nominal):
            return [True]
        if forbidden and no_hierarchy:
            return [False, True]
        return [True, False]

    def targets(
        self, cq: ClusterQueue, who: Preemptee, frs: set[FlavorResource], requests: Mapping[FlavorResource, int]
    ) -> list[Target]:
        """``classicalPreemptions``: the Workloads to evict so that ``requests`` fit; empty when none do.

        A search leaves the usage as it found it, so the same question on the same state (the same
        queue, resources, amounts and preemptor's priority, nothing admitted since) has the same
        answer: it is asked once (Workloads that wait one after another ask it again and again).
        """
        if cq.name not in self.tree.queues or not frs:
            return []
        newer = LOWER_OR_NEWER_EQUAL in (cq.preemption.within_cluster_queue, cq.preemption.reclaim_within_cohort)
        key = (cq.name, frozenset(frs), tuple(sorted(requests.items())), who.priority, who.queued_at if newer else 0)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._search(cq, who, frs, requests)
        return list(found)

    def _search(
        self, cq: ClusterQueue, who: Preemptee, frs: set[FlavorResource], requests: Mapping[FlavorResource, int]
    ) -> list[Target]:
        candidates, no_other, no_hierarchy = self._candidates(cq, who, frs, requests)
        if not candidates:
            return []
        keys = set(requests) | frs  # the usage of other flavor-resources decides nothing below
        for borrow in self._attempts(cq, frs, no_other, no_hierarchy):
            chosen: list[Target] = []
            for candidate in self._iterate(cq, candidates, borrow, frs):
                self._remove(candidate.workload, keys)
                chosen.append(Target(candidate.workload, _REASONS[candidate.variant]))
                if self._fits(cq, requests, borrow):
                    chosen = self._fill_back(cq, chosen, requests, borrow, keys)
                    self._restore(chosen, keys)
                    return chosen
            self._restore(chosen, keys)
        return []

    def _iterate(
        self, cq: ClusterQueue, candidates: list[_Candidate], borrow: bool, frs: set[FlavorResource]
    ) -> Iterator[_Candidate]:
        for candidate in candidates:
            if self._valid(cq, candidate, borrow, frs):
                yield candidate

    def _fill_back(
        self,
        cq: ClusterQueue,
        chosen: list[Target],
        requests: Mapping[FlavorResource, int],
        borrow: bool,
        keys: Collection[FlavorResource],
    ) -> list[Target]:
        """``fillBackWorkloads``: put back, from the second-to-last, every target the request does not need."""
        for index in range(len(chosen) - 2, -1, -1):
            workload = chosen[index].workload
            self._add(workload, keys)
            if self._fits(cq, requests, borrow):
                chosen[index] = chosen[-1]
                chosen.pop()
            else:
                self._remove(workload, keys)
        return chosen

    def simulate(self, cq: ClusterQueue, who: Preemptee, fr: FlavorResource, quantity: int) -> tuple[str, int]:
        """``SimulatePreemption``: ``(NoCandidates | Preempt | Reclaim, borrowing level after it)``."""
        node = self.tree.queues[cq.name]
        found = self.targets(cq, who, {fr}, {fr: quantity})
        if not found:
            return NO_CANDIDATES, node.borrow_height(fr, quantity)[0]
        for target in found:
            self._remove(target.workload, {fr})
        borrow = node.borrow_height(fr, quantity)[0]
        self._restore(found, {fr})
        if any(target.workload.cluster_queue == cq.name for target in found):
            return PREEMPT, borrow
        return RECLAIM, borrow
