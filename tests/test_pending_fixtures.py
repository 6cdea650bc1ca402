"""One realistic snapshot per reason code, diagnosed from file and through the loopback API server."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.apiserver import TOKEN, Forbid, load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
CQ = "gpustack--nvidia-h20-linux-amd64"
H20 = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
VIS_PATH = f"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/{CQ}/pendingworkloads"
GOLDEN = Path(__file__).parent / "golden" / "why-pending"


def normalised(text: str) -> str:
    """The text as the golden file keeps it: relative times (`in 10m`, `3d ago`) depend on today."""
    return re.sub(r"\b(?:in \d+[smhd]|\d+[smhd] ago)\b", "<when>", text)


def assert_golden(text: str, name: str) -> None:
    """The whole text output equals the golden file; PD_UPDATE_GOLDEN=1 rewrites it (review the diff)."""
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("PD_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(normalised(text))
    assert path.is_file(), f"no golden {path.name}: run with PD_UPDATE_GOLDEN=1 and review it"
    assert normalised(text) == path.read_text(), f"{name}: the text differs from {path} (PD_UPDATE_GOLDEN=1)"


# fixture -> (primary code, pending); the text it prints is tests/golden/why-pending/<fixture>.txt
CASES: dict[str, tuple[str, bool]] = {
    "not-pending": ("NotPending", False),
    "pod-group-incomplete": ("PodGroupIncomplete", True),
    "pod-group-invalid": ("PodGroupInvalid", True),
    "workload-missing": ("WorkloadMissing", True),
    "local-queue-missing": ("LocalQueueMissing", True),
    "local-queue-stopped": ("LocalQueueStopped", True),
    "cluster-queue-missing": ("ClusterQueueMissing", True),
    "cluster-queue-inactive": ("ClusterQueueInactive", True),
    "cluster-queue-stopped": ("ClusterQueueStopped", True),
    "namespace-not-allowed": ("NamespaceNotAllowed", True),
    "resource-not-covered": ("ResourceNotCovered", True),
    "quota-exceeds-capacity": ("QuotaExceedsCapacity", True),
    "quota-exhausted": ("QuotaExhausted", True),
    "needs-preemption": ("NeedsPreemption", True),
    "quota-unknown": ("QuotaUnknown", True),
    "pods-gated": ("PodsGated", True),
    "pods-unschedulable": ("PodsUnschedulable", True),
    "no-matching-flavor": ("NoMatchingFlavor", True),
    "preemption-in-progress": ("PreemptionInProgress", True),
    "waiting-in-queue": ("WaitingInQueue", True),
    "admission-check-pending": ("AdmissionCheckPending", True),
    "admission-check-rejected": ("AdmissionCheckRejected", True),
    "deactivated": ("Deactivated", True),
    "evicted": ("Evicted", True),
    "waiting-for-pods-ready": ("WaitingForPodsReady", True),
    "invalid-resources": ("InvalidResources", True),
    "unknown": ("Unknown", True),
    "admission-check-retry-loop": ("AdmissionCheckRetryLoop", True),
    "topology-unsatisfied": ("TopologyUnsatisfied", True),
    "preempted": ("Preempted", True),
    "per-replica-joint": ("QuotaExhausted", True),
    # GPUStack's QuotaReserved verdict over the whole set (tests/fixtures/gpustack-v1/generate.py writes them)
    "preempted-in-part": ("PreemptedInPart", True),
    "parked": ("Parked", True),
    "no-queue-in-reserved-namespace": ("NoQueueInReservedNamespace", True),
    "all-replicas-terminating": ("AllReplicasTerminating", True),
    "weights-not-ready": ("WeightsNotReady", True),  # issue 40: the operator holds every Pod back on its weights
    "replicas-not-created": ("ReplicasNotCreated", True),
    "misconfigured": ("Misconfigured", True),
    "queue-suspended": ("QueueSuspended", True),
    "admission-gated": ("AdmissionGated", True),
    "on-hold": ("OnHold", True),
    "dra-resources-unresolved": ("DRAResourcesUnresolved", True),
    "pods-unscheduled-timeout": ("PodsUnscheduledTimeout", True),
    "partly-admitted": ("PartlyAdmitted", True),  # a DisaggregatedSet (issue 47): its TARGETS entry
    "multikueue-no-worker-fits": ("MultiKueueNoWorkerFits", True),  # a manager's snapshot with its workers' objects
}
# a fixture of what a PD framework makes: the target (its form, its kind); every other one is md/qwen-pd
TARGETS = {"partly-admitted": ("ds/qwen-pd", "DisaggregatedSet")}


def target_of(name: str) -> tuple[str, str]:
    """The fixture's target: its form (what a user types) and its kind (Target's)."""
    return TARGETS.get(name, ("md/qwen-pd", "ModelDeployment"))


def server_groups(name: str) -> dict[str, Any]:
    """The loopback server's keyword for a fixture of a PD framework: the API groups it serves."""
    from tests.frameworks import groups

    return {"groups": groups()} if name in TARGETS else {}


def by_cluster(name: str) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """A fixture's objects as live clusters hold them: the manager's, and each MultiKueue worker's (a snapshot marks
    them with kubectl-pd.io/multikueue-cluster: the mark is the snapshot's, not the worker's own)."""
    from kubectl_pd.multikueue.snapshots import CLUSTER

    manager: list[dict[str, Any]] = []
    workers: dict[str, list[dict[str, Any]]] = {}
    for o in load_objects(FIX / f"{name}.yaml"):
        ann = o["metadata"].get("annotations") or {}
        cluster = ann.pop(CLUSTER, None)
        (workers.setdefault(cluster, []) if cluster else manager).append(o)
    return manager, workers


