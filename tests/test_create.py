"""`create`'s pure core: role flags, API profiles from CRDs, renders, and the quota arithmetic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_pd.create import flags, pods, preflight, scaffold, wait
from kubectl_pd.create.flags import CreateRequest, RoleSyntaxError, parse_role
from kubectl_pd.gpustack import names, profiles
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import Snapshot
from kubectl_pd.kueue.quantity import CREDITS_PER_CARD
from tests.apiserver import load_objects
from tests.builders import cluster_queue, pod

FIX = Path(__file__).parent / "fixtures" / "create"
H20 = "gpustack--nvidia-h20-linux-amd64"


def crd(name: str) -> dict:
    return load_objects(FIX / name)[0]


def request(*roles: str, **kw: object) -> CreateRequest:
    base: dict = {"name": "qwen", "namespace": "team-a", "model": "Qwen/Qwen2.5-7B", "engine_version": "0.8.5",
                  "kv_cache_pool": "shared-kv", "instance_type": H20}
    base.update(kw)
    return CreateRequest(roles=tuple(parse_role(r) for r in roles), **base)  # type: ignore[arg-type]


def checked(req: CreateRequest) -> list[flags.Role]:
    out = flags.check_request(req)
    assert out.problems == []
    return out.roles


# ----------------------------------------------------------------------------- --role parsing
def test_parse_role_keys_and_args_with_commas() -> None:
    spec = parse_role("name=p,kind=prefill,replicas=2,instance-type=it,accelerator=2,accelerator-key=nvidia-h20,"
                      "size=1,image=reg/x:1,arg=--max-model-len=8192,arg=--foo=a,b")
    assert (spec.name, spec.kind, spec.replicas, spec.instance_type) == ("p", "prefill", "2", "it")
    assert (spec.accelerator, spec.accelerator_key, spec.size, spec.image) == ("2", "nvidia-h20", "1", "reg/x:1")
    assert spec.args == ("--max-model-len=8192", "--foo=a,b")
    assert spec.flag.startswith("--role name=p,")


@pytest.mark.parametrize("text, fragment", [
    ("name", "'name' in 'name' is not key=value"),
    ("name=p,replicas", "is not key=value"),
    ("name=p,colour=red", "unknown key 'colour'"),
    ("name=p,name=q", "name= is given twice"),
    ("", "empty role"),
])
def test_parse_role_syntax_errors(text: str, fragment: str) -> None:
    with pytest.raises(RoleSyntaxError, match=fragment):
        parse_role(text)


def test_complete_role_offers_keys_then_kinds() -> None:
    assert flags.complete_role("") == [f"{k}=" for k in flags.ROLE_KEYS]
    assert flags.complete_role("acc") == ["accelerator=", "accelerator-key=", "accelerator-type="]
    assert flags.complete_role("name=p,") == [f"name=p,{k}=" for k in flags.ROLE_KEYS if k != "name"]
    assert flags.complete_role("name=p,kind=pre") == ["name=p,kind=prefill"]
    assert flags.complete_role("name=p,kind=") == ["name=p,kind=server", "name=p,kind=prefill", "name=p,kind=decode"]
    assert flags.complete_role("name=p,arg=x,a") == ["name=p,arg=x,accelerator=", "name=p,arg=x,accelerator-key=",
                                                     "name=p,arg=x,arg=", "name=p,arg=x,accelerator-type="]
    assert flags.complete_role("name=p,replicas=") == []


# ----------------------------------------------------------------------------- validation
def problems(req: CreateRequest) -> list[str]:
    return flags.check_request(req).problems


def rule_ids(found: list[str]) -> list[str]:
    """The rule of each problem, in order: create's flag checks end every message with `[rule ID]`."""
    ids = [re.search(r" \[rule ([a-z0-9-]+)\]$", p) for p in found]
    assert all(ids), found
    return [m.group(1) for m in ids if m]


