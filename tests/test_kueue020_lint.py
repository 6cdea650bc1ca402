"""Kueue 0.20 in lint: v1beta1 no longer served (PD412, --fix converts), ConcurrentAdmission's 32 flavors (PD410),
and the one version module (kubectl_pd/kueue/versions.py) every version-dependent fact comes from.

Sources: CHANGELOG/CHANGELOG-0.20.md@144402ada86f9605f19a07d3d0cba49e1fb1b5b6 ("API: Kueue no longer serves
kueue.x-k8s.io/v1beta1", #14558; "ConcurrentAdmission: Increased the maximum number of ResourceFlavors per
ResourceGroup from 16 to 32", #15949; "PodSets are now ordered by scheduling shape rather than role-hash", #14809),
pkg/webhooks/clusterqueue_webhook.go:247@v0.19.2 (the 16-flavor message) and
pkg/controller/jobs/pod/pod_controller.go:828@v0.19.2 (pod sets sorted by role hash).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_pd.cluster.snapshot import SnapshotSource, parse_documents
from kubectl_pd.kueue import versions
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import LintResult, context_from, lint_objects

CQ1 = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n"
CQ2 = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n"
CO1 = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c}\nspec: {}\n"
RG = ("  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: a\n      resources:\n"
      "      - name: cpu\n        nominalQuota: 4\n")
LEGACY = CQ1 + "  cohort: research\n  admissionChecks: [chk]\n  flavorFungibility: {whenCanBorrow: Borrow}\n" + RG


def concurrent(n: int) -> str:
    flavors = "".join(f"    - name: f{i}\n      resources:\n      - name: cpu\n        nominalQuota: 1\n"
                      for i in range(n))
    return (CQ2 + "  concurrentAdmissionPolicy:\n    migration: {mode: TryPreferredFlavors}\n"
            "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n" + flavors)


def lint(text: str, target: versions.KueueLine = versions.DEFAULT_TARGET, gates: dict | None = None) -> LintResult:
    src = SnapshotSource(parse_documents(textwrap.dedent(text), "q.yaml"))
    objs = list(src.all_objects())
    ctx = LintContext(feature_gates=gates or {}, kueue=target)
    return lint_objects(objs, context_from(objs, ctx), origin_of=src.origin)


def found(r: LintResult) -> list[tuple[str, str]]:
    return [(f.rule_id, f.path_text) for f in r.findings]


# (case, manifest, target, expected (rule, path)); each cites the line it is written from
@pytest.mark.parametrize(("case", "text", "target", "expected"), [
    # CHANGELOG-0.20.md "API: Kueue no longer serves kueue.x-k8s.io/v1beta1" (#14558)
    ("v1beta1 ClusterQueue, 0.20", LEGACY, versions.from_flag("0.20"), [("PD412", "apiVersion")]),
    ("v1beta1 Cohort, 0.20", CO1, versions.from_flag("0.20"), [("PD412", "apiVersion")]),
    ("v1beta1 ClusterQueue, 0.21 (0.20's facts)", LEGACY, versions.from_flag("0.21"), [("PD412", "apiVersion")]),
    ("v1beta1 ClusterQueue, discovery serves v1beta2 only", LEGACY, versions.from_served(["v1beta2"]),
     [("PD412", "apiVersion")]),
    # 0.19 still serves v1beta1 (kueue.x-k8s.io_clusterqueues.yaml@v0.19.2: served: true)
    ("v1beta1 ClusterQueue, 0.19", LEGACY, versions.from_flag("0.19"), []),
    ("v1beta1 ClusterQueue, discovery serves both", LEGACY, versions.from_served(["v1beta2", "v1beta1"]), []),
    # the default asserts nothing that needs the version: a v1beta1 file may be meant for 0.19
    ("v1beta1 ClusterQueue, no version", LEGACY, versions.DEFAULT_TARGET, []),
    ("v1beta2 ClusterQueue, 0.20", CQ2 + RG, versions.from_flag("0.20"), []),
])
def test_served_versions(case: str, text: str, target: versions.KueueLine, expected: list) -> None:
    assert found(lint(text, target)) == expected, case


FLAVORS = "spec.resourceGroups[0].flavors"


# (case, flavors, target, PD410 findings): clusterqueue_webhook.go:247@v0.19.2 (16), CHANGELOG-0.20.md #15949 (32)
@pytest.mark.parametrize(("case", "n", "target", "expected"), [
    ("17 flavors on 0.19", 17, versions.from_flag("0.19"), [("PD410", FLAVORS)]),
    ("16 flavors on 0.19", 16, versions.from_flag("0.19"), []),
    ("17 flavors on 0.20", 17, versions.from_flag("0.20"), []),
    ("32 flavors on 0.20", 32, versions.from_flag("0.20"), []),
    ("33 flavors on 0.20", 33, versions.from_flag("0.20"), [("PD410", FLAVORS)]),
    ("32 flavors, newest by default", 32, versions.DEFAULT_TARGET, []),
])
def test_concurrent_admission_flavors(case: str, n: int, target: versions.KueueLine, expected: list) -> None:
    r = lint(concurrent(n), target, {"ConcurrentAdmission": True})
    assert found(r) == expected, case
    if expected:
        most = versions.concurrent_admission_flavors(target)
        assert f"Invalid value: {n}: cannot have more than {most} resource flavors" in r.findings[0].message


@pytest.mark.parametrize(("text", "want"), [
    ("0.20", versions.KueueLine((0, 20), versions.FLAG)), ("v0.19.2", versions.KueueLine((0, 19), versions.FLAG)),
    ("0.21.0-rc.1", versions.KueueLine((0, 21), versions.FLAG)),
])
def test_flag_versions(text: str, want: versions.KueueLine) -> None:
    assert versions.from_flag(text) == want


@pytest.mark.parametrize(("served", "effective", "known", "v1beta1"), [
    (["v1beta2"], (0, 20), True, False),
    (["v1beta2", "v1beta1"], (0, 19), True, True),
    (["v1beta1"], (0, 19), True, True),
    ([], versions.NEWEST, False, None),
])
def test_discovery(served: list[str], effective: tuple, known: bool, v1beta1: bool | None) -> None:
    t = versions.from_served(served)
    assert (t.effective, t.known, versions.serves_v1beta1(t)) == (effective, known, v1beta1)


@pytest.mark.parametrize(("version", "order"), [
    ("0.19", versions.ROLE_HASH),  # pod_controller.go:828@v0.19.2
    ("0.20", versions.SCHEDULING_SHAPE),  # CHANGELOG-0.20.md, PodGroupSchedulingShapeOrdering (#14809)
])
def test_pod_set_order(version: str, order: str) -> None:
    assert versions.pod_set_order(versions.from_flag(version)) == order


def test_cli_refuses_v1beta1_for_020_and_fix_converts(cli: Callable, tmp_path: Path) -> None:
    f = tmp_path / "q.yaml"
    f.write_text(LEGACY)
    assert cli(["lint", "-f", str(f)]).exit_code == 0
    res = cli(["lint", "-f", str(f), "--kueue-version", "0.20", "-o", "json"])
    assert res.exit_code == 1
    [finding] = json.loads(res.stdout)["findings"]
    assert (finding["id"], finding["path"]) == ("PD412", "apiVersion")
    fixed = cli(["lint", "-f", str(f), "--kueue-version", "0.20", "--fix"])
    assert fixed.exit_code == 0, fixed.stderr
    doc = yaml.safe_load(fixed.stdout)
    assert doc["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    assert doc["spec"]["cohortName"] == "research" and "cohort" not in doc["spec"]
    assert doc["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": "chk"}]}
    assert doc["spec"]["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch"}
    patch = json.loads(cli(["lint", "-f", str(f), "--kueue-version", "0.20", "--fix", "-o", "patch"]).stdout)
    ops = {(o["op"], o["path"]) for o in patch[0]["patch"]}
    assert ("replace", "/apiVersion") in ops and ("replace", "/spec/flavorFungibility/whenCanBorrow") in ops
    diff = cli(["lint", "-f", str(f), "--kueue-version", "0.20", "--diff"])
    assert diff.exit_code == 1 and "+apiVersion: kueue.x-k8s.io/v1beta2" in diff.stdout


def test_cli_bad_version_is_one_line(cli: Callable, tmp_path: Path) -> None:
    f = tmp_path / "q.yaml"
    f.write_text(CQ2 + RG)
    res = cli(["lint", "-f", str(f), "--kueue-version", "twenty"])
    assert res.exit_code == 2 and "Traceback" not in res.stderr


def test_live_discovery_refuses_v1beta1_nowhere(cli: Callable, apiserver: Callable) -> None:
    """Live on a Kueue serving v1beta2 only: objects arrive at v1beta2, so nothing is refused; discovery is
    one GET of the group."""
    q = yaml.safe_load(CQ2 + RG)
    rf = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "a"}}
    server, env = apiserver([q, rf], groups={"": ["v1"], "kueue.x-k8s.io": ["v1beta2"], "apiextensions.k8s.io": ["v1"]})
    res = cli(["lint", "-o", "json"], env=env)
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["findings"] == []
    assert [r.path for r in server.requests].count("/apis/kueue.x-k8s.io") == 1


@pytest.mark.parametrize(("version", "orders"), [
    ("0.19", [("decode", "prefill")]),  # sorted by name (pod_controller.go:828@v0.19.2)
    ("0.20", [("decode", "prefill"), ("prefill", "decode")]),  # a shape hash: every order (kueue#14809)
])
def test_pod_set_orders(version: str, orders: list) -> None:
    assert versions.pod_set_orders(versions.from_flag(version), ["prefill", "decode"]) == orders
