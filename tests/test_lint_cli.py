"""`kubectl pd lint -f`: output formats, exit codes, flags, malformed input, and the real kubectl."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import yaml

from kubectl_pd.lint.rules import all_rules
from tests.conftest import FIXTURES, ROOT, run_kubectl

EXAMPLES = ROOT / "examples" / "lint"
SPLIT = EXAMPLES / "gpustack-split-queue.yaml"
TEAM = EXAMPLES / "team-queues.yaml"
POOL = EXAMPLES / "gpustack-pool.yaml"
CLEAN = FIXTURES / "lint" / "clean.yaml"
WARN = FIXTURES / "lint" / "warning-only.yaml"

LINE_RE = re.compile(r"^(?P<loc>\S+): (?P<sev>error|warning) (?P<id>PD\d{3}) (?P<name>[a-z0-9-]+) "
                     r"(?P<obj>[A-Za-z]+/\S+) (?P<path>\S+): (?P<msg>.+)$")


def test_text_output_format(cli: Callable) -> None:
    res = cli(["lint", "-f", str(SPLIT)])
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    m = LINE_RE.match(lines[1])
    assert m, lines[1]
    assert m["loc"] == f"{SPLIT}:88" and m["id"] == "PD101" and m["name"] == "duplicate-covered-resource"
    assert m["obj"] == "ClusterQueue/gpustack--nvidia-h20-linux-amd64"
    assert m["path"] == "spec.resourceGroups[1].coveredResources[0]"
    # Kueue's own refusal, verbatim, inside the line
    assert 'spec.resourceGroups[1].coveredResources[0]: Duplicate value: "credits.gpustack.ai/nvidia"' in lines[1]
    assert lines[-1] == "2 errors, 0 warnings in 1 object (1 ClusterQueue)"
    assert "\x1b[" not in res.stdout  # no colour off a terminal


def test_every_rule_family_in_examples_and_skipped_kinds(cli: Callable) -> None:
    res = cli(["lint", "-f", str(EXAMPLES)])
    ids = set(re.findall(r" (PD\d{3}) ", res.stdout))
    assert {"PD101", "PD102", "PD106", "PD108", "PD109", "PD110", "PD111", "PD112", "PD201", "PD202",
            "PD302", "PD303", "PD304", "PD305", "PD306"} <= ids
    assert "1 object of other kinds skipped (1 ConfigMap)" in res.stdout
    assert "1 suppressed" in res.stdout
    assert "ModelDeployment/team-a/llama-pd" in res.stdout


def test_json_and_yaml_documents(cli: Callable) -> None:
    res = cli(["lint", "-f", str(TEAM), "-o", "json"])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert set(doc) == {"schemaVersion", "findings", "summary"}
    f = doc["findings"][0]
    assert {"id", "rule", "severity", "object", "file", "line", "path", "message"} <= set(f)
    assert f["object"] == {"kind": "ClusterQueue", "name": "team-a", "namespace": None}
    assert f["file"] == str(TEAM) and isinstance(f["line"], int)
    assert doc["summary"]["errors"] == len(doc["findings"]) == 8
    assert doc["summary"]["skippedKinds"] == {"ConfigMap": 1}
    y = yaml.safe_load(cli(["lint", "-f", str(TEAM), "-o", "yaml"]).stdout)
    assert y == doc


def test_sarif_structure(cli: Callable) -> None:
    res = cli(["lint", "-f", str(SPLIT), "-o", "sarif"])
    assert res.exit_code == 1
    sarif = json.loads(res.stdout)
    assert sarif["version"] == "2.1.0" and "sarif" in sarif["$schema"]
    [run] = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "kubectl-pd"
    assert [r["id"] for r in driver["rules"]] == [r.id for r in all_rules()]
    for r in driver["rules"]:
        assert r["name"] and r["shortDescription"]["text"] and r["help"]["text"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning")
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["PD201", "PD101"]
    for r in results:
        assert r["level"] == "error"
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == str(SPLIT) and loc["region"]["startLine"] > 0
        assert r["message"]["text"].startswith("spec.resourceGroups[1]")


def test_exit_codes_clean_warning_strict(cli: Callable) -> None:
    clean = cli(["lint", "-f", str(CLEAN)])
    assert clean.exit_code == 0 and clean.stdout.strip() == \
        "no findings in 2 objects (1 ClusterQueue, 1 ModelDeployment)"
    warn = cli(["lint", "-f", str(WARN)])
    assert warn.exit_code == 0 and "warning PD203 gpustack-credit-multiple" in warn.stdout
    assert cli(["lint", "-f", str(WARN), "--strict"]).exit_code == 1


def test_kueue_version_switches_limits(cli: Callable, tmp_path: Path) -> None:
    names = [f"f{i}" for i in range(20)]
    q = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"},
         "spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
             {"name": n, "resources": [{"name": "cpu", "nominalQuota": "1"}]} for n in names]}]}}
    p = tmp_path / "q.yaml"
    p.write_text(yaml.safe_dump(q))
    assert cli(["lint", "-f", str(p), "--kueue-version", "0.18"]).exit_code == 0
    old = cli(["lint", "-f", str(p), "--kueue-version", "v0.13.1"])
    assert old.exit_code == 1 and "PD104 too-many-flavors" in old.stdout and "at most 16 items" in old.stdout


def test_api_profile_flag(cli: Callable) -> None:
    atomic = cli(["lint", "-f", str(POOL)])
    assert "PD303" in atomic.stdout
    per_replica = cli(["lint", "-f", str(POOL), "--api-profile", "per-replica"])
    assert "PD303" not in per_replica.stdout and "PD302" in per_replica.stdout


def test_stdin(cli: Callable) -> None:
    res = cli(["lint", "-f", "-"], input=SPLIT.read_text())
    assert res.exit_code == 1 and res.stdout.startswith("-:87: error PD201")


# -- bad input and bad flags: exit 2, one line, never a traceback ------------------------------------

def _bad(cli: Callable, tmp_path: Path, text: str) -> tuple[int, str]:
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    res = cli(["lint", "-f", str(p)])
    assert "Traceback" not in res.stderr and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1
    return res.exit_code, res.stderr.replace(str(p), "bad.yaml")


def test_malformed_yaml(cli: Callable, tmp_path: Path) -> None:
    code, err = _bad(cli, tmp_path, "apiVersion: v1\nkind: ClusterQueue\nmetadata: {name: [x\n")
    assert code == 2 and err.startswith("error: bad.yaml:")


def test_document_that_is_not_an_object(cli: Callable, tmp_path: Path) -> None:
    code, err = _bad(cli, tmp_path, "---\n- just\n- a list\n")
    assert code == 2 and err.startswith("error: bad.yaml:2:")


def test_resource_groups_not_a_list(cli: Callable, tmp_path: Path) -> None:
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: q\nspec:\n"
            "  resourceGroups:\n    coveredResources: [cpu]\n")
    code, err = _bad(cli, tmp_path, text)
    assert code == 2
    assert err.strip() == ("error: bad.yaml:10: ClusterQueue/q: spec.resourceGroups is not a list "
                           "(got a mapping)")


def test_missing_file(cli: Callable) -> None:
    res = cli(["lint", "-f", "/nonexistent/q.yaml"])
    assert res.exit_code == 2 and "no such file" in res.stderr


def test_flag_errors(cli: Callable) -> None:
    for args, text in ((["--diff", "--fix"], "do not go together"), (["-o", "patch"], "needs --fix"),
                       (["--kueue-version", "latest"], "not a Kueue version"),
                       (["--fix", "-o", "sarif"], "--fix prints yaml, json or patch"),
                       (["--diff", "-o", "json"], "leave out -o"), (["-o", "xml"], "xml")):
        res = cli(["lint", "-f", str(SPLIT), *args])
        assert res.exit_code == 2, args
        assert res.stderr.startswith("error: ") and text in res.stderr, (args, res.stderr)


def test_help_mentions_exit_codes(cli: Callable) -> None:
    res = cli(["lint", "--help"])
    assert res.exit_code == 0 and "kubectl pd lint" in res.stdout and "Exit status" in res.stdout


def test_through_the_real_kubectl() -> None:
    p = run_kubectl(["pd", "lint", "-f", str(SPLIT)], env={"NO_COLOR": "1"})
    assert p.returncode == 1, p.stderr
    assert "error PD101 duplicate-covered-resource" in p.stdout
    ok = run_kubectl(["pd", "lint", "-f", str(CLEAN), "-o", "json"])
    assert ok.returncode == 0 and json.loads(ok.stdout)["summary"]["errors"] == 0


def test_colour_only_through_the_style(cli: Callable) -> None:
    from kubectl_pd.commands.lint import _style
    from kubectl_pd.lint.report import render_text
    from kubectl_pd.termsafe import as_terminal
    from tests.builders import gpustack_queue
    from tests.test_lint_rules import run

    coloured = as_terminal(render_text(run(gpustack_queue(20)), _style))
    assert "\x1b[31m\x1b[1merror\x1b[0m" in coloured
    plain = cli(["lint", "-f", str(SPLIT)], env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain.stdout


def test_fix_on_clean_input_says_nothing_to_fix(cli: Callable) -> None:
    res = cli(["lint", "-f", str(CLEAN), "--fix"])
    assert (res.exit_code, res.stdout, res.stderr) == (0, "", "note: nothing to fix\n")


def test_an_input_with_nothing_to_lint_says_so(tmp_path) -> None:
    from tests.conftest import run_cli

    f = tmp_path / "ns.yaml"
    f.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    r = run_cli(["lint", "-f", str(f)])
    assert r.exit_code == 0
    assert r.stdout == "no findings in 0 objects; 1 object of other kinds skipped (1 Namespace)\n"
    assert r.stderr.startswith("note: the input holds no ClusterQueue, Cohort or ModelDeployment to lint")