@pytest.mark.parametrize("roles, rule, fragment", [
    ((), "roles-count", "no roles"),
    (tuple(f"name=r{i}" for i in range(11)), "roles-count", "11 roles"),
    (("name=Prefill_1",), "role-name", "'Prefill_1' must match"),
    (("name=" + "a" * 64,), "role-name", "at most 63"),
    (("name=a", "name=a"), "role-name", "repeated"),
    (("name=a,kind=router",), "role-kind", "'router' is not one of server, prefill, decode"),
    (("name=a,kind=server", "name=b,kind=decode"), "role-kind", "cannot be mixed"),
    (("name=a,kind=prefill", "name=b,kind=prefill"), "role-kind", "at most one prefill"),
    (("name=a,replicas=0",), "replicas", "at least 1 replica"),
    (("name=a,replicas=two",), "replicas", "'two' is not a whole number"),
    (("name=a,accelerator=lots",), "numbers", "accelerator 'lots' is not a number"),
    (("name=a,size=1.5",), "numbers", "size '1.5' is not a number"),
    (("name=a,size=0",), "size", "at least 1 Pod"),
    (("name=a,accelerator-key=h20",), "accelerator-key", "must be <manufacturer>-<model>"),
])
def test_each_validation_rule_names_field_value_and_rule(roles: tuple[str, ...], rule: str, fragment: str) -> None:
    found = problems(request(*roles))
    assert rule_ids(found) == [rule], found
    assert fragment in found[0]  # the value as typed, or the bound it breaks


def test_other_request_rules() -> None:
    assert rule_ids(problems(request("name=a", name="Qwen_7B"))) == ["name"]
    assert rule_ids(problems(request("name=a", model=""))) == ["model"]
    assert rule_ids(problems(request("name=a", instance_type=None))) == ["instance-type"]
    assert rule_ids(problems(request("name=a", env=(("1BAD", "x"),)))) == ["env"]
    shared = problems(request("name=a,kind=prefill,accelerator=0", "name=b,kind=decode"))
    assert rule_ids(shared) == ["accelerator"]
    assert shared[0].startswith("--role name=a,kind=prefill,accelerator=0: resources.accelerator=0 ")
    # the offending flag is quoted so the user finds it
    assert problems(request("name=a,replicas=0"))[0].startswith("--role name=a,replicas=0: spec.roles[0].replicas")


def test_pd_atomic_requires_one_instance_type_and_says_why() -> None:
    req = request("name=p,kind=prefill,instance-type=a", "name=d,kind=decode,instance-type=b")
    roles = checked(req)
    found = flags.check_profile(req, roles, profiles.PD_ATOMIC_OFFLINE)
    assert rule_ids(found) == ["instance-type-mismatch"]
    assert found[0] == (  # why, and what to do instead
        "--role name=d,kind=decode,instance-type=b: spec.roles[1].instanceType 'b' differs from 'a': a Workload "
        "carries one queueName, so roles on two instanceTypes (two queues) cannot be admitted atomically; keep every "
        "role on one instanceType and choose hardware inside that pool with acceleratorKey "
        "[rule instance-type-mismatch]")
    assert flags.check_profile(req, roles, profiles.PER_REPLICA_OFFLINE) == []


def test_fields_a_profile_cannot_hold_are_refused_by_name() -> None:
    req = request("name=p,kind=prefill,accelerator-key=nvidia-h20", "name=d,kind=decode,size=2",
                  router="llm-d-router")
    roles = checked(req)
    atomic = flags.check_profile(req, roles, profiles.PD_ATOMIC_OFFLINE)
    assert rule_ids(atomic) == ["api-field", "api-field"]
    assert atomic == [
        "the ModelDeployment API worker.gpustack.ai/v1alpha1, pd-atomic (offline) has no spec.router field, so "
        "--router 'llm-d-router' cannot be written [rule api-field]",
        "--role name=d,kind=decode,size=2: the ModelDeployment API worker.gpustack.ai/v1alpha1, pd-atomic (offline) "
        "has no spec.roles[].size field, so size=2 cannot be written (in the seed's design a replica is one Pod) "
        "[rule api-field]"]
    replica = flags.check_profile(req, roles, profiles.PER_REPLICA_OFFLINE)
    assert rule_ids(replica) == ["api-field"]
    assert replica[0].startswith("--role name=p,kind=prefill,accelerator-key=nvidia-h20: the ModelDeployment API "
                                 "worker.gpustack.ai/v1alpha1, per-replica (offline) has no "
                                 "spec.roles[].acceleratorKey field, so accelerator-key=nvidia-h20 cannot be written "
                                 "(it was withdrawn; ")


