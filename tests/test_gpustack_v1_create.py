"""`kubectl pd create` writes GPUStack's published API, `worker.gpustack.ai/v1`, when that is what is served.

Sources: gpustack/gpustack-operator docs/modules/model-deployment/deployment.md@0421f1cc6b1b9c75df6e4c23fd8fd12136607e98
("A minimal deployment": `apiVersion: worker.gpustack.ai/v1`, `engine: {name: vLLM, version}`; "Prefill and
decode": `kind: Prefill  # Server (default) | Prefill | Decode`; "Topology placement": `roles[].topology.requiredLevel`
is a label key, `kubernetes.io/hostname` is implicit and rejected). `roles[].acceleratorType` from GPUStack v0.11.2's
docs (not in the code index; the docs site): docs.gpustack.ai/gpustack-operator/v0.11.2/docs/modules/model-deployment/
configuration/ ("Minimal deployment": a role with `acceleratorType: gpustack--nvidia-a10g-linux-amd64` and no
instanceType, beside the optional per-Pod `resources.{cpu, ram, localStorage}`) and .../v0.11.2/docs/modules/devices/
("AcceleratorType selects accelerated pools for serving and prefetch; InstanceType sizes interactive workspaces. Both
share the canonical pool ClusterQueue"): a string naming a cluster object, so an object name. Those pages do not say
whether admission refuses a role naming both; create refuses it on its own account (a role has one pool).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from kubectl_pd.create import flags
from kubectl_pd.create.flags import CreateRequest, parse_role
from kubectl_pd.create.scaffold import render_model_deployment
from kubectl_pd.gpustack.profiles import CRD_NAME, ProfileError, from_crd, from_openapi, offline, openapi_path
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from tests.apiserver import DEFAULT_GROUPS, Fault, load_objects
from tests.conftest import FIXTURES

V1_CRD = "gpustack-v1/crd-v1.yaml"
V1_IT_CRD = "gpustack-v1/crd-v1-instance-type.yaml"
V1_ONLY = {**DEFAULT_GROUPS, "worker.gpustack.ai": ["v1"]}
H20 = "gpustack--nvidia-h20-linux-amd64"
AT = "gpustack--nvidia-h20-linux-amd64"  # an AcceleratorType's name (v0.11.2 docs' form)
BASE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5"]
# Offline, v1 is the newest release's docs (v0.11.2, "Minimal deployment"): `engine: {name, image}`, the runner image
# required, no engine version.
IMG = "registry.example/gpustack/runner:vllm-0.8.5"
V1_OFF = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-image", IMG]


def rules(stderr: str) -> list[str]:
    found = [re.fullmatch(r"error: .* \[rule ([a-z0-9-]+)\]", line) for line in stderr.splitlines()]
    assert all(found), stderr
    return [m.group(1) for m in found if m]


def crd(path: str) -> dict[str, Any]:
    (obj,) = load_objects(FIXTURES / path)
    return obj


def request(*roles: str, **kw: Any) -> CreateRequest:
    base: dict[str, Any] = {"name": "qwen", "namespace": "team-a", "model": "m", "engine_version": "0.8.5"}
    return CreateRequest(**{**base, **kw}, roles=tuple(parse_role(r) for r in roles))


# ----------------------------------------------------------------------------- pure: profiles and roles
def test_the_v1_crd_reads_as_the_published_api() -> None:
    p = from_crd(crd(V1_CRD))
    assert (p.api_version, p.name, p.kinds, p.engines) == (
        "worker.gpustack.ai/v1", PER_REPLICA, ("Server", "Prefill", "Decode"), ("vLLM", "SGLang"))
    assert p.has("acceleratorType") and p.has("topology") and not p.instance_type_required
    old = from_crd(crd(V1_IT_CRD))
    assert not old.has("acceleratorType") and old.instance_type_required


@pytest.mark.parametrize(("profile", "version", "api_version"), [
    (PER_REPLICA, "v1", "worker.gpustack.ai/v1"),
    (PER_REPLICA, "v1alpha1", "worker.gpustack.ai/v1alpha1"),
    (PER_REPLICA, None, "worker.gpustack.ai/v1alpha1"),
    (PD_ATOMIC, None, "worker.gpustack.ai/v1alpha1"),
])
def test_offline_profiles_by_version(profile: str, version: str | None, api_version: str) -> None:
    assert offline(profile, version).api_version == api_version


@pytest.mark.parametrize(("profile", "version"), [(PD_ATOMIC, "v1"), (PER_REPLICA, "v2")])
def test_offline_profiles_that_do_not_exist(profile: str, version: str) -> None:
    with pytest.raises(ProfileError):
        offline(profile, version)


@pytest.mark.parametrize(("roles", "kw", "want"), [
    ((f"name=p,kind=prefill,accelerator-type={AT}",), {}, []),
    (("name=p,kind=prefill",), {"accelerator_type": AT}, []),
    (("name=p,kind=prefill,instance-type=x,accelerator-type=y",), {}, ["instance-type"]),
    # acceleratorType names an AcceleratorType: an object name (a DNS-1123 subdomain of at most 253 characters)
    (("name=p,kind=prefill,accelerator-type=NVIDIA_H20",), {}, ["accelerator-type"]),
    (("name=p,kind=prefill",), {"accelerator_type": "nvidia/h20"}, ["accelerator-type"]),
    (("name=p,kind=prefill",), {"accelerator_type": "a" * 254}, ["accelerator-type"]),
    (("name=p,kind=prefill",), {"accelerator_type": "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64"}, []),
    (("name=p,kind=prefill",), {}, ["instance-type"]),
    (("name=p,instance-type=x,topology=topology.gpustack.ai/rack",), {}, []),
    (("name=p,instance-type=x,topology=kubernetes.io/hostname",), {}, ["topology"]),
    (("name=p,instance-type=x,topology=not a key",), {}, ["topology"]),
    (("name=p,instance-type=x",), {"topology_level": "kubernetes.io/hostname"}, ["topology"]),
])
def test_pool_and_topology_rules(roles: tuple[str, ...], kw: dict[str, Any], want: list[str]) -> None:
    found = flags.check_request(request(*roles, **kw)).problems
    assert [re.search(r"\[rule ([a-z-]+)\]$", p).group(1) for p in found] == want, found  # type: ignore[union-attr]


@pytest.mark.parametrize(("crd_path", "want"), [(V1_CRD, []), (V1_IT_CRD, ["api-field"])])
def test_accelerator_type_needs_the_field(crd_path: str, want: list[str]) -> None:
    req = request(f"name=d,kind=decode,accelerator-type={AT}")
    checked = flags.check_request(req)
    problems = flags.check_profile(req, checked.roles, from_crd(crd(crd_path)))
    assert [re.search(r"\[rule ([a-z-]+)\]$", p).group(1) for p in problems] == want  # type: ignore[union-attr]


def test_render_writes_accelerator_type_and_topology_not_instance_type() -> None:
    req = request(f"name=p,kind=prefill,accelerator-type={AT},topology=topology.gpustack.ai/rack",
                  f"name=d,kind=decode,instance-type={H20}")
    checked = flags.check_request(req)
    md = render_model_deployment(req, checked.roles, from_crd(crd(V1_CRD)))
    p, d = md["spec"]["roles"]
    assert md["apiVersion"] == "worker.gpustack.ai/v1" and md["spec"]["engine"] == {"name": "vLLM", "version": "0.8.5"}
    assert (p["kind"], p["acceleratorType"], p["topology"], "instanceType" in p) == (
        "Prefill", AT, {"requiredLevel": "topology.gpustack.ai/rack"}, False)
    assert (d["kind"], d["instanceType"], "acceleratorType" in d) == ("Decode", H20, False)


def _openapi(schema: dict[str, Any]) -> dict[str, Any]:
    """An OpenAPI v3 document of an aggregated API server serving the v1 schema, split by $ref as
    kube-openapi writes one (the role schema a component of its own)."""
    md = copy.deepcopy(schema)
    roles = md["properties"]["spec"]["properties"]["roles"]
    role = roles.pop("items")
    roles["items"] = {"allOf": [{"$ref": "#/components/schemas/ai.gpustack.worker.v1.ModelDeploymentRole"}]}
    md["x-kubernetes-group-version-kind"] = [{"group": "worker.gpustack.ai", "kind": "ModelDeployment",
                                              "version": "v1"}]
    return {"openapi": "3.0.0", "components": {"schemas": {
        "ai.gpustack.worker.v1.ModelDeployment": md, "ai.gpustack.worker.v1.ModelDeploymentRole": role}}}


def _v1_schema() -> dict[str, Any]:
    return crd(V1_CRD)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def test_openapi_v3_of_an_aggregated_server_reads_as_the_crd_does() -> None:
    p, q = from_openapi(_openapi(_v1_schema()), "v1"), from_crd(crd(V1_CRD))
    assert (p.role_fields, p.kinds, p.engines, p.api_version) == (q.role_fields, q.kinds, q.engines, q.api_version)
    assert p.source.startswith("OpenAPI v3")
    with pytest.raises(ProfileError):
        from_openapi({"components": {"schemas": {}}}, "v1")


# ----------------------------------------------------------------------------- through the loopback server
def test_dry_run_client_reads_the_served_api_and_writes_v1(cli: Callable, apiserver: Callable) -> None:
    """Done when of issue 31 (create): the installed API has acceleratorType, so create writes it."""
    server, env = apiserver(V1_CRD, namespace="team-a", groups=V1_ONLY)
    r = cli([*BASE, "--api-version", "auto", "--accelerator-type", AT, "--prefill", "1", "--decode", "2",
             "--dry-run=client", "-o", "yaml"], env=env)
    assert r.exit_code == 0, r.stderr
    md = yaml.safe_load(r.stdout)
    assert md["apiVersion"] == "worker.gpustack.ai/v1"
    assert [(x["kind"], x["acceleratorType"]) for x in md["spec"]["roles"]] == [
        ("Prefill", AT), ("Decode", AT)]
    assert all(x.method == "GET" for x in server.requests)  # client dry run: reads only


def test_an_api_without_accelerator_type_refuses_the_flag(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(V1_IT_CRD, namespace="team-a", groups=V1_ONLY)
    r = cli([*BASE, "--api-version", "auto", "--accelerator-type", AT, "--prefill", "1",
             "--dry-run=client"], env=env)
    assert r.exit_code == 1
    assert rules(r.stderr) == ["api-field"]


def test_server_dry_run_posts_v1_to_the_v1_path(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(V1_CRD, namespace="team-a", groups=V1_ONLY)
    r = cli([*BASE, "--accelerator-type", AT, "--decode", "1", "--dry-run=server", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    (post,) = [x for x in server.requests if x.method == "POST"]
    assert post.path == "/apis/worker.gpustack.ai/v1/namespaces/team-a/modeldeployments"
    assert post.body["spec"]["roles"][0]["acceleratorType"] == AT
    assert r.stderr.startswith(f"warning: role 'decode' names acceleratorType '{AT}'")  # check accelerator-type


def test_explicit_v1_body_goes_to_the_v1_path_when_both_are_served(cli: Callable, apiserver: Callable) -> None:
    both = {**DEFAULT_GROUPS, "worker.gpustack.ai": ["v1alpha1", "v1"]}
    obj = crd(V1_CRD)
    alpha = copy.deepcopy(obj["spec"]["versions"][0])
    alpha.update(name="v1alpha1", storage=False)
    obj["spec"]["versions"].append(alpha)
    server, env = apiserver(obj, namespace="team-a", groups=both)
    r = cli([*BASE, "--api-version", "v1", "--accelerator-type", AT, "--decode", "1", "--dry-run=server"],
            env=env)
    assert r.exit_code == 0, r.stderr
    (post,) = [x for x in server.requests if x.method == "POST"]
    assert (post.path, post.body["apiVersion"]) == (
        "/apis/worker.gpustack.ai/v1/namespaces/team-a/modeldeployments", "worker.gpustack.ai/v1")


def test_an_api_version_the_cluster_does_not_serve_is_refused(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(V1_CRD, namespace="team-a", groups=V1_ONLY)
    r = cli([*BASE, "--api-version", "v1alpha1", "--instance-type", H20, "--decode", "1", "--dry-run=server"],
            env=env)
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: --api-version v1alpha1 does not match")
    assert [x for x in server.requests if x.method == "POST"] == []


def test_aggregated_api_server_is_read_through_openapi_v3(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(namespace="team-a", groups=V1_ONLY)  # no CRD at all
    server.raw[openapi_path("v1")] = _openapi(_v1_schema())
    r = cli([*BASE, "--api-version", "auto", "--accelerator-type", AT, "--decode", "1",
             "--dry-run=client", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    md = json.loads(r.stdout)
    assert (md["apiVersion"], md["spec"]["roles"][0]["kind"]) == ("worker.gpustack.ai/v1", "Decode")
    assert openapi_path("v1") in [x.path for x in server.requests]


def test_aggregated_api_without_openapi_is_one_error_line(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(namespace="team-a", groups=V1_ONLY)
    r = cli([*BASE, "--api-version", "auto", "--accelerator-type", "x", "--decode", "1", "--dry-run=client"], env=env)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1 and "CRD is not installed" in r.stderr
    assert openapi_path("v1") in [x.path for x in server.requests]  # asked before saying so


def test_offline_v1_needs_no_cluster(cli: Callable, tmp_path: Any) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none"), "NO_COLOR": "1"}
    r = cli([*V1_OFF, "--api-version", "v1", "--accelerator-type", AT, "--prefill", "1", "--decode", "1",
             "--required-topology", "topology.gpustack.ai/rack", "--dry-run=client", "-o", "yaml"], env=env)
    assert r.exit_code == 0, r.stderr
    md = yaml.safe_load(r.stdout)
    assert md["apiVersion"] == "worker.gpustack.ai/v1"
    assert md["spec"]["engine"] == {"name": "vLLM", "image": IMG}
    assert {x["topology"]["requiredLevel"] for x in md["spec"]["roles"]} == {"topology.gpustack.ai/rack"}
    bad = cli([*BASE, "--api-version", "v1", "--api-profile", "pd-atomic", "--instance-type", H20, "--decode", "1",
               "--dry-run=client"], env=env)
    assert bad.exit_code == 1 and bad.stderr.count("\n") == 1 and "per-replica" in bad.stderr


def test_the_mcp_preflight_tool_passes_the_v1_flags() -> None:
    """pd_create_preflight is create --preflight: the same flags, no second implementation."""
    from kubectl_pd.agent.tools import PREFLIGHT_INPUT, Guard, preflight_argv

    args = {"name": "qwen", "model": "m", "apiVersion": "v1", "acceleratorType": AT,
            "requiredTopology": "topology.gpustack.ai/rack"}
    assert {"apiVersion", "acceleratorType", "requiredTopology"} <= set(PREFLIGHT_INPUT["properties"])
    argv, _ = preflight_argv(args, Guard())
    assert {"--api-version=v1", f"--accelerator-type={AT}", "--required-topology=topology.gpustack.ai/rack"} \
        <= set(argv)


def test_aggregated_api_server_takes_the_v1_post(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(namespace="team-a", groups=V1_ONLY)
    server.raw[openapi_path("v1")] = _openapi(_v1_schema())
    r = cli([*BASE, "--accelerator-type", AT, "--decode", "1", "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    (post,) = [x for x in server.requests if x.method == "POST"]
    assert (post.path, post.body["apiVersion"], post.body["spec"]["roles"][0]["kind"]) == (
        "/apis/worker.gpustack.ai/v1/namespaces/team-a/modeldeployments", "worker.gpustack.ai/v1", "Decode")


# ----------------------------------------------------------------------------- --dry-run=client with no cluster
# kubectl's client dry run needs no server: `--api-version auto` reads the served API when there is a cluster to
# ask, and with none (no kubeconfig, or the server unreachable) writes the newest built-in profile of the asked
# --api-profile and says so in one stderr line; an explicit --api-version (or none) never asks at all.
KV = ["--kv-cache-pool", "kv"]  # the seed's pd-atomic API requires spec.kvCache


def _no_cluster(apiserver: Callable, how: str, tmp_path: Any) -> dict[str, str]:
    if how == "no-kubeconfig":
        return {"KUBECONFIG": str(tmp_path / "absent"), "HOME": str(tmp_path), "NO_COLOR": "1"}
    server, env = apiserver(namespace="team-a")
    server.stop()  # the kubeconfig names a port nothing listens on
    return env


VER = ["--engine-version", "0.8.5"]
IMAGE = ["--engine-image", IMG]


@pytest.mark.parametrize("how", ["unreachable", "no-kubeconfig"])
@pytest.mark.parametrize(("flags", "api_version", "warned"), [
    (["--api-version", "auto", *IMAGE], "worker.gpustack.ai/v1", True),
    (["--api-version", "auto", "--api-profile", "per-replica", *IMAGE], "worker.gpustack.ai/v1", True),
    (["--api-version", "auto", "--api-profile", "pd-atomic", *KV, *VER], "worker.gpustack.ai/v1alpha1", True),
    (["--api-version", "v1", *IMAGE], "worker.gpustack.ai/v1", False),
    (["--api-version", "v1alpha1", *KV, *VER], "worker.gpustack.ai/v1alpha1", False),
    ([*KV, *VER], "worker.gpustack.ai/v1alpha1", False),  # no --api-version: the seed's, offline, as before
])
def test_client_dry_run_with_no_cluster(cli: Callable, apiserver: Callable, tmp_path: Any, how: str,
                                        flags: list[str], api_version: str, warned: bool) -> None:
    env = _no_cluster(apiserver, how, tmp_path)
    r = cli([*BASE[:4], "--instance-type", H20, "--decode", "1", *flags, "--dry-run=client", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["apiVersion"] == api_version
    lines = r.stderr.splitlines()
    assert len(lines) == (1 if warned else 0), r.stderr
    if warned:
        assert lines[0].startswith("warning: --api-version auto: no cluster to read (")
        assert f"writing {api_version}," in lines[0]


def test_client_dry_run_falls_back_with_accelerator_type(cli: Callable, apiserver: Callable, tmp_path: Any) -> None:
    """The newest built-in profile is GPUStack's v1, which has roles[].acceleratorType."""
    env = _no_cluster(apiserver, "unreachable", tmp_path)
    r = cli([*V1_OFF, "--api-version", "auto", "--accelerator-type", AT, "--decode", "1", "--dry-run=client",
             "-o", "yaml"], env=env)
    assert r.exit_code == 0, r.stderr
    md = yaml.safe_load(r.stdout)
    assert (md["apiVersion"], md["spec"]["roles"][0]["acceleratorType"]) == ("worker.gpustack.ai/v1", AT)


