"""The verdict and the preemption answer come from one assignment (issue 19, item 1 and 6): with the admitted
Workloads read, the verdict is the real oracle's (no candidates: no NeedsPreemption); without them the policy
oracle's, and "unknown which"; reclaimablePods and priority enter every demand; `why-pending -A -o json`
carries `preemption` per item, with the admitted Workloads read once per ClusterQueue for the run."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import Snapshot
from tests import kueue_cases as kc
from tests.test_preemption_live import WANT, _objects

DECODE = "decode"


def _snap(tmp_path: Path, objs: list[dict[str, Any]]) -> Path:
    f = tmp_path / "snap.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    return f


def _json(cli: Any, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    r = cli(["why-pending", *args, "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def _codes(data: dict[str, Any]) -> set[tuple[str, str | None]]:
    return {(r["code"], r.get("role")) for r in data["reasons"]}


def test_candidates_make_it_needs_preemption(cli: Any, tmp_path: Path) -> None:
    data = _json(cli, "qwen-pd", "-n", "team-a", "-f", str(_snap(tmp_path, _objects())))
    assert ("NeedsPreemption", DECODE) in _codes(data)
    assert sorted(data["preemption"]["targets"], key=lambda t: t["name"]) == WANT


def test_equal_priority_holders_are_no_candidates(cli: Any, tmp_path: Path) -> None:
    """LowerPriority and every holder at the pending Workload's priority: Kueue finds no candidate, the
    Workload waits for quota (QuotaExhausted, not NeedsPreemption) and nothing would be preempted."""
    objs = _objects()
    for o in objs:
        if o["kind"] == "Workload" and o["metadata"].get("namespace") == "team-b":
            o["spec"]["priority"] = 0
    data = _json(cli, "qwen-pd", "-n", "team-a", "-f", str(_snap(tmp_path, objs)))
    assert ("QuotaExhausted", DECODE) in _codes(data)
    assert ("NeedsPreemption", DECODE) not in _codes(data)
    assert data["preemption"] == {"targets": []}


def test_unread_candidates_keep_the_policy_verdict_and_say_unknown(cli: Any, tmp_path: Path) -> None:
    data = _json(cli, "qwen-pd", "-n", "team-a", "-f", str(_snap(tmp_path, _objects()[:-1])))
    assert ("NeedsPreemption", DECODE) in _codes(data)
    assert data["preemption"] == {"targets": None, "unknown": "usage-unaccounted"}


def _more_pending(objs: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """n more copies of the pending Workload in the same queue (other names), no Pods."""
    wl = next(o for o in objs if o["kind"] == "Workload" and o["metadata"]["name"] == "qwen-pd")
    out = []
    for i in range(n):
        c = copy.deepcopy(wl)
        c["metadata"] = {"name": f"copy-{i}", "namespace": "team-a", "uid": f"uid-copy-{i}",
                         "creationTimestamp": wl["metadata"].get("creationTimestamp", "2026-11-29T00:00:00Z")}
        out.append(c)
    return out


def test_every_pending_json_items_carry_preemption_read_once(cli: Any, apiserver: Any) -> None:
    counts = []
    for n in (1, 6):
        objs = _objects()
        server, env = apiserver(objs + _more_pending(objs, n))
        data = _json(cli, "-A", env=env)
        wl_items = [i for i in data["items"] if i["target"]["kind"] == "Workload"]
        assert len(wl_items) == n
        for item in wl_items:
            assert "preemption" in item
            assert sorted(item["preemption"]["targets"], key=lambda t: t["name"]) == WANT
        selected = [x for x in server.requests if x.path.endswith("/workloads") and x.query.get("fieldSelector")]
        assert selected == []  # -A listed every Workload: the queue's admitted ones are among them (issue 49)
        counts.append(len(server.requests))
    assert counts[0] == counts[1]  # the requests do not grow with the pending Workloads


# ---------------------------------------------------------------------------------------- pure: the demand


def _cq_snapshot(nominal: str, policy: str = "Never") -> Snapshot:
    return Snapshot.of([kc.MakeResourceFlavor("f").Obj(),
                        kc.MakeClusterQueue("cq").ResourceGroup(kc.MakeFlavorQuotas("f").Resource("cpu", nominal).Obj())
                        .Preemption({"withinClusterQueue": policy}).Obj()])


def _queue(count: int, reclaimable: int) -> vd.QueueDemand:
    p = ad.PodSetDemand("main", count, {"cpu": Fraction(1)})
    d = vd.RoleDemand("main", "wl", "main", count, p.total())
    return vd.QueueDemand([("wl", [(d, p)])], {"wl": vd.WorkloadFacts("ns/wl", reclaimable={"main": reclaimable})})


def test_reclaimable_pods_enter_the_verdict() -> None:
    """Kueue charges count - reclaimablePods (workload.go TotalRequests): 4 pods, 2 reclaimable, 2 cpu fit."""
    snap = _cq_snapshot("2")
    assert vd.evaluate(snap, "cq", _queue(4, 2)).verdicts[("wl", "main")].verdict == vd.FITS
    assert vd.evaluate(snap, "cq", _queue(4, 0)).verdicts[("wl", "main")].verdict == vd.BLOCKED


def test_the_assigner_sees_priority_and_reclaimable() -> None:
    seen: list[ad.Demand] = []

    def spy(snap: Snapshot, cq: str, demand: ad.Demand, about: vd.WorkloadFacts) -> ad.Assignment:
        seen.append(demand)
        return ad.assign(snap, cq, demand)

    q = _queue(3, 1)
    q.about["wl"] = vd.WorkloadFacts("ns/wl", priority=7, reclaimable={"main": 1})
    vd.evaluate(_cq_snapshot("8"), "cq", q, spy)
    assert [(d.priority, dict(d.reclaimable)) for d in seen] == [(7, {"main": 1})]


def test_no_candidates_in_the_first_flavor_moves_to_the_next() -> None:
    """Kueue's flavor assigner asks the preemption oracle per flavor: f0 is held by Workloads of the pending
    one's priority (LowerPriority: no candidate), f1 by lower ones, so Kueue preempts in f1. The policy-only
    oracle would stop at f0; the verdict's one assignment names f1 and its targets."""
    from kubectl_pd.cluster.admitted import read_admitted
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.kueue.preempt_answer import Answers, Context
    from tests.builders import cluster_queue, resource_flavor
    from tests.test_preemption_property import CARD, RES, _holder

    objs = [resource_flavor("f0"), resource_flavor("f1"),
            _holder("same", "cq", "f0", 0, 4, 1), _holder("low", "cq", "f1", -1, 4, 2),
            cluster_queue("cq", {"f0": str(4 * CARD), "f1": str(4 * CARD)}, resource=RES, active=True,
                          preemption={"withinClusterQueue": "LowerPriority"},
                          used={"f0": str(4 * CARD), "f1": str(4 * CARD)})]
    snap = Snapshot.of(objs)
    p = ad.PodSetDemand("main", 1, {RES: Fraction(2 * CARD)})
    queue = vd.QueueDemand([("wl", [(vd.RoleDemand("main", "wl", "main", 1, p.total()), p)])],
                           {"wl": vd.WorkloadFacts("team-a/wl")})
    policy = vd.evaluate(snap, "cq", queue).verdicts[("wl", "main")]
    assert (policy.code, policy.best.flavor if policy.best else None) == ("NeedsPreemption", "f0")
    ctx = Context(read_admitted(SnapshotSource.from_objects(objs), ["cq"], config=True))  # read, then decide
    judged = Answers(ctx)  # each assignment returned with its preemption answer
    real = vd.evaluate(snap, "cq", queue, judged.assign).verdicts[("wl", "main")]
    assert (real.code, real.best.flavor if real.best else None) == ("NeedsPreemption", "f1")
    a = judged.answer_of("team-a/wl")
    assert [(t.name, t.reason) for t in a.targets or ()] == [("low", "InClusterQueue")]


