"""Slurm hostlists: ``node[1-4,7],gpu[001-003]`` expanded into node names."""

from __future__ import annotations

import re
from itertools import product

from ..budgets import active
from ..budgets import check as check_budget
from ..errors import TopologyError

__all__ = ["MAX_HOSTLIST_NAMES", "expand_hostlist"]

# A hostlist that expands beyond this is a typo (or an attack), not a cluster.
MAX_HOSTLIST_NAMES = 1_000_000


def _split_top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


_RANGE_RE = re.compile(r"^([0-9]+)(?:-([0-9]+))?$")


def _bracket_values(content: str, expression: str) -> list[str]:
    values: list[str] = []
    for item in content.split(","):
        match = _RANGE_RE.match(item)
        if not match:
            raise TopologyError(f"invalid hostlist {expression!r}: bad range {item!r} in brackets")
        low, high = match.group(1), match.group(2)
        if high is None:
            values.append(low)
            continue
        if int(high) < int(low):
            raise TopologyError(f"invalid hostlist {expression!r}: range {item!r} runs backwards")
        if int(high) - int(low) >= MAX_HOSTLIST_NAMES:
            raise TopologyError(f"invalid hostlist {expression!r}: range {item!r} is too large")
        # Slurm pads every number of a range to the width of its lower bound: gpu[001-018].
        width = len(low)
        values.extend(str(number).zfill(width) for number in range(int(low), int(high) + 1))
    return values


def expand_hostlist(expression: str, *, limit: int | None = None) -> list[str]:
    """Expand a Slurm hostlist such as ``node[1-4,7],gpu[001-003]`` into node names, in order.

    Supports comma-separated patterns, several bracket groups per pattern (expanded as a
    cartesian product, leftmost slowest), single numbers and ranges, and zero padding to the
    width of a range's lower bound (``gpu[001-018]``; ``n[8-10]`` gives ``n8 n9 n10``).

    Raises:
        TopologyError: unbalanced or nested brackets, a bad range, spaces, an empty name, or more
            than :data:`MAX_HOSTLIST_NAMES` names.
        BudgetError: more than ``limit`` names (the node budget left for this file).
    """
    if not isinstance(expression, str):
        raise TopologyError(f"invalid hostlist {expression!r}: expected a string")
    text = expression.strip()
    if not text:
        raise TopologyError("invalid hostlist: empty")
    if any(char.isspace() for char in text):
        raise TopologyError(f"invalid hostlist {expression!r}: contains spaces")
    names: list[str] = []
    for part in _split_top_level(text):
        if not part:
            raise TopologyError(f"invalid hostlist {expression!r}: empty name between commas")
        pieces: list[list[str]] = []
        position = 0
        while position < len(part):
            opening = part.find("[", position)
            closing = part.find("]", position)
            if opening < 0:
                if closing >= 0:
                    raise TopologyError(f"invalid hostlist {expression!r}: ']' without '['")
                pieces.append([part[position:]])
                break
            if closing >= 0 and closing < opening:
                raise TopologyError(f"invalid hostlist {expression!r}: ']' without '['")
            if opening > position:
                pieces.append([part[position:opening]])
            closing = part.find("]", opening)
            if closing < 0:
                raise TopologyError(f"invalid hostlist {expression!r}: '[' is never closed")
            content = part[opening + 1 : closing]
            if "[" in content:
                raise TopologyError(f"invalid hostlist {expression!r}: nested '['")
            pieces.append(_bracket_values(content, expression))
            position = closing + 1
        count = 1
        for piece in pieces:
            count *= len(piece)
        if len(names) + count > MAX_HOSTLIST_NAMES:
            raise TopologyError(f"invalid hostlist {expression!r}: more than {MAX_HOSTLIST_NAMES} names")
        if limit is not None and len(names) + count > limit:
            check_budget("nodes", active().nodes - limit + len(names) + count, f"nodes (hostlist {expression!r})")
        names.extend("".join(combination) for combination in product(*pieces))
    return names
