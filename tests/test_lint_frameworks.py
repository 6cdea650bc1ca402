"""PD414-PD416 (lint/frameworks.py), the PD frameworks Kueue admits: pure, table-driven, on codes and params.

Every object is built here; the facts they encode are cited in kubectl_pd/lint/frameworks.py (LWS v0.9.0's
DisaggregatedSet controller, Kueue v0.19.2's LWS pod sets, KServe's label propagation)."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import jsonpatch
import pytest

from kubectl_pd.kueue.model import cluster_queue
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import LintResult, context_from, lint_objects
from kubectl_pd.lint.fix import apply_fix, patch_of, plan_fix
from kubectl_pd.lint.frameworks import PodSetNeed, amount, lws_pod_sets, never_fits, peers_of, queue_label_fix

Obj = dict[str, Any]
Q = "kueue.x-k8s.io/queue-name"


def pod(requests: dict[str, Any]) -> Obj:
    return {"spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": requests}}]}}


def lws(name: str = "ds", ns: str = "llm", size: int = 1, worker: dict[str, Any] | None = None,
        leader: dict[str, Any] | None = None, labels: dict[str, str] | None = None, **meta: Any) -> Obj:
    lwt: Obj = {"size": size, "workerTemplate": pod(worker or {"nvidia.com/gpu": 1})}
    if leader is not None:
        lwt["leaderTemplate"] = pod(leader)
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": {"name": name, "namespace": ns, **({"labels": labels} if labels else {}), **meta},
            "spec": {"replicas": 1, "leaderWorkerTemplate": lwt}}


def deployment(name: str, labels: dict[str, str], ns: str = "llm") -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"replicas": 1, "template": {"metadata": {"labels": {}}, **pod({"nvidia.com/gpu": 1})}}}


def role(name: str, labels: dict[str, str] | None = None, size: int = 1, gpus: int = 1) -> Obj:
    r: Obj = {"name": name, "spec": lws(size=size, worker={"nvidia.com/gpu": gpus})["spec"]}
    if labels is not None:
        r["metadata"] = {"labels": labels}
    return r


def dset(roles: list[Obj], labels: dict[str, str] | None = None) -> Obj:
    return {"apiVersion": "disaggregatedset.x-k8s.io/v1", "kind": "DisaggregatedSet",
            "metadata": {"name": "qwen", "namespace": "llm", **({"labels": labels} if labels else {})},
            "spec": {"roles": roles}}


def llmisvc(meta_labels: dict[str, str] | None = None, **spec: Any) -> Obj:
    return {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService",
            "metadata": {"name": "llama", "namespace": "llm", **({"labels": meta_labels} if meta_labels else {})},
            "spec": {"model": {"uri": "hf://x"}, **spec}}


def cq(flavors: dict[str, dict[str, Any]], covered: list[str] | None = None, cohort: str | None = None,
       name: str = "pool") -> Obj:
    covered = covered or sorted({r for f in flavors.values() for r in f})
    spec: Obj = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": covered, "flavors": [
        {"name": f, "resources": [{"name": r, **({"nominalQuota": v} if not isinstance(v, dict) else v)}
                                  for r, v in res.items()]} for f, res in flavors.items()]}]}
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def lq(name: str = "serving", ns: str = "llm", cluster_q: str = "pool") -> Obj:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": name, "namespace": ns},
            "spec": {"clusterQueue": cluster_q}}


def run(*objs: Obj, live: bool = False) -> LintResult:
    ctx = LintContext(live=live)
    ctx = context_from(list(objs), ctx)
    if ctx.local_queues is None:
        ctx.local_queues = {}
    return lint_objects(list(objs), ctx)


def found(result: LintResult, rule: str) -> list[Any]:
    return [f for f in result.findings if f.rule_id == rule]


# -- PD416: the pod sets and the search over flavors -----------------------------------------------------------------

@pytest.mark.parametrize(("spec", "want"), [
    (lws(size=4)["spec"], [("main", 4)]),
    (lws(size=4, leader={"cpu": "1"})["spec"], [("leader", 1), ("worker", 3)]),
    (lws(size=1, leader={"cpu": "1"})["spec"], [("leader", 1), ("worker", 0)]),
    ({"leaderWorkerTemplate": {"workerTemplate": pod({"cpu": 1})}}, [("main", 1)]),  # size defaults to 1
])
def test_lws_pod_sets_are_kueue_s(spec: Obj, want: list[tuple[str, int]]) -> None:
    assert [(p.name, p.count) for p in lws_pod_sets(spec)] == want


GPU = "nvidia.com/gpu"
CRED = "credits.gpustack.ai/nvidia"


@pytest.mark.parametrize(("queue", "sets", "verdict"), [
    # one pod set of 16 cards, flavors of 8: never
    (cq({"a": {GPU: 8}, "b": {GPU: 8}}), [PodSetNeed("main", 4, {GPU: Fraction(4)})], (GPU, 16, 8, "a")),
    # leader 8 + workers 8 split across two flavors of 8: Kueue may place them apart, so no claim
    (cq({"a": {GPU: 8}, "b": {GPU: 8}}), [PodSetNeed("leader", 1, {GPU: Fraction(8)}),
                                          PodSetNeed("worker", 2, {GPU: Fraction(4)})], None),
    # the same on one flavor of 8: never
    (cq({"a": {GPU: 8}}), [PodSetNeed("leader", 1, {GPU: Fraction(8)}), PodSetNeed("worker", 2, {GPU: Fraction(4)})],
     (GPU, 16, 8, "a")),
    # fits exactly
    (cq({"a": {GPU: 16}}), [PodSetNeed("main", 4, {GPU: Fraction(4)})], None),
    # in a cohort without a borrowing limit: the ceiling is unknown, no claim
    (cq({"a": {GPU: 8}}, cohort="c"), [PodSetNeed("main", 4, {GPU: Fraction(4)})], None),
    # in a cohort with a borrowing limit: nominal + limit
    (cq({"a": {GPU: {"nominalQuota": 8, "borrowingLimit": 4}}}, cohort="c"),
     [PodSetNeed("main", 4, {GPU: Fraction(4)})], (GPU, 16, 12, "a")),
    # GPUStack credits: 2 cards a Pod x 4 = 12.8M credits, the pool holds 4 cards
    (cq({"a": {CRED: "6400k"}}), [PodSetNeed("main", 4, {CRED: Fraction(3_200_000)})], (CRED, 12_800_000, 6_400_000,
                                                                                         "a")),
    # a resource the queue does not cover is not judged here (Kueue may be configured to ignore it)
    (cq({"a": {GPU: 8}}), [PodSetNeed("main", 4, {"example.com/fpga": Fraction(9)})], None),
    # cpu in its own unit: 4 Pods of 8 cores against 16
    (cq({"a": {"cpu": 16, GPU: 8}}), [PodSetNeed("main", 4, {"cpu": Fraction(8), GPU: Fraction(1)})],
     ("cpu", 32, 16, "a")),
    # an unreadable quota: unknown, no claim
    (cq({"a": {GPU: "lots"}}), [PodSetNeed("main", 4, {GPU: Fraction(4)})], None),
])
def test_never_fits(queue: Obj, sets: list[PodSetNeed], verdict: tuple[str, int, int, str] | None) -> None:
    got = never_fits(cluster_queue(queue), sets)
    assert (None if got is None else (got.resource, got.need, got.most, got.flavor)) == verdict


@pytest.mark.parametrize(("resource", "q", "text"), [
    (GPU, Fraction(16), "16 nvidia.com/gpu (16 cards)"),
    (GPU, Fraction(1), "1 nvidia.com/gpu (1 card)"),
    (CRED, Fraction(3_200_000), "3200k credits.gpustack.ai/nvidia (2 cards of credits)"),
    ("memory", Fraction(64 * 2**30), "64Gi memory"),
    ("cpu", Fraction(1, 2), "500m cpu"),
])
def test_amounts_are_in_the_queue_s_units(resource: str, q: Fraction, text: str) -> None:
    assert amount(resource, q) == text


# -- PD416 through lint, with the queue at hand or not ------------------------------------------------------------

def test_lws_never_fits_with_its_queue_in_the_files() -> None:
    r = run(cq({"a": {GPU: 8}}), lq(), lws(size=4, worker={GPU: 4}, labels={Q: "serving"}))
    [f] = found(r, "PD416")
    assert (f.obj.kind, f.path) == ("LeaderWorkerSet", ("spec", "leaderWorkerTemplate"))
    assert {k: f.extra[k] for k in ("resource", "unit", "need", "most", "clusterQueue", "localQueue", "size")} == {
        "resource": GPU, "unit": "card", "need": "16", "most": "8", "clusterQueue": "pool",
        "localQueue": "llm/serving", "size": 4}
    assert r.errors == 1 and not r.unjudged


@pytest.mark.parametrize("objs", [
    [lws(size=4, worker={GPU: 4}, labels={Q: "serving"})],  # no queue at all
    [cq({"a": {GPU: 8}}), lws(size=4, worker={GPU: 4}, labels={Q: "serving"})],  # the LocalQueue missing
    [lq(), lws(size=4, worker={GPU: 4}, labels={Q: "serving"})],  # the ClusterQueue missing
    [cq({"a": {GPU: 8}}), lq(ns="other"), lws(size=4, worker={GPU: 4}, labels={Q: "serving"})],  # another ns
])
def test_without_the_queue_the_fit_is_unknown_never_clean(objs: list[Obj]) -> None:
    r = run(*objs)
    assert not found(r, "PD416")
    [u] = r.unjudged
    assert u.startswith("LeaderWorkerSet/ds: PD416 group-never-fits: ")
    assert r.summary()["unchecked"] == [u]


def test_an_lws_without_a_queue_label_is_not_judged() -> None:
    r = run(cq({"a": {GPU: 8}}), lq(), lws(size=4, worker={GPU: 4}))
    assert not r.findings and not r.unjudged


def test_a_disaggregated_set_s_roles_are_judged_each() -> None:
    ds = dset([role("prefill", {Q: "serving"}, size=2, gpus=8), role("decode", {Q: "serving"}, size=1, gpus=1)])
    r = run(cq({"a": {GPU: 8}}), lq(), ds)
    [f] = found(r, "PD416")
    assert f.path == ("spec", "roles", 0, "spec", "leaderWorkerTemplate") and f.extra["role"] == "prefill"
    assert f.extra["need"] == "16"


def test_an_lws_a_disaggregated_set_made_is_judged_on_the_set() -> None:
    made = lws(size=4, worker={GPU: 4}, labels={Q: "serving", "disaggregatedset.x-k8s.io/name": "qwen"})
    r = run(cq({"a": {GPU: 8}}), lq(), made)
    assert not r.findings and not r.unjudged


def test_an_lws_kserve_made_is_judged_itself() -> None:
    """KServe copies the LLMInferenceService's queue label to the LWS it makes; the service has no group size."""
    made = lws("llama-kserve-mn", size=4, worker={GPU: 4}, labels={Q: "serving"},
               ownerReferences=[{"kind": "LLMInferenceService", "name": "llama", "uid": "u"}])
    [f] = found(run(cq({"a": {GPU: 8}}), lq(), made), "PD416")
    assert f.obj.name == "llama-kserve-mn"


