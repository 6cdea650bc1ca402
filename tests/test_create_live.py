"""`kubectl pd create` through the real entry point, against the loopback API server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_pd.gpustack import names
from tests.apiserver import TOKEN, Forbid

H20 = "gpustack--nvidia-h20-linux-amd64"
L40S = "gpustack--nvidia-l40s-linux-amd64"
CLUSTER = "create/cluster.yaml"
ATOMIC = "create/crd-pd-atomic.yaml"
REPLICA = "create/crd-per-replica.yaml"
PASCAL = "create/crd-per-replica-pascal.yaml"
BASE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5"]
PAIR = ["--prefill", "1", "--decode", "2", "--instance-type", H20]


def posts(server) -> list:  # type: ignore[no-untyped-def]
    return [r for r in server.requests if r.method != "GET"]


# ----------------------------------------------------------------------------- offline: no request at all
def test_client_dry_run_sends_no_request(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run=client", "-o", "yaml"], env=env)
    assert r.exit_code == 0, r.stderr
    assert server.requests == []
    md = yaml.safe_load(r.stdout)
    assert md["metadata"] == {"name": "qwen", "namespace": "team-a"}  # the context's namespace, read locally
    assert [x["name"] for x in md["spec"]["roles"]] == ["prefill", "decode"]


def test_client_dry_run_works_without_a_kubeconfig(cli: Callable, tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "does-not-exist"), "NO_COLOR": "1"}
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run=client"], env=env)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "modeldeployment.worker.gpustack.ai/qwen created (dry run)\n", "")
    j = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run", "-o", "json", "-n", "ml"], env=env)
    assert json.loads(j.stdout)["metadata"]["namespace"] == "ml"
    n = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run=client", "-o", "name"], env=env)
    assert n.stdout == "modeldeployment.worker.gpustack.ai/qwen\n"
    pr = cli([*BASE, "--api-profile", "per-replica", "--role", f"name=s,size=2,instance-type={H20}",
              "--dry-run=client", "-o", "yaml"], env=env)
    assert pr.exit_code == 0, pr.stderr
    assert yaml.safe_load(pr.stdout)["spec"]["roles"][0]["size"] == 2


def test_validation_is_exit_1_before_any_request(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    cases = [
        (["--role", "name=Bad_Name"], "spec.roles[0].name 'Bad_Name' must match"),
        (["--prefill", "two", "--decode", "1"], "--prefill two: spec.roles[0].replicas 'two' is not a whole number"),
        (["--role", "name=p,kind=prefill", "--role", "name=q,kind=prefill"], "at most one prefill"),
        (["--role", "name=s,kind=server", "--decode", "1"], "cannot be mixed"),
        (["--role", "name=s,replicas=0"], "at least 1 replica"),
        (["--role", "name=s,accelerator=two"], "accelerator 'two' is not a number"),
        (["--role", "name=s,accelerator-key=h20"], "must be <manufacturer>-<model>"),
        (["--role", "name=s,kind=router"], "'router' is not one of server, prefill, decode"),
    ]
    for extra, fragment in cases:
        r = cli([*BASE, "--kv-cache-pool", "kv", "--instance-type", H20, *extra], env=env)
        assert r.exit_code == 1, (extra, r.stderr)
        assert fragment in r.stderr and r.stderr.startswith("error: ") and r.stdout == ""
    roles = [f"name=r{i}" for i in range(11)]
    r = cli([*BASE, "--instance-type", H20, *[a for n in roles for a in ("--role", n)]], env=env)
    assert r.exit_code == 1 and "11 roles" in r.stderr
    r = cli([*BASE, "--role", "name=p,kind=prefill,instance-type=a", "--role", "name=d,kind=decode,instance-type=b",
             "--api-profile", "pd-atomic", "--kv-cache-pool", "kv"], env=env)
    assert r.exit_code == 1 and "one queueName" in r.stderr and "acceleratorKey" in r.stderr
    assert server.requests == []


def test_flag_syntax_is_a_usage_error(cli: Callable, tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none")}
    for bad in (["--role", "name"], ["--role", "name=p,colour=red"], ["--env", "NOVALUE"],
                ["-o", "table"], ["--dry-run=later"], ["--target", "jobs"]):
        r = cli([*BASE, "--instance-type", H20, "--decode", "1", *bad], env=env)
        assert r.exit_code == 2, (bad, r.stderr)
        assert r.stderr.count("\n") == 1 and "(see 'kubectl pd create --help')" in r.stderr
    r = cli(["create", "qwen", "--decode", "1"], env=env)
    assert r.exit_code == 2 and "--model" in r.stderr
    r = cli([*BASE, "--decode", "1", "--instance-type", H20, "--wait", "--dry-run=client"], env=env)
    assert r.exit_code == 2 and "--wait cannot be combined" in r.stderr


# ----------------------------------------------------------------------------- writes
def test_create_posts_once_after_preflight_gets(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR], env=env)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "modeldeployment.worker.gpustack.ai/qwen created\n"
    assert server.methods.count("POST") == 1 and set(server.methods) == {"GET", "POST"}
    (post,) = posts(server)
    assert post.path == "/apis/worker.gpustack.ai/v1alpha1/namespaces/team-a/modeldeployments"
    assert post.query == {} and post.body["spec"]["engine"] == "vllm"
    stored = server.stored("ModelDeployment", "worker.gpustack.ai/v1alpha1", "qwen", "team-a")
    assert stored["spec"]["roles"][1] == {"name": "decode", "kind": "decode", "replicas": 2, "instanceType": H20,
                                          "resources": {"accelerator": 1}}
    assert TOKEN not in r.stdout + r.stderr


def test_server_dry_run_posts_with_dry_run_all_and_stores_nothing(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run=server", "-o", "yaml"], env=env)
    assert r.exit_code == 0, r.stderr
    assert yaml.safe_load(r.stdout)["metadata"]["uid"]  # what the server answered
    (post,) = posts(server)
    assert post.query == {"dryRun": "All"}
    assert server.methods.index("POST") == len(server.methods) - 1  # after every preflight GET
    assert server.stored("ModelDeployment", "worker.gpustack.ai/v1alpha1", "qwen", "team-a") is None
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run=server"], env=env)
    assert r.stdout == "modeldeployment.worker.gpustack.ai/qwen created (server dry run)\n"


def test_existing_object_is_never_overwritten(cli: Callable, apiserver: Callable) -> None:
    old = {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelDeployment",
           "metadata": {"name": "qwen", "namespace": "team-a"}, "spec": {"model": {"name": "old"}}}
    server, env = apiserver(CLUSTER, ATOMIC, old, namespace="team-a")
    for mode in ("--dry-run=none", "--dry-run=server"):
        r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, mode], env=env)
        assert r.exit_code == 1
        assert "already exists" in r.stderr and r.stderr.count("\n") == 1
    stored = server.stored("ModelDeployment", "worker.gpustack.ai/v1alpha1", "qwen", "team-a")
    assert stored["spec"] == {"model": {"name": "old"}}


# ----------------------------------------------------------------------------- profiles from the installed CRD
def test_auto_reads_the_per_replica_crd_and_refuses_accelerator_key(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, REPLICA, namespace="team-a")
    r = cli([*BASE, "--role", f"name=p,kind=prefill,instance-type={H20},accelerator-key=nvidia-h20",
             "--decode", "1", "--instance-type", H20], env=env)
    assert r.exit_code == 1
    assert "accelerator-key=nvidia-h20" in r.stderr and "spec.roles[].acceleratorKey" in r.stderr
    assert "CRD modeldeployments.worker.gpustack.ai v1alpha1" in r.stderr
    assert "POST" not in server.methods
    assert any(q.path.endswith("/customresourcedefinitions/modeldeployments.worker.gpustack.ai")
               for q in server.requests)


def test_auto_reads_the_pd_atomic_crd_and_refuses_size(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", "--role", f"name=s,size=2,instance-type={H20}"], env=env)
    assert r.exit_code == 1 and "size=2" in r.stderr and "spec.roles[].size" in r.stderr
    r = cli([*BASE, "--kv-cache-pool", "kv", "--router", "llm-d-router", *PAIR], env=env)
    assert r.exit_code == 1 and "--router 'llm-d-router'" in r.stderr
    assert "POST" not in server.methods


def test_pascal_case_crd_gets_pascal_case_enums(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, PASCAL, namespace="team-a")
    r = cli([*BASE, "--role", f"name=p,kind=prefill,instance-type={H20}",
             "--role", f"name=d,kind=decode,replicas=2,instance-type={L40S},size=1", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    body = posts(server)[0].body
    assert body["spec"]["engine"] == {"name": "vLLM", "version": "0.8.5"}
    assert [x["kind"] for x in body["spec"]["roles"]] == ["Prefill", "Decode"]
    # roles on two instanceTypes are fine per replica; the queue without the joint check is warned about
    assert "warning: ClusterQueue 'gpustack--nvidia-h20-linux-amd64' does not reference the AdmissionCheck " \
           "'gpustack-model-deployment-joint'" in r.stderr
    assert "gpustack--nvidia-l40s-linux-amd64' does not" not in r.stderr
    assert json.loads(r.stdout)["spec"]["roles"][1]["instanceType"] == L40S


def test_explicit_profile_must_match_the_crd(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, REPLICA, namespace="team-a")
    r = cli([*BASE, *PAIR, "--api-profile", "pd-atomic", "--kv-cache-pool", "kv"], env=env)
    assert r.exit_code == 1 and "--api-profile pd-atomic does not match the installed CRD" in r.stderr
    assert "POST" not in server.methods


def test_crd_not_installed(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR], env=env)
    assert r.exit_code == 1 and "the ModelDeployment CRD is not installed" in r.stderr
    assert server.methods == ["GET"] * len(server.methods)


def test_unreadable_crd_falls_back_to_the_named_profile(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, REPLICA, namespace="team-a", forbid=[Forbid("get", "customresourcedefinitions")])
    r = cli([*BASE, *PAIR, "--api-profile", "per-replica", "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    assert "warning: cannot read the CRD" in r.stderr and "built-in per-replica profile" in r.stderr
    assert posts(server)[0].body["spec"]["engine"] == {"name": "vllm", "version": "0.8.5"}


# ----------------------------------------------------------------------------- preflight refusals (nothing written)
@pytest.mark.parametrize("extra, fragment", [
    (["--prefill", "1", "--decode", "1", "--instance-type", "gpustack--nvidia-missing-linux-amd64"],
     "InstanceType 'gpustack--nvidia-missing-linux-amd64' does not exist"),
    (["--prefill", "1", "--decode", "1", "--instance-type", "gpustack--nvidia-a100-linux-amd64"],
     f"LocalQueue '{names.local_queue_name('gpustack--nvidia-a100-linux-amd64')}' (the entrance of InstanceType "
     f"'gpustack--nvidia-a100-linux-amd64') does not exist in namespace 'team-a'"),
    (["--prefill", "1", "--decode", "1", "--instance-type", "gpustack--nvidia-a10g-linux-amd64"],
     "ClusterQueue 'gpustack--nvidia-a10g-linux-amd64' is not active (Stopped: Can't admit new workloads: is "
     "stopped.)"),
    (["--role", "name=p,kind=prefill,accelerator-key=nvidia-l40s", "--decode", "1", "--instance-type", H20],
     "acceleratorKey 'nvidia-l40s' is not offered by any flavor of ClusterQueue "
     "'gpustack--nvidia-h20-linux-amd64' (offered: nvidia-h20)"),
    # the admission engine's verdicts, in the words why-pending uses for the same cluster
    (["--role", "name=p,kind=prefill,replicas=3,accelerator=3", "--decode", "1", "--instance-type", H20],
     "role 'p' asks 14,400,000 credits.gpustack.ai/nvidia (3 replica(s) x 3 card(s) x 1,600,000 = 9 cards), but "
     "flavor gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d of ClusterQueue 'gpustack--nvidia-h20-linux-amd64' "
     "can give at most 12,800,000 (8 cards: its nominal quota): it can never be admitted (why-pending would say "
     "QuotaExceedsCapacity"),
    (["--role", "name=p,kind=prefill,replicas=4,accelerator=2", "--decode", "1", "--instance-type", H20],
     "role 'decode' asks 1,600,000 credits.gpustack.ai/nvidia (1 replica(s) x 1 card(s) x 1,600,000 = 1 card) next "
     "to 12,800,000 for the roles before it"),
    (["--prefill", "4", "--decode", "1", "--instance-type", "gpustack--nvidia-h100-linux-amd64"],
     "can give at most 4,800,000 (3 cards: nominal 1,600,000 + 3,200,000 its cohort may lend): it can never be "
     "admitted"),
    (["--prefill", "2", "--decode", "2", "--instance-type", "gpustack--nvidia-h100-linux-amd64"],
     "role 'decode' asks 3,200,000 credits.gpustack.ai/nvidia (2 replica(s) x 1 card(s) x 1,600,000 = 2 cards) next "
     "to 3,200,000 for the roles before it"),
])
def test_each_preflight_refusal_writes_nothing(cli: Callable, apiserver: Callable, extra: list[str],
                                               fragment: str) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", *extra], env=env)
    assert r.exit_code == 1, r.stderr
    assert fragment in r.stderr, r.stderr
    assert r.stderr.rstrip().endswith("nothing was written")
    assert "POST" not in server.methods


def test_borrowing_makes_room_and_a_pool_without_flavors_passes(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", "--prefill", "1", "--decode", "2",
             "--instance-type", "gpustack--nvidia-h100-linux-amd64"], env=env)
    assert r.exit_code == 0, r.stderr  # 1 own card + 2 borrowed from the cohort = 3
    r = cli(["create", "b200", "--model", "m", "--engine-version", "1", "--kv-cache-pool", "kv",
             "--role", "name=s,accelerator-key=nvidia-b200,replicas=64",
             "--instance-type", "gpustack--nvidia-b200-linux-amd64"], env=env)
    assert r.exit_code == 0, r.stderr
    assert server.methods.count("POST") == 2


def test_force_writes_what_can_never_be_admitted_but_not_a_missing_queue(cli: Callable,
                                                                          apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    big = ["--role", "name=p,kind=prefill,replicas=3,accelerator=3", "--decode", "1", "--instance-type", H20]
    r = cli([*BASE, "--kv-cache-pool", "kv", *big, "--force"], env=env)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.startswith("warning: role 'p' asks") and "can never be admitted" in r.stderr
    assert server.methods.count("POST") == 1
    r = cli([*BASE, "--kv-cache-pool", "kv", "--decode", "1", "--instance-type", "gpustack--nvidia-a10g-linux-amd64",
             "--force"], env=env)
    assert r.exit_code == 1 and "is not active" in r.stderr
    assert server.methods.count("POST") == 1


def test_forbidden_reads_degrade_to_warnings(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a", forbid=[Forbid("get", "clusterqueues")])
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    assert "warning: could not check ClusterQueue 'gpustack--nvidia-h20-linux-amd64': forbidden" in r.stderr


# ----------------------------------------------------------------------------- --target pods
def test_pods_target_reads_the_entrance_and_posts_every_pod(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, namespace="team-a")  # plain Kueue + GPUStack queues, no CRD needed
    r = cli([*BASE, "--target", "pods", "--role", "name=prefill,kind=prefill,image=vllm/vllm-openai:v0.8.5",
             "--role", "name=decode,kind=decode,replicas=2,image=vllm/vllm-openai:v0.8.5,accelerator-key=nvidia-h20",
             "--instance-type", H20, "-o", "name"], env=env)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.split() == ["pod/qwen-prefill-0", "pod/qwen-decode-0", "pod/qwen-decode-1"]
    bodies = [p.body for p in posts(server)]
    assert len(bodies) == 3
    assert {b["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for b in bodies} == {
        "gpustack-fnv64-5582b5d69c84a5c3"}
    assert {b["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] for b in bodies} == {"3"}
    assert bodies[1]["spec"]["nodeSelector"] == {"acceleratable.feature.gpustack.ai/nvidia-h20": "true"}
    assert bodies[1]["spec"]["containers"][0]["resources"]["limits"] == {"credits.gpustack.ai/nvidia": "1600000"}


def test_pods_target_local_queue_override_and_existing_pod(cli: Callable, apiserver: Callable) -> None:
    taken = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "qwen-decode-0", "namespace": "team-a"}}
    server, env = apiserver(CLUSTER, taken, namespace="team-a")
    args = [*BASE, "--target", "pods", "--local-queue", "plain-queue", "--role", "name=prefill,kind=prefill,image=i",
            "--role", "name=decode,kind=decode,image=i"]
    r = cli(args, env=env)
    assert r.exit_code == 1 and 'pods "qwen-decode-0" already exists' in r.stderr
    assert "POST" not in server.methods  # refused before the first Pod: never half a group
    r = cli([*args[:1], "qwen2", *args[2:], "--dry-run=server", "-o", "yaml"], env=env)
    assert r.exit_code == 0, r.stderr
    items = yaml.safe_load(r.stdout)["items"]
    assert {i["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for i in items} == {"plain-queue"}
    assert all(p.query == {"dryRun": "All"} for p in posts(server))


def test_pods_target_offline_hashed_group(cli: Callable, tmp_path: Path) -> None:
    long_name = "qwen2-5-72b-instruct-prefill-decode-disaggregated-on-h20-team-a-v2"
    r = cli(["create", long_name, "--model", "m", "--target", "pods", "-n", "team-a", "--instance-type", H20,
             "--role", "name=p,kind=prefill,image=i", "--role", "name=d,kind=decode,image=i",
             "--dry-run=client", "-o", "json"], env={"KUBECONFIG": str(tmp_path / "none")})
    assert r.exit_code == 0, r.stderr
    items = json.loads(r.stdout)["items"]
    group = names.hashed(f"team-a/{long_name}")
    assert {i["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] for i in items} == {group}
    assert {i["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for i in items} == {names.local_queue_name(H20)}


def test_body_version_follows_the_served_version(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import DEFAULT_GROUPS

    groups = {**DEFAULT_GROUPS, "worker.gpustack.ai": ["v1"]}
    server, env = apiserver(CLUSTER, PASCAL, namespace="team-a", groups=groups)
    r = cli([*BASE, *PAIR, "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    (post,) = posts(server)
    assert post.path == "/apis/worker.gpustack.ai/v1/namespaces/team-a/modeldeployments"
    assert post.body["apiVersion"] == "worker.gpustack.ai/v1"
