"""Fitting: can a set of pods fit onto a set of nodes?

Pods of one shape are decided exactly by counting. Mixed shapes use necessary aggregate checks
(an exact "no"), first-fit heuristics that build a real placement (an exact "yes"), then counting
bounds and a bounded exact search (:mod:`.search`); only when that search runs out of budget is
the answer unknown (``None``), and unknown is never reported as a fit.

Work happens on node *types* (identical free vectors with a multiplicity), so the cost follows
the number of distinct node shapes, not the node count. The primitives (requests, free vectors,
capacities) are :mod:`.packing`'s, below both this module and the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..budgets import DEFAULT_BUDGETS, active
from ..resources import DEFAULT_GPU_RESOURCES, count_gpus
from .packing import SLOT, Amount, PodShapes, Resources, Shape, capacity_of, clean_free, merge_shapes, subtract
from .search import decide

__all__ = ["DEFAULT_BUDGET", "pack_types", "pack_pods", "pods_fit"]

DEFAULT_BUDGET = DEFAULT_BUDGETS.search_steps
"""Steps (configurations enumerated, search nodes visited) the exact search may spend on one question."""


def _merge_nodes(nodes: Sequence[Resources]) -> list[Shape]:
    merged: dict[tuple, int] = {}
    for free in nodes:
        key = clean_free(free)
        merged[key] = merged.get(key, 0) + 1
    return [(dict(key), count) for key, count in merged.items()]


def _size_key(free: Resources, gpu_resources: Sequence[str]) -> tuple[Fraction, Fraction, Fraction]:
    """Order nodes by how much they offer: GPUs first, then cpu, then memory."""
    return (count_gpus(free, gpu_resources), Fraction(free.get("cpu", 0)), Fraction(free.get("memory", 0)))


def _greedy(
    shapes: list[Shape],
    node_types: list[Shape],
    largest_nodes_first: bool,
    gpu_resources: Sequence[str],
) -> bool:
    """First-fit over node types: each shape in turn fills nodes up to their capacity.

    Works on node types with multiplicities, so it costs O(types x shapes) whatever the node
    count. A success is a real placement, so ``True`` is always right.
    """
    pool = [(dict(free), count) for free, count in node_types]
    for request, count in shapes:
        pool.sort(key=lambda entry: _size_key(entry[0], gpu_resources), reverse=largest_nodes_first)
        remaining = count
        next_pool: list[Shape] = []
        for free, multiplicity in pool:
            capacity = capacity_of(free, request) if remaining else 0
            if capacity == 0:
                next_pool.append((free, multiplicity))
                continue
            full_nodes = min(multiplicity, remaining // capacity)
            if full_nodes:
                remaining -= full_nodes * capacity
                next_pool.append((subtract(free, request, capacity), full_nodes))
            untouched = multiplicity - full_nodes
            if untouched and remaining:
                # Fewer than `capacity` pods are left: one more node takes them all.
                next_pool.append((subtract(free, request, remaining), 1))
                remaining = 0
                untouched -= 1
            if untouched:
                next_pool.append((free, untouched))
        if remaining:
            return False
        pool = next_pool
    return True


def _dominant_share(request: Resources, totals: Resources) -> Fraction:
    shares = [Fraction(amount) / totals[name] for name, amount in request.items() if totals.get(name, 0) > 0]
    return max(shares, default=Fraction(0))


def pack_types(
    shapes: list[Shape],
    node_types: list[Shape],
    budget: int | None = None,
    capacities: list[int] | None = None,
    gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES,
) -> bool | None:
    """:func:`pack_pods` on merged shapes (clean requests) and node types with multiplicities.

    ``capacities`` (per shape, pods the nodes hold of that shape alone) may be passed when known;
    ``budget`` defaults to the active budgets' ``search_steps``.
    """
    if not shapes:
        return True
    if capacities is None:
        capacities = [sum(capacity_of(free, request) * count for free, count in node_types) for request, _ in shapes]
    if len(shapes) == 1:
        return capacities[0] >= shapes[0][1]
    if any(capacity < demand for capacity, (_, demand) in zip(capacities, shapes, strict=True)):
        return False
    # Aggregate check: the sum of requests cannot exceed the sum of free amounts.
    totals: dict[str, Amount] = {}
    unlimited_slots = False
    for free, count in node_types:
        if SLOT not in free:
            unlimited_slots = True
        for name, amount in free.items():
            totals[name] = totals.get(name, 0) + amount * count
    needed: dict[str, Amount] = {}
    for request, count in shapes:
        for name, amount in request.items():
            needed[name] = needed.get(name, 0) + amount * count
    if not unlimited_slots:
        needed[SLOT] = Fraction(sum(count for _, count in shapes))
    if any(totals.get(name, 0) < amount for name, amount in needed.items()):
        return False
    by_share = sorted(shapes, key=lambda shape: _dominant_share(shape[0], totals), reverse=True)
    by_size = sorted(shapes, key=lambda shape: _size_key(shape[0], gpu_resources), reverse=True)
    for order in (by_share, by_size):
        for largest_first in (False, True):
            if _greedy(order, node_types, largest_first, gpu_resources):
                return True
    return decide(by_share, node_types, budget if budget is not None else active().search_steps).fits


def pack_pods(
    pods: PodShapes,
    nodes: Sequence[Resources],
    *,
    budget: int | None = None,
    gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES,
) -> bool | None:
    """Decide whether all ``pods`` fit onto ``nodes``.

    Args:
        pods: ``(per-pod request, count)`` pairs; requests are exact amounts per resource.
        nodes: each node's free resources (include ``pods`` to limit pod slots).
        budget: steps the exact search for mixed shapes may spend (default: the active budgets'
            ``search_steps``, :data:`DEFAULT_BUDGET` unless changed).
        gpu_resources: resource names counted as GPUs (the heuristics try GPU-rich nodes first).

    Returns:
        ``True`` or ``False`` when decided, ``None`` when the exact search ran out of budget
        (only possible with several pod shapes).
    """
    return pack_types(merge_shapes(pods), _merge_nodes(nodes), budget, gpu_resources=gpu_resources)


def pods_fit(pods: PodShapes, nodes: Sequence[Resources], *, budget: int | None = None) -> bool:
    """Whether all ``pods`` are known to fit onto ``nodes`` (see :func:`pack_pods`).

    Fails safe: an undecided case (search budget exhausted) is not a fit. Call :func:`pack_pods`
    to tell "does not fit" (False) from "unknown" (None).
    """
    return pack_pods(pods, nodes, budget=budget) is True
