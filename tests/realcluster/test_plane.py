"""The control plane itself: what `scripts/real-cluster up` promises (versions, CRDs, webhooks, the visibility
API, kwok's GPU nodes, the three kubeconfig contexts), and a pod group admitted end to end by the real Kueue."""

from __future__ import annotations

import json

import pytest

from tests.realcluster import objs
from tests.realcluster.plane import Plane, is_true, wait_for

pytestmark = pytest.mark.cluster


def test_versions_and_apis(plane: Plane) -> None:
    version = json.loads(plane.kubectl("version", "-o", "json").stdout)["serverVersion"]
    assert version["gitVersion"].startswith("v1.36.")
    served = plane.kubectl("api-versions").stdout.split()
    for gv in ("kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", "visibility.kueue.x-k8s.io/v1beta2",
               "worker.gpustack.ai/v1", "worker.gpustack.ai/v1alpha1"):
        assert gv in served
    nodes = plane.get("nodes")["items"]
    assert len(nodes) >= 1 and all(is_true(n, "Ready") for n in nodes)
    assert all(n["status"]["allocatable"][objs.GPU] == "8" for n in nodes)
    assert plane.version.startswith("v" + plane.kueue + ".")


def test_contexts_are_three_identities(plane: Plane) -> None:
    names = {}
    for ctx in ("admin", "token", "limited"):
        got = plane.kubectl("auth", "whoami", "-o", "json", "--context", ctx)
        names[ctx] = json.loads(got.stdout)["status"]["userInfo"]["username"]
    assert names == {"admin": "admin", "token": "pd-token-user", "limited": "pd-limited-user"}
    denied = plane.kubectl("get", "clusterqueues", "--context", "limited", check=False)
    assert denied.returncode != 0 and "forbidden" in denied.stderr.lower()


def test_a_pod_group_is_admitted_and_runs(plane: Plane) -> None:
    ns = plane.namespace("smoke")
    rf, cq = plane.unique("smoke-rf"), plane.unique("smoke-cq")
    plane.apply(objs.flavor(rf), objs.cluster_queue(cq, [(rf, [objs.quota(objs.GPU, "4")])]),
                objs.local_queue(ns, "main", cq))
    wait_for("the ClusterQueue active", lambda: is_true(plane.get("clusterqueue", cq), "Active"))
    pods = [objs.group_pod(ns, f"g-{r}", "g", 2, "main", r, {objs.GPU: "2"}) for r in ("prefill", "decode")]
    plane.apply(*pods, server_side=False)
    wl = wait_for("the pod group's Workload admitted", lambda: next(
        (w for w in plane.get("workloads", namespace=ns)["items"] if is_true(w, "Admitted")), None), timeout=90)
    assert {ps["name"] for ps in wl["spec"]["podSets"]} and wl["status"]["admission"]["clusterQueue"] == cq
    wait_for("both pods running", lambda: all(
        p["status"].get("phase") == "Running" for p in plane.get("pods", namespace=ns)["items"]), timeout=90)
    # the visibility API answers through the aggregator
    raw = plane.kubectl("get", "--raw", f"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/{cq}"
                                        "/pendingworkloads").stdout
    assert json.loads(raw)["kind"] == "PendingWorkloadsSummary"
