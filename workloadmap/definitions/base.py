"""The building blocks of the definition models: counts, field paths and the strict base models.

``Phase`` and ``PHASE_PRECEDENCE`` live in :mod:`workloadmap.runtime_definitions` (no pydantic) and are
re-exported here.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, PrivateAttr

from ..errors import ExpressionError
from ..expressions import Expression, field_path
from ..runtime_definitions import PHASE_PRECEDENCE, Phase, count_constant

__all__ = ["Count", "FieldPathText", "Phase", "PHASE_PRECEDENCE", "validation_problem"]


Count = Annotated[Union[int, str], BeforeValidator(count_constant)]
"""A whole-number constant (``3`` or ``"3"``) or an expression yielding a number or numeric string.

After validation a count field holds an ``int`` (a constant) or a ``str`` (an expression)."""


def _field_path(text: str) -> str:
    try:
        field_path(text)
    except ExpressionError as error:
        raise ValueError(error.message) from None
    return text


FieldPathText = Annotated[str, AfterValidator(_field_path)]
"""A plain field path such as ``spec.runPolicy.suspend`` or ``metadata.annotations."a/b"``: read and written."""


class _Strict(BaseModel):
    # defer_build: the validators are built on first use, not at import (a path that validates nothing needs none).
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class _Compiled(_Strict):
    """A model whose expression fields are compiled once by :meth:`Definition.compile`."""

    _expressions: dict[str, Expression] = PrivateAttr(default_factory=dict)

    def compiled(self, field_name: str) -> Expression | None:
        """The compiled expression of ``field_name`` (None when the field is unset or constant)."""
        # Straight to pydantic's private store: its __getattr__ fallback costs more than the lookup.
        private = self.__pydantic_private__
        return private["_expressions"].get(field_name) if private else None


_PYDANTIC_PREFIX = re.compile(r"^(?:Value error|Assertion failed), ")


def validation_problem(error: Any) -> tuple[str | None, str]:
    """The first problem of a pydantic ``ValidationError`` as (field path, message), in wmap's words.

    The path is written as wmap writes field paths (``components[0].replicas``); pydantic's
    ``Value error, `` prefix is dropped and a forbidden extra key reads ``unknown field``.
    """
    first = error.errors()[0]
    field = ""
    for part in first["loc"]:
        field += f"[{part}]" if isinstance(part, int) else (f".{part}" if field else str(part))
    message = "unknown field" if first["type"] == "extra_forbidden" else _PYDANTIC_PREFIX.sub("", first["msg"])
    return field or None, message
