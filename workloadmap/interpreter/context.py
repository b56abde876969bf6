"""What a definition's expressions evaluate against for one resource: one named context, passed whole.

Every stage that evaluates a definition on a resource (expansion, gangs, constraints, KAI
metadata, warnings, and after the interpreter: alter, live membership, lint's samples) needs the
same three things: the definition, the resource (what ``root()`` gives) and the resolved
references (what ``ref(name)`` gives). :class:`EvaluationContext` carries them together, so no
function takes them one by one and none can pair a resource with another resource's references.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runtime_definitions import Definition

__all__ = ["EvaluationContext"]


class EvaluationContext:
    """A definition evaluated on one resource (fixed once made: a new resource is a new context).

    Attributes:
        definition: the definition the resource is read with.
        resource: the resource, as ``root()`` gives it (its base specs merged beneath it, once
            :func:`~workloadmap.interpreter.merge.merge_bases` has run).
        refs: the resolved references by name, as ``ref(name)`` gives them.

    An expression runs as ``expression.search(scope, root=context.resource, refs=context.refs)``:
    spelt out, not a method, since a method call per evaluation costs about 1% of interpreting.
    A slotted class, not a NamedTuple: the interpreter reads these fields for most evaluations, and
    Python 3.11 reads a slot through a specialized instruction but a NamedTuple field through the
    generic attribute lookup (0.3% more instructions per document on the corpus).
    """

    __slots__ = ("definition", "resource", "refs")

    def __init__(self, definition: Definition, resource: Mapping[str, Any], refs: Mapping[str, Any]) -> None:
        self.definition = definition
        self.resource = resource
        self.refs = refs

    def __repr__(self) -> str:
        return f"EvaluationContext({self.definition.name!r}, {len(self.refs)} refs)"
