"""Counts a definition reads: a constant or an expression's answer, a whole non-negative number within reason."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..errors import ExpressionError, InputError
from ..expressions import Expression
from .context import EvaluationContext

__all__ = ["to_count", "evaluate_count"]

_MAX_REPLICAS = 10_000_000
_ASCII_DIGITS = re.compile(r"\+?[0-9]+")  # Kubernetes counts are ASCII; "²" or Arabic-Indic digits are not


def to_count(value: Any, what: str, source: str) -> int:
    """A value an expression gave as a count: a whole, non-negative number within reason.

    Raises:
        InputError: anything else (naming ``what`` and the field ``source``).
    """
    if isinstance(value, bool):
        raise InputError(f"{what} must be a number, got {str(value).lower()}", field=source)
    if isinstance(value, int):
        count = value
    elif isinstance(value, float) and value.is_integer():
        count = int(value)
    elif isinstance(value, str) and _ASCII_DIGITS.fullmatch(value.strip()):
        digits = value.strip().lstrip("+")
        if len(digits) > len(str(_MAX_REPLICAS)):
            raise InputError(f"{what} of {digits[:20]}... is beyond any real cluster (refused)", field=source)
        count = int(digits)
    else:
        shown = value if not isinstance(value, (dict, list)) else type(value).__name__
        raise InputError(f"{what} must be a whole number, got {shown!r}", field=source)
    if count < 0:
        raise InputError(f"{what} must not be negative, got {count}", field=source)
    if count > _MAX_REPLICAS:
        raise InputError(f"{what} of {count} is beyond any real cluster (refused)", field=source)
    return count


def evaluate_count(
    model: Any,
    field_name: str,
    scope: Any,
    context: EvaluationContext,
    *,
    what: str,
    field: str | Callable[[], str] | None = None,
) -> int | None:
    """A count field of a definition model: a constant or a compiled expression.

    Returns None when the field is unset or the expression yields null (the caller's default applies).
    ``field`` names the field in errors (default: the expression); a callable is called only for an
    error, since finding an instance element's path can cost a walk of the resource.

    Raises:
        InputError: the expression gave something that is not a whole, non-negative number.
        ExpressionError: the expression failed on this resource.
    """
    value = getattr(model, field_name)
    if value is None:
        return None
    if isinstance(value, int):
        return value
    expression = model.compiled(field_name)
    if expression is None:
        return None
    return _search_count(expression, scope, context, what, field)


def _search_count(
    expression: Expression,
    scope: Any,
    context: EvaluationContext,
    what: str | Callable[[], str],
    field: str | Callable[[], str] | None,
) -> int | None:
    """A count expression's answer (None for null); ``what`` and ``field`` are worked out for an error only."""
    try:
        result = expression.search(scope, root=context.resource, refs=context.refs)
    except ExpressionError as error:
        raise error.located(field=_field_text(field, expression.source)) from None
    if result is None:
        return None
    if result.__class__ is int and 0 <= result <= _MAX_REPLICAS:  # to_count's answer, without naming the field
        return result
    return to_count(result, what() if callable(what) else what, _field_text(field, expression.source))


def _field_text(field: str | Callable[[], str] | None, source: str) -> str:
    text = field() if callable(field) else field
    return text or source
