"""Clusters that change while a command waits: the operator renders a deployment's Pods, Kueue composes
its Workload and (perhaps) admits it, each at a fixed moment of fake time (tests/clock.py).

A scenario is played on a loopback server (tests/apiserver.py) by scheduling steps on a `FakeTime`;
tests/test_create_wait.py plays them, and so do the docs' examples that name one
(`<!-- example-cluster: ... scenario=NAME -->`, tests/docs_examples.py). Importing this module
has no side effects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.apiserver import FakeApiServer
from tests.builders import pod
from tests.clock import FakeTime

CARD = {"credits.gpustack.ai/nvidia": "1600000"}
H20 = "gpustack--nvidia-h20-linux-amd64"
PENDING_MESSAGE = ("couldn't assign flavors to pod set decode: insufficient unused quota for "
                   "credits.gpustack.ai/nvidia in flavor gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d, "
                   "1600k more needed")


def qwen_pod(name: str, role: str, ready: bool = False) -> dict[str, Any]:
    """A Pod of deployment qwen's group (team-a), gated by Kueue until it is ready."""
    return pod(name, "team-a", uid=f"uid-{name}", resources=CARD, ready=ready,
               gates=[] if ready else ["kueue.x-k8s.io/admission"],
               labels={"app.kubernetes.io/instance": "qwen", "app.kubernetes.io/component": role,
                       "kueue.x-k8s.io/pod-group-name": "qwen"})


def qwen_workload(admitted: bool) -> dict[str, Any]:
    """The group Workload Kueue composes for qwen (1 prefill, 2 decode): pending on quota, or admitted."""
    conds = [{"type": "QuotaReserved", "status": "True" if admitted else "False",
              "reason": "QuotaReserved" if admitted else "Pending",
              "message": f"Quota reserved in ClusterQueue {H20}" if admitted else PENDING_MESSAGE}]
    if admitted:
        conds.append({"type": "Admitted", "status": "True", "reason": "Admitted",
                      "message": "The workload is admitted"})
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "qwen", "namespace": "team-a",
                         "annotations": {"kueue.x-k8s.io/is-group-workload": "true"}},
            "spec": {"queueName": "gpustack-fnv64-5582b5d69c84a5c3",
                     "podSets": [{"name": "decode", "count": 2}, {"name": "prefill", "count": 1}]},
            "status": {"conditions": conds}}


def qwen_created_then(server: FakeApiServer, clock: FakeTime, admit_after: float | None,
                      reserved: str | None = None) -> FakeTime:
    """After the first poll the operator renders qwen's three Pods and Kueue composes a pending Workload;
    at `admit_after` fake seconds (never, when None) Kueue admits it and the prefill Pod becomes ready.
    `reserved`: credits other Workloads hold in the queue's flavor by then (what Kueue's message says)."""

    def render() -> None:
        assert server.stored("ModelDeployment", "worker.gpustack.ai/v1alpha1", "qwen", "team-a") is not None
        if reserved is not None:
            cq = server.stored("ClusterQueue", "kueue.x-k8s.io/v1beta2", H20)
            assert cq is not None
            flavor = cq["spec"]["resourceGroups"][0]["flavors"][0]["name"]
            cq.setdefault("status", {})["flavorsReservation"] = [
                {"name": flavor, "resources": [{"name": "credits.gpustack.ai/nvidia", "total": reserved}]}]
            server.put(cq)
        for p in (qwen_pod("qwen-prefill-0", "prefill"), qwen_pod("qwen-decode-0", "decode"),
                  qwen_pod("qwen-decode-1", "decode")):
            server.put(p)
        server.put(qwen_workload(False))

    def admit() -> None:
        server.put(qwen_workload(True))
        server.put(qwen_pod("qwen-prefill-0", "prefill", ready=True))

    clock.at(0, render)
    if admit_after is not None:
        clock.at(admit_after, admit)
    return clock


# The scenarios a docs example can name: each schedules its steps on the server and the fake clock.
SCENARIOS: dict[str, Callable[[FakeApiServer, FakeTime], FakeTime]] = {
    "qwen-admitted-after-1.5s": lambda server, clock: qwen_created_then(server, clock, 1.5),
    # seven of the flavor's eight cards are held by others: decode's two pods find one card too few
    "qwen-never-admitted": lambda server, clock: qwen_created_then(server, clock, None, reserved="11200k"),
}
