"""create --target lws and --target disaggregatedset (issue 47 item 4): an LWS per role with Kueue's labels on its
own metadata, or one DisaggregatedSet with them on each role's metadata (which its LWS receives; never on the set's
own); the preflight weighs one Workload per LWS group per role and says the roles are admitted apart (check
admitted-apart), with what the fitting roles hold while another waits. Pure tables for the core, the loopback API
server for the preflight, the writes and a cluster without the CRDs, the real kubectl end to end; the generated
objects against LWS v0.9.0's own CRD schemas from the Go module cache."""

from __future__ import annotations

import copy
import functools
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from kubectl_pd import contract
from kubectl_pd.agent import schemas
from kubectl_pd.create import frameworks as fw
from kubectl_pd.create import preflight
from kubectl_pd.create.flags import CreateRequest, check_request, parse_role
from kubectl_pd.create.preflight import WARNING, CheckFinding
from kubectl_pd.errors import ConflictError
from tests.apiserver import DEFAULT_GROUPS, Forbid
from tests.conftest import run_kubectl
from tests.test_resources_model import GPU, NS, layout

QUEUE = "kueue.x-k8s.io/queue-name"
PRIORITY = "kueue.x-k8s.io/priority-class"
LWS_CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": fw.LWS_CRD}, "spec": {"group": "leaderworkerset.x-k8s.io", "names": {
               "kind": "LeaderWorkerSet", "plural": "leaderworkersets"}, "scope": "Namespaced",
               "versions": [{"name": "v1", "served": True, "storage": True}]}}
DS_CRD = {**LWS_CRD, "metadata": {"name": fw.DS_CRD}, "spec": {"group": "disaggregatedset.x-k8s.io", "names": {
    "kind": "DisaggregatedSet", "plural": "disaggregatedsets"}, "scope": "Namespaced",
    "versions": [{"name": "v1", "served": True, "storage": True}]}}
PREFILL = "name=prefill,kind=prefill,replicas=1,accelerator=4,image=img"
DECODE = "name=decode,kind=decode,replicas=2,size=2,accelerator=4,image=img"


def _req(target: str, *roles: str, **kw: Any) -> tuple[CreateRequest, list[Any]]:
    req = CreateRequest(name="qwen", namespace=NS, model="m", target=target, local_queue="research", resource=GPU,
                        roles=tuple(parse_role(r) for r in roles), **kw)
    checked = check_request(req)
    assert checked.problems == []
    return req, checked.roles


