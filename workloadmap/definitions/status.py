"""How a resource's status maps to a normalized phase."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from .. import runtime_definitions as runtime
from ..runtime_definitions import Phase
from .base import _Compiled, _Strict

__all__ = ["ConditionMatch", "StatusMatcher", "ConditionFields", "StatusDefinition"]


class ConditionMatch(_Strict, runtime.ConditionMatch):
    """A condition that must be present: ``type``, and optionally its ``status`` and ``reason``."""

    type: str
    status: str | None = None
    reason: str | list[str] | None = Field(default=None, description="A reason or a list of accepted reasons.")


class StatusMatcher(_Compiled, runtime.StatusMatcher):
    """One way of recognising a phase. Every check given must hold (AND)."""

    phase: str | list[str] | None = Field(default=None, description="Raw phase value(s) that match.")
    conditions: list[ConditionMatch] | None = None
    expression: str | None = Field(default=None, description="An expression evaluated on the resource.")
    equals: Any = Field(default=None, description="Expected result of `expression`; truthiness when omitted.")

    @model_validator(mode="after")
    def _not_empty(self) -> "StatusMatcher":
        if self.phase is None and not self.conditions and self.expression is None:
            raise ValueError("a status matcher needs at least one of phase, conditions, expression")
        return self


class ConditionFields(_Strict, runtime.ConditionFields):
    """Field names inside each condition object."""

    type: str = "type"
    status: str = "status"
    reason: str = "reason"


class StatusDefinition(_Compiled, runtime.StatusDefinition):
    """How a resource's status maps to a normalized phase.

    ``rules`` maps a phase to a list of matchers (any one matching is enough). The resulting
    ``phase`` is the first matched phase in :data:`PHASE_PRECEDENCE`; ``phases`` lists every
    match. A resource without ``status`` is ``Undefined``.
    """

    phase: str | None = Field(default=None, description="Expression for the raw phase value.")
    conditions: str | None = Field(default="status.conditions", description="Expression for the conditions list.")
    condition_fields: ConditionFields = Field(default_factory=ConditionFields, alias="conditionFields")
    rules: dict[Phase, list[StatusMatcher]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _no_undefined_rule(self) -> "StatusDefinition":
        if Phase.UNDEFINED in self.rules:
            raise ValueError("Undefined is what no rule matches; it cannot have rules")
        return self
