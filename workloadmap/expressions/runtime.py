"""What generated JMESPath functions run with: the evaluation state, jmespath's semantics as helpers, the interpreter.

:mod:`workloadmap.expressions.compiler` writes each expression as Python source; the names that source
calls are the entries of :data:`_RUNTIME` (the only globals, and the only builtins, it runs with).
The helpers are the slow or rare half of a node (a value that is not a plain dict or list, a
comparison of mixed types) and agree with ``jmespath.visitor.TreeInterpreter`` line for line.
:class:`_Bounded` is that interpreter with wmap's step and size bounds: the reference the generated
functions are tested against, and what evaluates a tree the generator does not write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jmespath
import jmespath.visitor
from jmespath.visitor import _equals, _is_actual_number, _is_comparable

from ..errors import ExpressionLimitError

__all__ = ["Program", "State"]


class State:
    """One evaluation: the steps left, the step budget (for the message) and the functions object.

    ``fn`` is made on the first function call (``make_functions(*arguments)``), since most
    expressions call none.
    """

    __slots__ = ("steps", "budget", "make_functions", "arguments", "fn")

    def __init__(self, budget: int, make_functions: Callable[..., Any], *arguments: Any) -> None:
        self.steps = budget
        self.budget = budget
        self.make_functions = make_functions
        self.arguments = arguments
        self.fn: Any = None

    def functions(self) -> Any:
        """The ``jmespath.functions.Functions`` object of this evaluation."""
        if self.fn is None:
            self.fn = self.make_functions(*self.arguments)
        return self.fn

    def out_of_steps(self) -> ExpressionLimitError:
        """The error of a spent step budget."""
        return ExpressionLimitError(f"more than {self.budget} evaluation steps")


Program = Callable[[Any, "State | None"], Any]
"""A compiled expression: ``program(value, state)`` is ``TreeInterpreter().visit(node, value)``.

Only a program compiled with a budget for a tree that calls no function takes ``state`` None."""


class _Expression:
    """An ``&expression`` value; the class name is what jmespath's function signatures check (``expref``)."""

    __slots__ = ("expression", "state")

    def __init__(self, expression: Program, state: State) -> None:
        self.expression = expression
        self.state = state

    def visit(self, expression: Program, value: Any) -> Any:
        return expression(value, self.state)


_SIZED = (list, dict, str)


class _Recount(Exception):
    """The fast function's budget ran out: evaluate again, counting node by node."""


# -- what generated code calls -----------------------------------------------------------------


def _is_false(value: Any) -> bool:
    # As TreeInterpreter._is_false: equality on purpose (JMESPath's falsy values are not Python's).
    if value is None or value is False:
        return True
    kind = value.__class__
    if kind is dict or kind is list or kind is str:  # the parsed document's own types: empty is false
        return not value
    return bool(value == "" or value == [] or value == {})


def _field(value: Any, key: Any) -> Any:
    if value is None:
        return None
    try:
        return value.get(key)
    except AttributeError:
        return None


def _oversized(value: Any, limit: int) -> bool:
    return isinstance(value, _SIZED) and len(value) > limit


def _field_sized(value: Any, key: Any, limit: int) -> Any:
    if isinstance(value, _SIZED) and len(value) > limit:
        raise _too_big(value, limit)
    return _field(value, key)


def _index(value: Any, position: int) -> Any:
    if not isinstance(value, list):
        return None
    try:
        return value[position]
    except IndexError:
        return None


def _values(value: Any) -> Any:
    if value is None:
        return None
    try:
        return value.values()
    except AttributeError:
        return None


def _flatten(elements: list[Any]) -> list[Any]:
    merged: list[Any] = []
    for element in elements:
        if isinstance(element, list):
            merged.extend(element)
        else:
            merged.append(element)
    return merged


# Class sets the generated code tests inline and the helpers below test first: jmespath's own checks
# end in ``isinstance(x, Number)``, an ABC check that costs several times more than a class lookup.
_NUMSTR = frozenset((int, float, str))
_NONNUMBER = frozenset((type(None), bool, str, list, dict))
_NEITHER_NUMBER_NOR_BOOL = _NONNUMBER - {bool}


def _equals_fast(left: Any, right: Any) -> bool:
    """As jmespath's ``_equals``: ``0``/``1`` never equal ``false``/``true``, which only numbers and booleans reach."""
    if left.__class__ in _NEITHER_NUMBER_NOR_BOOL or right.__class__ in _NEITHER_NUMBER_NOR_BOOL:
        return bool(left == right)
    return bool(_equals(left, right))


def _comparable(value: Any) -> bool:
    if value.__class__ in _NUMSTR:
        return True
    if value.__class__ in _NONNUMBER:
        return False
    return bool(_is_comparable(value))


def _ordered(compare: Callable[[Any, Any], Any], left: Any, right: Any) -> Any:
    if not (_comparable(left) and _comparable(right)):
        return None
    return compare(left, right)


def _not(value: Any) -> bool:  # the generated code tests _NONNUMBER classes inline first
    if _is_actual_number(value) and value == 0:
        return False  # !0 is false: 0 is not a falsy value in JMESPath
    return not value


def _elements(elements: list[Any], classes: frozenset[type]) -> bool:
    """Whether every element's class is one of ``classes`` (an ``array-<type>`` signature passes)."""
    for element in elements:
        if element.__class__ not in classes:
            return False
    return True


def _homogeneous(elements: list[Any], groups: tuple[frozenset[type], ...]) -> bool:
    """As jmespath's check of ``array-number|array-string``: the first element picks the type of all."""
    if not elements:
        return True
    first = elements[0].__class__
    for classes in groups:
        if first in classes:
            return _elements(elements, classes)
    return False


def _out(state: State) -> ExpressionLimitError:
    return state.out_of_steps()


def _too_big(value: Any, limit: int) -> ExpressionLimitError:
    what = "characters" if isinstance(value, str) else "items"
    return ExpressionLimitError(f"a value of more than {limit} {what}")


_RUNTIME: dict[str, Any] = {
    "__builtins__": {},
    "type": type,
    "len": len,
    "isinstance": isinstance,
    "dict": dict,
    "list": list,
    "Exception": Exception,
    "BaseException": BaseException,
    "_PLAIN_SIZED": frozenset(_SIZED),
    "_SCALAR": frozenset((type(None), bool, int, float)),
    "_oversized": _oversized,
    "_NUMSTR": _NUMSTR,
    "_NONNUMBER": _NONNUMBER,
    "_Expression": _Expression,
    "_State": State,
    "_Recount": _Recount,
    "_equals": _equals_fast,
    "_is_false": _is_false,
    "_field": _field,
    "_field_sized": _field_sized,
    "_index": _index,
    "_values": _values,
    "_flatten": _flatten,
    "_ordered": _ordered,
    "_not": _not,
    "_elements": _elements,
    "_homogeneous": _homogeneous,
    "_out": _out,
    "_too_big": _too_big,
}


class _Bounded(jmespath.visitor.TreeInterpreter):
    """JMESPath's interpreter, counting the nodes it visits and measuring what each step makes."""

    def __init__(self, options: jmespath.Options, budget: int, limit: int) -> None:
        super().__init__(options)
        self._steps = self._budget = budget
        self._limit = limit

    def visit(self, node: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        self._steps -= 1
        if self._steps < 0:
            raise ExpressionLimitError(f"more than {self._budget} evaluation steps")
        result = super().visit(node, *args, **kwargs)
        if isinstance(result, _SIZED) and len(result) > self._limit:
            raise _too_big(result, self._limit)
        return result
