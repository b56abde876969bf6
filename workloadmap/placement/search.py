"""The exact answer for pods of several shapes: counting bounds first, then a bounded search.

A node of one type can hold a set of *configurations*: per shape, how many of its pods sit on the
node together (capped at the demand). For any non-negative weights ``w`` over the shapes, a
placement gives ``sum(w[i] * demand[i]) <= sum over node types of count * max(w . c for c in
configurations)``: each node carries at most the heaviest configuration it can hold. Two families of
weights turn this into counting arguments that decide most mixed gangs without any search:

* **pods that cannot share a node**: the weights of a set of shapes are 1 (0 elsewhere); when no node
  holds two pods of the set, the set's pods need one node each. Every subset of shapes is tried
  (pairs, triples ... up to :data:`MAX_SUBSET_SHAPES` shapes; beyond that, single shapes and all of
  them).
* **per-resource totals**: the weights are each shape's request of one resource, so a node counts
  only what pods can actually use of it (3 GPUs of a 4-GPU node when every pod asks for 3).

When no bound proves a no, a depth-first search chooses, node type by node type, how many nodes take
each configuration (most first), pruning every branch where the same bounds fail for what is left.
A success is a real placement. The search counts its steps; past its budget the answer is unknown
(None), never a fit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from ..budgets import check_deadline
from .packing import Amount, Shape, capacity_of, subtract
from .relaxation import EPSILON as _EPSILON
from .relaxation import relaxation

__all__ = ["MAX_SUBSET_SHAPES", "Proof", "Decision", "decide", "explain"]

MAX_SUBSET_SHAPES = 8
"""Up to this many shapes, every subset is a counting bound (2**8 - 1 = 255 weight vectors)."""


class _OutOfBudget(Exception):
    pass


@dataclass(frozen=True)
class Proof:
    """A counting argument that the pods cannot fit.

    Attributes:
        shapes: the shapes the argument is about (positions in the shapes given).
        resource: None when pods are counted; else the resource whose requests are summed.
        need: the pods (or the amount) the shapes need.
        have: the most the nodes can hold of them.
        alone: every node holds at most one pod of these shapes (pods that cannot share a node).
        weighted: the pods are counted with weights (the linear relaxation's), not one each.
    """

    shapes: tuple[int, ...]
    resource: str | None
    need: Amount
    have: Amount
    alone: bool = False
    weighted: bool = False

    def describe(self, shapes: Sequence[Shape]) -> str:
        """The argument in words, naming the shapes by their requests."""
        named = [_shape_text(shapes[position]) for position in self.shapes]
        which = " + ".join(named)
        if self.weighted:
            return (
                f"no packing of these pods ({which}) exists: even splitting nodes into fractions, the ways one "
                "node can hold them do not cover them all"
            )
        if self.resource is not None:
            return (
                f"{self.resource}: the pods ({which}) request {_amount(self.need)} in all, and the nodes offer at "
                f"most {_amount(self.have)} usable by them"
            )
        if self.alone and len(self.shapes) > 1:
            return (
                f"pods of {len(self.shapes)} shapes cannot share a node ({which}): they need {_amount(self.need)} "
                f"nodes, {_amount(self.have)} can take one"
            )
        if self.alone:
            return (
                f"no node holds two of these pods ({which}): {_amount(self.have)} of {_amount(self.need)} find a node"
            )
        return f"the nodes hold at most {_amount(self.have)} of these {_amount(self.need)} pods ({which})"


@dataclass(frozen=True)
class Decision:
    """The search's answer: True, False (with the proof, when a bound gave it) or None (budget spent)."""

    fits: bool | None
    proof: Proof | None = None
    steps: int = 0
    packing: tuple[tuple[int, tuple[int, ...], int], ...] = ()
    """When it fits: ``(node type position, pods per shape on one node, nodes)`` covering every pod."""


def _amount(value: Amount) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _shape_text(shape: Shape) -> str:
    request, count = shape
    text = ", ".join(f"{name}: {_amount(amount)}" for name, amount in sorted(request.items()))
    return f"{count} x {{{text}}}"


class _Budget:
    def __init__(self, budget: int) -> None:
        self.left = budget
        self.spent = 0
        self.next_check = 4096

    def spend(self, units: int = 1) -> None:
        """Charge ``units`` steps; past the budget the search stops (and at the command's deadline)."""
        self.left -= units
        self.spent += units
        if self.left < 0:
            raise _OutOfBudget
        if self.spent >= self.next_check:
            self.next_check = self.spent + 4096
            check_deadline("placement search")


def _configurations(free: dict[str, Amount], shapes: Sequence[Shape], budget: _Budget) -> list[tuple[int, ...]]:
    """The maximal configurations of one node: no shape with demand left fits beside them."""
    found: list[tuple[int, ...]] = []
    last = len(shapes) - 1

    def extend(index: int, left: dict[str, Amount], counts: list[int]) -> None:
        budget.spend()
        request, demand = shapes[index]
        most = min(demand, capacity_of(left, request))
        if index == last:
            counts.append(most)
            rest = subtract(left, request, most) if most else left
            if any(counts[i] < shapes[i][1] and capacity_of(rest, shapes[i][0]) for i in range(last)):
                counts.pop()
                return  # another shape still fits: not maximal
            if any(counts):
                found.append(tuple(counts))
            counts.pop()
            return
        for take in range(most, -1, -1):
            counts.append(take)
            extend(index + 1, subtract(left, request, take) if take else left, counts)
            counts.pop()

    extend(0, dict(free), [])
    return found


def _weights(shapes: Sequence[Shape]) -> list[tuple[tuple[Amount, ...], tuple[int, ...], str | None]]:
    """Weight vectors: subsets of shapes (pod counts), then each resource's requests."""
    size = len(shapes)
    subsets: list[tuple[int, ...]] = []
    if size <= MAX_SUBSET_SHAPES:
        for width in range(1, size + 1):
            subsets.extend(combinations(range(size), width))
    else:
        subsets = [(i,) for i in range(size)] + [tuple(range(size))]
    weights: list[tuple[tuple[Amount, ...], tuple[int, ...], str | None]] = [
        (tuple(1 if i in subset else 0 for i in range(size)), subset, None) for subset in subsets
    ]
    for resource in sorted({name for request, _ in shapes for name in request}):
        vector = tuple(shapes[i][0].get(resource, 0) for i in range(size))
        support = tuple(i for i in range(size) if vector[i])
        if len(support) > 1:  # one shape alone: its pod count bound is as strong
            weights.append((vector, support, resource))
    return weights


def _dot(weight: tuple[Amount, ...], vector: Sequence[int]) -> Amount:
    return sum((w * v for w, v in zip(weight, vector, strict=True) if w and v), 0)


class _Search:
    """One question: ``shapes`` onto node types, with their configurations and bound tables."""

    def __init__(self, shapes: Sequence[Shape], node_types: Sequence[Shape], budget: _Budget) -> None:
        self.shapes = shapes
        self.budget = budget
        total_pods = sum(count for _, count in shapes)
        found = []
        self.positions: list[int] = []  # each searched type's position among the node types given
        for position, (free, count) in enumerate(node_types):
            configs = _configurations(free, shapes, budget)
            if configs:
                found.append((configs, min(count, total_pods)))
                self.positions.append(position)
        self.weights = _weights(shapes)
        shares = _shares(shapes, found)
        # Configurations covering the scarce shapes first: fewest nodes for what is hardest to place.
        self.configs = [
            sorted(configs, key=lambda c: sum(s * n for s, n in zip(shares, c, strict=True)), reverse=True)
            for configs, _ in found
        ]
        self.counts = [count for _, count in found]
        # suffix[t][j][w]: the heaviest of configurations j.. of type t for weight w.
        self.suffix: list[list[list[Amount]]] = []
        for configs in self.configs:
            rows: list[list[Amount]] = [[0] * len(self.weights)]
            for config in reversed(configs):
                previous = rows[-1]
                rows.append([max(previous[k], _dot(w, config)) for k, (w, _, _) in enumerate(self.weights)])
            rows.reverse()
            self.suffix.append(rows)
        self._use(self.counts)

    def _use(self, counts: Sequence[int]) -> None:
        """Search with ``counts`` nodes of each type: the bound tables of what types t+1.. offer."""
        self.limits = list(counts)
        self.tail: list[list[Amount]] = [[0] * len(self.weights) for _ in range(len(self.configs) + 1)]
        for t in range(len(self.configs) - 1, -1, -1):
            self.tail[t] = [self.tail[t + 1][k] + counts[t] * self.suffix[t][0][k] for k in range(len(self.weights))]
        self.failed: set[tuple[int, int, int, tuple[int, ...]]] = set()
        self.path: list[tuple[int, tuple[int, ...], int]] = []  # the packing found, deepest first

    def proof(self, demand: Sequence[int]) -> Proof | None:
        """The strongest bound the demand breaks on the whole of the nodes (pod counts before amounts)."""
        best: tuple[tuple[bool, Fraction], Proof] | None = None
        for k, (weight, support, resource) in enumerate(self.weights):
            need = _dot(weight, demand)
            have = self.tail[0][k]
            if need <= have:
                continue
            alone = resource is None and all(self.suffix[t][0][k] <= 1 for t in range(len(self.configs)))
            # Counting pods reads best; among those, the largest shortfall names the real conflict.
            rank = (resource is None, Fraction(need - have) if resource is None else Fraction(need) / max(have, 1))
            if best is None or rank > best[0]:
                best = (rank, Proof(support, resource, need, have, alone))
        return best[1] if best is not None else None

    def weighted_proof(self, weight: Sequence[Fraction], demand: Sequence[int]) -> Proof | None:
        """The bound of one weight vector (from the LP), checked exactly; None when it does not hold."""
        need = _dot(tuple(weight), demand)
        have = sum(
            (count * max(_dot(tuple(weight), config) for config in configs))
            for configs, count in zip(self.configs, self.counts, strict=True)
        )
        if need <= have:
            return None
        support = tuple(i for i, w in enumerate(weight) if w)
        return Proof(support, None, need, have, weighted=True)

    def _pruned(self, t: int, j: int, left: int, demand: Sequence[int]) -> bool:
        row = self.suffix[t][j]
        tail = self.tail[t + 1]
        for k, (weight, _, _) in enumerate(self.weights):
            if _dot(weight, demand) > left * row[k] + tail[k]:
                return True
        return False

    def solve(self, demand: tuple[int, ...], counts: Sequence[int]) -> bool:
        """Whether ``counts`` nodes of each type hold ``demand`` (depth-first, budgeted); ``path`` has the packing."""
        self._use(counts)
        self.path = []
        return bool(self.configs) and self._run(0, 0, self.limits[0], demand)

    def _run(self, t: int, j: int, left: int, demand: tuple[int, ...]) -> bool:
        """Whether node types t.. (``left`` nodes of type t, configurations j.. of it) hold ``demand``."""
        if not any(demand):
            return True
        configs = self.configs[t]
        if j == len(configs) or left == 0:
            return t + 1 < len(self.configs) and self._run(t + 1, 0, self.limits[t + 1], demand)
        self.budget.spend()
        key = (t, j, left, demand)
        if key in self.failed or self._pruned(t, j, left, demand):
            return False
        config = configs[j]
        useful = max((-(-need // have) for need, have in zip(demand, config, strict=True) if need and have), default=0)
        for take in range(min(left, useful), -1, -1):
            rest = tuple(max(0, need - take * have) for need, have in zip(demand, config, strict=True))
            if self._run(t, j + 1, left - take, rest):
                if take:
                    self.path.append((self.positions[t], config, take))
                return True
        self.failed.add(key)
        return False


def _shares(shapes: Sequence[Shape], found: Sequence[tuple[list[tuple[int, ...]], int]]) -> list[Fraction]:
    """Per shape, how scarce it is: its demand over how many pods of it the nodes hold."""
    shares = []
    for position, (_, demand) in enumerate(shapes):
        most = sum(max(config[position] for config in configs) * count for configs, count in found)
        shares.append(Fraction(demand, most) if most else Fraction(demand))
    return shares


def _chosen(search: _Search, rows: Sequence[Sequence[int]]) -> list[tuple[int, tuple[int, ...], int]]:
    return [
        (search.positions[t], config, times)
        for t, (configs, row) in enumerate(zip(search.configs, rows, strict=True))
        for config, times in zip(configs, row, strict=True)
        if times
    ]


def _rounded(
    search: _Search, solution: Sequence[Sequence[float]], demand: tuple[int, ...]
) -> list[tuple[int, tuple[int, ...], int]] | None:
    """Round the LP's packing: up when the nodes allow it, else down and search what is left."""
    up = [[math.ceil(x - _EPSILON) if x > _EPSILON else 0 for x in row] for row in solution]
    if all(sum(row) <= count for row, count in zip(up, search.counts, strict=True)) and _covers(search, up, demand):
        return _chosen(search, up)
    down = [[math.floor(x + _EPSILON) for x in row] for row in solution]
    for row, count in zip(down, search.counts, strict=True):
        while sum(row) > count:  # float noise: give a node back
            row[row.index(max(row))] -= 1
    rest = list(demand)
    for configs, row in zip(search.configs, down, strict=True):
        for config, times in zip(configs, row, strict=True):
            rest = [max(0, need - times * have) for need, have in zip(rest, config, strict=True)]
    left = [count - sum(row) for row, count in zip(down, search.counts, strict=True)]
    if search.solve(tuple(rest), left):
        return _chosen(search, down) + search.path
    return None


def _covers(search: _Search, chosen: Sequence[Sequence[int]], demand: Sequence[int]) -> bool:
    got = [0] * len(demand)
    for configs, row in zip(search.configs, chosen, strict=True):
        for config, times in zip(configs, row, strict=True):
            for i, have in enumerate(config):
                got[i] += times * have
    return all(have >= need for have, need in zip(got, demand, strict=True))


def _threshold_proof(shapes: Sequence[Shape], node_types: Sequence[Shape]) -> Proof | None:
    """Pods asking for at least ``x`` of a resource: a node of ``f`` free holds at most ``f // x`` of them.

    Tried for every resource and every amount a shape asks for (the shapes asking at least that
    much), with each node's pod slots and per-shape capacities as further caps. Cheap, and valid
    however many shapes there are, so it decides gangs whose configurations are too many to list.
    """
    for resource in sorted({name for request, _ in shapes for name in request}):
        for threshold in sorted({request[resource] for request, _ in shapes if resource in request}):
            members = [i for i, (request, _) in enumerate(shapes) if request.get(resource, 0) >= threshold]
            need = sum(shapes[i][1] for i in members)
            have = 0
            alone = True
            for free, count in node_types:
                most = int(free.get(resource, 0) // threshold)
                most = min(most, sum(capacity_of(free, shapes[i][0]) for i in members))
                alone = alone and most <= 1
                have += most * count
            if need > have:
                return Proof(tuple(members), None, need, have, alone)
    return None


def decide(shapes: Sequence[Shape], node_types: Sequence[Shape], budget: int) -> Decision:
    """Decide whether ``shapes`` (clean requests with counts) fit ``node_types`` (free vectors with counts).

    Counting bounds first; then the LP relaxation of the configurations (a certificate of "no", or a
    fractional packing to round); then a depth-first search, on what rounding left, else on all.

    Returns:
        The decision: ``fits`` True (a placement exists), False (with the counting ``proof``) or
        None when ``budget`` steps were spent first.
    """
    tracker = _Budget(budget)
    demand = tuple(count for _, count in shapes)
    proof = _threshold_proof(shapes, node_types)  # needs no configurations: holds for any number of shapes
    if proof is not None:
        return Decision(False, proof, 0)
    try:
        search = _Search(shapes, node_types, tracker)
        proof = search.proof(demand)
        if proof is not None:
            return Decision(False, proof, tracker.spent)
        if not search.configs:
            return Decision(not any(demand), None, tracker.spent)
        relaxed = relaxation(search.configs, search.counts, demand, tracker.spend)
        if relaxed.weight is not None:
            proof = search.weighted_proof(relaxed.weight, demand)
            if proof is not None:
                return Decision(False, proof, tracker.spent)
        packing = _rounded(search, relaxed.solution, demand) if relaxed.solution is not None else None
        if packing is None and search.solve(demand, search.counts):
            packing = search.path
    except _OutOfBudget:
        return Decision(None, None, tracker.spent)
    if packing is None:
        return Decision(False, None, tracker.spent)
    return Decision(True, None, tracker.spent, tuple(packing))


def explain(shapes: Sequence[Shape], node_types: Sequence[Shape], budget: int) -> str | None:
    """A counting argument, in words, for why ``shapes`` cannot fit ``node_types``; None when none applies."""
    decision = decide(shapes, node_types, budget)
    return decision.proof.describe(shapes) if decision.proof is not None else None