def test_engine_version_kv_cache_and_router_rules() -> None:
    req = request("name=s", engine_version=None, kv_cache_pool=None)
    roles = checked(req)
    atomic = flags.check_profile(req, roles, profiles.PD_ATOMIC_OFFLINE)
    assert rule_ids(atomic) == ["engine-version", "kv-cache"]
    assert [p.split(":", 1)[0] for p in atomic] == ["--engine-version is required", "--kv-cache-pool is required"]
    replica = flags.check_profile(req, roles, profiles.PER_REPLICA_OFFLINE)
    assert replica == ["--engine-version is required: role(s) s name no image, so the operator assembles one from "
                       "engine, version and instanceType (spec.engine.version) [rule engine-version]"]
    with_image = request("name=s,image=reg/vllm:1", engine_version=None, kv_cache_pool=None)
    assert flags.check_profile(with_image, checked(with_image), profiles.PER_REPLICA_OFFLINE) == []
    bad = request("name=s", engine="tgi", router="sglang-gateway")
    found = flags.check_profile(bad, checked(bad), profiles.PER_REPLICA_OFFLINE)
    assert rule_ids(found) == ["engine", "router"]
    assert found[0].startswith("--engine 'tgi': spec.engine must be one of vllm, sglang ")
    pairing = request("name=s", router="sglang-gateway")
    assert flags.check_profile(pairing, checked(pairing), profiles.PER_REPLICA_OFFLINE) == [
        "--router 'sglang-gateway' cannot front engine 'vllm': vllm-router fronts vllm only, sglang-gateway sglang "
        "only, llm-d-router both [rule router]"]


def test_per_replica_bounds_and_service_names() -> None:
    req = request("name=s,replicas=2000,size=65", name="a" * 62)  # a-...-s: 64 characters
    found = flags.check_profile(req, checked(req), profiles.PER_REPLICA_OFFLINE)
    assert rule_ids(found) == ["replicas", "size", "service-name"]
    assert found[:2] == ["--role name=s,replicas=2000,size=65: spec.roles[0].replicas is 2000: at most 1024 "
                         "[rule replicas]",
                         "--role name=s,replicas=2000,size=65: spec.roles[0].size is 65: at most 64 [rule size]"]


def test_replicas_and_size_stay_within_int32_whatever_the_schema_says() -> None:
    req = request("name=s,replicas=99999999999999999999")
    found = flags.check_profile(req, checked(req), profiles.PD_ATOMIC_OFFLINE)  # states no maximum
    assert found == ["--role name=s,replicas=99999999999999999999: spec.roles[0].replicas is 99999999999999999999: "
                     "at most 2147483647 [rule replicas]"]
    req = request("name=s,replicas=1,size=3000000000")
    found = flags.check_profile(req, checked(req), profiles.PER_REPLICA_OFFLINE)
    assert found == ["--role name=s,replicas=1,size=3000000000: spec.roles[0].size is 3000000000: at most 64 "
                     "[rule size]"]


# ----------------------------------------------------------------------------- profiles from CRDs
def test_profile_from_pd_atomic_crd() -> None:
    p = profiles.from_crd(crd("crd-pd-atomic.yaml"))
    assert p.name == PD_ATOMIC and p.api_version == "worker.gpustack.ai/v1alpha1"
    assert p.engine_shape == "string" and p.engine_version_field == "engineVersion" and p.engine_version_required
    assert p.kv_cache_required and p.router_names is None and p.image_path == ("template", "image")
    assert p.has("acceleratorKey") and not p.has("size") and p.kinds == ("server", "prefill", "decode")


