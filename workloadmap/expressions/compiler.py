"""JMESPath syntax trees compiled to Python functions, with the reference interpreter's semantics and bounds.

``jmespath``'s ``TreeInterpreter`` walks the syntax tree on every evaluation: several method calls
and dictionary lookups per node. Here each expression becomes the source of one Python function
(field chains, ``||``, ``&&``, comparisons and multi-selects written out inline, the values in local
variables), compiled once with ``compile()``.

Each node's code does what ``TreeInterpreter.visit_<type>`` does (the helpers that decide equality,
comparability and truth are jmespath's own, or inline tests that agree with them on the parsed
document's types and fall back to them on any other), and what ``expressions.runtime._Bounded`` adds: one
step per node evaluated, counted against the evaluation's budget, and every list, object or string
a node returns measured against the size bound. Functions whose arguments' classes pass jmespath's
signature checks are called directly; any other call goes through ``Functions.call_function``
(arity and type errors as jmespath raises them). An ``&expression`` is an ``_Expression`` as
jmespath's functions expect (``sort_by``, ``max_by``, ``map`` evaluate it through ``visit``).

Two functions are generated per expression. The *fast* one keeps the step counter in a local
variable and subtracts a straight run of nodes' steps at once, checking the budget once per loop
iteration and at the end: the same total, so the same answer and the same steps left. The *precise*
one counts and checks every node in the interpreter's order; it is generated when the fast one
raises anything (an error of the input, a spent budget), and evaluates again from the start, so an
error is the one the interpreter raises at the node it raises it. A tree that calls no function needs
no state but its budget: compiled with one, it runs with ``state`` None (most of a definition's
expressions, evaluated with no object made). ``tests/test_jmespath_compiler.py``
runs jmespath's compliance shapes and every built-in definition on every corpus document through
both and the interpreter.

Definitions are untrusted input, and their text never becomes code: the generated source is made
of this module's templates, generated local names and ``repr()`` of exact ``str`` and small ``int``
values (which Python reads back as that same value); every other key, literal, slice or function
is passed in a table of constants and named by its position (``_c3``). The functions run with no
builtins but the names ``expressions.runtime`` hands them. A tree that cannot be written this way
(deeper than :data:`MAX_DEPTH`, too many nested loops for Python) raises ValueError, and the
caller evaluates it with the interpreter.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from types import CodeType
from typing import Any, NamedTuple

from .runtime import _RUNTIME, Program, State, _Expression

__all__ = ["MAX_DEPTH", "Generated", "compile_source", "compile_tree", "generate", "load", "stateless"]

MAX_DEPTH = 100
"""Syntax-tree depth the generator writes out; a deeper tree is left to the interpreter."""
_ORDERED = {"lt": ("<", operator.lt), "gt": (">", operator.gt), "lte": ("<=", operator.le), "gte": (">=", operator.ge)}
_CLASSES = {
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
    "string": (str,),
    "number": (int, float),
    "expref": (_Expression,),
}


def compile_tree(node: dict[str, Any], max_value_size: int, functions: type, *, budget: int | None = None) -> Program:
    """The function that evaluates the JMESPath syntax tree ``node`` (as ``jmespath.compile(...).parsed``).

    ``functions`` is the ``jmespath.functions.Functions`` class the state's functions object is
    made of (its ``FUNCTION_TABLE`` names what a call runs). With ``budget``, a tree that calls no
    function may be run with ``state`` None (see :func:`stateless`): it counts against ``budget``.

    Raises:
        ValueError: a tree this generator does not write (deeper than :data:`MAX_DEPTH`, a node type
            jmespath added, more nested loops or a literal larger than Python or the size bound allow):
            the caller evaluates it with the interpreter.
    """
    generated = generate(node, max_value_size, functions, budget=budget)
    return load(generated, compile_source(generated.source), lambda: node, functions)


class Generated(NamedTuple):
    """The fast function of one tree as :func:`generate` writes it: what :func:`load` runs.

    The built-in catalog ships this form (``catalog/compiled.pickle``, written by ``python -m
    workloadmap.catalog``), so a fresh process neither interprets nor generates its expressions.
    """

    source: str
    """The Python source of ``_run`` and of one function per ``&expression``."""
    constants: tuple[tuple[str, Any], ...]
    """The values the source names (``_c0`` ...): keys, literals, slices, class sets, functions."""
    limit: int
    """The size bound written into the source."""
    budget: int | None
    """The step budget of a run with ``state`` None (a tree that calls no function), else None."""


def generate(node: dict[str, Any], max_value_size: int, functions: type, *, budget: int | None = None) -> Generated:
    """The fast function of ``node`` as source and constants (arguments and errors as :func:`compile_tree`)."""
    if _depth(node) > MAX_DEPTH:
        raise ValueError(f"JMESPath tree deeper than {MAX_DEPTH}")
    budget = budget if budget is not None and stateless(node) else None
    writer = _Writer(node, max_value_size, functions, precise=False, budget=budget)
    source = writer.source()
    constants = tuple((name, writer.namespace[name]) for name in writer.constants.values())
    return Generated(source, constants, writer.limit, budget)


def compile_source(source: str) -> CodeType:
    """The code object of a generated source.

    Raises:
        ValueError: Python cannot compile it (too many nested loops or blocks).
    """
    try:
        return compile(source, "<jmespath>", "exec")
    except (SyntaxError, RecursionError, MemoryError) as error:
        raise ValueError(f"JMESPath tree Python cannot compile: {error}") from None


def load(generated: Generated, code: CodeType, tree: Callable[[], dict[str, Any]], functions: type) -> Program:
    """The program of a generated function (``code`` compiled from ``generated.source``).

    ``tree`` gives the syntax tree when the precise function is first needed (an error, a spent
    budget): it is generated then, from the tree, as the interpreter counts.
    """
    namespace = dict(_RUNTIME)
    namespace.update(generated.constants)
    exec(code, namespace)  # templates and generated names; definition text only as repr() and constants
    holder: list[Program] = []

    def precise(value: Any, state: State) -> Any:
        if not holder:
            holder.append(_Writer(tree(), generated.limit, functions, precise=True).build()["_run"])
        return holder[0](value, state)

    namespace["_precise"] = precise
    program: Program = namespace["_run"]
    return program


def stateless(node: dict[str, Any]) -> bool:
    """Whether a tree calls no function: with a budget, its program needs no state (no ``root()``, no refs)."""
    return not _has(node, "function_expression")


def _depth(node: Any) -> int:
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in current.get("children", ()) if isinstance(child, dict))
    return deepest


class _Writer:
    """The source of one expression's functions: ``_run`` and one function per ``&expression``."""

    def __init__(
        self, tree: dict[str, Any], limit: int, functions: type, *, precise: bool, budget: int | None = None
    ) -> None:
        self.tree = tree
        self.budget = budget  # the fast function's, when its state may be None
        self.limit = int(limit)  # written into the source
        self.table: dict[str, Any] = functions.FUNCTION_TABLE  # type: ignore[attr-defined]
        self.precise = precise
        self.namespace = dict(_RUNTIME)
        self.constants: dict[int, str] = {}
        self.functions: list[list[str]] = []
        self.lines: list[str] = []
        self.indent = 0
        self.temps = 0
        self.pending = 0  # steps of the fast function not yet subtracted
        self.exprefs = _has(tree, "expref")
        self.present: set[str] = set()  # values known not to be null where the code is being written

    def source(self) -> str:
        self.function("_run", self.tree, main=True)
        return "\n".join(line for body in self.functions for line in body) + "\n"

    def build(self) -> dict[str, Any]:
        code = compile_source(self.source())
        exec(code, self.namespace)  # templates and generated names; definition text only as repr() and constants
        return self.namespace

    # -- writing -----------------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def constant(self, value: Any) -> str:
        """A name for ``value`` in the functions' namespace (never its text in the source)."""
        name = self.constants.get(id(value))
        if name is None:
            name = self.constants[id(value)] = f"_c{len(self.constants)}"
            self.namespace[name] = value
        return name

    def literal(self, value: Any) -> str:
        """Python code giving ``value``: ``repr()`` of an exact str or small int, else a constant."""
        if value is None or value is True or value is False:
            return repr(value)
        if type(value) is str:
            return repr(value)
        if type(value) is int and abs(value) < 2**53:
            return f"({value!r})"
        return self.constant(value)

    def step(self) -> None:
        if self.precise:
            self.line("steps -= 1")
            self.line("if steps < 0: raise _out(state)")
        else:
            self.pending += 1

    def flush(self, check: bool = False) -> None:
        """Subtract the fast function's pending steps (before code that runs more or less than once)."""
        if self.pending:
            self.line(f"steps -= {self.pending}")
            self.pending = 0
        if check and not self.precise:
            self.line("if steps < 0: raise _Recount")

    def open(self, header: str) -> None:
        self.line(header)
        self.indent += 1

    def close(self, check: bool = False) -> None:
        self.flush(check)
        self.line("pass")
        self.indent -= 1

    def sized(self, name: str) -> None:
        # as isinstance(value, (list, dict, str)), a third as dear on the plain classes of parsed documents;
        # null and numbers (most fields read) are passed after one test
        limit = self.limit
        self.line(
            f"if (cls := type({name})) not in _SCALAR and (len({name}) > {limit} if cls in _PLAIN_SIZED"
            f" else _oversized({name}, {limit})): raise _too_big({name}, {limit})"
        )

    def false(self, name: str) -> str:
        # Python-truthy values of the document's types are never JMESPath-false: test those first.
        return f"({name} is None or not {name} and _is_false({name}))"

    def function(self, name: str, node: dict[str, Any], *, main: bool = False) -> None:
        saved = (self.lines, self.indent, self.pending)
        self.lines, self.indent, self.pending = [], 0, 0
        self.open(f"def {name}(value, state):")
        if main and not self.precise:
            start = "state.steps" if self.budget is None else f"{int(self.budget)} if state is None else state.steps"
            self.line(f"initial = steps = {start}")
        else:
            self.line("steps = state.steps")
        if main or self.precise:
            self.open("try:")
        result = self.expr(node, "value")
        self.flush(check=True)
        if main and not self.precise:
            self.indent -= 1
            self.open("except Exception:")  # anything, even a spent budget: count node by node
            if self.budget is not None:
                self.line(f"if state is None: state = _State({int(self.budget)}, None)")
            self.line("state.steps = initial")
            self.line("return _precise(value, state)")
            self.indent -= 1
        elif self.precise:
            self.indent -= 1
            self.open("except BaseException:")
            self.line("if steps is not None: state.steps = steps")
            self.line("raise")
            self.indent -= 1
        self.line(("if state is not None: " if self.budget is not None and main else "") + "state.steps = steps")
        self.line(f"return {result}")
        self.functions.append(self.lines)
        self.lines, self.indent, self.pending = saved

    # -- nodes -------------------------------------------------------------------------------

    def expr(self, node: dict[str, Any], value: str) -> str:
        """Write the code of ``node`` on the value named ``value``; the name (or code) of its result."""
        write = getattr(self, f"_{node['type']}", None)
        if write is None:
            raise ValueError(f"unknown JMESPath node type {node['type']!r}")
        result: str = write(node, value)
        return result

    def _field(self, node: dict[str, Any], value: str) -> str:
        return self._fields([node["value"]], value)

    def _fields(self, keys: list[Any], value: str) -> str:
        """A chain of field lookups (``a.b.c``) into one local; each result is measured."""
        result, limit = self.temp(), self.limit
        for position, key in enumerate(keys):
            self.step()
            code = self.literal(key)
            if self.precise or position == 0:
                self.line(
                    f"{result} = {value}.get({code}) if type({value}) is dict"
                    f" else None if {value} is None else _field({value}, {code})"
                )
                if self.precise:
                    self.sized(result)
            else:  # the fast function measures the field before: the next lookup reads its length anyway
                self.line(
                    f"{result} = {result}.get({code}) if type({result}) is dict and len({result}) <= {limit}"
                    f" else None if {result} is None else _field_sized({result}, {code}, {limit})"
                )
            value = result
        if not self.precise:
            self.sized(result)
        return result

    def _sequence(self, node: dict[str, Any], value: str) -> str:
        self.step()
        keys: list[Any] = []
        for child in node["children"]:
            if child["type"] == "field":
                keys.append(child["value"])
                continue
            if keys:
                value, keys = self._fields(keys, value), []
            value = self.expr(child, value)
        return self._fields(keys, value) if keys else value  # measured as its last child's result

    _subexpression = _index_expression = _pipe = _sequence

    def _current(self, node: dict[str, Any], value: str) -> str:
        self.step()
        self.sized(value)
        return value

    _identity = _current

    def _literal(self, node: dict[str, Any], value: str) -> str:
        result = self.temp()  # a name: Python warns of `"text" is None` and `(1)[0]` written out
        self.line(f"{result} = {self.operand(node, value)}")
        return result

    def operand(self, node: dict[str, Any], value: str) -> str:
        """Like :meth:`expr`, but a literal is given as code (an operand of ``==``, an argument)."""
        if node["type"] != "literal":
            return self.expr(node, value)
        self.step()
        literal = node["value"]
        if isinstance(literal, (list, dict, str)) and len(literal) > self.limit:
            raise ValueError("a literal larger than the size bound")
        return self.literal(literal)

    def _index(self, node: dict[str, Any], value: str) -> str:
        self.step()
        position = node["value"]
        if type(position) is not int:
            raise ValueError("an index that is not an integer")
        inside = f"len({value}) > {position}" if position >= 0 else f"len({value}) >= {-position}"
        result = self.temp()
        self.line(
            f"{result} = {value}[{position}] if type({value}) is list and {inside} else _index({value}, {position})"
        )
        self.sized(result)
        return result

    def _slice(self, node: dict[str, Any], value: str) -> str:
        self.step()
        bounds = self.constant(slice(*node["children"]))
        result = self.temp()
        self.line(f"{result} = {value}[{bounds}] if isinstance({value}, list) else None")
        self.sized(result)
        return result

    def _expref(self, node: dict[str, Any], value: str) -> str:
        self.step()
        self.temps += 1
        name = f"_e{self.temps}"
        self.function(name, node["children"][0])
        result = self.temp()
        self.line(f"{result} = _Expression({name}, state)")
        return result

    def _comparator(self, node: dict[str, Any], value: str) -> str:
        self.step()
        kind = node["value"]
        left_node, right_node = node["children"]
        left = self.operand(left_node, value)
        right = self.operand(right_node, value)
        result = self.temp()
        if kind in ("eq", "ne"):
            negate = "not " if kind == "ne" else ""
            # _equals special-cases only numbers 0 and 1 against booleans: a string or null literal side is plain ==
            if any(_plain_equality(side) for side in (left_node, right_node)):
                self.line(f"{result} = {negate}({left} == {right})")
            else:
                self.line(f"{result} = {negate}_equals({left}, {right})")
            return result
        symbol, compare = _ORDERED[kind]
        # a number or string literal side is known comparable: only the other side's class is tested
        sides = ((left, left_node), (right, right_node))
        tests = [f"type({code}) in _NUMSTR" for code, side in sides if not _numstr_literal(side)]
        self.line(
            f"{result} = ({left} {symbol} {right}) if {' and '.join(tests) or 'True'}"
            f" else _ordered({self.constant(compare)}, {left}, {right})"
        )
        return result

    def _or_expression(self, node: dict[str, Any], value: str) -> str:
        return self._boolean(node, value, "")

    def _and_expression(self, node: dict[str, Any], value: str) -> str:
        return self._boolean(node, value, "not ")

    def _boolean(self, node: dict[str, Any], value: str, negate: str) -> str:
        self.step()
        left_node, right_node = node["children"]
        first = self.temps
        result = self.operand(left_node, value)
        if not _made_after(result, first):  # the input itself, or a literal: take a local of our own
            result, code = self.temp(), result
            self.line(f"{result} = {code}")
        self.flush()
        self.open(f"if {negate}{self.false(result)}:")
        self.line(f"{result} = {self.operand(right_node, value)}")
        self.close()
        return result  # either side was measured when it was made

    def _not_expression(self, node: dict[str, Any], value: str) -> str:
        self.step()
        original = self.expr(node["children"][0], value)
        result = self.temp()
        self.line(f"{result} = (not {original}) if type({original}) in _NONNUMBER else _not({original})")
        return result

    def _function_expression(self, node: dict[str, Any], value: str) -> str:
        self.step()
        name = node["value"]
        arguments = [self.operand(child, value) for child in node["children"]]
        result = self.temp()
        self.line("F = state.fn or state.functions()")
        if self.exprefs:  # an &expression counts its steps in the state while the function runs
            self.flush()
            self.line("state.steps = steps")
            if self.precise:
                self.line("steps = None")  # the state holds the count until the call returns
        generic = f"F.call_function({self.literal(name)}, [{', '.join(arguments)}])"
        direct = self._direct(name, arguments)
        if direct is None:
            self.line(f"{result} = {generic}")
        else:
            guard, call = direct
            self.line(f"{result} = {call} if {guard} else {generic}" if guard else f"{result} = {call}")
        if self.exprefs:
            self.line("steps = state.steps")
        self.sized(result)
        return result

    def _direct(self, name: str, arguments: list[str]) -> tuple[str, str] | None:
        """The call of the function's body and the test of its arguments' classes that lets it skip the checks."""
        spec = self.table.get(name)
        if spec is None:
            return None
        signature = spec["signature"]
        variadic = bool(signature) and signature[-1].get("variadic")
        if len(arguments) < len(signature) if variadic else len(arguments) != len(signature):
            return None  # call_function raises the arity error
        guards = []
        for argument, types in zip(
            arguments, (entry["types"] for entry in signature), strict=False
        ):  # variadic: the rest unchecked
            if not types:
                continue
            guard = self._guard(argument, types)
            if guard is None:
                return None
            guards.append(guard)
        call = f"{self.constant(spec['function'])}(F{''.join(', ' + argument for argument in arguments)})"
        return " and ".join(guards), call

    def _guard(self, argument: str, types: list[str]) -> str | None:
        plain = [kind for kind in types if "-" not in kind]
        elements = [kind.split("-", 1)[1] for kind in types if "-" in kind]
        if any(kind not in _CLASSES for kind in plain + elements):
            return None
        if not elements:
            classes = frozenset(cls for kind in plain for cls in _CLASSES[kind])
            return f"type({argument}) in {self.constant(classes)}"
        if plain or any(kind.split("-", 1)[0] != "array" for kind in types):
            return None  # mixed signatures: jmespath's own check
        groups = tuple(frozenset(_CLASSES[kind]) for kind in elements)
        if len(groups) == 1:
            return f"type({argument}) is list and _elements({argument}, {self.constant(groups[0])})"
        return f"type({argument}) is list and _homogeneous({argument}, {self.constant(groups)})"

    def _projection(self, node: dict[str, Any], value: str) -> str:
        return self._each(node, value, None)

    def _filter_projection(self, node: dict[str, Any], value: str) -> str:
        return self._each(node, value, node["children"][2])

    def _each(self, node: dict[str, Any], value: str, condition: dict[str, Any] | None) -> str:
        self.step()
        base = self.expr(node["children"][0], value)
        result, element = self.temp(), self.temp()
        self.flush()
        self.open(f"if isinstance({base}, list):")
        self.line(f"{result} = []")
        self.open(f"for {element} in {base}:")
        if condition is not None:
            matched = self.expr(condition, element)
            self.flush()
            self.open(f"if not {self.false(matched)}:")
        current = self.expr(node["children"][1], element)
        self.line(f"if {current} is not None: {result}.append({current})")
        if condition is not None:
            self.close()
        self.close(check=True)
        self.close()
        self.open("else:")
        self.line(f"{result} = None")
        self.close()
        return result  # no longer than the base, which was measured

    def _value_projection(self, node: dict[str, Any], value: str) -> str:
        self.step()
        base = self.expr(node["children"][0], value)
        elements = self.temp()
        self.line(f"{elements} = {base}.values() if type({base}) is dict else _values({base})")
        result = self.temp()
        self.line(f"{result} = None")
        self.flush()
        self.open(f"if {elements} is not None:")
        self.line(f"{result} = []")
        element = self.temp()
        self.open(f"for {element} in {elements}:")
        current = self.expr(node["children"][1], element)
        self.line(f"if {current} is not None: {result}.append({current})")
        self.close(check=True)
        self.close()
        self.sized(result)
        return result

    def _flatten(self, node: dict[str, Any], value: str) -> str:
        self.step()
        base = self.expr(node["children"][0], value)
        result = self.temp()
        self.line(f"{result} = _flatten({base}) if isinstance({base}, list) else None")
        self.sized(result)
        return result

    def _multi_select_dict(self, node: dict[str, Any], value: str) -> str:
        pairs = [(child["value"], child["children"][0]) for child in node["children"]]
        return self._select(value, pairs, "{%s}", lambda key, item: f"{self.literal(key)}: {item}")

    def _multi_select_list(self, node: dict[str, Any], value: str) -> str:
        pairs = [(None, child) for child in node["children"]]
        return self._select(value, pairs, "[%s]", lambda key, item: item)

    def _select(self, value: str, pairs: list[Any], shape: str, entry: Callable[[Any, str], str]) -> str:
        self.step()
        if len(pairs) > self.limit:
            raise ValueError("a multi-select larger than the size bound")
        result = self.temp()
        known = value in self.present  # inside a multi-select on the same value: it is not null
        if not known:
            self.line(f"{result} = None")
            self.flush()
            self.open(f"if {value} is not None:")
            self.present.add(value)
        items = []
        for key, child in pairs:
            if key is not None:
                self.step()  # the key_val_pair node
            items.append(entry(key, self.operand(child, value)))
        self.line(f"{result} = {shape % ', '.join(items)}")
        if not known:
            self.present.discard(value)
            self.close()
        return result


def _made_after(code: str, count: int) -> bool:
    """Whether ``code`` names a local made after the ``count``-th (so a node may assign it again)."""
    return code.startswith("t") and code[1:].isdigit() and int(code[1:]) > count


def _numstr_literal(node: dict[str, Any]) -> bool:
    return node["type"] == "literal" and type(node["value"]) in (int, float, str)


def _plain_equality(node: dict[str, Any]) -> bool:
    return node["type"] == "literal" and (node["value"] is None or type(node["value"]) is str)


def _has(node: Any, node_type: str) -> bool:
    if node.get("type") == node_type:
        return True
    return any(_has(child, node_type) for child in node.get("children", ()) if isinstance(child, dict))
