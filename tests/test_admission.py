"""The admission engine where Kueue's own tables do not reach: what a snapshot cannot know (unreadable
quotas, unread cohorts), the checks before flavors (limits, LimitRange), our policy oracle, nested cohorts
with their own quota, and the joint shortfall kept apart from Kueue's per-pod-set number."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import Snapshot, limit_range, pod_set_of_spec, workload
from tests.builders import cluster_queue as cq
from tests.builders import cohort
from tests.builders import resource_flavor as rf


def demand(*pod_sets: tuple[str, int, str], **spec: Any) -> ad.Demand:
    return ad.Demand(tuple(ad.demand_of_pod_set(pod_set_of_spec(n, c, {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": q}}}], **spec})) for n, c, q in pod_sets))


def run(objs: list[dict[str, Any]], d: ad.Demand, **kw: Any) -> tuple[str, list[tuple[str, str, dict]]]:
    a = ad.assign(Snapshot.of(objs, **kw), "cq", d)
    return a.mode, [(p.name, p.mode, dict(p.flavors)) for p in a.pod_sets]


@pytest.mark.parametrize("objs, d, want", [
    # an unreadable nominalQuota is unknown, never zero (issue 13's "NaN as 0 cards")
    pytest.param([cq("cq", {"f": [8]}), rf("f")], demand(("main", 1, "1")),
                 ("Unknown", [("main", "Unknown", {})]), id="unreadable-nominal-is-unknown"),
    pytest.param([cq("cq", {"f": "8"}, limits={"f": {"borrowingLimit": "lots"}}), rf("f")], demand(("main", 1, "1")),
                 ("Unknown", [("main", "Unknown", {})]), id="unreadable-borrowing-limit-is-unknown"),
    # the first flavor's quota unknown, the second would fit: which one Kueue takes is unknowable
    pytest.param([cq("cq", {"a": "x1", "b": "8"}), rf("a"), rf("b")], demand(("main", 1, "1")),
                 ("Unknown", [("main", "Unknown", {})]), id="unknown-before-a-fitting-flavor"),
    # ... but a flavor that fits before it settles it
    pytest.param([cq("cq", {"a": "8", "b": "x1"}), rf("a"), rf("b")], demand(("main", 1, "1")),
                 ("Fit", [("main", "Fit", {"cpu": "a"})]), id="fitting-flavor-before-unknown"),
    # a peer's unreadable quota: what the cohort may lend is unknown, even for a queue that would borrow
    pytest.param([cq("cq", {"f": "1"}, cohort="pool"), cq("peer", {"f": "x8"}, cohort="pool"), rf("f")],
                 demand(("main", 1, "4")), ("Unknown", [("main", "Unknown", {})]), id="peer-quota-unreadable"),
    # a nested cohort's own quota is lent down the tree (Cohort objects, parentName)
    pytest.param([cq("cq", {"f": "1"}, cohort="team"), cohort("team", "org"), cohort("org", quota={"f": "6"}),
                  rf("f")], demand(("main", 1, "5")), ("Fit", [("main", "Fit", {"cpu": "f"})]), id="nested-cohort"),
    pytest.param([cq("cq", {"f": "1"}, cohort="team", limits={"f": {"borrowingLimit": "2"}}), cohort("team", "org"),
                  cohort("org", quota={"f": "6"}), rf("f")], demand(("main", 1, "5")),
                 ("NoFit", [("main", "NoFit", {})]), id="borrowing-limit-caps-the-tree"),
    # a requests-above-limits pod set is refused before any flavor is tried
    pytest.param([cq("cq", {"f": "8"}), rf("f")],
                 ad.Demand((ad.demand_of_pod_set(pod_set_of_spec("main", 1, {"containers": [
                     {"name": "c", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]})),)),
                 ("NoFit", [("main", "NoFit", {})]), id="requests-above-limits"),
])
def test_engine(objs: list[dict[str, Any]], d: ad.Demand, want: tuple) -> None:
    assert run(objs, d) == want


def test_unread_peers_make_borrowing_unknown_but_a_borrowing_limit_still_bounds() -> None:
    mine = cq("cq", {"f": "2"}, cohort="pool")
    snap = Snapshot.read({"cq": mine}, {"f": rf("f")}, None, None)
    a = ad.assign(snap, "cq", demand(("main", 1, "4")))
    assert a.mode == ad.UNKNOWN and a.pod_sets[0].attempts[0].checks[0].unknown == "cohort"
    capped = cq("cq", {"f": "2"}, cohort="pool", limits={"f": {"borrowingLimit": "1"}})
    a = ad.assign(Snapshot.read({"cq": capped}, {"f": rf("f")}, None, None), "cq", demand(("main", 1, "4")))
    assert a.mode == ad.NO_FIT and a.pod_sets[0].attempts[0].outcome == ad.EXCEEDS


def test_limit_range_maximum() -> None:
    lr = {"kind": "LimitRange", "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}}]}}
    ps = pod_set_of_spec("main", 1, {"containers": [{"name": "big", "resources": {"requests": {"cpu": "3"}}}]})
    bad = ad.invalid_requests(ps, limit_range(lr))
    assert [(b.rule, b.container, b.resource, b.requested, b.limit) for b in bad] == [
        ("limitrange-max", "big", "cpu", Fraction(3), Fraction(2))]


@pytest.mark.parametrize("preemption, outcome", [
    (None, ad.NO_CANDIDATES),  # v1beta2 defaults: Never everywhere; nothing may be preempted
    ({"withinClusterQueue": "LowerPriority"}, ad.PREEMPTS),
])
def test_policy_oracle(preemption: dict | None, outcome: str) -> None:
    objs = [cq("cq", {"f": "4"}, used={"f": "3"}, preemption=preemption), rf("f")]
    a = ad.assign(Snapshot.of(objs), "cq", demand(("main", 1, "2")))
    assert a.mode == ad.PREEMPT and a.pod_sets[0].blocking is not None
    assert a.pod_sets[0].blocking.outcome == outcome


def test_kueue_stops_at_the_first_failing_pod_set_we_go_on() -> None:
    objs = [cq("cq", {"f": "4"}), rf("f")]
    a = ad.assign(Snapshot.of(objs), "cq", demand(("big", 1, "5"), ("small", 1, "1")))
    assert [(p.name, p.evaluated, p.mode) for p in a.pod_sets] == [("big", True, "NoFit"), ("small", False, "Fit")]
    assert a.mode == ad.NO_FIT  # Kueue's verdict counts only what it evaluated


def test_joint_shortfall_is_not_kueues_per_pod_set_number() -> None:
    objs = [cq("cq", {"f": "8"}, used={"f": "4"}), rf("f")]
    a = ad.assign(Snapshot.of(objs), "cq", demand(("decode", 1, "4"), ("prefill", 1, "2")))
    decode, prefill = a.pod_sets
    assert decode.mode == ad.FIT and prefill.blocking is not None
    assert prefill.blocking.checks[0].needed == 2  # 4 (decode, placed first) + 2 - 4 unused
    assert a.joint == {("f", "cpu"): Fraction(2)}


def test_selector_keys_judged_per_flavor_not_per_group() -> None:
    """Kueue 0.17.8+/0.18.2+ (PR #12449): a flavor that does not declare the key ignores it."""
    objs = [cq("cq", {"a": "4", "b": "4"}), rf("a", {"zone": "x"}), rf("b", {"gpu": "h20"})]
    d = demand(("main", 1, "1"), nodeSelector={"gpu": "h100"})
    assert run(objs, d) == ("Fit", [("main", "Fit", {"cpu": "a"})])  # a has no `gpu` key: not judged on it


def test_workload_parse_is_total() -> None:
    """Odd data never raises: it is unknown or absent."""
    for odd in ({"spec": 7}, {"spec": {"podSets": 7}}, {"status": "x"}, {}, {"spec": {"podSets": [7, None]}}):
        wl = workload(odd)
        assert wl.name == "" and isinstance(wl.pod_sets, tuple)
