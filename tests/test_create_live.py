"""`kubectl pd create` through the real entry point, against the loopback API server."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.create import flags, preflight
from kubectl_pd.create.flags import CreateRequest, parse_role
from kubectl_pd.gpustack import names
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.registry import CHECKS
from tests.apiserver import DEFAULT_GROUPS, TOKEN, Forbid

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


def rules(stderr: str) -> list[str]:
    """The rule ids of create's flag checks, one per `error:` line (`... [rule ID]`)."""
    found = [re.fullmatch(r"error: .* \[rule ([a-z0-9-]+)\]", line) for line in stderr.splitlines()]
    assert all(found), stderr
    return [m.group(1) for m in found if m]


def _preflight(env: dict[str, str], roles: tuple[str, ...], prefill: str | None, decode: str | None,
               instance_type: str, profile: str = PD_ATOMIC) -> preflight.Preflight:
    """The preflight's findings (registry.CHECKS ids with params) for the request BASE + these flags makes,
    through the Python API against the same loopback server."""
    req = CreateRequest(name="qwen", namespace="team-a", model="Qwen/Qwen2.5-7B", engine_version="0.8.5",
                        kv_cache_pool="kv", instance_type=instance_type,
                        roles=flags.all_role_specs(tuple(parse_role(r) for r in roles), prefill, decode))
    checked = flags.check_request(req)
    assert checked.problems == []
    return preflight.run(LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"])), req, checked.roles,
                         profile, "team-a")


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
    cases = [  # flags, the rule, where: the flag as typed and the field it fills
        (["--role", "name=Bad_Name"], "role-name", "--role name=Bad_Name: spec.roles[0].name 'Bad_Name' "),
        (["--prefill", "two", "--decode", "1"], "replicas", "--prefill two: spec.roles[0].replicas 'two' "),
        (["--role", "name=p,kind=prefill", "--role", "name=q,kind=prefill"], "role-kind",
         "--role name=q,kind=prefill: spec.roles[1].kind 'prefill'"),
        (["--role", "name=s,kind=server", "--decode", "1"], "role-kind", "--role name=s,kind=server: "),
        (["--role", "name=s,replicas=0"], "replicas", "--role name=s,replicas=0: spec.roles[0].replicas is 0"),
        (["--role", "name=s,accelerator=two"], "numbers",
         "--role name=s,accelerator=two: spec.roles[0].resources.accelerator 'two' "),
        (["--role", "name=s,accelerator-key=h20"], "accelerator-key",
         "--role name=s,accelerator-key=h20: spec.roles[0].acceleratorKey 'h20' "),
        (["--role", "name=s,kind=router"], "role-kind", "--role name=s,kind=router: spec.roles[0].kind 'router' "),
    ]
    for extra, rule, where in cases:
        r = cli([*BASE, "--kv-cache-pool", "kv", "--instance-type", H20, *extra], env=env)
        assert (r.exit_code, r.stdout, rules(r.stderr)) == (1, "", [rule]), (extra, r.stderr)
        assert r.stderr.startswith(f"error: {where}"), r.stderr
    roles = [f"name=r{i}" for i in range(11)]
    r = cli([*BASE, "--instance-type", H20, *[a for n in roles for a in ("--role", n)]], env=env)
    assert (r.exit_code, rules(r.stderr)) == (1, ["roles-count"])
    assert r.stderr.startswith("error: spec.roles has 11 roles: ")
    r = cli([*BASE, "--role", "name=p,kind=prefill,instance-type=a", "--role", "name=d,kind=decode,instance-type=b",
             "--api-profile", "pd-atomic", "--kv-cache-pool", "kv"], env=env)
    assert (r.exit_code, rules(r.stderr)) == (1, ["instance-type-mismatch"])
    assert r.stderr.startswith("error: --role name=d,kind=decode,instance-type=b: spec.roles[1].instanceType 'b' "
                               "differs from 'a': ")
    assert server.requests == []


