"""`kubectl pd capacity` on what the PD frameworks make (issue 47): one more copy is one more group of the
deployment (an LWS group: leader + workers; a DisaggregatedSet: a group of every role, each its own Workload; a
Deployment: one Pod's Workload), modeled on the Workloads Kueue built, counted in the queue's own units. Pure tests
of the model, then the command against the loopback API server with the objects Kueue 0.19.2 and LWS v0.9.0 write
(tests/frameworks.py)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd.capacity import owner
from kubectl_pd.kueue.model import workload
from kubectl_pd.pending import owners
from tests import frameworks as fw

Obj = dict[str, Any]


def _typed(objs: list[Obj]) -> list[Any]:
    return [workload(o) for o in objs if o["kind"] == "Workload"]


def _pods(objs: list[Obj]) -> list[Any]:
    from kubectl_pd import kube

    return [kube.pod(o) for o in objs if o["kind"] == "Pod"]


def _lws(replicas: int = 2, size: int = 2, admitted: int = 1, gpus: int = 1) -> tuple[Obj, list[Obj]]:
    o = fw.lws("vllm", replicas=replicas, size=size, gpus=gpus)
    groups = [x for i in range(replicas) for x in fw.lws_group(o, i, "admitted" if i < admitted else "pending",
                                                                 gpus=gpus)]
    return o, groups


def _ds(admitted: tuple[str, ...] = ("prefill",)) -> tuple[Obj, list[Obj]]:
    ds, per_role = fw.disaggregated_set("pd", {"prefill": 1, "decode": 1})
    objs: list[Obj] = list(per_role)
    for one in per_role:
        role = one["metadata"]["labels"]["disaggregatedset.x-k8s.io/role"]
        objs += fw.lws_group(one, 0, "admitted" if role in admitted else "pending")
    return ds, objs


def _deploy(replicas: int = 4, admitted: int = 3, role: str | None = None) -> tuple[Obj, list[Obj]]:
    d = fw.deployment("llama", replicas, role=role)
    objs = [o for i in range(replicas) for o in fw.deployment_pod(d, i, "admitted" if i < admitted else "pending")]
    for o in objs:  # the Deployment controller's label on each Pod (its ReplicaSet is `<deployment>-<hash>`)
        if o["kind"] == "Pod":
            o["metadata"]["labels"]["pod-template-hash"] = "7d9f6c5b"
    return d, objs


def _llmisvc() -> tuple[Obj, list[Obj]]:
    """An LLMInferenceService `qwen` whose KServe Deployments are `qwen-kserve` (decode, 2 Pods) and
    `qwen-kserve-prefill` (prefill, 1 Pod), each Pod its own Workload, all admitted."""
    svc = {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService",
           "metadata": {"name": "qwen", "namespace": fw.NS, "uid": "uid-llmisvc-qwen"}, "spec": {}}
    objs: list[Obj] = []
    for name, n, role in (("qwen-kserve", 2, "decode"), ("qwen-kserve-prefill", 1, "prefill")):
        d = fw.deployment(name, n, role=role)
        objs += [d, *[o for i in range(n) for o in fw.deployment_pod(d, i, "admitted")]]
    return svc, objs


def _sts() -> tuple[Obj, list[Obj]]:
    """A StatefulSet of 2 Pods of 1 card: one Workload (`statefulset-<name>-<hash>`, pod set main x2), admitted."""
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "serve", "namespace": fw.NS, "uid": "uid-sts-serve",
                        "labels": {"kueue.x-k8s.io/queue-name": fw.LQ}},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "serve"}}}}
    wl = fw.group_workload(fw.workload_name("StatefulSet", "apps", "serve", "uid-sts-serve"), sts, [("main", 2, 1)],
                           "admitted", labels={"app": "serve"})
    return sts, [wl]


# ------------------------------------------------------------------------------------------------ pure: the model

def _role(objs: list[Obj]) -> Any:
    pods = _pods(objs)
    by_wl: dict[str, list[Any]] = {}
    for p in pods:
        g = p.annotations.get("kueue.x-k8s.io/pod-group-name") or p.labels.get("kueue.x-k8s.io/pod-group-name")
        if g:
            by_wl.setdefault(g, []).append(p)
    uid_wl = {u: w.name for w in _typed(objs) for k, _n, u in w.owners if k == "Pod"}
    for p in pods:
        if p.uid in uid_wl and not by_wl.get(uid_wl[p.uid]):
            by_wl.setdefault(uid_wl[p.uid], []).append(p)
    return lambda w: owners.role_of(w, by_wl.get(w.name, []))


MODELS = [
    # (case, objects, [(role, groups, pods a group, resource, cards a Pod)])
    ("an LWS: one role (the LWS), a group of leader + worker", _lws(2, 2)[1], [("vllm", 2, 2, fw.GPU, 1)]),
    ("an LWS of size 4 and 2 cards a Pod", _lws(3, 4, gpus=2)[1], [("vllm", 3, 4, fw.GPU, 2)]),
    ("a DisaggregatedSet: a role per LWS, named by the set's role label", _ds()[1],
     [("decode", 1, 2, fw.GPU, 1), ("prefill", 1, 2, fw.GPU, 1)]),
    ("a Deployment: one Pod a group, named for the Deployment", _deploy()[1], [("llama", 4, 1, fw.GPU, 1)]),
    ("a Deployment whose Pods carry llm-d's role", _deploy(role="decode")[1], [("decode", 4, 1, fw.GPU, 1)]),
]


@pytest.mark.parametrize("case, objs, want", MODELS, ids=[m[0] for m in MODELS])
def test_the_copy_is_one_group_of_each_role(case: str, objs: list[Obj], want: list[Any]) -> None:
    got = owner.model(_typed(objs), _role(objs))
    assert [(m.role, m.groups, m.pods, m.resource, m.cards) for m in got] == want


def test_the_newest_workload_of_a_role_is_the_model() -> None:
    _o, objs = _lws(2, 2)
    wls = [o for o in objs if o["kind"] == "Workload"]
    wls[1]["metadata"]["creationTimestamp"] = "2026-12-07T11:00:00Z"
    wls[1]["spec"]["podSets"][1]["count"] = 3  # the template changed: three workers now
    got = owner.model(_typed(objs), lambda w: "vllm")
    assert (got[0].workload.name, got[0].pods) == (wls[1]["metadata"]["name"], 4)


def test_finished_workloads_are_no_model() -> None:
    _o, objs = _lws(1, 2)
    wl = next(o for o in objs if o["kind"] == "Workload")
    wl["status"]["conditions"].append({"type": "Finished", "status": "True", "reason": "Succeeded", "message": ""})
    assert owner.model(_typed(objs), lambda w: "vllm") == []


def test_a_part_names_its_role_on_every_pod_set() -> None:
    _o, objs = _lws(1, 3)
    m = owner.model(_typed(objs), lambda w: "vllm")[0]
    part = owner.parts_of(m, fw.CQ)
    assert (part.cluster_queue, part.workload) == (fw.CQ, "vllm")
    assert [(p.name, p.count, p.role, p.requests[fw.GPU]) for p in part.demand.pod_sets] == [
        ("leader", 1, "vllm", Fraction(1)), ("worker", 2, "vllm", Fraction(1))]


# ------------------------------------------------------------------------------------------------ the command, live

def _capacity(cli: Any, env: dict[str, str], *args: str) -> tuple[int, Obj]:
    r = cli(["capacity", *args, "-n", fw.NS, "-o", "json"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    return r.exit_code, json.loads(r.stdout)


LIVE = [
    # (case, objects, gpus, used, targets, kind, now, roles (name, replicas, size, accelerator), perRole now)
    ("an LWS of 2-Pod groups: 6 free GPUs hold 3 more groups", lambda: [*_lws()[1], _lws()[0]], 8, 2,
     ("lws/vllm", "leaderworkerset/vllm", "vllm"), "LeaderWorkerSet", 3, [("vllm", 2, 2, 1)], {}),
    ("a DisaggregatedSet: one group of every role is 4 GPUs, 6 free hold 1; each role alone 3", lambda: [
        _ds()[0], *_ds()[1]], 8, 2, ("ds/pd", "disaggregatedset/pd", "pd"), "DisaggregatedSet", 1,
     [("decode", 1, 2, 1), ("prefill", 1, 2, 1)], {"decode": 3, "prefill": 3}),
    ("a Deployment: one replica is one Pod's Workload", lambda: [_deploy()[0], *_deploy()[1]], 6, 3,
     ("deploy/llama", "deployment/llama", "llama"), "Deployment", 3, [("llama", 4, 1, 1)], {}),
    ("an LLMInferenceService: a decode Pod and a prefill Pod a copy, 5 free hold 2; each alone 5",
     lambda: [_llmisvc()[0], *_llmisvc()[1]], 8, 3, ("llmisvc/qwen", "llminferenceservice/qwen", "qwen"),
     "LLMInferenceService", 2, [("decode", 2, 1, 1), ("prefill", 1, 1, 1)], {"decode": 5, "prefill": 5}),
    ("a StatefulSet: its Workload of 2 Pods, 6 free hold 3", lambda: [_sts()[0], *_sts()[1]], 8, 2,
     ("sts/serve", "statefulset/serve", "serve"), "StatefulSet", 3, [("serve", 1, 2, 1)], {}),
]


@pytest.mark.parametrize("case, make, gpus, used, targets, kind, now, roles, per_role", LIVE,
                         ids=[c[0] for c in LIVE])
def test_capacity_of_a_framework_target(cli: Any, apiserver: Any, case: str, make: Any, gpus: int, used: int,
                                        targets: tuple[str, ...], kind: str, now: int, roles: list[Any],
                                        per_role: dict[str, int]) -> None:
    _server, env = apiserver([*fw.queues(gpus=gpus, used=used), *make()], groups=fw.groups())
    for target in targets:
        code, doc = _capacity(cli, env, target)
        assert code == 0, (target, doc)
        assert (doc["target"]["kind"], doc["now"], doc["atLeast"]) == (kind, now, False), target
        assert [(r["name"], r["replicas"], r["size"], r["accelerator"]) for r in doc["roles"]] == roles
        assert {r["localQueue"] for r in doc["roles"]} == {fw.LQ}
        assert {r["clusterQueue"] for r in doc["roles"]} == {fw.CQ}
        assert {r["resource"] for r in doc["roles"]} == {fw.GPU}
        assert {r["role"]: r["now"] for r in doc["perRole"]} == per_role
        assert doc["next"]["code"] in ("QuotaExhausted", "NeedsPreemption")
        assert (doc["next"]["clusterQueue"], doc["next"]["resource"], doc["next"]["flavor"]) == (
            fw.CQ, fw.GPU, fw.FLAVOR)
        assert {w["role"] for w in doc["target"]["workloads"]} == {r[0] for r in roles}
        _valid(doc)


def test_the_next_group_is_short_in_the_queues_own_units(cli: Any, apiserver: Any) -> None:
    """A group of 4 Pods of 2 cards (8) on a queue of 16 with 8 used: 1 more; the next one's leader asks 2 of 0."""
    o, objs = _lws(replicas=1, size=4, admitted=1, gpus=2)
    _server, env = apiserver([*fw.queues(gpus=16, used=8), o, *objs], groups=fw.groups())
    code, doc = _capacity(cli, env, "lws/vllm")
    assert code == 0
    assert (doc["now"], doc["roles"][0]["size"], doc["roles"][0]["accelerator"]) == (1, 4, 2)
    nxt = doc["next"]
    assert (nxt["code"], nxt["podSet"], nxt["role"], nxt["requested"], nxt["available"], nxt["capacity"],
            nxt["shortfall"]) == ("QuotaExhausted", "leader", "vllm", "2", "0", "16", "2")
    assert [(f["podSet"], f["flavor"]) for f in doc["flavors"]] == [("leader", fw.FLAVOR), ("worker", fw.FLAVOR)]


