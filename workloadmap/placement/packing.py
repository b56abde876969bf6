"""Packing: can a set of pods fit onto a set of nodes?

A pod never splits across nodes and every resource it requests (GPUs, cpu, memory, extended
resources) must fit on its node; each pod also takes one ``pods`` slot on nodes that declare a
``pods`` allocatable (nodes without one have unlimited slots). Pods of one shape are decided
exactly. Mixed shapes use necessary aggregate checks (an exact "no"), first-fit heuristics that
build a real placement (an exact "yes"), then counting bounds and a bounded exact search
(:mod:`.search`); only when that search runs out of budget is the answer unknown (``None``), and
unknown is never reported as a fit.

Work happens on node *types* (identical free vectors with a multiplicity), so the cost follows
the number of distinct node shapes, not the node count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Union

from ..budgets import DEFAULT_BUDGETS, active
from ..resources import DEFAULT_GPU_RESOURCES, count_gpus

__all__ = [
    "UNLIMITED",
    "DEFAULT_BUDGET",
    "Amount",
    "Resources",
    "PodShapes",
    "Shape",
    "node_capacity",
    "capacity_of",
    "clean_free",
    "merge_shapes",
    "pack_types",
    "pack_pods",
    "pods_fit",
]

UNLIMITED = 1 << 62
"""Capacity of a node without a ``pods`` allocatable for pods that request nothing else."""

Amount = Union[int, Fraction]
"""An exact amount; placement scales amounts to whole numbers (ints) where it can."""
Resources = Mapping[str, Amount]
PodShapes = Sequence[tuple[Resources, int]]
Shape = tuple[dict[str, Amount], int]
"""A pod request (or a node's free vector) and how many pods (or nodes) share it."""

_SLOT = "pods"
DEFAULT_BUDGET = DEFAULT_BUDGETS.search_steps
"""Steps (configurations enumerated, search nodes visited) the exact search may spend on one question."""


def _clean_request(request: Resources) -> dict[str, Amount]:
    """Positive requests only; the pod slot is implicit (one per pod), never requested."""
    return {name: Fraction(amount) for name, amount in request.items() if amount > 0 and name != _SLOT}


def clean_free(free: Resources) -> tuple[tuple[str, Amount], ...]:
    """Hashable free vector: positive amounts, plus ``pods`` even when 0 (0 slots != unlimited)."""
    return tuple(sorted((name, Fraction(amount)) for name, amount in free.items() if amount > 0 or name == _SLOT))


def node_capacity(free: Resources, request: Resources) -> int:
    """How many pods of ``request`` fit on a node with ``free`` resources.

    The minimum over the requested resources of ``floor(free / request)`` and over the node's pod
    slots (``free["pods"]``; unlimited when the node has no ``pods`` entry). A resource the node
    does not list counts as zero. A pod that requests nothing fits :data:`UNLIMITED` times on a
    node without pod slots.
    """
    return capacity_of(free, _clean_request(request))


def capacity_of(free: Resources, request: Resources) -> int:
    """:func:`node_capacity` for a request already cleaned (positive amounts, no ``pods``)."""
    capacity = int(free[_SLOT]) if _SLOT in free else UNLIMITED
    for name, amount in request.items():
        have = free.get(name, 0)
        if have < amount:
            return 0
        capacity = min(capacity, int(have // amount))
    return max(capacity, 0)


def _subtract(free: Resources, request: Resources, times: int) -> dict[str, Amount]:
    left = dict(free)
    for name, amount in request.items():
        left[name] = left.get(name, 0) - amount * times
    if _SLOT in left:
        left[_SLOT] = left[_SLOT] - times
    return left


def _shape_key(request: Resources) -> tuple[tuple[str, Amount], ...]:
    return tuple(sorted(request.items()))


def merge_shapes(pods: PodShapes) -> list[Shape]:
    """Pod shapes with equal (cleaned) requests merged, zero counts dropped.

    Raises:
        ValueError: a negative pod count.
    """
    merged: dict[tuple, int] = {}
    for request, count in pods:
        if count < 0:
            raise ValueError(f"negative pod count {count}")
        if count == 0:
            continue
        key = _shape_key(_clean_request(request))
        merged[key] = merged.get(key, 0) + count
    return [(dict(key), count) for key, count in merged.items()]


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
                next_pool.append((_subtract(free, request, capacity), full_nodes))
            untouched = multiplicity - full_nodes
            if untouched and remaining:
                # Fewer than `capacity` pods are left: one more node takes them all.
                next_pool.append((_subtract(free, request, remaining), 1))
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
        if _SLOT not in free:
            unlimited_slots = True
        for name, amount in free.items():
            totals[name] = totals.get(name, 0) + amount * count
    needed: dict[str, Amount] = {}
    for request, count in shapes:
        for name, amount in request.items():
            needed[name] = needed.get(name, 0) + amount * count
    if not unlimited_slots:
        needed[_SLOT] = Fraction(sum(count for _, count in shapes))
    if any(totals.get(name, 0) < amount for name, amount in needed.items()):
        return False
    by_share = sorted(shapes, key=lambda shape: _dominant_share(shape[0], totals), reverse=True)
    by_size = sorted(shapes, key=lambda shape: _size_key(shape[0], gpu_resources), reverse=True)
    for order in (by_share, by_size):
        for largest_first in (False, True):
            if _greedy(order, node_types, largest_first, gpu_resources):
                return True
    from .search import decide  # search builds on this module's primitives

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
