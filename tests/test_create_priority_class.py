"""create --priority-class (issue 46, findings 3 and 9): the Pods carry Kueue's label kueue.x-k8s.io/priority-class,
and the preflight judges preemption at the WorkloadPriorityClass's value under the queue's policies (LowerPriority:
a higher-priority group preempts a lower-priority holder; at equal priority it waits). Loopback; asserted on checks,
params and targets."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.test_resources_model import GPU, NS, layout

HOLDER_PRIORITY = 0


def holder() -> dict[str, Any]:
    """An admitted Workload holding 8 of research's a100 cards at priority 0."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "batch", "namespace": "other", "creationTimestamp": "2026-01-01T00:00:00Z",
                         "uid": "u-batch"},
            "spec": {"priority": HOLDER_PRIORITY, "queueName": "x", "podSets": [{"name": "main", "count": 1}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                       "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                                      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": ""}],
                       "admission": {"clusterQueue": "research", "podSetAssignments": [
                           {"name": "main", "flavors": {GPU: "a100"}, "resourceUsage": {GPU: "8"}, "count": 1}]}}}


def wpc(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": name},
            "value": value}


def objects() -> list[dict[str, Any]]:
    objs = layout()
    for o in objs:
        if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == "research":
            o["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority"}
            o["status"]["flavorsReservation"] = [{"name": "a100", "resources": [{"name": GPU, "total": "8"}]}]
            o["status"]["flavorsUsage"] = [{"name": "a100", "resources": [{"name": GPU, "total": "8"}]}]
    return [*objs, holder(), wpc("high", 1000), wpc("same", HOLDER_PRIORITY)]


BASE = ["create", "g", "--model", "m", "--target", "pods", "--local-queue", "research", "-n", NS,
        "--role", "name=w,kind=prefill,replicas=1,accelerator=8,image=img", "--preflight", "-o", "json"]

# (class or None, what the preflight finds, who it would preempt)
CASES = [("high", [("waits-for-quota", "NeedsPreemption")], ["other/batch"]),
         ("same", [("waits-for-quota", "QuotaExhausted")], []),
         (None, [("waits-for-quota", "QuotaExhausted")], [])]


@pytest.mark.parametrize("cls, checks, preempts", CASES, ids=[str(c[0]) for c in CASES])
def test_preflight_judges_at_the_class_value(cli: Callable, apiserver: Callable, cls: str | None,
                                             checks: list[tuple[str, str]], preempts: list[str]) -> None:
    _, env = apiserver(objects(), namespace=NS)
    r = cli([*BASE, *(["--priority-class", cls] if cls else [])], env=env)
    doc = json.loads(r.stdout)
    assert r.exit_code == 0, r.stderr
    assert [(f["check"], f["params"]["code"]) for f in doc["findings"]] == checks
    got = [f"{t['namespace']}/{t['name']}" for t in (doc.get("preemption") or {}).get("targets") or []]
    assert got == preempts
    labels = doc["manifest"]["items"][0]["metadata"]["labels"]
    assert labels.get("kueue.x-k8s.io/priority-class") == cls


def test_a_class_that_does_not_exist_is_an_error(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver(objects(), namespace=NS)
    r = cli([*BASE, "--priority-class", "nope"], env=env)
    doc = json.loads(r.stdout)
    assert (r.exit_code, doc["wouldCreate"]) == (1, False)
    (f,) = [f for f in doc["findings"] if f["check"] == "priority-class"]
    assert (f["severity"], f["params"]) == ("error", {"priorityClass": "nope"})


def test_priority_class_with_a_model_deployment_is_a_usage_error(cli: Callable) -> None:
    r = cli(["create", "g", "--model", "m", "--prefill", "1", "--instance-type", "x", "--priority-class", "high",
             "--dry-run=client"])
    assert r.exit_code == 2
