"""Issue 40: GPUStack's operator lines as data, `create --operator-version LINE` offline, and live `v1` from an
aggregated APIService beside the v1alpha1 CRD.

Each line's manifest is held against that line's schema by lint's schema checker (PD501, the API server's rules):
- `049325a5` and `0.8`, the operator source (api/worker/v1alpha1/model_deployment.go@049325a5 lowercase; the newest
  stored version PascalCase, id 70071649368): tests/fixtures/create/crd-per-replica.yaml and crd-per-replica-pascal.yaml
  (engine {name, version}, required instanceType, no acceleratorType). Their `v1` re-declares that struct
  (api/worker/v1/model_deployment.go@a916db4e), so the v1 manifest is checked against the same schema.
- `0.11`, the published docs v0.9.2 to v0.11.2 (docs.gpustack.ai/gpustack-operator/v0.11.2/docs/modules/
  model-deployment/configuration/, "Minimal deployment": engine {name, image}, roles[].acceleratorType): the v1 CRD
  of tests/fixtures/gpustack-v1/crd-v1.yaml with `engine.image` required and no `engine.version` (line_crd below).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.gpustack import lines
from kubectl_pd.gpustack.profiles import from_crd, openapi_path, redeclared
from tests.apiserver import DEFAULT_GROUPS
from tests.conftest import FIXTURES

H20 = "gpustack--nvidia-h20-linux-amd64"
IMG = "vllm/vllm-openai:v0.8.5"
BASE = ["create", "qwen", "-n", "team-a", "--model", "Qwen/Qwen2.5-7B", "--prefill", "1", "--decode", "2"]
BOTH = {**DEFAULT_GROUPS, "worker.gpustack.ai": ["v1alpha1", "v1"]}


def _load(rel: str) -> dict[str, Any]:
    (crd,) = [d for d in yaml.safe_load_all((FIXTURES / rel).read_text()) if d]
    return crd


def line_crd(name: str) -> dict[str, Any]:
    """The CRD of a line's schema (its served version named as the manifest's)."""
    if name == "0.11":
        crd = _load("gpustack-v1/crd-v1.yaml")
        engine = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["engine"]
        engine["properties"] = {"name": engine["properties"]["name"],
                                "image": {"type": "string", "minLength": 1, "maxLength": 512}}
        engine["required"] = ["name", "image"]
        return crd
    crd = _load("create/crd-per-replica.yaml" if name == "049325a5" else "create/crd-per-replica-pascal.yaml")
    # the source's CRD serves v1alpha1 only (v1 comes from its APIService): the fixture's v1 view is left out
    crd["spec"]["versions"] = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    return crd


def as_v1(crd: dict[str, Any]) -> dict[str, Any]:
    """A v1alpha1 CRD's schema served as v1 (the source's re-declared struct), for lint's --crd."""
    out = copy.deepcopy(crd)
    for v in out["spec"]["versions"]:
        v["name"] = "v1"
    return out


# Per line: the flags its engine takes, the engine written, the kinds' spelling
CASES = {
    "049325a5": (["--engine-version", "0.8.5", "--instance-type", H20], {"name": "vllm", "version": "0.8.5"},
                 ["prefill", "decode"]),
    "0.8": (["--engine-version", "0.8.5", "--instance-type", H20], {"name": "vLLM", "version": "0.8.5"},
            ["Prefill", "Decode"]),
    "0.11": (["--engine-image", IMG, "--accelerator-type", H20], {"name": "vLLM", "image": IMG},
             ["Prefill", "Decode"]),
}


def test_lines_are_data_with_citations() -> None:
    assert set(lines.NAMES) == set(CASES) and lines.DEFAULT == "0.11"
    for x in lines.LINES:
        assert x.citations and all(("@" in c or "(id " in c or "docs" in c) for c in x.citations), x.name
        assert x.v1.api_version == "worker.gpustack.ai/v1"
    by = lines.BY_NAME
    assert (by["0.8"].v1_served_by, by["049325a5"].v1_served_by) == (lines.APISERVICE, lines.APISERVICE)
    assert (by["0.8"].engine_fields, by["0.11"].engine_fields) == (("version",), ("image",))
    assert (by["0.8"].pool_fields, by["0.11"].pool_fields) == (("instanceType",), ("instanceType", "acceleratorType"))
    assert by["0.8"].v1.instance_type_required and not by["0.11"].v1.instance_type_required
    assert by["0.8"].v1_short_names == () and "WeightsReady" in by["0.8"].conditions


def _lint(cli: Callable, tmp_path: Path, manifest: dict[str, Any], crd: dict[str, Any]) -> list[tuple[str, str]]:
    m, c = tmp_path / "md.yaml", tmp_path / "crd.yaml"
    m.write_text(yaml.safe_dump(manifest))
    c.write_text(yaml.safe_dump(crd))
    r = cli(["lint", "-f", str(m), "--crd", str(c), "-o", "json"])
    doc = json.loads(r.stdout)
    return [(f["id"], f["path"]) for f in doc["findings"] if f["id"].startswith("PD5")]


