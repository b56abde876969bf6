"""Status mapping: from a resource's raw status to one normalized phase.

Every rule of a definition's ``status.rules`` is tried; ``phases`` lists each phase with a
matching rule, in :data:`~workloadmap.definitions.PHASE_PRECEDENCE` order, and ``phase`` is the
first of them. A resource with no ``status`` (or an empty one) is ``Undefined``, and so is one
that no rule matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runtime_definitions import PHASE_PRECEDENCE, ConditionMatch, Phase, StatusDefinition, StatusMatcher
from ..values import truthy

__all__ = ["evaluate_phase"]


def _equal(result: Any, expected: Any) -> bool:
    if result == expected and type(result) is type(expected):
        return True
    if isinstance(result, bool) or isinstance(expected, bool):
        return str(result).lower() == str(expected).lower()
    if isinstance(result, (int, float)) and isinstance(expected, (int, float)):
        return result == expected
    return str(result) == str(expected)


def _conditions_by_type(status_definition: StatusDefinition, resource: Any) -> dict[str, Mapping]:
    expression = status_definition.compiled("conditions")
    if expression is None:
        return {}
    conditions = expression.search(resource)
    fields = status_definition.condition_fields
    by_type: dict[str, Mapping] = {}
    if isinstance(conditions, list):
        for condition in conditions:
            if isinstance(condition, Mapping) and fields.type in condition:
                by_type[str(condition[fields.type])] = condition
    return by_type


def _condition_holds(check: ConditionMatch, by_type: dict[str, Mapping], status_definition: StatusDefinition) -> bool:
    condition = by_type.get(check.type)
    if condition is None:
        return False
    fields = status_definition.condition_fields
    if check.status is not None and str(condition.get(fields.status)) != check.status:
        return False
    if check.reason is not None:
        accepted = [check.reason] if isinstance(check.reason, str) else check.reason
        if str(condition.get(fields.reason)) not in accepted:
            return False
    return True


def _matches(
    matcher: StatusMatcher,
    resource: Any,
    raw_phase: Any,
    by_type: dict[str, Mapping],
    status_definition: StatusDefinition,
) -> bool:
    if matcher.phase is not None:
        accepted = [matcher.phase] if isinstance(matcher.phase, str) else matcher.phase
        if raw_phase is None or str(raw_phase) not in accepted:
            return False
    if matcher.conditions:
        if not all(_condition_holds(check, by_type, status_definition) for check in matcher.conditions):
            return False
    if matcher.expression is not None:
        expression = matcher.compiled("expression")
        result = expression.search(resource) if expression is not None else None
        if matcher.equals is None:
            if not truthy(result):
                return False
        elif not _equal(result, matcher.equals):
            return False
    return True


def evaluate_phase(status_definition: StatusDefinition, resource: Any) -> tuple[Phase, list[Phase]]:
    """Map a resource's status to ``(phase, phases)``.

    Raises:
        ExpressionError: a status expression failed on this resource.
    """
    status = resource.get("status") if resource.__class__ is dict or isinstance(resource, Mapping) else None
    if not status:
        return Phase.UNDEFINED, []
    phase_expression = status_definition.compiled("phase")
    raw_phase = phase_expression.search(resource) if phase_expression is not None else None
    by_type = _conditions_by_type(status_definition, resource)
    matched = []
    for phase in PHASE_PRECEDENCE:
        for matcher in status_definition.rules.get(phase, ()):
            if _matches(matcher, resource, raw_phase, by_type, status_definition):
                matched.append(phase)
                break
    if not matched:
        return Phase.UNDEFINED, []
    return matched[0], matched
