"""Run order: what runs at the same time when a workload's pods do not all run at once.

A definition's ``run`` sections (Argo steps and DAG tasks, Tekton ``runAfter`` and ``finally``)
order sibling components: ``after`` names the siblings one waits for, ``sequential`` chains a
component's instances, ``maxConcurrent`` caps the pods of an instance. Durations are unknown
offline, so any set of siblings none of which waits for another (an *antichain* of the order) can
run together: the peak of a figure is its heaviest antichain, found exactly with a minimum cut
(weighted Dilworth: the heaviest antichain weighs the total less the largest flow through the order's
bipartite split). Replicas of a component run side by side; nesting multiplies.

:func:`run_figures` gives, for such a workload, the peak of each figure (pods, GPUs, each resource:
each at its own heaviest moment), the totals of the whole run, and the moment placement uses: the
pods at once with the most GPUs, then the most pods.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..tree import Totals
from .expand import ExpandedComponent

__all__ = ["RunFigures", "run_figures", "heaviest_antichain", "has_run_order"]

_ZERO = Fraction(0)
_MOST_SIBLINGS = 400
"""Siblings ordered exactly; beyond this many (never seen in a real workflow) they count as all at once."""

Counts = dict[int, int]
"""Pods at one moment, per pod-bearing component (by ``id``)."""


@dataclass(slots=True)
class RunFigures:
    """What an ordered workload holds at once and over its run.

    Attributes:
        peak: the most pods, GPUs and of each resource at one time (each figure at its own peak).
        over_run: every pod the run creates, one after another included.
        at_peak: per pod-bearing component (by ``id``), its pods at the placement moment: the pods
            that run at once with the most GPUs, then the most pods.
    """

    peak: Totals
    over_run: Totals
    at_peak: Counts


def has_run_order(nodes: Sequence[ExpandedComponent]) -> bool:
    """Whether any component of the expanded tree has a ``run`` section."""
    return any(node.definition.run is not None for root in nodes for node in root.walk())


def run_figures(
    nodes: Sequence[ExpandedComponent],
    leaves: Sequence[ExpandedComponent],
    over_run: Totals,
    gpu_resources: Sequence[str],
) -> RunFigures:
    """The peak figures and the placement moment of an ordered workload (``over_run``: its plain totals).

    Raises:
        InputError: components wait for each other in a cycle (the operator refuses such a workload).
    """
    by_id = {id(leaf): leaf for leaf in leaves}
    gpus = {id(leaf): leaf.demand.gpus(gpu_resources) for leaf in leaves if leaf.demand is not None}

    def peak_of(weigh: Callable[[int], Fraction]) -> Fraction:
        moment = _Orderer(weigh).siblings(nodes)
        return sum((weigh(key) * count for key, count in moment.items()), _ZERO)

    pods = peak_of(lambda key: Fraction(1))
    gpu_peak = peak_of(lambda key: gpus.get(key, _ZERO))
    resources: dict[str, Fraction] = {}
    for name in over_run.resources:
        amounts = {key: leaf.demand.requests.get(name, _ZERO) for key, leaf in by_id.items() if leaf.demand}
        amount = peak_of(lambda key, amounts=amounts: amounts.get(key, _ZERO))  # type: ignore[misc]
        if amount:
            resources[name] = amount
    # The placement moment: GPUs first (what placement is about), then pods; one pod more never outweighs a GPU.
    scale = Fraction(over_run.pods + 1)
    at_peak = _Orderer(lambda key: gpus.get(key, _ZERO) * scale + 1).siblings(nodes)
    return RunFigures(
        peak=Totals(pods=int(pods), gpus=gpu_peak, resources=resources),
        over_run=over_run,
        at_peak=at_peak,
    )


class _Orderer:
    """The heaviest moment of a subtree under one per-pod weight (memoized per node)."""

    def __init__(self, weigh: Callable[[int], Fraction]) -> None:
        self.weigh = weigh
        self._done: dict[int, Counts] = {}

    def weight(self, counts: Counts) -> Fraction:
        return sum((self.weigh(key) * count for key, count in counts.items()), _ZERO)

    def whole(self, node: ExpandedComponent) -> Counts:
        """The heaviest moment of all of ``node``'s replicas inside one replica of its parent."""
        found = self._done.get(id(node))
        if found is not None:
            return found
        one = self.one_replica(node)
        counts = {key: count * node.replicas for key, count in one.items() if count and node.replicas}
        if node.max_concurrent is not None:
            counts = self._capped(counts, node.max_concurrent)
        self._done[id(node)] = counts
        return counts

    def one_replica(self, node: ExpandedComponent) -> Counts:
        counts: Counts = {}
        if node.demand is not None and node.pods_per_replica:
            counts[id(node)] = node.pods_per_replica
        if node.children:
            for key, count in self.siblings(node.children).items():
                counts[key] = counts.get(key, 0) + count
        return counts

    def _capped(self, counts: Counts, limit: int) -> Counts:
        """At most ``limit`` pods, the heaviest kept."""
        if sum(counts.values()) <= limit:
            return counts
        kept: Counts = {}
        left = limit
        for key in sorted(counts, key=self.weigh, reverse=True):
            if left <= 0:
                break
            take = min(counts[key], left)
            kept[key] = take
            left -= take
        return kept

    def siblings(self, nodes: Sequence[ExpandedComponent]) -> Counts:
        """The heaviest moment of sibling components: their heaviest antichain under the run order."""
        moments = [self.whole(node) for node in nodes]
        edges = _order(nodes)
        if not edges or len(nodes) > _MOST_SIBLINGS:
            chosen: Sequence[int] = range(len(nodes))
        else:
            chosen = heaviest_antichain([self.weight(moment) for moment in moments], edges)
        merged: Counts = {}
        for index in chosen:
            for key, count in moments[index].items():
                merged[key] = merged.get(key, 0) + count
        return merged


