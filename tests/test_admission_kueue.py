"""Kueue's own flavor-assigner and scheduler test tables, translated (tests/kueue_cases.py), run through
our one admission engine. Kueue's expected assignment is the oracle; each case id cites file:line@tag."""

from __future__ import annotations

import pytest

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import Snapshot, workload
from tests.kueue_cases import CASES

# Cases where our verdict differs from Kueue's on purpose, with the reason (id prefix -> why).
DELIBERATE: dict[str, str] = {}


def _oracle(table: dict) -> ad.Oracle:
    def oracle(cq, fr, val, borrow):
        possibility, after = table.get(fr, ("Preempt", 0))
        return possibility, after
    return oracle


def run(case: dict) -> dict:
    snap = Snapshot.of(case["objects"])
    wl = workload(case["workload"])
    a = ad.assign(snap, case["cluster_queue"], ad.demand_of(wl), oracle=_oracle(case.get("oracle") or {}),
                  fair_sharing=case.get("fair_sharing", False))
    kueue_view = [p for p in a.pod_sets if p.evaluated]
    return {
        "mode": a.mode,
        "borrowing": a.borrowing,
        "pod_sets": [{"name": p.name, "flavors": dict(p.flavors), "mode": p.mode} for p in kueue_view],
    }


def _want(case: dict) -> dict:
    want = dict(case["want"])
    want.setdefault("borrowing", 0)
    return {"mode": want["mode"], "borrowing": want["borrowing"],
            "pod_sets": [{"name": p["name"], "flavors": dict(p.get("flavors") or {}), "mode": p["mode"]}
                         for p in want["pod_sets"]]}


@pytest.mark.parametrize("case", [c for c in CASES if not any(c["id"].startswith(k) for k in DELIBERATE)],
                         ids=lambda c: c["id"])
def test_kueue_case(case: dict) -> None:
    assert run(case) == _want(case)


def test_enough_cases_translated() -> None:
    assert len(CASES) >= 50
    assert len({c["id"] for c in CASES}) == len(CASES)