def test_the_assignment_returns_its_answer_and_the_view_keeps_none() -> None:
    """PreemptionView.judge returns the assignment with its preemption answer (Kueue's getAssignments returns the
    targets with the assignment); the view keeps no answer, and judging again gives the same pair."""
    from kubectl_pd.cluster.admitted import read_admitted
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.kueue.preempt_answer import Judged, PreemptionView
    from tests.builders import cluster_queue, resource_flavor
    from tests.test_preemption_property import CARD, RES, _holder

    objs = [resource_flavor("f0"), _holder("low", "cq", "f0", -1, 4, 1),
            cluster_queue("cq", {"f0": str(4 * CARD)}, resource=RES, active=True,
                          preemption={"withinClusterQueue": "LowerPriority"}, used={"f0": str(4 * CARD)})]
    snap = Snapshot.of(objs)
    view = PreemptionView(read_admitted(SnapshotSource.from_objects(objs), ["cq"], config=True))
    demand = ad.Demand((ad.PodSetDemand("main", 1, {RES: Fraction(2 * CARD)}),))
    first = view.judge(snap, "cq", demand, vd.WorkloadFacts("team-a/wl"))
    assert isinstance(first, Judged) and first.answer is not None
    assert (first.assignment.mode, first.answer.needed) == (ad.PREEMPT, True)
    assert [(t.name, t.reason) for t in first.answer.targets or ()] == [("low", "InClusterQueue")]
    assert not hasattr(view, "answers")
    again = view.judge(snap, "cq", demand, vd.WorkloadFacts("team-a/wl"))
    assert again.answer == first.answer and again.assignment.mode == first.assignment.mode


