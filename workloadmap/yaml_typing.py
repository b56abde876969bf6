r"""How Kubernetes' YAML readers type a plain scalar, for the writer (what to quote) and the loader (keys).

kubectl reads YAML with go-yaml v2 (``sigs.k8s.io/yaml``'s ``YAMLToJSON``, a fork of
``gopkg.in/yaml.v2``), and Go tools built on go-yaml v3 read it too; both type an unquoted
scalar by its text (``resolve.go``'s ``resolve``): ``y``, ``n``, ``on`` and ``off`` are booleans
for v2, ``1e3`` and ``08`` floats, ``0o17`` and ``0x1F`` integers (Go's ``strconv.ParseInt``
with base 0, underscores removed), ``~`` null. PyYAML, which wmap writes with, knows only the
YAML 1.1 subset of these rules, so a string such as ``"y"`` or ``"1e3"`` left plain by it would
reach the API server as another type.

* :func:`scalar_style` is the one quoting rule every YAML writer of wmap calls on each string:
  quoted when go-yaml v2, go-yaml v3 or a YAML 1.1 reader would read the plain text as anything
  but this string, double-quoted when it holds a character a reader changes (NEL, U+0085, is a
  line break in YAML 1.1 and reads back as ``\n``), a literal block for multi-line text when asked.
* :func:`kubectl_key` is the key kubectl reads for a plain mapping key (``on`` is the key
  ``"true"``, ``0x10`` is ``"16"``), or why it cannot read one (``~``, ``1.5``).

The rules over-approximate on purpose where that is simpler (quoting a string that every reader
would have read as a string anyway is harmless); ``tests/helpers/goyaml.py`` holds the exact
resolvers, ported from go-yaml's ``resolve.go``, that the tests read wmap's output back with.
"""

from __future__ import annotations

import math
import re

__all__ = ["plain_reads_as_string", "scalar_style", "kubectl_key", "UnreadableKey"]

# go-yaml v2's resolveMap (its v3 has the YAML 1.2 subset: true/false, the null words, .inf/.nan,
# "<<"), the YAML 1.1 type repository's words (yaml.org/type/bool.html, null.html, merge.html,
# value.html) besides.
_WORDS = frozenset(
    """y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF
    ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF << =""".split()
)
# Every text any of these readers types starts with one of these (go-yaml's resolveTable hints:
# sign, digit, the words' first letters, '.'; the YAML 1.1 merge and value keys besides).
_TYPED_FIRST = frozenset("+-0123456789.yYnNtTfFoO~<=")
# go-yaml 'D'/'S' hint, after underscores are removed: strconv.ParseInt/ParseUint with base 0
# (0b, 0o, 0x prefixes in either case, a leading 0 for octal), yamlStyleFloat, the 0b/0o prefixes
# resolve.go tries itself, and big integers (v2) — any of them is a number, whatever its range.
_GO_NUMBER = re.compile(
    r"[-+]?(?:0[bBoOxX][0-9a-fA-F]*|[0-9]+)"  # integers of every base (digits checked loosely)
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"  # yamlStyleFloat
)
# go-yaml '.' hint: strconv.ParseFloat of the text as it is (Go float syntax, underscores between digits).
_GO_DOT_FLOAT = re.compile(r"\.[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+(?:_[0-9]+)*)?")
# YAML 1.1 as PyYAML's resolver reads it (yaml.org/type/int.html, float.html, timestamp.html), base 60
# included; the dates in go-yaml's short form (2006-1-2) besides.
_YAML11_NUMBER = re.compile(
    r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
    r"|[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+).*)?"
)
# Characters a YAML reader changes when they stand in a block or a flow scalar unescaped.
_CHANGED_UNESCAPED = "\x85"


def plain_reads_as_string(text: str) -> bool:
    """Whether ``text``, written as a plain (unquoted) scalar, reads back as this string everywhere.

    False when go-yaml v2 (kubectl), go-yaml v3 or a YAML 1.1 reader would type it (a boolean,
    null, a number of any base, a timestamp, the merge key) — so the writer must quote it.
    """
    if not text:
        return False
    if text[0] not in _TYPED_FIRST:
        return True
    if text in _WORDS:
        return False
    if text[0] in "+-0123456789" and _GO_NUMBER.fullmatch(text.replace("_", "")):
        return False
    if text[0] == "." and _GO_DOT_FLOAT.fullmatch(text):
        return False
    return _YAML11_NUMBER.fullmatch(text) is None


