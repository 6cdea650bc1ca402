"""Kueue's preemption tests (tests/preemption_cases.py), run through kubectl_pd.kueue.preemption.

Kueue's test hands in a flavor assignment; we first check that our own assignment from the same state
(with the real preemption oracle over the admitted Workloads) is the same, then that the targets and
their reasons are Kueue's."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue.model import Snapshot, workload
from kubectl_pd.kueue.quantity import try_parse
from tests import kueue_cases as kc
from tests.preemption_cases import CASES, FAIR_CASES, FLAVORS, NOT_KEPT


def _q(v: str) -> Fraction:
    q = try_parse(v)
    assert q is not None
    return q


def _admitted(case: dict) -> list[pre.Admitted]:
    return [pre.Admitted("", w["name"], w["cq"], w["priority"], {fr: _q(v) for fr, v in w["usage"].items()},
                         created=float(w["created"]), reserved_at=float(w["reserved"]), uid=w["name"],
                         evicted=w.get("evicted", False))
            for w in case["admitted"]]


def _snapshot(case: dict) -> Snapshot:
    return Snapshot.of(objects(case))


def objects(case: dict, implicit: bool = True) -> list[dict]:
    """The case's flavors, Cohorts and ClusterQueues (with the admitted Workloads' usage in their status);
    `implicit`: a Cohort object for each cohort a queue names and the case does not build (a cluster has
    none: Kueue's implicit cohorts)."""
    objs = list(case.get("flavors") or FLAVORS) + list(case["cohorts"])
    names = {c["metadata"]["name"] for c in case["cohorts"]}
    for cq in case["cqs"]:
        cohort = cq["spec"].get("cohortName")
        if implicit and cohort and cohort not in names:
            names.add(cohort)
            objs.append(kc.MakeCohort(cohort).Obj())
        usage: dict = {}
        for w in case["admitted"]:
            if w["cq"] == cq["metadata"]["name"]:
                for fr, v in w["usage"].items():
                    usage[fr] = usage.get(fr, 0) + _q(v) * (1000 if fr[1] == "cpu" else 1)
        objs.append(kc.with_usage(cq, {fr: int(v) for fr, v in usage.items()}))
    return objs


def _incoming(case: dict) -> ad.Demand:
    inc = case["incoming"]
    pod_sets = []
    for name, count, reqs in inc["pod_sets"]:
        ps = kc.MakePodSet(name, count)
        for r, q in reqs.items():
            ps.Request(r, q)
        pod_sets.append(ps)
    return ad.demand_of(workload(kc.workload(pod_sets, priority=inc["priority"])))


def _kueue_usage(case: dict, demand: ad.Demand) -> dict:
    out: dict = {}
    for ps in demand.pod_sets:
        for r, (flavor, _) in case["assignment"][ps.name].items():
            q = ps.requests.get(r, Fraction(0)) * ps.count
            out[(flavor, r)] = out.get((flavor, r), Fraction(0)) + q
    return out


def _names(targets: tuple[pre.PreemptionTarget, ...]) -> dict[str, str]:
    return {t.workload.name: t.reason for t in targets}


def _want(case: dict, got: dict) -> dict:
    """Kueue's targets; a reason of None (not stated by Kueue's test) takes whatever was found."""
    return {n: (got.get(n) if r is None else r) for n, r in case["want"].items()}


def _settings(case: dict) -> pre.Settings:
    if "fair" not in case:
        return pre.Settings()
    # the weights are the snapshot's own (spec.fairSharing.weight on the queues and Cohorts), as a run reads them
    return pre.Settings(fair_sharing=True, strategies=case["fair"]["strategies"] or pre.DEFAULT_STRATEGIES)


def run(case: dict) -> tuple[dict, dict, dict | None]:
    """(Kueue's assignment as ours sees it, targets with Kueue's assignment, targets with ours or None)."""
    snap = _snapshot(case)
    admitted = _admitted(case)
    state = pre.State(snap, admitted)
    demand = _incoming(case)
    inc = case["incoming"]
    settings = _settings(case)
    ours = ad.assign(snap, case["cq"], demand, oracle=pre.oracle(snap, state, inc["priority"], inc["created"],
                                                                 settings), fair_sharing=settings.fair_sharing)
    modes = pre.flavor_modes(ours)
    needs = {(f, r) for a in case["assignment"].values() for r, (f, m) in a.items() if m == "Preempt"}
    preemptor = pre.Preemptor(case["cq"], inc["priority"], _kueue_usage(case, demand), inc["created"])
    with_kueue = _names(pre.targets(snap, admitted, preemptor, needs, settings))
    with_ours = None
    if ours.mode == ad.PREEMPT:
        mine = pre.Preemptor(case["cq"], inc["priority"], pre.usage_of(ours), inc["created"])
        with_ours = _names(pre.targets(snap, admitted, mine, pre.needs_preemption(ours), settings))
    return modes, with_kueue, with_ours


@pytest.mark.parametrize("case", CASES + FAIR_CASES, ids=lambda c: c["id"])
def test_kueue_targets(case: dict) -> None:
    modes, with_kueue, with_ours = run(case)
    assert with_kueue == _want(case, with_kueue)
    if any(case["id"].startswith(k) for k in NOT_KEPT):
        assert modes != case["assignment"], "listed as not kept but our assignment now agrees"
        return
    assert modes == case["assignment"]
    assert (with_ours or {}) == _want(case, with_ours or {})


def test_count() -> None:
    every = CASES + FAIR_CASES
    kept = [c for c in every if not any(c["id"].startswith(k) for k in NOT_KEPT)]
    assert (len(every), len(kept)) == (82, 73)


def test_ordering_is_kueues() -> None:
    """TestCandidatesOrdering (preemption_test.go:4612@v0.18.4): evicted first, other queues first, lower
    priority, more recent reservation."""
    mk = lambda n, cq, p, t, ev=False: pre.Admitted("", n, cq, p, {}, reserved_at=t, evicted=ev, uid=n)  # noqa: E731
    ws = [mk("high", "self", 10, 0), mk("low", "self", -10, 0), mk("other", "other", 10, 0),
          mk("evicted", "self", 10, 0, True), mk("old", "self", -10, -100)]
    got = [w.name for w in sorted(ws, key=pre.ordering_key("self", 0))]
    assert got == ["evicted", "other", "low", "old", "high"]


def test_fair_weight_is_read_from_the_objects() -> None:
    """spec.fairSharing.weight on ClusterQueues and Cohorts is the model's (Kueue's default 1 when absent),
    so a run's fair-sharing preemption uses the weights the snapshot holds."""
    from kubectl_pd.kueue.model import cluster_queue, cohort

    assert cluster_queue(kc.MakeClusterQueue("a").Obj()).fair_weight == 1
    assert cluster_queue({"metadata": {"name": "a"}, "spec": {"fairSharing": {"weight": "0"}}}).fair_weight == 0
    assert cohort({"metadata": {"name": "c"}, "spec": {"fairSharing": {"weight": "1.01"}}}).fair_weight == _q("1.01")
