"""why-pending on what the PD frameworks make (issue 47): LeaderWorkerSet groups, DisaggregatedSets, Deployments,
against the loopback API server with the objects Kueue 0.19.2 and LWS v0.9.0 write (tests/frameworks.py)."""

from __future__ import annotations

import json
from typing import Any

from tests import frameworks as fw


def _json(cli: Any, env: dict[str, str], *args: str) -> tuple[int, dict[str, Any]]:
    r = cli(["why-pending", *args, "-n", fw.NS, "-o", "json"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    return r.exit_code, json.loads(r.stdout)


def test_a_group_named_only_by_annotation_has_its_pods(cli: Any, apiserver: Any) -> None:
    """Kueue 0.18+ names an LWS group's Pods by annotation: the group is diagnosed with them, found by LWS's own
    labels (a label selector cannot select an annotation)."""
    owner = fw.lws("vllm", replicas=1, size=2)
    group = fw.lws_group(owner, 0, "pending")
    server, env = apiserver([*fw.queues(gpus=1), owner, *group])
    name = group[0]["metadata"]["name"]
    _code, data = _json(cli, env, f"workload/{name}")
    assert {r["name"]: r["pods"]["have"] for r in data["roles"]} == {"leader": 1, "worker": 1}
    selectors = [q.query.get("labelSelector") for q in server.requests if q.path == "/api/v1/namespaces/team-a/pods"]
    assert "leaderworkerset.sigs.k8s.io/name=vllm,leaderworkerset.sigs.k8s.io/group-index=0" in selectors


def test_the_list_finds_a_group_named_only_by_annotation(cli: Any, apiserver: Any) -> None:
    owner = fw.lws("vllm", replicas=1, size=2)
    group = fw.lws_group(owner, 0, "pending")
    _server, env = apiserver([*fw.queues(gpus=1), owner, *group])
    r = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    items = json.loads(r.stdout)["items"]
    assert [(i["target"]["kind"], i["target"]["name"]) for i in items] == [("PodGroup", group[0]["metadata"]["name"])]
    assert {x["name"]: x["pods"]["have"] for x in items[0]["roles"]} == {"leader": 1, "worker": 1}