def test_flag_syntax_is_a_usage_error(cli: Callable, tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none")}
    for bad in (["--role", "name"], ["--role", "name=p,colour=red"], ["--env", "NOVALUE"],
                ["-o", "table"], ["--dry-run=later"], ["--target", "jobs"]):
        r = cli([*BASE, "--instance-type", H20, "--decode", "1", *bad], env=env)
        assert r.exit_code == 2, (bad, r.stderr)
        assert re.fullmatch(r"error: [^\n]+ \(see 'kubectl pd create --help'\)\n", r.stderr), (bad, r.stderr)
    r = cli(["create", "qwen", "--decode", "1"], env=env)
    assert (r.exit_code, r.stderr) == (2, "error: Missing option '--model'. (see 'kubectl pd create --help')\n")
    r = cli([*BASE, "--decode", "1", "--instance-type", H20, "--wait", "--dry-run=client"], env=env)
    assert (r.exit_code, r.stderr) == (2, "error: --wait cannot be combined with --dry-run: nothing is created to "
                                          "wait for (see 'kubectl pd create --help')\n")


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
        assert (r.exit_code, r.stderr) == (1, 'error: modeldeployments.worker.gpustack.ai "qwen" already exists: '
                                              "kubectl-pd never overwrites; delete it first or choose another name\n")
    stored = server.stored("ModelDeployment", "worker.gpustack.ai/v1alpha1", "qwen", "team-a")
    assert stored["spec"] == {"model": {"name": "old"}}


# ----------------------------------------------------------------------------- profiles from the installed CRD
def test_auto_reads_the_per_replica_crd_and_refuses_accelerator_key(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, REPLICA, namespace="team-a")
    r = cli([*BASE, "--role", f"name=p,kind=prefill,instance-type={H20},accelerator-key=nvidia-h20",
             "--decode", "1", "--instance-type", H20], env=env)
    assert (r.exit_code, rules(r.stderr)) == (1, ["api-field"])
    assert r.stderr == (  # the flag as typed, the API read from the CRD, the field it has not
        f"error: --role name=p,kind=prefill,instance-type={H20},accelerator-key=nvidia-h20: the ModelDeployment API "
        "worker.gpustack.ai/v1alpha1, per-replica (CRD modeldeployments.worker.gpustack.ai v1alpha1) has no "
        "spec.roles[].acceleratorKey field, so accelerator-key=nvidia-h20 cannot be written (it was withdrawn; "
        "choose the hardware with instance-type=) [rule api-field]\n")
    assert "POST" not in server.methods
    assert any(q.path.endswith("/customresourcedefinitions/modeldeployments.worker.gpustack.ai")
               for q in server.requests)


def test_auto_reads_the_pd_atomic_crd_and_refuses_size(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", "--role", f"name=s,size=2,instance-type={H20}"], env=env)
    assert (r.exit_code, rules(r.stderr)) == (1, ["api-field"])
    assert r.stderr.startswith(f"error: --role name=s,size=2,instance-type={H20}: the ModelDeployment API "
                               "worker.gpustack.ai/v1alpha1, pd-atomic (CRD modeldeployments.worker.gpustack.ai "
                               "v1alpha1) has no spec.roles[].size field, so size=2 cannot be written")
    r = cli([*BASE, "--kv-cache-pool", "kv", "--router", "llm-d-router", *PAIR], env=env)
    assert (r.exit_code, rules(r.stderr)) == (1, ["api-field"])
    assert r.stderr.startswith("error: the ModelDeployment API worker.gpustack.ai/v1alpha1, pd-atomic (CRD "
                               "modeldeployments.worker.gpustack.ai v1alpha1) has no spec.router field, so --router "
                               "'llm-d-router' cannot be written")
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
    report = _preflight(env, ("name=p,kind=prefill", "name=d,kind=decode,replicas=2,instance-type=" + L40S),
                        None, None, H20, PER_REPLICA)
    assert [(f.check, f.severity) for f in report.findings] == [("joint-check", "warning")]  # h20's queue only
    assert r.stderr == f"warning: {report.findings[0].message}\n"
    assert report.findings[0].message.startswith(f"ClusterQueue '{H20}' does not reference the AdmissionCheck "
                                                 "'gpustack-model-deployment-joint'")
    assert json.loads(r.stdout)["spec"]["roles"][1]["instanceType"] == L40S


def test_explicit_profile_must_match_the_crd(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, REPLICA, namespace="team-a")
    r = cli([*BASE, *PAIR, "--api-profile", "pd-atomic", "--kv-cache-pool", "kv"], env=env)
    assert (r.exit_code, r.stderr) == (1, "error: --api-profile pd-atomic does not match the installed CRD "
                                          "(worker.gpustack.ai/v1alpha1, per-replica: roles have no acceleratorKey): "
                                          "use --api-profile auto or per-replica\n")
    assert "POST" not in server.methods


def test_crd_not_installed(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR], env=env)
    assert (r.exit_code, r.stderr) == (1, "error: the ModelDeployment CRD is not installed in this cluster "
                                          "(modeldeployments.worker.gpustack.ai not found): install the GPUStack "
                                          "operator, check the context, or use --dry-run=client\n")
    assert server.methods == ["GET"] * len(server.methods)


def test_unreadable_crd_falls_back_to_the_named_profile(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, REPLICA, namespace="team-a", forbid=[Forbid("get", "customresourcedefinitions")])
    r = cli([*BASE, *PAIR, "--api-profile", "per-replica", "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0] == ("warning: cannot read the CRD modeldeployments.worker.gpustack.ai "
                                        "(forbidden): using the built-in per-replica profile; pass --api-profile "
                                        "to choose")
    assert posts(server)[0].body["spec"]["engine"] == {"name": "vllm", "version": "0.8.5"}


# ----------------------------------------------------------------------------- preflight refusals (nothing written)
H100 = "gpustack--nvidia-h100-linux-amd64"
H20_8D = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
H100_1D = "gpustack--amd-epyc-9004--nvidia-h100-linux-amd64-1d"


@pytest.mark.parametrize("roles, prefill, decode, instance_type, check, params", [
    ((), "1", "1", "gpustack--nvidia-missing-linux-amd64", "instance-type", {}),
    ((), "1", "1", "gpustack--nvidia-a100-linux-amd64", "local-queue", {}),
    ((), "1", "1", "gpustack--nvidia-a10g-linux-amd64", "cluster-queue", {}),
    (("name=p,kind=prefill,accelerator-key=nvidia-l40s",), None, "1", H20, "accelerator-key", {}),
    # the admission engine's verdicts, in the codes why-pending gives the same cluster; the pod sets in Kueue's
    # order (the loopback server serves v1beta1 too: Kueue 0.19 or older, pod sets sorted by role hash, so decode
    # is charged before p and prefill: pod_controller.go:828@v0.19.2)
    (("name=p,kind=prefill,replicas=3,accelerator=3",), None, "1", H20, "never-fits",
     {"role": "p", "code": "QuotaExceedsCapacity", "clusterQueue": H20, "flavor": H20_8D, "requested": 14_400_000,
      "previous": 1_600_000, "capacity": 12_800_000, "nominal": 12_800_000, "needed": 3_200_000}),
    (("name=p,kind=prefill,replicas=4,accelerator=2",), None, "1", H20, "never-fits",
     {"role": "p", "code": "QuotaExceedsCapacity", "flavor": H20_8D, "requested": 12_800_000,
      "previous": 1_600_000, "capacity": 12_800_000}),
    ((), "4", "1", H100, "never-fits",  # 1 card of its own + 2 its cohort may lend
     {"role": "prefill", "code": "QuotaExceedsCapacity", "clusterQueue": H100, "flavor": H100_1D,
      "requested": 6_400_000, "previous": 1_600_000, "capacity": 4_800_000, "nominal": 1_600_000}),
    ((), "2", "2", H100, "never-fits",
     {"role": "prefill", "code": "QuotaExceedsCapacity", "flavor": H100_1D, "requested": 3_200_000,
      "previous": 3_200_000, "capacity": 4_800_000}),
])
def test_each_preflight_refusal_writes_nothing(cli: Callable, apiserver: Callable, roles: tuple[str, ...],
                                               prefill: str | None, decode: str | None, instance_type: str,
                                               check: str, params: dict) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    report = _preflight(env, roles, prefill, decode, instance_type)
    (finding,) = report.errors()
    assert finding.check == check and check in {c.id for c in CHECKS}
    assert {k: finding.params.get(k) for k in params} == params
    gets = len(server.requests)
    flags_ = [a for r in roles for a in ("--role", r)] + (["--prefill", prefill] if prefill else []) + \
        ["--decode", decode, "--instance-type", instance_type]
    r = cli([*BASE, "--kv-cache-pool", "kv", *flags_], env=env)
    assert r.exit_code == 1, r.stderr
    assert r.stderr == f"error: {finding.message}; nothing was written\n"  # the one finding, as one line
    assert "POST" not in server.methods[gets:]


def test_a_quota_refusal_reads_whole(cli: Callable, apiserver: Callable) -> None:
    """The English rendering of one quota refusal, whole (the printer's golden)."""
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a")
    r = cli([*BASE, "--kv-cache-pool", "kv", "--role", "name=p,kind=prefill,replicas=3,accelerator=3",
             "--decode", "1", "--instance-type", H20], env=env)
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == (
        "error: role 'p' asks 14,400,000 credits.gpustack.ai/nvidia (3 replica(s) x 3 card(s) x 1,600,000 = 9 "
        f"cards) next to 1,600,000 for the roles before it, but flavor {H20_8D} of ClusterQueue '{H20}' can "
        "give at most 12,800,000 (8 cards: its nominal quota): it can never be admitted (why-pending would say "
        "QuotaExceedsCapacity; use another instanceType, fewer replicas or cards; --force writes it anyway); "
        "nothing was written\n")


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
    report = _preflight(env, ("name=p,kind=prefill,replicas=3,accelerator=3",), None, "1", H20)
    (never,) = report.findings
    assert (never.check, never.forceable) == ("never-fits", True)
    assert [f.check for f in report.warnings(force=True)] == ["never-fits"] and report.errors(force=True) == []
    assert r.stderr == f"warning: {never.message}\n"  # --force: the error, as a warning
    assert server.methods.count("POST") == 1
    r = cli([*BASE, "--kv-cache-pool", "kv", "--decode", "1", "--instance-type", "gpustack--nvidia-a10g-linux-amd64",
             "--force"], env=env)
    stopped = _preflight(env, (), None, "1", "gpustack--nvidia-a10g-linux-amd64")
    assert [(f.check, f.forceable) for f in stopped.errors(force=True)] == [("cluster-queue", False)]
    assert (r.exit_code, r.stderr) == (1, f"error: {stopped.errors()[0].message}; nothing was written\n")
    assert server.methods.count("POST") == 1


def test_forbidden_reads_degrade_to_warnings(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CLUSTER, ATOMIC, namespace="team-a", forbid=[Forbid("get", "clusterqueues")])
    r = cli([*BASE, "--kv-cache-pool", "kv", *PAIR, "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    report = _preflight(env, (), "1", "2", H20)
    assert [(f.check, f.severity) for f in report.findings] == [("skipped", "warning")]
    assert r.stderr == f"warning: {report.findings[0].message}\n"
    assert report.findings[0].message.startswith(f"could not check ClusterQueue '{H20}': forbidden: ")


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
    assert (r.exit_code, r.stderr) == (1, 'error: pods "qwen-decode-0" already exists: kubectl-pd never '
                                          "overwrites; delete the old group first or choose another name; nothing "
                                          "was written\n")
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


def _order_matters() -> list[dict]:
    """A pool whose first attempt depends on the order of the pod sets: flavor a of 5 cards, then b of 1. prefill
    5 x 1 card and decode 1 x 1 card fit when prefill is charged first (a, then b for decode); when decode is,
    Kueue's first attempt fails (decode stops in a, prefill then fits neither), and the next, resuming decode's
    scan at b (kueue/admission.assign_now), fits."""
    cq, lq = "gpustack--order-test", "gpustack-order-lq"
    res = "credits.gpustack.ai/nvidia"
    flavors = [{"name": f, "resources": [{"name": res, "nominalQuota": str(n * 1_600_000)}]}
               for f, n in (("order-a", 5), ("order-b", 1))]
    active = {"conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": ""}]}
    return [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": cq},
             "spec": {"resourceGroups": [{"coveredResources": [res], "flavors": flavors}]}, "status": active},
            *({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": f}}
              for f in ("order-a", "order-b")),
            {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "InstanceType", "metadata": {"name": cq},
             "status": {"entrance": lq}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": lq, "namespace": "team-a"}, "spec": {"clusterQueue": cq}, "status": active}]


@pytest.mark.parametrize("served, want", [
    # Kueue 0.19 or older (v1beta1 still served): pod sets sorted by role hash, decode first: it fits on Kueue's
    # second attempt (the resumed flavor scan, seed 2880 of tests/realcluster/cases/), never "never"
    (["v1beta2", "v1beta1"], []),
    # 0.20 or newer (v1beta2 alone): the order comes from a hash of each role's shape (kueue#14809); both orders
    # fit once Kueue's scan resumes, so the order leaves nothing unknown
    (["v1beta2"], []),
])
def test_the_pod_set_order_is_the_target_kueues(apiserver: Callable, served: list[str], want: list) -> None:
    groups = {**DEFAULT_GROUPS, "kueue.x-k8s.io": served}
    _, env = apiserver(CLUSTER, ATOMIC, _order_matters(), namespace="team-a", groups=groups)
    report = _preflight(env, ("name=prefill,kind=prefill,replicas=5", "name=decode,kind=decode,replicas=1"),
                        None, None, "gpustack--order-test")
    got = [(f.check, f.params.get("unknown")) for f in report.findings if f.check in ("never-fits", "fit-unknown")]
    assert got == want
