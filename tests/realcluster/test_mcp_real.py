"""The MCP server's pd_why_pending on a real pending pod group: the structured content is the CLI's
`-o json` of the same call, byte for byte (issue 33, against the real control plane)."""

from __future__ import annotations

import json

import pytest

from tests.mcp_client import why_pending_via_mcp
from tests.realcluster import objs
from tests.realcluster.plane import Plane, condition, wait_for

pytestmark = pytest.mark.cluster


def test_pd_why_pending_on_a_real_pending_group(plane: Plane) -> None:
    ns = plane.namespace("mcp")
    rf, cq = plane.unique("mcp-rf"), plane.unique("mcp-cq")
    plane.apply(objs.flavor(rf), objs.cluster_queue(cq, [(rf, [objs.quota(objs.GPU, "2")])]),
                objs.local_queue(ns, "main", cq))
    plane.apply(*[objs.group_pod(ns, f"g-{r}", "g", 2, "main", r, {objs.GPU: "2"}) for r in ("prefill", "decode")],
                server_side=False)
    wait_for("Kueue's verdict", lambda: any(condition(w, "QuotaReserved")
                                            for w in plane.get("workloads", namespace=ns)["items"]))
    # the ClusterQueue's status.pendingWorkloads is written after the Workload's condition: both reads
    # below must see the same, settled count
    wait_for("the ClusterQueue's pending count",
             lambda: plane.get("clusterqueues", cq).get("status", {}).get("pendingWorkloads") == 1)
    result, text = why_pending_via_mcp(plane.kubeconfig, "podgroup/g", ns)
    assert not result.is_error, result
    cli = plane.pd("why-pending", "podgroup/g", "-n", ns, "-o", "json")
    assert text == cli.stdout
    assert json.loads(text)["reasons"][0]["code"] == "QuotaExceedsCapacity"
