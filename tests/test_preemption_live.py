"""why-pending's preemption answer end to end: from a snapshot, and through the loopback API server with a
real kubeconfig (admitted Workloads of several priorities, the field-selected reads, a 403)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apiserver import Forbid, load_objects

FIX = Path(__file__).parent / "fixtures" / "pending" / "needs-preemption.yaml"
CQ = "gpustack--nvidia-h20-linux-amd64"
FLAVOR = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
CREDITS = "credits.gpustack.ai/nvidia"


def admitted(name: str, priority: int, credits: str, reserved: str, ns: str = "team-b") -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}", "creationTimestamp": "2026-11-28T00:00:00Z"},
        "spec": {"queueName": "lq-b", "priority": priority, "podSets": [{"name": "main", "count": 1, "template": {
            "spec": {"containers": [{"name": "c", "resources": {"requests": {CREDITS: credits}}}]}}}]},
        "status": {
            "admission": {"clusterQueue": CQ, "podSetAssignments": [
                {"name": "main", "flavors": {CREDITS: FLAVOR}, "resourceUsage": {CREDITS: credits}, "count": 1}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                            "lastTransitionTime": reserved},
                           {"type": "Admitted", "status": "True", "reason": "Admitted",
                            "lastTransitionTime": reserved}],
        },
    }


# 19200k reserved in the queue: two lower-priority Workloads and one of the pending one's priority (0)
HOLDERS = [admitted("low-a", -1, "6400k", "2026-11-28T01:00:00Z"),
           admitted("low-b", -1, "3200k", "2026-11-28T02:00:00Z"),
           admitted("same", 0, "9600k", "2026-11-28T03:00:00Z")]
# Kueue: LowerPriority takes low-b (newest first) then low-a; 6400k + 3200k + 6400k free = the 16000k asked
WANT = [{"namespace": "team-b", "name": n, "clusterQueue": CQ, "priority": -1, "reason": "InClusterQueue"}
        for n in ("low-a", "low-b")]


def _objects() -> list[dict[str, Any]]:
    return load_objects(FIX) + copy.deepcopy(HOLDERS)


def _targets(data: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(data["preemption"]["targets"], key=lambda t: t["name"])


def test_from_snapshot(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "snap.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": _objects()}))
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(f), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert _targets(data) == WANT
    assert {(h["name"], h["borrows"]) for h in data["holders"]} == {("low-a", False), ("low-b", False),
                                                                     ("same", False)}
    text = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(f)])
    assert "team-b/low-a" in text.stdout and "InClusterQueue" in text.stdout


def test_snapshot_missing_holders_is_unknown(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "snap.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": _objects()[:-1]}))
    data = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(f), "-o", "json"]).stdout)
    assert data["preemption"] == {"targets": None, "unknown": "usage-unaccounted"}


def test_live_field_selected_reads(cli: Any, apiserver: Any) -> None:
    server, env = apiserver(_objects())
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    assert _targets(json.loads(r.stdout)) == WANT
    lists = [x for x in server.requests if x.path.endswith("/workloads")]
    assert [x.query.get("fieldSelector") for x in lists] == [f"status.admission.clusterQueue={CQ}"]
    assert set(server.methods) == {"GET"}


def test_live_403_on_workloads_is_unknown(cli: Any, apiserver: Any) -> None:
    _, env = apiserver(_objects(), forbid=[Forbid("list", "workloads")])
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["preemption"] == {"targets": None, "unknown": "workloads-forbidden"}


def test_no_preemption_reads_no_workloads(cli: Any, apiserver: Any) -> None:
    objs = _objects()
    for o in objs:
        if o["kind"] == "ClusterQueue":
            o["spec"]["preemption"] = {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"}
    server, env = apiserver(objs)
    data = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env).stdout)
    assert data["preemption"] == {"targets": []}
    assert not [x for x in server.requests if x.path.endswith("/workloads")]


@pytest.mark.parametrize("policy, want", [("LowerPriority", WANT), ("Never", [])])
def test_kueue_config_file(cli: Any, tmp_path: Path, policy: str, want: list) -> None:
    objs = _objects()
    for o in objs:
        if o["kind"] == "ClusterQueue":
            o["spec"]["preemption"]["withinClusterQueue"] = policy
    f = tmp_path / "snap.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    cfg = tmp_path / "kueue.yaml"
    cfg.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n")
    data = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(f), "--kueue-config", str(cfg),
                           "-o", "json"]).stdout)
    assert _targets(data) == want
    bad = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(f), "--kueue-config", str(tmp_path / "none")])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr
