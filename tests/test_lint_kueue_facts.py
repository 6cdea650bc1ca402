"""The issue-10 cases: what lint got wrong, and the PD4xx built-in facts, each from Kueue's own source.

Every row is a manifest as a user writes it (YAML, so unquoted floats and as-written v1beta1 fields
reach the rules) and the (rule, path) findings Kueue's API server or webhook produces for it.
"""

from __future__ import annotations

import textwrap

import pytest

from kubectl_pd.cluster.snapshot import SnapshotSource, parse_documents
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import LintResult, context_from, lint_objects

CQ2 = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n"
CQ1 = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n"
CO2 = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c}\nspec:\n"
CO1 = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c}\nspec:\n"


def rg(quota: str = "nominalQuota: 4", flavor: str = "a", res: str = "cpu") -> str:
    return (f"  resourceGroups:\n  - coveredResources: [{res}]\n    flavors:\n    - name: {flavor}\n"
            f"      resources:\n      - name: {res}\n        {quota}\n")


def lint(text: str, ctx: LintContext | None = None) -> LintResult:
    src = SnapshotSource(parse_documents(textwrap.dedent(text), "q.yaml"))
    objs = list(src.all_objects())
    return lint_objects(objs, context_from(objs, ctx or LintContext()), origin_of=src.origin)


def found(r: LintResult) -> list[tuple[str, str]]:
    return [(f.rule_id, f.path_text) for f in r.findings]


RES = "spec.resourceGroups[0].flavors[0].resources[0]"

