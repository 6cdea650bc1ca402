"""One resource model (issue 46, findings 1 and 2): whatever a ClusterQueue covers is weighed in its own unit by
every command, from kueue/resources.py. A plain `nvidia.com/gpu: 4` is 4 devices (never 6400k credits);
`capacity podgroup/NAME` on a plain-GPU group counts its cards; create's preflight weighs a plain-GPU quota and
the Nodes' allocatable. Asserted on codes and parameters."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.capacity import shape
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.gather import parts_of
from kubectl_pd.create import nodes as nd
from kubectl_pd.create import pods as pd
from kubectl_pd.create import preflight
from kubectl_pd.create.flags import CreateRequest, check_request, parse_role
from kubectl_pd.gpustack.roles import PD_ATOMIC
from kubectl_pd.kube import node as node_record
from kubectl_pd.kueue import resources as rs
from kubectl_pd.kueue.model import Snapshot
from kubectl_pd.labels import QUEUE_LABEL
from tests.builders import CREDITS, cluster_queue, resource_flavor

GPU = "nvidia.com/gpu"
NS = "team-a"

UNITS = [
    ("nvidia.com/gpu", rs.CARD, 1), ("amd.com/gpu", rs.CARD, 1), ("example.com/fpga", rs.CARD, 1),
    (CREDITS, rs.CREDIT, 1_600_000), ("credits.gpustack.ai/amd", rs.CREDIT, 1_600_000),
    ("cpu", rs.NATIVE, None), ("memory", rs.NATIVE, None), ("ephemeral-storage", rs.NATIVE, None),
    ("hugepages-2Mi", rs.NATIVE, None), ("pods", rs.NATIVE, None),
]


@pytest.mark.parametrize("resource, unit, per_card", UNITS, ids=[u[0] for u in UNITS])
def test_each_resource_in_its_own_unit(resource: str, unit: str, per_card: int | None) -> None:
    assert (rs.unit(resource), rs.per_card(resource)) == (unit, per_card)
    assert rs.is_accelerator(resource) is (per_card is not None)
    got = rs.cards_of(resource, Fraction(4 * (per_card or 1)))
    assert got == (Fraction(4) if per_card else None)


POD_CARDS = [
    ({GPU: "4", "cpu": "8"}, (GPU, 4)),
    ({CREDITS: "6400k", "memory": "1Gi"}, (CREDITS, 4)),
    ({CREDITS: "3200k", GPU: "1"}, (CREDITS, 2)),  # GPUStack's credits first where a Pod names both
    ({"cpu": "4"}, (None, 0)),
    ({}, (None, 0)),
]


@pytest.mark.parametrize("requests, want", POD_CARDS, ids=[str(c[0]) for c in POD_CARDS])
def test_a_pods_cards(requests: dict[str, str], want: tuple[str | None, int]) -> None:
    assert rs.pod_cards(requests) == want


def _roles(*texts: str) -> list[Any]:
    req = CreateRequest(name="x", namespace=NS, model="m", roles=tuple(parse_role(t) for t in texts),
                        target="pods", local_queue="research")
    checked = check_request(req)
    assert checked.problems == []
    return checked.roles


@pytest.mark.parametrize("resource, want", [(GPU, Fraction(4)), (CREDITS, Fraction(6_400_000))])
def test_role_demands_in_the_unit_of_the_resource(resource: str, want: Fraction) -> None:
    queue = preflight.role_demands(_roles("name=w,kind=prefill,replicas=1,accelerator=4"), PD_ATOMIC, resource, "q")
    ((_, members),) = queue.workloads
    ((_, ps),) = members
    assert ps.requests == {resource: want}


def gpu_node(name: str, n: int, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {GPU: str(n), "cpu": "64"}}}


A100, H100 = {"gpu": "a100"}, {"gpu": "h100"}


def layout() -> list[dict[str, Any]]:
    """Plain nvidia.com/gpu on two flavors with node labels, 8-card Nodes; research's maximum is 10."""
    research = cluster_queue("research", {"a100": "10"}, resource=GPU, cohort="org", used={"a100": "2"}, active=True)
    prod = cluster_queue("prod", {"h100": "8"}, resource=GPU, cohort="org", active=True,
                         limits={"h100": {"lendingLimit": "2"}})
    lqs = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": n, "namespace": NS},
            "spec": {"clusterQueue": n}, "status": {"conditions": [
                {"type": "Active", "status": "True", "reason": "Ready", "message": ""}]}} for n in ("research", "prod")]
    nodes = [gpu_node("a1", 8, A100), gpu_node("a2", 8, A100), gpu_node("h1", 8, H100)]
    return [research, prod, *lqs, resource_flavor("a100", A100), resource_flavor("h100", H100), *nodes]


