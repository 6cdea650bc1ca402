"""parse and format_quantity remember their answers within a run (why-pending -A formats the same few
quantities tens of thousands of times; kubectl_pd/memo.py): a remembered answer must be the one the function
computes afresh, for every input, on the first call and on every later one, the memos stay bounded, and
outside a run nothing is remembered."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd import memo
from kubectl_pd.kueue import quantity as q

resources = st.sampled_from(["cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu",
                             "credits.gpustack.ai/x", ""])
fractions = st.fractions(max_denominator=10**6) | st.integers(-(10**20), 10**20).map(Fraction) | st.sampled_from(
    [Fraction(2**30), Fraction(3 * 10**18), Fraction(2**60), Fraction(-(2**20)), Fraction(1, 3), Fraction(0)])


@settings(max_examples=500, deadline=None)
@given(fractions, resources)
def test_format_quantity_answers_as_computed_afresh(value: Fraction, resource: str) -> None:
    fresh = q._format(value, resource)
    assert q.format_quantity(value, resource) == fresh  # outside a run: no memo
    with memo.run():
        assert q.format_quantity(value, resource) == fresh  # first call
        assert q.format_quantity(value, resource) == fresh  # remembered


@pytest.mark.parametrize(("value", "resource", "text"), [
    (Fraction(1), "cpu", "1"), (Fraction(1), "memory", "1"), (Fraction(1024), "memory", "1Ki"),
    (Fraction(1024), "cpu", "1024"), (Fraction(1000), "cpu", "1k"), (Fraction(1000), "memory", "1000"),
    (Fraction(-1, 2), "cpu", "-500m"), (Fraction(1, 3), "cpu", "0.333333"), (Fraction(5, 2), "", "2500m"),
])
def test_equal_values_of_other_resources_are_not_confused(value: Fraction, resource: str, text: str) -> None:
    with memo.run():
        for other in ("cpu", "memory", ""):
            q.format_quantity(value, other)
        for _ in range(2):
            assert q.format_quantity(value, resource) == text


def test_an_int_formats_as_its_fraction() -> None:
    assert q.format_quantity(2048, "memory") == q.format_quantity(Fraction(2048), "memory") == "2Ki"  # type: ignore[arg-type]


texts = st.from_regex(r"\A[+-]?([0-9]{1,6}(\.[0-9]{0,3})?|\.[0-9]{1,3})([eE][+-]?[0-9]{1,2}|Ki|Mi|Gi|n|u|m|k|M|G)?\Z")


@settings(max_examples=300, deadline=None)
@given(texts | st.text(max_size=12))
def test_parse_answers_as_computed_afresh(text: str) -> None:
    try:
        fresh: Fraction | q.QuantityError = q._parse_text(text)
    except q.QuantityError as e:
        fresh = e
    with memo.run():
        for _ in range(2):
            if isinstance(fresh, q.QuantityError):
                with pytest.raises(q.QuantityError) as got:
                    q.parse(text)
                assert str(got.value) == str(fresh)
            else:
                assert q.parse(text) == fresh


def test_memos_stay_bounded_and_die_with_the_run() -> None:
    with memo.run() as run:
        for i in range(q.MEMO_SIZE + 50):
            q.parse(f"{i}m")
            q.format_quantity(Fraction(i, 7), "cpu")
        parsed, formatted = run.tables[q.PARSED], run.tables[q.FORMATTED]
        assert 0 < len(parsed) <= q.MEMO_SIZE and 0 < len(formatted) <= q.MEMO_SIZE
        padded = " " * 500 + "1"
        assert q.parse(padded) == 1 and padded not in parsed
    assert memo.current() is None and not run.tables


def test_outside_a_run_nothing_is_remembered() -> None:
    assert memo.current() is None
    assert q.parse("7") == 7 and q.format_quantity(Fraction(7), "cpu") == "7"
    assert memo.table(q.PARSED) is None
