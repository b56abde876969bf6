"""Kueue's quota arithmetic on whole numbers, and its way of printing amounts in messages.

Kueue keeps every quota and usage as an int64 in canonical units: CPU in millicores, everything
else in base units (bytes, counts), each rounded up from the quantity
(``pkg/resources/amount.go`` ``AmountFromQuantity``: ``MilliValue`` for cpu, ``Value`` otherwise).
Messages print an amount back as a Kubernetes quantity the way Kueue's ``ResourceFormatter``
does (``pkg/resources/resource_formatter.go``): cpu as ``NewMilliQuantity(v, DecimalSI)``, memory,
ephemeral storage and hugepages as a canonical binary quantity, every other resource as a decimal
one; :func:`format_amount` reproduces ``resource.Quantity.String()`` for those three cases.
"""

from __future__ import annotations

from fractions import Fraction

from ..quantities import parse_quantity

__all__ = ["to_amount", "parse_amount", "format_amount", "is_binary"]

_CPU = "cpu"
_BINARY_RESOURCES = ("memory", "ephemeral-storage")
_HUGEPAGES = "hugepages-"
_DECIMAL_SUFFIXES = ((18, "E"), (15, "P"), (12, "T"), (9, "G"), (6, "M"), (3, "k"))
_BINARY_SUFFIXES = ((60, "Ei"), (50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki"))


def is_binary(resource: str) -> bool:
    """Whether Kueue prints ``resource`` with binary suffixes (bytes)."""
    return resource in _BINARY_RESOURCES or resource.startswith(_HUGEPAGES)


def _ceil(value: Fraction) -> int:
    return -(-value.numerator // value.denominator)


def to_amount(resource: str, value: Fraction | int) -> int:
    """An exact quantity as Kueue's integer: millicores for cpu, base units otherwise, rounded up."""
    value = Fraction(value)
    return _ceil(value * 1000) if resource == _CPU else _ceil(value)


def parse_amount(resource: str, text: object) -> int:
    """A quantity string (``"2"``, ``"500m"``, ``"16Gi"``) as Kueue's integer.

    Raises:
        QuantityError: not a valid Kubernetes quantity.
    """
    return to_amount(resource, parse_quantity(text))


def _decimal(value: int, exponent: int = 0) -> str:
    """``value * 10**exponent`` as DecimalSI prints it: the largest suffix keeping a whole mantissa."""
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    value = abs(value)
    while value % 10 == 0:
        value //= 10
        exponent += 1
    # Spread the exponent between the mantissa and a suffix that is a multiple of 3 (n, u, m, "", k ...).
    scale = exponent - exponent % 3 if exponent >= 0 else -((-exponent + 2) // 3) * 3
    mantissa = value * 10 ** (exponent - scale)
    if scale > 18:
        mantissa, scale = mantissa * 10 ** (scale - 18), 18
    suffix = {0: "", -3: "m", -6: "u", -9: "n"}.get(scale)
    if suffix is None:
        suffix = dict(_DECIMAL_SUFFIXES)[scale]
    return f"{sign}{mantissa}{suffix}"


def _binary(value: int) -> str:
    """A byte count as ``newCanonicalQuantity(v, BinarySI)`` prints it.

    BinarySI keeps the largest power-of-1024 suffix that divides the value; below 1024, or when
    no suffix divides it, the plain number is printed, which reads back as a decimal quantity and
    is printed again as one (so 10^9 bytes is ``1G``).
    """
    magnitude = abs(value)
    if magnitude >= 1024:
        for shift, suffix in _BINARY_SUFFIXES:
            if magnitude % (1 << shift) == 0:
                return f"{'-' if value < 0 else ''}{magnitude >> shift}{suffix}"
    return _decimal(value)


def format_amount(resource: str, amount: int) -> str:
    """A Kueue amount as its messages print it: ``3``, ``500m``, ``10Mi``, ``1G``, ``8``."""
    if resource == _CPU:
        return _decimal(amount, -3)
    if is_binary(resource):
        return _binary(amount)
    return _decimal(amount)