def _fit(objs: list[dict[str, Any]]) -> nd.Fit:
    nodes = [node_record(o) for o in objs if o["kind"] == "Node"]
    flavors = {o["metadata"]["name"]: o["spec"]["nodeLabels"] for o in objs if o["kind"] == "ResourceFlavor"}
    return nd.Fit({f: tuple(n for n in nodes if all(n.labels.get(k) == v for k, v in lab.items()))
                   for f, lab in flavors.items()})


COUNTS = [  # (case, queue, cards a Pod, replicas: want now, next code, never)
    ("4-card Pods on prod's 8 cards: 2", "prod", 4, 1, 2, "QuotaExhausted", False),
    ("8-card Pods on 8-card Nodes: research's 8 free cards, 1", "research", 8, 1, 1, "QuotaExhausted", False),
    ("a 16-card Pod no 8-card Node holds: never, on the Nodes", "research", 16, 1, 0, sim.NODE_CODE, True),
]


@pytest.mark.parametrize("case, cq, n_cards, replicas, now, code, never", COUNTS, ids=[c[0] for c in COUNTS])
def test_capacity_counts_plain_gpus_in_cards(case: str, cq: str, n_cards: int, replicas: int, now: int, code: str,
                                             never: bool) -> None:
    objs = layout()
    parts = parts_of(_roles(f"name=w,kind=prefill,replicas={replicas},accelerator={n_cards}"), PD_ATOMIC, GPU, cq)
    got = sim.count(Snapshot.of(objs), parts, fit=_fit(objs))
    assert got.now == now
    assert got.stop is not None and (got.stop.code, got.stop.never) == (code, never)
    assert got.stop.requested is None or got.stop.requested <= n_cards * replicas  # never 1,600,000 a card


def test_a_plain_gpu_pod_group_counts_its_cards() -> None:
    req = CreateRequest(name="g", namespace=NS, model="m", target="pods", local_queue="prod", resource=GPU,
                        roles=(parse_role("name=w,kind=prefill,replicas=2,accelerator=4,image=i"),))
    roles = check_request(req).roles
    pods = pd.render_pods(req, roles, {"w": "prod"})
    assert pods[0]["spec"]["containers"][0]["resources"]["requests"] == {GPU: "4"}
    got_req, got_roles, _ = shape.from_pod_group(pods, "g", NS)
    assert [(r.name, r.replicas, r.accelerator) for r in got_roles] == [("w", 2, 4)]
    assert got_req.resource == GPU


# ----------------------------------------------------------------------------- end to end: files and loopback
def _write(tmp_path: Path, objs: list[dict[str, Any]]) -> str:
    path = tmp_path / "layout.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(path)


