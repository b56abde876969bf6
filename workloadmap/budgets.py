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

Which Kubernetes feature gates a command models (:func:`feature_gates`, ``--feature-gates``) is a
setting of the same kind: the cluster's controllers behave differently with them (the Job controller's
own Workload and PodGroup, :data:`FEATURE_GATES`), and wmap answers for the cluster it is told of.

All four are set for a block of code with :func:`applied` / :func:`deadline_after` (context variables,
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
from .labels import JOB_WORKLOAD_GATE, JOB_WORKLOAD_GATE_ALPHA, REFERENCE_KINDS

__all__ = [
    "FEATURE_GATES",
    "feature_gates",
    "parse_feature_gates",
    "with_feature_gates",
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


FEATURE_GATES: dict[str, str] = {
    JOB_WORKLOAD_GATE_ALPHA: (
        "1.36: the Job controller makes a Workload and a gang PodGroup (minCount = parallelism) for a new Indexed"
        " Job whose completions equal its parallelism, above 1"
    ),
    JOB_WORKLOAD_GATE: (
        "1.37: the Job controller makes a Workload and a PodGroup for every new Job it owns the scheduling of:"
        " spec.scheduling's policy, basic when it is not set"
    ),
}
"""The Kubernetes feature gates wmap models, with what turning one on changes (all off by default, as upstream)."""

_GATES: ContextVar[frozenset[str]] = ContextVar("wmap_feature_gates", default=frozenset())


def feature_gates() -> frozenset[str]:
    """The feature gates turned on for the work in progress (:func:`with_feature_gates`; none by default)."""
    return _GATES.get()


def parse_feature_gates(texts: Iterable[str]) -> dict[str, bool]:
    """``Name=true,Other=false`` (kube-apiserver's ``--feature-gates`` syntax), each text a comma list.

    Raises:
        ValueError: a gate wmap does not model, or a value that is not true or false.
    """
    gates: dict[str, bool] = {}
    for text in texts:
        for item in text.split(","):
            if not item.strip():
                continue
            name, equals, value = item.strip().partition("=")
            name = name.strip()
            if name not in FEATURE_GATES:
                known = ", ".join(sorted(FEATURE_GATES))
                raise ValueError(f"unrecognized feature gate: {name} (wmap models {known})")
            if not equals or value.strip().lower() not in ("true", "false"):
                raise ValueError(f"invalid value of {name}: {value.strip()!r}, want true or false")
            gates[name] = value.strip().lower() == "true"
    return gates


@contextmanager
def with_feature_gates(gates: dict[str, bool] | Iterable[str]) -> Iterator[frozenset[str]]:
    """Model a cluster with these gates on (a mapping of name to on/off, or the names to turn on) in the block.

    Raises:
        ValueError: a gate wmap does not model.
    """
    turned = dict(gates) if isinstance(gates, dict) else dict.fromkeys(gates, True)
    unknown = sorted(set(turned) - set(FEATURE_GATES))
    if unknown:
        raise ValueError(f"unrecognized feature gate: {unknown[0]} (wmap models {', '.join(sorted(FEATURE_GATES))})")
    enabled = (_GATES.get() | {name for name, on in turned.items() if on}) - {n for n, on in turned.items() if not on}
    token = _GATES.set(frozenset(enabled))
    try:
        yield frozenset(enabled)
    finally:
        _GATES.reset(token)
