"""CI outputs of `kubectl pd lint`: --baseline / --write-baseline, -o junit, -o github, --feature-gates."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.conftest import ROOT, run_kubectl

EXAMPLES = ROOT / "examples" / "lint"
SPLIT = EXAMPLES / "gpustack-split-queue.yaml"
TEAM = EXAMPLES / "team-queues.yaml"

NEW_QUEUE = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: newcomer}
spec:
  queueingStrategy: FIFO
"""


def test_baseline_round_trip_ignores_line_moves(cli: Callable, tmp_path: Path) -> None:
    queues = tmp_path / "queues.yaml"
    queues.write_text(TEAM.read_text())
    base = tmp_path / "lint-baseline.json"
    wrote = cli(["lint", "-f", str(queues), "--write-baseline", str(base)])
    assert wrote.exit_code == 0 and "wrote 8 findings" in wrote.stderr
    doc = json.loads(base.read_text())
    assert doc["kind"] == "kubectl-pd-lint-baseline" and len(doc["findings"]) == 8
    assert {"id", "object", "path"} == set(doc["findings"][0]) and "line" not in doc["findings"][0]
    # the same findings, every line moved down: nothing new
    queues.write_text("# a comment\n# and another\n" + TEAM.read_text())
    again = cli(["lint", "-f", str(queues), "--baseline", str(base), "-o", "json"])
    assert again.exit_code == 0, again.stdout
    out = json.loads(again.stdout)
    assert out["findings"] == [] and out["summary"]["baselined"] == 8
    # a new object with a new finding: only it is reported, and it fails the run
    queues.write_text(TEAM.read_text() + NEW_QUEUE)
    new = cli(["lint", "-f", str(queues), "--baseline", str(base), "-o", "json"])
    assert new.exit_code == 1
    assert [(f["id"], f["object"]["name"], f["path"]) for f in json.loads(new.stdout)["findings"]] == [
        ("PD401", "newcomer", "spec.queueingStrategy")]


def test_baseline_says_when_findings_are_gone(cli: Callable, tmp_path: Path) -> None:
    base = tmp_path / "b.json"
    cli(["lint", "-f", str(SPLIT), "--write-baseline", str(base)])
    res = cli(["lint", "-f", str(TEAM), "--baseline", str(base)])
    assert "2 findings in" in res.stderr and "no longer occur" in res.stderr


def test_bad_baseline_is_one_line_exit_2(cli: Callable, tmp_path: Path) -> None:
    for text in ("{not json", '{"kind": "other"}', '{"kind": "kubectl-pd-lint-baseline", "findings": [{}]}'):
        b = tmp_path / "b.json"
        b.write_text(text)
        res = cli(["lint", "-f", str(SPLIT), "--baseline", str(b)])
        assert res.exit_code == 2 and res.stdout == "" and "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error: ")
    missing = cli(["lint", "-f", str(SPLIT), "--baseline", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and len(missing.stderr.strip().splitlines()) == 1


def test_junit_one_case_per_object_and_rule(cli: Callable) -> None:
    res = cli(["lint", "-f", str(EXAMPLES), "-o", "junit"])
    assert res.exit_code == 1
    root = ET.fromstring(res.stdout)
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases) and int(root.get("tests")) == len(cases)
    failed = [c for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures")) == len(failed) > 0
    keys = [(c.get("file"), c.get("classname"), c.get("name").split()[0]) for c in failed]
    assert len(keys) == len(set(keys))  # one case per object and rule
    split = [c for c in failed if c.get("classname") == "ClusterQueue/gpustack--nvidia-h20-linux-amd64"
             and c.get("file") == str(SPLIT)]
    assert {"PD101 duplicate-covered-resource", "PD201 gpustack-single-group"} <= {c.get("name") for c in split}
    pd101 = next(c for c in split if c.get("name").startswith("PD101"))
    assert pd101.get("file") == str(SPLIT) and pd101.get("line") == "88"
    assert pd101.find("failure").get("message").startswith("spec.resourceGroups[1].coveredResources[0]: ")
    assert pd101.find("failure").get("type") == "error"


def test_junit_clean_object_is_a_passing_case(cli: Callable, tmp_path: Path) -> None:
    q = tmp_path / "q.yaml"
    q.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: ok}\nspec: {}\n")
    res = cli(["lint", "-f", str(q), "-o", "junit"])
    assert res.exit_code == 0
    [case] = ET.fromstring(res.stdout).iter("testcase")
    assert case.get("classname") == "ClusterQueue/ok" and case.find("failure") is None


GH_RE = re.compile(r"^::(?P<level>error|warning) file=(?P<file>[^,]+),line=(?P<line>\d+),title=(?P<title>[^:]+)::"
                   r"(?P<msg>.+)$")


def test_github_annotations(cli: Callable) -> None:
    res = cli(["lint", "-f", str(SPLIT), "-o", "github"])
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    parsed = [GH_RE.match(line) for line in lines[:-1]]
    assert all(parsed), lines
    assert [(m["level"], m["title"].split()[0], m["line"]) for m in parsed] == [("error", "PD201", "87"),
                                                                             ("error", "PD101", "88")]
    assert parsed[1]["file"] == str(SPLIT)
    assert parsed[1]["msg"].startswith('spec.resourceGroups[1].coveredResources[0]: Duplicate value: "credits')
    assert "%2C" not in parsed[1]["msg"] and "\n" not in parsed[1]["msg"]
    assert lines[-1].startswith("2 errors")


def test_feature_gates_flag(cli: Callable, tmp_path: Path) -> None:
    q = tmp_path / "q.yaml"
    q.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n"
                 "  queueingStrategy: StrictFIFO\n  concurrentAdmissionPolicy:\n"
                 "    migration: {mode: TryPreferredFlavors}\n")
    assert cli(["lint", "-f", str(q)]).exit_code == 0
    on = cli(["lint", "-f", str(q), "--feature-gates", "ConcurrentAdmission=true", "-o", "json"])
    assert on.exit_code == 1
    assert {f["id"] for f in json.loads(on.stdout)["findings"]} == {"PD410"}
    bad = cli(["lint", "-f", str(q), "--feature-gates", "ConcurrentAdmission"])
    assert bad.exit_code == 2 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("args", [["--baseline", "B", "--fix"], ["--baseline", "B", "--diff"],
                                  ["--fix", "-o", "patch", "--baseline", "B"], ["--write-baseline", "B", "--diff"],
                                  ["--write-baseline", "B", "--fix"]])
def test_baseline_with_fix_or_diff_is_a_usage_error(cli: Callable, tmp_path: Path, args: list[str]) -> None:
    """Refused, not silently ignored: one `error:` line, exit 2, nothing on stdout, no file read or written."""
    base = tmp_path / "base.json"
    res = cli(["lint", "-f", str(SPLIT), *[str(base) if a == "B" else a for a in args]])
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.startswith("error: --") and len(res.stderr.strip().splitlines()) == 1
    assert "baseline does not go with --" in res.stderr
    assert not base.exists()


def test_baseline_with_fix_through_the_real_kubectl(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    assert run_kubectl(["pd", "lint", "-f", str(SPLIT), "--write-baseline", str(base)]).returncode == 0
    p = run_kubectl(["pd", "lint", "-f", str(SPLIT), "--baseline", str(base), "--diff"])
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr.startswith("error: --baseline does not go with --diff")