@pytest.mark.parametrize("dry_run", [[], ["--dry-run=server"]])
def test_a_write_with_no_cluster_still_fails(cli: Callable, apiserver: Callable, tmp_path: Any,
                                             dry_run: list[str]) -> None:
    """Only the client dry run falls back: a write, or a server dry run, needs the server."""
    env = _no_cluster(apiserver, "unreachable", tmp_path)
    r = cli([*BASE, "--api-version", "auto", "--instance-type", H20, "--decode", "1", *dry_run], env=env)
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: cannot reach the API server")


def test_a_cluster_that_answers_wrong_is_not_a_missing_one(cli: Callable, apiserver: Callable) -> None:
    """A server error on the CRD read is an answer, not an absent cluster: an error, no fallback."""
    server, env = apiserver(V1_CRD, namespace="team-a", groups=V1_ONLY, faults=[
        Fault(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{CRD_NAME}", status=500, body={
            "kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "etcd is down", "code": 500})])
    r = cli([*BASE, "--api-version", "auto", "--instance-type", H20, "--decode", "1", "--dry-run=client"], env=env)
    assert r.exit_code == 1, r.stderr
    assert "no cluster to read" not in r.stderr


# ----------------------------------------------------------------------------- the v1 engine: image, not version
@pytest.mark.parametrize(("extra", "want"), [
    (["--engine-image", IMG], []),
    ([], ["engine-image"]),  # the runner image is required (v0.11.2 docs, "Minimal deployment")
    (["--engine-image", IMG, "--engine-version", "0.8.5"], ["api-field"]),  # no engine.version in those docs
    (["--engine-version", "0.8.5"], ["api-field", "engine-image"]),
    (["--engine-image", "has space"], ["engine-image"]),
])
def test_offline_v1_engine_takes_the_runner_image(cli: Callable, tmp_path: Any, extra: list[str],
                                                  want: list[str]) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none"), "NO_COLOR": "1"}
    r = cli([*BASE[:4], *extra, "--api-version", "v1", "--accelerator-type", AT, "--decode", "1",
             "--dry-run=client", "-o", "json"], env=env)
    assert (r.exit_code, rules(r.stderr) if r.exit_code else []) == ((1, want) if want else (0, [])), r.stderr


def test_a_crd_with_engine_image_is_read_as_such() -> None:
    """A served v1 whose schema has engine.image (required) and no version: the profile says so."""
    obj = copy.deepcopy(crd(V1_CRD))
    engine = obj["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["engine"]
    engine["properties"].pop("version")
    engine["properties"]["image"] = {"type": "string", "minLength": 1}
    engine["required"] = ["name", "image"]
    p = from_crd(obj)
    assert (p.engine_version_field, p.engine_image_field, p.engine_image_required) == (None, "engine.image", True)
    q = from_crd(crd(V1_CRD))  # the earlier docs' {name, version}
    assert (q.engine_version_field, q.engine_image_field, q.engine_image_required) == ("engine.version", None, False)
