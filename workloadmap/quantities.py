"""Exact Kubernetes resource quantities.

Quantities are parsed into :class:`fractions.Fraction`, so ``100m`` is exactly ``1/10`` and sums
never drift. The accepted syntax is the API server's (``k8s.io/apimachinery`` ``resource.Quantity``):
a signed decimal number followed by an optional binary suffix (``Ki`` .. ``Ei``), decimal suffix
(``n u m k M G T P E``) or decimal exponent (``e3``, ``E-2``). Anything else, such as ``2x``, ``NaN``,
``1_000`` or a trailing space, is a :class:`~workloadmap.errors.QuantityError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from . import labels
from .errors import QuantityError

__all__ = [
    "parse_quantity",
    "format_quantity",
    "format_resources",
    "is_binary_resource",
    "Quantity",
    "MAX_QUANTITY",
]

Quantity = Fraction

_QUANTITY_RE = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?",
    re.ASCII,
)

_BINARY: dict[str, int] = {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4, "Pi": 1024**5, "Ei": 1024**6}
_DECIMAL: dict[str, Fraction] = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
# Exponents beyond this are not quantities anyone means; refusing them keeps Fraction arithmetic cheap.
_MAX_EXPONENT = 30
# The API server keeps quantities it schedules by as int64 (resource.Quantity.Value()); more digits
# than that cannot be a quantity, and refusing them before conversion keeps parsing linear.
_MAX_DIGITS = 40
MAX_QUANTITY = Fraction(2**63 - 1)
"""The largest magnitude accepted: Kubernetes stores scheduled quantities as int64."""


# Parsed quantities by their text (and whole numbers by value): the same few spellings ("4", "64Gi")
# recur in every container of every workload, and a Fraction is immutable, so one can be shared.
_PARSED: dict[tuple[type, object], Fraction] = {}
_PARSED_MAX = 4096


def parse_quantity(value: object) -> Fraction:
    """Parse a Kubernetes quantity (``"500m"``, ``"1.5Gi"``, ``8``) into an exact Fraction.

    Raises:
        QuantityError: the value is not a quantity (the message quotes it).
    """
    key = (type(value), value)  # by type too: True == 1 == 1.0, but only 1 is a quantity
    try:
        return _PARSED[key]
    except (KeyError, TypeError):  # TypeError: an unhashable value, refused below
        pass
    amount = _parse_quantity(value)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[key] = amount
    return amount


def quantity_value(text: str) -> Fraction | None:
    """The amount a quantity string denotes, without the int64 bound Kubernetes stores (None: not a quantity).

    For ordering quantities as ``resource.Quantity.Cmp`` does (``kubectl --sort-by``), ``10Ei`` included.
    """
    try:
        return _parse_quantity(text, bounded=False)
    except QuantityError:
        return None


def _parse_quantity(value: object, *, bounded: bool = True) -> Fraction:
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"invalid quantity {value!r}: expected a number or a quantity string")
    if isinstance(value, int):
        if abs(value) > MAX_QUANTITY:
            raise QuantityError("invalid quantity: beyond the int64 range Kubernetes stores (refused)")
        return Fraction(value)
    if isinstance(value, float):
        # YAML `cpu: 0.5` arrives as a float; its shortest repr is the text the user wrote.
        if value != value or value in (float("inf"), float("-inf")):
            raise QuantityError(f"invalid quantity {value!r}")
        text = repr(value)
    elif isinstance(value, str):
        text = value
    else:
        raise QuantityError(
            f"invalid quantity {value!r}: expected a number or a quantity string, got {type(value).__name__}"
        )
    match = _QUANTITY_RE.fullmatch(text)
    if not match:
        raise QuantityError(f"invalid quantity {text!r}")
    number = match["number"]
    if len(number) > _MAX_DIGITS:
        raise QuantityError(f"invalid quantity {text[:20]!r}...: more than {_MAX_DIGITS} digits (refused)")
    if number.endswith("."):
        number += "0"
    amount = Fraction(number)
    suffix = match["suffix"]
    if suffix:
        if suffix in _BINARY:
            amount *= _BINARY[suffix]
        elif suffix in _DECIMAL:
            amount *= _DECIMAL[suffix]
        else:
            exponent = int(suffix[1:])
            if abs(exponent) > _MAX_EXPONENT:
                raise QuantityError(f"invalid quantity {text!r}: exponent out of range")
            amount *= Fraction(10) ** exponent
    if bounded and amount > MAX_QUANTITY:
        raise QuantityError(f"invalid quantity {text!r}: beyond the int64 range Kubernetes stores (refused)")
    return -amount if match["sign"] == "-" else amount


def format_quantity(amount: Fraction | int, *, binary: bool | None = None) -> str:
    """Format an exact amount as a canonical quantity string.

    Whole amounts use the shortest exact spelling among the largest binary suffix (unless
    ``binary`` is False: counts and cores never get Ki/Mi), the largest decimal suffix and the
    plain number. Fractional amounts use ``m``, ``u`` or ``n``.
    """
    amount = Fraction(amount)
    if amount < 0:
        return "-" + format_quantity(-amount, binary=binary)
    if amount == 0:
        return "0"
    if amount.denominator == 1:
        whole = amount.numerator
        candidates = []
        if binary is not False:
            for suffix, factor in reversed(_BINARY.items()):
                if whole % factor == 0:
                    candidates.append(f"{whole // factor}{suffix}")
                    break
        for suffix in ("E", "P", "T", "G", "M", "k"):
            decimal = _DECIMAL[suffix].numerator
            if whole % decimal == 0:
                candidates.append(f"{whole // decimal}{suffix}")
                break
        candidates.append(str(whole))
        # The shortest spelling reads best (40G rather than 39062500Ki); ties keep binary for bytes.
        return min(candidates, key=len)
    for suffix in ("m", "u", "n"):
        scaled = amount / _DECIMAL[suffix]
        if scaled.denominator == 1:
            return f"{scaled.numerator}{suffix}"
    # Below a nanounit Kubernetes rounds up; do the same rather than print a fraction.
    scaled = amount / _DECIMAL["n"]
    return f"{-(-scaled.numerator // scaled.denominator)}n"


def is_binary_resource(name: str) -> bool:
    """Whether a resource is measured in bytes (and so formatted with Ki/Mi/Gi)."""
    return name in ("memory", "ephemeral-storage", "storage") or name.startswith(labels.HUGEPAGES_PREFIX)


def format_resources(resources: Mapping[str, Fraction | int]) -> dict[str, str]:
    """Format exact amounts as quantity strings, sorted by resource name, zeros dropped."""
    return {
        name: format_quantity(amount, binary=is_binary_resource(name))
        for name, amount in sorted(resources.items())
        if amount != 0
    }
