"""Issue 40 on the real control plane: for each GPUStack operator line, what `create` writes is accepted by that
line's served schema, with `worker.gpustack.ai/v1` served both ways the lines serve it; and a deployment held on its
weights is diagnosed as such.

- `0.8` (the operator source): v1 is the v1alpha1 struct re-declared. Served by the plane's CRD (its v1 view,
  tests/fixtures/create/crd-per-replica-pascal.yaml) and by an aggregated API server of our own registered by the
  APIService `v1.worker.gpustack.ai` (tests/realcluster/aggregated.py: it converts to v1alpha1, so the real API
  server's schema judges). The docs line's shape is refused there (strict field validation).
- `049325a5` (an older stored source version): lowercase enums; the plane's v1alpha1 schema is swapped for
  tests/fixtures/create/crd-per-replica.yaml's for the block.
- `0.11` (the published docs v0.9.2 to v0.11.2): v1 from a CRD whose engine takes `image` (required) and whose roles
  take `acceleratorType` (tests/test_gpustack_operator_lines.line_crd).
Offline `create --operator-version LINE --dry-run=client` is sent with the real kubectl's `create --dry-run=server`
(strict validation); live `create --dry-run=server` reads the served schema itself.

Weights: the stand-in holds a v1alpha1 deployment whose `spec.model.artifactRef` has not resolved as the source does
(no Pod, WeightsReady=False ArtifactNotResolved, QuotaReserved=Unknown NoReplicas); why-pending answers
WeightsNotReady naming the artifact, and the phase of a v1alpha1 object; once released, one pod group per replica
with `pod-group-total-count` = the role's size, and WeightsNotReady is gone.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from tests.realcluster import aggregated, objs, standin
from tests.realcluster.createcase import CARD, CREDITS
from tests.realcluster.plane import Plane, is_true, wait_for
from tests.test_gpustack_operator_lines import line_crd

pytestmark = pytest.mark.cluster

IMG = "vllm/vllm-openai:v0.8.5"


def _queue(plane: Plane, prefix: str) -> tuple[str, str]:
    """A namespace with an InstanceType, its ClusterQueue (4 cards) and LocalQueue: (namespace, InstanceType)."""
    standin.install(plane)
    ns = plane.namespace(prefix)
    it = f"gpustack--nvidia-h100-linux-amd64-{ns}"
    plane.apply(standin.instance_type(it, "main"))
    rf = plane.unique("h40-rf")
    plane.apply(objs.flavor(rf), objs.cluster_queue(it, [(rf, [objs.quota(CREDITS, str(4 * CARD))])],
                                                    covered=[CREDITS]),
                objs.local_queue(ns, "main", it))
    return ns, it


def _flags(line: str, it: str) -> list[str]:
    engine = ["--engine-image", IMG] if line == "0.11" else ["--engine-version", "0.8.5"]
    pool = ["--accelerator-type" if line == "0.11" else "--instance-type", it]
    return [*engine, *pool, "--prefill", "1", "--decode", "1"]


def _offline(plane: Plane, ns: str, name: str, line: str, it: str, *extra: str) -> str:
    r = plane.pd("create", name, "-n", ns, "--model", "m", *_flags(line, it), "--operator-version", line, *extra,
                 "--dry-run=client", "-o", "yaml")
    assert r.returncode == 0, r.stderr
    return r.stdout


def _server_dry_run(plane: Plane, manifest: str) -> tuple[int, str]:
    """The real kubectl sends the manifest with --dry-run=server (strict field validation by default)."""
    got = plane.kubectl("create", "--dry-run=server", "-f", "-", "-o", "json", input=manifest, check=False)
    return got.returncode, got.stderr


def _live(plane: Plane, ns: str, name: str, line: str, it: str, version: str) -> dict[str, Any]:
    r = plane.pd("create", name, "-n", ns, "--model", "m", *_flags(line, it), "--api-version", version,
                 "--dry-run=server", "-o", "json")
    assert r.returncode == 0, r.stderr
    return dict(json.loads(r.stdout))


@contextlib.contextmanager
def _v1alpha1_schema(plane: Plane, change: Callable[[dict[str, Any]], None]) -> Iterator[None]:
    """The plane's CRD with its v1alpha1 schema changed for the block, as it was after."""
    crd = plane.get("crd", standin.CRD_NAME)
    crd.pop("status", None)
    before = copy.deepcopy(crd)
    for v in crd["spec"]["versions"]:
        if v["name"] == "v1alpha1":
            change(v)
    plane.kubectl("replace", "-f", "-", input=json.dumps(crd))
    try:
        yield
    finally:
        now = plane.get("crd", standin.CRD_NAME)
        before["metadata"]["resourceVersion"] = now["metadata"]["resourceVersion"]
        plane.kubectl("replace", "-f", "-", input=json.dumps(before))


