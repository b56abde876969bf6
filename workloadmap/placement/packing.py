"""Packing primitives: pod requests, node free vectors, and how many pods of a request a node holds.

A pod never splits across nodes and every resource it requests (GPUs, cpu, memory, extended
resources) must fit on its node; each pod also takes one ``pods`` slot on nodes that declare a
``pods`` allocatable (nodes without one have unlimited slots). Whether a set of pods fits a set of
nodes is decided above these primitives: by the exact search (:mod:`.search`) and the first-fit
heuristics in front of it (:mod:`.fitting`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Union

__all__ = [
    "UNLIMITED",
    "Amount",
    "Resources",
    "PodShapes",
    "Shape",
    "SLOT",
    "node_capacity",
    "capacity_of",
    "clean_request",
    "clean_free",
    "subtract",
    "merge_shapes",
]

UNLIMITED = 1 << 62
"""Capacity of a node without a ``pods`` allocatable for pods that request nothing else."""

Amount = Union[int, Fraction]
"""An exact amount; placement scales amounts to whole numbers (ints) where it can."""
Resources = Mapping[str, Amount]
PodShapes = Sequence[tuple[Resources, int]]
Shape = tuple[dict[str, Amount], int]
"""A pod request (or a node's free vector) and how many pods (or nodes) share it."""

SLOT = "pods"
"""The resource name of a node's pod slots: every pod takes one where the node declares them."""


def clean_request(request: Resources) -> dict[str, Amount]:
    """Positive requests only; the pod slot is implicit (one per pod), never requested."""
    return {name: Fraction(amount) for name, amount in request.items() if amount > 0 and name != SLOT}


def clean_free(free: Resources) -> tuple[tuple[str, Amount], ...]:
    """Hashable free vector: positive amounts, plus ``pods`` even when 0 (0 slots != unlimited)."""
    return tuple(sorted((name, Fraction(amount)) for name, amount in free.items() if amount > 0 or name == SLOT))


def node_capacity(free: Resources, request: Resources) -> int:
    """How many pods of ``request`` fit on a node with ``free`` resources.

    The minimum over the requested resources of ``floor(free / request)`` and over the node's pod
    slots (``free["pods"]``; unlimited when the node has no ``pods`` entry). A resource the node
    does not list counts as zero. A pod that requests nothing fits :data:`UNLIMITED` times on a
    node without pod slots.
    """
    return capacity_of(free, clean_request(request))


def capacity_of(free: Resources, request: Resources) -> int:
    """:func:`node_capacity` for a request already cleaned (positive amounts, no ``pods``)."""
    capacity = int(free[SLOT]) if SLOT in free else UNLIMITED
    for name, amount in request.items():
        have = free.get(name, 0)
        if have < amount:
            return 0
        capacity = min(capacity, int(have // amount))
    return max(capacity, 0)


def subtract(free: Resources, request: Resources, times: int) -> dict[str, Amount]:
    """``free`` less ``times`` pods of ``request`` (and their pod slots); amounts may go negative."""
    left = dict(free)
    for name, amount in request.items():
        left[name] = left.get(name, 0) - amount * times
    if SLOT in left:
        left[SLOT] = left[SLOT] - times
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
        key = _shape_key(clean_request(request))
        merged[key] = merged.get(key, 0) + count
    return [(dict(key), count) for key, count in merged.items()]