@pytest.mark.parametrize("finished", [False, True], ids=["no-workload", "every-workload-finished"])
def test_no_workload_is_exit_1_with_no_count(cli: Any, apiserver: Any, finished: bool) -> None:
    o, objs = _lws(replicas=1)
    for wl in objs if finished else ():
        if wl["kind"] == "Workload":
            wl["status"]["conditions"].append({"type": "Finished", "status": "True", "reason": "Succeeded",
                                               "message": ""})
    _server, env = apiserver([*fw.queues(), o, *(objs if finished else [])], groups=fw.groups())
    r = cli(["capacity", "lws/vllm", "-n", fw.NS, "-o", "json"], env=env)
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr


@pytest.mark.parametrize("target", ["lws/nope", "ds/nope", "deploy/nope", "nope"])
def test_a_missing_target_is_not_found(cli: Any, apiserver: Any, target: str) -> None:
    _server, env = apiserver([*fw.queues()], groups=fw.groups())
    r = cli(["capacity", target, "-n", fw.NS], env=env)
    assert r.exit_code == 1 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr


def test_an_unreadable_workload_list_is_incomplete(cli: Any, apiserver: Any) -> None:
    from tests.apiserver import Forbid

    o, objs = _lws()
    _server, env = apiserver([*fw.queues(gpus=8, used=2), o, *objs], groups=fw.groups(),
                             forbid=[Forbid("list", "workloads")])
    code, doc = _capacity(cli, env, "lws/vllm")
    assert code == 1
    assert doc["now"] is None and doc["incomplete"]


