"""The syntax of kubectl's JSONPath templates: the parser and the tree it builds (see :mod:`.jsonpath`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Union

__all__ = ["JsonPathError", "Template", "parse"]


class JsonPathError(ValueError):
    """A template that does not parse, or one whose evaluation fails (an index out of range ...)."""


# -- syntax tree -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    name: str


@dataclass(frozen=True)
class _Wildcard:
    pass


@dataclass(frozen=True)
class _Recursive:
    pass


@dataclass(frozen=True)
class _Slice:
    start: int | None
    end: int | None
    step: int | None
    single: bool = False  # ``[i]``: the end is derived (i + 1)


@dataclass(frozen=True)
class _Union:
    branches: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class _Filter:
    left: tuple[Any, ...]
    operator: str  # "exists" for [?(@.x)]
    right: tuple[Any, ...] = ()


@dataclass(frozen=True)
class _Literal:
    value: Any  # a number or a boolean: one per current value


@dataclass(frozen=True)
class _Text:
    value: str  # a quoted string: printed once, whatever the current values


_Step = Union[_Field, _Wildcard, _Recursive, _Slice, _Union, _Filter, _Literal, _Text]


@dataclass
class _Range:
    path: tuple[Any, ...]
    body: list[Any] = field(default_factory=list)


@dataclass
class Template:
    """A parsed template: text, actions (each a path of steps) and ranges, in order."""

    parts: list[Any]


# -- parser ----------------------------------------------------------------------------------

_TERMINATORS = set(" \t\r\n.,[]$@{}")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=~]+)(.+?)$", re.S)
_OPERATORS = ("==", "!=", "<", ">", "<=", ">=", "=~")


def parse(text: str) -> Template:
    """Parse a kubectl JSONPath template.

    Raises:
        JsonPathError: the template is malformed (an unclosed action, an unknown operator ...).
    """
    root: list[Any] = []
    stack: list[list[Any]] = [root]
    position = 0
    while position < len(text):
        opening = text.find("{", position)
        if opening < 0:
            stack[-1].append(text[position:])
            break
        if opening > position:
            stack[-1].append(text[position:opening])
        steps, position = _action(text, opening + 1)
        _place(steps, stack)
    return Template(root)


def _place(steps: list[Any], stack: list[list[Any]]) -> None:
    """Put one parsed action into the template: a path, a ``range`` opening or an ``end``."""
    if steps and steps[0] == "range":
        loop = _Range(tuple(steps[1:]))
        stack[-1].append(loop)
        stack.append(loop.body)
    elif steps and steps[0] == "end":
        if len(stack) == 1:
            raise JsonPathError("not in range, nothing to end")
        stack.pop()
    else:
        stack[-1].append(tuple(steps))


def _action(text: str, position: int) -> tuple[list[Any], int]:
    """The steps of the action starting at ``position`` (after ``{``), and the position after ``}``."""
    steps: list[Any] = []
    while True:
        if position >= len(text) or text[position] in "\r\n":
            raise JsonPathError("unclosed action")
        char = text[position]
        if char == "}":
            return steps, position + 1
        step: Any
        if text.startswith("[?(", position):
            step, position = _filter(text, position + 3)
            steps.append(step)
        elif text.startswith("..", position):
            if steps and isinstance(steps[-1], _Recursive):
                raise JsonPathError("invalid multiple recursive descent")
            steps.append(_Recursive())
            position += 2
            if position < len(text) and (text[position].isalnum() or text[position] == "_"):
                step, position = _field(text, position)
                steps.append(step)
        elif char in " @$":
            position += 1
        elif char == "[":
            step, position = _bracket(text, position + 1)
            steps.append(step)
        elif char in "\"'":
            quoted, position = _quoted(text, position)
            steps.append(_Text(quoted))
        elif char == ".":
            step, position = _field(text, position + 1)
            steps.append(step)
        elif char in "+-" or char.isdigit():
            number, position = _number(text, position)
            steps.append(_Literal(number))
        elif char.isalnum() or char == "_":
            word, position = _word(text, position)
            steps.append(_Literal(word == "true") if word in ("true", "false") else word)
        else:
            raise JsonPathError(f"unrecognized character in action: {char!r}")


def _word(text: str, position: int) -> tuple[str, int]:
    start = position
    while position < len(text) and text[position] not in _TERMINATORS:
        position += 1
    word = text[start:position]
    if word not in ("range", "end", "true", "false"):
        raise JsonPathError(f"unrecognized identifier {word}")
    return word, position


def _field(text: str, position: int) -> tuple[_Step, int]:
    r"""A field name up to the next unescaped terminator; ``\\`` escapes the character after it."""
    name: list[str] = []
    while position < len(text):
        char = text[position]
        if char == "\\" and position + 1 < len(text):
            name.append(text[position + 1])
            position += 2
            continue
        if char in _TERMINATORS:
            break
        name.append(char)
        position += 1
    value = "".join(name)
    return (_Wildcard() if value == "*" else _Field(value)), position


def _number(text: str, position: int) -> tuple[int | float, int]:
    start = position
    if text[position] in "+-":
        position += 1
    while position < len(text) and (text[position].isdigit() or text[position] == "."):
        position += 1
    literal = text[start:position]
    try:
        return int(literal), position
    except ValueError:
        pass
    try:
        return float(literal), position
    except ValueError:
        raise JsonPathError(f"cannot parse number {literal}") from None


def _quoted(text: str, position: int) -> tuple[str, int]:
    quote = text[position]
    end = position + 1
    while True:
        if end >= len(text) or text[end] == "\n":
            raise JsonPathError("unterminated quoted string")
        if text[end] == quote and text[end - 1] != "\\":
            break
        end += 1
    return _unquote(text[position + 1 : end], quote), end + 1


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"'}


def _unquote(body: str, quote: str) -> str:
    r"""Go's string escapes (``\\n``, ``\\t``, ``\\"``, ``\\x41``, ``\\u00e9`` ...), as strconv.Unquote reads them."""
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(body):
            raise JsonPathError(f"unquote string {quote}{body}{quote} error invalid syntax")
        code = body[index + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            index += 2
            continue
        size = {"x": 2, "u": 4, "U": 8}.get(code)
        digits = body[index + 2 : index + 2 + size] if size else ""
        if size and len(digits) == size and all(c in "0123456789abcdefABCDEF" for c in digits):
            out.append(chr(int(digits, 16)))
            index += 2 + size
            continue
        raise JsonPathError(f"unquote string {quote}{body}{quote} error invalid syntax")
    return "".join(out)


def _bracket(text: str, position: int) -> tuple[_Step, int]:
    """``[...]``: an index or slice, ``*``, a union of them, or a quoted key."""
    end = position
    while True:
        if end >= len(text) or text[end] == "\n":
            raise JsonPathError("unterminated array")
        if text[end] == "]":
            break
        end += 1
    return _subscript(text[position:end]), end + 1


def _subscript(inner: str) -> _Step:
    if inner == "*":
        inner = ":"
    if "," in inner:
        branches = []
        for part in inner.split(","):
            steps, _ = _action("[" + part.strip(" ") + "]}", 0)
            branches.append(tuple(steps))
        return _Union(tuple(branches))
    key = re.fullmatch(r"'([^']*)'", inner)
    if key:
        steps, _ = _action("." + key.group(1) + "}", 0)
        return steps[0] if len(steps) == 1 else _Union((tuple(steps),))
    match = _SLICE.match(inner)
    if match is None:
        raise JsonPathError(f"invalid array index {inner}")
    start, end, step = match.groups()
    if end is None and step is None:
        if start == "":
            raise JsonPathError(f"invalid array index {inner}")
        return _Slice(int(start), None, None, single=True)
    return _Slice(
        int(start) if start not in ("", "-") else None,
        int(end[1:]) if end and end[1:] not in ("", "-") else None,
        int(step[1:]) if step and step[1:] not in ("", "-") else None,
    )


def _filter(text: str, position: int) -> tuple[_Filter, int]:
    """``[?(left op right)]`` or ``[?(path)]``; a quoted right side may hold ``)``."""
    start = position
    quote: str | None = None
    closed = False
    while True:
        if position >= len(text) or text[position] == "\n":
            raise JsonPathError("unterminated filter")
        char = text[position]
        if char in "\"'":
            if quote is None:
                quote = char
            elif char == quote and text[position - 1] != "\\":
                closed = True
        elif char == ")" and (quote is None) == (not closed):
            break
        position += 1
    if position + 1 >= len(text) or text[position + 1] != "]":
        raise JsonPathError("unclosed array expect ]")
    inner = text[start:position]
    match = _FILTER.match(inner)
    if match is None:
        steps, _ = _action(inner + "}", 0)
        return _Filter(tuple(steps), "exists"), position + 2
    operator = match.group(2)
    if operator not in _OPERATORS:
        raise JsonPathError(f"unrecognized filter operator {operator}")
    left, _ = _action(match.group(1) + "}", 0)
    right, _ = _action(match.group(3) + "}", 0)
    return _Filter(tuple(left), operator, tuple(right)), position + 2
