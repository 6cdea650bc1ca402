"""Kubernetes' quantity and lists CEL libraries, declared into cel-expr-python (lint/schema/k8s_cel.py)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kubectl_pd.lint.findings import format_path
from kubectl_pd.lint.schema import cel
from kubectl_pd.lint.schema.crds import SchemaIndex
from kubectl_pd.lint.schema.validate import validate
from tests.conftest import FIXTURES
from tests.test_lint_schema import _kueue_crds, crd_sources

SUBSET = FIXTURES / "lint" / "crds" / "clusterqueues-subset.yaml"

# (rule, self, the value Kubernetes' CEL gives)
VALUES = [
    ('quantity(self).isGreaterThan(quantity("1"))', "2", True),
    ('quantity(self).isLessThan(quantity("1"))', "500m", True),
    ('quantity(self) == quantity("1000m")', "1", True),  # equal values, as Quantity.Equal has it
    ('quantity(self).compareTo(quantity("1Ki"))', "1024", 0),
    ('quantity(self).compareTo(quantity("1k"))', "1Ki", 1),
    ("quantity(self).sign()", "-3", -1),
    ("quantity(self).sign()", "0", 0),
    ("quantity(self).isInteger()", "1.5", False),
    ("quantity(self).isInteger()", "2k", True),
    ("quantity(self).isInteger()", "10E", False),  # beyond int64
    ("quantity(self).asInteger()", "2Gi", 2 * 2**30),
    ("quantity(self).asApproximateFloat()", "250m", 0.25),
    ('quantity(self).add(quantity("500m")) == quantity("1.5")', "1", True),
    ('quantity(self).add(2) == quantity("3")', "1", True),
    ('quantity(self).sub(quantity("1")).sign()', "500m", -1),
    ('quantity(self).sub(1).isInteger()', "3", True),
    ("quantity(self).isGreaterThan(quantity('0'))", "0.1n", True),  # rounded up to 1n, as Kubernetes does
    ("isQuantity(self)", "1.5Gi", True),
    ("isQuantity(self)", "1.5 Gi", False),
    ("isQuantity(self)", " 1", False),
    ("self.isSorted()", [1, 2, 2, 5], True),
    ("self.isSorted()", ["b", "a"], False),
    ("self.map(x, quantity(x)).isSorted()", ["500m", "1", "2Ki"], True),
    ("self.map(x, quantity(x)).isSorted()", ["1", "500m"], False),
    ("self.sum()", [1, 2, 3], 6),
    ("self.min()", [3, 1, 2], 1),
    ("self.max()", [1.5, 0.5], 1.5),
    ('self.map(x, quantity(x)).sum() == quantity("1.5")', ["1", "500m"], True),
    ('self.indexOf("b")', ["a", "b", "b"], 1),
    ('self.lastIndexOf("b")', ["a", "b", "b"], 2),
    ("self.indexOf(9)", [1, 2], -1),
]


def _value(rule: str, obj: Any) -> Any:
    env = cel._environment()
    return env.compile(rule).eval(data={"self": obj}).value()


@pytest.mark.parametrize(("rule", "obj", "want"), VALUES, ids=[f"{v[0]} <- {v[1]!r}" for v in VALUES])
def test_library_values(rule: str, obj: Any, want: Any) -> None:
    assert _value(rule, obj) == want


@pytest.mark.parametrize(("rule", "obj"), [
    ("quantity(self).isInteger()", "1x"),  # not a quantity: an evaluation error, as in Kubernetes
    ("quantity(self).asInteger() > 0", "1.5"),  # not an integer
    ("self.min() > 0", []),  # min of nothing
])
def test_library_errors_are_runtime_errors_never_verdicts(rule: str, obj: Any) -> None:
    ok, why, failure = cel.evaluate(rule, obj)
    assert (ok, failure) == (None, cel.RUNTIME) and why


def _subset() -> SchemaIndex:
    index = SchemaIndex()
    index.add(yaml.safe_load(SUBSET.read_text()), "test")
    return index


QUEUE = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"},
         "spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
             {"name": "default", "resources": [{"name": "cpu", "nominalQuota": 8}]}]}]}}


@pytest.mark.parametrize(("weight", "fails"), [(2, False), ("500m", False), ("1n", False), (0, True), ("0", True),
                                               ("-1", True)])
def test_fixture_quantity_rule_passes_and_fails(weight: Any, fails: bool) -> None:
    """The subset CRD's fair-sharing rule: `quantity(string(weight)).isGreaterThan(quantity('0'))`."""
    obj = {**QUEUE, "spec": {**QUEUE["spec"], "fairSharing": {"weight": weight}}}
    out = validate(obj, _subset().schema_for(obj))
    assert out.unchecked == []
    got = [(format_path(v.path), v.message) for v in out.violations if v.cel]
    assert got == ([("spec", 'Invalid value: "object": weight must be positive')] if fails else [])


LIST_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "t.g.io"},
    "spec": {"group": "g.io", "names": {"kind": "Tiers"}, "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"type": "object", "properties": {
            "thresholds": {"type": "array", "items": {"type": "string"},
                           "x-kubernetes-validations": [
                               {"rule": "self.map(t, quantity(t)).isSorted()", "message": "must be ascending"},
                               {"rule": "self.all(t, isQuantity(t))", "message": "must be quantities"}]},
            "limit": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}],
                      "x-kubernetes-validations": [
                          {"rule": "quantity(string(self)).isLessThan(quantity('64Gi'))",
                           "message": "at most 64Gi", "reason": "FieldValueForbidden"}]}}}}}}}]}}


@pytest.mark.parametrize(("spec", "want"), [
    ({"thresholds": ["1Gi", "2Gi", "4Gi"], "limit": "8Gi"}, []),
    ({"thresholds": ["2Gi", "1Gi"], "limit": 1024}, [("spec.thresholds", 'Invalid value: "array": must be ascending')]),
    ({"thresholds": ["1Gi"], "limit": "64Gi"}, [("spec.limit", "Forbidden: at most 64Gi")]),
])
def test_a_crd_using_the_libraries(spec: dict[str, Any], want: list[tuple[str, str]]) -> None:
    index = SchemaIndex()
    index.add(LIST_CRD, "test")
    obj = {"apiVersion": "g.io/v1", "kind": "Tiers", "metadata": {"name": "t"}, "spec": spec}
    out = validate(obj, index.schema_for(obj))
    assert out.unchecked == []
    assert [(format_path(v.path), v.message) for v in out.violations] == want


@pytest.mark.parametrize("source", crd_sources("v0.18.4", "v0.19.2"))
def test_every_rule_of_kueues_crds_compiles(source: str) -> None:
    """Declaring Kubernetes' functions must not break a standard rule: every rule of Kueue's CRDs compiles
    (our excerpt's, and with PD_KUEUE_SRC the real ones: more than 30 at 0.18 and 0.19).

    (Kueue's own CRDs use no Kubernetes-only function at these tags; the library is for the operators
    and newer Kueues that do, e.g. the subset CRD's quantity rule above.)
    """
    rules: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            rules.update(r["rule"] for r in node.get("x-kubernetes-validations") or [])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    crds = _kueue_crds(source)
    for crd in crds.values():
        walk(crd)
    assert len(rules) > (30 if len(crds) >= 10 else 1)  # all of a release's CRDs, or just some
    env = cel._environment()
    failed = []
    for r in sorted(rules):
        if "oldSelf" in r:
            continue
        try:
            env.compile(r)
        except RuntimeError as e:
            failed.append((r, str(e).splitlines()[0]))
    assert failed == []
