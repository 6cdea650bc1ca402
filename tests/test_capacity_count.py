"""`kubectl pd capacity`: the count of copies (pure, over the one engine), then the command from a snapshot and
against the loopback API server."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.gather import parts_of
from kubectl_pd.create.flags import CreateRequest, check_request, parse_role
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import Snapshot
from tests.builders import CARD, CREDITS, cards, cluster_queue, resource_flavor

ACTIVE = {"conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": ""}]}
NS = "team-a"


def instance_type(name: str, lq: str) -> dict[str, Any]:
    return {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "InstanceType", "metadata": {"name": name},
            "status": {"entrance": lq}}


def local_queue(name: str, cq: str) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": name, "namespace": NS},
            "spec": {"clusterQueue": cq}, "status": ACTIVE}


def admitted(name: str, cq: str, flavor: str, n_cards: int, priority: int = 0) -> dict[str, Any]:
    """An admitted Workload holding `n_cards` of `flavor` on `cq`."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "other", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"priority": priority, "queueName": "x", "podSets": [{"name": "main", "count": 1}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                       "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                                      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": ""}],
                       "admission": {"clusterQueue": cq, "podSetAssignments": [
                           {"name": "main", "flavors": {CREDITS: flavor}, "resourceUsage": {CREDITS: cards(n_cards)},
                            "count": 1}]}}}