def test_each_line_writes_what_its_served_schema_accepts(plane: Plane) -> None:
    ns, it = _queue(plane, "h40-lines")
    # 0.8, v1 as a CRD (the plane's own v1 view of the v1alpha1 struct)
    code, err = _server_dry_run(plane, _offline(plane, ns, "src-crd", "0.8", it))
    assert code == 0, err
    assert _live(plane, ns, "src-crd", "0.8", it, "v1")["spec"]["engine"] == {"name": "vLLM", "version": "0.8.5"}
    docs_shape = _offline(plane, ns, "docs-on-src", "0.11", it)

    # 0.8, v1 from an aggregated API server (APIService), the CRD's own v1 unserved
    with aggregated.serve(plane) as server:
        code, err = _server_dry_run(plane, _offline(plane, ns, "src-agg", "0.8", it))
        assert code == 0, err
        made = _live(plane, ns, "src-agg-live", "0.8", it, "v1")
        assert (made["apiVersion"], made["spec"]["roles"][0]["instanceType"]) == ("worker.gpustack.ai/v1", it)
        posts = [p for m, p in server.requests if m == "POST"]
        assert len(posts) == 2 and all(p.startswith(f"/apis/worker.gpustack.ai/v1/namespaces/{ns}/") for p in posts)
        # the docs line's shape is refused by the source's schema (unknown engine.image, acceleratorType)
        code, err = _server_dry_run(plane, docs_shape)
        assert code != 0 and "engine.image" in err, err

    # 049325a5: the older source's lowercase enums
    lower = line_crd("049325a5")["spec"]["versions"][0]["schema"]
    with _v1alpha1_schema(plane, lambda v: v.update(schema=lower)):
        manifest = _offline(plane, ns, "src-lower", "049325a5", it, "--api-version", "v1alpha1")
        assert "kind: prefill" in manifest
        code, err = _server_dry_run(plane, manifest)
        assert code == 0, err
        assert _live(plane, ns, "src-lower-live", "049325a5", it, "v1alpha1")["spec"]["engine"]["name"] == "vllm"

    # 0.11: the docs' v1 as a CRD (engine.image required, roles[].acceleratorType)
    with standin.serve_v1(plane, line_crd("0.11")["spec"]["versions"][0]):
        code, err = _server_dry_run(plane, _offline(plane, ns, "docs-crd", "0.11", it))
        assert code == 0, err
        made = _live(plane, ns, "docs-crd-live", "0.11", it, "v1")
        assert made["spec"]["engine"] == {"name": "vLLM", "image": IMG}
        assert made["spec"]["roles"][0]["acceleratorType"] == it


def _artifact_ref(v: dict[str, Any]) -> None:
    model = v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["model"]
    model["properties"]["artifactRef"] = {"type": "object", "properties": {"name": {"type": "string"}}}


def _why(plane: Plane, ns: str, name: str) -> dict[str, Any]:
    r = plane.pd("why-pending", f"md/{name}", "-n", ns, "-o", "json")
    assert r.returncode in (0, 1), r.stderr
    return dict(json.loads(r.stdout))


def test_a_deployment_held_on_its_weights_is_diagnosed_as_such(plane: Plane) -> None:
    ns, it = _queue(plane, "h40-weights")
    md = {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelDeployment",
          "metadata": {"name": "qwen", "namespace": ns},
          "spec": {"model": {"name": "m", "artifactRef": {"name": "qwen-weights"}},
                   "engine": {"name": "vLLM", "version": "0.8.5"},
                   "roles": [{"name": "decode", "kind": "Decode", "replicas": 1, "size": 2, "instanceType": it,
                              "resources": {"accelerator": 1}}]}}
    with _v1alpha1_schema(plane, _artifact_ref):  # the plane's CRD has no artifactRef: added for the test
        _held_then_released(plane, ns, md)


def _held_then_released(plane: Plane, ns: str, md: dict[str, Any]) -> None:
    plane.kubectl("create", "-f", "-", input=yaml.safe_dump(md))
    md = plane.get(standin.V1ALPHA1_RESOURCE, "qwen", ns)
    assert md["spec"]["model"]["artifactRef"] == {"name": "qwen-weights"}
    standin.hold_on_weights(plane, md)

    doc = _why(plane, ns, "qwen")
    assert doc["pending"] and doc["reasons"][0]["code"] == "WeightsNotReady", doc["reasons"]
    params = doc["reasons"][0]["params"]
    assert (params["artifact"], params["operatorReason"], params["podsHeld"]) == (
        "qwen-weights", standin.WEIGHTS_REASON, True)
    assert "PodGroupIncomplete" not in [r["code"] for r in doc["reasons"]]
    assert (doc["deployment"]["apiVersion"], doc["deployment"]["phase"]) == ("worker.gpustack.ai/v1alpha1",
                                                                              "Starting")
    assert ("WeightsReady", "False") in [(c["type"], c["status"]) for c in doc["deployment"]["conditions"]]

    # released: one group per replica, its total count the role's size; the weights are no longer the answer
    (group,) = standin.render(plane, md)
    pods = [p for p in plane.get("pods", namespace=ns)["items"]
            if p["metadata"]["labels"].get("kueue.x-k8s.io/pod-group-name") == group]
    assert [p["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] for p in pods] == ["2", "2"]
    standin.composed(plane, ns, [group])
    wls = wait_for("the group reserves quota", lambda: (
        w if is_true((w := standin.answer(plane, ns, [group])).get(group, {}), "QuotaReserved") else None))
    status = standin.write_status(plane, md, wls, resource=standin.V1ALPHA1_RESOURCE)
    assert ("WeightsReady", "True") in [(c["type"], c["status"]) for c in status["conditions"]]
    doc = _why(plane, ns, "qwen")
    assert "WeightsNotReady" not in [r["code"] for r in doc["reasons"]], doc["reasons"]