# ------------------------------------------------------------------------------------------------ rendering
def _labels(obj: dict[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("labels") or {})


RENDER = [  # (case, target, roles, priority class, what each object is)
    ("an LWS per role", fw.LWS, (PREFILL, DECODE), None,
     [("LeaderWorkerSet", "qwen-prefill", 1, 1, False), ("LeaderWorkerSet", "qwen-decode", 2, 2, True)]),
    ("with a priority class", fw.LWS, (DECODE,), "high", [("LeaderWorkerSet", "qwen-decode", 2, 2, True)]),
    ("one DisaggregatedSet", fw.DS, (PREFILL, DECODE), "high", [("DisaggregatedSet", "qwen", None, None, None)]),
]


@pytest.mark.parametrize("case, target, roles, cls, want", RENDER, ids=[c[0] for c in RENDER])
def test_the_kueue_labels_are_where_the_framework_carries_them(case: str, target: str, roles: tuple[str, ...],
                                                               cls: str | None, want: list[Any]) -> None:
    req, typed = _req(target, *roles, priority_class=cls)
    objs = fw.render(req, typed, {r.name: "research" for r in typed})
    assert [(o["kind"], o["metadata"]["name"]) for o in objs] == [(w[0], w[1]) for w in want]
    kueue = {QUEUE: "research", **({PRIORITY: cls} if cls else {})}
    if target == fw.LWS:
        for o, (_, _, replicas, size, leader) in zip(objs, want, strict=True):
            assert kueue.items() <= _labels(o).items()  # on the LWS's own metadata: Kueue's LWS integration reads it
            lwt = o["spec"]["leaderWorkerTemplate"]
            assert (o["spec"]["replicas"], lwt["size"], "leaderTemplate" in lwt) == (replicas, size, leader)
            for t in ("leaderTemplate", "workerTemplate"):
                if t in lwt:
                    c = lwt[t]["spec"]["containers"][0]
                    assert c["resources"]["requests"] == c["resources"]["limits"] == {GPU: "4"}
                    assert QUEUE not in _labels(lwt[t])  # Kueue's webhook copies it there itself
        return
    (ds,) = objs
    assert QUEUE not in _labels(ds) and PRIORITY not in _labels(ds)  # the set's own metadata reaches no LWS
    assert [r["name"] for r in ds["spec"]["roles"]] == ["prefill", "decode"]
    for r in ds["spec"]["roles"]:
        assert kueue.items() <= _labels(r).items()  # the role's metadata: lws_manager.go puts it on the role's LWS
        assert set(r["spec"]) == {"replicas", "leaderWorkerTemplate"}


CHECKS = [  # (case, target, roles, extra request fields, the rules refused)
    ("a role without an image", fw.LWS, ("name=p,kind=prefill,replicas=1",), {}, ["image"]),
    ("a DisaggregatedSet of one role", fw.DS, (PREFILL,), {}, ["roles-count"]),
    ("an LWS name longer than a label", fw.LWS, ("name=" + "p" * 60 + ",replicas=1,image=i",), {}, ["name"]),
    ("a set whose role LWS name is too long", fw.DS, ("name=" + "p" * 50 + ",kind=prefill,image=i", DECODE), {},
     ["name"]),
    ("a router", fw.LWS, (PREFILL,), {"router": "llm-d-router"}, ["api-field"]),
    ("fine", fw.DS, (PREFILL, DECODE), {}, []),
]


@pytest.mark.parametrize("case, target, roles, extra, rules", CHECKS, ids=[c[0] for c in CHECKS])
def test_the_framework_rules(case: str, target: str, roles: tuple[str, ...], extra: dict[str, Any],
                             rules: list[str]) -> None:
    req = CreateRequest(name="qwen", namespace=NS, model="m", target=target, local_queue="q",
                        roles=tuple(parse_role(r) for r in roles), **extra)
    got = fw.check(req, check_request(req).roles)
    assert [p.rsplit("[rule ", 1)[1].rstrip("]") for p in got] == rules


# ------------------------------------------------------------------------------------------------ the demand
def test_one_workload_per_lws_group_with_kueues_pod_sets() -> None:
    _, roles = _req(fw.LWS, PREFILL, DECODE)
    q = preflight.role_demands(roles, fw.PROFILE, GPU, "research")
    got = [(wl, [(d.pod_set, d.count, p.requests[GPU]) for d, p in members]) for wl, members in q.workloads]
    assert got == [("prefill-0", [("main", 1, 4)]),
                   ("decode-0", [("leader", 1, 4), ("worker", 1, 4)]),
                   ("decode-1", [("leader", 1, 4), ("worker", 1, 4)])]


def _f(check: str, role: str | None = None) -> CheckFinding:
    return CheckFinding(WARNING, check, check, params={"role": role} if role else {})


APART = [  # (case, roles, findings, covered roles, fits, waits, unknown, partly, held)
    ("every role fits", (PREFILL, DECODE), [], ("prefill", "decode"), ["prefill", "decode"], [], [], False, []),
    ("decode waits while prefill holds its cards", (PREFILL, DECODE), [_f("waits-for-quota", "decode")],
     ("prefill", "decode"), ["prefill"], ["decode"], [], True, [("prefill", "4")]),
    ("a role never fits", (PREFILL, DECODE), [_f("never-fits", "prefill"), _f("no-node-fits", "decode")],
     ("prefill", "decode"), [], ["prefill", "decode"], [], False, []),
    ("a role whose queue was not read", (PREFILL, DECODE), [], ("prefill",), ["prefill"], [], ["decode"], False, []),
    ("a refused read leaves every role unknown", (PREFILL, DECODE), [_f("skipped")], ("prefill", "decode"),
     [], [], ["prefill", "decode"], False, []),
    ("a role whose LocalQueue is missing", (PREFILL, DECODE), [CheckFinding(
        preflight.ERROR, "local-queue", "local-queue.missing", params={"roles": ["decode"]})], ("prefill",),
     ["prefill"], [], ["decode"], False, []),
    ("a role without cards whose queue is missing", (PREFILL, DECODE.replace("accelerator=4", "accelerator=0")),
     [CheckFinding(preflight.ERROR, "local-queue", "local-queue.missing", params={"roles": ["decode"]})],
     ("prefill",), ["prefill"], [], ["decode"], False, []),
]


@pytest.mark.parametrize("case, roles, findings, covered, fits, waits, unknown, partly, held", APART,
                         ids=[c[0] for c in APART])
def test_the_admitted_apart_verdict(case: str, roles: tuple[str, ...], findings: list[CheckFinding],
                                    covered: tuple[str, ...], fits: list[str], waits: list[str], unknown: list[str],
                                    partly: bool, held: list[tuple[str, str]]) -> None:
    _, typed = _req(fw.LWS, *roles)
    (f,) = preflight.admitted_apart(fw.LWS, typed, findings, {r: GPU for r in covered})
    p = f.params
    assert (f.severity, f.check, p["kind"], p["workloads"]) == (WARNING, "admitted-apart", "LeaderWorkerSet",
                                                                {"prefill": 1, "decode": 2})
    assert (p["fits"], p["waits"], p["unknown"], p["partly"]) == (fits, waits, unknown, partly)
    assert [(h["role"], h["quantity"]) for h in p["held"]] == held


def test_one_workload_in_all_is_not_admitted_apart() -> None:
    _, typed = _req(fw.LWS, PREFILL)
    assert preflight.admitted_apart(fw.LWS, typed, [], {"prefill": GPU}) == []


# ------------------------------------------------------------------------------------------------ loopback
BASE = ["create", "qwen", "--model", "m", "--local-queue", "research", "--resource", GPU, "-n", NS,
        "--role", PREFILL, "--role", DECODE]
SMALL_DECODE = "name=decode,kind=decode,replicas=1,size=2,accelerator=3,image=img"


def _cluster(*crds: dict[str, Any]) -> list[dict[str, Any]]:
    return [*layout(), *crds]


def _served(*crds: dict[str, Any]) -> dict[str, list[str]]:
    """The API groups a cluster serves: its CRDs' groups beside the defaults (a CRD installed is a group served)."""
    return {**copy.deepcopy(DEFAULT_GROUPS), **{c["spec"]["group"]: ["v1"] for c in crds}}


PREFLIGHTS = [  # (case, target, decode role, the findings' (check, role, code), fits, waits, held)
    # research: nominal 10 a100 cards (its cohort lends none), 2 used: 8 free. prefill's one group takes 4, then
    # decode's group of 2 Pods x 3 cards waits for the 4 left; together they fit the queue's 10
    ("lws: prefill fits, decode waits", fw.LWS, SMALL_DECODE,
     [("waits-for-quota", "decode", "QuotaExhausted"), ("admitted-apart", None, None)], ["prefill"], ["decode"],
     [{"role": "prefill", "resource": GPU, "quantity": "4"}]),
    ("ds: the same roles, the same verdict", fw.DS, SMALL_DECODE,
     [("waits-for-quota", "decode", "QuotaExhausted"), ("admitted-apart", None, None)], ["prefill"], ["decode"],
     [{"role": "prefill", "resource": GPU, "quantity": "4"}]),
    # 4 + 2 groups x 8 = 20 cards: the roles together never fit the queue's 10 (as for GPUStack's per-replica
    # groups: the deployment never runs whole), while prefill alone would be admitted and hold its 4
    ("lws: the roles together exceed the queue", fw.LWS, DECODE,
     [("never-fits", "decode", "QuotaExceedsCapacity"), ("admitted-apart", None, None)], ["prefill"], ["decode"],
     [{"role": "prefill", "resource": GPU, "quantity": "4"}]),
]


@pytest.mark.parametrize("case, target, decode, findings, fits, waits, held", PREFLIGHTS,
                         ids=[c[0] for c in PREFLIGHTS])
def test_the_preflight_weighs_each_group_and_says_the_roles_are_admitted_apart(
        cli: Callable, apiserver: Callable, case: str, target: str, decode: str,
        findings: list[tuple[str, str | None, str | None]], fits: list[str], waits: list[str],
        held: list[dict[str, str]]) -> None:
    server, env = apiserver(_cluster(LWS_CRD, DS_CRD), namespace=NS, groups=_served(LWS_CRD, DS_CRD))
    r = cli([*BASE[:-1], decode, "--target", target, "--preflight", "-o", "json"], env=env)
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schemas.preflight())  # the published contract (docs/schema/preflight.json)
    assert {x.method for x in server.requests} == {"GET"}
    assert (doc["schemaVersion"], doc["target"]["kind"], doc["target"]["apiProfile"]) == (
        contract.PREFLIGHT, fw.KIND[target], fw.PROFILE)
    assert [(f["check"], f["params"].get("role"), f["params"].get("code")) for f in doc["findings"]] == findings
    apart = doc["findings"][-1]["params"]
    assert (apart["fits"], apart["waits"], apart["partly"], apart["held"]) == (fits, waits, True, held)
    assert apart["workloads"] == {"prefill": 1, "decode": 1 if decode == SMALL_DECODE else 2}
    assert doc["wouldCreate"] == (not any(f["severity"] == "error" for f in doc["findings"]))
    assert r.exit_code == (0 if doc["wouldCreate"] else 1)
    assert doc["queues"] == {"prefill": "research", "decode": "research"}
    manifest = doc["manifest"]
    kinds = [i["kind"] for i in manifest["items"]] if manifest["kind"] == "List" else [manifest["kind"]]
    assert kinds == (["LeaderWorkerSet"] * 2 if target == fw.LWS else ["DisaggregatedSet"])


