"""The schema and CEL layer (PD501/PD502): CRDs among the inputs, `--crd`, the cluster's; Kueue's real CRDs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.lint.schema.crds import SchemaIndex
from kubectl_pd.lint.schema.validate import validate
from tests import kueue_src
from tests.conftest import FIXTURES

CRDS = FIXTURES / "lint" / "crds"
SUBSET = CRDS / "clusterqueues-subset.yaml"
QUEUE = CRDS / "queue-newer-fields.yaml"
EXCERPT = FIXTURES / "crds"  # our own excerpt of Kueue's ClusterQueue and Cohort CRDs

# what the subset CRD adds to the built-in facts for queue-newer-fields.yaml
WANT = [
    ("PD401", "spec.queueingStrategy"),  # built-in; the schema's own enum finding is the same, dropped
    ("PD502", "spec"),  # the newer Kueue's rule, evaluated from the CRD
    ("PD501", "spec.preemption.borrowWithinCohort.maxPriorityThreshold"),  # type
    ("PD501", "spec.admissionWindow"),  # unknown field
]


def findings(stdout: str) -> list[tuple[str, str]]:
    return sorted((f["id"], f["path"]) for f in json.loads(stdout)["findings"])


def test_crd_flag(cli: Callable) -> None:
    without = cli(["lint", "-f", str(QUEUE), "-o", "json"])
    assert findings(without.stdout) == [("PD401", "spec.queueingStrategy")]
    res = cli(["lint", "-f", str(QUEUE), "--crd", str(SUBSET), "-o", "json"])
    assert res.exit_code == 1
    assert findings(res.stdout) == sorted(WANT)
    doc = json.loads(res.stdout)
    by_path = {f["path"]: f for f in doc["findings"]}
    assert by_path["spec"]["message"] == 'Invalid value: "object": HoldAndDrain needs a cohort in this newer Kueue'
    assert by_path["spec.preemption.borrowWithinCohort.maxPriorityThreshold"]["kueueMessage"] == (
        'spec.preemption.borrowWithinCohort.maxPriorityThreshold: Invalid value: "string": '
        'spec.preemption.borrowWithinCohort.maxPriorityThreshold in body must be of type integer: "string"')
    assert by_path["spec.admissionWindow"]["message"] == 'strict decoding error: unknown field "spec.admissionWindow"'
    # the quantity() rule is evaluated (weight 2 > 0): nothing is left unchecked
    assert "not checked" not in res.stderr


def test_crd_among_the_inputs(cli: Callable) -> None:
    res = cli(["lint", "-f", str(CRDS), "-o", "json"])
    assert findings(res.stdout) == sorted(WANT)
    assert json.loads(res.stdout)["summary"]["kinds"] == {"ClusterQueue": 1}


def test_crd_flag_without_a_crd_is_exit_2(cli: Callable) -> None:
    res = cli(["lint", "-f", str(QUEUE), "--crd", str(QUEUE)])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


RF = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}


def test_live_reads_installed_crds_with_get(cli: Callable, apiserver: Callable) -> None:
    crd = yaml.safe_load(SUBSET.read_text())
    queue = yaml.safe_load(QUEUE.read_text())
    server, env = apiserver([queue, crd, RF])
    res = cli(["lint", "-o", "json"], env=env)
    assert findings(res.stdout) == sorted(WANT)
    assert set(server.methods) == {"GET"}
    assert "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterqueues.kueue.x-k8s.io" in {
        r.path for r in server.requests}


def test_live_crds_forbidden_is_said(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import Forbid

    crd = yaml.safe_load(SUBSET.read_text())
    server, env = apiserver([yaml.safe_load(QUEUE.read_text()), crd, RF],
                            forbid=[Forbid("get", "customresourcedefinitions")])
    res = cli(["lint", "-o", "json"], env=env)
    assert findings(res.stdout) == [("PD401", "spec.queueingStrategy")]
    assert "RBAC hides CustomResourceDefinitions" in res.stderr


MD_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "modeldeployments.worker.gpustack.ai"},
    "spec": {"group": "worker.gpustack.ai", "names": {"kind": "ModelDeployment"}, "versions": [
        {"name": "v1alpha1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "properties": {
                "model": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "engine": {"type": "string", "enum": ["vllm", "sglang"]},
                "router": {"type": "object", "properties": {"kind": {"type": "string"}}},
                "roles": {"type": "array", "maxItems": 10, "items": {
                    "type": "object", "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"size": {"type": "integer", "minimum": 1}}}}},
                "x-kubernetes-validations": [{"rule": "!self.roles.exists(r, r.kind == 'prefill') || has(self.router)",
                                              "message": "prefill/decode roles need a router",
                                              "reason": "FieldValueRequired", "fieldPath": ".router"}]}}}}}]}}


def test_model_deployment_checked_against_a_newer_operator_crd(cli: Callable, tmp_path: Path) -> None:
    """A newer GPUStack operator's fields and rules are checked from its CRD, with no release of ours."""
    md = {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelDeployment",
          "metadata": {"name": "pd", "namespace": "a"},
          "spec": {"model": {"name": "m"}, "engine": "trtllm", "roles": [
              {"name": "prefill", "kind": "prefill", "replicas": 1, "instanceType": "t", "size": 0},
              {"name": "decode", "kind": "decode", "replicas": 1, "instanceType": "t", "size": 1}]}}
    p = tmp_path / "md.yaml"
    p.write_text(yaml.safe_dump_all([MD_CRD, md]))
    res = cli(["lint", "-f", str(p), "-o", "json", "--api-profile", "per-replica"])
    got = {(f["id"], f["path"], f["message"].split(":")[0]) for f in json.loads(res.stdout)["findings"]}
    assert ("PD501", "spec.engine", "Unsupported value") in got
    assert ("PD501", "spec.roles[0].size", "Invalid value") in got
    assert ("PD502", "spec.router", "Required value") in got


