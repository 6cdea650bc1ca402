"""Why a Workload is back in the queue: a check answering Retry in a loop (with GPUStack's per-card fit labels),
a topology that cannot fit a role, preemption (by whom, which rule, what the pair loses), and the Workloads
ahead in the queue. From file, through the loopback API server, through the real kubectl, RBAC refusing
Nodes or Events."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.pending.evictions import parse_preemption
from kubectl_pd.pending.topology import parse_not_fit
from tests.apiserver import TOKEN, Forbid, load_objects
from tests.conftest import run_kubectl

FIX = Path(__file__).parent / "fixtures" / "pending"
CQ = "gpustack--nvidia-h20-linux-amd64"
FL = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
VIS_PATH = f"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/{CQ}/pendingworkloads"


def _list(objs: list[dict[str, Any]], tmp_path: Path, name: str = "snap.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    return p


def _json(cli: Any, args: list[str], **kw: Any) -> dict[str, Any]:
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", *args, "-o", "json"], **kw)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


# preemption.go preemptionMessage, one row per HumanReadablePreemptionReasons entry (v0.18.4 and v0.19.2)
@pytest.mark.parametrize("why, rule", [
    ("prioritization in the ClusterQueue", "InClusterQueue"),
    ("reclamation within the cohort", "InCohortReclamation"),
    ("Fair Sharing within the cohort", "InCohortFairSharing"),
    ("reclamation within the cohort while borrowing", "InCohortReclaimWhileBorrowing"),
    ("UNKNOWN", None),
])
def test_parse_preemption(why: str, rule: str | None) -> None:
    msg = (f"Preempted to accommodate a workload (UID: u-1, JobUID: UNKNOWN) due to {why}; preemptor path: "
           f"/pool/team-b-cq; preemptee path: /pool/{CQ}")
    p = parse_preemption(msg)
    assert p is not None
    assert (p.uid, p.job_uid, p.rule, p.preemptor_queue) == ("u-1", None, rule, "team-b-cq")
    event = msg + ("; preemptor effective priority: 100 (base: 100, boost: 0); preemptee effective priority: 0 "
                   "(base: 0, boost: 0)")
    pe = parse_preemption(event)
    assert pe is not None and (pe.preemptor_priority, pe.preemptee_priority) == (100, 0)
    assert parse_preemption("Exceeded the PodsReady timeout team-a/qwen-pd") is None


# tas_flavor_snapshot.go notFitMessage / multiLayerNotFitMessage (v0.18.4 and v0.19.2)
@pytest.mark.parametrize("message, want", [
    ('topology "gpu-racks" allows to fit only 1 out of 2 pod(s)',
     {"topology": "gpu-racks", "fit": 1, "total": 2, "unit": "pod"}),
    ('topology "gpu-racks" doesn\'t allow to fit any of 3 slice(s)',
     {"topology": "gpu-racks", "fit": 0, "total": 3, "unit": "slice"}),
    ('topology "t" allows to fit only 2 out of 4 pod(s). Total nodes: 6; excluded: resource "cpu": 2',
     {"topology": "t", "fit": 2, "total": 4, "unit": "pod", "totalNodes": 6, "excluded": 'resource "cpu": 2'}),
    ('topology "t" doesn\'t allow to fit; 1/2 slice(s) fit on level rack; 3/4 slice(s) fit on level host',
     {"topology": "t", "fit": None, "total": None, "unit": "slice",
      "sliceLayers": [{"fit": 1, "needed": 2, "level": "rack"}, {"fit": 3, "needed": 4, "level": "host"}]}),
    ("no requested topology level: rack", None),
])
def test_parse_not_fit(message: str, want: dict[str, Any] | None) -> None:
    assert parse_not_fit(message) == want


def test_retry_loop_counts_and_fragmentation(cli: Any) -> None:
    data = _json(cli, ["-f", str(FIX / "admission-check-retry-loop.yaml")])
    r = data["reasons"][0]
    assert (r["code"], r["role"]) == ("AdmissionCheckRetryLoop", "decode")
    p = r["params"]
    assert (p["check"], p["times"], p["requeueAt"]) == ("gpustack-node-devices", 5, "2026-11-29T09:40:35Z")
    frag = p["fragmentation"]
    assert frag["mostFreeCards"] == "3" and frag["fits"] == {"prefill": True, "decode": False}
    assert frag["podAsks"] == {"prefill": "3200k", "decode": "6400k"}
    assert r["kueueMessage"].startswith("no node in flavor pool")  # the check's words, not Kueue's reset note


def test_retry_loop_reads_nodes_by_label_and_degrades(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/admission-check-retry-loop.yaml")
    data = _json(cli, [], env=env)
    assert data["reasons"][0]["code"] == "AdmissionCheckRetryLoop"
    node_reads = [x for x in server.requests if x.path == "/api/v1/nodes"]
    assert len(node_reads) == 1 and "labelSelector" in node_reads[0].query
    for forbid, note in ((Forbid("list", "nodes"), "nodes of flavor"), (Forbid("list", "events", "team-a"), "events")):
        server, env = apiserver("pending/admission-check-retry-loop.yaml", forbid=[forbid])
        data = _json(cli, [], env=env)
        r = data["reasons"][0]
        assert r["code"] == "AdmissionCheckRetryLoop" and r["params"]["times"] == 5
        assert any(note in n for n in data["notes"]), data["notes"]
        if note != "events":
            assert r["params"]["fragmentation"] is None


def test_retry_loop_per_replica(cli: Any, tmp_path: Path) -> None:
    """The per-replica shape: one decode replica's Workload loops; the role is the replica's."""
    objs = load_objects(FIX / "per-replica-joint.yaml")
    loop = next(o for o in load_objects(FIX / "admission-check-retry-loop.yaml") if o["kind"] == "Workload")
    for o in objs:
        if o["kind"] == "Workload" and o["spec"]["podSets"][0]["name"] == "decode":
            o["status"]["conditions"] = copy.deepcopy(loop["status"]["conditions"])
            for k in ("admissionChecks", "requeueState", "schedulingStats"):
                o["status"][k] = copy.deepcopy(loop["status"][k])
    data = _json(cli, ["-f", str(_list(objs, tmp_path))])
    r = data["reasons"][0]
    assert (r["code"], r["role"], r["params"]["times"]) == ("AdmissionCheckRetryLoop", "decode", 5)
    assert r["params"].get("fragmentation") is None  # no Nodes in this snapshot: no fit labels, no verdict


def test_retry_loop_caught_while_the_check_says_retry(cli: Any, tmp_path: Path) -> None:
    """Between two evictions: quota reserved again, the check answers Retry now (retryCount 4)."""
    objs = load_objects(FIX / "admission-check-retry-loop.yaml")
    wl = next(o for o in objs if o["kind"] == "Workload")
    words = "no node has 4 free cards; will retry"
    wl["status"]["conditions"] = [
        {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
         "message": f"Quota reserved in ClusterQueue {CQ}"},
        {"type": "Admitted", "status": "False", "reason": "UnsatisfiedAdmissionChecks", "message": "x"}]
    wl["status"]["admissionChecks"][0].update(state="Retry", retryCount=4, message=words)
    del wl["status"]["schedulingStats"], wl["status"]["requeueState"]
    wl["status"]["admission"] = {"clusterQueue": CQ, "podSetAssignments": [
        {"name": ps["name"], "count": ps["count"], "flavors": {"credits.gpustack.ai/nvidia": FL}}
        for ps in wl["spec"]["podSets"]]}
    objs = [o for o in objs if o["kind"] != "Event"]
    data = _json(cli, ["-f", str(_list(objs, tmp_path))])
    codes = [r["code"] for r in data["reasons"]]
    assert codes[0] == "AdmissionCheckRetryLoop" and "AdmissionCheckPending" not in codes
    assert data["reasons"][0]["params"]["times"] == 4 and data["reasons"][0]["kueueMessage"] == words
    assert data["reasons"][0]["params"]["fragmentation"]["fits"]["decode"] is False


def test_one_retry_is_not_a_loop(cli: Any, tmp_path: Path) -> None:
    objs = load_objects(FIX / "admission-check-retry-loop.yaml")
    wl = next(o for o in objs if o["kind"] == "Workload")
    wl["status"]["admissionChecks"][0]["retryCount"] = 1
    wl["status"]["requeueState"]["count"] = 1
    wl["status"]["schedulingStats"]["evictions"][0]["count"] = 1
    objs = [o for o in objs if o["kind"] != "Event"]
    data = _json(cli, ["-f", str(_list(objs, tmp_path))])
    assert data["reasons"][0]["code"] == "Evicted"


def test_topology_per_replica(cli: Any, tmp_path: Path) -> None:
    objs = load_objects(FIX / "per-replica-joint.yaml")
    msg = 'couldn\'t assign flavors to pod set decode: topology "gpu-racks" doesn\'t allow to fit any of 1 pod(s)'
    for o in objs:
        if o["kind"] == "Workload" and o["spec"]["podSets"][0]["name"] == "decode":
            o["spec"]["podSets"][0]["template"]["metadata"]["annotations"] = {
                "kueue.x-k8s.io/podset-required-topology": "kubernetes.io/hostname"}
            o["status"]["conditions"][0].update(reason="Pending", message=msg)
        if o["kind"] == "ResourceFlavor":
            o["spec"]["topologyName"] = "gpu-racks"
    r = _json(cli, ["-f", str(_list(objs, tmp_path))])["reasons"][0]
    assert (r["code"], r["role"]) == ("TopologyUnsatisfied", "decode")
    assert {k: r["params"][k] for k in ("fit", "total", "mode", "level", "topology")} == {
        "fit": 0, "total": 1, "mode": "required", "level": "kubernetes.io/hostname", "topology": "gpu-racks"}
    assert r["flavor"] == "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"


def test_topology_seed_shape_params(cli: Any) -> None:
    r = _json(cli, ["-f", str(FIX / "topology-unsatisfied.yaml")])["reasons"][0]
    assert (r["code"], r["role"]) == ("TopologyUnsatisfied", "decode")
    assert (r["params"]["fit"], r["params"]["total"], r["params"]["level"]) == (1, 2, "cloud.gpustack.ai/rack")


def test_preempted_pair_effect_and_own_preemptor(cli: Any, tmp_path: Path) -> None:
    data = _json(cli, ["-f", str(FIX / "preempted.yaml")])
    r = data["reasons"][0]
    assert (r["code"], r["role"]) == ("Preempted", "decode")
    p = r["params"]
    assert (p["rule"], p["preemptorClusterQueue"], p["preemptorWorkload"]) == ("InClusterQueue", CQ, None)
    assert (p["holdingRoles"], p["lostRoles"]) == (["prefill"], ["decode"])
    assert (p["preemptorPriority"], p["preempteePriority"]) == (1000, 0)  # from the Preempted event
    # the preemptor is one of this deployment's own Workloads: named, with its role
    objs = load_objects(FIX / "preempted.yaml")
    wls = [o for o in objs if o["kind"] == "Workload"]
    prefill = next(w for w in wls if w["spec"]["podSets"][0]["name"] == "prefill")
    decode = next(w for w in wls if w["spec"]["podSets"][0]["name"] == "decode")
    decode["metadata"]["uid"] = "d-uid"
    for o in objs:
        for field in ("message",):
            if o["kind"] == "Event":
                o[field] = o[field].replace("5b3e9f20-7c1d-4a8e-b6f2-0d9c8e7a6b51", prefill["metadata"]["uid"])
    for c in decode["status"]["conditions"]:
        c["message"] = c["message"].replace("5b3e9f20-7c1d-4a8e-b6f2-0d9c8e7a6b51", prefill["metadata"]["uid"])
    r = _json(cli, ["-f", str(_list(objs, tmp_path))])["reasons"][0]
    assert r["params"]["preemptorWorkload"] == prefill["metadata"]["name"]
    assert r["params"]["preemptorRoles"] == ["prefill"]


def test_preempted_seed_shape_loses_both_roles(cli: Any, tmp_path: Path) -> None:
    objs = load_objects(FIX / "evicted.yaml")
    wl = next(o for o in objs if o["kind"] == "Workload")
    msg = (f"Preempted to accommodate a workload (UID: x-1, JobUID: UNKNOWN) due to reclamation within the cohort; "
           f"preemptor path: /gpu-pool/team-b; preemptee path: /gpu-pool/{CQ}")
    wl["status"]["conditions"] = [
        {"type": "Evicted", "status": "True", "reason": "Preempted", "message": msg},
        {"type": "Preempted", "status": "True", "reason": "InCohortReclamation", "message": msg}]
    r = _json(cli, ["-f", str(_list(objs, tmp_path))])["reasons"][0]
    assert (r["code"], r["role"]) == ("Preempted", None)
    assert (r["params"]["rule"], r["params"]["preemptorClusterQueue"]) == ("InCohortReclamation", "team-b")
    assert r["params"]["lostRoles"] == ["decode", "prefill"] and r["params"]["holdingRoles"] == []


def test_queue_ahead_live_and_from_file(cli: Any, apiserver: Any, tmp_path: Path) -> None:
    vis = json.loads((FIX / "waiting-in-queue-visibility.json").read_text())
    ahead = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
             "metadata": {"name": "llama-70b", "namespace": "team-b"},
             "spec": {"queueName": "gpustack-fnv64-5582b5d69c84a5c3", "podSets": []},
             "status": {"resourceRequests": [{"name": "main", "resources": {"credits.gpustack.ai/nvidia": "12800k"}}]}}
    server, env = apiserver("pending/waiting-in-queue.yaml", [ahead], raw={VIS_PATH: vis})
    data = _json(cli, [], env=env)
    assert data["queue"]["position"] == 2
    assert data["queue"]["ahead"] == [{"name": "llama-70b", "namespace": "team-b", "position": 1, "priority": 100,
                                       "localQueue": "gpustack-fnv64-5582b5d69c84a5c3",
                                       "requests": {"credits.gpustack.ai/nvidia": "12800k"}}]
    assert not any(x.path.endswith("/workloads") for x in server.requests), "never lists Workloads"
    assert sum(x.path.endswith("/workloads/llama-70b") for x in server.requests) == 1
    assert data["reasons"][0]["params"]["aheadRequests"] == {"credits.gpustack.ai/nvidia": "12800k"}
    r = cli(["why-pending", "qwen-pd", "-n", "team-a"], env=env)
    # the text: the queue line, then the Workloads ahead with their requests in cards
    assert r.stdout.splitlines()[2:4] == [
        "  queue: LocalQueue gpustack-fnv64-5582b5d69c84a5c3 -> ClusterQueue gpustack--nvidia-h20-linux-amd64, "
        "position 2 (#1 in its LocalQueue)",
        "  ahead: #1 team-b/llama-70b (8 cards)"]
    # refused: the position stays, the requests are unknown, a note says why
    server, env = apiserver("pending/waiting-in-queue.yaml", [ahead], raw={VIS_PATH: vis},
                            forbid=[Forbid("get", "workloads", "team-b")])
    data = _json(cli, [], env=env)
    assert data["queue"]["ahead"][0]["requests"] is None
    assert any("llama-70b" in n for n in data["notes"])
    # from a snapshot that carries the summary and the Workload ahead
    objs = [*load_objects(FIX / "waiting-in-queue.yaml"), vis, ahead]
    data = _json(cli, ["-f", str(_list(objs, tmp_path))])
    assert data["queue"]["ahead"][0]["requests"] == {"credits.gpustack.ai/nvidia": "12800k"}


@pytest.mark.parametrize("name, code", [("admission-check-retry-loop", "AdmissionCheckRetryLoop"),
                                        ("topology-unsatisfied", "TopologyUnsatisfied"),
                                        ("preempted", "Preempted"),
                                        ("pods-gated", "PodsGated"),
                                        ("pods-unschedulable", "PodsUnschedulable")])
def test_through_real_kubectl(apiserver: Any, name: str, code: str) -> None:
    server, env = apiserver(f"pending/{name}.yaml")
    p = run_kubectl(["pd", "why-pending", "qwen-pd", "-n", "team-a"], env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"PENDING  modeldeployment team-a/qwen-pd is pending ({code}): ")
    p = run_kubectl(["pd", "why-pending", "qwen-pd", "-n", "team-a", "-o", "yaml"], env=env)
    assert p.returncode == 0, p.stderr
    assert yaml.safe_load(p.stdout)["reasons"][0]["code"] == code
    assert TOKEN not in p.stdout + p.stderr
    assert set(server.methods) == {"GET"}
    assert len(server.requests) <= 2 * 15, [x.path for x in server.requests]


@pytest.mark.parametrize("name, code", [("admission-check-retry-loop", "AdmissionCheckRetryLoop"),
                                        ("topology-unsatisfied", "TopologyUnsatisfied"),
                                        ("preempted", "Preempted")])
def test_rbac_refusing_nodes_and_events_is_a_note(cli: Any, apiserver: Any, name: str, code: str) -> None:
    server, env = apiserver(f"pending/{name}.yaml", forbid=[Forbid("list", "nodes"), Forbid("list", "events")])
    data = _json(cli, [], env=env)
    assert data["reasons"][0]["code"] == code and data["pending"] is True
    assert any("could not read events" in n for n in data["notes"]), data["notes"]
    if name == "preempted":  # without the event: the rule and preemptor still come from the condition
        p = data["reasons"][0]["params"]
        assert (p["rule"], p["preemptorPriority"]) == ("InClusterQueue", None)