@pytest.mark.parametrize("name", list(CASES))
def test_offline_create_writes_the_line_its_schema_accepts(cli: Callable, tmp_path: Path, name: str) -> None:
    flags, engine, kinds = CASES[name]
    r = cli([*BASE, *flags, "--operator-version", name, "--dry-run=client", "-o", "yaml"],
            env={"KUBECONFIG": str(tmp_path / "none")})
    assert r.exit_code == 0, r.stderr
    md = yaml.safe_load(r.stdout)
    assert (md["apiVersion"], md["spec"]["engine"], [x["kind"] for x in md["spec"]["roles"]]) == (
        "worker.gpustack.ai/v1", engine, kinds)
    crd = line_crd(name)
    schema = crd if name == "0.11" else as_v1(crd)
    assert _lint(cli, tmp_path, md, schema) == []
    if name != "0.11":  # the same struct at v1alpha1, against the CRD itself
        r = cli([*BASE, *flags, "--operator-version", name, "--api-version", "v1alpha1", "--dry-run=client",
                 "-o", "yaml"], env={"KUBECONFIG": str(tmp_path / "none")})
        assert r.exit_code == 0, r.stderr
        assert _lint(cli, tmp_path, yaml.safe_load(r.stdout), crd) == []


def test_the_docs_shape_is_refused_by_the_source_schema(cli: Callable, tmp_path: Path) -> None:
    """The issue's finding: what the docs line writes is refused by the source's schema (engine.image unknown,
    acceleratorType unknown, instanceType required)."""
    flags, _, _ = CASES["0.11"]
    r = cli([*BASE, *flags, "--operator-version", "0.11", "--dry-run=client", "-o", "yaml"])
    found = _lint(cli, tmp_path, yaml.safe_load(r.stdout), as_v1(line_crd("0.8")))
    paths = {p for _, p in found}
    assert "spec.engine.image" in paths and "spec.roles[0].instanceType" in paths, found


@pytest.mark.parametrize(("name", "extra", "rule"), [
    ("0.8", ["--engine-image", IMG], "api-field"),  # the source has no engine.image
    ("0.8", ["--accelerator-type", H20], "api-field"),  # nor acceleratorType
    ("0.11", ["--engine-version", "1", "--engine-image", IMG], "api-field"),  # the docs have no engine.version
    ("0.11", [], "engine-image"),  # and require the image
])
def test_a_line_refuses_what_it_cannot_hold(cli: Callable, name: str, extra: list[str], rule: str) -> None:
    it = [] if "--accelerator-type" in extra else ["--instance-type", H20]
    r = cli([*BASE, *it, *extra, "--operator-version", name, "--dry-run=client"])
    assert r.exit_code == 1 and f"[rule {rule}]" in r.stderr, r.stderr


@pytest.mark.parametrize(("extra", "needle"), [
    (["--operator-version", "0.11", "--api-version", "v1alpha1"], "no worker.gpustack.ai/v1alpha1 shape"),
    (["--operator-version", "0.8", "--api-profile", "pd-atomic"], "per-replica operator line"),
])
def test_refusals_are_one_line(cli: Callable, extra: list[str], needle: str) -> None:
    r = cli([*BASE, "--engine-version", "1", "--instance-type", H20, *extra, "--dry-run=client"])
    assert r.exit_code == 1 and r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr


def test_an_unknown_line_is_a_usage_error_and_help_lists_lines(cli: Callable) -> None:
    r = cli([*BASE, "--operator-version", "9.9", "--dry-run=client"])
    assert r.exit_code == 2
    h = cli(["create", "--help"])
    assert all(n in h.stdout for n in lines.NAMES) and "--operator-version" in h.stdout


# ----------------------------------------------------------------------------- live: v1 from an APIService
def _openapi_of(crd: dict[str, Any]) -> dict[str, Any]:
    """What an aggregated server of the source line publishes: the v1alpha1 struct as worker.gpustack.ai/v1."""
    schema = copy.deepcopy(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"])
    schema["x-kubernetes-group-version-kind"] = [{"group": "worker.gpustack.ai", "kind": "ModelDeployment",
                                                  "version": "v1"}]
    return {"openapi": "3.0.0", "components": {"schemas": {"ai.gpustack.worker.v1.ModelDeployment": schema}}}


@pytest.mark.parametrize("openapi", [True, False])
def test_v1_from_an_apiservice_beside_the_crd(cli: Callable, apiserver: Callable, openapi: bool) -> None:
    """The CRD serves v1alpha1 only, discovery serves v1 too (an APIService): the v1 schema is the aggregated
    server's OpenAPI v3, else the v1alpha1 CRD's (the struct v1 re-declares); the POST goes to the v1 path."""
    crd = line_crd("0.8")
    server, env = apiserver(crd, "create/cluster.yaml", namespace="team-a", groups=BOTH)
    if openapi:
        server.raw[openapi_path("v1")] = _openapi_of(crd)
    r = cli([*BASE, "--engine-version", "0.8.5", "--instance-type", H20, "--api-version", "v1",
             "--dry-run=server", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    (post,) = [x for x in server.requests if x.method == "POST"]
    assert post.path == "/apis/worker.gpustack.ai/v1/namespaces/team-a/modeldeployments"
    assert (post.body["apiVersion"], post.body["spec"]["engine"]) == (
        "worker.gpustack.ai/v1", {"name": "vLLM", "version": "0.8.5"})
    assert openapi_path("v1") in [x.path for x in server.requests]


def test_redeclared_is_the_crd_schema_named_v1() -> None:
    crd = line_crd("0.8")
    p, q = redeclared(crd), from_crd(crd)
    assert (p.api_version, p.role_fields, p.kinds, p.engine_version_field) == (
        "worker.gpustack.ai/v1", q.role_fields, q.kinds, q.engine_version_field)
    assert "re-declares" in p.source
