"""JMESPath syntax trees compiled to Python closures, with the reference interpreter's semantics and bounds.

``jmespath``'s ``TreeInterpreter`` walks the syntax tree on every evaluation: several method calls
and dictionary lookups per node, about half of the time wmap spends interpreting a workload. Here
each node becomes one closure that calls its children's closures directly; a chain of fields
(``spec.template.spec``) is one loop.

Each closure does what ``TreeInterpreter.visit_<type>`` does, line for line (the helpers that decide
equality, comparability and truth are jmespath's own), and what ``expressions._Bounded`` adds: one
step per node evaluated, counted against the evaluation's budget before the node runs, and every
list, object or string a node returns measured against the size bound. The same steps are
counted in the same order as the interpreter visits them, so a limit trips on the same input with
the same error. Functions are called through the same ``Functions.call_function`` (arity and type
checks); an ``&expression`` is an ``_Expression`` as jmespath's functions expect (``sort_by``,
``max_by``, ``map`` evaluate it through ``visit``), evaluated by its compiled closure.
``tests/test_jmespath_compiler.py`` runs jmespath's compliance cases and every built-in definition
on every corpus document through both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jmespath.visitor import TreeInterpreter, _is_actual_number, _is_comparable

from .errors import ExpressionLimitError

__all__ = ["Program", "State", "compile_tree"]

_SIZED = (list, dict, str)
_COMPARATORS = TreeInterpreter.COMPARATOR_FUNC


class State:
    """One evaluation: the steps left, the step budget (for the message) and the functions object.

    ``functions`` is made on the first function call (``make_functions(*arguments)``), since most
    expressions call none.
    """

    __slots__ = ("steps", "budget", "make_functions", "arguments", "_functions")

    def __init__(self, budget: int, make_functions: Callable[..., Any], *arguments: Any) -> None:
        self.steps = budget
        self.budget = budget
        self.make_functions = make_functions
        self.arguments = arguments
        self._functions: Any = None

    def functions(self) -> Any:
        """The ``jmespath.functions.Functions`` object of this evaluation."""
        if self._functions is None:
            self._functions = self.make_functions(*self.arguments)
        return self._functions

    def call(self, name: str, args: list[Any]) -> Any:
        """Call the JMESPath function ``name`` (arity and argument types checked, as jmespath does)."""
        functions = self.functions()
        key = (functions.__class__, name, *[arg.__class__ for arg in args])
        function = _ACCEPTED.get(key)
        if function is not None:  # these argument types passed jmespath's checks before
            return function(functions, *args)
        result = functions.call_function(name, args)  # checks arity and types; raises as jmespath does
        spec = functions.FUNCTION_TABLE[name]
        if _by_type_only(spec["signature"]) and len(_ACCEPTED) < _ACCEPTED_LIMIT:
            _ACCEPTED[key] = spec["function"]
        return result

    def out_of_steps(self) -> ExpressionLimitError:
        """The error of a spent step budget."""
        return ExpressionLimitError(f"more than {self.budget} evaluation steps")


# Functions by (functions class, name, argument classes) that passed jmespath's arity and type checks:
# for a signature without element types (array-number) the check reads only each argument's class.
_ACCEPTED: dict[tuple[Any, ...], Callable[..., Any]] = {}
_ACCEPTED_LIMIT = 4096


def _by_type_only(signature: list[dict[str, Any]]) -> bool:
    return not any("-" in kind for argument in signature for kind in argument.get("types") or ())


Program = Callable[[Any, State], Any]
"""A compiled node: ``program(value, state)`` is ``TreeInterpreter().visit(node, value)``."""


class _Expression:
    """An ``&expression`` value; the class name is what jmespath's function signatures check (``expref``)."""

    __slots__ = ("expression", "state")

    def __init__(self, expression: Program, state: State) -> None:
        self.expression = expression
        self.state = state

    def visit(self, expression: Program, value: Any) -> Any:
        return expression(value, self.state)


def _is_false(value: Any) -> bool:
    # As TreeInterpreter._is_false: equality on purpose (JMESPath's falsy values are not Python's).
    if value is None or value is False:
        return True
    kind = value.__class__
    if kind is dict or kind is list or kind is str:  # the parsed document's own types: empty is false
        return not value
    return bool(value == "" or value == [] or value == {})


def _spend(state: State, steps: int) -> None:
    """Set the steps left and give None (a field of something that has no fields)."""
    state.steps = steps
    return None


def compile_tree(node: dict[str, Any], max_value_size: int) -> Program:
    """The closure that evaluates the JMESPath syntax tree ``node`` (as ``jmespath.compile(...).parsed``).

    Raises:
        ValueError: a node type this compiler does not know (jmespath added one).
        RecursionError: a tree too deep to compile (a long chain of pipes): the caller falls back to
            the interpreter, which fails on it as it always did.
    """
    return _Compiler(max_value_size).compile(node)


