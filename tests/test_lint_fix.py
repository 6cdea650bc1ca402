"""The canonical fix: --fix -o patch applied with jsonpatch to the original object lints clean;
--fix yaml and --diff; and what no rewrite can repair is said, not invented."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonpatch
import yaml

from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import lint_objects
from kubectl_pd.lint.fix import canonical_groups, plan_fix, resource_groups_patch
from tests.builders import CREDITS, flavor_quotas, gpustack_queue, queue_of_groups, resource_group
from tests.conftest import FIXTURES, ROOT

SPLIT = ROOT / "examples" / "lint" / "gpustack-split-queue.yaml"
SEVENTY = ROOT / "examples" / "lint" / "gpustack-70-flavors.yaml"
V1BETA1 = FIXTURES / "lint" / "v1beta1-split.yaml"


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_patch_applied_to_original_lints_clean(cli: Callable, tmp_path: Path) -> None:
    res = cli(["lint", "-f", str(SPLIT), "--fix", "-o", "patch"])
    assert res.exit_code == 0, res.stderr
    [entry] = json.loads(res.stdout)
    assert {k: entry[k] for k in ("apiVersion", "kind", "name", "namespace")} == {
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
        "name": "gpustack--nvidia-h20-linux-amd64", "namespace": None}
    assert all(op["op"] in ("add", "remove", "replace", "move", "copy", "test") for op in entry["patch"])
    [original] = _docs(SPLIT)
    fixed = jsonpatch.apply_patch(original, entry["patch"])
    # one group, every flavor kept in the order buildResourceGroups listed them
    want = [f["name"] for g in original["spec"]["resourceGroups"] for f in g["flavors"]]
    [only] = fixed["spec"]["resourceGroups"]
    assert only["coveredResources"] == [CREDITS] and [f["name"] for f in only["flavors"]] == want
    assert fixed["metadata"] == original["metadata"]
    out = tmp_path / "fixed.yaml"
    out.write_text(yaml.safe_dump(fixed))
    again = cli(["lint", "-f", str(out)])
    assert again.exit_code == 0 and "no findings in 1 object" in again.stdout


def test_fix_yaml_output_lints_clean_and_keeps_v1beta1_fields(cli: Callable, tmp_path: Path) -> None:
    res = cli(["lint", "-f", str(V1BETA1), "--fix"])
    assert res.exit_code == 0, res.stderr
    [fixed] = list(yaml.safe_load_all(res.stdout))
    assert fixed["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert list(fixed["spec"])[:3] == ["cohort", "admissionChecks", "namespaceSelector"]
    [g] = fixed["spec"]["resourceGroups"]
    assert [f["name"] for f in g["flavors"]] == ["a", "b", "c"]  # the repeated `a` dropped
    assert all([r["name"] for r in f["resources"]] == ["cpu", "memory"] for f in g["flavors"])
    assert "merged spec.resourceGroups[1]" in res.stderr and "dropped the repeated flavor 'a'" in res.stderr
    p = tmp_path / "fixed.yaml"
    p.write_text(res.stdout)
    assert cli(["lint", "-f", str(p)]).exit_code == 0
    # and the JSON patch applies to the v1beta1 original just as well
    patch = json.loads(cli(["lint", "-f", str(V1BETA1), "--fix", "-o", "patch"]).stdout)[0]["patch"]
    assert jsonpatch.apply_patch(_docs(V1BETA1)[0], patch) == fixed


def test_fix_json_is_a_list(cli: Callable) -> None:
    res = cli(["lint", "-f", str(SPLIT), "--fix", "-o", "json"])
    doc = json.loads(res.stdout)
    assert doc["kind"] == "List" and len(doc["items"]) == 1
    assert len(doc["items"][0]["spec"]["resourceGroups"]) == 1


def test_seventy_flavors_has_no_invented_fix(cli: Callable) -> None:
    res = cli(["lint", "-f", str(SEVENTY), "--fix"])
    assert res.exit_code == 1
    assert res.stdout == ""
    assert "no automatic fix" in res.stderr and "PD104 too-many-flavors" in res.stderr
    assert "70 flavors" in res.stderr
    patch = cli(["lint", "-f", str(SEVENTY), "--fix", "-o", "patch"])
    assert json.loads(patch.stdout) == [] and patch.exit_code == 1


def test_diff_shows_the_merge(cli: Callable) -> None:
    res = cli(["lint", "-f", str(SPLIT), "--diff"])
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    assert lines[0] == "--- a/ClusterQueue/gpustack--nvidia-h20-linux-amd64"
    assert lines[1] == "+++ b/ClusterQueue/gpustack--nvidia-h20-linux-amd64"
    removed = [ln for ln in lines if ln.startswith("-") and not ln.startswith("---")]
    assert removed == ["-  - coveredResources:", "-    - credits.gpustack.ai/nvidia", "-    flavors:"]
    assert not any(ln.startswith("+") and not ln.startswith("+++") for ln in lines)


def test_diff_of_clean_input_is_empty_exit_0(cli: Callable) -> None:
    res = cli(["lint", "-f", str(FIXTURES / "lint" / "clean.yaml"), "--diff"])
    assert (res.exit_code, res.stdout) == (0, "")


def test_fix_with_missing_flavor_still_fixes_and_says_what_remains() -> None:
    q = gpustack_queue(18)
    rf = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "other"}}
    ctx = LintContext(flavors={"other": rf})
    fx = plan_fix(q, ctx)
    assert fx.after is not None and len(fx.after["spec"]["resourceGroups"]) == 1
    assert {f.rule_id for f in fx.remaining} == {"PD111"}


def test_canonical_groups_unit() -> None:
    groups = [resource_group(["cpu", "memory"], ["a", "b"]), resource_group(["gpu"], ["g"]),
              resource_group(["memory", "cpu"], [flavor_quotas("c", ["memory", "cpu"]),
                                                 flavor_quotas("a", ["memory", "cpu"])])]
    out, changes = canonical_groups(groups)
    assert [g["coveredResources"] for g in out] == [["cpu", "memory"], ["gpu"]]
    assert [f["name"] for f in out[0]["flavors"]] == ["a", "b", "c"]
    assert [r["name"] for r in out[0]["flavors"][2]["resources"]] == ["cpu", "memory"]
    assert len(changes) == 3
    assert groups[2]["coveredResources"] == ["memory", "cpu"]  # input untouched
    assert lint_objects([queue_of_groups(groups=out)], LintContext()).findings == []


def test_overlapping_groups_are_not_rewritten() -> None:
    q = queue_of_groups(groups=[resource_group(["cpu", "memory"], ["a"]), resource_group(["memory"], ["b"])])
    fx = plan_fix(q, LintContext())
    assert fx.after is None and [f.rule_id for f in fx.remaining] == ["PD101"]


def test_patch_falls_back_to_replace_only_when_needed() -> None:
    before = [resource_group(["cpu"], ["a"]), resource_group(["cpu"], ["b"])]
    after, _ = canonical_groups(before)
    ops = resource_groups_patch(before, after)
    assert jsonpatch.apply_patch({"spec": {"resourceGroups": before}}, ops) == {"spec": {"resourceGroups": after}}
