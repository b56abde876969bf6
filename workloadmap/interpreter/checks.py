"""Values an operator refuses, checked before any expression reads them (a definition's ``checks``).

A Spark memory of ``512Mi`` is rejected by Spark; read on, it would surface as a function error deep in
a pod expression (``add()`` on null). A check names the field and what the operator accepts instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ExpressionError, InputError
from ..runtime_definitions import Definition
from ..values import truthy

__all__ = ["check_values"]


def check_values(definition: Definition, resource: Mapping[str, Any], refs: Mapping[str, Any]) -> None:
    """Raise for the first checked field whose value the operator refuses.

    Raises:
        InputError: naming the field, its value and the accepted forms.
    """
    for check in definition.checks:
        field, valid = check.compiled("field"), check.compiled("valid")
        if field is None or valid is None:
            continue
        value = field.search(resource, refs=refs)
        if value is None:
            continue
        try:
            accepted = truthy(valid.search(value, root=resource, refs=refs))
        except ExpressionError:
            accepted = False
        if not accepted:
            shown = repr(value) if isinstance(value, (str, int, float, bool)) else type(value).__name__
            raise InputError(f"{shown} is not accepted: {check.message}", field=check.field)