@pytest.mark.parametrize("target", [fw.LWS, fw.DS])
@pytest.mark.parametrize("cls, code, preempts", [("high", "NeedsPreemption", ["other/batch"]),
                                                 (None, "QuotaExhausted", [])], ids=["high", "none"])
def test_the_priority_class_is_judged_for_each_group(cli: Callable, apiserver: Callable, target: str,
                                                     cls: str | None, code: str, preempts: list[str]) -> None:
    from tests.test_create_priority_class import objects  # research full: 8 cards held at priority 0

    crds = [LWS_CRD, DS_CRD]
    server, env = apiserver([*objects(), *crds], namespace=NS, groups=_served(*crds))
    r = cli([*BASE[:-1], SMALL_DECODE, "--target", target, "--preflight", "-o", "json",
             *(["--priority-class", cls] if cls else [])], env=env)
    doc = json.loads(r.stdout)
    assert [(f["check"], f["params"].get("role"), f["params"].get("code")) for f in doc["findings"]][:2] == [
        ("waits-for-quota", "prefill", code), ("waits-for-quota", "decode", code)]
    got = [f"{t['namespace']}/{t['name']}" for t in (doc.get("preemption") or {}).get("targets") or []]
    assert got == preempts
    objs = doc["manifest"]["items"] if target == fw.LWS else doc["manifest"]["spec"]["roles"]
    assert all(_labels(o).get(PRIORITY) == cls for o in objs)


@pytest.mark.parametrize("target", [fw.LWS, fw.DS])
@pytest.mark.parametrize("how", [["--preflight"], [], ["--dry-run=server"]], ids=["preflight", "create", "server"])
def test_a_cluster_without_the_crd_is_one_line_and_exit_1(cli: Callable, apiserver: Callable, target: str,
                                                          how: list[str]) -> None:
    # DisaggregatedSet ships in LWS v0.9.0: a cluster with LWS v0.8's CRD only has none
    crds = [LWS_CRD] if target == fw.DS else []
    server, env = apiserver(_cluster(*crds), namespace=NS, groups=_served(*crds))
    r = cli([*BASE, "--target", target, *how], env=env)
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: the {fw.KIND[target]} CRD is not installed")
    assert fw.CRD[target] in r.stderr and "Traceback" not in r.stderr
    assert "POST" not in server.methods


@pytest.mark.parametrize("served", [True, False], ids=["group-served", "group-not-served"])
def test_a_refused_crd_read_asks_discovery(cli: Callable, apiserver: Callable, served: bool) -> None:
    """RBAC may refuse CustomResourceDefinitions to a namespace user: then the group's discovery decides."""
    crds = [LWS_CRD] if served else []
    server, env = apiserver(_cluster(*crds), namespace=NS, groups=_served(*crds),
                            forbid=[Forbid("get", "customresourcedefinitions")])
    r = cli([*BASE[:-1], SMALL_DECODE, "--target", fw.LWS, "--preflight", "-o", "json"], env=env)
    if served:
        assert r.exit_code == 0, r.stderr
        assert json.loads(r.stdout)["target"]["kind"] == "LeaderWorkerSet"
    else:
        assert r.exit_code == 1 and r.stderr.startswith("error: the LeaderWorkerSet CRD is not installed")
    assert "POST" not in server.methods


