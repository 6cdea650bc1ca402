"""The LWS differential's pure half (tests/realcluster/lwsdiff.py), no cluster: the generator is the seed's
alone and makes no DisaggregatedSet where the plane's LWS has none; `check` holds an answer against Kueue's
Workloads as the differential's doc says (table-driven)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.realcluster import lwsdiff as ld

SHORT_MSG = ("couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor f, "
             "2 more needed")
OVER_MSG = ("couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor f, previously "
            "considered podsets requests (0) + current podset request (9) > maximum capacity (8)")


def wl(name: str, owner: str, admitted: bool, message: str = "") -> dict[str, Any]:
    conds = [{"type": "QuotaReserved", "status": "True", "message": "Quota reserved"},
             {"type": "Admitted", "status": "True"}] if admitted else (
        [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": message}] if message else [])
    return {"metadata": {"name": name, "ownerReferences": [{"kind": "LeaderWorkerSet", "name": owner}]},
            "status": {"conditions": conds}}


def answer(workloads: dict[str, bool], reasons: list[dict[str, Any]], pending: bool = True) -> dict[str, Any]:
    return {"pending": pending, "workloads": [{"name": n, "admitted": a} for n, a in workloads.items()],
            "reasons": reasons}


LWS = ld.Deploy("lws", "s", "pd-low", 0, replicas=2)
DS = ld.Deploy("ds", "d", "pd-low", 0, roles=[("prefill", 1, 1, 1), ("decode", 1, 1, 1)])
PART = {"code": "PartlyAdmitted", "workload": None}


@pytest.mark.parametrize(("deploy", "kueue", "doc", "want"), [
    # all admitted, answered so
    (LWS, [wl("a", "s", True), wl("b", "s", True)], answer({"a": True, "b": True}, [], pending=False),
     {"workloads": True, "headline": True, "codes": None}),
    # one group admitted, the other short: PartlyAdmitted, and a quota reason on a waiting group of the LWS
    (LWS, [wl("a", "s", True), wl("b", "s", False, SHORT_MSG)],
     answer({"a": True, "b": False}, [PART, {"code": "QuotaExhausted", "workload": "b"}]),
     {"workloads": True, "headline": True, "codes": True}),
    # ... the reason may name another waiting group than the one Kueue's message is on (the groups are alike)
    (ld.Deploy("lws", "s", "pd-low", 0, replicas=3), [wl("a", "s", True), wl("b", "s", False), wl("c", "s", False,
                                                                                                  SHORT_MSG)],
     answer({"a": True, "b": False, "c": False}, [PART, {"code": "NeedsPreemption", "workload": "b"}]),
     {"workloads": True, "headline": True, "codes": True}),
    # a Workload admitted in Kueue but not in the answer
    (LWS, [wl("a", "s", True), wl("b", "s", True)], answer({"a": True, "b": False}, [PART]),
     {"workloads": False, "headline": False, "codes": None}),
    # half admitted without PartlyAdmitted
    (LWS, [wl("a", "s", True), wl("b", "s", False, SHORT_MSG)],
     answer({"a": True, "b": False}, [{"code": "QuotaExhausted", "workload": "b"}]),
     {"workloads": True, "headline": False, "codes": True}),
    # beyond any flavor: Kueue's "> maximum capacity" wants QuotaExceedsCapacity, not a shortfall
    (LWS, [wl("a", "s", False, OVER_MSG), wl("b", "s", False)],
     answer({"a": False, "b": False}, [{"code": "QuotaExhausted", "workload": "a"}]),
     {"workloads": True, "headline": True, "codes": False}),
    (LWS, [wl("a", "s", False, OVER_MSG), wl("b", "s", False)],
     answer({"a": False, "b": False}, [{"code": "QuotaExceedsCapacity", "workload": "a"}]),
     {"workloads": True, "headline": True, "codes": True}),
    # a DisaggregatedSet half admitted: the roles Kueue admitted and left waiting
    (DS, [wl("p", "d-1a-prefill", True), wl("q", "d-1a-decode", False, SHORT_MSG)],
     answer({"p": True, "q": False}, [{**PART, "params": {"admittedRoles": ["prefill"], "waitingRoles": ["decode"]}},
                                      {"code": "QuotaExhausted", "workload": "q"}]),
     {"workloads": True, "headline": True, "codes": True}),
    (DS, [wl("p", "d-1a-prefill", True), wl("q", "d-1a-decode", False, SHORT_MSG)],
     answer({"p": True, "q": False}, [{**PART, "params": {"admittedRoles": ["decode"], "waitingRoles": ["prefill"]}},
                                      {"code": "QuotaExhausted", "workload": "p"}]),
     {"workloads": True, "headline": False, "codes": False}),
])
def test_check(deploy: ld.Deploy, kueue: list[dict[str, Any]], doc: dict[str, Any], want: dict[str, Any]) -> None:
    assert ld.check(deploy, doc, kueue)[0] == want


def test_the_generator_is_the_seeds_and_makes_disaggregated_sets_only_where_asked() -> None:
    assert ld.generate(4700, ds=True) == ld.generate(4700, ds=True)
    states = [ld.generate(s, ds=False) for s in range(4700, 4760)]
    assert not any(d.kind == "ds" for st in states for d in st.deploys)
    with_ds = [ld.generate(s, ds=True) for s in range(4700, 4760)]
    assert any(d.kind == "ds" for st in with_ds for d in st.deploys)
    # some groups beyond the largest flavor, and a second wave of a higher priority than the first
    assert any(d.size * d.gpus > max(n for _, n in st.flavors) for st in states for d in st.deploys)
    rank = ld.jr.PRIORITIES
    assert any(st.within == "LowerPriority" and any(rank[b.priority] > rank[a.priority] for a in st.deploys
                                                    if a.wave == 0 for b in st.deploys if b.wave == 1)
               for st in states)
