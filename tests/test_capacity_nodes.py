"""`kubectl pd capacity` weighs Node allocatable: a Pod no Node of its flavors could hold is "never" (why-pending's
PodsUnschedulable, with the largest Node's allocatable against the request), never "fits N more" or "fits once
quota frees"; Nodes that cannot be read make the node part unknown and the exit code 1 (kubectl's Forbidden)."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd import kube
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.gather import parts_of
from kubectl_pd.create import nodes as nd
from kubectl_pd.gpustack.roles import PD_ATOMIC
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import ResourceFlavor, Snapshot, Taint, Toleration
from kubectl_pd.kueue.quantity import parse
from tests.builders import CARD, CREDITS, resource_flavor
from tests.test_capacity_count import NS, PD, pool, roles_of

GPU_LABEL = "nvidia.com/gpu.product"


def node(name: str, n_cards: int, labels: dict[str, str] | None = None,
         taints: list[dict[str, str]] | None = None, **extra: str) -> dict[str, Any]:
    """A Node offering `n_cards` cards of credits (and `extra` allocatable)."""
    spec: dict[str, Any] = {"taints": taints} if taints else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}}, "spec": spec,
            "status": {"allocatable": {CREDITS: str(n_cards * CARD), "cpu": "64", **extra}}}


def rec(name: str, n_cards: int, labels: dict[str, str] | None = None, taints: tuple[Taint, ...] = (),
        **extra: str) -> kube.Node:
    return kube.node(node(name, n_cards, labels, [{"key": t.key, "value": t.value, "effect": t.effect}
                                                   for t in taints], **extra))


def pod(n_cards: int, selector: dict[str, str] | None = None, tolerations: tuple[Toleration, ...] = (),
        **extra: int) -> ad.PodSetDemand:
    reqs = {CREDITS: Fraction(n_cards * CARD), **{k: Fraction(v) for k, v in extra.items()}}
    return ad.PodSetDemand("main", 1, reqs, selector or {}, tolerations=tolerations, role="main")


H100 = {GPU_LABEL: "H100"}
GPU_TAINT = Taint("gpu", "true", "NoSchedule")
TOLERATE_GPU = Toleration("gpu", "Exists", "", "")

# (case, flavor, nodes, pod) -> (resource, requested cards, largest cards, node) or None (a Node holds it)
TOO_SMALL = [
    ("a Node of 8 cards holds a Pod of 8", ResourceFlavor("f"), [rec("n1", 8)], pod(8), None),
    ("9 cards on Nodes of 8 and 4: the largest is n1", ResourceFlavor("f"), [rec("n1", 8), rec("n2", 4)], pod(9),
     (CREDITS, 9, 8, "n1")),
    ("no Node read: not weighed", ResourceFlavor("f"), [], pod(99), None),
    ("a Node without the resource allocates 0", ResourceFlavor("f"), [rec("n1", 0)], pod(1), (CREDITS, 1, 0, "n1")),
    ("the flavor's nodeLabels: the big Node is not the flavor's", ResourceFlavor("f", node_labels=H100),
     [rec("big", 16), rec("small", 4, H100)], pod(8), (CREDITS, 8, 4, "small")),
    ("the Pod's own nodeSelector narrows the Nodes", ResourceFlavor("f"),
     [rec("big", 16), rec("small", 4, {"k": "v"})], pod(8, {"k": "v"}), (CREDITS, 8, 4, "small")),
    ("an untolerated NoSchedule taint keeps the Pod off the big Node", ResourceFlavor("f"),
     [rec("big", 16, taints=(GPU_TAINT,)), rec("small", 4)], pod(8), (CREDITS, 8, 4, "small")),
    ("the flavor's tolerations let it on", ResourceFlavor("f", tolerations=(TOLERATE_GPU,)),
     [rec("big", 16, taints=(GPU_TAINT,)), rec("small", 4)], pod(8), None),
    ("the Pod's own tolerations let it on", ResourceFlavor("f"), [rec("big", 16, taints=(GPU_TAINT,))],
     pod(8, tolerations=(TOLERATE_GPU,)), None),
    ("a PreferNoSchedule taint keeps nothing off", ResourceFlavor("f"),
     [rec("big", 16, taints=(Taint("gpu", "true", "PreferNoSchedule"),))], pod(8), None),
    ("every Node tainted: none may take it", ResourceFlavor("f"), [rec("big", 16, taints=(GPU_TAINT,))], pod(1),
     (None, None, None, None)),
    ("each resource fits some Node, none holds both: the largest of the first (cpu), what it lacks",
     ResourceFlavor("f"),
     [rec("gpus", 8, cpu="2"), rec("cpus", 1, cpu="128")], pod(4, cpu=64), (CREDITS, 4, 1, "cpus")),
]


@pytest.mark.parametrize("case, flavor, nodes, ps, want", TOO_SMALL, ids=[c[0] for c in TOO_SMALL])
def test_too_small(case: str, flavor: ResourceFlavor, nodes: list[kube.Node], ps: ad.PodSetDemand,
                   want: tuple[Any, ...] | None) -> None:
    got = nd.too_small(flavor, nodes, ps)
    if want is None:
        assert got is None
        return
    assert got is not None
    resource, requested, largest, name = want
    assert (got.resource, got.node) == (resource, name)
    if resource == CREDITS:
        assert (got.requested, got.largest) == (requested * CARD, largest * CARD)
    assert got.nodes == len(nodes)


def test_node_of_keeps_what_a_fit_needs() -> None:
    obj = node("n1", 2, {"a": "b"}, [{"key": "k", "value": "v", "effect": "NoExecute"}], pods="x")
    got = kube.node(nd.keep(obj))
    assert got == kube.node(obj)
    assert (got.labels, got.taints, got.allocatable) == (
        {"a": "b"}, (Taint("k", "v", "NoExecute"),), {CREDITS: 2 * CARD, "cpu": 64, "pods": None})  # "x": no quantity
    assert not nd.holds(got, {"pods": Fraction(1)})  # what is not a quantity holds nothing
    assert nd.selector(ResourceFlavor("f", node_labels={"b": "2", "a": "1"})) == "a=1,b=2"


# ------------------------------------------------------------------------------------------- the count


def _snap(flavors: dict[str, int], labels: dict[str, dict[str, str]] | None = None, **kw: Any) -> Snapshot:
    objs = [*pool("pool", flavors, **kw), *(resource_flavor(f, (labels or {}).get(f)) for f in flavors)]
    return Snapshot.of(objs)


def _fit(**by_flavor: list[kube.Node]) -> nd.Fit:
    return nd.Fit({f: tuple(ns) for f, ns in by_flavor.items()})


BIG_ROLE = ("name=prefill,kind=prefill,replicas=1,accelerator=9", "name=decode,kind=decode,replicas=1")

# (case, flavors in cards, used, nodes per flavor, roles) -> (now, next code, never, flavor of the stop)
COUNTS = [
    ("Nodes of 8 hold 1-card Pods: the quota decides", {"h20": 9}, None, {"h20": [rec("n", 8)]}, PD,
     (3, "QuotaExhausted", False, "h20")),
    ("a 9-card Pod on Nodes of 8: never, though quota holds 4 copies", {"h20": 40}, None, {"h20": [rec("n", 8)]},
     BIG_ROLE, (0, sim.NODE_CODE, True, "h20")),
    ("never, not 'waits for quota', when the quota is full too", {"h20": 40}, {"h20": 40}, {"h20": [rec("n", 8)]},
     BIG_ROLE, (0, sim.NODE_CODE, True, "h20")),
    ("no Node read for the flavor: not weighed, the quota decides", {"h20": 40}, None, {"h20": []}, BIG_ROLE,
     (4, "QuotaExhausted", False, "h20")),
    ("Kueue's first flavor has small Nodes, the second big ones: admitted on the first, it never runs",
     {"a": 40, "b": 40}, None, {"a": [rec("s", 8)], "b": [rec("l", 16)]}, BIG_ROLE,
     (0, sim.NODE_CODE, False, "a")),
    ("the first flavor full: the copies go to the second, whose Nodes hold them; then quota (the first flavor "
     "the engine names)", {"a": 40, "b": 20}, {"a": 40}, {"a": [rec("s", 8)], "b": [rec("l", 16)]}, BIG_ROLE,
     (2, "QuotaExhausted", False, "a")),
]


@pytest.mark.parametrize("case, flavors, used, nodes, texts, want", COUNTS, ids=[c[0] for c in COUNTS])
def test_count_with_nodes(case: str, flavors: dict[str, int], used: dict[str, int] | None,
                          nodes: dict[str, list[kube.Node]], texts: tuple[str, ...],
                          want: tuple[int, str, bool, str]) -> None:
    snap = _snap(flavors, used=used)
    got = sim.count(snap, parts_of(roles_of(*texts), PD_ATOMIC, CREDITS, "pool"), fit=_fit(**nodes))
    assert got.stop is not None
    assert (got.now, got.stop.code, got.stop.never, got.stop.flavor) == want


def test_the_never_stop_carries_the_largest_node() -> None:
    snap = _snap({"h20": 40})
    got = sim.count(snap, parts_of(roles_of(*BIG_ROLE), PD_ATOMIC, CREDITS, "pool"),
                    fit=_fit(h20=[rec("n1", 4), rec("n2", 8)]))
    s = got.stop
    assert s is not None
    assert (s.role, s.resource, s.requested, s.capacity, s.needed, s.node, s.nodes) == (
        "prefill", CREDITS, 9 * CARD, 8 * CARD, 1 * CARD, "n2", 2)


# ------------------------------------------------------------------------------------------- the command


def _write(tmp_path: Path, objs: list[dict[str, Any]]) -> str:
    p = tmp_path / "snap.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(p)


BIG = ["--role", "name=prefill,kind=prefill,replicas=1,accelerator=9", "--role", "name=decode,kind=decode,replicas=1",
       "--instance-type", "pool", "-n", NS]


def _valid(doc: dict[str, Any]) -> None:
    import jsonschema

    from kubectl_pd.agent import schemas

    jsonschema.Draft202012Validator(schemas.SCHEMAS["capacity"]()).validate(doc)


def test_snapshot_with_nodes_says_never(cli: Callable, tmp_path: Path) -> None:
    f = _write(tmp_path, [*pool("pool", {"h20": 40}), resource_flavor("h20"), node("gpu-0", 8), node("gpu-1", 4)])
    r = cli(["capacity", *BIG, "-f", f, "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    _valid(doc)
    assert doc["schemaVersion"] == "1.3" and doc["now"] == 0
    nxt = doc["next"]
    assert (nxt["code"], nxt["never"], nxt["role"], nxt["flavor"], nxt["node"], nxt["nodes"]) == (
        sim.NODE_CODE, True, "prefill", "h20", "gpu-0", 2)
    assert [parse(nxt[k]) for k in ("requested", "capacity", "shortfall")] == [9 * CARD, 8 * CARD, CARD]
    assert doc["nodes"] == [{"flavor": "h20", "nodes": 2}]
    assert doc["byPreemption"]["reason"] == "policy-never"
    text = cli(["capacity", *BIG, "-f", f]).stdout
    assert "never on this configuration" in text and "gpu-0" in text


def test_per_role_says_never_for_the_big_role_only(cli: Callable, tmp_path: Path) -> None:
    f = _write(tmp_path, [*pool("pool", {"h20": 40}), resource_flavor("h20"), node("gpu-0", 8)])
    doc = json.loads(cli(["capacity", *BIG, "-f", f, "-o", "json"]).stdout)
    per = {r["role"]: (r["now"], r["next"]["code"], r["next"]["never"]) for r in doc["perRole"]}
    assert per == {"prefill": (0, sim.NODE_CODE, True), "decode": (40, "QuotaExhausted", False)}


def test_preempting_queue_says_never_too(cli: Callable, tmp_path: Path) -> None:
    objs = [*pool("pool", {"h20": 40}, preemption={"withinClusterQueue": "LowerPriority"}), resource_flavor("h20"),
            node("gpu-0", 8)]
    doc = json.loads(cli(["capacity", *BIG, "-f", _write(tmp_path, objs), "-o", "json"]).stdout)
    assert (doc["now"], doc["byPreemption"]["count"], doc["next"]["code"], doc["next"]["never"]) == (
        0, 0, sim.NODE_CODE, True)


def test_snapshot_without_nodes_is_not_weighed_and_says_so(cli: Callable, tmp_path: Path) -> None:
    f = _write(tmp_path, [*pool("pool", {"h20": 40}), resource_flavor("h20")])
    r = cli(["capacity", *BIG, "-f", f, "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["now"], doc["nodes"]) == (4, [{"flavor": "h20", "nodes": 0}])
    assert "Nodes:" in cli(["capacity", *BIG, "-f", f]).stdout


def test_live_nodes_are_listed_once_per_flavor_by_its_labels_and_paged(cli: Callable, apiserver: Callable) -> None:
    objs = [*pool("pool", {"a": 40, "b": 40}), resource_flavor("a", H100), resource_flavor("b"),
            node("small", 8, H100), node("large", 16)]
    server, env = apiserver(objs, namespace=NS)
    r = cli(["capacity", *BIG, "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    # flavor a (first) holds only the 8-card Node: Kueue would admit there and the Pod never runs
    assert (doc["now"], doc["next"]["code"], doc["next"]["never"], doc["next"]["flavor"]) == (0, sim.NODE_CODE,
                                                                                             False, "a")
    assert doc["nodes"] == [{"flavor": "a", "nodes": 1}, {"flavor": "b", "nodes": 2}]
    lists = [x.query for x in server.requests if x.method == "GET" and x.path == "/api/v1/nodes"]
    assert sorted(q.get("labelSelector", "") for q in lists) == ["", f"{GPU_LABEL}=H100"]
    assert all(q.get("limit") == "500" for q in lists)


def test_live_forbidden_nodes_make_the_node_part_unknown(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import Forbid

    server, env = apiserver([*pool("pool", {"h20": 40}), resource_flavor("h20"), node("gpu-0", 8)], namespace=NS,
                            forbid=[Forbid("list", "nodes")])
    r = cli(["capacity", *BIG, "-o", "json"], env=env)
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    _valid(doc)
    assert doc["nodes"] is None and [i["read"] for i in doc["incomplete"]] == ["Nodes"]
    assert doc["now"] == 4 and doc["next"]["code"] == "QuotaExhausted"  # the quota's part, said with the unknown
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    text = cli(["capacity", *BIG], env=env)
    assert text.exit_code == 1 and "Nodes:           unknown" in text.stdout


def test_no_finding_says_it_fits_once_quota_frees(cli: Callable, tmp_path: Path) -> None:
    """A full queue and a Pod no Node holds: create's preflight would warn "waits for quota"; capacity says never
    and drops that warning for the role (the other role's findings stay)."""
    objs = [*pool("pool", {"h20": 12}, used={"h20": 12}), resource_flavor("h20"), node("gpu-0", 8)]
    doc = json.loads(cli(["capacity", *BIG, "-f", _write(tmp_path, objs), "-o", "json"]).stdout)
    assert (doc["next"]["code"], doc["next"]["never"]) == (sim.NODE_CODE, True)
    # the decode role's, which only waits; prefill's is create's no-node-fits (its preflight weighs Nodes too)
    assert sorted(f["check"] for f in doc["findings"]) == ["no-node-fits", "waits-for-quota"]
    assert all("'prefill'" not in f["message"] for f in doc["findings"] if f["check"] == "waits-for-quota")


def test_a_taint_keyed_by_a_requested_extended_resource_is_tolerated() -> None:
    """Kubernetes' ExtendedResourceToleration admission tolerates, for a Pod requesting an extended resource, a
    NoSchedule taint keyed by it: such a tainted GPU Node is not counted out (no "never" on a guess)."""
    tainted = rec("gpu", 16, taints=(Taint(CREDITS, "", "NoSchedule"),))
    assert nd.too_small(ResourceFlavor("f"), [tainted], pod(8)) is None
    other = rec("gpu", 16, taints=(Taint(CREDITS, "", "NoExecute"),))  # NoSchedule only
    assert nd.too_small(ResourceFlavor("f"), [other], pod(8)) is not None


def test_a_preempting_pool_reads_each_thing_once(cli: Callable, apiserver: Callable) -> None:
    """Every count (each pod-set order, each role alone) asks the engine's preemption view, which asks for Kueue's
    ConfigMap: one request all the same, as every list (the Nodes too)."""
    from tests.test_capacity_count import admitted

    objs = [*pool("pool", {"h20": 8}, used={"h20": 5}, preemption={"withinClusterQueue": "LowerPriority"}),
            resource_flavor("h20"), admitted("low-a", "pool", "h20", 2, -1), admitted("low-b", "pool", "h20", 3, -1),
            node("gpu-0", 8)]
    server, env = apiserver(objs, namespace=NS)
    r = cli(["capacity", *BIG, "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    gets = [(x.path, tuple(sorted(x.query.items()))) for x in server.requests if x.method == "GET"]
    assert len(gets) == len(set(gets)), gets
    assert any(p == "/api/v1/nodes" for p, _ in gets)
