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


def _version(case_id: str) -> tuple[int, int]:
    major, minor = case_id.split("@v", 1)[1].split(".")[:2]
    return int(major), int(minor)


def run(case: dict) -> dict:
    snap = Snapshot.of(case["objects"])
    wl = workload(case["workload"])
    a = ad.assign(snap, case["cluster_queue"], ad.demand_of(wl), oracle=_oracle(case.get("oracle") or {}),
                  fair_sharing=case.get("fair_sharing", False), kueue=_version(case["id"]))
    kueue_view = [p for p in a.pod_sets if p.evaluated]
    return {
        "mode": a.mode,
        "borrowing": a.borrowing,
        "pod_sets": [{"name": p.name, "flavors": dict(p.flavors), "mode": p.mode} for p in kueue_view],
    }


def _want(case: dict, got: dict) -> dict:
    want = dict(case["want"])
    want.setdefault("borrowing", 0)
    if want["borrowing"] is None:  # the Kueue test does not state it
        want["borrowing"] = got["borrowing"]
    return {"mode": want["mode"], "borrowing": want["borrowing"],
            "pod_sets": [{"name": p["name"], "flavors": dict(p.get("flavors") or {}), "mode": p["mode"]}
                         for p in want["pod_sets"]]}


@pytest.mark.parametrize("case", [c for c in CASES if not any(c["id"].startswith(k) for k in DELIBERATE)],
                         ids=lambda c: c["id"])
def test_kueue_case(case: dict) -> None:
    got = run(case)
    assert got == _want(case, got)


def test_enough_cases_translated() -> None:
    assert len(CASES) >= 50
    assert len({c["id"] for c in CASES}) == len(CASES)
