"""Tests for workloadmap.quantities: the API server's quantity grammar, exact sums, formatting."""

from __future__ import annotations

from fractions import Fraction

import pytest

from workloadmap.errors import InputError, QuantityError
from workloadmap.quantities import format_quantity, parse_quantity

F = Fraction


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", F(1)),
        ("0", F(0)),
        ("100m", F(1, 10)),  # milli: 100 / 1000
        ("1500m", F(3, 2)),
        ("250u", F(1, 4000)),  # 250e-6
        ("5n", F(5, 10**9)),
        ("1k", F(1000)),
        ("2M", F(2 * 10**6)),
        ("3G", F(3 * 10**9)),
        ("1T", F(10**12)),
        ("1P", F(10**15)),
        ("1E", F(10**18)),  # E alone is the exa suffix ...
        ("1e3", F(1000)),  # ... e followed by digits is an exponent
        ("1E3", F(1000)),  # the grammar allows an upper-case exponent too
        ("5e-1", F(1, 2)),
        ("2E+2", F(200)),
        ("1Ki", F(1024)),
        ("1Mi", F(1024**2)),
        ("16Gi", F(16 * 1024**3)),
        ("1Ti", F(1024**4)),
        ("1Pi", F(1024**5)),
        ("1Ei", F(1024**6)),
        ("1.5Gi", F(3, 2) * 1024**3),  # 1610612736 bytes
        ("0.5", F(1, 2)),
        (".5", F(1, 2)),  # the grammar allows a bare fraction ...
        ("5.", F(5)),  # ... and a trailing point
        ("+2", F(2)),
        ("-2", F(-2)),
        ("-100m", F(-1, 10)),
    ],
)
def test_parse_suffixes_and_exponents(text, expected):
    assert parse_quantity(text) == expected


def test_milli_and_mega_differ_by_case():
    # m is 10^-3, M is 10^6: a 10^9 factor apart
    assert parse_quantity("1M") / parse_quantity("1m") == 10**9


def test_integers_and_floats_as_yaml_gives_them():
    assert parse_quantity(8) == 8
    assert parse_quantity(0.5) == F(1, 2)
    # YAML `cpu: 0.1` arrives as a float; it must mean exactly one tenth, not the binary float
    assert parse_quantity(0.1) == F(1, 10)
    assert parse_quantity(1e-05) == F(1, 100000)


def test_sums_are_exact():
    # 0.1 + 0.2 cpu is exactly 300m (floats would give 0.30000000000000004)
    assert parse_quantity("0.1") + parse_quantity("0.2") == parse_quantity("300m")
    assert parse_quantity(0.1) + parse_quantity(0.2) == F(3, 10)
    # ten 100m containers are exactly one cpu
    assert sum((parse_quantity("100m") for _ in range(10)), F(0)) == 1
    # 1.1Gi is not a whole number of bytes: 1.1 * 2^30 = 1181116006.4 stays exact
    assert parse_quantity("1.1Gi") == F(11, 10) * 2**30


@pytest.mark.parametrize(
    "bad",
    [
        "2x",
        "NaN",
        "nan",
        "Inf",
        "1_000",
        " 1",
        "1 ",
        "",
        "1K",  # upper-case K is not a suffix (k is)
        "1ki",
        "1Gb",
        "0x10",
        "1.2.3",
        "--1",
        "m",
        "1e",
        "1e3.5",
        "1Mi3",
        "1e31",  # absurd exponent refused
    ],
)
def test_invalid_strings_raise_quantity_error(bad):
    with pytest.raises(QuantityError) as caught:
        parse_quantity(bad)
    assert repr(bad) in str(caught.value)  # the message quotes the value


def test_trailing_newline_is_invalid():
    with pytest.raises(QuantityError):
        parse_quantity("1\n")


@pytest.mark.parametrize("bad", [True, False, None, float("nan"), float("inf"), [1], {"cpu": 1}, b"1"])
def test_invalid_types_raise_quantity_error(bad):
    with pytest.raises(QuantityError):
        parse_quantity(bad)


def test_quantity_error_is_an_input_error():
    # callers catch InputError for every bad-input problem
    assert issubclass(QuantityError, InputError)


@pytest.mark.parametrize(
    ("amount", "binary", "expected"),
    [
        (F(0), None, "0"),
        (F(1, 10), None, "100m"),
        (F(3, 2), False, "1500m"),
        (F(1, 4000), False, "250u"),
        (F(5, 10**9), False, "5n"),
        (F(4), False, "4"),
        (F(1000), False, "1k"),
        (F(2 * 10**9), False, "2G"),
        (F(10**18), False, "1E"),
        (F(1024), True, "1Ki"),
        (F(16 * 1024**3), True, "16Gi"),
        (F(1024**4), True, "1Ti"),
        (F(3 * 1024**2 // 2), True, "1536Ki"),  # 1.5Mi is not a whole Mi: falls back to Ki
        (F(1000), True, "1k"),  # memory of 1000 bytes: decimal is exact, binary is not
        (F(1500), True, "1500"),
        (F(-2), False, "-2"),
        (F(-1, 2), False, "-500m"),
    ],
)
def test_format(amount, binary, expected):
    assert format_quantity(amount, binary=binary) == expected


def test_format_rounds_below_a_nanounit_up():
    # Kubernetes rounds sub-nano amounts up: 1/3 = 333333333.33...n -> 333333334n
    assert format_quantity(F(1, 3)) == "333333334n"


@pytest.mark.parametrize(
    "text", ["100m", "1", "2500m", "16Gi", "1536Ki", "7", "1k", "3G", "250u", "5n", "1Ei", "64Mi", "123456789"]
)
def test_round_trip_text(text):
    amount = parse_quantity(text)
    assert parse_quantity(format_quantity(amount)) == amount
    assert parse_quantity(format_quantity(amount, binary=True)) == amount
    assert parse_quantity(format_quantity(amount, binary=False)) == amount


@pytest.mark.parametrize("amount", [F(1, 10), F(7, 8), F(12345, 1000), F(2**40), F(999_999_999, 10**9)])
def test_round_trip_amount(amount):
    assert parse_quantity(format_quantity(amount)) == amount
