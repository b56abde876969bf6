"""YAML read back the way kubectl reads it: go-yaml's scalar typing, ported from its ``resolve.go``.

kubectl turns YAML into JSON with ``sigs.k8s.io/yaml``'s ``YAMLToJSON``: go-yaml v2 (the fork in
kubernetes-sigs/yaml ``goyaml.v2/resolve.go``) decodes into ``interface{}``, then
``convertToJSONableObject`` (``yaml.go``) writes every key as a string. Tools on go-yaml v3
(go-yaml/yaml ``resolve.go``, branch v3) type plain scalars by the YAML 1.2 subset of the same
rules. This module is that typing, written from those files line by line, independently of
``workloadmap.yaml_typing`` (whose rule the tests hold against it):

* :func:`resolve` — ``resolve(tag, in)``: the resolveTable hint of the first byte, the resolveMap
  words, ``strconv.ParseInt``/``ParseUint`` with base 0 after removing underscores, ``yamlStyleFloat``
  then ``strconv.ParseFloat``, the ``0b``/``-0b`` (and in v3 ``0o``/``-0o``) prefixes, and in v2's
  fork ``big.Int.SetString`` for integers out of range. Timestamps are left out on purpose: decoded
  into ``interface{}`` go-yaml keeps them as their text (decode.go: "for backward compatibility
  reasons we set it as a string").
* :func:`read_back` — a YAML stream as kubectl would hand it to the API server: the structure from
  PyYAML's event parser (libyaml's, of which go-yaml is a port: same scanner, same line breaks),
  each scalar typed by :func:`resolve` (quoted ones and ``!!str`` are strings), keys converted to
  strings as ``convertToJSONableObject`` does.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

__all__ = ["resolve", "read_back", "json_form", "differences"]

# resolveMap of goyaml.v2/resolve.go; v3 keeps only the YAML 1.2 words (true/false, null, .inf, .nan, <<).
_V2_MAP: dict[str, tuple[str, Any]] = {}
for _words, _tag, _value in (
    ("y Y yes Yes YES true True TRUE on On ON", "!!bool", True),
    ("n N no No NO false False FALSE off Off OFF", "!!bool", False),
    ("~ null Null NULL", "!!null", None),
    (".nan .NaN .NAN", "!!float", math.nan),
    (".inf .Inf .INF +.inf +.Inf +.INF", "!!float", math.inf),
    ("-.inf -.Inf -.INF", "!!float", -math.inf),
    ("<<", "!!merge", "<<"),
):
    for _word in _words.split():
        _V2_MAP[_word] = (_tag, _value)
_V2_MAP[""] = ("!!null", None)
_V3_MAP = {
    word: item
    for word, item in _V2_MAP.items()
    if word not in "y Y yes Yes YES on On ON n N no No NO off Off OFF".split()
}
_HINTS = {**dict.fromkeys("+-", "S"), **dict.fromkeys("0123456789", "D"), **dict.fromkeys("yYnNtTfFoO~", "M"), ".": "."}
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_RESOLVABLE = {"", "!!str", "!!bool", "!!int", "!!float", "!!null", "!!timestamp"}
_INT64, _UINT64 = 1 << 63, 1 << 64


class _SyntaxError(Exception):
    pass


class _RangeError(Exception):
    pass


_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def _parse_uint(text: str, base: int) -> int:
    """strconv.ParseUint(text, base, 64): no sign; base 0 reads 0b/0o/0x prefixes and a leading 0 as octal."""
    if not text:
        raise _SyntaxError
    if base == 0:
        base = 10
        if text[0] == "0":
            if len(text) >= 3 and text[1].lower() in "box":
                base = {"b": 2, "o": 8, "x": 16}[text[1].lower()]
                text = text[2:]
            else:
                base = 8
                text = text[1:] or "0"
    if not text or any(char not in _DIGITS[base] for char in text):
        raise _SyntaxError
    value = int(text, base)
    if value >= _UINT64:
        raise _RangeError
    return value


def _parse_int(text: str, base: int) -> int:
    """strconv.ParseInt(text, base, 64): an optional sign, then ParseUint's syntax."""
    negative = text[:1] == "-"
    magnitude = _parse_uint(text[1:] if text[:1] in "+-" else text, base)
    value = -magnitude if negative else magnitude
    if not -_INT64 <= value < _INT64:
        raise _RangeError
    return value


