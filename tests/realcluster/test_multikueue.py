"""Issue 39 on real planes: a MultiKueue manager and two workers of one Kueue line (scripts/real-cluster up
--multikueue-workers 2), each its own etcd, kube-apiserver, kube-scheduler, kwok nodes and Kueue, once per line of
PD_REAL_CLUSTER_KUEUE (0.18.4 and 0.19.2: the same v1beta2 wiring). On the older line CI runs 2 of the 6
(conftest.MK_SAMPLED); PD_MULTIKUEUE_ALL=1 runs all. Every claim of `why-pending -o json`'s `multikueue` block is
held against what Kueue wrote on the manager and on the workers. Each line's planes are shared by its tests; its
last test stops worker-1's API server."""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any

import pytest

from tests.realcluster import objs
from tests.realcluster.plane import MultiKueuePlanes, condition, is_true, wait_for

pytestmark = pytest.mark.cluster

CHECK = "multikueue"  # what scripts/real-cluster makes on the manager


def _setup(p: MultiKueuePlanes, prefix: str, manager_gpus: str, worker_gpus: dict[str, str],
           more_checks: tuple[str, ...] = (), preemption: dict[str, Any] | None = None) -> tuple[str, str]:
    """A namespace, flavor and LocalQueue `lq` of the same names on every plane; the manager's ClusterQueue
    holds the MultiKueue check (and MORE_CHECKS); each worker's its own quota (and PREEMPTION policies)."""
    ns = p.namespace(prefix)
    cq = p.unique(f"{prefix}-cq")
    nsobj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
    p.apply(objs.flavor("h100"), objs.cluster_queue(cq, [("h100", [objs.quota(objs.GPU, manager_gpus)])],
                                                     checks=[CHECK, *more_checks]), objs.local_queue(ns, "lq", cq))
    for w, gpus in worker_gpus.items():
        p.on(w).apply(nsobj, objs.flavor("h100"), objs.cluster_queue(cq, [("h100", [objs.quota(objs.GPU, gpus)])],
                                                                     preemption=preemption),
                      objs.local_queue(ns, "lq", cq))
    wait_for("the manager's ClusterQueue active", lambda: is_true(p.get("clusterqueue", cq), "Active"))
    return ns, cq


def _group(p: MultiKueuePlanes, ns: str, name: str, gpus: str) -> None:
    p.apply(*[objs.group_pod(ns, f"{name}-{r}", name, 2, "lq", r, {objs.GPU: gpus}) for r in ("prefill", "decode")])


def _mapping(p: MultiKueuePlanes) -> list[str]:
    """Each worker through its own context, named explicitly (no context is read that the user did not name)."""
    return [f"--worker-context={w}={w}" for w in p.worker_names]


def _why(p: MultiKueuePlanes, name: str, ns: str, *more: str) -> tuple[int, dict[str, Any], str]:
    """why-pending with the explicit worker mapping (each worker through its own context: nothing is read through a
    context the user did not name)."""
    got = p.pd("why-pending", name, "-n", ns, "-o", "json", *_mapping(p), *more)
    return got.returncode, json.loads(got.stdout) if got.stdout.strip() else {}, got.stderr


def _workers(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["cluster"]: w for w in doc["multikueue"]["workers"]}


def _codes(w: dict[str, Any]) -> list[str]:
    return [r["code"] for r in w["reasons"]]


def _wl(p: MultiKueuePlanes, ctx: str, ns: str, name: str) -> dict[str, Any] | None:
    got = p.on(ctx).kubectl("get", "workload", name, "-n", ns, "-o", "json", check=False)
    return json.loads(got.stdout) if got.returncode == 0 else None


def test_one_worker_fits_it_is_dispatched_there_and_named(mk_planes: MultiKueuePlanes) -> None:
    p = mk_planes
    ns, _ = _setup(p, "mk-one", "100", {"worker-1": "2", "worker-2": "16"})
    _group(p, ns, "g", "4")
    wl = wait_for("admitted through worker-2", lambda: (w := _wl(p, "admin", ns, "g")) and
                  (w.get("status") or {}).get("clusterName") and w)
    assert wl["status"]["clusterName"] == "worker-2"
    rc, doc, err = _why(p, "g", ns)
    assert rc == 0, err
    mk = doc["multikueue"]
    assert (mk["admissionCheck"], mk["state"], mk["dispatchedTo"]) == (CHECK, "Admitted", "worker-2"), mk
    w2 = _workers(doc)["worker-2"]
    assert (w2["read"], w2["pending"], w2["context"]) == ("read", False, "worker-2"), w2
    copy = _wl(p, "worker-2", ns, "g")
    assert copy is not None and is_true(copy, "Admitted")
    assert copy["metadata"]["labels"]["kueue.x-k8s.io/multikueue-origin"] == "multikueue"
    assert "PodsGated" not in [r["code"] for r in doc["reasons"]] and doc["pending"] is False, doc["reasons"]
    # the manager's own Pods keep Kueue's gate (it runs on worker-2): the list does not call it pending either
    gates = {g["name"] for pod in p.get("pods", namespace=ns)["items"]
             for g in pod["spec"].get("schedulingGates") or []}
    assert gates <= {"kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology"}, gates
    items = json.loads(p.pd("why-pending", "-n", ns, "-o", "json").stdout)["items"]
    assert [i["target"]["name"] for i in items] == [], items