class _Compiler:
    def __init__(self, limit: int) -> None:
        self.limit = limit

    def compile(self, node: dict[str, Any]) -> Program:
        kind = node["type"]
        build = getattr(self, f"_{kind}", None)
        if build is None:
            raise ValueError(f"unknown JMESPath node type {kind!r}")
        program: Program = build(node)
        return program

    def _checked(self, body: Callable[[Any, State], Any]) -> Program:
        """``body`` with the step count before it and the size bound on what it returns."""
        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            result = body(value, state)
            if isinstance(result, _SIZED) and len(result) > limit:
                raise _too_big(result, limit)
            return result

        return run

    # -- leaves ------------------------------------------------------------------------------

    def _field(self, node: dict[str, Any]) -> Program:
        return self._fields((node["value"],), outer_steps=0)

    def _fields(self, keys: tuple[Any, ...], outer_steps: int) -> Program:
        """Fields looked up one after another; ``outer_steps`` = 1 for the subexpression node around them."""
        limit = self.limit
        count = len(keys)
        total = outer_steps + count  # a chain costs the same steps whether or not it meets None
        slow = self._fields_counted(keys, outer_steps)

        def run(value: Any, state: State) -> Any:
            steps = state.steps - total
            if steps < 0:  # the budget runs out inside the chain: find the field it runs out at
                return slow(value, state)
            start = value
            for key in keys:
                try:
                    value = value.get(key)
                except AttributeError:
                    value = None
                if value is None:
                    break
                if isinstance(value, _SIZED) and len(value) > limit:
                    return slow(start, state)  # the error, with the steps counted up to that field
            state.steps = steps
            return value

        if count == 1:
            (only,) = keys

            def run_one(value: Any, state: State) -> Any:
                steps = state.steps - total
                if steps < 0:
                    return slow(value, state)
                try:
                    found = value.get(only)
                except AttributeError:
                    return _spend(state, steps)
                if isinstance(found, _SIZED) and len(found) > limit:
                    return slow(value, state)
                state.steps = steps
                return found

            return run_one
        return run

    def _fields_counted(self, keys: tuple[Any, ...], outer_steps: int) -> Program:
        """``_fields`` one step at a time: where the budget runs out or a value is too big."""
        limit = self.limit
        count = len(keys)

        def run(value: Any, state: State) -> Any:
            steps = state.steps - outer_steps  # the subexpression node is counted before its children
            if steps < 0:
                state.steps = steps
                raise state.out_of_steps()
            for position, key in enumerate(keys):
                steps -= 1
                if steps < 0:
                    state.steps = steps
                    raise state.out_of_steps()
                try:
                    value = value.get(key)
                except AttributeError:
                    value = None
                if value is None:  # every later field visits None and gives None: count their steps
                    steps -= count - position - 1
                    if steps < 0:
                        state.steps = steps
                        raise state.out_of_steps()
                    break
                if isinstance(value, _SIZED) and len(value) > limit:
                    state.steps = steps
                    raise _too_big(value, limit)
            state.steps = steps
            return value

        return run

    def _current(self, node: dict[str, Any]) -> Program:
        return self._checked(lambda value, state: value)

    _identity = _current

    def _literal(self, node: dict[str, Any]) -> Program:
        literal = node["value"]
        if isinstance(literal, _SIZED) and len(literal) > self.limit:
            return self._checked(lambda value, state: literal)

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            return literal

        return run

    def _index(self, node: dict[str, Any]) -> Program:
        position = node["value"]

        def body(value: Any, state: State) -> Any:
            if not isinstance(value, list):
                return None
            try:
                return value[position]
            except IndexError:
                return None

        return self._checked(body)

    def _slice(self, node: dict[str, Any]) -> Program:
        bounds = node["children"]

        def body(value: Any, state: State) -> Any:
            if not isinstance(value, list):
                return None
            return value[slice(*bounds)]

        return self._checked(body)

    def _expref(self, node: dict[str, Any]) -> Program:
        expression = self.compile(node["children"][0])
        return self._checked(lambda value, state: _Expression(expression, state))

    # -- chains ------------------------------------------------------------------------------

    def _subexpression(self, node: dict[str, Any]) -> Program:
        children = node["children"]
        if all(child["type"] == "field" for child in children):
            return self._fields(tuple(child["value"] for child in children), outer_steps=1)
        return self._sequence(children)

    def _sequence(self, children: list[dict[str, Any]]) -> Program:
        programs = tuple(self.compile(child) for child in children)
        limit = self.limit
        if len(programs) == 2:  # a.b, x | y, x[0]: the common case, without the loop
            first, second = programs

            def run_two(value: Any, state: State) -> Any:
                state.steps -= 1
                if state.steps < 0:
                    raise state.out_of_steps()
                result = second(first(value, state), state)
                if isinstance(result, _SIZED) and len(result) > limit:
                    raise _too_big(result, limit)
                return result

            return run_two

        def body(value: Any, state: State) -> Any:
            for program in programs:
                value = program(value, state)
            return value

        return self._checked(body)

    def _index_expression(self, node: dict[str, Any]) -> Program:
        return self._sequence(node["children"])

    def _pipe(self, node: dict[str, Any]) -> Program:
        return self._sequence(node["children"])

    # -- operators ---------------------------------------------------------------------------

    def _comparator(self, node: dict[str, Any]) -> Program:
        name = node["value"]
        compare = _COMPARATORS[name]
        left, right = (self.compile(child) for child in node["children"])
        # a comparison gives true, false or null: nothing to measure
        if name in ("eq", "ne"):

            def equality(value: Any, state: State) -> Any:
                state.steps -= 1
                if state.steps < 0:
                    raise state.out_of_steps()
                return compare(left(value, state), right(value, state))

            return equality

        def ordered(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            first = left(value, state)
            second = right(value, state)
            if not (_is_comparable(first) and _is_comparable(second)):
                return None
            return compare(first, second)

        return ordered

    def _or_expression(self, node: dict[str, Any]) -> Program:
        left, right = (self.compile(child) for child in node["children"])
        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            matched = left(value, state)
            if _is_false(matched):
                matched = right(value, state)
                if isinstance(matched, _SIZED) and len(matched) > limit:
                    raise _too_big(matched, limit)
            return matched  # the left value was measured when the left node made it

        return run

    def _and_expression(self, node: dict[str, Any]) -> Program:
        left, right = (self.compile(child) for child in node["children"])
        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            matched = left(value, state)
            if _is_false(matched):
                return matched
            matched = right(value, state)
            if isinstance(matched, _SIZED) and len(matched) > limit:
                raise _too_big(matched, limit)
            return matched

        return run

    def _not_expression(self, node: dict[str, Any]) -> Program:
        child = self.compile(node["children"][0])

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            original = child(value, state)
            if _is_actual_number(original) and original == 0:
                return False  # !0 is false: 0 is not a falsy value in JMESPath
            return not original

        return run

    def _function_expression(self, node: dict[str, Any]) -> Program:
        name = node["value"]
        arguments = tuple(self.compile(child) for child in node["children"])
        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            result = state.call(name, [argument(value, state) for argument in arguments])
            if isinstance(result, _SIZED) and len(result) > limit:
                raise _too_big(result, limit)
            return result

        return run

    # -- projections and selections ----------------------------------------------------------

    def _projection(self, node: dict[str, Any]) -> Program:
        base, each = (self.compile(child) for child in node["children"])
        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            elements = base(value, state)
            if not isinstance(elements, list):
                return None
            collected = []
            for element in elements:
                current = each(element, state)
                if current is not None:
                    collected.append(current)
            if len(collected) > limit:
                raise _too_big(collected, limit)
            return collected

        return run

    def _value_projection(self, node: dict[str, Any]) -> Program:
        base, each = (self.compile(child) for child in node["children"])

        def body(value: Any, state: State) -> Any:
            elements = base(value, state)
            try:
                elements = elements.values()
            except AttributeError:
                return None
            collected = []
            for element in elements:
                current = each(element, state)
                if current is not None:
                    collected.append(current)
            return collected

        return self._checked(body)

    def _filter_projection(self, node: dict[str, Any]) -> Program:
        base, each, condition = (self.compile(child) for child in node["children"])

        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            elements = base(value, state)
            if not isinstance(elements, list):
                return None
            collected = []
            for element in elements:
                if not _is_false(condition(element, state)):
                    current = each(element, state)
                    if current is not None:
                        collected.append(current)
            if len(collected) > limit:
                raise _too_big(collected, limit)
            return collected

        return run

    def _flatten(self, node: dict[str, Any]) -> Program:
        base = self.compile(node["children"][0])

        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            elements = base(value, state)
            if not isinstance(elements, list):
                return None
            merged: list[Any] = []
            for element in elements:
                if isinstance(element, list):
                    merged.extend(element)
                else:
                    merged.append(element)
            if len(merged) > limit:
                raise _too_big(merged, limit)
            return merged

        return run

    def _multi_select_dict(self, node: dict[str, Any]) -> Program:
        # each key_val_pair node inlined: one step before its value, the value measured after
        pairs = tuple((child["value"], self.compile(child["children"][0])) for child in node["children"])
        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            if value is None:
                return None
            collected = {}
            for key, program in pairs:
                state.steps -= 1
                if state.steps < 0:
                    raise state.out_of_steps()
                item = program(value, state)
                if isinstance(item, _SIZED) and len(item) > limit:
                    raise _too_big(item, limit)
                collected[key] = item
            if len(collected) > limit:
                raise _too_big(collected, limit)
            return collected

        return run

    def _multi_select_list(self, node: dict[str, Any]) -> Program:
        programs = tuple(self.compile(child) for child in node["children"])
        limit = self.limit

        def run(value: Any, state: State) -> Any:
            state.steps -= 1
            if state.steps < 0:
                raise state.out_of_steps()
            if value is None:
                return None
            collected = [program(value, state) for program in programs]
            if len(collected) > limit:
                raise _too_big(collected, limit)
            return collected

        return run


def _too_big(value: Any, limit: int) -> ExpressionLimitError:
    what = "characters" if isinstance(value, str) else "items"
    return ExpressionLimitError(f"a value of more than {limit} {what}")
