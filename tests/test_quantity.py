from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_pd.kueue import quantity as q


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1600k", 1_600_000), ("500m", Fraction(1, 2)), ("10Gi", 10 * 2**30), ("1e3", 1000),
        ("2.5", Fraction(5, 2)), (4, 4), ("-1", -1), ("0", 0), ("1.5Mi", Fraction(3, 2) * 2**20),
        ("100n", Fraction(1, 10**7)), (".5", Fraction(1, 2)), ("12800k", 12_800_000),
    ],
)
def test_parse(text: object, value: Fraction) -> None:
    assert q.parse(text) == value


@pytest.mark.parametrize("bad", ["", "abc", "1.2.3", "10 Gi", "1Xi", None, True, [], "k"])
def test_parse_rejects(bad: object) -> None:
    with pytest.raises(q.QuantityError):
        q.parse(bad)
    assert q.try_parse(bad) is None


@pytest.mark.parametrize(
    ("value", "resource", "text"),
    [
        (Fraction(1_600_000), "credits.gpustack.ai/nvidia", "1600k"),
        (Fraction(1, 2), "cpu", "500m"),
        (Fraction(10 * 2**20), "memory", "10Mi"),
        (Fraction(3), "cpu", "3"),
        (Fraction(-2000), "x", "-2k"),
        (Fraction(1234), "memory", "1234"),
    ],
)
def test_format(value: Fraction, resource: str, text: str) -> None:
    assert q.format_quantity(value, resource) == text


@given(st.integers(min_value=0, max_value=10**15), st.sampled_from(["cpu", "memory", "credits.gpustack.ai/x"]))
def test_format_round_trips(n: int, resource: str) -> None:
    assert q.parse(q.format_quantity(Fraction(n), resource)) == n


def test_cards() -> None:
    assert q.cards(Fraction(3_200_000)) == 2
    assert q.format_cards(Fraction(1_600_000)) == "1 card"
    assert q.format_cards(Fraction(800_000)) == "0.5 cards"
    assert q.is_credits("credits.gpustack.ai/nvidia") and not q.is_credits("cpu")
