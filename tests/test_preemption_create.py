"""`kubectl pd create` says which Workloads admitting the request would preempt, before it writes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.apiserver import Forbid, load_objects
from tests.test_preemption_live import admitted

FIX = Path(__file__).parent / "fixtures" / "create"
H20 = "gpustack--nvidia-h20-linux-amd64"
BASE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv",
        "--prefill", "1", "--decode", "2", "--instance-type", H20]


def _cluster(policy: str = "LowerPriority") -> list[dict]:
    objs = load_objects(FIX / "cluster.yaml") + load_objects(FIX / "crd-pd-atomic.yaml")
    for o in objs:
        if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == H20:
            o["spec"]["preemption"] = {"withinClusterQueue": policy}
            flavor = o["spec"]["resourceGroups"][0]["flavors"][0]["name"]
            o["status"]["flavorsReservation"] = [{"name": flavor, "resources": [
                {"name": "credits.gpustack.ai/nvidia", "total": "12800k"}]}]
    holders = [admitted("low-a", -1, "3200k", "2026-11-28T01:00:00Z"), admitted("low-b", -1, "3200k",
                                                                                 "2026-11-28T02:00:00Z"),
               admitted("same", 0, "6400k", "2026-11-28T03:00:00Z")]
    for h in holders:
        h["status"]["admission"]["clusterQueue"] = H20
        h["status"]["admission"]["podSetAssignments"][0]["flavors"] = {"credits.gpustack.ai/nvidia": flavor}
    return objs + holders


def test_create_names_the_targets_before_writing(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(_cluster(), namespace="team-a")
    r = cli([*BASE, "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    assert "warning: admitting this would preempt 2 Workloads: team-b/low-b, team-b/low-a" in r.stderr.splitlines()
    lists = [x for x in server.requests if x.path.endswith("/workloads")]
    assert [x.query.get("fieldSelector") for x in lists] == [f"status.admission.clusterQueue={H20}"]


def test_create_forbidden_workloads_says_unknown(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver(_cluster(), namespace="team-a", forbid=[Forbid("list", "workloads")])
    r = cli([*BASE, "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    assert any(line.startswith("warning: admitting this would need preemption; which Workloads is unknown")
               for line in r.stderr.splitlines())


def test_create_policy_never_reads_no_workloads(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(_cluster("Never"), namespace="team-a")
    r = cli([*BASE, "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    assert not [x for x in server.requests if x.path.endswith("/workloads")]