def test_profile_from_per_replica_crds_lower_and_pascal_case() -> None:
    low = profiles.from_crd(crd("crd-per-replica.yaml"))
    assert low.name == PER_REPLICA and low.has("size") and not low.has("acceleratorKey")
    assert (low.replicas_max, low.size_max, low.image_path) == (1024, 64, ("image",))
    assert low.router_names == ("llm-d-router", "vllm-router", "sglang-gateway")
    pascal = profiles.from_crd(crd("crd-per-replica-pascal.yaml"))
    assert pascal.api_version == "worker.gpustack.ai/v1alpha1"  # the storage version, not the v1 view
    assert pascal.kinds == ("Server", "Prefill", "Decode") and pascal.engines == ("vLLM", "SGLang")
    assert pascal.spell_kind("prefill") == "Prefill" and pascal.spell_engine("VLLM") == "vLLM"
    assert pascal.spell_kind("router") is None


def test_profile_from_broken_crd() -> None:
    with pytest.raises(profiles.ProfileError):
        profiles.from_crd({"spec": {"versions": [{"name": "v1alpha1", "served": False}]}})
    with pytest.raises(profiles.ProfileError, match="no spec.roles"):
        profiles.from_crd({"spec": {"versions": [{"name": "v9", "served": True, "storage": True, "schema": {
            "openAPIV3Schema": {"properties": {"spec": {"properties": {}}}}}}]}})


# ----------------------------------------------------------------------------- renders
def test_render_pd_atomic_model_deployment() -> None:
    req = request("name=prefill,kind=prefill,replicas=2,accelerator-key=nvidia-h20,image=reg/v:1,arg=--tp=2",
                  "name=decode,kind=decode,accelerator=2", env=(("HF_HUB_OFFLINE", "1"),))
    md = scaffold.render_model_deployment(req, checked(req), profiles.PD_ATOMIC_OFFLINE)
    assert md["apiVersion"] == "worker.gpustack.ai/v1alpha1" and md["kind"] == "ModelDeployment"
    assert md["metadata"] == {"name": "qwen", "namespace": "team-a"}
    spec = md["spec"]
    assert spec["engine"] == "vllm" and spec["engineVersion"] == "0.8.5"
    assert spec["kvCache"] == {"poolRef": {"name": "shared-kv"}}
    assert spec["roles"][0] == {"name": "prefill", "kind": "prefill", "replicas": 2, "instanceType": H20,
                                "acceleratorKey": "nvidia-h20", "resources": {"accelerator": 1},
                                "template": {"image": "reg/v:1"}, "extraArgs": ["--tp=2"],
                                "env": [{"name": "HF_HUB_OFFLINE", "value": "1"}]}
    assert spec["roles"][1]["resources"] == {"accelerator": 2} and "size" not in spec["roles"][1]


def test_render_per_replica_pascal_case() -> None:
    profile = profiles.from_crd(crd("crd-per-replica-pascal.yaml"))
    req = request("name=p,kind=prefill,size=2,image=reg/v:1", "name=d,kind=decode", router="llm-d-router",
                  kv_cache_pool=None)
    md = scaffold.render_model_deployment(req, checked(req), profile)
    assert md["spec"]["engine"] == {"name": "vLLM", "version": "0.8.5"}
    assert md["spec"]["router"] == {"name": "llm-d-router"} and "kvCache" not in md["spec"]
    p, d = md["spec"]["roles"]
    assert (p["kind"], p["size"], p["image"]) == ("Prefill", 2, "reg/v:1") and d["kind"] == "Decode"


