"""4d: past admission with the real scheduler and kwok's nodes: each post-admission reason from a real state.
Pods the scheduler cannot place (its real Unschedulable message), a scheduling gate of someone else's left on
admitted Pods, an AdmissionCheck held Pending and then asking for a retry (its controller played by the test,
as any external controller would write the check's state), and a topology request no node can meet."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.realcluster import objs
from tests.realcluster.plane import Plane, condition, is_true, wait_for
from tests.realcluster.standin import activate_check

pytestmark = pytest.mark.cluster


def _codes(plane: Plane, target: str, ns: str) -> tuple[list[str], dict[str, Any]]:
    got = plane.pd("why-pending", target, "-n", ns, "-o", "json")
    assert got.returncode in (0, 1), got.stderr
    doc = json.loads(got.stdout)
    return [r["code"] for r in doc["reasons"]], doc


def _queue(plane: Plane, ns: str, node_labels: dict[str, str] | None = None, **cq: Any) -> str:
    rf, name = plane.unique("pa-rf"), plane.unique("pa-cq")
    plane.apply(objs.flavor(rf, node_labels), objs.cluster_queue(name, [(rf, [objs.quota(objs.GPU, "16")])], **cq),
                objs.local_queue(ns, "main", name))
    wait_for("the ClusterQueue active", lambda: is_true(plane.get("clusterqueue", name), "Active"))
    return name


def _group(plane: Plane, ns: str, gpus: int = 2, **kw: Any) -> None:
    plane.apply(*[objs.group_pod(ns, f"g-{r}", "g", 2, "main", r, {objs.GPU: str(gpus)}, **kw)
                  for r in ("prefill", "decode")], server_side=False)


def test_pods_the_scheduler_cannot_place(plane: Plane) -> None:
    ns = plane.namespace("unsched")
    _queue(plane, ns, {"nvidia.com/gpu.product": "NVIDIA-B200"})  # admitted by quota; no node has the label
    _group(plane, ns)
    wait_for("the scheduler's verdict", lambda: any(
        (condition(p, "PodScheduled") or {}).get("reason") == "Unschedulable"
        for p in plane.get("pods", namespace=ns)["items"]), timeout=60)
    codes, doc = _codes(plane, "podgroup/g", ns)
    assert codes[:1] == ["PodsUnschedulable"], doc
    real = next(c["message"] for p in plane.get("pods", namespace=ns)["items"]
                if (c := condition(p, "PodScheduled")) and c.get("reason") == "Unschedulable")
    assert real.split(":")[0] in json.dumps(doc)  # the scheduler's own words reach the answer


def test_a_foreign_scheduling_gate_left_on_admitted_pods(plane: Plane) -> None:
    ns = plane.namespace("gated")
    _queue(plane, ns)
    pods = [objs.group_pod(ns, f"g-{r}", "g", 2, "main", r, {objs.GPU: "1"}) for r in ("prefill", "decode")]
    for p in pods:
        p["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    plane.apply(*pods, server_side=False)
    wait_for("admitted", lambda: any(is_true(w, "Admitted") for w in plane.get("workloads", namespace=ns)["items"]))
    wait_for("Kueue's gate lifted", lambda: all(
        [g["name"] for g in p["spec"].get("schedulingGates") or []] == ["example.com/hold"]
        for p in plane.get("pods", namespace=ns)["items"]))
    codes, doc = _codes(plane, "podgroup/g", ns)
    assert codes[:1] == ["PodsGated"], doc
    assert "example.com/hold" in json.dumps(doc["reasons"][0]["params"])


def test_an_admission_check_pending_then_retry(plane: Plane) -> None:
    ns = plane.namespace("check")
    check = plane.unique("pa-check")
    plane.apply({"apiVersion": objs.KV, "kind": "AdmissionCheck", "metadata": {"name": check},
                 "spec": {"controllerName": "pd.test/manual"}})
    activate_check(plane, check)
    _queue(plane, ns, checks=[check])
    _group(plane, ns, 1)
    wl = wait_for("quota reserved, the check pending", lambda: next(
        (w for w in plane.get("workloads", namespace=ns)["items"] if is_true(w, "QuotaReserved")
         and (w.get("status") or {}).get("admissionChecks")), None))
    codes, doc = _codes(plane, "podgroup/g", ns)
    assert codes[:1] == ["AdmissionCheckPending"], doc
    # the check's controller asks for a retry: Kueue evicts and requeues, and the tool says so
    _set_check(plane, ns, wl["metadata"]["name"], check, "Retry", "capacity not ready, try again")
    wait_for("Kueue reacts to Retry", lambda: condition(plane.get("workload", wl["metadata"]["name"], ns), "Evicted"))
    codes, doc = _codes(plane, "podgroup/g", ns)
    assert set(codes) & {"AdmissionCheckPending", "AdmissionCheckRetryLoop", "Evicted"}, doc


def _set_check(plane: Plane, ns: str, wl: str, check: str, state: str, message: str) -> None:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    cur = plane.get("workload", wl, ns)["status"]["admissionChecks"]
    for c in cur:
        if c["name"] == check:
            c.update(state=state, message=message, lastTransitionTime=now)
    plane.kubectl("patch", "workload", wl, "-n", ns, "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": {"admissionChecks": cur}}))


def test_a_topology_no_node_can_meet(plane: Plane) -> None:
    ns = plane.namespace("tas")
    topo = plane.unique("pa-topo")
    plane.apply({"apiVersion": objs.KV, "kind": "Topology", "metadata": {"name": topo},
                 "spec": {"levels": [{"nodeLabel": "example.com/topology-block"},
                                     {"nodeLabel": "kubernetes.io/hostname"}]}})
    rf, cq = plane.unique("pa-rf"), plane.unique("pa-cq")
    flavor = objs.flavor(rf, {"type": "kwok"})
    flavor["spec"]["topologyName"] = topo
    plane.apply(flavor, objs.cluster_queue(cq, [(rf, [objs.quota(objs.GPU, "32")])]),
                objs.local_queue(ns, "main", cq))
    wait_for("the ClusterQueue active", lambda: is_true(plane.get("clusterqueue", cq), "Active"), timeout=60)
    pods = [objs.group_pod(ns, f"g-{i}", "g", 2, "main", "decode", {objs.GPU: "8"}) for i in range(2)]
    for p in pods:  # both on one host: 16 cards where a node has 8
        p["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"] = "kubernetes.io/hostname"
    plane.apply(*pods, server_side=False)
    wait_for("Kueue's verdict", lambda: any((condition(w, "QuotaReserved") or {}).get("message")
                                            for w in plane.get("workloads", namespace=ns)["items"]))
    codes, doc = _codes(plane, "podgroup/g", ns)
    assert codes[:1] == ["TopologyUnsatisfied"], doc