@pytest.mark.parametrize("target, paths", [
    (fw.LWS, [f"/apis/leaderworkerset.x-k8s.io/v1/namespaces/{NS}/leaderworkersets"] * 2),
    (fw.DS, [f"/apis/disaggregatedset.x-k8s.io/v1/namespaces/{NS}/disaggregatedsets"])])
@pytest.mark.parametrize("dry", [False, True], ids=["apply", "server-dry-run"])
def test_create_writes_the_objects_after_the_preflight(cli: Callable, apiserver: Callable, target: str,
                                                       paths: list[str], dry: bool) -> None:
    server, env = apiserver(_cluster(LWS_CRD, DS_CRD), namespace=NS, groups=_served(LWS_CRD, DS_CRD))
    r = cli([*BASE[:-1], SMALL_DECODE, "--target", target, *(["--dry-run=server"] if dry else []), "-o", "name"],
            env=env)
    assert r.exit_code == 0, r.stderr
    posts = [q for q in server.requests if q.method == "POST"]
    assert [q.path for q in posts] == paths
    assert all(q.query == ({"dryRun": "All"} if dry else {}) for q in posts)
    ref = {fw.LWS: "leaderworkerset.leaderworkerset.x-k8s.io", fw.DS: "disaggregatedset.disaggregatedset.x-k8s.io"}[
        target]
    names = ["qwen-prefill", "qwen-decode"] if target == fw.LWS else ["qwen"]
    assert r.stdout.split() == [f"{ref}/{n}" for n in names]
    # the preflight's warnings go to stderr, a line each: decode waits for quota, and the roles are admitted apart
    assert [line.split(":", 1)[0] for line in r.stderr.splitlines()] == ["warning", "warning"]
    bodies = [q.body for q in posts]
    assert [b["metadata"]["name"] for b in bodies] == names


def test_an_lws_that_exists_is_never_overwritten(cli: Callable, apiserver: Callable) -> None:
    mine = {"apiVersion": fw.LWS_API, "kind": "LeaderWorkerSet",
            "metadata": {"name": "qwen-decode", "namespace": NS}, "spec": {}}
    server, env = apiserver(_cluster(LWS_CRD, mine), namespace=NS, groups=_served(LWS_CRD))
    r = cli([*BASE[:-1], SMALL_DECODE, "--target", fw.LWS], env=env)
    assert r.exit_code == ConflictError.exit_code and "POST" not in server.methods
    last = r.stderr.splitlines()[-1]
    assert last.startswith("error: ") and "qwen-decode" in last