def test_render_pods_of_the_seed_group() -> None:
    req = request("name=prefill,kind=prefill,replicas=2,image=reg/v:1,accelerator-key=nvidia-h20,accelerator=2",
                  "name=decode,kind=decode,replicas=1,image=reg/v:1")
    roles = checked(req)
    objs = pods.render_pods(req, roles, pods.offline_queues(req, roles))
    assert [o["metadata"]["name"] for o in objs] == ["qwen-prefill-0", "qwen-prefill-1", "qwen-decode-0"]
    lq = names.local_queue_name(H20)
    for o in objs:
        labels, ann = o["metadata"]["labels"], o["metadata"]["annotations"]
        assert labels["kueue.x-k8s.io/pod-group-name"] == "qwen"
        assert labels["kueue.x-k8s.io/queue-name"] == lq and len(lq) == 31
        assert ann["kueue.x-k8s.io/pod-group-total-count"] == "3"
        assert ann["kueue.x-k8s.io/pod-group-serving"] == "true"
        assert ann["kueue.x-k8s.io/role-hash"] == labels["app.kubernetes.io/component"]
        # fast admission would fold both roles into one PodSet: never set
        assert "kueue.x-k8s.io/pod-group-fast-admission" not in ann
    first = objs[0]["spec"]
    assert first["nodeSelector"] == {"acceleratable.feature.gpustack.ai/nvidia-h20": "true"}
    assert first["containers"][0]["args"] == ["--model", "Qwen/Qwen2.5-7B"]
    assert first["containers"][0]["resources"]["requests"] == {"credits.gpustack.ai/nvidia": "3200000"}
    # issue 37 W2: a role with no key still asks its cards, of the credits its GPUStack instance type's queue covers
    assert "nodeSelector" not in objs[2]["spec"]
    assert objs[2]["spec"]["containers"][0]["resources"]["requests"] == {"credits.gpustack.ai/nvidia": "1600000"}