def worker_flags(name: str) -> list[str]:
    """What a live run of a fixture with MultiKueue workers adds: read each worker by the context named like it."""
    return ["--worker-contexts-by-name"] if by_cluster(name)[1] else []


def serve(apiserver: Any, name: str, **kw: Any) -> tuple[Any, dict[str, str]]:
    """The fixture on loopback servers: the manager's objects on one (KW: its options), each MultiKueue worker's on
    its own, one kubeconfig with a context per worker named like it; (the manager's server, the env)."""
    manager, workers = by_cluster(name)
    server, env = apiserver(manager, **server_groups(name), **kw)
    if not workers:
        return server, env
    from tests.test_multikueue_live import kubeconfig

    return server, kubeconfig(Path(env["KUBECONFIG"]).parent, server,
                              {c: apiserver(objs)[0] for c, objs in workers.items()})


def test_every_code_has_a_fixture() -> None:
    from kubectl_pd.pending.diagnose import CODES

    assert {c for c, _ in CASES.values()} == set(CODES)
    assert {p.stem for p in FIX.glob("*.yaml")} == set(CASES)
    assert {p.stem for p in GOLDEN.glob("*.txt")} == set(CASES)  # no golden left without its fixture


@pytest.mark.parametrize("name", sorted(CASES))
def test_from_file(cli: Any, name: str) -> None:
    code, pending = CASES[name]
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "--from-file", str(FIX / f"{name}.yaml")])
    assert r.exit_code == 0, r.stderr
    assert_golden(r.stdout, name)
    form, kind = TARGETS.get(name, ("md/qwen-pd", "ModelDeployment"))
    j = cli(["why-pending", form, "-n", "team-a", "-f", str(FIX / f"{name}.yaml"), "-o", "json"])
    data = json.loads(j.stdout)
    assert data["pending"] is pending
    assert data["reasons"][0]["code"] == code
    assert data["target"] == {"kind": kind, "name": "qwen-pd", "namespace": "team-a"}
    assert {r["name"] for r in data["roles"]} == {"prefill", "decode"}
    for reason in data["reasons"]:
        assert set(reason) == {"code", "role", "workload", "message", "kueueMessage", "resource", "flavor",
                               "requested", "available", "needed", "params"}
    assert set(data["queue"]) - {"ahead"} == {"localQueue", "clusterQueue", "position", "positionInLocalQueue",
                                               "visibility", "pendingInClusterQueue"}
    assert data["queue"]["visibility"] in ("listed", "not-listed", "not-served", "not-read")


@pytest.mark.parametrize("name", sorted(CASES))
def test_through_the_api_server(cli: Any, apiserver: Any, name: str) -> None:
    code, pending = CASES[name]
    raw = {}
    if name == "waiting-in-queue":
        raw[VIS_PATH] = json.loads((FIX / "waiting-in-queue-visibility.json").read_text())
    # live, the list of ClusterQueues is the cohort: unknown only when RBAC refuses it
    forbid = [Forbid("list", "clusterqueues")] if name == "quota-unknown" else []
    server, env = serve(apiserver, name, raw=raw, forbid=forbid)
    r = cli(["why-pending", TARGETS[name][0] if name in TARGETS else "qwen-pd", "-n", "team-a", "-o", "json",
             *worker_flags(name)], env=env)
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["reasons"][0]["code"] == code
    assert data["pending"] is pending
    assert set(server.methods) == {"GET"}
    # 14 before the first round of pending/plan.py sent the bounded cluster-scoped sets together (issue 49 lets the
    # count grow by them); with the frameworks' reads, a per-replica deployment makes 15
    assert len(server.requests) <= 15, [x.path for x in server.requests]
    # lists Workloads only one ClusterQueue at a time, by field selector (h19: preemption candidates)
    assert all(x.query.get("fieldSelector", "").startswith("status.admission.clusterQueue=")
               or x.query.get("labelSelector", "").startswith("kueue.x-k8s.io/job-uid=")  # a framework's, by owner
               for x in server.requests if x.path.endswith("/workloads")), "never lists every Workload"
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
    hashed = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(path), "-o", "json"]).stdout)
    plain = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX / "quota-exhausted.yaml"),
                            "-o", "json"]).stdout)
    got, want = hashed["reasons"][0], plain["reasons"][0]
    assert (got["code"], got["role"]) == ("QuotaExhausted", "decode")
    # the same diagnosis, role named; only Kueue's own words keep its pod set's hashed name
    assert {k: v for k, v in got.items() if k != "kueueMessage"} == {k: v for k, v in want.items()
                                                                     if k != "kueueMessage"}
    assert got["kueueMessage"] == want["kueueMessage"].replace("pod set decode", "pod set 5f2c9a1b")


def test_v1beta1_objects_are_read(cli: Any) -> None:
    import yaml

    for name in ("local-queue-stopped", "admission-check-pending"):
        kueue = {o["apiVersion"] for o in load_objects(FIX / f"{name}.yaml") if o["apiVersion"].startswith("kueue.")}
        assert kueue == {"kueue.x-k8s.io/v1beta1"}, name  # only the old API version
        r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX / f"{name}.yaml"), "-o", "yaml"])
        assert yaml.safe_load(r.stdout)["reasons"][0]["code"] == CASES[name][0]


def test_yaml_output_matches_json(cli: Any) -> None:
    import yaml

    args = ["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX / "quota-exhausted.yaml")]
    assert yaml.safe_load(cli([*args, "-o", "yaml"]).stdout) == json.loads(cli([*args, "-o", "json"]).stdout)
