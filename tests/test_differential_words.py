"""The widened differential's comparison of words (issue 37 item 5), on Kueue's own message shapes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.realcluster import differential as d

N = d.Names("d1")
UNUSED = "insufficient unused quota for nvidia.com/gpu in flavor d1-fa, {} more needed"
CAP = ("insufficient quota for nvidia.com/gpu in flavor d1-fb, previously considered podsets requests (2) + current "
       "podset request (2) > maximum capacity (2)")


def _wl(message: str) -> dict[str, Any]:
    return {"status": {"conditions": [{"type": "QuotaReserved", "status": "False", "message": message}]}}


def _r(code: str, role: str, flavor: str, needed: str) -> dict[str, Any]:
    return {"code": code, "role": role, "flavor": flavor, "needed": needed}


@pytest.mark.parametrize(("message", "reasons", "want"), [
    (f"couldn't assign flavors to pod set a1: {UNUSED.format(2)}", [_r("QuotaExhausted", "a1", "d1-fa", "2")],
     {"code": True, "shortfall": True}),
    (f"couldn't assign flavors to pod set a1: {UNUSED.format(2)}", [_r("QuotaExhausted", "prefill", "d1-fa", "3")],
     {"code": True, "shortfall": False}),
    (f"couldn't assign flavors to pod set a1: {CAP}, {UNUSED.format(2)}", [_r("QuotaExhausted", "a1", "d1-fa", "2")],
     {"code": True, "shortfall": True}),
    (f"couldn't assign flavors to pod set a1: {CAP}", [_r("QuotaExhausted", "a1", "d1-fb", "2")],
     {"code": False, "shortfall": False}),
    (f"couldn't assign flavors to pod set a1: {CAP}", [_r("QuotaExceedsCapacity", "a1", "d1-fb", "2")],
     {"code": True, "shortfall": True}),
    (f"couldn't assign flavors to pod set a1: {UNUSED.format(2)}; couldn't assign flavors to pod set b2: "
     f"{UNUSED.format(6)}", [_r("QuotaExhausted", "a1", "d1-fa", "2"), _r("QuotaExhausted", "b2", "d1-fa", "6")],
     {"code": True, "shortfall": True}),
    (f"couldn't assign flavors to pod set a1: {UNUSED.format(2)}", [], {"code": False, "shortfall": False}),
    ("the LocalQueue is held", [], {}),
])
def test_words_against_kueues_message(message: str, reasons: list[dict[str, Any]], want: dict[str, bool]) -> None:
    assert d.said({"reasons": reasons}, _wl(message), {"a1": "prefill"}, N) == want