def test_render_pods_hashed_group_name_and_local_queue_override() -> None:
    long_name = "qwen2-5-72b-instruct-prefill-decode-disaggregated-on-h20-team-a-v2"  # 66 characters
    req = request("name=p,kind=prefill,image=i", "name=d,kind=decode,image=i", name=long_name,
                  local_queue="plain-queue")
    roles = checked(req)
    objs = pods.render_pods(req, roles, pods.offline_queues(req, roles))
    group = names.hashed(f"team-a/{long_name}")
    assert group.startswith("gpustack-fnv64-") and len(group) == 31
    assert {o["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] for o in objs} == {group}
    assert {o["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for o in objs} == {"plain-queue"}


def test_pods_target_rules() -> None:
    req = request("name=p,kind=prefill,size=2", "name=d,kind=decode,image=i", target="pods", router="llm-d-router")
    found = flags.check_pods(req, checked(req))
    assert rule_ids(found) == ["image", "api-field", "api-field", "api-field"]
    assert [p.split(": ", 1)[0] for p in found] == ["--role name=p,kind=prefill,size=2"] * 2 + \
        ["--router", "--kv-cache-pool"]  # each problem names the flag that caused it
    assert found[0].startswith("--role name=p,kind=prefill,size=2: spec.roles[0].image is required with --target pods")


# ----------------------------------------------------------------------------- quota arithmetic
CARD = CREDITS_PER_CARD
RES = "credits.gpustack.ai/nvidia"


def role(name: str, replicas: int, accelerator: int = 1, size: int | None = None) -> flags.Role:
    return flags.Role(name, "server", replicas, "it", accelerator, None, size, None, (), f"--role name={name}")


def queue(*flavors: tuple[str, int], used: dict[str, int] | None = None, cohort: str | None = None) -> dict:
    """ClusterQueue `cq` of GPUStack credits: (flavor, cards) pairs; `used` in cards."""
    return cluster_queue("cq", {f: str(n * CARD) for f, n in flavors}, resource=RES, cohort=cohort,
                         used={f: str(n * CARD) for f, n in (used or {}).items()})


def findings(cq: dict, roles: list[flags.Role], profile: str = PD_ATOMIC, *extra: dict) -> list[tuple]:
    snap = Snapshot.read({"cq": cq}, {}, [cq, *extra], [])  # a list read holds the queue itself (issue 46)
    result = vd.evaluate(snap, "cq", preflight.role_demands(roles, profile, RES, "cq"), whole=True)  # as the preflight
    return [(f.check, f.params.get("role"), f.params.get("code"), f.params.get("flavor"),
             f.params.get("needed") and f.params["needed"] / CARD)
            for f in preflight.quota_findings("cq", RES, result, profile == PER_REPLICA)]


@pytest.mark.parametrize("cq, roles, profile, want", [
    # one role larger than its only flavor: never
    (queue(("f8", 8)), [role("p", 3, 3)], PD_ATOMIC, [("never-fits", "p", "QuotaExceedsCapacity", "f8", 1)]),
    # 5 + 5 cards on flavors of 4 and 6: Kueue goes first-fit (p in b, then d fits nowhere): never
    (queue(("a", 4), ("b", 6)), [role("p", 5), role("d", 5)], PD_ATOMIC,
     [("never-fits", "d", "QuotaExceedsCapacity", "a", 1)]),
    (queue(("a", 5), ("b", 5)), [role("p", 5), role("d", 5)], PD_ATOMIC, []),
    # per-replica: 4 replicas of 3 cards are judged together on one 8-card flavor
    (queue(("a", 8)), [role("s", 4, 3, size=1)], PER_REPLICA, [("never-fits", "s", "QuotaExceedsCapacity", "a", 1)]),
    # fits the pool, not its unused quota now: a warning with the numbers
    (queue(("a", 8), used={"a": 6}), [role("p", 1, 4)], PD_ATOMIC,
     [("waits-for-quota", "p", "QuotaExhausted", "a", 2)]),
    # per-replica: three 1-card replica groups on 4 cards with 2 used: each fits alone, not all three (the
    # real Kueue reserves two and leaves the third pending: tests/realcluster/test_create_md_real.py seed 2800)
    (queue(("a", 4), used={"a": 2}), [role("p", 1), role("d", 2)], PER_REPLICA,
     [("waits-for-quota", "d", "QuotaExhausted", "a", 1)]),
    (queue(("a", 4), used={"a": 1}), [role("p", 1), role("d", 2)], PER_REPLICA, []),
    # accelerator 0 demands nothing
    (queue(("a", 1)), [role("z", 3, 0)], PD_ATOMIC, []),
])
def test_quota_findings_are_the_engines_verdicts(cq: dict, roles: list, profile: str, want: list) -> None:
    assert findings(cq, roles, profile) == want


def test_cohort_peer_lends_what_the_queue_lacks() -> None:
    """The issue's case: 2 cards of its own, no borrowingLimit, a cohort peer with 8: a 4-card role fits
    (create and why-pending agree); without the peer it waits; with the peers unreadable it is unknown."""
    mine = queue(("a", 2), cohort="pool")
    peer = {**queue(("a", 8), cohort="pool"), "metadata": {"name": "peer"}}
    assert findings(mine, [role("p", 1, 4)], PD_ATOMIC, peer) == []
    assert findings(mine, [role("p", 1, 4)]) == [("never-fits", "p", "QuotaExceedsCapacity", "a", 2)]
    snap = Snapshot.read({"cq": mine}, {}, None, None)
    result = vd.evaluate(snap, "cq", preflight.role_demands([role("p", 1, 4)], PD_ATOMIC, RES, "cq"))
    assert [f.check for f in preflight.quota_findings("cq", RES, result, False)] == ["fit-unknown"]


def test_offered_keys_ignore_count_labels() -> None:
    flavor = {"spec": {"nodeLabels": {"acceleratable.feature.gpustack.ai/nvidia-h20": "true",
                                      "acceleratable.feature.gpustack.ai/nvidia-h20.count": "8",
                                      "kubernetes.io/os": "linux"}}}
    assert preflight.offered_keys(flavor) == {"nvidia-h20"}


# ----------------------------------------------------------------------------- wait progress
def _pod(name: str, role_name: str, group: str, ready: bool = False) -> dict:
    return pod(name, None, uid=name, ready=ready,
               labels={"app.kubernetes.io/component": role_name, "kueue.x-k8s.io/pod-group-name": group})


def _wl(name: str, admitted: bool, message: str = "") -> dict:
    conds = [{"type": "Admitted", "status": "True" if admitted else "False"}]
    if message:
        conds.append({"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": message})
    return {"metadata": {"name": name}, "status": {"conditions": conds}}


def test_progress_counts_present_admitted_ready() -> None:
    pods_ = [_pod("a", "prefill", "g", ready=True), _pod("b", "decode", "g"), _pod("c", "decode", "g")]
    rows = wait.progress([("prefill", 1), ("decode", 2)], pods_, [_wl("g", True)])
    assert [(r.present, r.admitted, r.ready, r.done) for r in rows] == [(1, 1, 1, True), (2, 2, 0, True)]
    pending = wait.progress([("prefill", 2)], pods_[:1], [_wl("g", False, "insufficient quota")])
    assert pending[0].note.startswith("1 of 2 Pods exist") and not pending[0].done
    held = wait.progress([("prefill", 1)], pods_[:1], [_wl("g", False, "insufficient unused quota")])
    assert held[0].note == "Workload 'g': insufficient unused quota"
    assert wait.line(rows[0], 8) == "prefill   pods 1/1  admitted 1/1  ready 1/1  admitted"
    assert wait.fallback_summary("qwen", "team-a", held) == (
        "qwen in namespace team-a: not every role is admitted\n"
        "  role prefill: 0/1 admitted; Workload 'g': insufficient unused quota\n"
        "  next: kubectl pd why-pending qwen -n team-a\n")


def test_follow_stops_when_admitted_and_on_timeout() -> None:
    class FakeSource:
        is_live = True

        def __init__(self) -> None:
            self.calls = 0

        def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
                 field_selector: str | None = None) -> list[dict]:
            if kind == "Pod":
                self.calls += 1
                return [_pod("a", "s", "g")]
            return [_wl("g", self.calls >= 3)]

    now = [0.0]
    src = FakeSource()
    seen: list[list[wait.RoleProgress]] = []
    ok, rows = wait.follow(src, "ns", "sel", [("s", 1)], timeout=10, interval=1, emit=seen.append,  # type: ignore
                           clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    assert ok and len(seen) == 3 and rows[0].done
    now[0] = 0.0
    never = FakeSource()
    never.calls = -100
    ok, _ = wait.follow(never, "ns", "sel", [("s", 1)], timeout=2.5, interval=1, emit=lambda r: None,  # type: ignore
                        clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    assert not ok and now[0] == 2.5


def test_role_option_completes_through_click_and_the_kubectl_protocol(cli) -> None:  # type: ignore[no-untyped-def]
    import click

    from kubectl_pd.commands.create import create as command

    param = next(p for p in command.params if p.name == "roles")
    ctx = click.Context(command)
    assert [c.value for c in param.shell_complete(ctx, "name=p,kind=pre")] == ["name=p,kind=prefill"]
    assert [c.value for c in param.shell_complete(ctx, "name=p,kind=prefill,rep")] == [
        "name=p,kind=prefill,replicas="]
    output = next(p for p in command.params if p.name == "output")
    from kubectl_pd.commands.options import OutputType

    # kubectl's -o names, and its jsonpath= / custom-columns= forms (issue 32)
    assert isinstance(output.type, OutputType) and list(output.type.choices) == ["yaml", "json", "name"]
    r = cli(["__complete", "create", "--role", "name=d,kind=de"])
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == "name=d,kind=decode"


def test_profile_follows_the_version_requests_go_to() -> None:
    pascal = crd("crd-per-replica-pascal.yaml")
    assert profiles.from_crd(pascal, "v1").api_version == "worker.gpustack.ai/v1"
    assert profiles.from_crd(pascal, "v9").api_version == "worker.gpustack.ai/v1alpha1"


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_value = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-./:", min_size=1, max_size=12)


@given(name=_value, kind=st.sampled_from(flags.KIND_WORDS), replicas=st.integers(0, 2000).map(str),
       it=_value, key=_value, args=st.lists(st.text(alphabet="abc-=,.0123456789", min_size=1, max_size=10)
                                            .filter(lambda a: not any(f"{k}=" in a for k in flags.ROLE_KEYS)),
                                            max_size=3))
def test_parse_role_round_trips(name: str, kind: str, replicas: str, it: str, key: str, args: list[str]) -> None:
    text = ",".join([f"name={name}", f"kind={kind}", f"replicas={replicas}", f"instance-type={it}",
                     f"accelerator-key={key}", *(f"arg={a}" for a in args)])
    spec = parse_role(text)
    assert (spec.name, spec.kind, spec.replicas, spec.instance_type, spec.accelerator_key) == (
        name, kind, replicas, it, key)
    assert spec.args == tuple(args)
