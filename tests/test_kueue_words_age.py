"""What was read outranks Kueue's last words (issue 46, finding 6): Kueue's message is shown as Kueue's, with its
age (the condition's lastTransitionTime against the run's one clock), and where the objects read disagree with
it, the read state decides and the disagreement is said as data (`params.kueueDisagrees`). Asserted on codes and
params, through the loopback API server and the pure diagnosis."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.builders import cluster_queue, resource_flavor

GPU = "nvidia.com/gpu"
NS = "team-a"
AT = "2026-01-01T00:00:00Z"
STALE = ("couldn't assign flavors to pod set w: insufficient quota for nvidia.com/gpu in flavor a100, previously "
         "considered podsets requests (0) + current podset request (4) > maximum capacity (2)")


def objects(nominal: int, message: str = STALE, used: int = 0) -> list[dict[str, Any]]:
    """research gives NOMINAL cards of a100 (USED in use); a pending 4-card Workload whose QuotaReserved=False
    carries MESSAGE, written at AT."""
    cq = cluster_queue("research", {"a100": str(nominal)}, resource=GPU, active=True, used={"a100": str(used)})
    cq["status"]["flavorsUsage"] = cq["status"]["flavorsReservation"]
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
          "metadata": {"name": "research", "namespace": NS}, "spec": {"clusterQueue": "research"},
          "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": ""}]}}
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
          "metadata": {"name": "probe", "namespace": NS, "creationTimestamp": AT},
          "spec": {"queueName": "research", "podSets": [
              {"name": "w", "count": 1, "template": {"spec": {"containers": [
                  {"name": "c", "resources": {"requests": {GPU: "4"}}}]}}}]},
          "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                                     "message": message, "lastTransitionTime": AT}]}}
    return [cq, lq, resource_flavor("a100"), wl]


def _why(cli: Callable, apiserver: Callable, objs: list[dict[str, Any]]) -> dict[str, Any]:
    _server, env = apiserver(objs, namespace=NS)
    r = cli(["why-pending", "workload/probe", "-n", NS, "-o", "json"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_a_message_from_a_smaller_quota_is_no_verdict(cli: Callable, apiserver: Callable) -> None:
    """Kueue wrote "maximum capacity (2)" when the queue gave 2; it gives 16 now: no QuotaExceedsCapacity ("never
    admitted as configured") beside the screen's own "fits"; the disagreement is said with both figures."""
    doc = _why(cli, apiserver, objects(16))
    codes = [r["code"] for r in doc["reasons"]]
    assert "QuotaExceedsCapacity" not in codes
    assert [r["verdict"] for r in doc["roles"]] == ["fits"]
    head = doc["reasons"][0]
    assert head["kueueMessage"] == STALE  # Kueue's words, shown as Kueue's
    said = head["params"]["kueueDisagrees"]
    assert (said["flavor"], said["resource"], said["kueue"], said["read"]) == ("a100", GPU, "2", "16")
    assert said["field"] == "maximumCapacity"
    assert head["params"]["kueueSaidAt"] == AT
    assert not any(s.get("kind") == "raise-nominal" for s in doc.get("suggestions") or [])


def test_a_message_the_read_state_agrees_with_stays_the_verdict(cli: Callable, apiserver: Callable) -> None:
    """The queue still gives 2: Kueue's "never" is the read state's too, with its age."""
    doc = _why(cli, apiserver, objects(2))
    head = doc["reasons"][0]
    assert head["code"] == "QuotaExceedsCapacity"
    assert "kueueDisagrees" not in head["params"]
    assert head["params"]["kueueSaidAt"] == AT
