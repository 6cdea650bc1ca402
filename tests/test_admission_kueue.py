"""Kueue's own flavor-assigner and scheduler test tables, translated (tests/kueue_cases.py), run through
our one admission engine. Kueue's expected assignment is the oracle; each case id cites file:line@tag."""

from __future__ import annotations

import pytest

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue.model import Snapshot, workload
from tests.kueue_cases import CASES, REAL_ORACLE_DIFFERS

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
    a = ad.assign_once(snap, case["cluster_queue"], ad.demand_of(wl), oracle=_oracle(case.get("oracle") or {}),
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


def _synthesized(snap: Snapshot, priority: int) -> list[pre.Admitted]:
    out = []
    for cq in snap.cluster_queues.values():
        by_flavor: dict[str, dict] = {}
        for (f, r), q in cq.reserved.items():
            by_flavor.setdefault(f, {})[(f, r)] = q
        out += [pre.Admitted("ns", f"{cq.name}-{f}", cq.name, priority, u, uid=f"{cq.name}-{f}")
                for f, u in by_flavor.items()]
    return out


def _oracle_calls(case: dict) -> list:
    calls: list = []
    fake = _oracle(case.get("oracle") or {})

    def spy(cq, fr, val, borrow):
        calls.append(fake(cq, fr, val, borrow)[0])
        return fake(cq, fr, val, borrow)
    ad.assign_once(Snapshot.of(case["objects"]), case["cluster_queue"], ad.demand_of(workload(case["workload"])),
              oracle=spy, fair_sharing=case.get("fair_sharing", False), kueue=_version(case["id"]))
    return calls


ORACLE_CASES = [c for c in CASES if _oracle_calls(c)]


@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: c["id"])
def test_kueue_case_real_oracle(case: dict) -> None:
    snap = Snapshot.of(case["objects"])
    wl = workload(case["workload"])
    calls = _oracle_calls(case)
    prio = wl.priority if all(c == "NoCandidates" for c in calls) else wl.priority - 1
    state = pre.State(snap, _synthesized(snap, prio))
    fair = case.get("fair_sharing", False)
    real = pre.oracle(snap, state, wl.priority, settings=pre.Settings(fair_sharing=fair))

    def go() -> dict:
        a = ad.assign_once(snap, case["cluster_queue"], ad.demand_of(wl), oracle=real, fair_sharing=fair,
                      kueue=_version(case["id"]))
        return {"mode": a.mode, "borrowing": a.borrowing,
                "pod_sets": [{"name": p.name, "flavors": dict(p.flavors), "mode": p.mode}
                             for p in a.pod_sets if p.evaluated]}
    got = go()
    differs = any(case["id"].startswith(k) for k in REAL_ORACLE_DIFFERS)
    assert (got == _want(case, got)) != differs


def test_real_oracle_counts() -> None:
    fair = [c for c in ORACLE_CASES if c.get("fair_sharing")]
    assert (len(ORACLE_CASES), len(REAL_ORACLE_DIFFERS), len(fair)) == (30, 8, 2)
