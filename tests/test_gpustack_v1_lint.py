"""lint knows GPUStack's published ModelDeployment API (worker.gpustack.ai/v1), what its admission refuses, and
the newest auto-derived queues (their names, and the lendingLimit they set without a cohort: PD109, fixed).

Sources: gpustack/gpustack-operator docs/modules/model-deployment/deployment.md@0421f1cc6b1b9c75df6e4c23fd8fd12136607e98
("What admission refuses": replicas over 1024 or size over 64 by the schema; a `template` field refused by strict
decoding; an invalid topology requiredLevel, `kubernetes.io/hostname` rejected ("Topology placement"); a
`<deployment>-<role>` that is not a DNS-1035 label; a partition profile together with a slice percentage; an
EMPTY `poolRef.name`; and, from the webhook's rules, engine.version when a role sets no image). Kueue's
ClusterQueue webhook: "must be nil when cohort is empty" (kubernetes-sigs/kueue pkg/webhooks/clusterqueue_webhook.go,
limitIsEmptyErrorMsg in validateLimit, the message PD109 already matches in tests/test_lint_rules.py). The single-dash
queue names and the lendingLimit without a cohort are issue 31's report of the newest operator.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.gpustack.names import derived_queue_name, parse_queue_name
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import context_from, lint_objects
from tests.apiserver import load_objects
from tests.conftest import FIXTURES

CLEAN = FIXTURES / "gpustack-v1" / "lint-v1-deployment.yaml"
LENDING = FIXTURES / "gpustack-v1" / "lint-queue-lending.yaml"


def md() -> dict[str, Any]:
    (obj,) = load_objects(CLEAN)
    return obj


def findings(obj: dict[str, Any]) -> list[tuple[str, tuple[Any, ...]]]:
    src = SnapshotSource.from_objects([copy.deepcopy(obj)])
    objs = list(src.all_objects())
    res = lint_objects(objs, context_from(objs, LintContext()), origin_of=src.origin)
    return [(f.rule_id, f.path) for f in res.findings]


def test_the_docs_deployment_is_clean() -> None:
    assert findings(md()) == []


def test_v1_is_per_replica_whatever_the_run_profile() -> None:
    """Roles on two instanceTypes are the seed's PD303 only; a v1 object is judged per replica."""
    seed = md()
    seed["apiVersion"] = "worker.gpustack.ai/v1alpha1"
    assert "PD303" in [r for r, _ in findings(seed)]
    assert "PD303" not in [r for r, _ in findings(md())]


