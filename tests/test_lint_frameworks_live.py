"""PD414-PD416 on live objects, against the loopback API server: what lint reads (GET only, the frameworks' kinds in
the namespace, LocalQueues only when an object names a queue), a framework whose CRD is not installed (nothing to
lint, nothing said), and RBAC refusals (that part unknown, exit 1)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonpatch

from tests.apiserver import DEFAULT_GROUPS, Forbid
from tests.test_lint_frameworks import GPU, Q, cq, deployment, dset, lq, lws, role

FRAMEWORK_GROUPS = {**DEFAULT_GROUPS, "apps": ["v1"], "leaderworkerset.x-k8s.io": ["v1"],
                    "disaggregatedset.x-k8s.io": ["v1"], "serving.kserve.io": ["v1alpha2"]}


def _uid(obj: dict[str, Any], uid: str) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    obj["metadata"]["uid"] = uid
    return obj


def cluster() -> list[dict[str, Any]]:
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "a"}}
    roles = [deployment(f"qwen-{r}", {"app.kubernetes.io/instance": "qwen", "llm-d.ai/role": r, Q: "serving"})
             for r in ("prefill", "decode")]
    return [cq({"a": {GPU: 8}}), flavor, lq(),
            _uid(lws("deepseek", size=4, worker={GPU: 4}, labels={Q: "serving"}), "u-lws"),
            _uid(dset([role("prefill"), role("decode")], {Q: "serving"}), "u-ds"), *roles]


def findings(stdout: str) -> list[tuple[str, str]]:
    return [(f["id"], f"{f['object']['kind']}/{f['object']['name']}") for f in json.loads(stdout)["findings"]]


def test_live_frameworks_are_linted_with_get_only(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster(), groups=FRAMEWORK_GROUPS, namespace="llm")
    res = cli(["lint", "-o", "json"], env=env)
    assert res.exit_code == 1, res.stderr
    assert sorted(findings(res.stdout)) == [
        ("PD414", "Deployment/qwen-decode"), ("PD414", "Deployment/qwen-prefill"),
        ("PD415", "DisaggregatedSet/qwen"), ("PD416", "LeaderWorkerSet/deepseek")]
    doc = json.loads(res.stdout)
    [never] = [f for f in doc["findings"] if f["id"] == "PD416"]
    assert (never["file"], never["params"]["localQueue"], never["params"]["clusterQueue"]) == \
        ("cluster", "llm/serving", "pool")
    assert "unread" not in doc["summary"] and "unchecked" not in doc["summary"]
    assert set(server.methods) == {"GET"}
    paths = {r.path for r in server.requests}
    for p in ("/apis/leaderworkerset.x-k8s.io/v1/namespaces/llm/leaderworkersets",
              "/apis/disaggregatedset.x-k8s.io/v1/namespaces/llm/disaggregatedsets",
              "/apis/apps/v1/namespaces/llm/deployments",
              "/apis/serving.kserve.io/v1alpha2/namespaces/llm/llminferenceservices",
              "/apis/kueue.x-k8s.io/v1beta2/namespaces/llm/localqueues"):
        assert p in paths, p


def test_frameworks_not_installed_say_nothing(cli: Callable, apiserver: Callable) -> None:
    """The default server serves none of the frameworks' groups: no object of theirs, no note, no unknown."""
    server, env = apiserver([cq({"a": {GPU: 8}}), {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
                                                   "metadata": {"name": "a"}}], namespace="llm")
    res = cli(["lint"], env=env)
    assert res.exit_code == 0, res.stderr
    assert res.stderr == ""
    assert res.stdout.startswith("no findings in 1 object (1 ClusterQueue)")
    assert not any(r.path.endswith("/localqueues") for r in server.requests)  # no object named a queue


def test_forbidden_framework_kind_is_unknown_and_exits_1(cli: Callable, apiserver: Callable) -> None:
    objs = [o for o in cluster() if o["kind"] in ("ClusterQueue", "ResourceFlavor", "LocalQueue")]
    server, env = apiserver(objs, groups=FRAMEWORK_GROUPS, namespace="llm",
                            forbid=[Forbid("list", "leaderworkersets")])
    res = cli(["lint", "-o", "json"], env=env)
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["findings"] == [] and doc["summary"]["errors"] == 0
    [unread] = doc["summary"]["unread"]
    assert unread.startswith("RBAC hides LeaderWorkerSets in namespace \"llm\"")
    assert "note: RBAC hides LeaderWorkerSets" in res.stderr
    text = cli(["lint"], env=env)
    assert text.exit_code == 1 and "1 read refused: that part is unknown" in text.stdout


def test_forbidden_local_queues_leave_the_fit_unknown(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster(), groups=FRAMEWORK_GROUPS, namespace="llm",
                            forbid=[Forbid("list", "localqueues")])
    res = cli(["lint", "-o", "json"], env=env)
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert "PD416" not in {f["id"] for f in doc["findings"]}
    assert any(u.startswith("LeaderWorkerSet/deepseek: PD416 group-never-fits") for u in doc["summary"]["unchecked"])
    assert any("cannot list LocalQueues" in u for u in doc["summary"]["unread"])
    assert "note: not checked on LeaderWorkerSet/deepseek: PD416 group-never-fits" in res.stderr


def test_a_missing_local_queue_is_said_not_judged(cli: Callable, apiserver: Callable) -> None:
    objs = [o for o in cluster() if o["kind"] != "LocalQueue"]
    server, env = apiserver(objs, groups=FRAMEWORK_GROUPS, namespace="llm")
    res = cli(["lint", "-o", "json"], env=env)
    doc = json.loads(res.stdout)
    assert "PD416" not in {f["id"] for f in doc["findings"]}
    assert "LeaderWorkerSet/deepseek: PD416 group-never-fits: its LocalQueue llm/serving does not exist" in \
        doc["summary"]["unchecked"]
    assert "unread" not in doc["summary"]


def test_live_fix_patch_moves_the_queue_label(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster(), groups=FRAMEWORK_GROUPS, namespace="llm")
    res = cli(["lint", "--fix", "-o", "patch"], env=env)
    patches = json.loads(res.stdout)
    [ds_patch] = [p for p in patches if p["kind"] == "DisaggregatedSet"]
    [live_ds] = [o for o in cluster() if o["kind"] == "DisaggregatedSet"]
    fixed = jsonpatch.apply_patch(copy.deepcopy(live_ds), ds_patch["patch"])
    assert all(r["metadata"]["labels"][Q] == "serving" for r in fixed["spec"]["roles"])
    objs = [fixed if o["kind"] == "DisaggregatedSet" else o for o in cluster()]
    server2, env2 = apiserver(objs, groups=FRAMEWORK_GROUPS, namespace="llm")
    again = findings(cli(["lint", "-o", "json"], env=env2).stdout)
    assert ("PD415", "DisaggregatedSet/qwen") not in again and ("PD414", "DisaggregatedSet/qwen") in again