# (case, manifest, expected findings); sources are Kueue's files at the tag named
CASES = [
    # -- wrong today ---------------------------------------------------------------------------------
    # cohort_webhook.go validateCohort@v0.18.4: resource groups only, no totals
    ("cohort 300 flavors: no totals", CO2 + "  parentName: root\n  resourceGroups:\n" + "".join(
        f"  - coveredResources: [r{g}]\n    flavors:\n" + "".join(
            f"    - name: f{g}-{i}\n      resources:\n      - name: r{g}\n        nominalQuota: 1\n"
            for i in range(60)) for g in range(5)), []),
    # cohort_types.go:35@v0.18.4 (v1beta1) and v1beta2: ParentName `json:"parentName"`
    ("cohort parent is not a field", CO2 + "  parent: root\n" + rg("nominalQuota: 4\n        lendingLimit: 1"),
     [("PD409", "spec.parent"), ("PD109", f"{RES}.lendingLimit")]),
    ("cohort v1beta1 parentName", CO1 + "  parentName: root\n" + rg("nominalQuota: 4\n        lendingLimit: 1"), []),
    # v1beta1/clusterqueue_types.go:79@v0.18.4: Cohort `json:"cohort"`; CRD CEL on spec uses has(self.cohort)
    ("v1beta1 cohortName is unknown", CQ1 + "  cohortName: c\n" + rg("nominalQuota: 4\n        borrowingLimit: 1"),
     [("PD409", "spec.cohortName"), ("PD109", f"{RES}.borrowingLimit")]),
    ("v1beta1 cohort", CQ1 + "  cohort: c\n" + rg("nominalQuota: 4\n        borrowingLimit: 1"), []),
    ("v1beta2 cohort is unknown", CQ2 + "  cohort: c\n" + rg("nominalQuota: 4\n        borrowingLimit: 1"),
     [("PD409", "spec.cohort"), ("PD109", f"{RES}.borrowingLimit")]),
    # kueue.x-k8s.io_clusterqueues.yaml@v0.18.4: x-kubernetes-int-or-string + the quantity pattern
    # a ClusterQueue's is rewritten by Kueue's defaulting webhook on create, so the real API server accepts
    # the create (tests/realcluster/test_lint_server.py) and refuses only an update; a Cohort has no such webhook
    ("unquoted float", CQ2 + rg("nominalQuota: 2.5"), [("PD113", f"{RES}.nominalQuota")]),
    ("unquoted float in a cohort", CO2 + rg("nominalQuota: 2.5"), [("PD108", f"{RES}.nominalQuota")]),
    ("whole float is an integer to kubectl", CQ2 + rg("nominalQuota: 2.0"), []),
    ("blank around a quantity", CQ2 + rg('nominalQuota: " 4"'), [("PD113", f"{RES}.nominalQuota")]),
    ("trailing blank", CQ2 + rg('nominalQuota: "4Gi "'), [("PD113", f"{RES}.nominalQuota")]),
    ("trailing blank in a cohort", CO2 + rg('nominalQuota: "4Gi "'), [("PD108", f"{RES}.nominalQuota")]),
    ("micro suffix", CQ2 + rg('nominalQuota: "5u"'), []),
    # flavors[].resources: required, minItems 1, maxItems 64
    ("flavor without resources", CQ2 + "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
     "    - name: a\n", [("PD106", "spec.resourceGroups[0].flavors[0].resources")]),
    ("flavor with empty resources", CQ2 + "  resourceGroups:\n  - coveredResources: []\n    flavors:\n"
     "    - name: a\n      resources: []\n",
     [("PD105", "spec.resourceGroups[0].coveredResources"), ("PD106", "spec.resourceGroups[0].flavors[0].resources")]),
    # clusterqueue_webhook.go:342-352@v0.18.4: negative nominal and lendingLimit > nominal both checked
    ("negative nominal, lendingLimit above it", CQ2 + "  cohortName: c\n" + rg('nominalQuota: "-1"\n'
     '        lendingLimit: "0"'), [("PD108", f"{RES}.nominalQuota"), ("PD110", f"{RES}.lendingLimit")]),
    # -- PD4xx ---------------------------------------------------------------------------------------
    ("enum queueingStrategy", CQ2 + "  queueingStrategy: FIFO\n", [("PD401", "spec.queueingStrategy")]),
    ("enum stopPolicy", CQ2 + "  stopPolicy: Stop\n", [("PD401", "spec.stopPolicy")]),
    ("enum preemption", CQ2 + "  preemption:\n    withinClusterQueue: Always\n    reclaimWithinCohort: Any\n",
     [("PD401", "spec.preemption.withinClusterQueue")]),
    ("v1beta2 refuses Borrow", CQ2 + "  flavorFungibility: {whenCanBorrow: Borrow}\n",
     [("PD401", "spec.flavorFungibility.whenCanBorrow")]),
    ("v1beta1 accepts Borrow", CQ1 + "  flavorFungibility: {whenCanBorrow: Borrow}\n", []),
    ("enum admissionMode", CQ2 + "  admissionScope: {admissionMode: Fair}\n",
     [("PD401", "spec.admissionScope.admissionMode")]),
    # clusterqueue_webhook_test.go:55@v0.18.4 "invalid resource name"
    ("resource name @cpu", CQ2 + rg(res='"@cpu"'), [("PD402", "spec.resourceGroups[0].coveredResources[0]")]),
    ("resource example.com/gpu", CQ2 + rg(res="example.com/gpu"), []),
    ("flavor name", CQ2 + rg(flavor="GPU_A"), [("PD402", "spec.resourceGroups[0].flavors[0].name")]),
    ("cohort name", CQ2 + "  cohortName: Team_A\n", [("PD402", "spec.cohortName")]),
    ("cohort parentName", CO2 + "  parentName: Root!\n", [("PD402", "spec.parentName")]),
    # clusterqueue_webhook_test.go:187,197@v0.18.4
    ("namespaceSelector label key", CQ2 + "  namespaceSelector:\n    matchLabels: {'nospecialchars^=@': bar}\n",
     [("PD403", "spec.namespaceSelector.matchLabels")]),
    ("namespaceSelector In without values", CQ2 + "  namespaceSelector:\n    matchExpressions:\n"
     "    - {key: key, operator: In}\n", [("PD403", "spec.namespaceSelector.matchExpressions[0].values")]),
    ("namespaceSelector Exists with values", CQ2 + "  namespaceSelector:\n    matchExpressions:\n"
     "    - {key: key, operator: Exists, values: [x]}\n",
     [("PD403", "spec.namespaceSelector.matchExpressions[0].values")]),
    ("namespaceSelector operator", CQ2 + "  namespaceSelector:\n    matchExpressions:\n"
     "    - {key: key, operator: Equals, values: [x]}\n",
     [("PD403", "spec.namespaceSelector.matchExpressions[0].operator")]),
    # the CRD's CEL on spec.preemption; reclaimWithinCohort defaults to Never
    ("reclaim Never, borrowWithinCohort LowerPriority", CQ2 + "  preemption:\n    reclaimWithinCohort: Never\n"
     "    borrowWithinCohort: {policy: LowerPriority}\n", [("PD404", "spec.preemption")]),
    ("borrowWithinCohort with the default reclaim", CQ2 + "  preemption:\n"
     "    borrowWithinCohort: {policy: LowerPriority}\n", [("PD404", "spec.preemption")]),
    # clusterqueue_webhook_test.go:297@v0.18.4 "valid preemption with borrowWithinCohort"
    ("reclaim LowerPriority, borrowWithinCohort LowerPriority", CQ2 + "  preemption:\n"
     "    reclaimWithinCohort: LowerPriority\n    borrowWithinCohort: {policy: LowerPriority}\n", []),
    # clusterqueue_webhook_test.go:327,341,355@v0.18.4
    ("preference with whenCanPreempt MayStopSearch", CQ2 + "  flavorFungibility: {whenCanBorrow: TryNextFlavor, "
     "whenCanPreempt: MayStopSearch, preference: BorrowingOverPreemption}\n", [("PD405", "spec.flavorFungibility")]),
    ("preference with default whenCanBorrow", CQ2 + "  flavorFungibility: {preference: PreemptionOverBorrowing}\n",
     [("PD405", "spec.flavorFungibility")]),
    ("preference with both TryNextFlavor", CQ2 + "  flavorFungibility: {whenCanBorrow: TryNextFlavor, "
     "whenCanPreempt: TryNextFlavor, preference: BorrowingOverPreemption}\n", []),
    # common.go:43-60@v0.18.4 validateFairSharing
    ("negative weight", CQ2 + '  fairSharing: {weight: "-1"}\n', [("PD406", "spec.fairSharing")]),
    ("tiny weight", CQ2 + '  fairSharing: {weight: "1n"}\n', [("PD406", "spec.fairSharing")]),
    ("zero weight", CQ2 + "  fairSharing: {weight: 0}\n", []),
    ("cohort tiny weight", CO2 + '  fairSharing: {weight: "1n"}\n', [("PD406", "spec.fairSharing")]),
    # clusterqueue_webhook_test.go:78@v0.18.4 "admissionCheckStrategy refers to a flavor that is not in quota"
    ("onFlavors names a flavor the queue lacks", CQ2 + rg() + "  admissionChecksStrategy:\n    admissionChecks:\n"
     "    - {name: ac1, onFlavors: [a, flavor1]}\n",
     [("PD407", "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[1]")]),
    ("empty admission checks", CQ2 + "  admissionChecksStrategy: {admissionChecks: []}\n",
     [("PD408", "spec.admissionChecksStrategy.admissionChecks")]),
    ("admissionChecksStrategy without admissionChecks", CQ2 + "  admissionChecksStrategy: {}\n",
     [("PD408", "spec.admissionChecksStrategy.admissionChecks")]),
]