def test_no_worker_fits_each_says_never(mk_planes: MultiKueuePlanes) -> None:
    p = mk_planes
    ns, _ = _setup(p, "mk-none", "100", {"worker-1": "2", "worker-2": "16"})
    _group(p, ns, "big", "20")
    wait_for("copies on both workers", lambda: all(
        (c := _wl(p, w, ns, "big")) and condition(c, "QuotaReserved") for w in p.worker_names))
    rc, doc, err = _why(p, "big", ns)
    assert rc == 0, err
    mk = doc["multikueue"]
    assert mk["state"] == "Dispatched" and sorted(mk["nominated"]) == p.worker_names, mk
    assert [r["code"] for r in mk["reasons"]] == ["MultiKueueNoWorkerFits"], mk
    head = doc["reasons"][0]  # the manager's headline from the same record, not a wait on its check (issue 46)
    assert head["code"] == "MultiKueueNoWorkerFits" and sorted(head["params"]["clusters"]) == p.worker_names, doc
    assert "AdmissionCheckPending" not in [r["code"] for r in doc["reasons"]], doc
    for name, gpus in (("worker-1", 2), ("worker-2", 16)):
        w = _workers(doc)[name]
        assert w["read"] == "read" and w["pending"] is True and "QuotaExceedsCapacity" in _codes(w), w
        copy = _wl(p, name, ns, "big")
        assert copy is not None and condition(copy, "QuotaReserved")["status"] == "False"
        assert f"maximum capacity ({gpus})" in condition(copy, "QuotaReserved")["message"]
    text = p.pd("why-pending", "big", "-n", ns, *_mapping(p))
    assert text.returncode == 0 and "MultiKueueNoWorkerFits" in text.stdout and "worker-1" in text.stdout
    _listed_with_workers(p, ns, "podgroup/big", set(p.worker_names))


def _listed_with_workers(p: MultiKueuePlanes, ns: str, target: str, workers: set[str]) -> None:
    """-A and -o json: the WORKER column and the item's multikueue.workloads, from the manager's Workload alone."""
    listed = p.pd("why-pending", "-A")
    assert listed.returncode == 0, listed.stderr
    header = listed.stdout.splitlines()[0].split()
    row = next(ln.split() for ln in listed.stdout.splitlines()[1:] if ln.split()[:2] == [ns, target])
    assert header[3] == "WORKER" and set(row[header.index("WORKER")].split(",")) == workers, listed.stdout
    items = json.loads(p.pd("why-pending", "-n", ns, "-o", "json").stdout)["items"]
    mk = next(i["multikueue"] for i in items if f'podgroup/{i["target"]["name"]}' == target)
    assert {w for wl in mk["workloads"] for w in wl["nominated"]} == workers, mk


