"""One realistic snapshot per reason code, diagnosed from file and through the loopback API server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apiserver import TOKEN, Forbid, load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
CQ = "gpustack--nvidia-h20-linux-amd64"
H20 = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
VIS_PATH = f"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/{CQ}/pendingworkloads"

# fixture -> (primary code, pending, substrings the text must show)
CASES: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "not-pending": ("NotPending", False, ("admitted",)),
    "pod-group-incomplete": ("PodGroupIncomplete", True, ("decode 1/2", "fewer runnable pods than expected")),
    "pod-group-invalid": ("PodGroupInvalid", True, ("disagree on the queue name", "has different queue names")),
    "workload-missing": ("WorkloadMissing", True, ("has not composed its Workload",)),
    "local-queue-missing": ("LocalQueueMissing", True, ("gpustack-fnv64-5582b5d69c84a5c3 does not exist",
                                                        "spec.clusterQueue: gpustack--nvidia-h20-linux-amd64")),
    "local-queue-stopped": ("LocalQueueStopped", True, ("stopPolicy Hold", "is inactive")),
    "cluster-queue-missing": ("ClusterQueueMissing", True, ("does not exist",)),
    "cluster-queue-inactive": ("ClusterQueueInactive", True, (f"ResourceFlavor(s) {H20} do not exist",
                                                              f"create ResourceFlavor {H20}", "kubectl pd lint")),
    "cluster-queue-stopped": ("ClusterQueueStopped", True, ("stopPolicy Hold",)),
    "namespace-not-allowed": ("NamespaceNotAllowed", True, ("gpustack.ai/tenant=enabled",
                                                            "Workload namespace doesn't match ClusterQueue selector")),
    "resource-not-covered": ("ResourceNotCovered", True, ("nvidia.com/gpu",)),
    "quota-exceeds-capacity": ("QuotaExceedsCapacity", True, ("asks 24 cards", "at most 16 cards",
                                                              "never admitted as configured",
                                                              "scale decode from 3 to 1 replica")),
    "quota-exhausted": ("QuotaExhausted", True, ("prefill would fit alone; decode needs 2 more cards; together they "
                                                 "need 4 more cards", "3200k more needed",
                                                 "scale decode from 2 to 1 replica")),
    "needs-preemption": ("NeedsPreemption", True, ("fits only by preempting", "together they need 6 more cards")),
    "quota-unknown": ("QuotaUnknown", True, ("its cohort could not be read", "whether it fits is unknown",
                                             "holds no other member of cohort gpu-pool")),
    "pods-gated": ("PodsGated", True, ("kueue.x-k8s.io/admission", "although Workload qwen-pd is admitted")),
    "pods-unschedulable": ("PodsUnschedulable", True, ("Kueue ignored nodeSelector acceleratable.feature.gpustack.ai/"
                                                       "nvidia-l40s=true", "0 carry what the pod selects",
                                                       "scheduler: 0/12 nodes are available")),
    "no-matching-flavor": ("NoMatchingFlavor", True, ("doesn't match node affinity", "untolerated taint")),
    "preemption-in-progress": ("PreemptionInProgress", True, ("preempting 1 workload(s)",)),
    "waiting-in-queue": ("WaitingInQueue", True, ("position 2", "no scheduler has evaluated")),
    "admission-check-pending": ("AdmissionCheckPending", True, ("gpustack-node-devices is Pending",)),
    "admission-check-rejected": ("AdmissionCheckRejected", True, ("dws-prov", "capacity unavailable in zone")),
    "deactivated": ("Deactivated", True, ("parked rather than held", '"active":true')),
    "evicted": ("Evicted", True, ("PodsReadyTimeout", "2 times")),
    "waiting-for-pods-ready": ("WaitingForPodsReady", True, ("PodsReady condition",)),
    "invalid-resources": ("InvalidResources", True, ("requests must not exceed its limits",)),
    "unknown": ("Unknown", True, ("the object has been modified",)),
    "admission-check-retry-loop": ("AdmissionCheckRetryLoop", True, ("5 times", "the free cards are fragmented",
                                                                      "currently has 4 free cards")),
    "topology-unsatisfied": ("TopologyUnsatisfied", True, ("fits only 1 of decode's 2 pod(s)",
                                                           'topology "gpu-racks" allows to fit only 1 out of 2')),
    "preempted": ("Preempted", True, ("prefill still holds quota for nothing", "(InClusterQueue)",
                                      "Preempted to accommodate a workload")),
    "per-replica-joint": ("QuotaExhausted", True, ("prefill holds its quota; decode needs 2 more cards each; "
                                                   "together they need 6 more cards",
                                                   "gpustack-model-deployment-joint")),
}


def test_every_code_has_a_fixture() -> None:
    from kubectl_pd.pending.diagnose import CODES

    assert {c for c, _, _ in CASES.values()} == set(CODES)
    assert {p.stem for p in FIX.glob("*.yaml")} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_from_file(cli: Any, name: str) -> None:
    code, pending, needles = CASES[name]
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "--from-file", str(FIX / f"{name}.yaml")])
    assert r.exit_code == 0, r.stderr
    assert f"({code})" in r.stdout.splitlines()[0] or (code == "NotPending" and "NOT PENDING" in r.stdout)
    for n in needles:
        assert n in r.stdout, (n, r.stdout)
    j = cli(["why-pending", "md/qwen-pd", "-n", "team-a", "-f", str(FIX / f"{name}.yaml"), "-o", "json"])
    data = json.loads(j.stdout)
    assert data["pending"] is pending
    assert data["reasons"][0]["code"] == code
    assert data["target"] == {"kind": "ModelDeployment", "name": "qwen-pd", "namespace": "team-a"}
    assert {r["name"] for r in data["roles"]} == {"prefill", "decode"}
    for reason in data["reasons"]:
        assert set(reason) == {"code", "role", "workload", "message", "kueueMessage", "resource", "flavor",
                               "requested", "available", "needed", "params"}
    assert set(data["queue"]) - {"ahead"} == {"localQueue", "clusterQueue", "position"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_through_the_api_server(cli: Any, apiserver: Any, name: str) -> None:
    code, pending, _ = CASES[name]
    raw = {}
    if name == "waiting-in-queue":
        raw[VIS_PATH] = json.loads((FIX / "waiting-in-queue-visibility.json").read_text())
    # live, the list of ClusterQueues is the cohort: unknown only when RBAC refuses it
    forbid = [Forbid("list", "clusterqueues")] if name == "quota-unknown" else []
    server, env = apiserver(f"pending/{name}.yaml", raw=raw, forbid=forbid)
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["reasons"][0]["code"] == code
    assert data["pending"] is pending
    assert set(server.methods) == {"GET"}
    assert len(server.requests) <= 14, [x.path for x in server.requests]
    assert not any(x.path.endswith("/workloads") for x in server.requests), "never lists Workloads"
    assert TOKEN not in r.stdout + r.stderr
    if name == "waiting-in-queue":
        assert data["queue"]["position"] == 2


def test_seed_and_per_replica_shapes_map_pod_sets_to_roles(cli: Any) -> None:
    seed = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX / "quota-exhausted.yaml"),
                           "-o", "json"]).stdout)
    per = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX / "per-replica-joint.yaml"),
                          "-o", "json"]).stdout)
    assert [(r["name"], r["verdict"]) for r in seed["roles"]] == [("prefill", "fits"), ("decode", "blocked")]
    assert [(r["name"], r["pods"]) for r in per["roles"]] == [("prefill", {"have": 1, "want": 1}),
                                                              ("decode", {"have": 2, "want": 2})]
    decode = next(r for r in per["reasons"] if r["role"] == "decode")
    # Kueue's number (one replica's Workload alone) and the joint one (every pending replica at once)
    assert decode["needed"] == "3200k" and decode["params"]["jointNeeded"] == "9600k" and decode["flavor"] == H20
    assert any(r["code"] == "AdmissionCheckPending" and r["role"] == "prefill" for r in per["reasons"])


def test_hashed_pod_set_names_map_through_the_component_label(cli: Any, tmp_path: Path) -> None:
    """Without role-hash = role name, Kueue names pod sets by an 8-hex hash; the pods' component says the role."""
    objs = load_objects(FIX / "quota-exhausted.yaml")
    hashes = {"decode": "5f2c9a1b", "prefill": "0e7d3c44"}
    for o in objs:
        if o["kind"] == "Pod":
            role = o["metadata"]["labels"]["app.kubernetes.io/component"]
            o["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"] = hashes[role]
        if o["kind"] == "Workload":
            for ps in o["spec"]["podSets"]:
                ps["name"] = hashes[ps["name"]]
                del ps["template"]["metadata"]
            for rr in o["status"]["resourceRequests"]:
                rr["name"] = hashes[rr["name"]]
            c = o["status"]["conditions"][0]
            c["message"] = c["message"].replace("pod set decode", "pod set 5f2c9a1b")
        if o["kind"] == "Event":
            o["message"] = o["message"].replace("pod set decode", "pod set 5f2c9a1b")
    path = tmp_path / "hashed.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    data = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(path), "-o", "json"]).stdout)
    assert data["reasons"][0]["role"] == "decode"
    assert "5f2c9a1b" in data["reasons"][0]["kueueMessage"]
    assert "5f2c9a1b" not in data["reasons"][0]["message"]


def test_v1beta1_objects_are_read(cli: Any) -> None:
    text = (FIX / "local-queue-stopped.yaml").read_text()
    assert "kueue.x-k8s.io/v1beta1" in text and "kueue.x-k8s.io/v1beta2" not in text
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX / "admission-check-pending.yaml"), "-o", "yaml"])
    assert "code: AdmissionCheckPending" in r.stdout


def test_yaml_output_matches_json(cli: Any) -> None:
    import yaml

    args = ["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX / "quota-exhausted.yaml")]
    assert yaml.safe_load(cli([*args, "-o", "yaml"]).stdout) == json.loads(cli([*args, "-o", "json"]).stdout)