# -- PD415: the queue label where the framework does not carry it ----------------------------------------------------

@pytest.mark.parametrize(("obj", "paths", "params"), [
    (dset([role("prefill"), role("decode", {"app": "x"})], {Q: "serving"}), [("metadata", "labels", Q)],
     {"queue": "serving", "roles": ["prefill", "decode"], "to": "spec.roles[].metadata.labels"}),
    (dset([role("prefill", {Q: "serving"}), role("decode")], {Q: "serving"}), [("metadata", "labels", Q)],
     {"queue": "serving", "roles": ["decode"], "to": "spec.roles[].metadata.labels"}),
    (dset([role("prefill", {Q: "serving"}), role("decode", {Q: "serving"})], {Q: "serving"}), [], None),
    (dset([role("prefill"), role("decode")]), [], None),
    (llmisvc(labels={Q: "serving"}), [("spec", "labels", Q)],
     {"queue": "serving", "from": "spec.labels", "to": "metadata.labels"}),
    (llmisvc(prefill={"labels": {Q: "serving"}}), [("spec", "prefill", "labels", Q)],
     {"queue": "serving", "from": "spec.prefill.labels", "to": "metadata.labels"}),
    (llmisvc({Q: "serving"}), [], None),
])
def test_queue_label_not_carried(obj: Obj, paths: list[tuple[Any, ...]], params: dict[str, Any] | None) -> None:
    fs = found(run(obj), "PD415")
    assert [f.path for f in fs] == paths
    if params is not None:
        assert fs[0].extra == params and fs[0].severity == "error"