def test_an_unreadable_local_queue_is_incomplete(cli: Any, apiserver: Any) -> None:
    from tests.apiserver import Forbid

    o, objs = _lws()
    _server, env = apiserver([*fw.queues(gpus=8, used=2), o, *objs], groups=fw.groups(),
                             forbid=[Forbid("get", "localqueues")])
    code, doc = _capacity(cli, env, "lws/vllm")
    assert code == 1
    assert doc["now"] is None
    assert [i["read"] for i in doc["incomplete"]] == [f"LocalQueue {fw.NS}/{fw.LQ}"]


def test_each_read_once(cli: Any, apiserver: Any) -> None:
    ds, objs = _ds()
    server, env = apiserver([*fw.queues(gpus=8, used=2), ds, *objs], groups=fw.groups())
    code, _doc = _capacity(cli, env, "ds/pd")
    assert code == 0
    gets = [(r.path, tuple(sorted(r.query.items()))) for r in server.requests if r.method == "GET"]
    assert len(gets) == len(set(gets)), gets


def _valid(doc: Obj) -> None:
    import jsonschema

    from kubectl_pd.agent import schemas

    jsonschema.Draft202012Validator(schemas.SCHEMAS["capacity"]()).validate(doc)


OFFLINE = [("lws/vllm", _lws, 3), ("ds/pd", _ds, 1), ("deploy/llama", _deploy, 6), ("llama", _deploy, 6)]