def test_capacity_on_plain_gpus_from_files(cli: Callable, tmp_path: Path) -> None:
    r = cli(["capacity", "--target", "pods", "--local-queue", "prod", "--role",
             "name=w,kind=prefill,replicas=1,accelerator=4", "-f", _write(tmp_path, layout()), "-n", NS, "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["now"], doc["next"]["code"], doc["next"]["requested"], doc["next"]["resource"]) == (
        2, "QuotaExhausted", "4", GPU)
    assert doc["roles"][0]["resource"] == GPU


def test_capacity_podgroup_on_plain_gpus(cli: Callable, tmp_path: Path) -> None:
    req = CreateRequest(name="g", namespace=NS, model="m", target="pods", local_queue="prod", resource=GPU,
                        roles=(parse_role("name=w,kind=prefill,replicas=1,accelerator=4,image=i"),))
    group_pods = pd.render_pods(req, check_request(req).roles, {"w": "prod"})
    r = cli(["capacity", f"podgroup/{pd.names.pod_group_name(NS, 'g')}", "-f",
             _write(tmp_path, [*layout(), *group_pods]), "-n", NS, "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["roles"][0]["accelerator"], doc["roles"][0]["resource"]) == (4, GPU)
    assert doc["now"] == 2  # the group is not admitted in this status: two copies of 4 on prod's 8


PREFLIGHT = ["create", "big", "--model", "m", "--target", "pods", "--local-queue", "research", "-n", NS,
             "--role", "name=w,kind=prefill,replicas=1,accelerator=16,image=img", "--preflight", "-o", "json"]


def _findings(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["check"]: f["params"] for f in doc["findings"]}


def test_preflight_weighs_a_plain_gpu_quota_and_the_nodes(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver(layout(), namespace=NS)
    r = cli(PREFLIGHT, env=env)
    doc = json.loads(r.stdout)
    assert (r.exit_code, doc["wouldCreate"]) == (1, False), r.stderr
    got = _findings(doc)
    assert {"never-fits", "no-node-fits"} <= set(got)
    never = got["never-fits"]
    assert (never["code"], never["flavor"], never["requested"], never["capacity"]) == (
        "QuotaExceedsCapacity", "a100", "16", "10")
    assert never["needed"] == "6"  # the group is short by 6 of the queue's maximum
    node = got["no-node-fits"]
    assert (node["resource"], node["requested"], node["largest"]) == (GPU, "16", "8")


def test_preflight_a_plain_gpu_group_that_waits(cli: Callable, apiserver: Callable) -> None:
    """8 cards on research (2 of 10 used): short by 0 of the maximum, 8 of the free 8: fits; 10: waits."""
    _, env = apiserver(layout(), namespace=NS)
    argv = [*PREFLIGHT]
    argv[argv.index("name=w,kind=prefill,replicas=1,accelerator=16,image=img")] = \
        "name=w,kind=prefill,replicas=2,accelerator=5,image=img"
    r = cli(argv, env=env)
    doc = json.loads(r.stdout)
    got = _findings(doc)
    assert (r.exit_code, doc["wouldCreate"]) == (0, True), r.stderr
    assert got["waits-for-quota"]["code"] == "QuotaExhausted"
    assert got["waits-for-quota"]["needed"] == "2"


def test_a_pod_groups_roles_by_kueues_role_hash_annotation() -> None:
    """Pods Kueue's webhook saw carry kueue.x-k8s.io/role-hash as an annotation (kueue.md §6.1): one role per hash,
    each counted in devices."""
    def pod(name: str, role_hash: str, n: int) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": NS, "labels": {QUEUE_LABEL: "prod"},
                             "annotations": {pd.ROLE_HASH: role_hash}},
                "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {GPU: str(n)}}}]}}

    _, roles, _ = shape.from_pod_group([pod("a", "1a2b3c4d", 2), pod("b", "1a2b3c4d", 2), pod("c", "9f8e7d6c", 8)],
                                       "g", NS)
    assert sorted((r.name, r.replicas, r.accelerator) for r in roles) == [("1a2b3c4d", 2, 2), ("9f8e7d6c", 1, 8)]


@pytest.mark.parametrize("resource, amount, want", [
    (CREDITS, Fraction(3_200_000), "2 cards"), (GPU, Fraction(4), "4 nvidia.com/gpu")])
def test_the_holders_of_the_quota_in_the_unit_of_the_screen(resource: str, amount: Fraction, want: str) -> None:
    """'Holding the quota: 3200k credits' on a card screen: credits are said in cards as the bars say them."""
    from kubectl_pd.kueue.preempt_answer import Answer, Holder
    from kubectl_pd.pending.preempt_render import text

    holder = Holder("other", "batch", "q", 0, "f", resource, amount, None, False)
    shown = text([Answer("ns/w", "q", holders=(holder,))])
    line = next(ln for ln in shown.splitlines() if "other/batch" in ln)
    assert want in line


def test_a_client_dry_run_reads_which_resource_a_card_is(cli: Callable, apiserver: Callable) -> None:
    """kubectl's client dry run still reads (issue 46, finding 9): with no --resource, the Pods' cards are the
    resource research covers, read with GETs only; nothing is written."""
    server, env = apiserver(layout(), namespace=NS)
    argv = ["create", "g", "--model", "m", "--target", "pods", "--local-queue", "research", "-n", NS,
            "--role", "name=w,kind=prefill,replicas=1,accelerator=4,image=img", "--dry-run=client", "-o", "json"]
    r = cli(argv, env=env)
    assert r.exit_code == 0, r.stderr
    pod = json.loads(r.stdout)
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {GPU: "4"}
    assert server.requests and set(server.methods) == {"GET"}


def test_a_client_dry_run_with_no_cluster_still_refuses(cli: Callable, tmp_path: Path) -> None:
    argv = ["create", "g", "--model", "m", "--target", "pods", "--local-queue", "research", "-n", NS,
            "--role", "name=w,kind=prefill,replicas=1,accelerator=4,image=img", "--dry-run=client", "-o", "json"]
    r = cli(argv, env={"KUBECONFIG": str(tmp_path / "none")})
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 1, r.stderr