@pytest.mark.parametrize("obj", [
    dset([role("prefill"), role("decode", {"app": "x"})], {Q: "serving"}),
    llmisvc(labels={Q: "serving", "team": "a"}, prefill={"labels": {Q: "serving"}}),
    llmisvc({"x": "y"}, labels={Q: "serving"}),
])
def test_the_fix_puts_the_label_where_it_is_carried_and_relints_clean(obj: Obj) -> None:
    ctx = context_from([obj], LintContext(local_queues={}))
    fix = plan_fix(obj, ctx)
    assert fix.changed and fix.changes and not fix.remaining
    after = apply_fix(fix, copy.deepcopy(obj))
    assert jsonpatch.apply_patch(copy.deepcopy(obj), patch_of(fix, obj)) == after == fix.after
    assert not found(run(after), "PD415")
    if obj["kind"] == "LLMInferenceService":
        assert after["metadata"]["labels"][Q] == "serving" and Q not in after["spec"].get("labels", {})
    else:
        assert all(r["metadata"]["labels"][Q] == "serving" for r in after["spec"]["roles"])


def test_two_queues_named_are_a_decision_not_a_rewrite() -> None:
    obj = llmisvc({Q: "a"}, labels={Q: "b"})
    assert queue_label_fix(obj) is None
    fix = plan_fix(obj, context_from([obj], LintContext(local_queues={})))
    assert fix.after is None and [f.rule_id for f in fix.remaining] == ["PD415"]


