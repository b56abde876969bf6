"""The lint rule table: every rule's id, severity and summary, and the function that checks it.

Rules are functions registered with :func:`rule`. A static rule looks at the definition alone; a
sample rule also gets the evidence gathered by evaluating the definition on sample resources.
``wmap catalog lint --rules`` and ``docs/lint.md`` are generated from :data:`RULES`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any, Literal

__all__ = ["Severity", "LintFinding", "Issue", "Rule", "RULES", "rule", "has_errors", "render_rules_table", "rule_rows"]

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class LintFinding:
    """One problem found in a definition.

    Attributes:
        severity: ``error`` (the definition is wrong) or ``warning`` (probably wrong, or unproven).
        file: the definition file, if known.
        definition: the definition's name.
        field: dotted path of the offending field (``components[0].replicas``), if any.
        message: what is wrong, one line.
        rule: the rule id (see :data:`RULES`).
        line: the line of ``field`` in ``file`` (1-based), where :func:`~workloadmap.lint.lint_path` found it.
    """

    severity: Severity
    file: str | None
    definition: str
    field: str | None
    message: str
    rule: str
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for json/yaml output."""
        return asdict(self)

    def __str__(self) -> str:
        parts = (self.file, f"definition {self.definition}", self.field and f"field {self.field}")
        where = ", ".join(part for part in parts if part)
        return f"{where}: {self.severity}: {self.message} [{self.rule}]"

    def compiler_line(self) -> str:
        """``FILE:LINE: SEVERITY: DEFINITION: FIELD: RULE: message``, one line, as compilers and linters print."""
        where = f"{self.file or '-'}:{self.line}" if self.line is not None else self.file or "-"
        return f"{where}: {self.severity}: {self.definition}: {self.field or '-'}: {self.rule}: {self.message}"


@dataclass(frozen=True)
class Issue:
    """What a rule function reports: the field and the message (the rule adds id and severity)."""

    field: str | None
    message: str


@dataclass(frozen=True)
class Rule:
    """A lint rule.

    Attributes:
        id: the rule id findings carry.
        severity: the severity of its findings.
        summary: one line: what the rule catches.
        samples: whether the rule needs sample resources.
        check: the function that finds its issues; it takes the lint context.
    """

    id: str
    severity: Severity
    summary: str
    samples: bool
    check: Callable[[Any], Iterable[Issue]]


RULES: dict[str, Rule] = {}
"""Every rule by id, static rules first, in registration order."""


def rule(
    rule_id: str, severity: Severity, summary: str, *, samples: bool = False
) -> Callable[[Callable[[Any], Iterable[Issue]]], Callable[[Any], Iterable[Issue]]]:
    """Register the decorated function as the check of rule ``rule_id``."""

    def register(check: Callable[[Any], Iterable[Issue]]) -> Callable[[Any], Iterable[Issue]]:
        if rule_id in RULES:
            raise ValueError(f"lint rule {rule_id!r} is registered twice")
        RULES[rule_id] = Rule(rule_id, severity, " ".join(summary.split()), samples, check)
        return check

    return register


def has_errors(findings: Iterable[LintFinding]) -> bool:
    """Whether any finding has error severity."""
    return any(finding.severity == "error" for finding in findings)


def _rows() -> Iterator[tuple[str, str, str, str]]:
    yield ("schema", "error", "static", "The file is not a valid definition (format, names, expressions).")
    for entry in RULES.values():
        yield (entry.id, entry.severity, "samples" if entry.samples else "static", entry.summary)


def rule_rows() -> list[tuple[str, str, str, str]]:
    """Every rule as ``(id, severity, needs, summary)``, ``schema`` first: what ``--rules`` and docs/lint.md list."""
    return list(_rows())


def render_rules_table() -> str:
    """The rule table as Markdown (for docs/lint.md)."""
    lines = ["| rule | severity | needs | catches |", "| --- | --- | --- | --- |"]
    lines += [f"| `{rule_id}` | {severity} | {needs} | {summary} |" for rule_id, severity, needs, summary in _rows()]
    return "\n".join(lines) + "\n"
