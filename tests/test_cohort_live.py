"""The issue's cohort case end to end, through the real kubectl and the loopback API server: a queue with 2
cards of its own, no borrowingLimit, and a cohort peer with 8. create's preflight and why-pending must give
one verdict; with the peers unreadable (RBAC), both say unknown instead of a confident "blocked"."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.create import flags, preflight
from kubectl_pd.create.flags import CreateRequest, parse_role
from kubectl_pd.gpustack.roles import PD_ATOMIC
from kubectl_pd.registry import CHECKS
from tests.apiserver import Forbid, load_objects
from tests.conftest import run_kubectl

FIX = Path(__file__).parent / "fixtures"
CQ = "gpustack--nvidia-h20-linux-amd64"
FLAVOR = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
CARD = 1_600_000


def _cluster(peer_cards: int) -> list[dict[str, Any]]:
    """The create fixture's H20 pool, cut to 2 cards in cohort `gpu-pool`, and a peer with `peer_cards`."""
    objs = [o for o in load_objects(FIX / "create" / "cluster.yaml") + load_objects(FIX / "create" /
                                                                                  "crd-pd-atomic.yaml")]
    mine = next(o for o in objs if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == CQ)
    mine["spec"]["cohortName"] = "gpu-pool"
    mine["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = str(2 * CARD)
    peer = copy.deepcopy(mine)
    peer["metadata"] = {"name": "spare-h20"}
    peer["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = str(peer_cards * CARD)
    peer.pop("status", None)
    return [*objs, peer]


def _workload(cards: int) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "probe", "namespace": "team-a"},
            "spec": {"queueName": "gpustack-fnv64-5582b5d69c84a5c3", "podSets": [
                {"name": "prefill", "count": 1, "template": {"spec": {"containers": [
                    {"name": "c", "resources": {"requests": {"credits.gpustack.ai/nvidia": str(cards * CARD)}}}]}}}]}}


CREATE = ["pd", "create", "probe", "-n", "team-a", "--model", "m", "--engine-version", "1", "--kv-cache-pool", "kv",
          "--role", "name=prefill,kind=prefill,accelerator=4", "--decode", "1", "--instance-type", CQ,
          "--dry-run=server"]


def _create_findings(env: dict[str, str]) -> list[tuple[str, str | None]]:
    """create's preflight for CREATE, through the Python API: (check id, the why-pending code it gives)."""
    req = CreateRequest(name="probe", namespace="team-a", model="m", engine_version="1", kv_cache_pool="kv",
                        instance_type=CQ, roles=flags.all_role_specs(
                            (parse_role("name=prefill,kind=prefill,accelerator=4"),), None, "1"))
    checked = flags.check_request(req)
    assert checked.problems == []
    report = preflight.run(LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"])), req, checked.roles, PD_ATOMIC,
                           "team-a")
    assert all(f.check in {c.id for c in CHECKS} for f in report.findings)
    return [(f.check, f.params.get("code")) for f in report.findings]


def test_cohort_case_same_verdict_in_both_commands(apiserver: Any) -> None:
    server, env = apiserver(_cluster(8), _workload(4), namespace="team-a")
    created = run_kubectl(CREATE, env=env)
    assert (created.returncode, created.stderr) == (0, "")  # no finding: it fits, borrowing from the peer
    assert _create_findings(env) == []
    before = len(server.methods)
    why = run_kubectl(["pd", "why-pending", "workload/probe", "-n", "team-a", "-o", "json"], env=env)
    assert why.returncode == 0, why.stderr
    data = json.loads(why.stdout)
    assert [r["verdict"] for r in data["roles"]] == ["fits"]
    assert data["reasons"][0]["code"] == "WaitingInQueue"
    assert set(server.methods[before:]) == {"GET"}  # why-pending only reads


def test_cohort_without_room_is_never_in_both_commands(apiserver: Any) -> None:
    server, env = apiserver(_cluster(1), _workload(4), namespace="team-a")
    created = run_kubectl(CREATE, env=env)
    assert created.returncode == 1, created.stderr
    assert _create_findings(env) == [("never-fits", "QuotaExceedsCapacity")]
    why = run_kubectl(["pd", "why-pending", "workload/probe", "-n", "team-a", "-o", "json"], env=env)
    data = json.loads(why.stdout)
    reason = data["reasons"][0]
    assert reason["code"] == "QuotaExceedsCapacity" and reason["params"]["capacity"] == str(3 * CARD // 1000) + "k"


def test_unreadable_cohort_is_unknown_not_blocked(apiserver: Any) -> None:
    server, env = apiserver(_cluster(8), _workload(4), namespace="team-a", forbid=[Forbid("list", "clusterqueues")])
    why = run_kubectl(["pd", "why-pending", "workload/probe", "-n", "team-a", "-o", "json"], env=env)
    assert why.returncode == 0, why.stderr
    data = json.loads(why.stdout)
    assert data["reasons"][0]["code"] == "QuotaUnknown" and data["reasons"][0]["params"]["outcome"] == "quota-unknown"
    assert [r["verdict"] for r in data["roles"]] == ["unknown"]
    assert any("clusterqueues" in n for n in data["notes"])
    created = run_kubectl(CREATE, env=env)
    assert created.returncode == 0, created.stderr  # not refused on a guess; warned instead
    # the refused list, then each role's fit: unknown (why-pending's QuotaUnknown), never a guess
    assert _create_findings(env) == [("skipped", None), *[("fit-unknown", "QuotaUnknown")] * 2]
    assert [line.split(":", 1)[0] for line in created.stderr.splitlines()] == ["warning"] * 3
