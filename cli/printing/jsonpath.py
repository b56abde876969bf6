r"""kubectl's JSONPath templates (``-o jsonpath=...``, ``-o custom-columns=...``), evaluated on plain JSON data.

kubectl's template language (``k8s.io/client-go/util/jsonpath``) is not the JSONPath that
jsonpath-ng reads: text outside ``{...}`` is printed as is, ``{range ...}...{end}`` loops,
``{"\\t"}`` prints a quoted string, every result of one action is printed separated by spaces
(strings bare, lists and objects as compact JSON), and a missing key prints nothing. This module
implements that language from its documented behaviour and client-go's test table:

* fields ``.a.b``, escaped dots ``.metadata.labels.kubernetes\\.io/hostname``, ``$`` and ``@``
  (the current object), ``*`` (every value), ``..`` (recursive descent);
* ``[i]``, ``[-1]``, slices ``[start:end:step]`` with client-go's bounds errors, ``[*]``,
  unions ``[0,2]`` and ``['a.b', 'c']``;
* filters ``[?(@.x == "y")]`` with ``== != < > <= >= =~`` and existence ``[?(@.x)]``;
* ``{range EXPR}...{end}`` (nested), quoted text ``{"..."}`` with Go escapes, ``true``/``false``.

Numbers print as Go prints them (``2.5``, ``1e+06``), ``null`` as ``<nil>``, booleans as
``true``/``false``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from .jsonpath_syntax import (
    JsonPathError,
    Template,
    _Field,
    _Filter,
    _Literal,
    _Range,
    _Recursive,
    _Slice,
    _Text,
    _Union,
    _Wildcard,
    parse,
)

__all__ = ["JsonPathError", "Template", "parse", "render", "render_json", "column", "relaxed", "go_text"]


# -- evaluation ------------------------------------------------------------------------------


class _Missing(Exception):
    """A field not found (printed as nothing when missing keys are allowed, as kubectl does)."""


def _children(value: Any) -> list[Any]:
    """What ``*`` and ``..`` visit below a value; a string's are its bytes, as Go indexes a string."""
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value.encode())
    return []


def _evaluate(steps: Sequence[Any], values: list[Any], allow_missing: bool) -> list[Any]:
    for step in steps:
        values = _apply(step, values, allow_missing)
    return values


def _apply(step: Any, values: list[Any], allow_missing: bool) -> list[Any]:
    if isinstance(step, _Field):
        found = [value[step.name] for value in values if isinstance(value, dict) and step.name in value]
        if not found and values and not allow_missing:
            raise _Missing(f"{step.name} is not found")
        return found
    if isinstance(step, _Wildcard):
        return [child for value in values if value is not None for child in _children(value)]
    if isinstance(step, _Recursive):
        return [found for value in values for found in _descend(value)]
    if isinstance(step, _Slice):
        return [item for value in values if value is not None for item in _slice(step, value)]
    if isinstance(step, _Union):
        return [found for branch in step.branches for found in _evaluate(branch, values, allow_missing)]
    if isinstance(step, _Filter):
        return [item for value in values for item in _filtered(step, value, allow_missing)]
    if isinstance(step, _Literal):
        return [step.value for _ in values]
    if isinstance(step, _Text):
        return [step.value]
    raise JsonPathError(f"unexpected step {step!r}")


def _descend(value: Any) -> Iterator[Any]:
    """The value and every container below it, depth first (scalars are not results of ``..``)."""
    children = _children(value)
    if not children:
        return
    yield value
    for child in children:
        yield from _descend(child)


