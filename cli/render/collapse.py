"""Runs of identical entries shown once: ``group-0..group-199 (200 alike)``.

A workload with hundreds of identical gangs (an LWS of 200 groups, a JobSet of 64 replicas)
would print hundreds of identical lines; consecutive entries whose rendering differs only in
their name are drawn once, under the range of their names.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Run", "runs", "MAX_SHOWN"]

Item = TypeVar("Item")

MAX_SHOWN = 8
"""Distinct runs drawn before the rest is summarised (``... and N more (see -o json)``)."""


@dataclass
class Run(Generic[Item]):
    """Consecutive entries that render alike: the first stands for all of them."""

    items: list[Item]
    names: list[str]

    @property
    def first(self) -> Item:
        """The entry drawn for the run."""
        return self.items[0]

    @property
    def label(self) -> str:
        """``name`` for one entry, ``first..last (N alike)`` for several."""
        if len(self.names) == 1:
            return self.names[0]
        return f"{self.names[0]}..{self.names[-1]} ({len(self.names)} alike)"


def runs(items: Sequence[Item], name: Callable[[Item], str], key: Callable[[Item], Hashable]) -> list[Run[Item]]:
    """Group consecutive ``items`` whose ``key`` (their rendering without the name) is equal."""
    grouped: list[Run[Item]] = []
    previous: Hashable = object()
    for item in items:
        current = key(item)
        if grouped and current == previous:
            grouped[-1].items.append(item)
            grouped[-1].names.append(name(item))
        else:
            grouped.append(Run([item], [name(item)]))
        previous = current
    return grouped
