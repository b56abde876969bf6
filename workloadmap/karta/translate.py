"""JMESPath (with wmap's functions) and JSONPath translated into equivalent jq.

Each JMESPath node becomes a jq filter that produces exactly one value from the current value
``.``, with JMESPath's meaning: projections skip nulls and give null on a non-list, ``||`` and
``&&`` use JMESPath truthiness (``null``, ``false``, ``""``, ``[]``, ``{}`` are false), ordering
comparisons hold only between numbers, multi-selects of null are null. ``root()`` becomes
``$root``, which the caller binds (``. as $root | ...``). A field of a value that is neither an
object nor null is an error in jq where JMESPath gives null; on Kubernetes objects that only
happens with a mistyped manifest, and the error is reported cleanly.

A function with no jq equivalent (``ref()``: Karta has no references yet) raises
:class:`TranslationError`; the exporter then records what is lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from typing import Any

from ..expressions import compile_expression

__all__ = ["TranslationError", "to_jq", "FALSY"]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
FALSY = '(. == null or . == false or . == "" or . == [] or . == {})'
"""jq that tells JMESPath-false values (applied to ``.``)."""


class TranslationError(ValueError):
    """An expression uses something jq (as Karta runs it) cannot say."""


def _field(name: str) -> str:
    return f".{name}" if _IDENTIFIER.match(name) else f".[{json.dumps(name)}]"


def _pipe(left: str, right: str) -> str:
    if left == ".":
        return right
    if right == ".":
        return left
    if _simple(left) and _simple(right):
        return left + (right[1:] if right.startswith(".[") else right)  # .a + .[0] -> .a[0]
    return f"{_wrap(left)} | {_wrap(right)}"


def _wrap(text: str) -> str:
    return text if _simple(text) or text == "." else f"({text})"


def _simple(text: str) -> bool:
    return re.fullmatch(r'(\.[A-Za-z_][A-Za-z0-9_]*|\.\["(?:[^"\\]|\\.)*"\]|\.\[-?[0-9]+\])+', text) is not None


def _array_map(left: str, body: str) -> str:
    return f'{_wrap(left)} | if type == "array" then [.[] | {body} | select(. != null)] else null end'


class _Translator:
    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[dict[str, Any]], str]] = {
            "identity": lambda node: ".",
            "current": lambda node: ".",
            "field": lambda node: _field(str(node["value"])),
            "literal": lambda node: f"({json.dumps(node['value'])})",
            "subexpression": self._subexpression,
            "index_expression": self._subexpression,
            "index": lambda node: f".[{int(node['value'])}]",
            "slice": self._slice,
            "projection": self._projection,
            "value_projection": self._value_projection,
            "flatten": self._flatten,
            "filter_projection": self._filter_projection,
            "comparator": self._comparator,
            "or_expression": self._or,
            "and_expression": self._and,
            "not_expression": lambda node: f"(({self.t(node['children'][0])}) | {FALSY})",
            "pipe": self._subexpression,
            "multi_select_list": self._multi_list,
            "multi_select_dict": self._multi_dict,
            "function_expression": self._function,
            "expref": lambda node: self.t(node["children"][0]),
        }

    def t(self, node: dict[str, Any]) -> str:
        handler = self.handlers.get(node["type"])
        if handler is None:
            raise TranslationError(f"JMESPath {node['type']} has no jq translation")
        return handler(node)

    def _subexpression(self, node: dict[str, Any]) -> str:
        result = "."
        for child in node["children"]:  # jmespath chains a.b.c as one node with three children
            result = _pipe(result, self.t(child))
        return result

    def _slice(self, node: dict[str, Any]) -> str:
        start, stop, step = node["children"]
        if step not in (None, 1):
            raise TranslationError("JMESPath slices with a step have no jq translation")
        return (
            f'if type == "array" then .[{"" if start is None else start}:{"" if stop is None else stop}] else null end'
        )

    def _projection(self, node: dict[str, Any]) -> str:
        left, right = node["children"]
        return _array_map(self.t(left), f"({self.t(right)})")

    def _value_projection(self, node: dict[str, Any]) -> str:
        left, right = node["children"]
        body = f"[.[] | ({self.t(right)}) | select(. != null)]"
        return f'{_wrap(self.t(left))} | if type == "object" then {body} else null end'

    def _flatten(self, node: dict[str, Any]) -> str:
        inner = self.t(node["children"][0])
        return f'{_wrap(inner)} | if type == "array" then [.[] | if type == "array" then .[] else . end] else null end'

    def _filter_projection(self, node: dict[str, Any]) -> str:
        left, right, condition = (self.t(child) for child in node["children"])
        return _array_map(left, f"select(({condition}) | {FALSY} | not) | ({right})")

    def _comparator(self, node: dict[str, Any]) -> str:
        left, right = (self.t(child) for child in node["children"])
        operator = {"eq": "==", "ne": "!=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">="}[node["value"]]
        if operator in ("==", "!="):
            return f"(({left}) {operator} ({right}))"
        return (
            f'(({left}) as $l | ({right}) as $r | if ($l | type) == "number" and ($r | type) == "number" '
            f"then $l {operator} $r else null end)"
        )

    def _or(self, node: dict[str, Any]) -> str:
        left, right = (self.t(child) for child in node["children"])
        return f"(({left}) as $v | if ($v | {FALSY}) then ({right}) else $v end)"

    def _and(self, node: dict[str, Any]) -> str:
        left, right = (self.t(child) for child in node["children"])
        return f"(({left}) as $v | if ($v | {FALSY}) then $v else ({right}) end)"

    def _multi_list(self, node: dict[str, Any]) -> str:
        items = ", ".join(f"({self.t(child)})" for child in node["children"])
        return f"(if . == null then null else [{items}] end)"

    def _multi_dict(self, node: dict[str, Any]) -> str:
        pairs = ", ".join(f"{json.dumps(pair['value'])}: ({self.t(pair['children'][0])})" for pair in node["children"])
        return f"(if . == null then null else {{{pairs}}} end)"

    def _function(self, node: dict[str, Any]) -> str:
        name = str(node["value"])
        args = [self.t(child) for child in node["children"]]
        builder = _FUNCTIONS.get(name)
        if builder is None:
            raise TranslationError(f"function {name}() has no jq translation")
        return f"({builder(args)})"


def _bind(args: list[str], body: str) -> str:
    """``(a0) as $a0 | (a1) as $a1 | body``."""
    bindings = " | ".join(f"({arg}) as $a{index}" for index, arg in enumerate(args))
    return f"{bindings} | {body}" if bindings else body


_JVM_MIB = (
    '(if type == "number" then tostring elif type == "string" then . elif type == "null" then null '
    'else error("jvm_mib() takes a string, a number or null") end) | if . == null then null else '
    '(ascii_downcase | capture("^\\\\s*(?<n>[0-9]+)(?<u>[a-z]+)?\\\\s*$") // null) | if . == null then null '
    'else ({"b": (1 / 1048576), "k": (1 / 1024), "kb": (1 / 1024), "m": 1, "mb": 1, "g": 1024, "gb": 1024, '
    '"t": 1048576, "tb": 1048576, "p": 1073741824, "pb": 1073741824}[.u // "m"]) as $unit '
    "| if $unit == null then null else (.n | tonumber) * $unit | ceil end end end"
)
# pick/omit: a dotted key that is not one of the element's reads the nested field (as functions._key_of).
_KEY_OF = '(if has($a1) or ($a1 | contains(".") | not) then .[$a1] else (try getpath($a1 | split(".")) catch null) end)'

_FUNCTIONS: dict[str, Callable[[list[str]], str]] = {
    "root": lambda a: "$root",
    "length": lambda a: _bind(a, "$a0 | length"),
    "max": lambda a: _bind(a, "$a0 | max"),
    "min": lambda a: _bind(a, "$a0 | min"),
    "sum": lambda a: _bind(a, "$a0 | (add // 0)"),
    "avg": lambda a: _bind(a, "$a0 | if length == 0 then null else add / length end"),
    "abs": lambda a: _bind(a, "$a0 | if . < 0 then -. else . end"),
    "ceil": lambda a: _bind(a, "$a0 | ceil"),
    "floor": lambda a: _bind(a, "$a0 | floor"),
    "merge": lambda a: _bind(a, " + ".join(f"($a{i} // {{}})" for i in range(len(a)))),
    "contains": lambda a: _bind(
        a, 'if ($a0 | type) == "array" then any($a0[]; . == $a1) else ($a0 | contains($a1)) end'
    ),
    "starts_with": lambda a: _bind(a, "$a0 | startswith($a1)"),
    "ends_with": lambda a: _bind(a, "$a0 | endswith($a1)"),
    # wmap's join takes numbers and booleans as the text they were written as (an unquoted `tag: 1.8`).
    "join": lambda a: _bind(
        a,
        '$a1 | map(if type == "string" then . elif type == "boolean" then tostring '
        'elif type == "number" then (if . == floor then (floor | tostring) else tostring end) '
        'else error("join: not a string") end) | join($a0)',
    ),
    "image_tag": lambda a: _bind(
        a,
        'if ($a0 // "") == "" then null else ($a0 | split("@")[0]) as $r | ($r | rindex(":")) as $i '
        "| if $i == null then null else ($r[:$i]) as $n | ($r[$i + 1:]) as $t "
        '| if $n != "" and ($t | contains("/") | not) then $t else null end end end',
    ),
    "semver": lambda a: _bind(
        a,
        'if $a0 == null or ($a0 | type) == "boolean" then null else ($a0 | tostring '
        '| trim | sub("^[vV]+"; "") | split("-")[0] | split("+")[0] | split(".")) '
        '| if length >= 1 and length <= 3 and all(.[]; test("^[0-9]+$")) then ((map(tonumber) + [0, 0, 0])[:3]) '
        "else null end end",
    ),
    "keys": lambda a: _bind(a, "$a0 | keys_unsorted"),
    "values": lambda a: _bind(a, "$a0 | [.[]]"),
    "reverse": lambda a: _bind(a, "$a0 | reverse"),
    "sort": lambda a: _bind(a, "$a0 | sort"),
    "type": lambda a: _bind(a, "$a0 | type"),
    "not_null": lambda a: _bind(
        a, "[" + ", ".join(f"$a{i}" for i in range(len(a))) + "] | map(select(. != null)) | .[0]"
    ),
    "to_array": lambda a: _bind(a, '$a0 | if type == "array" then . else [.] end'),
    "to_string": lambda a: _bind(a, "$a0 | tostring"),
    "to_number": lambda a: _bind(
        a, '$a0 | if type == "number" then . elif type == "string" then (tonumber? // null) else null end'
    ),
    "add": lambda a: _bind(a, "$a0 + $a1"),
    "sub": lambda a: _bind(a, "$a0 - $a1"),
    "mul": lambda a: _bind(a, "$a0 * $a1"),
    "product": lambda a: _bind(a, "reduce $a0[] as $x (1; . * $x)"),
    "ceil_div": lambda a: _bind(a, "if $a1 == 0 then null else ($a0 / $a1 | ceil) end"),
    "items": lambda a: _bind(a, "$a0 | to_entries"),
    "int": lambda a: _bind(
        a,
        '$a0 | if type == "number" then . elif type == "string" then (tonumber? // null) else null end '
        "| if . == null then null elif . < 0 then ceil else floor end",
    ),
    "jvm_mib": lambda a: _bind(a, f"$a0 | {_JVM_MIB}"),
    "pick": lambda a: _bind(
        a, f'[($a0 // [])[] | select(type == "object" and ({_KEY_OF} as $x | any(($a2 // [])[]; . == $x)))]'
    ),
    "omit": lambda a: _bind(
        a, f'[($a0 // [])[] | select((type == "object" and ({_KEY_OF} as $x | any(($a2 // [])[]; . == $x))) | not)]'
    ),
    # jq's ascii_downcase lowers ASCII letters only; Go's strings.ToLower (and lower()) every cased letter
    "lower": lambda a: _bind(
        a,
        "if $a0 == null then null elif ($a0 | explode | all(.[]; . < 128)) then ($a0 | ascii_downcase) "
        'else error("lower() of non-ASCII text has no jq equivalent") end',
    ),
    "words": lambda a: _bind(a, 'if $a0 == null then null else [$a0 | scan("[A-Za-z0-9_-]+")] end'),
    "object": lambda a: _bind(a, "{($a0): $a1}"),
}


def _sort_by(translator: _Translator, node: dict[str, Any], name: str) -> str:
    subject, key = node["children"]
    return f"({translator.t(subject)}) | {name}({translator.t(key)})"


def to_jq(source: str, language: str = "jmespath", *, absent: Collection[str] = ()) -> str:
    """The jq filter equivalent to a wmap expression.

    ``absent`` names references whose absence is an answer (declared ``optional``): Karta has no related
    objects, so ``ref(name)`` of one is what wmap reads without it, null; any other ``ref()`` cannot be said.

    Raises:
        TranslationError: the expression uses something with no jq equivalent.
        ExpressionError: the expression does not compile in its own language.
    """
    if language == "jsonpath":
        return _jsonpath_to_jq(source)
    parsed = compile_expression(source, language).parsed
    translator = _Translator()
    original = translator.handlers["function_expression"]

    def function(node: dict[str, Any]) -> str:
        name = str(node["value"])
        if name in ("sort_by", "max_by", "min_by"):
            return f"({_sort_by(translator, node, name)})"
        if name == "map":
            mapper, subject = node["children"]
            return f"(({translator.t(subject)}) | [.[] | ({translator.t(mapper)})])"
        arguments = node["children"]
        if name == "ref" and len(arguments) == 1 and arguments[0].get("type") == "literal":
            if arguments[0].get("value") in absent:
                return "null"
        if name == "ref":
            raise TranslationError("ref() reads a related object; Karta has no references yet")
        return original(node)

    translator.handlers["function_expression"] = function
    return translator.t(parsed)


_JSONPATH_SEGMENT = re.compile(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\['([^']*)'\]|\[\"([^\"]*)\"\]|\[(\d+)\]|\[\*\]|\.\*")


def _jsonpath_to_jq(source: str) -> str:
    """Plain JSONPath (``$.a.b[0]['c'][*]``) as jq; filters and recursion are refused."""
    text = source.strip()
    text = text[1:] if text.startswith("$") else "." + text if not text.startswith(".") else text
    parts, position, many = [], 0, False
    while position < len(text):
        match = _JSONPATH_SEGMENT.match(text, position)
        if match is None:
            raise TranslationError(f"JSONPath {source!r} uses more than plain fields, indexes and [*]")
        name = match.group(1) or match.group(2) or match.group(3)
        if name is not None:
            parts.append(_field(name))
        elif match.group(4) is not None:
            parts.append(f"[{match.group(4)}]")
        else:
            parts.append("[]?")
            many = True
        position = match.end()
    path = "".join(parts) or "."
    # wmap's JSONPath gives the single match, a list of several, or null.
    return f"([{path}] | if length == 0 then null elif length == 1 then .[0] else . end)" if many else path
