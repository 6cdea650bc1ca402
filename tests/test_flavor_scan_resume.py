"""Kueue's resumed flavor scan (issue 37, the fair-sharing disagreement of seed 2810): after an attempt that
leaves a Workload waiting, Kueue's next attempt starts each pod set's scan at the flavor after the one it
tried last (LastTriedFlavorIdx: flavorassigner.go:1013 and :1088@v0.19.2, workload.go:226@v0.19.2), and the
condition a user reads is the last attempt's. The engine's `assign_now` is that settled verdict; `assign_once`
is one attempt (Kueue's Assign, which Kueue's own test tables call).

Table 1 translates the quota cases of Kueue's TestFlavorScanRecordsLastTriedFlavorIdx (the bookmark one
attempt records); table 2 holds the engine's settled verdict against what the real Kueue said or did on the
states the differential saved (tests/realcluster/cases/)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import Snapshot
from kubectl_pd.kueue.model import workload as parsed
from tests.kueue_cases import (
    MakeClusterQueue,
    MakeCohort,
    MakeFlavorQuotas,
    MakePodSet,
    MakeResourceFlavor,
    with_usage,
    workload,
)
from tests.realcluster.cases import load_all

SRC = "flavorassigner_test.go"
BORROW_TRY = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor",
              "preference": "PreemptionOverBorrowing"}
BORROW_STOP = {**BORROW_TRY, "whenCanBorrow": "MayStopSearch"}
BOTH_STOP = {**BORROW_STOP, "whenCanPreempt": "MayStopSearch"}


def _bookmark_objects(nominal: str, spare: str, ff: dict[str, str], usage: int) -> list[dict[str, Any]]:
    """Kueue's newBookmarkSnapshot: ClusterQueue `cq` (flavor-1, flavor-2, NOMINAL cpu each) and its sibling
    lending SPARE of each, in one cohort; USAGE milli-cpu already used of each flavor by `cq`."""
    cq = MakeClusterQueue("cq").Cohort("cohort").FlavorFungibility(ff).ResourceGroup(
        MakeFlavorQuotas("flavor-1").Resource("cpu", nominal).Obj(),
        MakeFlavorQuotas("flavor-2").Resource("cpu", nominal).Obj()).Obj()
    sibling = MakeClusterQueue("sibling").Cohort("cohort").ResourceGroup(
        MakeFlavorQuotas("flavor-1").Resource("cpu", spare).Obj(),
        MakeFlavorQuotas("flavor-2").Resource("cpu", spare).Obj()).Obj()
    used = {("flavor-1", "cpu"): usage, ("flavor-2", "cpu"): usage} if usage else None
    return [MakeResourceFlavor("flavor-1").NodeLabel("flavor", "one").Obj(),
            MakeResourceFlavor("flavor-2").NodeLabel("flavor", "two").Obj(),
            MakeCohort("cohort").Obj(), with_usage(cq, used), sibling]


def _oracle(possibility: str) -> ad.Oracle:
    return lambda _cq, _fr, _val, borrow: (possibility, 0)


# (case, nominal, cohort spare, fungibility, usage (milli), oracle, want mode, want TriedFlavorIdx)
BOOKMARKS = [
    (f"{SRC}:6340@v0.19.2 fits only by borrowing: bookmark says start over",
     "1", "20", BORROW_TRY, 0, None, ad.FIT, -1),
    (f"{SRC}:6355@v0.19.2 fits only by borrowing, but WhenCanBorrow is MayStopSearch: bookmark names the first "
     "flavor", "1", "20", BORROW_STOP, 0, None, ad.FIT, 0),
    (f"{SRC}:6368@v0.19.2 needs preemption and candidates exist: bookmark names the first flavor",
     "2", "0", BOTH_STOP, 2000, ad.PREEMPT_POSSIBLE, ad.PREEMPT, 0),
    (f"{SRC}:6388@v0.19.2 needs preemption but no candidates: bookmark says start over whatever the policy",
     "2", "0", BOTH_STOP, 2000, ad.NO_CANDIDATES_FOUND, ad.PREEMPT, -1),
]


@pytest.mark.parametrize(("nominal", "spare", "ff", "usage", "possibility", "mode", "idx"),
                         [b[1:] for b in BOOKMARKS], ids=[b[0] for b in BOOKMARKS])
def test_one_attempt_records_kueues_bookmark(nominal: str, spare: str, ff: dict[str, str], usage: int,
                                            possibility: str | None, mode: str, idx: int) -> None:
    snap = Snapshot.of(_bookmark_objects(nominal, spare, ff, usage))
    wl = parsed(workload([MakePodSet("main", 1).Request("cpu", "2")]))
    kw = {"oracle": _oracle(possibility)} if possibility else {}
    a = ad.assign_once(snap, "cq", ad.demand_of(wl), kueue=(0, 19), **kw)  # type: ignore[arg-type]
    assert a.mode == mode
    assert ad.tried_flavors(snap.cluster_queues["cq"], a) == {0: {"cpu": idx}}


SEED_2810_POLICY = {"withinClusterQueue": "LowerOrNewerEqualPriority", "reclaimWithinCohort": "Any",
                    "borrowWithinCohort": {"policy": "LowerPriority"}}  # preemption while borrowing is tried


def _two_flavors(cq_quota: dict[str, tuple[str, str | None]], sibling_quota: dict[str, str], ff: dict[str, str],
                 used: dict[tuple[str, str], int]) -> list[dict[str, Any]]:
    """ClusterQueue `cq` with flavors fa, fb ({flavor: (nominal, borrowingLimit)}), a sibling in its cohort
    with SIBLING_QUOTA's nominal quotas and USED of them (whole GPUs)."""
    def quotas(q: dict[str, tuple[str, str | None]]) -> list[dict[str, Any]]:
        return [MakeFlavorQuotas(f).Resource("nvidia.com/gpu", n, b or "").Obj() for f, (n, b) in q.items()]
    cq = MakeClusterQueue("cq").Cohort("c").FlavorFungibility(ff).Preemption(SEED_2810_POLICY).ResourceGroup(
        *quotas(cq_quota)).Obj()
    sib = MakeClusterQueue("sib").Cohort("c").ResourceGroup(*quotas(
        {f: (n, None) for f, n in sibling_quota.items()})).Obj()
    return [MakeResourceFlavor("fa").Obj(), MakeResourceFlavor("fb").Obj(), MakeCohort("c").Obj(),
            cq, with_usage(sib, used)]