def _set(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    cur = obj
    for step in path[:-1]:
        cur = cur[step]
    if value is None:
        cur.pop(path[-1], None)
    else:
        cur[path[-1]] = value
    return obj


R0 = ("spec", "roles", 0)


@pytest.mark.parametrize(("path", "value", "want"), [
    ((*R0, "instanceType"), None, [("PD314", (*R0, "instanceType"))]),
    ((*R0, "replicas"), 1025, [("PD315", (*R0, "replicas"))]),
    ((*R0, "size"), 65, [("PD315", (*R0, "size"))]),
    ((*R0, "size"), 0, [("PD315", (*R0, "size"))]),
    ((*R0, "template"), {"image": "x"}, [("PD316", (*R0, "template"))]),
    ((*R0, "acceleratorKey"), "nvidia-h20", [("PD316", (*R0, "acceleratorKey"))]),
    ((*R0, "topology", "requiredLevel"), "kubernetes.io/hostname", [("PD317", (*R0, "topology", "requiredLevel"))]),
    ((*R0, "topology", "requiredLevel"), "not a key", [("PD317", (*R0, "topology", "requiredLevel"))]),
    ((*R0, "topology", "requiredLevel"), "", []),  # empty: unconstrained
    ((*R0, "name"), "p" * 60, [("PD318", (*R0, "name"))]),  # qwen-pd-ppp... over 63
    ((*R0, "resources", "acceleratorPartitionedProfile"), "3g.40gb", []),
    (("spec", "engine", "version"), None, [("PD320", ("spec", "engine", "version"))]),
    (("spec", "kvCache"), {"poolRef": {"name": ""}}, [("PD321", ("spec", "kvCache", "poolRef", "name"))]),
    (("spec", "kvCache"), {"poolRef": {"name": "team-a-dram"}}, []),
    ((*R0, "kind"), "prefill", [("PD304", (*R0, "kind"))]),  # v1 spells it Prefill
    (("spec", "engine", "name"), "vllm", [("PD322", ("spec", "engine", "name"))]),
])
def test_what_admission_refuses(path: tuple[Any, ...], value: Any, want: list[tuple[str, tuple[Any, ...]]]) -> None:
    assert findings(_set(md(), path, value)) == want


def test_with_the_crd_the_spelling_is_pd501_alone(cli: Callable, tmp_path: Any) -> None:
    obj = _set(md(), (*R0, "kind"), "prefill")
    path = tmp_path / "md.yaml"
    path.write_text(yaml.safe_dump(obj))
    r = cli(["lint", "-f", str(path), "--crd", str(FIXTURES / "gpustack-v1" / "crd-v1.yaml"), "-o", "json"])
    assert [(f["id"], f["path"]) for f in json.loads(r.stdout)["findings"]] == [("PD501", "spec.roles[0].kind")]


# roles[].acceleratorType (GPUStack v0.11.2): docs.gpustack.ai/gpustack-operator/v0.11.2/docs/modules/model-deployment/
# configuration/ ("Minimal deployment": `acceleratorType: gpustack--nvidia-a10g-linux-amd64`, no instanceType, and the
# optional per-Pod resources cpu "8", ram 32Gi, localStorage 100Gi); the page does not say both fields are refused.
AT = "gpustack--nvidia-a10g-linux-amd64"
V1_CRD = FIXTURES / "gpustack-v1" / "crd-v1.yaml"


def test_role_with_accelerator_type_names_its_pool() -> None:
    obj = _set(md(), (*R0, "instanceType"), None)
    obj["spec"]["roles"][0]["acceleratorType"] = AT
    assert findings(obj) == []


def test_both_pools_on_a_role_is_not_claimed_as_refused() -> None:
    """Nothing the v0.11.2 docs say refuses instanceType beside acceleratorType: lint names no refusal."""
    obj = md()
    obj["spec"]["roles"][0]["acceleratorType"] = AT
    assert findings(obj) == []


def _lint_with_crd(cli: Callable, tmp_path: Any, obj: dict[str, Any]) -> list[tuple[str, str]]:
    path = tmp_path / "md.yaml"
    path.write_text(yaml.safe_dump(obj))
    r = cli(["lint", "-f", str(path), "--crd", str(V1_CRD), "-o", "json"])
    assert r.exit_code in (0, 1), r.stderr
    return [(f["id"], f["path"]) for f in json.loads(r.stdout)["findings"]]


def test_the_v0112_minimal_role_is_clean_against_the_schema(cli: Callable, tmp_path: Any) -> None:
    obj = _set(md(), (*R0, "instanceType"), None)
    obj["spec"]["roles"][0].update(acceleratorType=AT, resources={"accelerator": 2, "cpu": "8", "ram": "32Gi",
                                                                   "localStorage": "100Gi"})
    assert _lint_with_crd(cli, tmp_path, obj) == []


def test_accelerator_type_is_a_string_in_the_schema(cli: Callable, tmp_path: Any) -> None:
    obj = _set(md(), (*R0, "instanceType"), None)
    obj["spec"]["roles"][0]["acceleratorType"] = 5
    assert ("PD501", "spec.roles[0].acceleratorType") in _lint_with_crd(cli, tmp_path, obj)


def test_partition_and_slice_together() -> None:
    obj = md()
    obj["spec"]["roles"][0]["resources"] = {"accelerator": 1, "acceleratorPartitionedProfile": "3g.40gb",
                                            "acceleratorSlicedMemoryPercentage": 50}
    assert findings(obj) == [("PD319", (*R0, "resources", "acceleratorPartitionedProfile"))]


def test_a_dotted_deployment_name_breaks_the_service_names() -> None:
    obj = md()
    obj["metadata"]["name"] = "qwen.pd"
    assert [r for r, _ in findings(obj)] == ["PD318", "PD318"]


def test_an_engine_that_names_its_image_needs_no_version() -> None:
    """The v1 docs of v0.9.2 to v0.11.2 write `engine: {name, image}` (docs.gpustack.ai/gpustack-operator/v0.11.2/docs/
    modules/model-deployment/configuration/, "Minimal deployment"): no PD320 there."""
    obj = _set(md(), ("spec", "engine", "version"), None)
    obj["spec"]["engine"]["image"] = "registry.example/gpustack/runner:vllm-0.8.5"
    assert "PD320" not in [r for r, _ in findings(obj)]


def test_the_seed_api_is_not_judged_by_v1_rules() -> None:
    obj = _set(md(), ("spec", "engine", "version"), None)
    obj["apiVersion"] = "worker.gpustack.ai/v1alpha1"
    obj["spec"]["roles"][1]["instanceType"] = obj["spec"]["roles"][0]["instanceType"]
    assert "PD320" not in [r for r, _ in findings(obj)]


# ----------------------------------------------------------------------------- the auto-derived queue
def test_lending_limit_without_cohort_is_pd109(cli: Callable) -> None:
    r = cli(["lint", "-f", str(LENDING), "-o", "json"])
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert [(f["id"], f["path"]) for f in doc["findings"]] == [
        ("PD109", "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit")]


def test_lending_limit_fix_drops_it(cli: Callable) -> None:
    p = cli(["lint", "-f", str(LENDING), "--fix", "-o", "patch"])
    assert p.exit_code == 0, p.stderr
    (entry,) = json.loads(p.stdout)
    assert entry["patch"] == [{"op": "remove", "path": "/spec/resourceGroups/0/flavors/0/resources/0/lendingLimit"}]
    assert "nvidia-h20 (linux/amd64) has no cohort" in p.stderr
    y = cli(["lint", "-f", str(LENDING), "--fix"])
    fixed = yaml.safe_load(y.stdout)
    res = fixed["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]
    assert res == {"name": "credits.gpustack.ai/nvidia", "nominalQuota": "12800k"}
    assert findings(fixed) == []


def test_a_queue_in_a_cohort_keeps_its_limit() -> None:
    from kubectl_pd.lint.gpustack_queues import drop_limits_without_cohort

    (cq,) = load_objects(LENDING)
    cq["spec"]["cohortName"] = "gpu-pool"
    groups = cq["spec"]["resourceGroups"]
    assert drop_limits_without_cohort(cq, groups) == (groups, [])
    plain = copy.deepcopy(cq)
    plain["metadata"]["labels"] = {}
    plain["spec"].pop("cohortName")
    assert drop_limits_without_cohort(plain, groups) == (groups, [])  # not GPUStack's: no fix is invented


@pytest.mark.parametrize(("name", "want"), [
    ("gpustack-nvidia-h20-linux-amd64", {"key": "nvidia-h20", "os": "linux", "arch": "amd64", "era": "single-dash"}),
    ("gpustack--nvidia-h20-linux-amd64", {"key": "nvidia-h20", "os": "linux", "arch": "amd64", "era": "double-dash"}),
    ("gpustack--amd-epyc-9004--nvidia-h20-linux-amd64",
     {"key": "nvidia-h20", "os": "linux", "arch": "amd64", "era": "double-dash", "cpu": "amd-epyc-9004"}),
    ("gpustack-fnv64-5582b5d69c84a5c3", None),  # a hashed LocalQueue name
    ("team-a-gpus", None),
])
def test_queue_names(name: str, want: dict[str, str] | None) -> None:
    assert parse_queue_name(name) == want
    if want and want["era"] == "single-dash":
        assert derived_queue_name(want["key"], want["os"], want["arch"]) == name