@pytest.mark.parametrize(("manifest", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_case(manifest: str, want: list[tuple[str, str]]) -> None:
    assert found(lint(manifest)) == want


def test_api_server_wording() -> None:
    """The messages quote the API server (apiextensions-apiserver validation_test.go; apimachinery field errors)."""
    [f] = lint(CO2 + rg("nominalQuota: 2.5")).findings
    assert f.message == (f'Invalid value: "number": {RES}.nominalQuota in body must be of type integer,string: '
                         '"number"')
    [e] = lint(CQ2 + "  queueingStrategy: FIFO\n").findings
    assert e.message == 'Unsupported value: "FIFO": supported values: "StrictFIFO", "BestEffortFIFO"'
    assert e.kueue_message == 'spec.queueingStrategy: ' + e.message
    [p] = lint(CQ2 + "  preemption:\n    borrowWithinCohort: {policy: LowerPriority}\n").findings
    assert p.kueue_message == ('spec.preemption: Invalid value: "object": reclaimWithinCohort=Never and '
                               'borrowWithinCohort.Policy!=Never')
    [o] = lint(CQ2 + rg() + "  admissionChecksStrategy:\n    admissionChecks:\n    - {name: x, onFlavors: [b]}\n"
               ).findings
    assert o.message.startswith('Unsupported value: "b": supported values: "a"')
    [w] = lint(CQ2 + '  fairSharing: {weight: "1n"}\n').findings
    assert w.message.startswith('Invalid value: "1n": When not 0, weight must be > 10e-9')
    [u] = lint(CQ1 + "  cohortName: c\n").findings
    assert u.message.startswith('strict decoding error: unknown field "spec.cohortName"')
    [n] = lint(CQ2 + "  namespaceSelector:\n    matchExpressions:\n    - {key: k, operator: In}\n").findings
    assert n.message == "Required value: must be specified when `operator` is 'In' or 'NotIn'"


def test_cohort_keeps_per_group_limits() -> None:
    """The CRD's maxItems apply to Cohorts too (kueue.x-k8s.io_cohorts.yaml@v0.18.4): 65 flavors in one group."""
    text = CO2 + "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n" + "".join(
        f"    - name: f{i}\n      resources:\n      - name: cpu\n        nominalQuota: 1\n" for i in range(65))
    assert found(lint(text)) == [("PD104", "spec.resourceGroups[0].flavors")]


def test_concurrent_admission_only_with_the_gate() -> None:
    """clusterqueue_webhook.go:231@v0.18.4: checked only when the ConcurrentAdmission gate is on."""
    text = (CQ2 + "  queueingStrategy: StrictFIFO\n  concurrentAdmissionPolicy:\n"
            "    migration: {mode: TryPreferredFlavors}\n")
    assert found(lint(text)) == []
    gated = found(lint(text, LintContext(feature_gates={"ConcurrentAdmission": True})))
    assert gated == [("PD410", "spec.resourceGroups"), ("PD410", "spec.queueingStrategy")]


# resourceflavor_webhook.go ValidateResourceFlavor@v0.18.4 (refusals confirmed by the real API server, 4c)
@pytest.mark.parametrize(("spec", "expected"), [
    ({"nodeLabels": {"pool": "h100"}}, []),
    ({"nodeLabels": {"bad key!": "x"}}, [("PD411", "spec.nodeLabels")]),
    ({"nodeLabels": {"pool": "not a value"}}, [("PD411", "spec.nodeLabels")]),
    ({"nodeTaints": [{"key": "gpu", "value": "x", "effect": "NoSchedule"},
                     {"key": "gpu", "value": "y", "effect": "NoSchedule"}]}, [("PD411", "spec.nodeTaints[1]")]),
    ({"nodeTaints": [{"key": "gpu", "effect": "NoSchedule"}, {"key": "gpu", "effect": "NoExecute"}]}, []),
    ({"tolerations": [{"key": "gpu", "operator": "Exists", "value": "x"}]},
     [("PD411", "spec.tolerations[0].operator")]),
    ({"tolerations": [{"operator": "Equal", "value": "x"}]}, [("PD411", "spec.tolerations[0].operator")]),
    ({"tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]},
     [("PD411", "spec.tolerations[0].effect")]),
    ({"tolerations": [{"operator": "Exists"}]}, []),
])
def test_resource_flavor_webhook(spec: dict, expected: list) -> None:
    from kubectl_pd.lint.findings import ObjectRef, format_path
    from kubectl_pd.lint.kueue_facts import check_resource_flavor

    obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}, "spec": spec}
    got = check_resource_flavor(obj, ObjectRef("ResourceFlavor", "f", None))
    assert [(f.rule_id, format_path(f.path)) for f in got] == expected