# -- Kueue's CRDs: our excerpt always; the real ones when PD_KUEUE_SRC names them (tests/kueue_src.py) -----

CQ_CRD, COHORT_CRD = "clusterqueues.kueue.x-k8s.io", "cohorts.kueue.x-k8s.io"


def crd_sources(*real: str) -> list[Any]:
    """"excerpt" (tests/fixtures/crds), then Kueue's releases, marked kueue_src: deselected when PD_KUEUE_SRC
    is not set (the placeholders `real` then only name what the opt-in check would run)."""
    labels = kueue_src.releases() or list(real)
    return ["excerpt", *(pytest.param(label, marks=pytest.mark.kueue_src) for label in labels)]


def _kueue_crds(source: str) -> dict[str, dict[str, Any]]:
    if source == "excerpt":
        return {d["metadata"]["name"]: d for p in sorted(EXCERPT.glob("kueue-*.yaml"))
                for d in yaml.safe_load_all(p.read_text())}
    return kueue_src.crds(source)


@pytest.mark.parametrize("source", crd_sources("v0.18.4", "v0.19.2"))
def test_kueue_crds_agree_with_the_built_in_facts(source: str) -> None:
    """Every case of the issue-10 table whose finding is the API server's (schema or CEL) is also what
    Kueue's CRD says (our excerpt; the real one in the opt-in check), at the same path; and every CEL rule
    compiles in our runtime."""
    from tests.test_lint_kueue_facts import CASES

    index = SchemaIndex()
    crds = _kueue_crds(source)
    for name in (CQ_CRD, COHORT_CRD):
        index.add(crds[name], source)
    schema_rules = {"PD401", "PD404", "PD405", "PD408", "PD409"}
    checked = 0
    for case, manifest, want in CASES:
        obj = yaml.safe_load(manifest)
        outcome = validate(obj, index.schema_for(obj))
        assert outcome.unchecked == [], (case, outcome.unchecked)
        got = {v.path for v in outcome.violations}
        from kubectl_pd.lint.findings import format_path

        got_text = {format_path(p) for p in got}
        for rule, path in want:
            if rule in schema_rules or (rule == "PD108" and "nominalQuota" in path and "-1" not in manifest):
                checked += 1
                assert path in got_text, (case, rule, path, got_text)
    assert checked >= 15


def test_without_the_cel_runtime_rules_are_unchecked_not_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The krew zipapp carries pure-Python dependencies only: without the CEL wheel, every rule is a note."""
    import sys

    from kubectl_pd.lint.schema import cel

    monkeypatch.setitem(sys.modules, "cel_expr_python", None)  # import fails as when the wheel is absent
    monkeypatch.setattr(cel, "_env", None)
    index = SchemaIndex()
    index.add(yaml.safe_load(SUBSET.read_text()), "test")
    obj = yaml.safe_load(QUEUE.read_text())
    outcome = validate(obj, index.schema_for(obj))
    assert not any(v.cel for v in outcome.violations)
    assert outcome.unchecked and all("cel-expr-python" in u for u in outcome.unchecked)


BAD_QUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: bad}
spec:
  queueingStrategy: FIFO
  cohortName: Team_A
  preemption:
    borrowWithinCohort: {policy: LowerPriority}
  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: Sooner}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: 2.5}
"""


