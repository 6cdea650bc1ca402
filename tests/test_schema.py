"""The published JSON contract: every golden `-o json` document validates against its JSON Schema (with the
`jsonschema` package), carries the contract's schemaVersion, and `kubectl pd schema NAME` prints exactly
docs/schema/NAME.json. Golden documents of lint (tests/golden/lint-json/) and of create --preflight
(tests/golden/preflight-json/, against the loopback cluster) are written here; PD_UPDATE_GOLDEN=1 rewrites them
(review the diff), as for why-pending's."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kubectl_pd import contract
from kubectl_pd.agent import schemas
from tests.apiserver import Forbid
from tests.conftest import ROOT, run_cli
from tests.test_preemption_create import _cluster as preemption_cluster

GOLDEN = ROOT / "tests" / "golden"
DOCS = ROOT / "docs" / "schema"
# golden directory -> the schema its documents obey
KINDS = {"why-pending-json": "why-pending", "why-pending-screen": "why-pending", "lint-json": "lint",
         "preflight-json": "preflight"}
LINTED = sorted([*(ROOT / "examples" / "lint").glob("*.yaml"), *(ROOT / "tests" / "fixtures" / "lint").glob("*.yaml")])
H20 = "gpustack--nvidia-h20-linux-amd64"
CREATE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--preflight", "-o", "json"]
PAIR = ["--kv-cache-pool", "kv", "--prefill", "1", "--decode", "2", "--instance-type", H20]
# name -> (cluster fixtures or objects, extra apiserver knobs, create's flags after CREATE)
PREFLIGHTS: dict[str, tuple[Any, dict[str, Any], list[str]]] = {
    "fits": (["create/cluster.yaml", "create/crd-pd-atomic.yaml"], {}, PAIR),
    "never-fits": (["create/cluster.yaml", "create/crd-pd-atomic.yaml"], {},
                   ["--kv-cache-pool", "kv", "--prefill", "1", "--decode", "40", "--instance-type", H20]),
    "forced": (["create/cluster.yaml", "create/crd-pd-atomic.yaml"], {},
               ["--kv-cache-pool", "kv", "--prefill", "1", "--decode", "40", "--instance-type", H20, "--force"]),
    "missing-instance-type": (["create/cluster.yaml", "create/crd-pd-atomic.yaml"], {},
                              ["--kv-cache-pool", "kv", "--prefill", "1", "--decode", "1", "--instance-type",
                               "gpustack--nvidia-missing-linux-amd64"]),
    "would-preempt": (None, {}, PAIR),
    "forbidden-reads": (["create/cluster.yaml", "create/crd-pd-atomic.yaml"],
                        {"forbid": [Forbid("get", "clusterqueues")]}, PAIR),
    "pods": (["create/cluster.yaml"], {}, [
        "--target", "pods", "--instance-type", H20,
        "--role", "name=prefill,kind=prefill,image=vllm/vllm-openai:v0.8.5",
        "--role", "name=decode,kind=decode,replicas=2,image=vllm/vllm-openai:v0.8.5,accelerator-key=nvidia-h20"]),
}


def _golden(text: str, path: Path) -> None:
    if os.environ.get("PD_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.is_file(), f"no golden {path}: run with PD_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(), f"the JSON differs from {path} (PD_UPDATE_GOLDEN=1 rewrites it)"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = schemas.SCHEMAS[name]()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize("name", sorted(contract.VERSIONS))
def test_the_schema_command_prints_the_published_file(name: str) -> None:
    r = run_cli(["schema", name])
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (DOCS / f"{name}.json").read_text() == schemas.text(name)
    assert json.loads(r.stdout)["$id"].endswith(f"/{name}.json")


def test_no_schema_file_without_its_document() -> None:
    assert {p.stem for p in DOCS.glob("*.json")} == set(contract.VERSIONS)
    assert run_cli(["schema", "nope"]).exit_code == 2


def _goldens() -> list[Path]:
    return sorted(p for d in KINDS for p in (GOLDEN / d).glob("*.json"))


def test_every_golden_kind_has_documents() -> None:
    for d in KINDS:
        assert list((GOLDEN / d).glob("*.json")), d
    assert {p.name for p in GOLDEN.iterdir() if p.is_dir() and p.name.endswith("-json")} <= set(KINDS)


@pytest.mark.parametrize("path", _goldens(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_golden_document_obeys_its_schema(path: Path) -> None:
    kind = KINDS[path.parent.name]
    doc = json.loads(path.read_text())
    errors = sorted(_validator(kind).iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]]
    assert doc["schemaVersion"] == contract.VERSIONS[kind]


def test_the_schemas_are_strict_where_the_tool_shapes_the_object() -> None:
    """A key the schema does not know fails: a change to the contract is a schema change (and a version bump)."""
    doc = json.loads((GOLDEN / "why-pending-json" / "quota-exhausted.json").read_text())
    assert not list(_validator("why-pending").iter_errors(doc))
    for broken in ({**doc, "surprise": 1}, {**doc, "schemaVersion": "2.0"},
                   {**doc, "items": [{**doc["items"][0], "pending": "yes"}]},
                   {**doc, "items": [{**doc["items"][0], "reasons": [{**doc["items"][0]["reasons"][0],
                                                                      "code": "NoSuchCode"}]}]}):
        assert list(_validator("why-pending").iter_errors(broken))


@pytest.mark.parametrize("path", LINTED, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_lint_json_golden(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the documents name their files relative to the checkout
    r = run_cli(["lint", "-f", str(path.relative_to(ROOT)), "-o", "json"])
    assert r.exit_code in (0, 1), r.stderr
    _golden(r.stdout, GOLDEN / "lint-json" / f"{path.parent.parent.name}-{path.stem}.json")


@pytest.mark.parametrize("name", sorted(PREFLIGHTS))
def test_preflight_json_golden(name: str, apiserver: Callable) -> None:
    objects, knobs, flags = PREFLIGHTS[name]
    server, env = apiserver(*(objects if objects is not None else [preemption_cluster()]), namespace="team-a",
                            **knobs)
    r = run_cli([*CREATE, *flags], env=env)
    assert r.stdout, r.stderr
    doc = json.loads(r.stdout)
    assert r.exit_code == (0 if doc["wouldCreate"] else 1), r.stderr
    assert {x.method for x in server.requests} == {"GET"}  # --preflight never writes, not even a dry run
    _golden(r.stdout, GOLDEN / "preflight-json" / f"{name}.json")


def test_preflight_refuses_flags_that_would_write_or_wait() -> None:
    for extra in (["--dry-run=server"], ["--dry-run=client"], ["--wait"], ["-o", "name"]):
        r = run_cli([*CREATE[:-2], *PAIR, *extra])
        assert r.exit_code == 2 and r.stderr.startswith("error: --preflight writes nothing"), r.stderr
