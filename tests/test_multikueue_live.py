"""MultiKueue through `why-pending` against several loopback API servers (tests/apiserver.py): a manager and
its workers, each its own server, one kubeconfig with a context per cluster. What real planes cannot stage on
demand: a worker lost past workerLostTimeout, an incremental dispatch round, a worker that never answers."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.apiserver import FakeApiServer
from tests.builders import cluster_queue, namespace, resource_flavor

KV = "kueue.x-k8s.io/v1beta2"
NS = "team-a"
GPU = "nvidia.com/gpu"
Obj = dict[str, Any]


def _conds(**kinds: tuple[str, str, str]) -> list[Obj]:
    return [{"type": t, "status": s, "reason": r, "message": m, "lastTransitionTime": "2026-12-03T12:00:00Z"}
            for t, (s, r, m) in kinds.items()]


def _pods(gated: bool = True) -> list[Obj]:
    out = []
    for role in ("prefill", "decode"):
        spec: Obj = {"containers": [{"name": role, "image": "e:1", "resources": {
            "requests": {GPU: "4"}, "limits": {GPU: "4"}}}]}
        if gated:
            spec["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
        out.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"g-{role}", "namespace": NS, "uid": f"uid-{role}",
            "labels": {"kueue.x-k8s.io/queue-name": "lq", "kueue.x-k8s.io/pod-group-name": "g"},
            "annotations": {"kueue.x-k8s.io/pod-group-total-count": "2"}},
            "spec": spec, "status": {"phase": "Pending"}})
    return out


def _workload(status: Obj, labels: dict[str, str] | None = None) -> Obj:
    return {"apiVersion": KV, "kind": "Workload", "metadata": {
        "name": "g", "namespace": NS, "labels": labels or {}, "creationTimestamp": "2026-12-03T11:00:00Z",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "g-prefill", "uid": "uid-prefill"}]},
        "spec": {"queueName": "lq", "podSets": [{"name": "ps", "count": 2, "template": {"spec": {"containers": [
            {"name": "c", "image": "e:1", "resources": {"requests": {GPU: "4"}}}]}}}]},
        "status": status}


def _queues(quota: str, checks: list[str] | None = None) -> list[Obj]:
    cq = cluster_queue("cq", {"h100": quota}, resource=GPU, active=True)
    if checks:
        cq["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in checks]}
    lq = {"apiVersion": KV, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": NS},
          "spec": {"clusterQueue": "cq"}}
    return [namespace(NS), resource_flavor("h100"), cq, lq]


def manager_objects(*, workers: list[str], nominated: list[str] | None = None, check: tuple[str, str] = (
        "Pending", ""), cluster: str | None = None, down: dict[str, str] | None = None,
        dispatcher: str | None = None) -> list[Obj]:
    status: Obj = {"conditions": _conds(QuotaReserved=("True", "QuotaReserved", "Quota reserved in ClusterQueue cq")),
                   "admission": {"clusterQueue": "cq", "podSetAssignments": [
                       {"name": "ps", "count": 2, "flavors": {GPU: "h100"}, "resourceUsage": {GPU: "8"}}]},
                   "admissionChecks": [{"name": "multikueue", "state": check[0], "message": check[1],
                                        "lastTransitionTime": "2026-12-03T12:00:00Z"}]}
    if nominated:
        status["nominatedClusterNames"] = nominated
    if cluster:
        status["clusterName"] = cluster
        if check[0] == "Ready":
            status["conditions"] += _conds(Admitted=("True", "Admitted", "The workload is admitted"))
    objs = [*_queues("100", ["multikueue"]), _workload(status), *_pods(),
            {"apiVersion": KV, "kind": "AdmissionCheck", "metadata": {"name": "multikueue"},
             "spec": {"controllerName": "kueue.x-k8s.io/multikueue", "parameters": {
                 "apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": "multikueue"}},
             "status": {"conditions": _conds(Active=("True", "Active", "The admission check is active"))}},
            {"apiVersion": KV, "kind": "MultiKueueConfig", "metadata": {"name": "multikueue"},
             "spec": {"clusters": workers}}]
    for w in workers:
        reason = (down or {}).get(w)
        objs.append({"apiVersion": KV, "kind": "MultiKueueCluster", "metadata": {"name": w},
                     "status": {"conditions": _conds(Active=("False", reason, "dial tcp: connection refused")
                                                     if reason else ("True", "Active", "Connected"))}})
    if dispatcher:
        objs.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "kueue-manager-config", "namespace": "kueue-system"}, "data": {
            "controller_manager_config.yaml": yaml.safe_dump({
                "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                "multiKueue": {"dispatcherName": dispatcher, "workerLostTimeout": "10m"}})}})
    return objs


def worker_objects(quota: str, *, admitted: bool = False, origin: str = "multikueue") -> list[Obj]:
    if admitted:
        status: Obj = {"conditions": _conds(QuotaReserved=("True", "QuotaReserved", "Quota reserved"),
                                            Admitted=("True", "Admitted", "The workload is admitted")),
                       "admission": {"clusterQueue": "cq", "podSetAssignments": [
                           {"name": "ps", "count": 2, "flavors": {GPU: "h100"}, "resourceUsage": {GPU: "8"}}]}}
    else:
        status = {"conditions": _conds(QuotaReserved=(
            "False", "Pending", "couldn't assign flavors to pod set ps: insufficient quota for nvidia.com/gpu in "
            f"flavor h100, previously considered podsets requests (0) + current podset request (8) > maximum "
            f"capacity ({quota})"))}
    return [*_queues(quota), _workload(status, {"kueue.x-k8s.io/multikueue-origin": origin})]


_HELD: list[socket.socket] = []  # bound, never listening, kept for the session: nobody else can take the port


def refused_url() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    _HELD.append(s)
    return f"https://127.0.0.1:{s.getsockname()[1]}"  # no listener: connecting is refused


def kubeconfig(tmp_path: Path, manager: FakeApiServer, workers: dict[str, FakeApiServer | str]) -> dict[str, str]:
    """One kubeconfig: `admin` for the manager, a context per worker (a closed port for a str)."""
    docs = [yaml.safe_load(manager.write_kubeconfig(tmp_path / "m.yaml", context="admin").read_text())]
    for name, w in workers.items():
        if isinstance(w, str):
            docs.append({"clusters": [{"name": name, "cluster": {"server": w}}],
                         "users": [{"name": name, "user": {"token": "t"}}],
                         "contexts": [{"name": name, "context": {"cluster": name, "user": name}}]})
            continue
        d = yaml.safe_load(w.write_kubeconfig(tmp_path / f"{name}.yaml", context=name).read_text())
        d["clusters"][0]["name"] = d["contexts"][0]["context"]["cluster"] = name
        d["users"][0]["name"] = d["contexts"][0]["context"]["user"] = name
        docs.append(d)
    merged: Obj = {"apiVersion": "v1", "kind": "Config", "current-context": "admin",
                   "clusters": [c for d in docs for c in d["clusters"]], "users": [u for d in docs for u in d["users"]],
                   "contexts": [c for d in docs for c in d["contexts"]]}
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(merged))
    return {"KUBECONFIG": str(path), "NO_COLOR": "1"}


Start = Callable[..., tuple[FakeApiServer, dict[str, str]]]


def _why(cli: Callable[..., Any], env: dict[str, str], *more: str) -> tuple[Any, Obj]:
    """With the user's opt-in: each worker through the context named like it (tests/test_worker_contexts.py holds
    what is read without it)."""
    r = cli(["why-pending", "g", "-n", NS, "-o", "json", "--worker-contexts-by-name", *more], env=env)
    return r, json.loads(r.stdout) if r.stdout.strip() else {}


def _w(doc: Obj) -> dict[str, Obj]:
    return {w["cluster"]: w for w in doc["multikueue"]["workers"]}


def _codes(items: list[Obj]) -> list[str]:
    return [r["code"] for r in items]


def test_one_worker_unreachable_the_other_diagnosed(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    w1, _ = apiserver(worker_objects("2"))
    env = kubeconfig(tmp_path, manager, {"worker-1": w1, "worker-2": refused_url()})
    r, doc = _why(cli, env)
    assert r.exit_code == 1
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("error: ")] == [
        ln for ln in r.stderr.splitlines() if ln.startswith("error: worker-2: ")] != []
    mk = doc["multikueue"]
    assert (mk["admissionCheck"], mk["state"]) == ("multikueue", "Dispatched")
    assert mk["nominated"] == ["worker-1", "worker-2"]
    assert (_w(doc)["worker-2"]["read"], _w(doc)["worker-2"]["pending"]) == ("unreachable", None)
    assert _codes(_w(doc)["worker-2"]["reasons"]) == ["MultiKueueWorkerUnreachable"]
    assert (_w(doc)["worker-1"]["read"], _w(doc)["worker-1"]["pending"]) == ("read", True)
    assert "QuotaExceedsCapacity" in _codes(_w(doc)["worker-1"]["reasons"])
    assert "PodsGated" not in _codes(doc["reasons"])  # the manager's gated Pods are MultiKueue's normal state
    # the worker was asked for its copy, and Kueue's kubeconfig Secrets were never read
    assert w1.count("/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/g") >= 1
    assert manager.count("/api/v1/namespaces/kueue-system/secrets*") == 0
    assert manager.count("/apis/kueue.x-k8s.io/*/multikueueclusters") == 1


def test_worker_context_mapping_and_no_context(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    w1, _ = apiserver(worker_objects("16"))
    env = kubeconfig(tmp_path, manager, {"east": w1})
    r, doc = _why(cli, env, "--worker-context", "worker-1=east")
    assert r.exit_code == 0, r.stderr
    assert (_w(doc)["worker-1"]["context"], _w(doc)["worker-1"]["read"]) == ("east", "read")
    assert (_w(doc)["worker-2"]["context"], _w(doc)["worker-2"]["read"]) == (None, "no-context")
    assert _codes(_w(doc)["worker-2"]["reasons"]) == ["MultiKueueWorkerNotRead"]
    text = cli(["why-pending", "g", "-n", NS, "--worker-context", "worker-1=east"], env=env)
    assert text.exit_code == 0 and "worker-2" in text.stdout and "not read" in text.stdout


@pytest.mark.parametrize("bad", ["worker-1", "=ctx", "worker-1=", "worker-1=a --worker-context worker-1=b"])
def test_worker_context_usage(apiserver: Start, cli: Callable[..., Any], bad: str) -> None:
    _, env = apiserver(manager_objects(workers=["worker-1"]))
    args = [a for part in bad.split(" --worker-context ") for a in ("--worker-context", part)]
    r = cli(["why-pending", "g", "-n", NS, *args], env=env)
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.startswith("error: ")


def test_lost_worker_past_the_timeout(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], check=("Retry", "Admitting remote lost"),
                                           down={"worker-2": "ClientConnectionFailed"}))
    env = kubeconfig(tmp_path, manager, {})
    r, doc = _why(cli, env)
    assert r.exit_code == 0, r.stderr
    mk = doc["multikueue"]
    assert mk["state"] == "Retry" and _codes(mk["reasons"]) == ["MultiKueueWorkerLost"]
    assert mk["reasons"][0]["params"]["passed"] is True and mk["reasons"][0]["params"]["timeoutSeconds"] == 900
    assert _codes(_w(doc)["worker-2"]["reasons"]) == ["MultiKueueWorkerNotConnected"]


def test_admitted_worker_lost_within_the_timeout(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], check=(
        "Ready", 'The workload was admitted on "worker-2"'), cluster="worker-2",
        down={"worker-2": "ClientConnectionFailed"}, dispatcher="kueue.x-k8s.io/multikueue-dispatcher-all-at-once"))
    env = kubeconfig(tmp_path, manager, {"worker-2": refused_url()})
    r, doc = _why(cli, env)
    mk = doc["multikueue"]
    assert (mk["state"], mk["dispatchedTo"]) == ("Admitted", "worker-2")
    lost = mk["reasons"][0]
    assert (lost["code"], lost["params"]["passed"], lost["params"]["timeoutSeconds"]) == (
        "MultiKueueWorkerLost", False, 600)  # the ConfigMap's workerLostTimeout
    assert r.exit_code == 1 and _w(doc)["worker-2"]["read"] == "unreachable"


def test_incremental_dispatch_round(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    names = ["w1", "w2", "w3", "w4", "w5"]
    manager, _ = apiserver(manager_objects(workers=names, nominated=names[:3],
                                           dispatcher="kueue.x-k8s.io/multikueue-dispatcher-incremental"))
    servers = {n: apiserver(worker_objects("4"))[0] for n in names}
    env = kubeconfig(tmp_path, manager, servers)  # type: ignore[arg-type]
    r, doc = _why(cli, env)
    assert r.exit_code == 0, r.stderr
    mk = doc["multikueue"]
    assert mk["state"] == "DispatchRound" and _codes(mk["reasons"]) == ["MultiKueueDispatchRound"]
    assert mk["reasons"][0]["params"]["next"] == ["w4", "w5"]
    assert [w["read"] for w in mk["workers"]] == ["read", "read", "read", "not-nominated", "not-nominated"]
    for n in names[3:]:  # a worker not nominated is not read
        assert servers[n].count("/apis/*") == 0


def test_copy_missing_and_foreign(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    empty, _ = apiserver(_queues("16"))
    foreign, _ = apiserver(worker_objects("16", origin="another-manager"))
    env = kubeconfig(tmp_path, manager, {"worker-1": empty, "worker-2": foreign})
    r, doc = _why(cli, env)
    assert r.exit_code == 0, r.stderr
    assert _codes(_w(doc)["worker-1"]["reasons"]) == ["MultiKueueWorkerCopyMissing"]
    assert _codes(_w(doc)["worker-2"]["reasons"])[0] == "MultiKueueWorkerCopyForeign"


def test_no_admission_check_no_multikueue_reads(apiserver: Start, cli: Callable[..., Any]) -> None:
    objs = [o for o in manager_objects(workers=["worker-1"]) if o["kind"] != "Workload"]
    wl = _workload({"conditions": _conds(QuotaReserved=("False", "Pending", "insufficient quota"))})
    server, env = apiserver([*objs, wl])
    r = cli(["why-pending", "g", "-n", NS, "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    assert "multikueue" not in json.loads(r.stdout)
    assert server.count("/apis/kueue.x-k8s.io/*/multikueue*") == 0


def test_a_snapshot_of_the_manager_reads_no_worker(apiserver: Start, cli: Callable[..., Any],
                                                   tmp_path: Path) -> None:
    snap = tmp_path / "manager.yaml"
    snap.write_text(yaml.safe_dump_all(manager_objects(workers=["worker-1"], nominated=["worker-1"])))
    r = cli(["why-pending", "g", "-n", NS, "-o", "json", "-f", str(snap)])
    doc = json.loads(r.stdout)
    assert r.exit_code == 0, r.stderr
    assert _w(doc)["worker-1"]["read"] == "no-context"


def test_mcp_why_pending_takes_the_servers_worker_mapping() -> None:
    from kubectl_pd.agent import tools

    tool = next(t for t in tools.TOOLS if t.name == "pd_why_pending")
    args = {"target": "podgroup/g", "namespace": NS}
    guard = tools.Guard(workers=("--worker-context=worker-1=east", "--worker-context=worker-2=west"))
    argv, _ = tool.argv(args, guard)
    assert "--worker-context=worker-1=east" in argv and "--worker-context=worker-2=west" in argv
    assert argv[-2:] == ["--", "podgroup/g"]
    with pytest.raises(tools.ToolError):  # no argument names a context
        tools.validate(tool, {**args, "workerContexts": {"worker-1": "prod"}})


def test_admission_checks_refused_the_manager_answer_stands(apiserver: Start, cli: Callable[..., Any],
                                                            tmp_path: Path) -> None:
    from tests.apiserver import Forbid

    manager, _ = apiserver(manager_objects(workers=["worker-1"], nominated=["worker-1"]),
                           forbid=[Forbid("list", "admissionchecks")])
    r, doc = _why(cli, kubeconfig(tmp_path, manager, {}))
    assert r.exit_code == 0 and "multikueue" not in doc and doc["reasons"]
    assert [ln.split(":")[0] for ln in r.stderr.splitlines()] == ["note"]


def test_multikueue_clusters_refused_the_part_is_unknown(apiserver: Start, cli: Callable[..., Any],
                                                         tmp_path: Path) -> None:
    from tests.apiserver import Forbid

    manager, _ = apiserver(manager_objects(workers=["worker-1"], nominated=["worker-1"]),
                           forbid=[Forbid("list", "multikueueclusters")])
    r, doc = _why(cli, kubeconfig(tmp_path, manager, {}))
    assert r.exit_code == 1 and "multikueue" not in doc and doc["reasons"]
    assert r.stderr.startswith("error: MultiKueue: ") and "MultiKueueCluster" in r.stderr


def test_snapshot_collects_every_cluster_and_replays(apiserver: Start, cli: Callable[..., Any],
                                                     tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    w1, _ = apiserver(worker_objects("2"))
    w2, _ = apiserver(worker_objects("16"))
    env = kubeconfig(tmp_path, manager, {"worker-1": w1, "worker-2": w2})
    live, live_doc = _why(cli, env)
    assert live.exit_code == 0, live.stderr
    out = tmp_path / "snap.yaml"
    made = cli(["snapshot", "podgroup/g", "-n", NS, "-o", str(out), "--worker-context", "worker-1=worker-1",
                "--worker-context", "worker-2=worker-2"], env=env)
    assert made.exit_code == 0, made.stderr
    docs = [d for d in yaml.safe_load_all(out.read_text()) if d]
    assert docs[0]["workers"] == [{"cluster": "worker-1", "context": "worker-1"},  # which context read which worker
                                  {"cluster": "worker-2", "context": "worker-2"}]
    marked = {(d["kind"], (d["metadata"].get("annotations") or {}).get("kubectl-pd.io/multikueue-cluster"))
              for d in docs if d.get("kind") == "Workload"}
    assert marked == {("Workload", None), ("Workload", "worker-1"), ("Workload", "worker-2")}
    replay = cli(["why-pending", "podgroup/g", "-n", NS, "-o", "json", "-f", str(out)],
                 env={"KUBECONFIG": "/nonexistent"})
    assert replay.exit_code == 0, replay.stderr
    doc = json.loads(replay.stdout)
    assert doc["reasons"] == live_doc["reasons"] and doc["multikueue"]["state"] == live_doc["multikueue"]["state"]
    for name in ("worker-1", "worker-2"):
        got, was = _w(doc)[name], _w(live_doc)[name]
        assert (got["read"], got["pending"], _codes(got["reasons"])) == (was["read"], was["pending"],
                                                                          _codes(was["reasons"]))


def test_worker_refuses_the_copy_exit_1(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    from tests.apiserver import Forbid

    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    w1, _ = apiserver(worker_objects("2"), forbid=[Forbid("get", "workloads")])
    w2, _ = apiserver(worker_objects("16"))
    r, doc = _why(cli, kubeconfig(tmp_path, manager, {"worker-1": w1, "worker-2": w2}))
    assert r.exit_code == 1 and r.stderr.startswith("error: worker-1: ")
    assert (_w(doc)["worker-1"]["read"], _codes(_w(doc)["worker-1"]["reasons"])) == (
        "forbidden", ["MultiKueueWorkerForbidden"])
    assert _w(doc)["worker-2"]["read"] == "read" and _w(doc)["worker-2"]["pending"] is True


def test_admitted_on_a_worker_the_managers_gated_pods_are_no_fault(apiserver: Start, cli: Callable[..., Any],
                                                                   tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], cluster="worker-2", check=(
        "Ready", 'The workload was admitted on "worker-2"')))
    w2, _ = apiserver(worker_objects("16", admitted=True))
    env = kubeconfig(tmp_path, manager, {"worker-2": w2})
    r, doc = _why(cli, env)
    read_on_w2 = w2.count()
    assert r.exit_code == 0, r.stderr
    assert doc["pending"] is False and _codes(doc["reasons"]) == ["NotPending"] and doc["next"] == []
    assert (doc["multikueue"]["state"], _w(doc)["worker-2"]["pending"]) == ("Admitted", False)
    # the list says the same: it runs on worker-2, so the manager lists nothing pending (no worker is read)
    listed = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert listed.exit_code == 0 and json.loads(listed.stdout)["items"] == [], listed.stdout
    assert w2.count() == read_on_w2


@pytest.mark.parametrize(("gates", "held"), [(["kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology"], False),
                                              (["example.com/mine"], True),
                                              (["kueue.x-k8s.io/admission", "example.com/mine"], True)])
def test_admitted_on_a_worker_only_kueues_gates_are_normal(
        apiserver: Start, cli: Callable[..., Any], tmp_path: Path, gates: list[str], held: bool) -> None:
    """Only Kueue's own gates (admission, topology: what a real manager's Pods carry) are MultiKueue's normal state
    on the manager: a gate of anyone else's is still a fault, named on the TARGET and in the list."""
    objs = manager_objects(workers=["worker-2"], cluster="worker-2", check=(
        "Ready", 'The workload was admitted on "worker-2"'))
    for o in objs:
        if o["kind"] == "Pod":
            o["spec"]["schedulingGates"] = [{"name": g} for g in gates]
    manager, _ = apiserver(objs)
    env = kubeconfig(tmp_path, manager, {})
    r, doc = _why(cli, env)
    assert doc["pending"] is held and ("PodsGated" in _codes(doc["reasons"])) is held, doc["reasons"]
    listed = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert [_codes(i["reasons"]) for i in json.loads(listed.stdout)["items"]] == ([["PodsGated"]] if held else [])