def _preemption_rule_message(crd: dict[str, Any]) -> str:
    """The message of the CEL rule on spec.preemption of the CRD's v1beta2 schema (its own words)."""
    v1beta2 = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta2")
    node = v1beta2["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["preemption"]
    return str(node["x-kubernetes-validations"][0]["message"])


@pytest.mark.parametrize("source", crd_sources("v0.18.4", "v0.19.2"))
def test_directory_of_kueue_crds_and_queues(cli: Callable, tmp_path: Path, source: str) -> None:
    """The issue's done-when: Kueue's CRDs beside a queue; enum, pattern and CEL in the API server's words."""
    crds = _kueue_crds(source)
    for name in (CQ_CRD, COHORT_CRD):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(crds[name]))
    (tmp_path / "queue.yaml").write_text(BAD_QUEUE)
    res = cli(["lint", "-f", str(tmp_path), "-o", "json"])
    assert res.exit_code == 1 and "not checked" not in res.stderr
    lines = {f["kueueMessage"] for f in json.loads(res.stdout)["findings"]}
    assert 'spec.queueingStrategy: Unsupported value: "FIFO": supported values: "StrictFIFO", "BestEffortFIFO"' \
        in lines
    assert any(x.startswith('spec.cohortName: Invalid value: "Team_A": spec.cohortName in body should match')
               for x in lines)
    assert f'spec.preemption: Invalid value: "object": {_preemption_rule_message(crds[CQ_CRD])}' in lines
    assert ('spec.flavorFungibility.preference: Unsupported value: "Sooner": supported values: '
            '"BorrowingOverPreemption", "PreemptionOverBorrowing"') in lines
    assert any('nominalQuota in body must be of type integer,string: "number"' in x for x in lines)


@pytest.mark.parametrize("source", crd_sources("v0.18.4"))
def test_live_with_kueue_crd_installed(cli: Callable, apiserver: Callable, source: str) -> None:
    crd = _kueue_crds(source)[CQ_CRD]
    queue = yaml.safe_load(BAD_QUEUE)
    queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "2"
    queue["spec"]["admissionWindow"] = "5m"  # a field this Kueue does not have
    server, env = apiserver([queue, crd, RF])
    res = cli(["lint", "-o", "json"], env=env)
    got = {(f["id"], f["path"]) for f in json.loads(res.stdout)["findings"]}
    assert ("PD501", "spec.admissionWindow") in got and ("PD401", "spec.queueingStrategy") in got
    assert set(server.methods) == {"GET"}


def test_schema_without_properties_declares_no_unknown_field() -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "x"},
           "spec": {"group": "g.io", "names": {"kind": "Thing"}, "versions": [
               {"name": "v1", "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
    index = SchemaIndex()
    index.add(crd, "test")
    obj = {"apiVersion": "g.io/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": {"a": 1}}
    assert validate(obj, index.schema_for(obj)).violations == []


URL_RULE_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              endpoint: {type: string}
            x-kubernetes-validations:
            - rule: "url(self.endpoint).getScheme() == 'https'"
              message: endpoint must be https
"""


def test_a_rule_that_could_not_run_qualifies_no_findings(cli: Callable, tmp_path: Path) -> None:
    """url() is not evaluated: the summary says a check could not run, in text and in JSON, never a bare
    "no findings"."""
    (tmp_path / "crd.yaml").write_text(URL_RULE_CRD)
    (tmp_path / "widget.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n"
        "spec: {endpoint: 'http://plain.example'}\n")
    as_json = cli(["lint", "-f", str(tmp_path), "-o", "json"])
    summary = json.loads(as_json.stdout)["summary"]
    assert (as_json.exit_code, summary["errors"], len(summary["unchecked"])) == (0, 0, 1)
    text = cli(["lint", "-f", str(tmp_path)])
    assert text.stdout.splitlines()[-1].endswith("; 1 CEL rule check could not run (see the notes)")