def _order(nodes: Sequence[ExpandedComponent]) -> set[tuple[int, int]]:
    """``(before, after)`` index pairs among siblings: ``run.after`` names and ``sequential`` chains."""
    index_of: dict[str, int] = {}
    for index, node in enumerate(nodes):
        index_of.setdefault(node.name, index)
    edges: set[tuple[int, int]] = set()
    previous: dict[int, int] = {}  # per sequential component definition: its last instance so far
    for index, node in enumerate(nodes):
        run = node.definition.run
        if run is None:
            continue
        for name in node.after:
            before = index_of.get(name)
            if before is not None and before != index:
                edges.add((before, index))
            elif before == index:
                raise _cycle(node)
        if run.sequential:
            key = id(node.definition)
            if key in previous:
                edges.add((previous[key], index))
            previous[key] = index
    if edges:
        _check_acyclic(nodes, edges)
    return edges


def _cycle(node: ExpandedComponent) -> InputError:
    return InputError(
        f"component {node.path} waits for itself (a cycle of run.after); no pod of it could start",
        field=node.run_field(),
    )


def _check_acyclic(nodes: Sequence[ExpandedComponent], edges: set[tuple[int, int]]) -> None:
    successors: dict[int, list[int]] = {}
    incoming = [0] * len(nodes)
    for before, after in edges:
        successors.setdefault(before, []).append(after)
        incoming[after] += 1
    ready = deque(index for index, count in enumerate(incoming) if count == 0)
    seen = 0
    while ready:
        current = ready.popleft()
        seen += 1
        for nxt in successors.get(current, ()):
            incoming[nxt] -= 1
            if incoming[nxt] == 0:
                ready.append(nxt)
    if seen < len(nodes):
        raise _cycle(nodes[next(index for index, count in enumerate(incoming) if count > 0)])


def heaviest_antichain(weights: Sequence[Fraction], edges: set[tuple[int, int]]) -> list[int]:
    """The indexes of the heaviest set of elements none of which precedes another (``edges``: an acyclic order).

    The order's transitive closure split into two copies of each element: source -> left copy and
    right copy -> sink carry the element's weight, left(u) -> right(v) is unbounded where u precedes
    v. The heaviest antichain weighs the total less the largest flow; it is the elements whose left
    copy the source still reaches in the residual graph and whose right copy it does not.
    """
    count = len(weights)
    closure = _closure(count, edges)
    infinite = sum(weights, _ZERO) + 1
    source, sink = 2 * count, 2 * count + 1
    capacity: dict[tuple[int, int], Fraction] = {}
    neighbours: list[set[int]] = [set() for _ in range(2 * count + 2)]

    def link(start: int, end: int, amount: Fraction) -> None:
        capacity[(start, end)] = capacity.get((start, end), _ZERO) + amount
        capacity.setdefault((end, start), _ZERO)
        neighbours[start].add(end)
        neighbours[end].add(start)

    for index, weight in enumerate(weights):
        link(source, index, weight)
        link(count + index, sink, weight)
        for later in closure[index]:
            link(index, count + later, infinite)
    while True:  # Edmonds-Karp: shortest augmenting paths
        parent = {source: source}
        queue = deque([source])
        while queue and sink not in parent:
            current = queue.popleft()
            for nxt in neighbours[current]:
                if nxt not in parent and capacity[(current, nxt)] > 0:
                    parent[nxt] = current
                    queue.append(nxt)
        if sink not in parent:
            break
        path = []
        node = sink
        while node != source:
            path.append((parent[node], node))
            node = parent[node]
        amount = min(capacity[edge] for edge in path)
        for start, end in path:
            capacity[(start, end)] -= amount
            capacity[(end, start)] += amount
    reached = set(parent)
    return [index for index in range(count) if index in reached and count + index not in reached]


def _closure(count: int, edges: set[tuple[int, int]]) -> list[set[int]]:
    """Per element, every element that comes after it (directly or through others)."""
    successors: list[set[int]] = [set() for _ in range(count)]
    for before, after in edges:
        successors[before].add(after)
    closure: list[set[int] | None] = [None] * count

    def reach(index: int) -> set[int]:
        found = closure[index]
        if found is None:
            found = set()
            stack = list(successors[index])
            while stack:
                current = stack.pop()
                if current not in found:
                    found.add(current)
                    stack.extend(successors[current])
            closure[index] = found
        return found

    return [reach(index) for index in range(count)]
