"""Property: lint reports PD101/PD102 exactly where Kueue's webhook would refuse with `Duplicate value`.

The oracle below is a faithful model of Kueue's `validateResourceGroups` (reference/kueue.md §5.2):
`seenResources` and `seenFlavors` are created once, before the loop over groups, so a repeat is caught
within a group and across groups, and the error is attached to the later occurrence.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import lint_objects

RESOURCES = st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "credits.gpustack.ai/nvidia"])
FLAVOR_NAMES = st.sampled_from(["f0", "f1", "f2", "f3", "f4", "f5"])


@st.composite
def resource_groups(draw: st.DrawFn) -> list[dict[str, Any]]:
    groups = []
    for _ in range(draw(st.integers(0, 5))):
        covered = draw(st.lists(RESOURCES, min_size=1, max_size=3))
        names = draw(st.lists(FLAVOR_NAMES, min_size=1, max_size=4))
        flavors = [{"name": n, "resources": [{"name": r, "nominalQuota": "1"} for r in covered]} for n in names]
        groups.append({"coveredResources": covered, "flavors": flavors})
    return groups


def kueue_duplicate_errors(groups: list[dict[str, Any]]) -> list[str]:
    """Kueue's Duplicate-value errors for coveredResources and flavor names, as field paths."""
    errors: list[str] = []
    seen_resources: set[str] = set()  # declared outside the per-group loop, as in Kueue
    seen_flavors: set[str] = set()
    for i, rg in enumerate(groups):
        for j, name in enumerate(rg["coveredResources"]):
            if name in seen_resources:
                errors.append(f"spec.resourceGroups[{i}].coveredResources[{j}]")
            seen_resources.add(name)
        for j, fq in enumerate(rg["flavors"]):
            if fq["name"] in seen_flavors:
                errors.append(f"spec.resourceGroups[{i}].flavors[{j}].name")
            seen_flavors.add(fq["name"])
    return errors


@settings(max_examples=400, deadline=None)
@given(resource_groups())
def test_pd101_pd102_exactly_when_kueue_refuses(groups: list[dict[str, Any]]) -> None:
    queue = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"},
             "spec": {"resourceGroups": groups}}
    result = lint_objects([queue], LintContext())
    reported = [f.path_text for f in result.findings if f.rule_id in ("PD101", "PD102")]
    expected = kueue_duplicate_errors(groups)
    assert sorted(reported) == sorted(expected)
    assert bool(reported) == bool(expected)
    for f in result.findings:
        if f.rule_id in ("PD101", "PD102"):
            assert f.kueue_message.startswith(f"{f.path_text}: Duplicate value: ")
