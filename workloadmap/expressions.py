"""Catalog expressions: JMESPath by default, JSONPath (jsonpath-ng) when a definition asks for it.

Expressions are compiled once, when the catalog loads (:func:`compile_expression`), and cached by
text. A compile error names the definition file and field.

JMESPath gets a few functions beyond the standard set, because replica counts need arithmetic
and instance scopes need the whole resource:

``root()``
    The whole resource, from inside a multi-instance component's scope.
``ref(name)``
    A related object the definition declares under ``references`` (e.g. a TrainJob's runtime),
    or null when it is not in the input.
``add(a, b)``, ``sub(a, b)``, ``mul(a, b)``, ``product(array)``
    Integer arithmetic (``sub`` never goes below what the numbers say; clamp with ``max``).
``ceil_div(a, b)``
    Ceiling division, for segment counts.
``items(object)``
    ``[{"key": k, "value": v}, ...]`` in document order.
``int(value)``
    A number or numeric string as an integer (``"3"`` -> 3); null when it is not one.
``jvm_mib(size)``
    A JVM/Spark memory size (``"512m"``, ``"2g"``; a bare number is MiB) in MiB, rounded up.
``pick(array, key, values)``, ``omit(array, key, values)``
    The elements whose ``key`` is (or is not) one of ``values``: a join between two lists, e.g. the
    Grove cliques a scaling group names.
``object(key, value)``
    ``{key: value}`` with a computed key (e.g. a GPU resource name read from the spec).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jmespath
import jmespath.exceptions
import jmespath.functions

from .errors import ExpressionError

__all__ = ["Expression", "compile_expression", "field_path", "LANGUAGES", "MAX_EXPRESSION_LENGTH"]

LANGUAGES = ("jmespath", "jsonpath")
MAX_EXPRESSION_LENGTH = 2048


# JVM / Spark memory sizes ("512m", "2g"); a bare number is MiB, as Spark reads it.
_JVM_SIZE = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)(?P<unit>[kKmMgGtTpP])?[bB]?")
_JVM_UNIT_MIB = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024**2, "p": 1024**3}


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


class _WmapFunctions(jmespath.functions.Functions):
    def __init__(self, root: Any, refs: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self._root = root
        self._refs = refs or {}

    @jmespath.functions.signature()
    def _func_root(self) -> Any:
        return self._root

    @jmespath.functions.signature({"types": ["string"]}, {"types": ["array"]})
    def _func_join(self, separator: str, items: list[Any]) -> str:
        # A YAML scalar such as an unquoted `tag: 1.8` is a number here but a string to the operator
        # (Go's typed decoding): join takes it as the text it was written as.
        parts = []
        for item in items:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, bool):
                parts.append(str(item).lower())
            elif isinstance(item, (int, float)):
                parts.append(str(int(item)) if isinstance(item, float) and item.is_integer() else str(item))
            else:
                raise jmespath.exceptions.JMESPathTypeError("join", item, type(item).__name__, ["string", "number"])
        return separator.join(parts)

    @jmespath.functions.signature({"types": ["string"]})
    def _func_ref(self, name: str) -> Any:
        return self._refs.get(name)

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_add(self, left: float, right: float) -> float:
        return left + right

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_sub(self, left: float, right: float) -> float:
        return left - right

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_mul(self, left: float, right: float) -> float:
        return left * right

    @jmespath.functions.signature({"types": ["array-number"]})
    def _func_product(self, numbers: list[float]) -> float:
        return math.prod(numbers)

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_ceil_div(self, left: float, right: float) -> float | None:
        if right == 0:
            return None
        return -(-left // right)

    @jmespath.functions.signature({"types": ["object"]})
    def _func_items(self, mapping: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"key": key, "value": value} for key, value in mapping.items()]

    @jmespath.functions.signature({"types": ["string", "number", "null"]})
    def _func_jvm_mib(self, size: str | float | None) -> int | None:
        if size is None or isinstance(size, bool):
            return None
        match = _JVM_SIZE.fullmatch(str(size).strip())
        if not match:
            return None
        amount = float(match["number"]) * _JVM_UNIT_MIB[(match["unit"] or "m").lower()]
        return int(math.ceil(amount))

    @jmespath.functions.signature({"types": ["array", "null"]}, {"types": ["string"]}, {"types": ["array", "null"]})
    def _func_pick(self, elements: list[Any] | None, key: str, values: list[Any] | None) -> list[Any]:
        wanted = set(_hashable(value) for value in values or [])
        return [e for e in elements or [] if isinstance(e, dict) and _hashable(e.get(key)) in wanted]

    @jmespath.functions.signature({"types": ["array", "null"]}, {"types": ["string"]}, {"types": ["array", "null"]})
    def _func_omit(self, elements: list[Any] | None, key: str, values: list[Any] | None) -> list[Any]:
        unwanted = set(_hashable(value) for value in values or [])
        return [e for e in elements or [] if not (isinstance(e, dict) and _hashable(e.get(key)) in unwanted)]

    @jmespath.functions.signature({"types": ["string"]}, {"types": []})
    def _func_object(self, key: str, value: Any) -> dict[str, Any]:
        return {key: value}

    @jmespath.functions.signature({"types": ["string", "null"]})
    def _func_image_tag(self, image: str | None) -> str | None:
        # registry:5000/ns/name:tag -> tag; no tag (or a digest only) -> null
        if not image:
            return None
        reference = image.split("@", 1)[0]
        name, _, tag = reference.rpartition(":")
        return tag if name and "/" not in tag else None

    @jmespath.functions.signature({"types": ["string", "number", "null"]})
    def _func_semver(self, version: str | float | None) -> list[int] | None:
        # Tolerant like blang/semver ParseTolerant: v-prefix, missing parts as 0; anything else null.
        if version is None or isinstance(version, bool):
            return None
        text = str(version).strip().lstrip("vV").split("-", 1)[0].split("+", 1)[0]
        parts = text.split(".")
        if not 1 <= len(parts) <= 3 or not all(part.isdigit() for part in parts):
            return None
        return [int(part) for part in parts] + [0] * (3 - len(parts))

    @jmespath.functions.signature({"types": []})
    def _func_int(self, value: Any) -> int | None:
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, (int, float)):
            return int(value)
        if isinstance(value, str) and not value.strip().isascii():
            return None  # "²" and other Unicode digits are not numbers to Kubernetes
        if isinstance(value, str) and len(value) > 40:
            return None
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                try:
                    return int(float(value))
                except (ValueError, OverflowError):  # "1e999" is inf, which no int holds
                    return None
        return None


class Expression:
    """A compiled expression.

    Attributes:
        source: the expression text.
        language: ``jmespath`` or ``jsonpath``.
    """

    __slots__ = ("source", "language", "_compiled", "_scopeless", "_memo")

    def __init__(self, source: str, language: str, compiled: Any) -> None:
        self.source = source
        self.language = language
        self._compiled = compiled
        # An expression that reads only root() and ref() gives one value per resource, however many
        # instances it is evaluated for (a Grove topology name scanning every clique, per clique).
        self._scopeless = language == "jmespath" and not _reads_current(compiled.parsed)
        self._memo: tuple[Any, Any, Any] | None = None

    def __getstate__(self) -> tuple[str, str, Any, bool]:
        return (self.source, self.language, self._compiled, self._scopeless)

    def __setstate__(self, state: tuple[str, str, Any, bool]) -> None:
        self.source, self.language, self._compiled, self._scopeless = state
        self._memo = None

    def __repr__(self) -> str:
        return f"Expression({self.language}: {self.source!r})"

    @property
    def parsed(self) -> Any:
        """The JMESPath syntax tree (dicts with ``type``, ``value``, ``children``); None for JSONPath."""
        return self._compiled.parsed if self.language == "jmespath" else None

    def search(self, data: Any, *, root: Any = None, refs: Mapping[str, Any] | None = None) -> Any:
        """Evaluate against ``data``; ``root`` is what ``root()`` returns (default: ``data``).

        JSONPath returns the single match, a list when there are several, or None.

        Raises:
            ExpressionError: the expression failed on this data (wrong types for a function ...).
        """
        if self.language == "jsonpath":
            matches = [match.value for match in self._compiled.find(data)]
            if not matches:
                return None
            return matches[0] if len(matches) == 1 else matches
        root = data if root is None else root
        memo = self._memo
        if self._scopeless and memo is not None and memo[0] is root and memo[1] == (refs or {}):
            return memo[2]
        options = jmespath.Options(custom_functions=_WmapFunctions(root, refs))
        try:
            result = self._compiled.search(data, options=options)
            if self._scopeless:
                self._memo = (root, dict(refs or {}), result)
            return result
        except (jmespath.exceptions.JMESPathError, TypeError, ValueError, ArithmeticError) as error:
            # jmespath raises plain TypeError when comparing mixed types (e.g. "4" < 3).
            message = " ".join(str(error).split())
            raise ExpressionError(f"expression {self.source!r} failed on this input: {message}") from None

    def values(self, data: Any, *, root: Any = None, refs: Mapping[str, Any] | None = None) -> list[Any]:
        """Evaluate and return every result as a list (JSONPath: every match)."""
        if self.language == "jsonpath":
            return [match.value for match in self._compiled.find(data)]
        result = self.search(data, root=root, refs=refs)
        if result is None:
            return []
        return result if isinstance(result, list) else [result]


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
    if language == "jsonpath":
        if "=~" in source:
            # Regex filters can take seconds per item on crafted input (ReDoS); never accepted.
            raise ExpressionError(f"JSONPath regex filters (=~) are not allowed: {source!r}")
        from jsonpath_ng.ext import parse as parse_jsonpath

        try:
            compiled = parse_jsonpath(source)
        except Exception as error:  # jsonpath-ng raises bare Exceptions and lexer errors
            raise ExpressionError(f"invalid JSONPath {source!r}: {error}") from None
        return Expression(source, language, compiled)
    try:
        compiled = jmespath.compile(source)
    except jmespath.exceptions.JMESPathError as error:
        raise ExpressionError(f"invalid JMESPath {source!r}: {_jmespath_problem(error)}") from None
    unknown = sorted(_function_names(compiled.parsed) - _KNOWN_FUNCTIONS)
    if unknown:
        raise ExpressionError(f"invalid JMESPath {source!r}: unknown function {unknown[0]}()")
    return Expression(source, language, compiled)


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
_SCOPELESS_FUNCTIONS = frozenset({"root", "ref"})


def _reads_current(node: Any) -> bool:
    """Whether a JMESPath AST reads the value it is evaluated on (else only root(), ref() and literals)."""
    kind = node.get("type")
    children = node.get("children", [])
    if kind in ("literal", "expref"):
        return False
    if kind == "function_expression":
        return node.get("value") not in _SCOPELESS_FUNCTIONS and not children or any(map(_reads_current, children))
    if kind in ("subexpression", "index_expression", "pipe", "projection", "value_projection", "flatten",
                "filter_projection"):  # fmt: skip
        return _reads_current(children[0])  # the rest runs on what the first part gave
    if kind in ("or_expression", "and_expression", "not_expression", "comparator", "key_val_pair"):
        return any(map(_reads_current, children))
    return True  # a field, @, an index, a multi-select (null on a null scope) ...


def _function_names(node: Any) -> set[str]:
    """Every function a JMESPath AST calls (jmespath only notices unknown ones at search time)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            if current.get("type") == "function_expression":
                names.add(str(current.get("value")))
            stack.extend(current.get("children", []))
        elif isinstance(current, list):
            stack.extend(current)
    return names


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