# -- PD414: roles Kueue admits apart -----------------------------------------------------------------------------------

def _roles(*pairs: tuple[str, str, bool]) -> list[Obj]:
    return [deployment(f"qwen-{r}", {"app.kubernetes.io/instance": inst, "llm-d.ai/role": r,
                                     **({Q: "serving"} if queued else {})})
            for r, inst, queued in pairs]


@pytest.mark.parametrize(("objs", "flagged"), [
    (_roles(("prefill", "qwen", True), ("decode", "qwen", True)), ["qwen-prefill", "qwen-decode"]),
    (_roles(("prefill", "qwen", True), ("decode", "llama", True)), []),  # two deployments, one role each
    (_roles(("prefill", "qwen", False), ("decode", "qwen", False)), []),  # no queue: Kueue admits neither
    (_roles(("prefill", "qwen", True), ("decode", "qwen", False)), ["qwen-prefill", "qwen-decode"]),
    (_roles(("frontend", "qwen", True), ("backend", "qwen", True)), []),  # not prefill/decode
    (_roles(("prefill", "qwen", True),), []),
])
def test_deployments_per_role(objs: list[Obj], flagged: list[str]) -> None:
    fs = found(run(*objs), "PD414")
    assert [f.obj.name for f in fs] == flagged
    assert all(f.severity == "warning" for f in fs)


def test_two_lws_of_one_deployment_by_app_label_and_role() -> None:
    a = lws("qwen-prefill", labels={Q: "serving", "app": "qwen", "llm-d.ai/role": "prefill"})
    b = lws("qwen-decode", labels={Q: "serving", "app": "qwen", "llm-d.ai/role": "decode"})
    fs = found(run(a, b), "PD414")
    assert [f.extra["peers"] for f in fs] == [[{"kind": "LeaderWorkerSet", "name": "qwen-decode", "role": "decode"}],
                                              [{"kind": "LeaderWorkerSet", "name": "qwen-prefill", "role": "prefill"}]]
    assert fs[0].path == ("metadata", "labels", "llm-d.ai/role")


def test_roles_read_from_the_pod_template() -> None:
    a, b = _roles(("prefill", "qwen", True), ("decode", "qwen", True))
    for d in (a, b):
        d["spec"]["template"]["metadata"]["labels"]["llm-d.ai/role"] = d["metadata"]["labels"].pop("llm-d.ai/role")
    assert len(peers_of([a, b])) == 2
    assert [f.path for f in found(run(a, b), "PD414")] == [("metadata", "name")] * 2


def test_what_a_framework_made_is_left_to_its_owner() -> None:
    owned = {"ownerReferences": [{"kind": "LLMInferenceService", "name": "llama", "uid": "u"}]}
    a, b = _roles(("prefill", "qwen", True), ("decode", "qwen", True))
    a["metadata"].update(owned)
    b["metadata"].update(owned)
    assert not found(run(a, b), "PD414")


@pytest.mark.parametrize(("obj", "params"), [
    (dset([role("prefill", {Q: "serving"}), role("decode", {Q: "serving"})]),
     {"roles": ["prefill", "decode"], "framework": "DisaggregatedSet", "workloads": "per role per group"}),
    (dset([role("prefill"), role("decode")]), None),  # no queue carried down: Kueue admits none of it
    (llmisvc({Q: "serving"}, prefill={"replicas": 1}),
     {"roles": ["decode", "prefill"], "framework": "LLMInferenceService", "made": ["llama-kserve",
                                                                                  "llama-kserve-prefill"]}),
    (llmisvc({Q: "serving"}, prefill={"replicas": 1}, worker={}),
     {"roles": ["decode", "prefill"], "framework": "LLMInferenceService", "made": ["llama-kserve-mn",
                                                                                  "llama-kserve-mn-prefill"]}),
    (llmisvc({Q: "serving"}), None),  # one role
])
def test_frameworks_that_split_roles(obj: Obj, params: dict[str, Any] | None) -> None:
    fs = found(run(obj), "PD414")
    assert [f.extra for f in fs] == ([params] if params else [])


def test_the_ignore_annotation_silences_the_new_rules() -> None:
    ds = dset([role("prefill"), role("decode")], {Q: "serving"})
    ds["metadata"]["annotations"] = {"kubectl-pd.io/ignore": "queue-label-not-carried"}
    r = run(ds)
    assert not r.findings and r.suppressed == 1


def test_the_kinds_are_counted_as_linted() -> None:
    r = run(*_roles(("prefill", "qwen", True), ("decode", "qwen", True)), dset([role("a"), role("b")]), llmisvc(),
            lws())
    assert r.summary()["kinds"] == {"Deployment": 2, "DisaggregatedSet": 1, "LLMInferenceService": 1,
                                    "LeaderWorkerSet": 1}