@pytest.mark.parametrize("target, make, now", OFFLINE, ids=[c[0] for c in OFFLINE])
def test_from_a_snapshot(cli: Any, tmp_path: Any, target: str, make: Any, now: int) -> None:
    """-f: the same answer from the objects written to a file (nothing live)."""
    import yaml

    o, objs = make()
    f = tmp_path / "snap.yaml"
    f.write_text(yaml.safe_dump_all([*fw.queues(gpus=8, used=2), o, *objs]))
    r = cli(["capacity", target, "-n", fw.NS, "-f", str(f), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["target"]["kind"], doc["now"]) == (o["kind"], now)


@pytest.mark.parametrize(("typed", "want"), [("lws/", ["lws/vllm"]), ("ds/", ["ds/pd"]),
                                             ("deploy/ll", ["deploy/llama"])])
def test_tab_offers_the_frameworks_names(cli: Any, apiserver: Any, typed: str, want: list[str]) -> None:
    from tests.test_completion import directive, values

    ds, _per_role = fw.disaggregated_set("pd", {"prefill": 1})
    _server, env = apiserver([fw.lws("vllm"), ds, fw.deployment("llama", 1)], groups=fw.groups(), namespace=fw.NS)
    r = cli(["__complete", "capacity", typed], env=env)
    assert r.exit_code == 0, r.stderr
    assert values(r.stdout) == want and directive(r.stdout) == 4


def test_the_queue_lists_go_out_with_the_targets_first_reads() -> None:
    """The lists the snapshot needs (ClusterQueues, Cohorts, flavors) need nothing of the target: they go out in
    the first round, beside the DisaggregatedSet and its LWS; the LocalQueue (named by the Workloads) and the
    Nodes (by the flavors) after (tests/test_two_rounds.Far: every read delayed and logged)."""
    from kubectl_pd.capacity.run import run_owner
    from tests.test_two_rounds import Far

    ds, objs = _ds()
    src = Far([*fw.queues(gpus=8, used=2), ds, *objs])
    a, _plan = run_owner(src, "DisaggregatedSet", "pd", fw.NS)
    assert a.copies.now == 1
    rounds = src.rounds()
    first = {w for d, w in rounds if d == 1}
    assert {"list ClusterQueue", "list Cohort", "list ResourceFlavor", "get DisaggregatedSet"} <= first, rounds
    assert max(d for d, _w in rounds) == 4, rounds  # + the Workloads and Pods, the LocalQueue, the Nodes


def test_the_mcp_tool_takes_a_framework_target() -> None:
    """pd_capacity with target ds/NAME: the same document (the snapshot given inline, nothing live)."""
    from kubectl_pd.agent import tools
    from kubectl_pd.agent.run import run

    ds, objs = _ds()
    snap = json.dumps({"apiVersion": "v1", "kind": "List", "items": [*fw.queues(gpus=8, used=2), ds, *objs]})
    a = tools.call("pd_capacity", {"target": "ds/pd", "namespace": fw.NS, "snapshot": snap}, tools.Guard(), [], run)
    assert a.code == 0 and a.document is not None, a.text
    assert (a.document["target"]["kind"], a.document["now"]) == ("DisaggregatedSet", 1)
    assert {r["role"]: r["now"] for r in a.document["perRole"]} == {"decode": 3, "prefill": 3}


def test_a_workload_naming_no_queue_is_incomplete(cli: Any, apiserver: Any) -> None:
    """A role whose Workload names no LocalQueue: where its copy would go is unknown (exit 1, no count)."""
    o, objs = _lws()
    for wl in objs:
        if wl["kind"] == "Workload":
            del wl["spec"]["queueName"]
    _server, env = apiserver([*fw.queues(gpus=8, used=2), o, *objs], groups=fw.groups())
    code, doc = _capacity(cli, env, "lws/vllm")
    assert code == 1 and doc["now"] is None
    assert [r["localQueue"] for r in doc["roles"]] == [None]
    assert len(doc["incomplete"]) == 1