def _slice(step: _Slice, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise JsonPathError(f"{_go_type(value)} is not array or slice")
    length = len(value)
    start = step.start or 0
    if start < 0:
        start += length
    if step.single:
        end = start + 1
    else:
        end = length if step.end is None else step.end
        if end < 0:
            end += length
    if end == start:
        return []
    if start >= length or start < 0:
        raise JsonPathError(f"array index out of bounds: index {start}, length {length}")
    if end > length or end < 0:
        raise JsonPathError(f"array index out of bounds: index {end - 1}, length {length}")
    if start > end:
        raise JsonPathError(f"starting index {start} is greater than ending index {end}")
    if step.step is not None and step.step <= 0:
        raise JsonPathError("step must be > 0")
    return value[start : end : step.step or 1]


def _filtered(step: _Filter, value: Any, allow_missing: bool) -> list[Any]:
    if not isinstance(value, list):
        raise JsonPathError(f"{_go_text(value)} is not array or slice and cannot be filtered")
    kept = []
    for item in value:
        try:
            lefts = _evaluate(step.left, [item], allow_missing)
        except _Missing:
            lefts = None
        if step.operator == "exists":
            if lefts:
                kept.append(item)
            continue
        if lefts is None:
            raise _Missing("filter: a compared field is not found")
        if not lefts:
            continue
        if len(lefts) > 1:
            raise JsonPathError("can only compare one element at a time")
        rights = _evaluate(step.right, [item], allow_missing)
        if not rights:
            continue
        if len(rights) > 1:
            raise JsonPathError("can only compare one element at a time")
        if _compare(lefts[0], step.operator, rights[0]):
            kept.append(item)
    return kept


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "other"


def _compare(left: Any, operator: str, right: Any) -> bool:
    """Go template comparisons: both sides of one basic kind; ``=~`` matches a string pattern."""
    if operator == "=~":
        if not isinstance(left, str) or not isinstance(right, str):
            raise JsonPathError(f"regexp search only support string now but getting pattern: {right!r}, data: {left!r}")
        return re.search(right, left) is not None
    kind = _kind(left)
    if kind != _kind(right):
        raise JsonPathError("incompatible types for comparison")
    if kind == "other":
        raise JsonPathError("invalid type for comparison")
    if operator in ("==", "!="):
        return bool((left == right) == (operator == "=="))
    if kind == "bool":
        raise JsonPathError("invalid type for comparison")
    return bool({"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[operator])


# -- printing --------------------------------------------------------------------------------


def go_text(value: Any) -> str:
    """A scalar as Go's ``fmt.Print`` writes it (kubectl's jsonpath output); lists and objects as compact JSON."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return _go_text(value)


def _go_text(value: Any) -> str:
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, dict):
        inner = " ".join(f"{key}:{_go_text(item)}" for key, item in sorted(value.items()))
        return f"map[{inner}]"
    if isinstance(value, list):
        return "[" + " ".join(_go_text(item) for item in value) + "]"
    return str(value)


def _go_type(value: Any) -> str:
    return {"dict": "map[string]interface {}", "str": "string", "bool": "bool", "int": "int64"}.get(
        type(value).__name__, "float64" if isinstance(value, float) else "interface {}"
    )


def _go_float(value: float) -> str:
    """``%v`` of a float64 (strconv ``g``, shortest): exponent form below 1e-4 and from 1e+06 up."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(str(digit) for digit in digits)
    point = len(text) + exponent  # position of the decimal point from the left of the digits
    scientific = point - 1
    prefix = "-" if sign else ""
    if scientific < -4 or scientific >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if scientific < 0 else '+'}{abs(scientific):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text}"
    if point >= len(text):
        return prefix + text + "0" * (point - len(text))
    return f"{prefix}{text[:point]}.{text[point:]}"


def _results(parts: list[Any], data: Any, allow_missing: bool) -> Iterator[list[Any]]:
    """Each action's results in template order, ranges unrolled (kubectl's FindResults)."""
    for part in parts:
        if isinstance(part, str):
            yield [part]
        elif isinstance(part, _Range):
            for item in _evaluate(part.path, [data], allow_missing):
                yield from _results(part.body, item, allow_missing)
        else:
            yield _evaluate(part, [data], allow_missing)


def render(template: Template | str, data: Any, *, allow_missing: bool = True) -> str:
    """The template's output for ``data`` (kubectl allows missing keys unless told otherwise).

    Raises:
        JsonPathError: evaluation failed (an index out of range, a missing key when not allowed ...).
    """
    parsed = parse(template) if isinstance(template, str) else template
    out: list[str] = []
    try:
        for results in _results(parsed.parts, data, allow_missing):
            out.append(" ".join(go_text(value) for value in results))
    except _Missing as missing:
        raise JsonPathError(str(missing)) from None
    except RecursionError:
        raise JsonPathError("the data is nested too deeply") from None
    return "".join(out)


def render_json(template: Template | str, data: Any) -> str:
    """``-o jsonpath-as-json``: each action's results as an indented JSON array (kubectl's EnableJSONOutput)."""
    parsed = parse(template) if isinstance(template, str) else template
    try:
        return "".join(json.dumps(results, indent=4) + "\n" for results in _results(parsed.parts, data, True))
    except RecursionError:
        raise JsonPathError("the data is nested too deeply") from None


def column(template: Template, data: Any) -> str:
    """One custom-columns cell: every result, as Go's ``fmt.Sprint`` prints it, joined by commas.

    ``<none>`` when the path finds nothing (kubectl's custom-columns printer allows missing keys).
    """
    found = list(_results(template.parts, data, True))
    if not found or not found[0]:
        return "<none>"
    return ",".join(_go_text(value) for results in found for value in results)


_RELAXED = re.compile(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$")


def relaxed(expression: str) -> str:
    """A custom-columns path as kubectl accepts it (``a.b``, ``.a.b``, ``{a.b}``, ``{.a.b}``), as ``{.a.b}``.

    Raises:
        JsonPathError: the expression holds braces inside.
    """
    if not expression:
        return expression
    match = _RELAXED.match(expression)
    if match is None:
        raise JsonPathError(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"
        )
    return "{." + (match.group(1) or match.group(2)) + "}"


def first_value(template: Template, data: Any) -> tuple[bool, Any]:
    """The first result of the template's first action on ``data`` (missing keys allowed), and whether there is one.

    What kubectl's ``--sort-by`` compares: ``findJSONPathResults(...)[0][0]``.
    """
    for results in _results(template.parts, data, True):
        return (True, results[0]) if results else (False, None)
    return False, None
