"""why-pending on what the PD frameworks make (issue 47): LeaderWorkerSet groups, DisaggregatedSets, Deployments,
against the loopback API server with the objects Kueue 0.19.2 and LWS v0.9.0 write (tests/frameworks.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests import frameworks as fw


def _json(cli: Any, env: dict[str, str], *args: str) -> tuple[int, dict[str, Any]]:
    r = cli(["why-pending", *args, "-n", fw.NS, "-o", "json"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    return r.exit_code, json.loads(r.stdout)


@pytest.mark.parametrize("form", ["workload", "podgroup"])
def test_a_group_named_only_by_annotation_has_its_pods(cli: Any, apiserver: Any, form: str) -> None:
    """Kueue 0.18+ names an LWS group's Pods by annotation: the group is diagnosed with all of them (six: more than
    the Workload's owners are read by name), found by LWS's own labels (a label selector cannot select an
    annotation)."""
    owner = fw.lws("vllm", replicas=1, size=6)
    group = fw.lws_group(owner, 0, "pending")
    server, env = apiserver([*fw.queues(gpus=1), owner, *group], groups=fw.groups())
    name = group[0]["metadata"]["name"]
    _code, data = _json(cli, env, f"{form}/{name}")
    assert {r["name"]: r["pods"]["have"] for r in data["roles"]} == {"leader": 1, "worker": 5}
    selectors = [q.query.get("labelSelector") for q in server.requests if q.path == "/api/v1/namespaces/team-a/pods"]
    assert "leaderworkerset.sigs.k8s.io/name=vllm,leaderworkerset.sigs.k8s.io/group-index=0" in selectors


def test_the_list_finds_a_group_named_only_by_annotation(cli: Any, apiserver: Any) -> None:
    owner = fw.lws("vllm", replicas=1, size=2)
    group = fw.lws_group(owner, 0, "pending")
    _server, env = apiserver([*fw.queues(gpus=1), owner, *group], groups=fw.groups())
    r = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    items = json.loads(r.stdout)["items"]
    assert [(i["target"]["kind"], i["target"]["name"]) for i in items] == [("PodGroup", group[0]["metadata"]["name"])]
    assert {x["name"]: x["pods"]["have"] for x in items[0]["roles"]} == {"leader": 1, "worker": 1}


def _lws_two_groups() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An LWS of two groups (leader + worker, 1 GPU each) on a queue of 2 GPUs: group 0 admitted, group 1 waits."""
    owner = fw.lws("vllm", replicas=2, size=2)
    return owner, [*fw.lws_group(owner, 0, "admitted"), *fw.lws_group(owner, 1, "pending",
                   message="couldn't assign flavors to pod set leader: insufficient unused quota for nvidia.com/gpu "
                           f"in flavor {fw.FLAVOR}, 1 more needed")]


def test_an_lws_whose_second_group_waits(cli: Any, apiserver: Any) -> None:
    owner, objs = _lws_two_groups()
    server, env = apiserver([*fw.queues(gpus=2, used=2), owner, *objs], groups=fw.groups())
    for target in ("lws/vllm", "leaderworkerset/vllm", "vllm"):
        code, data = _json(cli, env, target)
        assert data["pending"] and code == 0, target
        assert data["target"]["kind"] == "LeaderWorkerSet"
        waiting = [r for r in data["reasons"] if r["code"] != "PartlyAdmitted"]
        assert waiting[0]["workload"] == fw.lws_workload_name("vllm", "uid-lws-vllm", 1)
    assert {r["name"]: r["pods"]["have"] for r in data["roles"]} == {"leader": 2, "worker": 2}
    wl_lists = [q.query.get("labelSelector") for q in server.requests
                if q.path == "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads"]
    assert "kueue.x-k8s.io/job-uid=uid-lws-vllm" in wl_lists


def test_a_deployment_of_four_replicas_one_gated(cli: Any, apiserver: Any) -> None:
    owner = fw.deployment("llama", 4)
    objs = [o for i in range(4) for o in fw.deployment_pod(owner, i, "admitted" if i < 3 else "pending")]
    _server, env = apiserver([*fw.queues(gpus=3, used=3), owner, *objs], groups=fw.groups())
    code, data = _json(cli, env, "deploy/llama")
    assert data["pending"] and code == 0
    assert data["target"]["kind"] == "Deployment"
    waiting = [r for r in data["reasons"] if r["code"] != "PartlyAdmitted"]
    gated = next(o for o in objs if o["kind"] == "Workload" and o["status"]["conditions"][0]["status"] == "False")
    assert waiting[0]["workload"] == gated["metadata"]["name"]
    assert [r["pods"]["have"] for r in data["roles"]] == [4]


def _ds_prefill_admitted_decode_waits() -> list[dict[str, Any]]:
    """A DisaggregatedSet `pd`: one prefill group admitted (2 GPUs held), one decode group waiting for quota."""
    ds, (prefill, decode) = fw.disaggregated_set("pd", {"prefill": 1, "decode": 1})
    return [ds, prefill, decode, *fw.lws_group(prefill, 0, "admitted"),
            *fw.lws_group(decode, 0, "pending", message="couldn't assign flavors to pod set leader: insufficient "
                          f"unused quota for nvidia.com/gpu in flavor {fw.FLAVOR}, 1 more needed")]


