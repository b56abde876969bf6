"""The linear relaxation of packing by configurations, as a guide for the exact search.

Variables: how many nodes of type ``t`` take configuration ``c`` (a real number >= 0). Constraints:
at most ``count[t]`` nodes of each type, and every shape's demand covered. Phase one of the simplex
method (Bland's rule, so it never cycles) either finds such a fractional packing, which the search
rounds into a real one, or shows there is none; the duals then give weights over the shapes for
which the demand outweighs anything the nodes can hold.

Floating point is only a guide here: a packing built from the solution is checked in exact integers,
and the weights are turned into fractions and the bound checked exactly (:mod:`.search`), so a wrong
float can cost a search, never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Relaxed", "relaxation", "EPSILON"]

EPSILON = 1e-9


@dataclass
class Relaxed:
    """The relaxation's answer.

    Attributes:
        solution: per node type, per configuration, how many nodes (fractional) when a packing exists.
        weight: per shape, the weights of the bound that rules every packing out, when none exists.
    """

    solution: list[list[float]] | None = None
    weight: list[Fraction] | None = None


def _tableau(
    configs: Sequence[Sequence[tuple[int, ...]]], counts: Sequence[int], demand: Sequence[int]
) -> tuple[list[list[float]], list[int], int]:
    """Rows (node types, then shapes) over columns x | slack per type | surplus, artificial per shape | rhs."""
    types, shapes = len(configs), len(demand)
    columns = [(t, config) for t in range(types) for config in configs[t]]
    size = len(columns)
    width = size + types + 2 * shapes
    rows: list[list[float]] = []
    for t in range(types):
        row = [1.0 if owner == t else 0.0 for owner, _ in columns] + [0.0] * (width - size) + [float(counts[t])]
        row[size + t] = 1.0
        rows.append(row)
    for i in range(shapes):
        row = [float(config[i]) for _, config in columns] + [0.0] * (width - size) + [float(demand[i])]
        row[size + types + i] = -1.0
        row[size + types + shapes + i] = 1.0
        rows.append(row)
    return rows, [size + t for t in range(types)] + [size + types + shapes + i for i in range(shapes)], size


def _pivot(rows: list[list[float]], objective: list[float], at: int, column: int) -> None:
    pivot_row = rows[at]
    scale = pivot_row[column]
    for j in range(len(pivot_row)):
        pivot_row[j] /= scale
    for row in (*rows, objective):
        if row is pivot_row:
            continue
        factor = row[column]
        if factor:
            for j, value in enumerate(pivot_row):
                if value:
                    row[j] -= factor * value


def relaxation(
    configs: Sequence[Sequence[tuple[int, ...]]],
    counts: Sequence[int],
    demand: Sequence[int],
    spend: Callable[[int], None],
) -> Relaxed:
    """Phase one of the simplex method on the configuration relaxation.

    Args:
        configs: per node type, its configurations (pods per shape on one node).
        counts: nodes of each type.
        demand: pods of each shape.
        spend: charged with the work of every pivot (raises to stop the search).
    """
    types, shapes = len(configs), len(demand)
    rows, basis, size = _tableau(configs, counts, demand)
    width = len(rows[0]) - 1
    artificial = size + types + shapes
    objective = [0.0] * (width + 1)
    for j in range(artificial, width):
        objective[j] = 1.0
    for row in rows[types:]:  # the artificial variables start in the basis: price them out
        for j in range(width + 1):
            objective[j] -= row[j]
    while True:
        spend(max(1, len(rows) * width // 256))
        entering = next((j for j in range(width) if objective[j] < -EPSILON), None)
        if entering is None:
            break
        best: tuple[float, int, int] | None = None
        for position, row in enumerate(rows):
            if row[entering] > EPSILON:
                candidate = (row[-1] / row[entering], basis[position], position)
                if best is None or candidate < best:
                    best = candidate
        if best is None:
            break  # cannot happen: phase one is bounded below by zero
        _pivot(rows, objective, best[2], entering)
        basis[best[2]] = entering
    infeasibility = -objective[-1]
    if infeasibility > 1e-7 * max(1, sum(demand)):
        # Duals of the shape rows: 1 - reduced cost of each artificial column.
        duals = [max(0.0, 1.0 - objective[artificial + i]) for i in range(shapes)]
        top = max(duals, default=0.0)
        if top <= 0:
            return Relaxed()
        return Relaxed(weight=[Fraction(value / top).limit_denominator(1_000_000) for value in duals])
    solution = [[0.0] * len(configs[t]) for t in range(types)]
    offsets = [sum(len(configs[u]) for u in range(t)) for t in range(types)]
    for position, variable in enumerate(basis):
        if variable < size:
            t = max(u for u in range(types) if offsets[u] <= variable)
            solution[t][variable - offsets[t]] = max(0.0, rows[position][-1])
    return Relaxed(solution=solution)
