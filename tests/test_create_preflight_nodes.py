"""create's preflight weighs Node allocatable as `kubectl pd capacity` does: a role one Pod of which no Node its
flavors allow could hold is `no-node-fits` (why-pending's PodsUnschedulable, capacity's never; an error --force
overrides), never "waits for quota"; Nodes that cannot be listed leave the node part unknown (a `skipped`
finding, nothing claimed); a flavor no Node carries the labels of is not weighed. Asserted on check ids and params."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd import kube
from kubectl_pd.create import nodes as nd
from kubectl_pd.create import preflight
from kubectl_pd.create.preflight import ERROR, WARNING, CheckFinding
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.kueue.model import Snapshot
from kubectl_pd.registry import CHECKS
from tests.builders import CARD, CREDITS, resource_flavor
from tests.test_capacity_count import NS, pool, roles_of
from tests.test_capacity_nodes import GPU_LABEL, GPU_TAINT, H100, node

CQ = "pool"


def _waits(role: str) -> CheckFinding:
    return CheckFinding(WARNING, "waits-for-quota", "waits-for-quota", params={"role": role, "code": "QuotaExhausted",
                                                                "clusterQueue": CQ})


def _never_fits(role: str) -> CheckFinding:
    return CheckFinding(ERROR, "never-fits", "never-fits", forceable=True,
                        params={"role": role, "code": "QuotaExceedsCapacity", "clusterQueue": CQ})


def _node(name: str, n_cards: int, labels: dict[str, str] | None = None, taints: Any = None) -> kube.Node:
    return kube.node(node(name, n_cards, labels, taints))


P1D2 = ("name=prefill,kind=prefill,replicas=1,accelerator=1", "name=decode,kind=decode,replicas=2,accelerator=4")

# (case, flavors {name: nodeLabels}, roles, profile, findings before, nodes by flavor,
#  want: [(check, role)] after, and the no-node-fits params (resource, requested cards, largest cards, node))
CASES: list[tuple[Any, ...]] = [
    ("a Node holds each role's Pod: the waits stay", {"h20": None}, P1D2, PD_ATOMIC, [_waits("decode")],
     {"h20": [_node("gpu-0", 8)]}, [("waits-for-quota", "decode")], None),
    ("decode's 4 cards on Nodes of 2: no-node-fits instead of waits", {"h20": None}, P1D2, PD_ATOMIC,
     [_waits("decode")], {"h20": [_node("gpu-0", 2), _node("gpu-1", 1)]}, [("no-node-fits", "decode")],
     (CREDITS, 4, 2, "gpu-0")),
    ("a role that fits the quota and no Node: no-node-fits all the same", {"h20": None}, P1D2, PD_ATOMIC, [],
     {"h20": [_node("gpu-0", 2)]}, [("no-node-fits", "decode")], (CREDITS, 4, 2, "gpu-0")),
    ("a role the quota refuses is weighed on the Nodes too: more quota would not run it either (issue 46)",
     {"h20": None}, P1D2, PD_ATOMIC, [_never_fits("decode")],
     {"h20": [_node("gpu-0", 2)]}, [("never-fits", "decode"), ("no-node-fits", "decode")], (CREDITS, 4, 2, "gpu-0")),
    ("no Node with the flavor's labels: not weighed", {"h20": H100}, P1D2, PD_ATOMIC, [_waits("decode")],
     {"h20": []}, [("waits-for-quota", "decode")], None),
    ("a flavor not read: not weighed", {"h20": None}, P1D2, PD_ATOMIC, [_waits("decode")], {},
     [("waits-for-quota", "decode")], None),
    ("two flavors, one holds it: it may run there", {"a": None, "b": H100}, P1D2, PD_ATOMIC, [_waits("decode")],
     {"a": [_node("gpu-0", 2)], "b": [_node("h100-0", 8, H100)]}, [("waits-for-quota", "decode")], None),
    ("two flavors, none holds it: the largest Node of the two", {"a": None, "b": H100}, P1D2, PD_ATOMIC, [],
     {"a": [_node("gpu-0", 2)], "b": [_node("h100-0", 3, H100)]}, [("no-node-fits", "decode")],
     (CREDITS, 4, 3, "h100-0")),
    ("every Node tainted: no Node the Pod may go to (no resource named)", {"h20": None}, P1D2, PD_ATOMIC, [],
     {"h20": [_node("gpu-0", 8, taints=[{"key": GPU_TAINT.key, "value": GPU_TAINT.value,
                                         "effect": GPU_TAINT.effect}])]},
     [("no-node-fits", "prefill"), ("no-node-fits", "decode")], (None, None, None, None)),
    ("per-replica: each replica group's Pod weighed the same", {"h20": None}, P1D2, PER_REPLICA,
     [_waits("decode")], {"h20": [_node("gpu-0", 2)]}, [("no-node-fits", "decode")], (CREDITS, 4, 2, "gpu-0")),
]


def _snapshot(flavors: dict[str, dict[str, str] | None]) -> Snapshot:
    return Snapshot.of([*pool(CQ, {f: 16 for f in flavors}), *(resource_flavor(f, lab) for f, lab in flavors.items())])


@pytest.mark.parametrize("case, flavors, roles, profile, before, nodes, want, short", CASES, ids=[c[0] for c in CASES])
def test_node_findings(case: str, flavors: dict[str, Any], roles: tuple[str, ...], profile: str,
                       before: list[CheckFinding], nodes: dict[str, list[kube.Node]], want: list[tuple[str, str]],
                       short: tuple[Any, ...] | None) -> None:
    snap = _snapshot(flavors)
    queue = preflight.role_demands(roles_of(*roles), profile, CREDITS, CQ)
    pod_sets = {ps.role or ps.name: ps for _, members in queue.workloads for _, ps in members}
    got = preflight.node_findings(before, snap, CQ, pod_sets, nd.Fit({f: tuple(ns) for f, ns in nodes.items()}))
    assert [(f.check, f.params["role"]) for f in got] == want
    mine = [f for f in got if f.check == preflight.NODE_CHECK]
    assert all((f.severity, f.forceable, f.params["code"], f.params["never"]) == (ERROR, True, "PodsUnschedulable",
                                                                                  True) for f in mine)
    if short is not None:
        resource, requested, largest, name = short
        p = mine[-1].params
        card = Fraction(CARD)
        assert (p["resource"], p["requested"], p["largest"], p["node"]) == (
            resource, None if requested is None else requested * card, None if largest is None else largest * card,
            name)


def test_the_check_is_registered() -> None:
    assert preflight.NODE_CHECK in {c.id for c in CHECKS}


# ----------------------------------------------------------------------------- loopback: create --preflight
BASE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv", "-n", NS,
        "--instance-type", CQ, "--preflight", "-o", "json"]
ROLES = [x for r in P1D2 for x in ("--role", r)]


def _full(flavor: str = "h20", labels: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """A pool of 16 cards, all in use: the deployment waits for quota (a Node permitting)."""
    return [*pool(CQ, {flavor: 16}, used={flavor: 16}), resource_flavor(flavor, labels)]


def _run(cli: Callable, apiserver: Callable, objs: list[dict[str, Any]], *extra: str,
         **kw: Any) -> tuple[Any, dict[str, Any], Any]:
    server, env = apiserver("create/crd-pd-atomic.yaml", objs, namespace=NS, **kw)
    r = cli([*BASE, *ROLES, *extra], env=env)
    assert r.stdout, r.stderr
    return r, json.loads(r.stdout), server


def _checks(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["check"], f["params"].get("role") or "") for f in doc["findings"])


WAITS = [("waits-for-quota", "decode"), ("waits-for-quota", "prefill")]


def _node_lists(server: Any) -> list[str]:
    return [x.query.get("labelSelector", "") for x in server.requests
            if x.method == "GET" and x.path == "/api/v1/nodes"]


def test_live_a_node_holds_it_so_it_waits(cli: Callable, apiserver: Callable) -> None:
    r, doc, server = _run(cli, apiserver, [*_full(), node("gpu-0", 8)])
    assert (r.exit_code, doc["wouldCreate"]) == (0, True), r.stderr
    assert _checks(doc) == WAITS
    assert _node_lists(server) == [""]


def test_live_no_node_holds_it_refuses_naming_the_largest_node(cli: Callable, apiserver: Callable) -> None:
    objs = [*_full("h20", H100), node("gpu-0", 2, H100), node("gpu-1", 1, H100), node("big", 16)]
    r, doc, server = _run(cli, apiserver, objs)
    assert (r.exit_code, doc["wouldCreate"]) == (1, False)
    assert _checks(doc) == [("no-node-fits", "decode"), ("waits-for-quota", "prefill")]
    (f,) = [f for f in doc["findings"] if f["check"] == "no-node-fits"]
    assert (f["severity"], f["forceable"]) == ("error", True)
    assert {k: f["params"][k] for k in ("code", "never", "flavor", "resource", "requested", "largest", "node",
                                        "nodes")} == {
        "code": "PodsUnschedulable", "never": True, "flavor": "h20", "resource": CREDITS,
        "requested": str(4 * CARD // 1000) + "k", "largest": str(2 * CARD // 1000) + "k", "node": "gpu-0", "nodes": 2}
    assert _node_lists(server) == [f"{GPU_LABEL}=H100"]  # the flavor's Nodes only, label-selected
    forced = _run(cli, apiserver, objs, "--force")[1]
    assert forced["wouldCreate"] is True


def test_live_no_node_holds_it_writes_nothing(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver("create/crd-pd-atomic.yaml", [*_full(), node("gpu-0", 2)], namespace=NS)
    r = cli([*BASE[:-3], *ROLES, "--dry-run=server"], env=env)
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert [x.split(":", 1)[0] for x in lines] == ["warning", "error"]  # prefill waits; decode never runs
    assert [x.method for x in server.requests if x.method != "GET"] == []


def test_live_forbidden_nodes_leave_the_node_part_unknown(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import Forbid

    r, doc, _ = _run(cli, apiserver, [*_full(), node("gpu-0", 2)], forbid=[Forbid("list", "nodes")])
    assert (r.exit_code, doc["wouldCreate"]) == (0, True), r.stderr  # as every part a 403 leaves unknown
    assert _checks(doc) == [("skipped", ""), *WAITS]
    (skipped,) = [f for f in doc["findings"] if f["check"] == "skipped"]
    assert (skipped["severity"], skipped["params"]["unknown"]) == ("warning", "nodes")


def test_live_no_node_carries_the_flavors_labels_so_it_is_not_weighed(cli: Callable, apiserver: Callable) -> None:
    r, doc, server = _run(cli, apiserver, [*_full("h20", H100), node("gpu-0", 2)])
    assert (r.exit_code, doc["wouldCreate"]) == (0, True), r.stderr
    assert _checks(doc) == WAITS
    assert _node_lists(server) == [f"{GPU_LABEL}=H100"]


def test_live_a_role_the_quota_refuses_is_weighed_on_nodes_too(cli: Callable, apiserver: Callable) -> None:
    """Issue 46: a quota refusal alone reads as "more quota would do"; the Nodes say it would not."""
    objs = [*pool(CQ, {"h20": 2}), resource_flavor("h20"), node("gpu-0", 2)]
    r, doc, server = _run(cli, apiserver, objs)
    assert r.exit_code == 1
    assert _checks(doc) == [("never-fits", "decode"), ("no-node-fits", "decode")]  # prefill fits a Node
    assert _node_lists(server) == [""]


def test_live_every_role_refused_still_reads_the_nodes_once(cli: Callable, apiserver: Callable) -> None:
    objs = [*pool(CQ, {"h20": 0}), resource_flavor("h20"), node("gpu-0", 2)]
    r, doc, server = _run(cli, apiserver, objs)
    assert r.exit_code == 1
    assert {c for c, _ in _checks(doc)} == {"never-fits", "no-node-fits"}
    assert _node_lists(server) == [""]


def _two_pools(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    """Two pools (two ClusterQueues: per-replica roles on two instanceTypes), full, whose flavors carry no
    nodeLabels: the same Nodes."""
    return [*pool(CQ, {"h20": 16}, used={"h20": 16}), *pool("pool2", {"h20b": 16}, used={"h20b": 16}),
            resource_flavor("h20"), resource_flavor("h20b"), *extra]


TWO = ["--role", "name=prefill,kind=prefill,replicas=1,accelerator=1",
       "--role", "name=decode,kind=decode,replicas=1,accelerator=4,instance-type=pool2"]


def test_live_queues_sharing_node_labels_list_the_nodes_once(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver("create/crd-per-replica.yaml", _two_pools(node("gpu-0", 2)), namespace=NS)
    r = cli([*BASE, *TWO], env=env)
    assert r.stdout, r.stderr
    doc = json.loads(r.stdout)
    assert r.exit_code == 1, r.stderr
    assert [c for c in _checks(doc) if c[0] != "joint-check"] == [("no-node-fits", "decode"),
                                                                   ("waits-for-quota", "prefill")]
    assert _node_lists(server) == [""]


def test_live_forbidden_nodes_are_said_once(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import Forbid

    server, env = apiserver("create/crd-per-replica.yaml", _two_pools(node("gpu-0", 2)), namespace=NS,
                            forbid=[Forbid("list", "nodes")])
    r = cli([*BASE, *TWO], env=env)
    assert r.stdout, r.stderr
    doc = json.loads(r.stdout)
    assert r.exit_code == 0, r.stderr
    assert [c for c in _checks(doc) if c[0] != "joint-check"] == [
        ("skipped", ""), ("waits-for-quota", "decode"), ("waits-for-quota", "prefill")]
    assert len(_node_lists(server)) == 1