def _preempting_worker(low_priority: int) -> list[Obj]:
    """A worker whose queue (8 GPUs, LowerPriority within the queue) is full with one admitted Workload `low`:
    the copy (priority 0) fits there only by preempting it when `low` has the lower priority."""
    objs = worker_objects("8")
    cq = next(o for o in objs if o["kind"] == "ClusterQueue")
    cq["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority"}
    cq["status"]["flavorsReservation"] = [{"name": "h100", "resources": [{"name": GPU, "total": "8"}]}]
    copy = next(o for o in objs if o["kind"] == "Workload")
    copy["status"]["conditions"] = _conds(QuotaReserved=(
        "False", "Pending", "couldn't assign flavors to pod set ps: insufficient unused quota for nvidia.com/gpu "
                            "in flavor h100, 8 more needed"))
    low = _workload({"conditions": _conds(QuotaReserved=("True", "QuotaReserved", "Quota reserved"),
                                          Admitted=("True", "Admitted", "The workload is admitted")),
                     "admission": {"clusterQueue": "cq", "podSetAssignments": [
                         {"name": "ps", "count": 2, "flavors": {GPU: "h100"}, "resourceUsage": {GPU: "8"}}]}})
    low["metadata"].update(name="low", uid="uid-low", ownerReferences=[])
    low["spec"]["priority"] = low_priority
    return [*objs, low]