def test_a_disaggregated_set_finds_every_role(cli: Any, apiserver: Any) -> None:
    _server, env = apiserver([*fw.queues(gpus=2, used=2), *_ds_prefill_admitted_decode_waits()],
                             groups=fw.groups())
    for target in ("ds/pd", "disaggregatedset/pd", "pd"):
        _code, data = _json(cli, env, target)
        assert data["pending"] and data["target"]["kind"] == "DisaggregatedSet", target
        assert {r["name"]: r["pods"]["have"] for r in data["roles"]} == {"prefill": 2, "decode": 2}
        waiting = [r for r in data["reasons"] if r["code"] != "PartlyAdmitted"]
        assert waiting[0]["role"] == "decode"


def test_a_statefulset_and_an_llm_inference_service(cli: Any, apiserver: Any) -> None:
    """A StatefulSet's one Workload (a serving group) and an LLMInferenceService through the LWS KServe makes."""
    sts_owner = {"apiVersion": "apps/v1", "kind": "StatefulSet",
                 "metadata": {"name": "sg", "namespace": fw.NS, "uid": "uid-sts-sg"},
                 "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "sg"}}}}
    name = fw.workload_name("StatefulSet", "apps", "sg", "uid-sts-sg")
    wl = fw.group_workload(name, sts_owner, [("main", 1, 1)], "pending", labels={"app": "sg"})
    pod = fw.deployment_pod(fw.deployment("sg", 1), 0, "pending")[0]
    pod["metadata"]["annotations"] = {"kueue.x-k8s.io/pod-group-name": name}
    svc = {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService",
           "metadata": {"name": "qwen", "namespace": fw.NS, "uid": "uid-llmisvc"}}
    mn = fw.lws("qwen-kserve-mn", replicas=1, size=2, labels={"llm-d.ai/role": "decode"})
    _server, env = apiserver([*fw.queues(gpus=1, used=1), sts_owner, wl, pod, svc, mn,
                              *fw.lws_group(mn, 0, "pending")], groups=fw.groups())
    _code, data = _json(cli, env, "sts/sg")
    assert data["target"]["kind"] == "StatefulSet" and data["pending"]
    assert [r["pods"]["have"] for r in data["roles"]] == [1]
    _code, data = _json(cli, env, "llmisvc/qwen")
    assert data["target"]["kind"] == "LLMInferenceService" and data["pending"]
    assert {r["name"]: r["pods"]["have"] for r in data["roles"]} == {"decode": 2}


def test_a_disaggregated_set_half_admitted_is_partly_admitted(cli: Any, apiserver: Any) -> None:
    """Prefill admitted (its group holds 2 GPUs of h100), decode waiting: PartlyAdmitted, with the held quota Kueue's
    admission charged, one row per Workload, and the reasons of what waits."""
    _server, env = apiserver([*fw.queues(gpus=2, used=2), *_ds_prefill_admitted_decode_waits()],
                             groups=fw.groups())
    _code, data = _json(cli, env, "ds/pd")
    assert tuple(map(int, data["schemaVersion"].split("."))) >= (1, 7)  # workloads[] and PartlyAdmitted came in 1.7
    first = data["reasons"][0]
    assert first["code"] == "PartlyAdmitted"
    assert first["params"]["admittedRoles"] == ["prefill"] and first["params"]["waitingRoles"] == ["decode"]
    assert first["params"]["lackingRoles"] == ["decode"]
    assert first["params"]["held"] == [{"flavor": fw.FLAVOR, "resource": fw.GPU, "quantity": "2"}]
    assert [(w["role"], w["group"], w["admitted"]) for w in data["workloads"]] == [
        ("decode", "0", False), ("prefill", "0", True)]
    decode_wl = next(w["name"] for w in data["workloads"] if w["role"] == "decode")
    assert first["params"]["waitingWorkloads"] == [decode_wl]
    assert [(r["code"], r["role"], r["workload"]) for r in data["reasons"][1:]] == [
        ("QuotaExhausted", "decode", decode_wl)]
    assert any("DisaggregatedSet" in n for n in data["next"])


def test_the_text_screen_of_a_half_admitted_disaggregated_set(cli: Any, apiserver: Any) -> None:
    _server, env = apiserver([*fw.queues(gpus=2, used=2), *_ds_prefill_admitted_decode_waits()],
                             groups=fw.groups())
    r = cli(["why-pending", "ds/pd", "-n", fw.NS], env=env)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("PENDING  disaggregatedset team-a/pd is pending (PartlyAdmitted): prefill admitted")
    table = lines[lines.index(next(x for x in lines if x.strip().startswith("WORKLOAD"))):]
    assert [row.split()[1:] for row in table[1:3]] == [["decode", "0", "waiting", "(QuotaExhausted)"],
                                                        ["prefill", "0", "admitted"]]
