"""``--sort-by=JSONPATH`` as kubectl sorts a list (``k8s.io/kubectl/pkg/cmd/get/sorter.go``).

The expression is read as custom-columns read theirs (``.metadata.name``, ``{.metadata.name}``
and ``metadata.name`` alike) and evaluated on each item as ``-o json`` prints it; the first value
it finds is compared: numbers as numbers, two strings that are both quantities as quantities
(``100m`` < ``0.5`` < ``10``), other strings in natural order (``abc2`` < ``abc12``, as
``sortorder.NaturalLess``), an item without the field (or with null) first. No item having the
field is an error, as in kubectl; so is a value kubectl cannot sort (a boolean, a list, an object,
a number beside a string). One difference, kept on purpose: equal values keep the input's order
(kubectl's ``sort.Sort`` is not stable).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from . import output
from .usage import bad_parameter

__all__ = ["sort_by", "natural_less", "parse_sort_by"]

T = TypeVar("T")


def natural_less(left: str, right: str) -> bool:
    """``sortorder.NaturalLess``: digit runs compared as numbers (fewer leading zeros first), other bytes as bytes."""
    one, two = left.encode(), right.encode()
    first = second = 0
    digits = b"0123456789"
    while first < len(one) and second < len(two):
        left_digit, right_digit = one[first] in digits, two[second] in digits
        if left_digit != right_digit:
            return left_digit
        if not left_digit:
            if one[first] != two[second]:
                return one[first] < two[second]
            first, second = first + 1, second + 1
            continue
        while first < len(one) and one[first] == 0x30:
            first += 1
        while second < len(two) and two[second] == 0x30:
            second += 1
        start_one, start_two = first, second
        while first < len(one) and one[first] in digits:
            first += 1
        while second < len(two) and two[second] in digits:
            second += 1
        if first - start_one != second - start_two:
            return first - start_one < second - start_two
        if one[start_one:first] != two[start_two:second]:
            return one[start_one:first] < two[start_two:second]
        if start_one != start_two:
            return start_one < start_two
    return len(one) < len(two)


class UnsortableError(Exception):
    """A value kubectl's sorter refuses (``unsortable type``)."""


def _quantity(text: str) -> Fraction | None:
    from workloadmap.quantities import quantity_value

    return quantity_value(text)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _less(left: Any, right: Any) -> bool:
    """Kubectl's ``isLess`` on two values of unstructured JSON."""
    if left is None or right is None:
        return left is None and right is not None
    if _is_number(left) and _is_number(right):
        return bool(left < right)
    if isinstance(left, str) and isinstance(right, str):
        one, two = _quantity(left), _quantity(right)
        if one is not None and two is not None:
            return one < two
        return natural_less(left, right)
    kinds = {type(left).__name__, type(right).__name__}
    raise UnsortableError(f"unsortable type: {' and '.join(sorted(kinds))}")


def parse_sort_by(expression: str) -> Any:
    """The ``--sort-by`` expression parsed (kubectl's relaxed forms); a malformed one is a usage error (exit 2)."""
    from . import jsonpath

    try:
        return jsonpath.parse(jsonpath.relaxed(expression))
    except jsonpath.JsonPathError as error:
        raise bad_parameter(f"{expression!r}: {error}", param_hint="--sort-by") from None


def sort_by(items: Sequence[T], document: Callable[[T], Any], expression: str) -> list[T]:
    """``items`` in the order kubectl's ``--sort-by=expression`` gives their documents (``document(item)``).

    Raises:
        SystemExit: no item has the field, or a value cannot be sorted (exit 1, the reason on stderr).
    """
    from . import jsonpath

    if not items:
        return list(items)
    template = parse_sort_by(expression)
    keyed = [(jsonpath.first_value(template, document(item)), item) for item in items]
    if not any(found for (found, _), _ in keyed):
        field = jsonpath.relaxed(expression)
        output.error(f"couldn't find any field with path {field!r} in the list of objects (--sort-by)")
        raise SystemExit(1)

    def compare(one: tuple[tuple[bool, Any], T], two: tuple[tuple[bool, Any], T]) -> int:
        (found_one, left), (found_two, right) = one[0], two[0]
        if not found_one or not found_two:
            return (found_one and not found_two) - (found_two and not found_one)
        return -1 if _less(left, right) else 1 if _less(right, left) else 0

    try:
        return [item for _, item in sorted(keyed, key=functools.cmp_to_key(compare))]
    except UnsortableError as error:
        output.error(f"--sort-by {jsonpath.relaxed(expression)}: {error}")
        raise SystemExit(1) from None