def _parse_float(text: str) -> float:
    """strconv.ParseFloat(text, 64) for the texts resolve.go hands it (decimal, ASCII, underscores between digits)."""
    if not re.fullmatch(r"[0-9eE+\-._]+", text):
        raise _SyntaxError
    try:
        value = float(text)  # Python's and Go's decimal syntax agree on this alphabet (underscoreOK)
    except ValueError:
        raise _SyntaxError from None
    if math.isinf(value):
        raise _RangeError
    return value


def _big_int(text: str) -> int | None:
    """big.Int.SetString(text, 0): a sign, then a 0b/0o/0x prefix or a leading 0 (octal) or decimal."""
    negative = text[:1] == "-"
    body = text[1:] if text[:1] in "+-" else text
    base = 10
    if body[:1] == "0" and len(body) > 1:
        if body[1].lower() in "box":
            base, body = {"b": 2, "o": 8, "x": 16}[body[1].lower()], body[2:]
        else:
            base, body = 8, body[1:]
    if not body or any(char not in _DIGITS[base] for char in body):
        return None
    value = int(body, base)
    return -value if negative else value


def _number(plain: str, version: str) -> tuple[str, Any] | None:
    """The 'D' and 'S' branch of resolve() after the timestamp check (``plain``: underscores removed)."""
    try:
        return "!!int", _parse_int(plain, 0)
    except (_SyntaxError, _RangeError):
        pass
    range_error = False
    try:
        return "!!int", _parse_uint(plain, 0)
    except _RangeError:
        range_error = True  # intConvErr is reassigned by ParseUint in goyaml.v2
    except _SyntaxError:
        pass
    if _YAML_STYLE_FLOAT.match(plain):
        try:
            return "!!float", _parse_float(plain)
        except (_SyntaxError, _RangeError):
            pass
    prefixes = [("0b", 2, ""), ("-0b", 2, "-")] + ([("0o", 8, ""), ("-0o", 8, "-")] if version == "v3" else [])
    for prefix, base, sign in prefixes:
        if plain.startswith(prefix):
            rest = sign + plain[len(prefix) :]
            try:
                return "!!int", _parse_int(rest, base)
            except (_SyntaxError, _RangeError):
                pass
            if not sign:
                try:
                    return "!!int", _parse_uint(rest, base)
                except (_SyntaxError, _RangeError):
                    pass
            break  # resolve.go tests "0b" and "-0b" with if / else if
    if version == "v2" and range_error:
        big = _big_int(plain)
        if big is not None:
            return "!!int", big
    return None


def resolve(tag: str, text: str, version: str = "v2") -> tuple[str, Any]:
    """go-yaml's ``resolve(tag, in)`` for ``version`` ``"v2"`` (kubectl) or ``"v3"``: the tag and the value.

    Raises:
        ValueError: an explicit tag the text cannot be (``!!int abc``), as go-yaml's ``failf``.
    """
    if tag.startswith("tag:yaml.org,2002:"):
        tag = "!!" + tag[len("tag:yaml.org,2002:") :]
    if tag not in _RESOLVABLE:
        return tag, text
    resolved = _resolve(tag, text, version)
    if tag in ("", resolved[0], "!!str", "!!binary"):
        return resolved
    if tag == "!!float" and resolved[0] == "!!int":
        return "!!float", float(resolved[1])
    raise ValueError(f"cannot decode {resolved[0]} `{text}` as a {tag}")