def test_behind_another_admission_check(mk_planes: MultiKueuePlanes) -> None:
    p = mk_planes
    gate = p.unique("gate")
    p.apply({"apiVersion": objs.KV, "kind": "AdmissionCheck", "metadata": {"name": gate},
             "spec": {"controllerName": "example.com/never"}})
    # no controller answers it: mark it Active by hand, as its controller would, so the queue is usable
    p.kubectl("patch", "admissioncheck", gate, "--subresource=status", "--type=merge", "-p", json.dumps(
        {"status": {"conditions": [{"type": "Active", "status": "True", "reason": "Active", "message": "by hand",
                                    "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}))
    ns, _ = _setup(p, "mk-gate", "100", {"worker-1": "16", "worker-2": "16"}, (gate,))
    _group(p, ns, "g", "1")
    wait_for("quota reserved on the manager", lambda: (w := _wl(p, "admin", ns, "g")) and is_true(w, "QuotaReserved"))
    rc, doc, err = _why(p, "g", ns)
    assert rc == 0, err
    mk = doc["multikueue"]
    assert mk["state"] == "WaitingForOtherChecks", mk
    assert mk["reasons"][0]["code"] == "MultiKueueWaitingForOtherChecks" and mk["reasons"][0]["params"]["checks"] == [
        gate], mk
    assert all(w["read"] == "not-nominated" for w in mk["workers"]), mk
    wl = _wl(p, "admin", ns, "g")
    assert wl is not None and not (wl.get("status") or {}).get("nominatedClusterNames")
    assert all(_wl(p, w, ns, "g") is None for w in p.worker_names)


def test_a_workers_own_preemption_part(mk_planes: MultiKueuePlanes) -> None:
    """worker-1's queue (8 GPUs, LowerPriority within it) is full with a Workload of a higher priority admitted
    there: the copy needs preemption on worker-1 and nothing there can be preempted; worker-2 can never hold it.
    Held against what worker-1's Kueue did: the copy waits on unused quota (not capacity) and `hold` stays
    admitted."""
    p = mk_planes
    ns, cq = _setup(p, "mk-preempt", "100", {"worker-1": "8", "worker-2": "2"},
                    preemption={"withinClusterQueue": "LowerPriority"})
    high = p.unique("mk-high")
    p.on("worker-1").apply(objs.priority_class(high, 1000),
                           objs.workload(ns, "hold", "lq", [("main", 2, {objs.GPU: "4"})], priority=(high, 1000)))
    wait_for("hold admitted on worker-1", lambda: (w := p.on("worker-1").get("workload", "hold", ns))
             and is_true(w, "QuotaReserved"))
    wait_for("hold counted in worker-1's ClusterQueue", lambda: [
        r["total"] for f in (p.on("worker-1").get("clusterqueue", cq).get("status") or {}).get("flavorsReservation")
        or [] for r in f["resources"]] == ["8"])
    _group(p, ns, "g", "4")
    wait_for("copies tried on both workers", lambda: all(
        (c := _wl(p, w, ns, "g")) and (q := condition(c, "QuotaReserved")) and q["status"] == "False"
        for w in p.worker_names))
    rc, doc, err = _why(p, "g", ns)
    assert rc == 0, err
    w1, w2 = _workers(doc)["worker-1"], _workers(doc)["worker-2"]
    assert (w1["read"], w1["pending"]) == ("read", True), w1
    # needed there, and nothing can be preempted under its policies
    assert w1["preemption"] == {"targets": []}, json.dumps(w1, indent=1)
    assert w2["preemption"] is None and "QuotaExceedsCapacity" in _codes(w2), w2
    copy = _wl(p, "worker-1", ns, "g")
    assert copy is not None and "maximum capacity" not in condition(copy, "QuotaReserved")["message"]
    assert is_true(p.on("worker-1").get("workload", "hold", ns), "Admitted")  # Kueue preempted nothing either


def test_manager_quota_short_is_an_ordinary_pending(mk_planes: MultiKueuePlanes) -> None:
    p = mk_planes
    ns, _ = _setup(p, "mk-short", "2", {"worker-1": "16", "worker-2": "16"})
    _group(p, ns, "g", "4")
    wait_for("Kueue tried it on the manager", lambda: (w := _wl(p, "admin", ns, "g")) and
             (c := condition(w, "QuotaReserved")) and c["status"] == "False")
    rc, doc, err = _why(p, "g", ns)
    assert rc == 0, err
    assert doc["reasons"][0]["code"] == "QuotaExceedsCapacity", doc["reasons"]
    mk = doc["multikueue"]
    assert mk["state"] == "QuotaPending" and [r["code"] for r in mk["reasons"]] == ["MultiKueueQuotaPending"], mk
    assert all(w["read"] == "not-nominated" for w in mk["workers"]), mk


def test_zz_a_worker_unreachable_the_other_diagnosed(mk_planes: MultiKueuePlanes) -> None:
    """Last: stops worker-1's kube-apiserver for good."""
    p = mk_planes
    ns, _ = _setup(p, "mk-down", "100", {"worker-1": "2", "worker-2": "4"})
    _group(p, ns, "g", "8")
    wait_for("copies on both workers", lambda: all(
        (c := _wl(p, w, ns, "g")) and condition(c, "QuotaReserved") for w in p.worker_names))
    pid = next(e["pid"] for e in p.worker_state("worker-1")["pids"] if e["name"] == "kube-apiserver")
    os.killpg(int(pid), signal.SIGKILL)
    t0 = time.monotonic()
    rc, doc, err = _why(p, "g", ns)  # at once: Kueue may not have noticed yet
    took = time.monotonic() - t0
    w1, w2 = _workers(doc)["worker-1"], _workers(doc)["worker-2"]
    assert w2["read"] == "read" and w2["pending"] is True and "QuotaExceedsCapacity" in _codes(w2), w2
    assert took < 30, took  # a refused connection is answered at once, not after a timeout
    if w1["read"] == "unreachable":  # our read of its copy failed: named, exit 1 as kubectl's errors
        assert rc == 1 and err.startswith("error: worker-1: ") and "MultiKueueWorkerUnreachable" in _codes(w1), (
            rc, err, w1)
    else:  # Kueue had already dropped it from the nomination: not read, exit 0
        assert rc == 0 and w1["read"] == "not-nominated", (rc, w1)
    # once Kueue sees it, the manager's MultiKueueCluster says so, and so does the answer
    wait_for("worker-1 not connected", lambda: (c := condition(p.get("multikueuecluster", "worker-1"), "Active"))
             and c["status"] == "False", timeout=120)
    rc, doc, err = _why(p, "g", ns)
    w1 = _workers(doc)["worker-1"]
    assert w1["connected"] is False and "MultiKueueWorkerNotConnected" in _codes(w1), w1
    assert _workers(doc)["worker-2"]["read"] == "read"
