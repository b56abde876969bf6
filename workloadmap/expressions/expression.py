"""Catalog expressions: JMESPath by default, JSONPath (jsonpath-ng) when a definition asks for it.

Expressions are checked and parsed once, when a definition is validated (:func:`compile_expression`),
cached by text; a compile error names the definition file and field. An expression is interpreted
(bounded) for its first ``COMPILE_AFTER`` steps, then written as a Python function (:mod:`.compiler`).
The precompiled built-in catalog stores each expression's text with its generated program
(:meth:`Expression.shipped_form`), loaded on first use: its expressions are neither parsed,
interpreted nor compiled in a fresh process.

JMESPath gets wmap's functions beyond the standard set (``root()``, ``ref(name)``, arithmetic and
more; :mod:`.functions` lists them).

Definitions are untrusted input (``--catalog``, ``WMAP_CATALOG``, a cluster's Kartas), so every
expression is bounded: at compile time by length and nesting (:data:`MAX_EXPRESSION_NESTING`;
a thousand nested parentheses are an error, never a ``RecursionError``) and, for JSONPath, by
refusing the regex-capable extensions (``=~`` filters, ``sub(/regex/, ...)``); at evaluation
(JMESPath) by steps (:data:`MAX_STEPS`), the size of every intermediate list, object and string
(:data:`MAX_VALUE_SIZE`) and the magnitude of numbers (:data:`MAX_NUMBER`). Crossing one is an
:class:`~workloadmap.errors.ExpressionLimitError` naming it.
"""

from __future__ import annotations

import marshal
import pickle
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import jmespath
import jmespath.exceptions
import jmespath.functions

from ..errors import ExpressionError, ExpressionLimitError
from . import analysis
from .functions import MAX_NUMBER, MAX_VALUE_SIZE
from .functions import WmapFunctions as _WmapFunctions
from .runtime import Program, State, _Bounded

if TYPE_CHECKING:
    from .compiler import Generated

__all__ = [
    "Expression",
    "compile_expression",
    "field_path",
    "is_plain_path",
    "LANGUAGES",
    "MAX_EXPRESSION_LENGTH",
    "MAX_EXPRESSION_NESTING",
    "MAX_STEPS",
    "MAX_VALUE_SIZE",
    "MAX_NUMBER",
]

LANGUAGES = ("jmespath", "jsonpath")
MAX_EXPRESSION_LENGTH = 2048
MAX_EXPRESSION_NESTING = 32
"""Brackets, parentheses and braces open at once in one expression (the built-in catalog needs 6)."""
MAX_STEPS = 1_000_000
"""Syntax-tree nodes one JMESPath evaluation may visit (a projection visits its child once per element)."""
COMPILE_AFTER = 400
"""Steps one expression is interpreted for, over its evaluations, before it is compiled (which costs as much)."""


_PLAIN_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@lru_cache(maxsize=1024)
def is_plain_path(source: str) -> bool:
    """Whether an expression is a plain chain of fields (``spec.template``), the same in both languages."""
    return _PLAIN_PATH.fullmatch(source) is not None


def _short(source: str, limit: int = 100) -> str:
    return repr(source if len(source) <= limit else source[: limit - 3] + "...")


