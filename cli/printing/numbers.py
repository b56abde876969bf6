"""Numbers as people read them: counts whole (``2048``, never ``2k``), bytes in binary units, ``1 pod``/``2 pods``.

Only human output uses these; ``-o json|yaml`` keeps exact quantity strings and numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from workloadmap.quantities import format_quantity, is_binary_resource

__all__ = ["count", "plural", "memory", "amount", "amounts"]

_UNITS = (("Ei", 1024**6), ("Pi", 1024**5), ("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))
_EXACT_DIGITS = 4
"""An exact binary amount is shown exactly while it takes at most this many digits (``1536Mi``)."""


def count(value: Fraction | int | float) -> str:
    """A count (pods, GPUs, nodes): the whole number, or a decimal for a fraction (``0.5`` GPU)."""
    if isinstance(value, float):
        return f"{value:g}"
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.3g}"


def plural(value: Fraction | int | float, word: str) -> str:
    """``1 pod``, ``2 pods``, ``0 GPUs``, ``0.5 GPU``."""
    text = count(value)
    return f"{text} {word}" if Fraction(value) == 1 or (0 < Fraction(value) < 1) else f"{text} {word}s"


def memory(value: Fraction | int) -> str:
    """Bytes in the largest binary unit that holds them exactly (``64Gi``, ``1536Mi``).

    An amount no binary unit holds in a few digits (``40G`` of memory) is rounded to one decimal
    in the largest unit below it, marked with ``~`` (``~37.3Gi``); exact figures are in ``-o json``.
    """
    value = Fraction(value)
    if value < 0:
        return "-" + memory(-value)
    if value.denominator != 1:
        return format_quantity(value, binary=True)
    whole = value.numerator
    if whole == 0:
        return "0"
    for suffix, factor in _UNITS:
        if whole % factor == 0 and len(str(whole // factor)) <= _EXACT_DIGITS:
            return f"{whole // factor}{suffix}"
    if whole < 1024 or len(str(whole)) <= _EXACT_DIGITS:
        return str(whole)
    for suffix, factor in _UNITS:
        if whole >= factor:
            return f"~{whole / factor:.1f}{suffix}"
    return str(whole)  # pragma: no cover - whole >= 1024 always has a unit


def amount(name: str, value: Fraction | int) -> str:
    """One resource amount for people: bytes in binary units, cpu in cores or millicores, others as counts."""
    value = Fraction(value)
    if is_binary_resource(name):
        return memory(value)
    if value.denominator == 1:
        return str(value.numerator)
    return format_quantity(value, binary=False)  # 500m of cpu, as Kubernetes writes it


def amounts(resources: Mapping[str, Fraction | int]) -> dict[str, str]:
    """Every non-zero resource, sorted by name, as :func:`amount` writes it."""
    return {name: amount(name, value) for name, value in sorted(resources.items()) if value != 0}