@pytest.mark.parametrize(("low_priority", "targets"), [(-5, ["low"]), (5, [])])
def test_a_workers_own_preemption_answer(apiserver: Start, cli: Callable[..., Any], tmp_path: Path,
                                         low_priority: int, targets: list[str]) -> None:
    """Each worker copy is judged with that worker's own preemption part: whom admitting it there would preempt
    (its own queue policies and admitted Workloads), in `workers[].preemption`, and it survives a snapshot."""
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    w1, _ = apiserver(_preempting_worker(low_priority))
    w2, _ = apiserver(worker_objects("2"))
    env = kubeconfig(tmp_path, manager, {"worker-1": w1, "worker-2": w2})
    r, doc = _why(cli, env)
    assert r.exit_code == 0, r.stderr
    from kubectl_pd.agent import schemas

    jsonschema.validate(doc, schemas.why_pending())
    one = _w(doc)["worker-1"]
    assert one["pending"] is True
    assert [t["name"] for t in one["preemption"]["targets"]] == targets
    assert [t["namespace"] for t in one["preemption"]["targets"]] == [NS] * len(targets)
    assert [h["name"] for h in one["holders"]] == ["low"]  # as the text block names it: who holds the quota
    assert _w(doc)["worker-2"]["preemption"] is None  # it can never hold the copy: nothing to preempt for
    assert doc["preemption"] is None  # the manager's own answer: its quota is reserved
    # the worker's own Kueue configuration was asked for, on the worker only
    assert w1.count("/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config") == 1
    text = cli(["why-pending", "g", "-n", NS, "--worker-contexts-by-name"], env=env)
    assert text.exit_code == 0 and f"{NS}/low" in text.stdout  # a target to preempt, or the quota's holder
    out = tmp_path / "snap.yaml"
    assert cli(["snapshot", "podgroup/g", "-n", NS, "-o", str(out), "--worker-contexts-by-name"],
               env=env).exit_code == 0
    replay = cli(["why-pending", "podgroup/g", "-n", NS, "-o", "json", "-f", str(out)],
                 env={"KUBECONFIG": "/nonexistent"})
    assert replay.exit_code == 0, replay.stderr
    assert _w(json.loads(replay.stdout))["worker-1"]["preemption"] == one["preemption"]