def scalar_style(text: str, *, literal_blocks: bool = False) -> str | None:
    """The style a YAML writer gives the string ``text``: ``'"'``, ``"'"``, ``"|"`` or None (plain).

    Double-quoted when it holds a character readers change unescaped (NEL); single-quoted when
    plain text would read back as another type (:func:`plain_reads_as_string`); with
    ``literal_blocks``, a literal block for multi-line text (scripts and configs, as people write
    them); else None, the writer's own choice (PyYAML still quotes what its own rules require).
    """
    if text and text[0] not in _TYPED_FIRST and _CHANGED_UNESCAPED not in text:  # most strings: one look
        return "|" if literal_blocks and "\n" in text else None
    if _CHANGED_UNESCAPED in text:
        return '"'
    if literal_blocks and "\n" in text:
        return "|"
    return None if plain_reads_as_string(text) else "'"


class UnreadableKey(ValueError):
    """A plain mapping key kubectl cannot turn into a JSON object key (null, a float, a huge integer)."""


_BOOL_KEYS = {word: "true" for word in "y Y yes Yes YES true True TRUE on On ON".split()} | {
    word: "false" for word in "n N no No NO false False FALSE off Off OFF".split()
}
_NULL_KEYS = frozenset(["", "~", "null", "Null", "NULL"])
_GO_INT = re.compile(r"([-+]?)(?:0([bB])([01]+)|0([oO])([0-7]+)|0([xX])([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))")
_GO_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INT64 = 1 << 63


def _go_int(plain: str) -> int | None:
    """strconv.ParseInt(plain, 0, 64)'s value, else None (another syntax)."""
    match = _GO_INT.fullmatch(plain)
    if match is None:
        return None
    sign, _, binary, _, octal, _, hexadecimal, leading_zero, decimal = match.groups()
    if binary is not None:
        value = int(binary, 2)
    elif octal is not None:
        value = int(octal, 8)
    elif hexadecimal is not None:
        value = int(hexadecimal, 16)
    elif leading_zero is not None:
        value = int(leading_zero, 8)
    else:
        value = int(decimal)
    return -value if sign == "-" else value


def kubectl_key(text: str) -> str:
    """The JSON object key kubectl reads for the plain YAML key ``text``.

    go-yaml v2 types the key (``resolve.go``), then ``sigs.k8s.io/yaml``'s
    ``convertToJSONableObject`` writes a boolean as ``"true"``/``"false"`` and an integer in
    decimal; a string stays itself (timestamps included: go-yaml v2 keeps them as text).

    Raises:
        UnreadableKey: a null or float key (kubectl writes floats with float32 precision: quote
            the key), or an integer beyond 64 bits (kubectl refuses it).
    """
    if not text or text[0] not in _TYPED_FIRST:
        return text
    if text in _BOOL_KEYS:
        return _BOOL_KEYS[text]
    if text in _NULL_KEYS:
        raise UnreadableKey(f"the key {text!r} is null for kubectl (YAML), which has no JSON form; quote it")
    if text[0] in "+-0123456789":
        plain = text.replace("_", "")
        value = _go_int(plain)
        if value is not None:
            if -_INT64 <= value < _INT64:
                return str(value)
            raise UnreadableKey(f"the key {text[:40]!r} is an integer beyond 64 bits for kubectl; quote it")
        if _GO_FLOAT.fullmatch(plain) and float(plain) not in (math.inf, -math.inf):  # ParseFloat's range
            raise UnreadableKey(f"the key {text[:40]!r} is a number for kubectl, written back rounded; quote it")
    elif text[0] == "." and (text in _WORDS or _GO_DOT_FLOAT.fullmatch(text)):
        raise UnreadableKey(f"the key {text[:40]!r} is a number for kubectl, written back rounded; quote it")
    return text
