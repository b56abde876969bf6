"""What a definition's expressions evaluate against for one resource: one named context, passed whole.

Every stage that evaluates a definition on a resource (expansion, gangs, constraints, KAI
metadata, warnings, and after the interpreter: alter, live membership, lint's samples) needs the
same three things: the definition, the resource (what ``root()`` gives) and the resolved
references (what ``ref(name)`` gives). :class:`EvaluationContext` carries them together, so no
function takes them one by one and none can pair a resource with another resource's references.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..expressions import Expression
from ..runtime_definitions import Definition
from ..values import truthy

__all__ = ["EvaluationContext"]


class EvaluationContext(NamedTuple):
    """A definition evaluated on one resource.

    Attributes:
        definition: the definition the resource is read with.
        resource: the resource, as ``root()`` gives it (its base specs merged beneath it, once
            :func:`~workloadmap.interpreter.merge.merge_bases` has run).
        refs: the resolved references by name, as ``ref(name)`` gives them.
    """

    definition: Definition
    resource: Mapping[str, Any]
    refs: Mapping[str, Any]

    def search(self, expression: Expression, scope: Any) -> Any:
        """``expression`` on ``scope`` (the resource or an element of it), ``root()`` and ``ref()`` as here."""
        return expression.search(scope, root=self.resource, refs=self.refs)

    def holds(self, expression: Expression | None, scope: Any) -> bool:
        """Whether ``expression`` is truthy on ``scope`` (no expression always holds)."""
        return expression is None or truthy(expression.search(scope, root=self.resource, refs=self.refs))
