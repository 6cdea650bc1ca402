"""The layout differential's check of `queues` (tests/realcluster/layoutcheck.compare_queues) on a saved case:
where two members of a flavor have unused quota, each queue's `lent` (what it could not take back alone, Kueue's
arithmetic) may sum to less than what is borrowed, the rest unattributed; with one lender alone it may not."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from tests.realcluster import differential as df
from tests.realcluster import layoutcheck as lc
from tests.realcluster import layouts as ly

CASE = Path(__file__).parent / "realcluster" / "cases" / "layouts" / "fixed" / "kueue-0.19-queues-seed-46061.yaml"


def _case() -> tuple[dict[str, Any], list[dict[str, Any]], ly.Layout, df.Names]:
    case = yaml.safe_load(CASE.read_text())
    ns = next(o["metadata"]["namespace"] for o in case["snapshot"] if o["kind"] in ("LocalQueue", "Workload"))
    return case["ours"], case["snapshot"], ly.generate(case["seed"]), df.Names(ns)


def test_two_lenders_may_leave_the_borrowed_quota_unattributed() -> None:
    doc, snap, lay, n = _case()
    assert lc.compare_queues(doc, snap, lay, n) == []


def test_one_lender_alone_must_account_for_what_is_borrowed() -> None:
    doc, snap, lay, n = _case()
    doc = copy.deepcopy(doc)
    for q in doc["clusterQueues"]:
        if q["name"] == n.cq("q2"):
            for f in q["flavors"]:
                f["lendable"] = "0"  # q1 alone has unused quota: its lent 0 cannot cover q0's 2 borrowed
    assert any(p.startswith("borrowed 2.0 in all > lent 0.0") for p in lc.compare_queues(doc, snap, lay, n))