@pytest.mark.parametrize("flag", [["--local-queue", "q"], ["--resource", GPU], ["--priority-class", "high"]])
def test_the_pod_flags_apply_to_the_framework_targets(cli: Callable, tmp_path: Path, flag: list[str]) -> None:
    env = {"KUBECONFIG": str(tmp_path / "missing")}
    args = ["create", "qwen", "--model", "m", "--role", PREFILL, "--role", DECODE, "--dry-run=client", "-o", "json"]
    base = ["--local-queue", "q", "--resource", GPU]
    r = cli([*args, "--target", fw.DS, *base, *(flag if flag[0] not in base else [])], env=env)
    assert r.exit_code == 0, r.stderr
    assert cli([*args, "--instance-type", "x", *flag], env=env).exit_code == 2  # a ModelDeployment: usage error


def test_target_completes_the_framework_targets(cli: Callable) -> None:
    r = cli(["__complete", "create", "qwen", "--target", ""])
    assert [v.split("\t")[0] for v in r.stdout.splitlines()[:-1]] == ["modeldeployment", "pods", "lws",
                                                                        "disaggregatedset"]


# ------------------------------------------------------------------------------------------------ end to end
def test_real_kubectl_scaffolds_both_targets_offline(tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "missing")}
    for target, kinds in ((fw.LWS, ["LeaderWorkerSet", "LeaderWorkerSet"]), (fw.DS, ["DisaggregatedSet"])):
        r = run_kubectl(["pd", *BASE, "--target", target, "--dry-run=client", "-o", "yaml"], env=env)
        assert r.returncode == 0, r.stderr
        doc = yaml.safe_load(r.stdout)
        assert [i["kind"] for i in doc.get("items", [doc])] == kinds
    bad = run_kubectl(["pd", *BASE[:-2], "--target", fw.DS, "--dry-run=client"], env=env)  # one role
    assert bad.returncode == 1 and bad.stderr.startswith("error: a DisaggregatedSet has 2 to 10 roles")


# ------------------------------------------------------------------------------------------------ the CRDs
def _lws_module() -> Path | None:
    """LWS v0.9.0 in the Go module cache (the version Kueue 0.19.2's go.mod names, the real plane's), or None."""
    go = shutil.which("go")
    cache = os.environ.get("GOMODCACHE") or (subprocess.run([go, "env", "GOMODCACHE"], capture_output=True,
                                                            text=True, timeout=60).stdout.strip() if go else "")
    path = Path(cache) / "sigs.k8s.io" / "lws@v0.9.0" if cache else None
    return path if path is not None and (path / "config" / "crd" / "bases").is_dir() else None


def strict(schema: Any) -> Any:
    """An openAPIV3Schema as JSON Schema that refuses a field the CRD does not declare (the API server would prune
    it silently): additionalProperties false wherever properties are listed and unknown fields are not kept."""
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict(v) for k, v in schema.items() if not k.startswith("x-kubernetes-")}
    if "properties" in schema and "additionalProperties" not in schema and \
            not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    return out


@functools.cache
def crd_schema(module: Path, crd_name: str) -> dict[str, Any]:
    crd = yaml.load((module / "config" / "crd" / "bases" / f"{crd_name.split('.', 1)[1]}_{crd_name.split('.')[0]}.yaml"
                     ).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    (v1,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    return dict(strict(v1["schema"]["openAPIV3Schema"]))


LWS_MODULE = _lws_module()
if LWS_MODULE is not None:  # defined only where the module cache holds LWS v0.9.0 (nothing skipped elsewhere)
    @pytest.mark.parametrize("target", [fw.LWS, fw.DS])
    def test_the_objects_obey_lws_v090s_crd_schemas(target: str) -> None:
        assert LWS_MODULE is not None
        req, roles = _req(target, PREFILL, DECODE, priority_class="high", env=(("A", "1"),))
        for obj in fw.render(req, roles, {r.name: "research" for r in roles}):
            jsonschema.validate(obj, crd_schema(LWS_MODULE, fw.CRD[target]))
        # and the check bites: a misspelled field is refused
        bad = copy.deepcopy(fw.render(req, roles, {r.name: "q" for r in roles})[0])
        bad["spec"]["replica"] = 1
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, crd_schema(LWS_MODULE, fw.CRD[target]))

