"""Kueue's preemption test tables (tests/preemption_cases.py) run the way a user runs them: every object
of the case in one snapshot file (no Cohort object for a cohort the case does not build, as in a cluster;
the admitted Workloads with their admission, the ClusterQueues with their usage, and for
TestFairPreemptions Kueue's ConfigMap kueue-system/kueue-manager-config with fair sharing on), then
`why-pending -f FILE -o json` on the incoming Workload. The targets named must be Kueue's.
tests/test_preemption_kueue.py checks the engine on the same tables; this checks what a run reads into it
(the weights, the configuration, a 1-queue cohort, the policy pass with fair sharing)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.preemption_cases import CASES, FAIR_CASES, NOT_KEPT
from tests.test_preemption_kueue import objects

EPOCH = 1_700_000_000
NS = "ns"


def _ts(offset: float) -> str:
    return datetime.fromtimestamp(EPOCH + offset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _requests(usage: dict) -> tuple[dict, dict]:
    flavors = {r: f for f, r in usage}
    return flavors, {r: v for (_, r), v in usage.items()}


def _admitted(w: dict) -> dict:
    flavors, reqs = _requests(w["usage"])
    conds = [{"type": t, "status": "True", "reason": t, "lastTransitionTime": _ts(w["reserved"])}
             for t in ("QuotaReserved", "Admitted")]
    if w.get("evicted"):
        conds.append({"type": "Evicted", "status": "True", "reason": "Preempted", "lastTransitionTime": _ts(0)})
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": w["name"], "namespace": NS, "uid": w["name"], "creationTimestamp": _ts(w["created"])},
            "spec": {"queueName": f"lq-{w['cq']}", "priority": w["priority"], "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [
                    {"name": "c", "resources": {"requests": reqs}}]}}}]},
            "status": {"admission": {"clusterQueue": w["cq"], "podSetAssignments": [
                {"name": "main", "flavors": flavors, "resourceUsage": reqs, "count": 1}]}, "conditions": conds}}


def _incoming(case: dict) -> dict:
    inc = case["incoming"]
    pod_sets = [{"name": n, "count": c, "template": {"spec": {"containers": [
        {"name": "c", "resources": {"requests": dict(reqs)}}]}}} for n, c, reqs in inc["pod_sets"]]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "incoming", "namespace": NS, "uid": "incoming",
                         "creationTimestamp": _ts(inc["created"])},
            "spec": {"queueName": f"lq-{case['cq']}", "priority": inc["priority"], "podSets": pod_sets}}


def _kueue_config(strategies: tuple[str, ...] | None) -> dict:
    fair: dict[str, Any] = {"preemptionStrategies": list(strategies)} if strategies else {}
    doc = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "fairSharing": fair}
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
            "data": {"controller_manager_config.yaml": yaml.safe_dump(doc)}}


def snapshot(case: dict) -> list[dict]:
    objs = objects(case, implicit=False) + [_admitted(w) for w in case["admitted"]] + [_incoming(case)]
    objs += [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
              "metadata": {"name": f"lq-{q['metadata']['name']}", "namespace": NS},
              "spec": {"clusterQueue": q["metadata"]["name"]}} for q in case["cqs"]]
    if "fair" in case:
        objs.append(_kueue_config(case["fair"]["strategies"]))
    return objs


KEPT = [c for c in CASES + FAIR_CASES if not any(c["id"].startswith(k) for k in NOT_KEPT)]


@pytest.mark.parametrize("case", KEPT, ids=lambda c: c["id"])
def test_targets_from_a_snapshot(cli: Any, tmp_path: Path, case: dict) -> None:
    f = tmp_path / "snap.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": snapshot(case)}))
    r = cli(["why-pending", "workload/incoming", "-n", NS, "-f", str(f), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    answer = json.loads(r.stdout)["preemption"]
    assert answer is not None and answer.get("targets") is not None, answer
    got = {t["name"]: t["reason"] for t in answer["targets"]}
    assert got == {n: (got.get(n) if want is None else want) for n, want in case["want"].items()}


def test_count() -> None:
    assert len(KEPT) == 73


def _pob_case(preference: str) -> dict:
    """scheduler_test.go:5573@v0.18.4 and :5689@v0.18.4: pob-cq holds 5 cpu of on-demand (5 nominal, no
    borrowing) with low-pob (priority -1) admitted there; spot is 0 nominal, 5 borrowable from pob-lender;
    whenCanBorrow and whenCanPreempt TryNextFlavor; the incoming Workload (priority 0) asks 5 cpu."""
    from tests.kueue_cases import MakeClusterQueue as MCQ
    from tests.kueue_cases import MakeFlavorQuotas as MFQ
    from tests.kueue_cases import MakeResourceFlavor as MRF
    from tests.preemption_cases import IN, W

    cq = MCQ("pob-cq").Cohort("pob-cohort").Preemption({"withinClusterQueue": "LowerPriority"}).FlavorFungibility(
        {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor", "preference": preference}
    ).ResourceGroup(MFQ("on-demand").Resource("cpu", "5", "0").Obj(), MFQ("spot").Resource("cpu", "0", "5").Obj())
    lender = MCQ("pob-lender").Cohort("pob-cohort").ResourceGroup(
        MFQ("on-demand").Resource("cpu", "0").Obj(), MFQ("spot").Resource("cpu", "5").Obj())
    return {"id": preference, "cqs": [cq.Obj(), lender.Obj()], "cohorts": [], "cq": "pob-cq",
            "flavors": [MRF("on-demand").Obj(), MRF("spot").Obj()],
            "admitted": [W("low-pob", "pob-cq", -1, **{"on-demand__cpu": "5"})], "incoming": IN(0, cpu="5")}


@pytest.mark.parametrize("preference, code, targets", [
    ("PreemptionOverBorrowing", "NeedsPreemption", {"low-pob": "InClusterQueue"}),  # scheduler_test.go:5573
    ("BorrowingOverPreemption", "WaitingInQueue", None),  # scheduler_test.go:5689: admitted in spot
])
def test_flavor_preference_reads_the_candidates(cli: Any, tmp_path: Path, preference: str, code: str,
                                                targets: dict | None) -> None:
    """The policy pass alone keeps on-demand borrowing (it cannot remove low-pob), so spot's plain fit would
    win; with the candidates read, on-demand needs no borrowing once low-pob is gone, and
    PreemptionOverBorrowing takes it, as Kueue does."""
    f = tmp_path / "snap.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": snapshot(_pob_case(preference))}))
    r = cli(["why-pending", "workload/incoming", "-n", NS, "-f", str(f), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert [x["code"] for x in data["reasons"]] == [code]
    answer = data["preemption"]
    got = None if answer is None or answer.get("targets") is None else \
        {t["name"]: t["reason"] for t in answer["targets"]}
    assert got == targets
