"""Budgets on the work one command may do, and its deadline.

Every field of an input is bounded by the loader and the interpreter, but products of fields are
not: a LeaderWorkerSet of 10,000,000 workers in segments of 2 is fourteen lines of YAML and five
million SubGroups. :class:`Budgets` bounds what wmap builds from an input (pods, PodGroups,
SubGroups and segments, Grove's scaled gangs, topology nodes, steps of the exact packing search);
each is checked on the numbers *before* anything is built, and crossing one is a
:class:`~workloadmap.errors.BudgetError` naming the field, the number and the limit.

A :class:`Deadline` bounds the wall time of a whole command (``--timeout``): long loops call
:func:`check_deadline`, and the live client sizes every request's timeout to what is left.

Which kinds a definition's ``references`` may read (:func:`reference_kinds`) is the third limit:
runtime templates only, unless the user allows more.

All three are set for a block of code with :func:`applied` / :func:`deadline_after` (context variables,
so concurrent callers do not see each other's), and read with :func:`active` / :func:`deadline`.
``docs/security.md`` lists every limit with its default and the flag that changes it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields

from .errors import BudgetError, DeadlineError, environment_name, raise_hint
from .labels import REFERENCE_KINDS

__all__ = [
    "Budgets",
    "DEFAULT_BUDGETS",
    "active",
    "applied",
    "Deadline",
    "deadline",
    "deadline_after",
    "check_deadline",
    "check",
    "reference_kinds",
    "allowing_references",
    "parse_kind",
    "environment_name",
    "raise_hint",
]


@dataclass(frozen=True)
class Budgets:
    """The most one command builds from its inputs; each has a ``--max-*`` flag on the command line.

    Attributes:
        pods: pods of one workload (at its declared scale, and at its maximum scale when bounded).
        pod_groups: PodGroups of one workload, Grove's scaled gangs included.
        sub_groups: SubGroups of one workload, KAI segments included.
        scaled_gangs: PodGroups one scaling group (a Grove PodCliqueScalingGroup) adds beyond its minimum.
        nodes: nodes of one cluster, from a NodeList, a Slurm file's hostlists, a model, a generated
            cluster or the API server's pages.
        search_steps: steps the exact packing search may spend on one question before it answers
            ``unknown``.
    """

    pods: int = 1_000_000
    pod_groups: int = 100_000
    sub_groups: int = 100_000
    scaled_gangs: int = 100_000
    nodes: int = 200_000
    search_steps: int = 200_000

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"budget {item.name} must be a positive integer, got {value!r}")


DEFAULT_BUDGETS = Budgets()

_NOUNS = {
    "pods": "pods",
    "pod_groups": "PodGroups",
    "sub_groups": "SubGroups",
    "scaled_gangs": "scaled gangs",
    "nodes": "nodes",
    "search_steps": "search steps",
}
_FLAGS = {
    "pods": "--max-pods",
    "pod_groups": "--max-pod-groups",
    "sub_groups": "--max-sub-groups",
    "scaled_gangs": "--max-scaled-gangs",
    "nodes": "--max-nodes",
    "search_steps": "--search-budget",
}

_ACTIVE: ContextVar[Budgets] = ContextVar("wmap_budgets", default=DEFAULT_BUDGETS)


def active() -> Budgets:
    """The budgets in force (the defaults unless :func:`applied` set others)."""
    return _ACTIVE.get()


@contextmanager
def applied(budgets: Budgets) -> Iterator[Budgets]:
    """Use ``budgets`` inside the ``with`` block."""
    if not isinstance(budgets, Budgets):
        raise TypeError(f"budgets must be a Budgets, got {type(budgets).__name__}")
    token = _ACTIVE.set(budgets)
    try:
        yield budgets
    finally:
        _ACTIVE.reset(token)


def check(name: str, count: int, what: str, *, field: str | None = None) -> None:
    """Raise a :class:`BudgetError` when ``count`` is over the budget ``name``.

    Args:
        name: a field of :class:`Budgets` (``pods``, ``sub_groups`` ...).
        count: the number the input asks for, computed before anything is built.
        what: what is counted, for the message (``"pods"``, ``"segments of 2 pods"``).
        field: where the number comes from, when known (a field path or an annotation).
    """
    limit = getattr(active(), name)
    if count > limit:
        raise BudgetError(
            f"{count:,} {what} is over the limit of {limit:,} {_NOUNS[name]} ({raise_hint(_FLAGS[name])})",
            field=field,
        )


@dataclass(frozen=True)
class Deadline:
    """A point in time a command must finish by (``time.monotonic`` seconds)."""

    seconds: float
    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline ``seconds`` from now."""
        if not seconds > 0:
            raise ValueError(f"a deadline needs a positive number of seconds, got {seconds!r}")
        return cls(float(seconds), time.monotonic() + float(seconds))

    def remaining(self) -> float:
        """Seconds left (0 when passed)."""
        return max(0.0, self.at - time.monotonic())

    def passed(self) -> bool:
        """Whether the deadline has passed."""
        return time.monotonic() >= self.at

    def error(self, what: str) -> DeadlineError:
        """The error for work stopped at this deadline."""
        return DeadlineError(f"{what}: stopped at the deadline of {self.seconds:g} s (--timeout)")


_DEADLINE: ContextVar[Deadline | None] = ContextVar("wmap_deadline", default=None)


def deadline() -> Deadline | None:
    """The deadline in force, if any."""
    return _DEADLINE.get()


@contextmanager
def deadline_after(seconds: float | None) -> Iterator[Deadline | None]:
    """Run the ``with`` block under a deadline ``seconds`` from now (None: keep the current one).

    A deadline inside another never extends it: the earlier one wins.
    """
    current = _DEADLINE.get()
    if seconds is None:
        yield current
        return
    new = Deadline.after(seconds)
    if current is not None and current.at < new.at:
        new = current
    token = _DEADLINE.set(new)
    try:
        yield new
    finally:
        _DEADLINE.reset(token)


def check_deadline(what: str) -> None:
    """Raise a :class:`DeadlineError` when the deadline in force has passed."""
    current = _DEADLINE.get()
    if current is not None and current.passed():
        raise current.error(what)


_EXTRA_REFERENCES: ContextVar[frozenset[tuple[str, str]]] = ContextVar("wmap_references", default=frozenset())


def reference_kinds() -> frozenset[tuple[str, str]]:
    """The ``(group, kind)`` pairs definitions may reference.

    :data:`~workloadmap.labels.REFERENCE_KINDS`, and those a user allowed with
    :func:`allowing_references` (``--allow-reference-kind``).
    """
    return REFERENCE_KINDS | _EXTRA_REFERENCES.get()


def parse_kind(text: str) -> tuple[str, str]:
    """``Kind`` (core group) or ``Kind.group`` as ``(group, kind)``.

    Raises:
        ValueError: an empty kind.
    """
    kind, _, group = text.strip().partition(".")
    if not kind:
        raise ValueError(
            f"{text!r} names no kind; write Kind or Kind.group (ConfigMap, TrainingRuntime.trainer.kubeflow.org)"
        )
    return group, kind


@contextmanager
def allowing_references(kinds: Iterable[tuple[str, str]]) -> Iterator[frozenset[tuple[str, str]]]:
    """Let definitions reference these ``(group, kind)`` pairs too, inside the ``with`` block."""
    extra = frozenset(kinds)
    token = _EXTRA_REFERENCES.set(_EXTRA_REFERENCES.get() | extra)
    try:
        yield reference_kinds()
    finally:
        _EXTRA_REFERENCES.reset(token)