def pool(name: str, flavors: dict[str, int], *, used: dict[str, int] | None = None, cohort: str | None = None,
         preemption: dict[str, Any] | None = None, limits: dict[str, Any] | None = None,
         fungibility: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """A GPUStack pool: its ClusterQueue (flavors in order, quota in cards), InstanceType and LocalQueue."""
    cq = cluster_queue(name, {f: cards(n) for f, n in flavors.items()}, resource=CREDITS, cohort=cohort,
                       used={f: cards(n) for f, n in (used or {}).items()}, preemption=preemption,
                       limits={f: {k: cards(v) for k, v in lim.items()} for f, lim in (limits or {}).items()},
                       active=True)
    if fungibility:
        cq["spec"]["flavorFungibility"] = fungibility
    return [cq, instance_type(name, f"{name}-lq"), local_queue(f"{name}-lq", name)]


def snapshot(objs: list[dict[str, Any]]) -> Snapshot:
    return Snapshot.of(objs)


def roles_of(*texts: str, it: str = "pool") -> list[Any]:
    req = CreateRequest(name="x", namespace=NS, model="m", roles=tuple(parse_role(t) for t in texts),
                        instance_type=it)
    checked = check_request(req)
    assert checked.problems == []
    return checked.roles


PD = ("name=prefill,kind=prefill,replicas=1", "name=decode,kind=decode,replicas=2")

# (case, objects, roles, profile, want: now, by borrowing, next code, never)
COUNT_CASES = [
    ("empty pool of 9 cards: 3 copies of 1+2", pool("pool", {"h20": 9}), PD, PD_ATOMIC, 3, 0, "QuotaExhausted",
     False),
    ("8 cards, 1 used: 2 copies, then 2 cards short", pool("pool", {"h20": 8}, used={"h20": 1}), PD, PD_ATOMIC, 2, 0,
     "QuotaExhausted", False),
    ("a copy larger than the pool: never", pool("pool", {"h20": 2}), PD, PD_ATOMIC, 0, 0, "QuotaExceedsCapacity",
     True),
    ("two flavors, each copy placed whole in the first that fits",
     pool("pool", {"a": 4, "b": 3}), PD, PD_ATOMIC, 2, 0, "QuotaExhausted", False),
    ("per-replica: one Workload per replica group, 2 cards each x 2 decode + 1 prefill",
     pool("pool", {"h20": 7}), ("name=prefill,kind=prefill,replicas=1,accelerator=2",
                                "name=decode,kind=decode,replicas=2"), PER_REPLICA, 1, 0, "QuotaExhausted", False),
    ("borrowing from a cohort peer's unused quota, said apart",
     [*pool("pool", {"h20": 6}, cohort="team"),
      cluster_queue("peer", {"h20": cards(4)}, resource=CREDITS, cohort="team", used={"h20": cards(1)})],
     PD, PD_ATOMIC, 3, 1, "QuotaExhausted", False),
    ("borrowing limit bounds it", [*pool("pool", {"h20": 6}, cohort="team", limits={"h20": {"borrowingLimit": 1}}),
                                   cluster_queue("peer", {"h20": cards(8)}, resource=CREDITS, cohort="team")],
     PD, PD_ATOMIC, 2, 0, "QuotaExhausted", False),
    ("lending limit of the peer bounds it", [*pool("pool", {"h20": 6}, cohort="team"),
                                             cluster_queue("peer", {"h20": cards(8)}, resource=CREDITS, cohort="team",
                                                           limits={"h20": {"lendingLimit": cards(3)}})],
     PD, PD_ATOMIC, 3, 1, "QuotaExhausted", False),
]


def _count(objs: list[dict[str, Any]], texts: tuple[str, ...], profile: str, limit: int = 1000) -> sim.Count:
    snap = snapshot([*objs, resource_flavor("h20"), resource_flavor("a"), resource_flavor("b")])
    return sim.count(snap, parts_of(roles_of(*texts), profile, CREDITS, "pool"), limit=limit)


@pytest.mark.parametrize("case, objs, texts, profile, now, borrowing, code, never", COUNT_CASES,
                         ids=[c[0] for c in COUNT_CASES])
def test_count(case: str, objs: list[dict[str, Any]], texts: tuple[str, ...], profile: str, now: int,
               borrowing: int, code: str, never: bool) -> None:
    got = _count(objs, texts, profile)
    assert (got.now, got.by_borrowing, got.capped) == (now, borrowing, False)
    assert got.stop is not None and (got.stop.code, got.stop.never) == (code, never)


def test_each_copy_is_admitted_by_the_engine_and_one_more_is_not() -> None:
    """The property the real plane checks, on the engine itself: the snapshot with `now` copies admitted takes
    no further copy, and each prefix took its copy."""
    objs = [*pool("pool", {"a": 4, "b": 3}), resource_flavor("a"), resource_flavor("b")]
    parts = parts_of(roles_of(*PD), PD_ATOMIC, CREDITS, "pool")
    got = sim.count(snapshot(objs), parts)
    assert got.now == 2
    assert ad.assign(got.snapshot, "pool", parts[0].demand).mode != ad.FIT
    # the first copy in flavor a (4 cards: 3 taken); the second's prefill takes a's last card, its decode b
    # (Kueue assigns each pod set its flavor in turn)
    assert {f for _, _, _, f in got.placed[0].flavors} == {"a"}
    assert {(p, f) for _, p, _, f in got.placed[1].flavors} == {("prefill", "a"), ("decode", "b")}


def test_the_stop_names_the_shortfall() -> None:
    got = _count(pool("pool", {"h20": 8}, used={"h20": 1}), PD, PD_ATOMIC)
    s = got.stop
    assert s is not None and (s.flavor, s.resource, s.needed) == ("h20", CREDITS, Fraction(2 * CARD))


def test_the_limit_makes_it_at_least() -> None:
    got = _count(pool("pool", {"h20": 900}), PD, PD_ATOMIC, limit=5)
    assert (got.now, got.capped, got.stop) == (5, True, None)


def test_with_usage_adds_and_takes_back() -> None:
    snap = snapshot(pool("pool", {"h20": 8}, used={"h20": 1}))
    more = sim.with_usage(snap, [("pool", ("h20", CREDITS), Fraction(2 * CARD))])
    assert more.cluster_queues["pool"].reserved[("h20", CREDITS)] == 3 * CARD
    back = sim.with_usage(more, [("pool", ("h20", CREDITS), Fraction(2 * CARD))], -1)
    assert back.cluster_queues["pool"].reserved == snap.cluster_queues["pool"].reserved
    assert sim.with_usage(snap, []) is snap


# ------------------------------------------------------------------------------------------- the command


def _write(tmp_path: Path, objs: list[dict[str, Any]]) -> str:
    p = tmp_path / "snap.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(p)


PD_FLAGS = ["--prefill", "1", "--decode", "2", "--instance-type", "pool", "-n", NS]


def test_from_a_snapshot_json(cli: Callable, tmp_path: Path) -> None:
    f = _write(tmp_path, [*pool("pool", {"h20": 8}, used={"h20": 1}), resource_flavor("h20")])
    r = cli(["capacity", *PD_FLAGS, "-f", f, "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["schemaVersion"], doc["now"], doc["byBorrowing"], doc["next"]["code"]) == ("1.3", 2, 0,
                                                                                          "QuotaExhausted")
    assert doc["byPreemption"]["reason"] == "policy-never"
    assert [(p["role"], p["now"]) for p in doc["perRole"]] == [("prefill", 7), ("decode", 7)]


def test_by_preemption_names_the_targets_per_copy(cli: Callable, tmp_path: Path) -> None:
    """Two low-priority Workloads hold 2 and 3 cards of an 8-card pool: 1 copy fits now (3 free), then one copy
    per preemption, each naming the Workload it preempts (the smallest that makes room first, as Kueue
    orders candidates), then nothing left to preempt."""
    objs = [*pool("pool", {"h20": 8}, used={"h20": 5}, preemption={"withinClusterQueue": "LowerPriority"}),
            resource_flavor("h20"), admitted("low-a", "pool", "h20", 2, -1), admitted("low-b", "pool", "h20", 3, -1)]
    r = cli(["capacity", *PD_FLAGS, "-f", _write(tmp_path, objs), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["now"] == 1
    p = doc["byPreemption"]
    assert p["count"] >= 1 and p["unknown"] is None
    named = [t["name"] for c in p["copies"] for t in c["targets"]]
    assert set(named) <= {"low-a", "low-b"} and len(named) == len(set(named))
    assert doc["next"]["code"] == "QuotaExhausted"


def test_never_says_so(cli: Callable, tmp_path: Path) -> None:
    f = _write(tmp_path, [*pool("pool", {"h20": 2}), resource_flavor("h20")])
    r = cli(["capacity", *PD_FLAGS, "-f", f])
    assert r.exit_code == 0, r.stderr
    assert "never on this configuration" in r.stdout


def test_model_deployment_target(cli: Callable, tmp_path: Path) -> None:
    md = {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelDeployment",
          "metadata": {"name": "qwen", "namespace": NS},
          "spec": {"roles": [{"name": "prefill", "kind": "prefill", "replicas": 1, "instanceType": "pool",
                              "resources": {"accelerator": 1}},
                             {"name": "decode", "kind": "decode", "replicas": 2, "instanceType": "pool",
                              "resources": {"accelerator": 1}}]}}
    f = _write(tmp_path, [*pool("pool", {"h20": 9}), resource_flavor("h20"), md])
    r = cli(["capacity", "md/qwen", "-n", NS, "-f", f, "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["target"]["kind"], doc["target"]["apiProfile"], doc["now"]) == ("ModelDeployment", PD_ATOMIC, 3)


@pytest.mark.parametrize("argv", [
    ["capacity"],  # no shape
    ["capacity", "md/x", "--prefill", "1"],  # two shapes
    ["capacity", "--prefill", "1", "--local-queue", "q"],  # --local-queue without --target pods
])
def test_usage_errors(cli: Callable, argv: list[str]) -> None:
    r = cli(argv)
    assert r.exit_code == 2


def test_missing_instance_type_is_exit_1(cli: Callable, tmp_path: Path) -> None:
    f = _write(tmp_path, [*pool("pool", {"h20": 9}), resource_flavor("h20")])
    r = cli(["capacity", "--prefill", "1", "--instance-type", "nope", "-n", NS, "-f", f, "-o", "json"])
    assert r.exit_code == 1
    assert json.loads(r.stdout)["now"] is None


def test_live_reads_each_list_once(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver([*pool("pool", {"h20": 9}), resource_flavor("h20")], namespace=NS)
    r = cli(["capacity", *PD_FLAGS, "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["now"] == 3
    gets = [r.path for r in server.requests if r.method == "GET"]
    assert len(gets) == len(set(gets)), gets


def test_live_forbidden_list_is_incomplete(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import Forbid

    server, env = apiserver([*pool("pool", {"h20": 9}), resource_flavor("h20")], namespace=NS,
                            forbid=[Forbid("list", "clusterqueues")])
    r = cli(["capacity", *PD_FLAGS, "-o", "json"], env=env)
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["now"] is None and doc["incomplete"]


# ------------------------------------------------------------------------------------- contract and MCP


def _valid(doc: dict[str, Any], name: str) -> None:
    import jsonschema

    from kubectl_pd.agent import schemas

    jsonschema.Draft202012Validator(schemas.SCHEMAS[name]()).validate(doc)


@pytest.mark.parametrize("objs", [
    [*pool("pool", {"h20": 8}, used={"h20": 1}), resource_flavor("h20")],
    [*pool("pool", {"h20": 8}, used={"h20": 5}, preemption={"withinClusterQueue": "LowerPriority"}),
     resource_flavor("h20"), admitted("low-a", "pool", "h20", 2, -1), admitted("low-b", "pool", "h20", 3, -1)],
    [*pool("pool", {"h20": 2}), resource_flavor("h20")],
    [resource_flavor("h20")],  # no InstanceType: not judged
], ids=["fits", "preempts", "never", "not-judged"])
def test_documents_obey_the_schema(cli: Callable, tmp_path: Path, objs: list[dict[str, Any]]) -> None:
    r = cli(["capacity", *PD_FLAGS, "-f", _write(tmp_path, objs), "-o", "json"])
    _valid(json.loads(r.stdout), "capacity")


def test_the_mcp_tool_runs_the_command(tmp_path: Path) -> None:
    from kubectl_pd.agent import tools
    from kubectl_pd.agent.run import run

    snap = json.dumps({"apiVersion": "v1", "kind": "List",
                       "items": [*pool("pool", {"h20": 9}), resource_flavor("h20")]})
    a = tools.call("pd_capacity", {"prefill": 1, "decode": 2, "instanceType": "pool", "namespace": NS,
                                   "snapshot": snap}, tools.Guard(), [], run)
    assert a.code == 0 and a.document is not None and a.document["now"] == 3, a.text
    assert a.text.startswith("3 more copies now")


def test_pod_group_target_is_the_request_that_made_it(cli: Callable, tmp_path: Path) -> None:
    """A pod group as `create --target pods` renders it: capacity of podgroup/NAME is capacity of its flags."""
    from kubectl_pd.create.pods import render_pods

    texts = ("name=prefill,kind=prefill,replicas=1,image=e:1,accelerator=2", "name=decode,kind=decode,replicas=2,"
             "image=e:1")
    req = CreateRequest(name="qwen", namespace=NS, model="m", roles=tuple(parse_role(t) for t in texts),
                        target="pods", local_queue="pool-lq")
    roles = check_request(req).roles
    pods = render_pods(req, roles, {r.name: "pool-lq" for r in roles}, {r.name: CREDITS for r in roles})
    f = _write(tmp_path, [*pool("pool", {"h20": 13}), resource_flavor("h20"), *pods])
    by_group = json.loads(cli(["capacity", "podgroup/qwen", "-n", NS, "-f", f, "-o", "json"]).stdout)
    by_flags = json.loads(cli(["capacity", "--target", "pods", "--local-queue", "pool-lq", "-n", NS, "-f", f,
                               *[x for t in texts for x in ("--role", t)], "-o", "json"]).stdout)
    assert (by_group["now"], by_group["target"]["kind"]) == (3, "PodGroup")
    assert by_group["now"] == by_flags["now"] and by_group["perRole"] == by_flags["perRole"]
    r = cli(["capacity", "podgroup/nope", "-n", NS, "-f", f])
    assert r.exit_code == 1 and r.stderr.startswith("error: no Pod of pod group")


def test_a_flavor_with_nothing_to_preempt_is_passed_over_as_kueue_does(cli: Callable, tmp_path: Path) -> None:
    """Flavor a is full of a Workload of higher priority, whenCanPreempt MayStopSearch: the policy alone would
    stop at a (preemption allowed); with the admitted Workloads read there is no candidate, so Kueue goes on to
    b, where one copy fits now (found by the real Kueue over the 4a generator's seed 2800)."""
    objs = [*pool("pool", {"a": 3, "b": 3}, used={"a": 3}, preemption={"withinClusterQueue": "LowerPriority"},
                  fungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"}),
            resource_flavor("a"), resource_flavor("b"), admitted("high", "pool", "a", 3, 100)]
    doc = json.loads(cli(["capacity", *PD_FLAGS, "-f", _write(tmp_path, objs), "-o", "json"]).stdout)
    assert (doc["now"], doc["byPreemption"]["count"], doc["next"]["code"]) == (1, 0, "QuotaExhausted")
    assert {f["flavor"] for f in doc["flavors"]} == {"b"}
    policy_only = sim.count(snapshot(objs), parts_of(roles_of(*PD), PD_ATOMIC, CREDITS, "pool"))
    assert policy_only.now == 0  # what the policy pass alone would have said
