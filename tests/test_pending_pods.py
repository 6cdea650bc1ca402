"""Pending after admission: gated Pods, and the kube-scheduler's refusal parsed into counts per cause;
the flavor's Nodes read by label selector only, RBAC refusing them is a note."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubectl_pd.pending.pods import parse_unschedulable
from tests.apiserver import Forbid


@pytest.mark.parametrize("message, nodes, causes", [
    # kube-scheduler FitError: "0/%v nodes are available: %v." with a sorted "<n> <cause>" histogram
    ("0/12 nodes are available: 4 Insufficient nvidia.com/gpu, 8 node(s) didn't match Pod's node "
     "affinity/selector. preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.",
     12, ((4, "Insufficient nvidia.com/gpu"), (8, "node(s) didn't match Pod's node affinity/selector"))),
    ("0/3 nodes are available: 3 Insufficient credits.gpustack.ai/nvidia.", 3,
     ((3, "Insufficient credits.gpustack.ai/nvidia"),)),
    ("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. ", 1,
     ((1, "node(s) had untolerated taint {node.kubernetes.io/unreachable: }"),)),
    ("running PreBind plugin \"VolumeBinding\": binding volumes: timed out", None, ()),  # other shapes: words only
])
def test_parse_unschedulable(message: str, nodes: int | None, causes: tuple) -> None:
    got = parse_unschedulable(message)
    assert (got.nodes, got.causes, got.message) == (nodes, causes, message)


def test_nodes_are_read_by_the_flavors_labels_only(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/pods-unschedulable.yaml")
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    data = json.loads(r.stdout)
    reason = data["reasons"][0]
    assert reason["code"] == "PodsUnschedulable" and reason["role"] == "decode"
    assert [n["matchesSelector"] for n in reason["params"]["flavorNodes"]] == [False] * 4
    assert reason["params"]["ignoredSelector"] == {"acceleratable.feature.gpustack.ai/nvidia-l40s": "true"}
    node_reads = [x for x in server.requests if x.path == "/api/v1/nodes"]
    assert len(node_reads) == 1 and "labelSelector" in node_reads[0].query, node_reads


def test_forbidden_nodes_are_a_note(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/pods-unschedulable.yaml", forbid=[Forbid("list", "nodes")])
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["reasons"][0]["code"] == "PodsUnschedulable" and "flavorNodes" not in data["reasons"][0]["params"]
    assert any("nodes of flavor" in n for n in data["notes"])