class Expression:
    """A compiled expression.

    Attributes:
        source: the expression text.
        language: ``jmespath`` or ``jsonpath``.
    """

    __slots__ = (
        "source",
        "language",
        "_compiled",
        "_scopeless",
        "_memo",
        "_program",
        "_stateless",
        "_builds",
        "_builds_truthy",
        "_origins",
        "_origins_read",
        "_interpreted",
        "_shipped",
    )

    def __init__(self, source: str, language: str, compiled: Any) -> None:
        self.source = source
        self.language = language
        self._compiled = compiled
        # An expression that reads only root() and ref() gives one value per resource, however many
        # instances it is evaluated for (a Grove topology name scanning every clique, per clique).
        # It is kept while root and refs are the very same objects: the interpreter makes a new refs
        # mapping for every resource it inspects, so a resource changed in place and inspected again
        # is evaluated again. Both are held by the memo, so neither identity can be reused meanwhile.
        self._scopeless = language == "jmespath" and not analysis.reads_current(compiled.parsed)
        self._memo: tuple[Any, Any, Any] | None = None
        self._program: Program | None = None
        self._stateless = False  # the program calls no function: it runs without a State
        self._builds: bool | None = None
        self._builds_truthy: bool | None = None
        self._origins: tuple[tuple[str, ...], ...] | None = None
        self._origins_read = False
        self._interpreted = 0
        self._shipped: bytes | None = None

    def __getstate__(self) -> tuple[str, str, bool]:
        # The text only: a stored expression was checked when it was compiled, and is parsed again on
        # its first use, so loading the precompiled catalog does not rebuild 400 syntax trees.
        return (self.source, self.language, self._scopeless)

    def __setstate__(self, state: tuple[str, str, bool]) -> None:
        self.source, self.language, self._scopeless = state
        self._compiled = None
        self._memo = None
        self._program = None
        self._stateless = False
        self._builds = None
        self._builds_truthy = None
        self._origins = None
        self._origins_read = False
        self._interpreted = 0
        self._shipped = None

    def shipped_form(self) -> tuple[Callable[..., Expression], tuple[Any, ...]]:
        """How the built-in catalog stores this expression (a ``pickle`` reduction).

        Its text, what the analysis of its tree decided (so interpretation never parses it), and for
        JMESPath its program as :func:`.compiler.generate` writes it, with the code object compiled
        from that source: the first evaluation in a fresh process loads the program instead of
        interpreting the tree and then generating and compiling Python (a quarter of a second over
        the built-in catalog). The syntax tree is parsed only when the program's precise twin is
        needed (an error, a spent budget).
        """
        program: bytes | None = None
        if self.language == "jmespath":
            from .compiler import compile_source, generate, stateless

            parsed = self._form().parsed
            try:
                generated = generate(parsed, MAX_VALUE_SIZE, _WmapFunctions, budget=MAX_STEPS)
                code = marshal.dumps(compile_source(generated.source))
            except (RecursionError, ValueError):  # left to the interpreter, as _program leaves it
                program = None
            else:  # one compressed blob: unpickled only by the expression's first evaluation
                form = (generated, stateless(parsed), _CODE_TAG, code)
                program = zlib.compress(pickle.dumps(form, protocol=4), 9)
        decided = (self.builds, self.builds_when_truthy, self.origins)
        return _shipped_expression, (self.source, self.language, self._scopeless, decided, program)

    def __repr__(self) -> str:
        return f"Expression({self.language}: {self.source!r})"

    def _form(self) -> Any:
        """The parsed expression (jmespath's or jsonpath-ng's object), parsed on first use after loading."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = (
                _parse_jmespath(self.source) if self.language == "jmespath" else _compile_jsonpath(self.source)
            )
        return compiled

    @property
    def parsed(self) -> Any:
        """The JMESPath syntax tree (dicts with ``type``, ``value``, ``children``); None for JSONPath."""
        return self._form().parsed if self.language == "jmespath" else None

    @property
    def builds(self) -> bool:
        """Whether every value it gives is made by the evaluation (``{...}``, ``merge()``), never part of the input."""
        if self._builds is None:
            self._builds = self.language == "jmespath" and analysis.builds(self._form().parsed)
        return self._builds

    @property
    def builds_when_truthy(self) -> bool:
        """Whether every value it gives that JMESPath counts true is made by the evaluation.

        ``spec.x && {spec: spec.x}`` gives the input's own (falsy) ``spec.x`` or a made object:
        a non-empty pod template it gives is never the resource's.
        """
        if self._builds_truthy is None:
            self._builds_truthy = self.language == "jmespath" and analysis.builds_when_truthy(self._form().parsed)
        return self._builds_truthy

    @property
    def origins(self) -> tuple[tuple[str, ...], ...] | None:
        """The field paths (from the value it runs on) of the input's containers it may give.

        Any other container it gives is made. None when unknown (pipes, indexes, ``root()``, JSONPath
        beyond a plain chain of fields ...).
        """
        if not self._origins_read:
            if self.language == "jmespath":
                found = analysis.origins(self._form().parsed)
            else:  # JSONPath: a plain chain of fields gives the value at that path (a single match)
                found = [tuple(self.source.split("."))] if is_plain_path(self.source) else None
            self._origins = tuple(found) if found is not None else None
            self._origins_read = True
        return self._origins

    def search(self, data: Any, *, root: Any = None, refs: Mapping[str, Any] | None = None) -> Any:
        """Evaluate against ``data``; ``root`` is what ``root()`` returns (default: ``data``).

        JSONPath returns the single match, a list when there are several, or None. An expression
        that reads only ``root()`` and ``ref()`` gives its last result again while ``root`` and
        ``refs`` are the same objects (not equal ones): pass a new ``refs`` mapping after changing
        a resource in place.

        Raises:
            ExpressionError: the expression failed on this data (wrong types for a function ...).
        """
        program = self._program
        if program is None or self._scopeless:  # JSONPath, not compiled yet, or one value per resource
            return self._search(data, data if root is None else root, refs)
        try:
            if self._stateless:  # no root(), no ref(), no function: nothing a State would carry but the budget
                return program(data, None)
            return program(data, State(MAX_STEPS, _WmapFunctions, data if root is None else root, refs))
        except _FAILURES as error:
            raise self._failure(error) from None

    def _search(self, data: Any, root: Any, refs: Mapping[str, Any] | None) -> Any:
        if self.language == "jsonpath":
            matches = [match.value for match in self._form().find(data)]
            if not matches:
                return None
            return matches[0] if len(matches) == 1 else matches
        memo = self._memo
        if self._scopeless and memo is not None and memo[0] is root and memo[1] is refs and refs is not None:
            return memo[2]
        try:
            program = self._program
            if program is None:
                result = self._evaluate(data, root, refs)
            else:
                result = program(data, State(MAX_STEPS, _WmapFunctions, root, refs))
            if self._scopeless and refs is not None:
                self._memo = (root, refs, result)
            return result
        except _FAILURES as error:
            raise self._failure(error) from None

    def _failure(self, error: Exception) -> ExpressionError:
        """What an evaluation that raised ``error`` (one of :data:`_FAILURES`) reports."""
        if isinstance(error, ExpressionLimitError):
            return ExpressionLimitError(f"{error.message}: expression {_short(self.source)} stopped")
        if isinstance(error, RecursionError):
            return ExpressionLimitError(f"nested too deeply: expression {_short(self.source)} stopped")
        # jmespath raises plain TypeError when comparing mixed types (e.g. "4" < 3).
        message = " ".join(str(error).split())
        return ExpressionError(f"expression {self.source!r} failed on this input: {message}")

    def _evaluate(self, data: Any, root: Any, refs: Mapping[str, Any] | None) -> Any:
        """Interpret for :data:`COMPILE_AFTER` steps in all, then compile (an evaluation past that runs again).

        A shipped expression (the built-in catalog's) loads its generated program instead.
        """
        shipped = self._shipped
        if shipped is not None:
            self._shipped = None
            loaded = self._load_shipped(shipped)
            if loaded is not None:
                self._program, self._stateless = loaded
                return loaded[0](data, State(MAX_STEPS, _WmapFunctions, root, refs))
        allowance = COMPILE_AFTER - self._interpreted
        if allowance > 0:
            options = jmespath.Options(custom_functions=_WmapFunctions(root, refs))
            interpreter = _Bounded(options, min(allowance, MAX_STEPS), MAX_VALUE_SIZE)
            try:
                return interpreter.visit(self._form().parsed, data)
            except ExpressionLimitError:
                if interpreter._steps >= 0 or allowance >= MAX_STEPS:
                    raise
            finally:
                self._interpreted += allowance - max(interpreter._steps, 0) + 1
        program, self._stateless = _program(self._form().parsed)
        self._program = program
        return program(data, State(MAX_STEPS, _WmapFunctions, root, refs))

    def _load_shipped(self, shipped: bytes) -> tuple[Program, bool] | None:
        """The program of the shipped form, or None when it was generated for other bounds."""
        form: _Shipped = pickle.loads(zlib.decompress(shipped))  # the installed package's own catalog only
        generated, stateless, tag, code = form
        if generated.limit != MAX_VALUE_SIZE or generated.budget not in (None, MAX_STEPS):
            return None
        from .compiler import compile_source, load

        # The code object is this Python's only if it was compiled by the same minor version.
        code_object = marshal.loads(code) if tag == _CODE_TAG else compile_source(generated.source)
        return load(generated, code_object, lambda: self._form().parsed, _WmapFunctions), stateless

    def values(self, data: Any, *, root: Any = None, refs: Mapping[str, Any] | None = None) -> list[Any]:
        """Evaluate and return every result as a list (JSONPath: every match)."""
        if self.language == "jsonpath":
            return [match.value for match in self._form().find(data)]
        result = self.search(data, root=root, refs=refs)
        if result is None:
            return []
        return result if isinstance(result, list) else [result]


_Shipped = tuple["Generated", bool, str, bytes]
"""A shipped program: the generated function, whether it runs without a State, the code's Python, the code."""
_CODE_TAG = f"{sys.implementation.cache_tag} marshal {marshal.version}"


def _shipped_expression(
    source: str,
    language: str,
    scopeless: bool,
    decided: tuple[bool, bool, tuple[tuple[str, ...], ...] | None],
    program: bytes | None,
) -> Expression:
    """An expression as :meth:`Expression.shipped_form` stored it (unpickled from the built-in catalog)."""
    expression = Expression.__new__(Expression)
    expression.__setstate__((source, language, scopeless))
    expression._builds, expression._builds_truthy, expression._origins = decided
    expression._origins_read = True
    expression._shipped = program
    return expression


_FAILURES = (
    ExpressionLimitError,
    RecursionError,
    jmespath.exceptions.JMESPathError,
    TypeError,
    ValueError,
    ArithmeticError,
)
"""What an evaluation may raise on bad data or at a bound (an ``ExpressionError`` of a function passes as it is)."""


def _program(parsed: dict[str, Any]) -> tuple[Program, bool]:
    """The generated function of a tree, or the bounded interpreter for a tree the generator does not write.

    The flag tells whether the program runs without a State (a generated one that calls no function).
    """
    from .compiler import compile_tree, stateless  # compiled only after an expression's first 400 steps

    try:
        return compile_tree(parsed, MAX_VALUE_SIZE, _WmapFunctions, budget=MAX_STEPS), stateless(parsed)
    except (RecursionError, ValueError):

        def interpreted(data: Any, state: State | None) -> Any:
            assert state is not None  # flagged not stateless below: search always passes a State
            options = jmespath.Options(custom_functions=state.functions())
            return _Bounded(options, MAX_STEPS, MAX_VALUE_SIZE).visit(parsed, data)

        return interpreted, False


def interpret(parsed: dict[str, Any], data: Any, *, root: Any = None, refs: Mapping[str, Any] | None = None) -> Any:
    """Evaluate a JMESPath syntax tree with jmespath's own interpreter, under the same bounds.

    The reference the generated functions are checked against (and the path for a tree the
    generator does not write); errors are raised as they come, unwrapped.
    """
    options = jmespath.Options(custom_functions=_WmapFunctions(data if root is None else root, refs))
    return _Bounded(options, MAX_STEPS, MAX_VALUE_SIZE).visit(parsed, data)


@lru_cache(maxsize=4096)
def compile_expression(source: str, language: str = "jmespath") -> Expression:
    """Compile an expression once (cached by text and language).

    Raises:
        ExpressionError: unknown language, too long, a syntax error, or a JSONPath regex filter.
    """
    if language not in LANGUAGES:
        raise ExpressionError(f"unknown expression language {language!r} (known: {', '.join(LANGUAGES)})")
    if not isinstance(source, str) or not source.strip():
        raise ExpressionError("empty expression")
    if len(source) > MAX_EXPRESSION_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    depth = _nesting(source)
    if depth > MAX_EXPRESSION_NESTING:
        raise ExpressionError(f"expression nested {depth} deep; at most {MAX_EXPRESSION_NESTING} brackets may be open")
    if language == "jsonpath":
        return Expression(source, language, _compile_jsonpath(source))
    compiled = _parse_jmespath(source)
    unknown = sorted(analysis.function_names(compiled.parsed) - _KNOWN_FUNCTIONS)
    if unknown:
        raise ExpressionError(f"invalid JMESPath {source!r}: unknown function {unknown[0]}()")
    return Expression(source, language, compiled)


def _parse_jmespath(source: str) -> Any:
    try:
        return jmespath.compile(source)
    except jmespath.exceptions.JMESPathError as error:
        raise ExpressionError(f"invalid JMESPath {source!r}: {_jmespath_problem(error)}") from None
    except RecursionError:  # the nesting bound keeps the parser well away from this
        raise ExpressionError(f"invalid JMESPath {source!r}: nested too deeply") from None


def _jmespath_problem(error: Exception) -> str:
    """What is wrong and where, in one line (jmespath's own text spans three lines with a caret)."""
    column = getattr(error, "lex_position", None)
    where = f" at column {column + 1}" if isinstance(column, int) else ""
    if isinstance(error, jmespath.exceptions.IncompleteExpressionError):
        return f"the expression ends too early{where}"
    if isinstance(error, jmespath.exceptions.LexerError):
        return f"{getattr(error, 'message', None) or 'bad token'}{where}"
    token = getattr(error, "token_value", None)
    message = str(getattr(error, "msg", "") or "invalid expression")
    if message == "invalid token" and token is not None:
        message = f"unexpected {token!r}"
    return f"{message}{where}"


_KNOWN_FUNCTIONS = frozenset(_WmapFunctions(None).FUNCTION_TABLE)
_QUOTES = {"'": "'", '"': '"', "`": "`"}


def _nesting(source: str) -> int:
    """The most brackets, parentheses and braces open at once, outside quoted text."""
    depth = deepest = 0
    quote: str | None = None
    escaped = False
    for char in source:
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
        elif char in _QUOTES:
            quote = char
        elif char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def _compile_jsonpath(source: str) -> Any:
    """A JSONPath (jsonpath-ng's extended syntax), refused when it could run a regular expression."""
    if "=~" in source:
        # Regex filters can take seconds per item on crafted input (ReDoS); never accepted.
        raise ExpressionError(f"JSONPath regex filters (=~) are not allowed: {source!r}")
    from jsonpath_ng.ext import parse as parse_jsonpath
    from jsonpath_ng.ext.string import Sub

    try:
        compiled = parse_jsonpath(source)
    except RecursionError:
        raise ExpressionError(f"invalid JSONPath {source!r}: nested too deeply") from None
    except Exception as error:  # jsonpath-ng raises bare Exceptions and lexer errors
        raise ExpressionError(f"invalid JSONPath {source!r}: {error}") from None
    if any(isinstance(node, Sub) for node in _jsonpath_nodes(compiled)):
        raise ExpressionError(f"JSONPath sub(/regex/, ...) is not allowed (regular expressions): {source!r}")
    return compiled


def _jsonpath_nodes(tree: Any) -> Iterator[Any]:
    """Every node of a parsed JSONPath (jsonpath-ng keeps children in plain attributes and lists)."""
    stack, seen = [tree], set()
    while stack:
        node = stack.pop()
        if id(node) in seen or not type(node).__module__.startswith("jsonpath_ng"):
            continue
        seen.add(id(node))
        yield node
        for value in vars(node).values() if hasattr(node, "__dict__") else ():
            stack.extend(value if isinstance(value, (list, tuple)) else [value])


@lru_cache(maxsize=1024)
def field_path(source: str) -> tuple[str, ...]:
    """The keys of a plain JMESPath field chain (``metadata.annotations."a/b"``), outermost first.

    Definitions name the fields wmap writes (a suspend flag, a fragment's pod fields) this way: the
    same text reads the value as an expression and says where to assign it.

    Raises:
        ExpressionError: the text is not a chain of field names (no indexes, filters or functions).
    """
    parsed = compile_expression(source).parsed
    nodes = list(parsed["children"]) if parsed.get("type") == "subexpression" else [parsed]  # never edit the cached AST
    keys: list[str] = []
    while nodes:
        node = nodes.pop(0)
        if node.get("type") == "subexpression":
            nodes[:0] = node["children"]
        elif node.get("type") == "field":
            keys.append(str(node["value"]))
        else:
            raise ExpressionError(f"{source!r} is not a plain field path (keys joined by dots, quoted when needed)")
    return tuple(keys)
