"""An aggregated API server's OpenAPI v3 document is read bounded (gpustack/profiles.py: _Resolver): each `$ref`
resolved once per component and shared, cycles cut, a node budget; past it the schema is unknown (the CRD path,
else one error line), never an "internal error" from MemoryError or RecursionError. The hostile document is the
3.3 KB self-referencing one, served by the loopback API server."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.gpustack.profiles import SchemaTooLarge, _deref, from_openapi, openapi_path
from tests.apiserver import DEFAULT_GROUPS

V1_ONLY = {**DEFAULT_GROUPS, "worker.gpustack.ai": ["v1"]}
REF = "#/components/schemas/"
BIN = Path(sys.executable).parent


def hostile_doc(branches: int = 44) -> dict[str, Any]:
    """A ModelDeployment schema whose roles and spec reach `Loop`, a component whose every property is `Loop`
    again: expanded in place, 44 branches a level, to any depth (3.3 KB)."""
    loop = {"type": "object", "properties": {f"p{i}": {"$ref": REF + "Loop"} for i in range(branches)}}
    role = {"type": "object", "required": ["name", "kind"], "properties": {
        "name": {"type": "string"}, "kind": {"type": "string", "enum": ["Server", "Prefill", "Decode"]},
        "replicas": {"type": "integer", "maximum": 1024}, "size": {"type": "integer", "maximum": 64},
        "instanceType": {"type": "string"}, "acceleratorType": {"type": "string"}, "image": {"type": "string"},
        "extra": {"$ref": REF + "Loop"}, "more": {"allOf": [{"$ref": REF + "Loop"}]}}}
    md = {"type": "object", "x-kubernetes-group-version-kind": [
        {"group": "worker.gpustack.ai", "version": "v1", "kind": "ModelDeployment"}], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "required": ["model", "engine", "roles"], "properties": {
            "model": {"type": "object", "properties": {"name": {"type": "string"}}},
            "engine": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "enum": ["vLLM", "SGLang"]}, "version": {"type": "string"},
                "image": {"type": "string"}}},
            "roles": {"type": "array", "items": {"$ref": REF + "Role"}},
            "loop": {"$ref": REF + "Loop"}}}}}
    return {"openapi": "3.0.0", "components": {"schemas": {"Loop": loop, "Role": role, "MD": md}}}


def dag_doc(levels: int = 60) -> dict[str, Any]:
    """No cycle, an exponential tree all the same: L0 -> (L1, L1) -> ... -> L{levels}."""
    doc = hostile_doc()
    schemas = doc["components"]["schemas"]
    for i in range(levels):
        schemas[f"L{i}"] = {"type": "object", "properties": {"a": {"$ref": f"{REF}L{i + 1}"},
                                                             "b": {"$ref": f"{REF}L{i + 1}"}}}
    schemas[f"L{levels}"] = {"type": "string"}
    schemas["Loop"] = {"$ref": REF + "L0"}
    return doc


def test_the_staged_document_is_small() -> None:
    assert 3000 <= len(json.dumps(hostile_doc())) <= 3600


@pytest.mark.parametrize("doc", [hostile_doc(), dag_doc()], ids=["cycle", "dag"])
def test_references_are_resolved_once_each(doc: dict[str, Any]) -> None:
    t = time.perf_counter()
    p = from_openapi(doc, "v1")
    assert time.perf_counter() - t < 5
    assert p.kinds == ("Server", "Prefill", "Decode") and "acceleratorType" in p.role_fields
    assert p.api_version == "worker.gpustack.ai/v1" and p.engines == ("vLLM", "SGLang")


def test_past_the_node_budget_the_schema_is_unknown() -> None:
    schemas = dag_doc()["components"]["schemas"]
    with pytest.raises(SchemaTooLarge):
        _deref(schemas["MD"], schemas, budget=50)
    deep = {"type": "object", "properties": {"x": {"$ref": REF + "C0"}}}
    chain = {f"C{i}": {"type": "object", "properties": {"x": {"$ref": f"{REF}C{i + 1}"}}} for i in range(5000)}
    assert isinstance(_deref(deep, chain), dict)  # 5,000 components deep: cut at MAX_DEPTH, no RecursionError


_PEAK = ("import resource, subprocess, sys\n"
         "code = subprocess.run(sys.argv[2:], check=False).returncode\n"
         "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
         "sys.exit(code)")


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))


@pytest.mark.parametrize("extra", [["--dry-run=client"], ["--dry-run=server"], ["--preflight", "-o", "json"]])
def test_create_on_the_hostile_document_answers_in_bounded_memory(apiserver: Callable[..., Any], tmp_path: Path,
                                                                   extra: list[str]) -> None:
    server, env = apiserver(namespace="team-a", groups=V1_ONLY)  # no CRD: the OpenAPI v3 document is all there is
    server.raw[openapi_path("v1")] = hostile_doc()
    argv = [str(BIN / "kubectl-pd"), "create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--api-version", "auto",
            "--accelerator-type", "gpustack--nvidia-h20-linux-amd64", "--decode", "1", "--engine-image", "e:1", *extra]
    peak_file = tmp_path / "peak"
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-c", _PEAK, str(peak_file), *argv], env={**os.environ, **env},
                       capture_output=True, text=True, timeout=120, preexec_fn=_limited, check=False)
    took = time.monotonic() - t
    peak_mib = int(peak_file.read_text()) / 1024  # this command's own peak (a launcher of its own: RUSAGE_CHILDREN
    # of the test process is the largest child of the whole run)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") <= 3, r.stderr
    assert took < 30, took
    assert peak_mib < 300, peak_mib  # the interpreter and the CLI: the document adds little
    assert openapi_path("v1") in [x.path for x in server.requests]


def test_a_schema_error_names_the_document_not_a_crd() -> None:
    from kubectl_pd.gpustack.profiles import ProfileError

    doc = hostile_doc()
    del doc["components"]["schemas"]["MD"]["properties"]["spec"]["properties"]["roles"]
    with pytest.raises(ProfileError) as e:
        from_openapi(doc, "v1")
    assert "OpenAPI v3 document of worker.gpustack.ai/v1" in str(e.value) and "CRD" not in str(e.value)
