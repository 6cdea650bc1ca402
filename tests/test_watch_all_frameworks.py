"""The list with no TARGET (`why-pending -A`, its `--watch`) on what the PD frameworks make (issue 47): an LWS's
groups, a DisaggregatedSet's roles and a Deployment's Pods' Workloads are rows of their owner, named in kubectl's
KIND/NAME form with their role and group (pending/owners.as_owner). Pure tests of the owner links, then the
command against the loopback API server with the objects Kueue 0.19.2 and LWS v0.9.0 write (tests/frameworks.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubectl_pd import kube
from kubectl_pd.kueue.model import workload
from kubectl_pd.pending import owners
from tests import frameworks as fw

Obj = dict[str, Any]


def _lws(replicas: int = 2, admitted: int = 0) -> list[Obj]:
    o = fw.lws("vllm", replicas=replicas, size=2)
    return [o, *[x for i in range(replicas) for x in fw.lws_group(o, i, "admitted" if i < admitted else "pending")]]


def _ds(admitted: tuple[str, ...] = ("prefill",)) -> list[Obj]:
    ds, per_role = fw.disaggregated_set("pd", {"prefill": 1, "decode": 1})
    out: list[Obj] = [ds, *per_role]
    for one in per_role:
        role = one["metadata"]["labels"]["disaggregatedset.x-k8s.io/role"]
        out += fw.lws_group(one, 0, "admitted" if role in admitted else "pending")
    return out


def _deploy(replicas: int = 2, admitted: int = 1, role: str | None = None) -> list[Obj]:
    d = fw.deployment("llama", replicas, role=role)
    objs = [o for i in range(replicas) for o in fw.deployment_pod(d, i, "admitted" if i < admitted else "pending")]
    for o in objs:  # the Deployment controller's label on each of its Pods
        if o["kind"] == "Pod":
            o["metadata"]["labels"]["pod-template-hash"] = "7d9f6c5b"
    return [d, *objs]


def _one(objs: list[Obj], index: int = -1) -> tuple[Any, list[kube.Pod]]:
    """A Workload of OBJS (the last by default) and its Pods (its group by annotation, or its own Pod)."""
    wl_obj = [o for o in objs if o["kind"] == "Workload"][index]
    wl = workload(wl_obj)
    pods = [kube.pod(o) for o in objs if o["kind"] == "Pod"]
    mine = [p for p in pods if p.annotations.get("kueue.x-k8s.io/pod-group-name") == wl.name
            or any(k == "Pod" and u == p.uid for k, _n, u in wl.owners)]
    return wl, mine


LINKS = [
    # (case, objects, (owner kind, name), role, group)
    ("an LWS group: its LWS, no role label (the LWS's name), its group index", _lws(), ("LeaderWorkerSet", "vllm"),
     "vllm", "1"),
    ("a DisaggregatedSet role's group: the set, its role label", _ds(), ("DisaggregatedSet", "pd"), "decode", "0"),
    ("a Deployment's Pod: the Deployment (its ReplicaSet less the pod-template-hash), the Pod", _deploy(),
     ("Deployment", "llama"), "llama", "llama-7d9f6c5b-bx1"),
    ("a Deployment labelled by llm-d's role", _deploy(role="decode"), ("Deployment", "llama"), "decode",
     "llama-7d9f6c5b-bx1"),
]


@pytest.mark.parametrize("case, objs, owner, role, group", LINKS, ids=[c[0] for c in LINKS])
def test_a_workload_links_to_its_owner(case: str, objs: list[Obj], owner: tuple[str, str], role: str,
                                       group: str) -> None:
    wl, pods = _one(objs)
    assert owners.owner_of(wl, pods) == owner
    assert owners.role_of(wl, pods) == role
    assert owners.group_of(wl, pods) == group


def test_a_pod_group_of_no_framework_has_no_owner() -> None:
    from tests.realcluster import objs as robjs

    wl = workload(robjs.workload("team-a", "pg-1", "lq", [("prefill", 1, {fw.GPU: "1"})]))
    assert owners.owner_of(wl, []) is None and owners.runner_of(wl, []) is None


def test_a_pod_whose_replicaset_is_not_named_for_a_deployment_has_none() -> None:
    objs = _deploy()
    for o in objs:
        if o["kind"] == "Pod":
            o["metadata"]["labels"]["pod-template-hash"] = "other"
    wl, pods = _one(objs)
    assert owners.owner_of(wl, pods) is None


# ------------------------------------------------------------------------------------------------ the list, live

def _items(cli: Any, env: dict[str, str], *more: str) -> list[Obj]:
    r = cli(["why-pending", "-A", "-o", "json", *more], env=env)
    assert r.exit_code in (0, 1), r.stderr
    return list(json.loads(r.stdout)["items"])


def _rows(cli: Any, env: dict[str, str]) -> list[list[str]]:
    r = cli(["why-pending", "-A"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:3] == ["NAMESPACE", "TARGET", "ROLE"]
    return [ln.split()[:4] for ln in lines[1:]]


LISTS = [
    # (case, objects, [(target kind, name, role, group)] of the JSON items, [(TARGET, ROLE)] of the table)
    ("an LWS of two waiting groups: two rows of the LWS", _lws(), [
        ("LeaderWorkerSet", "vllm", "vllm", "0"), ("LeaderWorkerSet", "vllm", "vllm", "1")],
     [("leaderworkerset/vllm", "vllm[0]"), ("leaderworkerset/vllm", "vllm[1]")]),
    ("a DisaggregatedSet whose decode waits: a row of the set, role decode", _ds(),
     [("DisaggregatedSet", "pd", "decode", "0")], [("disaggregatedset/pd", "decode[0]")]),
    ("a Deployment with one Pod gated: a row of the Deployment, its Pod", _deploy(),
     [("Deployment", "llama", "llama", "llama-7d9f6c5b-bx1")], [("deployment/llama", "llama[llama-7d9f6c5b-bx1]")]),
    ("a Deployment of llm-d's decode role", _deploy(role="decode"),
     [("Deployment", "llama", "decode", "llama-7d9f6c5b-bx1")],
     [("deployment/llama", "decode[llama-7d9f6c5b-bx1]")]),
]


@pytest.mark.parametrize("case, objs, items, table", LISTS, ids=[c[0] for c in LISTS])
def test_the_list_names_the_owner(cli: Any, apiserver: Any, case: str, objs: list[Obj],
                                  items: list[tuple[str, str, str, str]], table: list[tuple[str, str]]) -> None:
    _server, env = apiserver([*fw.queues(gpus=2, used=2), *objs], groups=fw.groups())
    got = _items(cli, env)
    assert sorted((i["target"]["kind"], i["target"]["name"], i["workloads"][0]["role"], i["workloads"][0]["group"])
                  for i in got) == items
    assert all(len(i["workloads"]) == 1 and not i["workloads"][0]["admitted"] for i in got)
    assert {i["workloads"][0]["name"] for i in got} == {
        o["metadata"]["name"] for o in objs if o["kind"] == "Workload" and "admission" not in o["status"]}
    assert all(i["reasons"][0]["code"] == "QuotaExhausted" for i in got)
    assert sorted((r[1], r[2]) for r in _rows(cli, env)) == table
    _valid(got)


def test_the_list_by_name_names_the_owner(cli: Any, apiserver: Any) -> None:
    _server, env = apiserver([*fw.queues(gpus=2, used=2), *_lws()], groups=fw.groups())
    r = cli(["why-pending", "-A", "-o", "name"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    assert r.stdout.splitlines() == ["leaderworkerset.leaderworkerset.x-k8s.io/vllm"]  # once, as kubectl's -o name


def test_a_hand_made_pod_group_stays_a_pod_group(cli: Any, apiserver: Any) -> None:
    from tests.realcluster import objs as robjs

    pods = [robjs.group_pod(fw.NS, f"pg-{role}", "pg", 2, fw.LQ, role, {fw.GPU: "1"}) for role in ("p", "d")]
    wl = robjs.workload(fw.NS, "pg", fw.LQ, [("p", 1, {fw.GPU: "1"}), ("d", 1, {fw.GPU: "1"})])
    _server, env = apiserver([*fw.queues(gpus=1, used=1), *pods, wl], groups=fw.groups())
    got = _items(cli, env)
    assert [(i["target"]["kind"], i["target"]["name"]) for i in got] == [("PodGroup", "pg")]


def test_the_watch_keeps_a_row_per_group(cli: Any, apiserver: Any) -> None:
    """-A --watch: the two groups of one LWS are two rows (keyed by their Workloads), each shown as the LWS's."""
    from tests.apiserver_watch import script

    server, env = apiserver([*fw.queues(gpus=2, used=2), *_lws()], groups=fw.groups())
    script(server, [[]])
    r = cli(["why-pending", "-A", "--watch", "--watch-rounds", "1"], env=env)
    assert r.exit_code == 0, r.stderr
    rows = [ln.split()[:3] for ln in r.stdout.splitlines()[2:]]
    assert sorted(rows) == [[fw.NS, "leaderworkerset/vllm", "vllm[0]"], [fw.NS, "leaderworkerset/vllm", "vllm[1]"]]


def _valid(items: list[Obj]) -> None:
    import jsonschema

    from kubectl_pd.agent import schemas
    from kubectl_pd.contract import WHY_PENDING

    doc = {"schemaVersion": WHY_PENDING, "items": items, "notes": []}
    schema = schemas.SCHEMAS["why-pending"]()
    list_schema = next((s for s in schema.get("oneOf", []) if "items" in s.get("properties", {})), None)
    jsonschema.Draft202012Validator(list_schema or schema).validate(doc if list_schema else items[0])