def _resolve(tag: str, text: str, version: str) -> tuple[str, Any]:
    hint = _HINTS.get(text[0], "") if text else "N"
    if hint and tag not in ("!!str", "!!binary"):
        words = _V2_MAP if version == "v2" else _V3_MAP
        if text in words:
            return words[text]
        if hint == ".":
            try:
                return "!!float", _parse_float(text)
            except (_SyntaxError, _RangeError):
                pass
        elif hint in "DS":
            found = _number(text.replace("_", ""), version)
            if found is not None:
                return found
    return "!!str", text


def _key(value: Any) -> str:
    """convertToJSONableObject's key: strings stay, integers in decimal, booleans as true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int) and -_INT64 <= value < _INT64:
        return str(value)
    raise ValueError(f"unsupported map key {value!r}")  # float keys: float32 formatting, never written by wmap


def read_back(text: str, version: str = "v2") -> list[Any]:
    """Every document of the YAML stream ``text`` as kubectl (v2) or a go-yaml v3 tool reads it."""
    documents: list[Any] = []
    stack: list[Any] = []
    keys: list[Any] = []
    anchors: dict[str, Any] = {}

    merges: dict[int, dict[Any, Any]] = {}  # open mappings merged into their parent when they end

    def add(value: Any, anchor: str | None, opened: bool = False) -> None:
        if anchor:
            anchors[anchor] = value
        if not stack:
            documents.append(value)
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
        elif keys[-1] is _NO_KEY:
            keys[-1] = value
        else:
            key, keys[-1] = keys[-1], _NO_KEY
            if key is _MERGE and opened:
                merges[id(value)] = stack[-1]
            elif key is _MERGE and isinstance(value, dict):
                stack[-1].update(value)  # decode.go's merge: the mapping unmarshalled into this one
            else:
                stack[-1][_key(key)] = value

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.ScalarEvent):
            if event.tag is None and event.implicit[0]:  # plain: n.implicit
                value = resolve("", event.value, version)[1]
                if event.value == "<<" and stack and isinstance(stack[-1], dict) and keys[-1] is _NO_KEY:
                    value = _MERGE  # decode.go's isMerge: a plain "<<" key
            elif event.tag is None:
                value = event.value  # quoted, untagged: a string
            else:
                value = resolve(event.tag, event.value, version)[1]
            add(value, event.anchor)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            container: Any = [] if isinstance(event, yaml.SequenceStartEvent) else {}
            add(container, event.anchor, opened=True)
            stack.append(container)
            keys.append(_NO_KEY)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            closed = stack.pop()
            keys.pop()
            if id(closed) in merges:
                merges.pop(id(closed)).update(closed)
        elif isinstance(event, yaml.AliasEvent):
            add(anchors[event.anchor], None)
    return documents


_NO_KEY, _MERGE = object(), object()


def json_form(value: Any) -> Any:
    """``value`` as the API server holds it: keys as strings (as ``json.dumps`` writes them)."""
    if isinstance(value, dict):
        return {_key(key) if not isinstance(key, float) else repr(key): json_form(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_form(item) for item in value]
    return value


def differences(expected: Any, found: Any, path: str = "") -> list[str]:
    """Where ``found`` (read back) differs from ``expected`` in value or in type (a string is never a number)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        problems = [f"{path}.{key}: missing" for key in expected if key not in found]
        problems += [f"{path}.{key}: extra" for key in found if key not in expected]
        for key in expected:
            if key in found:
                problems += differences(expected[key], found[key], f"{path}.{key}")
        return problems
    if isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found):
        pairs = enumerate(zip(expected, found, strict=True))
        return [problem for index, (want, got) in pairs for problem in differences(want, got, f"{path}[{index}]")]
    same_kind = type(expected) is type(found) or (
        isinstance(expected, (int, float)) and isinstance(found, (int, float))
        and not isinstance(expected, bool) and not isinstance(found, bool)
    )  # fmt: skip
    if same_kind and (expected == found or (isinstance(found, float) and float(expected) == found)):
        return []
    return [f"{path or '.'}: wrote {expected!r:.60}, read back {found!r:.60}"]
