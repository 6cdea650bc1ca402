"""Quantities from hostile input are unparseable (None), never an exception and never slow."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.kueue.quantity import QuantityError, parse, try_parse


@pytest.mark.parametrize("value", [
    float("nan"), float("inf"), float("-inf"), "nan", "inf", "٣", "1" * 5000, "1e999999999", "1e-999999999",
    2**5000, [1], {"a": 1}, None, True, "", " ", "1 000", "0x10", "1Ki1", "+-1",
])
def test_unparseable_is_none(value: object) -> None:
    t0 = time.monotonic()
    assert try_parse(value) is None
    with pytest.raises(QuantityError):
        parse(value)
    assert time.monotonic() - t0 < 1


@pytest.mark.parametrize(("value", "want"), [
    ("1600k", Fraction(1_600_000)), ("500m", Fraction(1, 2)), ("10Gi", Fraction(10 * 2**30)), ("1e3", Fraction(1000)),
    (4, Fraction(4)), (2.5, Fraction(5, 2)), ("9223372036854775807", Fraction(2**63 - 1)), ("1e100", Fraction(10**100)),
    (".5", Fraction(1, 2)), ("-1", Fraction(-1)), (" 2 ", Fraction(2)),
])
def test_real_quantities_still_parse_exactly(value: object, want: Fraction) -> None:
    assert parse(value) == want


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.floats(), st.integers(), st.binary(max_size=20)))
def test_any_value_is_a_fraction_or_none(value: object) -> None:
    got = try_parse(value)
    assert got is None or isinstance(got, Fraction)