def test_no_targets_for_the_whole_workload_resumes_the_scan() -> None:
    """Kueue 0.19.2, layout seed 46054 (tests/realcluster/cases/layouts/fixed/): prefill's own search in fa finds
    Workloads to reclaim, but the whole Workload (decode borrowing in fb, borrowWithinCohort Never) finds none, so
    Kueue preempts nothing, requeues it with its scan's progress, and the next attempt resumes each pod set after
    the flavor it tried last: decode in fc, prefill in fb, admitted with no preemption. Starting over with "no
    candidates" everywhere put both in fb, and the next copy then "preempted run2", which Kueue did not."""
    from kubectl_pd.cluster.admitted import read_admitted
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.kueue.preempt_answer import PreemptionView

    case = Path(__file__).parent / "realcluster/cases/layouts/fixed/kueue-0.19-capacity-seed-46054.yaml"
    objs = yaml.safe_load(case.read_text())["snapshot"]
    prefix = next(o["metadata"]["namespace"] for o in objs if o["kind"] == "Workload")
    cq, res, card = f"{prefix}-q1", "credits.gpustack.ai/nvidia", Fraction(1600000)
    snap = Snapshot.of(objs)
    view = PreemptionView(read_admitted(SnapshotSource.from_objects(objs), [f"{prefix}-q0", cq], config=True))
    demand = ad.Demand((ad.PodSetDemand("decode", 2, {res: card}), ad.PodSetDemand("prefill", 1, {res: card})),
                       priority=50)
    policy = ad.assign(snap, cq, demand)
    assert policy.mode == ad.PREEMPT  # each flavor's own search: reclaim in fa stops the scan there
    judged = view.judge(snap, cq, demand, vd.WorkloadFacts("team-a/copy", 50))
    got = {p.name: p.flavors[res] for p in judged.assignment.pod_sets}
    assert (judged.assignment.mode, got) == (ad.FIT, {"decode": f"{prefix}-fc", "prefill": f"{prefix}-fb"})
    assert judged.answer is not None and not judged.answer.targets