def test_the_second_attempt_is_the_verdict() -> None:
    """The shape of seed 2810: decode (first pod set) fits fa only by borrowing and stops there
    (whenCanBorrow MayStopSearch); prefill then fits neither flavor and nothing can be preempted. Kueue's next
    attempt starts decode at fb, where it waits for 2 cards, and prefill (its scan had reached the last flavor)
    at fa again: 2 short in fa, 6 in fb (decode's 2 counted before it). The verdict is that attempt's."""
    objs = _two_flavors({"fa": ("0", "4"), "fb": ("4", "2")}, {"fa": "4", "fb": "4"},
                        {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
                        {("fa", "nvidia.com/gpu"): 2, ("fb", "nvidia.com/gpu"): 4})
    objs[3] = with_usage(objs[3], {("fb", "nvidia.com/gpu"): 4})
    snap = Snapshot.of(objs)
    wl = parsed(workload([MakePodSet("decode", 2).Request("nvidia.com/gpu", "1"),
                               MakePodSet("prefill", 2).Request("nvidia.com/gpu", "2")]))
    none = _oracle(ad.NO_CANDIDATES_FOUND)
    once = ad.assign_once(snap, "cq", ad.demand_of(wl), oracle=none)
    assert [dict(p.flavors) for p in once.pod_sets] == [{"nvidia.com/gpu": "fa"}, {"nvidia.com/gpu": "fb"}]
    assert ad.waits(once) and ad.tried_flavors(snap.cluster_queues["cq"], once) == {
        0: {"nvidia.com/gpu": 0}, 1: {"nvidia.com/gpu": -1}}
    settled = ad.assign_now(snap, "cq", ad.demand_of(wl), oracle=none)
    assert [(p.flavors.get("nvidia.com/gpu"), p.mode) for p in settled.pod_sets] == [("fb", ad.PREEMPT),
                                                                                      ("fa", ad.PREEMPT)]
    decode, prefill = settled.pod_sets
    assert [a.flavor for a in decode.attempts] == ["fb"]  # the scan resumed after fa
    assert {a.flavor: a.deciding.needed for a in prefill.attempts if a.deciding} == {"fa": Fraction(2),
                                                                                      "fb": Fraction(6)}
    assert prefill.blocking is not None and prefill.blocking.flavor == "fa"


def test_a_workload_that_fits_or_may_preempt_is_not_tried_again() -> None:
    """Fit is admitted; a preemption that may find targets preempts (Kueue then starts the scan over): only a
    waiting attempt is followed by a resumed one."""
    snap = Snapshot.of(_bookmark_objects("1", "20", BORROW_STOP, 0))
    wl = parsed(workload([MakePodSet("main", 1).Request("cpu", "2")]))
    fit = ad.assign_now(snap, "cq", ad.demand_of(wl))
    assert fit.mode == ad.FIT and [a.flavor for a in fit.pod_sets[0].attempts] == ["flavor-1"]
    snap = Snapshot.of(_bookmark_objects("2", "0", BOTH_STOP, 2000))
    pre = ad.assign_now(snap, "cq", ad.demand_of(wl), oracle=_oracle(ad.PREEMPT_POSSIBLE))
    assert not ad.waits(pre) and pre.pod_sets[0].flavors == {"cpu": "flavor-1"}


SAVED = {c["file"]: c for c in load_all()}


@pytest.mark.parametrize("name", ["kueue-0.19-fair-seed-2810.yaml", "kueue-0.19-fair-seed-2880.yaml"])
def test_saved_cases_of_the_resumed_scan_are_saved(name: str) -> None:
    """The two states the differential found where Kueue's second attempt decided are kept for replay
    (tests/test_real_cases.py replays the verdicts, tests/test_real_cases_words.py the shortfalls)."""
    assert name in SAVED and not SAVED[name].get("explained")


def test_a_resumed_scan_that_strands_a_pod_set_is_not_the_verdict() -> None:
    """W9's shape: decode (16) fits only z1 and waits there; prefill (2) fits z0 and stops. Kueue's next
    attempt resumes prefill at z1, where decode's 16 leave it over the maximum capacity: a pod set with no
    flavor only because of where its scan resumed. The verdict keeps the first attempt (prefill in z0), never a
    "can never fit" resting on it."""
    cq = MakeClusterQueue("cq").ResourceGroup(MakeFlavorQuotas("z0").Resource("nvidia.com/gpu", "10").Obj(),
                                              MakeFlavorQuotas("z1").Resource("nvidia.com/gpu", "16").Obj()).Obj()
    snap = Snapshot.of([MakeResourceFlavor("z0").Obj(), MakeResourceFlavor("z1").Obj(),
                        with_usage(cq, {("z1", "nvidia.com/gpu"): 12})])
    wl = parsed(workload([MakePodSet("decode", 1).Request("nvidia.com/gpu", "16"),
                          MakePodSet("prefill", 1).Request("nvidia.com/gpu", "2")]))
    once = ad.assign_once(snap, "cq", ad.demand_of(wl))
    assert ad.waits(once) and ad.tried_flavors(snap.cluster_queues["cq"], once) == {
        0: {"nvidia.com/gpu": -1}, 1: {"nvidia.com/gpu": 0}}
    settled = ad.assign_now(snap, "cq", ad.demand_of(wl))
    assert [dict(p.flavors) for p in settled.pod_sets] == [{"nvidia.com/gpu": "z1"}, {"nvidia.com/gpu": "z0"}]
