"""why-pending / lint / create with kubectl's output flags, through the CLI (live: the loopback API server;
files: the pending fixtures). Assertions on codes, names and cells, not on English."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.pending.render import LIST_HEADERS, WIDE_HEADERS
from tests.apiserver import unrelated_workloads
from tests.conftest import FIXTURES

QUEUES = FIXTURES / "pending" / "quota-exhausted.yaml"
LINT = Path(__file__).resolve().parent.parent / "examples" / "lint" / "gpustack-70-flavors.yaml"


def _cluster(n: int = 4) -> list[dict[str, Any]]:
    wls = unrelated_workloads(n, queue="other", message="ClusterQueue other is inactive")
    for i, wl in enumerate(wls):
        wl["metadata"]["labels"] = {"team": "a" if i % 2 else "b"}
        if i == 0:
            wl["metadata"]["creationTimestamp"] = "2020-01-01T00:00:00Z"
    return wls


@pytest.fixture
def live(apiserver: Any) -> dict[str, str]:
    _server, env = apiserver("pending/per-replica-joint.yaml", _cluster())
    return env


def _json(cli: Any, env: dict[str, str], *args: str) -> dict[str, Any]:
    r = cli(["why-pending", "-A", "-o", "json", *args], env=env)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def _names(doc: dict[str, Any]) -> list[str]:
    return [i["target"]["name"] for i in doc["items"]]


def test_wide_adds_the_columns_at_the_end(cli: Any, live: dict[str, str]) -> None:
    plain = cli(["why-pending", "-A"], env=live)
    wide = cli(["why-pending", "-A", "-o", "wide"], env=live)
    assert wide.exit_code == 0, wide.stderr
    assert wide.stdout.splitlines()[0].split() == LIST_HEADERS + WIDE_HEADERS
    rows = [line.split() for line in wide.stdout.splitlines()[1:] if not line.startswith("note:")]
    plain_rows = [line.split() for line in plain.stdout.splitlines()[1:] if not line.startswith("note:")]
    assert [r[:4] for r in rows] == [r[:4] for r in plain_rows]  # namespace, target, role, reason
    by_target = {r[1]: r for r in rows}
    assert by_target["wl/batch-00000"][-2] != "<unknown>"  # its creationTimestamp was read: an age
    assert by_target["wl/batch-00001"][-2] == "<unknown>"  # none: the age is unknown, not zero
    assert all(r[-1] in ("-", "<unknown>") or r[-1].isdigit() for r in rows)


@pytest.mark.parametrize("output", ["text", "wide"])
def test_no_headers_drops_the_header_line_only(cli: Any, live: dict[str, str], output: str) -> None:
    with_h = cli(["why-pending", "-A", "-o", output], env=live).stdout.splitlines()
    without = cli(["why-pending", "-A", "-o", output, "--no-headers"], env=live).stdout.splitlines()
    assert [line.split() for line in without] == [line.split() for line in with_h[1:]]


def test_name_is_kubectl_s_and_a_target_again(cli: Any, live: dict[str, str]) -> None:
    r = cli(["why-pending", "-A", "-o", "name"], env=live)
    names = r.stdout.split()
    assert len(names) == len(_names(_json(cli, live)))
    assert "workload.kueue.x-k8s.io/batch-00000" in names
    one = cli(["why-pending", "-n", "team-a", "-o", "name", names[-1]], env=live)
    assert one.exit_code == 0 and one.stdout == names[-1] + "\n"


@pytest.mark.parametrize(("sort_by", "key"), [
    (".target.name", lambda i: i["target"]["name"]),
    ("{.reasons[0].code}", lambda i: i["reasons"][0]["code"]),
])
def test_sort_by_orders_every_format(cli: Any, live: dict[str, str], sort_by: str, key: Any) -> None:
    doc = _json(cli, live, "--sort-by", sort_by)
    assert [key(i) for i in doc["items"]] == sorted(key(i) for i in doc["items"])
    name = cli(["why-pending", "-A", "-o", "name", "--sort-by", sort_by], env=live).stdout.split()
    assert [n.rpartition("/")[2] for n in name] == _names(doc)
    text = cli(["why-pending", "-A", "--sort-by", sort_by, "--no-headers"], env=live).stdout.splitlines()
    assert [line.split()[1].partition("/")[2] for line in text if not line.startswith("note:")] == _names(doc)


@pytest.mark.parametrize(("flags", "expected"), [
    (["-l", "team=a"], {"batch-00001", "batch-00003"}),
    (["-l", "team in (a,b),team!=a"], {"batch-00000", "batch-00002"}),
    (["--field-selector", "metadata.name=batch-00002"], {"batch-00002"}),
    (["--field-selector", "metadata.namespace=nowhere"], set()),
])
def test_selectors_choose_targets(cli: Any, live: dict[str, str], flags: list[str], expected: set[str]) -> None:
    assert set(_names(_json(cli, live, *flags))) == expected


@pytest.mark.parametrize("template", [
    '{range .items[*]}{.target.name}{"\\n"}{end}',
    "{.items[*].target.name}",
])
def test_jsonpath_reads_the_json_document(cli: Any, live: dict[str, str], template: str) -> None:
    r = cli(["why-pending", "-A", "-o", f"jsonpath={template}"], env=live)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.split() == _names(_json(cli, live))


def test_custom_columns_one_row_per_item(cli: Any, live: dict[str, str], tmp_path: Path) -> None:
    spec = tmp_path / "cols"
    spec.write_text("NAME CODE\n.target.name .reasons[0].code\n")
    a = cli(["why-pending", "-A", "-o", "custom-columns=NAME:.target.name,CODE:.reasons[0].code"], env=live)
    b = cli(["why-pending", "-A", "-o", f"custom-columns-file={spec}"], env=live)
    assert a.exit_code == 0 and a.stdout == b.stdout
    doc = _json(cli, live)
    assert [line.split() for line in a.stdout.splitlines()] == [["NAME", "CODE"]] + [
        [i["target"]["name"], i["reasons"][0]["code"]] for i in doc["items"]]


def test_a_target_s_document_is_one_row(cli: Any) -> None:
    r = cli(["why-pending", "-f", str(QUEUES), "qwen-pd", "-o", "custom-columns=KIND:.target.kind,PENDING:.pending",
             "--no-headers"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.split() == ["ModelDeployment", "true"]


@pytest.mark.parametrize(("args", "code"), [
    (["-A", "-o", "jsonpath={.items["], 1),
    (["-A", "-o", "jsonpath={range .items[*]}{end}{end}"], 1),
    (["-A", "-o", "custom-columns=NAME"], 1),
    (["-A", "-o", "custom-columns="], 1),
    (["-A", "-o", "jsonpath-file=/nonexistent/template"], 1),
    (["-A", "--sort-by", "{.a}{.b}"], 1),
    (["-A", "-o", "table"], 2),
    (["qwen-pd", "-o", "wide"], 2),
    (["qwen-pd", "-l", "a=b"], 2),
    (["-A", "--field-selector", "spec.queueName=x"], 1),
])
def test_refused_in_one_line(cli: Any, args: list[str], code: int) -> None:
    r = cli(["why-pending", "-f", str(QUEUES), *args])
    assert r.exit_code == code, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize(("flags", "env", "colour"), [
    ([], {"NO_COLOR": "1"}, False),
    ([], {}, False),  # not a terminal
    (["--color", "never"], {}, False),
    (["--color", "always"], {"NO_COLOR": "1"}, True),  # the flag wins over the environment
    (["--color", "always"], {}, True),
    (["--color", "auto"], {"NO_COLOR": "1"}, False),
])
@pytest.mark.parametrize("command", [
    ["why-pending", "-f", str(QUEUES), "qwen-pd"],
    ["lint", "-f", str(LINT)],
])
def test_color_flag(cli: Any, command: list[str], flags: list[str], env: dict[str, str], colour: bool) -> None:
    r = cli([*command, *flags], env={"NO_COLOR": "", **env})
    assert r.exit_code in (0, 1), r.stderr
    assert ("\x1b[" in r.stdout) is colour
    assert "^[" not in r.stdout  # our colour is kept whole, never neutralised


def test_color_mode_lasts_one_run(cli: Any) -> None:
    assert "\x1b[" in cli(["why-pending", "-f", str(QUEUES), "qwen-pd", "--color", "always"]).stdout
    assert "\x1b[" not in cli(["why-pending", "-f", str(QUEUES), "qwen-pd"], env={"NO_COLOR": "1"}).stdout


@pytest.mark.parametrize(("output", "expected"), [
    ("name", ["clusterqueue.kueue.x-k8s.io/gpustack--nvidia-h20-linux-amd64"]),
    ("jsonpath={.findings[0].id}", ["PD201"]),
])
def test_lint_output_forms(cli: Any, output: str, expected: list[str]) -> None:
    r = cli(["lint", "-f", str(LINT), "-o", output])
    assert r.exit_code == 1, r.stderr  # the findings are errors
    assert r.stdout.split() == expected


def test_lint_custom_columns_sorted(cli: Any) -> None:
    r = cli(["lint", "-f", str(LINT), "-o", "custom-columns=LINE:.line,ID:.id", "--sort-by", "{.line}",
             "--no-headers"])
    lines = [int(line.split()[0]) for line in r.stdout.splitlines()]
    assert lines and lines == sorted(lines)
    doc = json.loads(cli(["lint", "-f", str(LINT), "-o", "json"]).stdout)
    assert len(lines) == len(doc["findings"])


def test_create_jsonpath_and_columns(cli: Any) -> None:
    base = ["create", "x", "--model", "M", "--instance-type", "IT", "--prefill", "1", "--decode", "2",
            "--engine-version", "V", "--kv-cache-pool", "POOL", "--dry-run=client"]
    as_json = json.loads(cli([*base, "-o", "json"]).stdout)
    r = cli([*base, "-o", "jsonpath={.kind}/{.metadata.name}"])
    assert r.exit_code == 0 and r.stdout == f"{as_json['kind']}/{as_json['metadata']['name']}"
    c = cli([*base, "-o", "custom-columns=KIND:.kind", "--"])
    assert c.stdout.split() == ["KIND", as_json["kind"]]


def test_golden_outputs_unchanged_by_default(cli: Any, live: dict[str, str]) -> None:
    """The new flags only add: without them the -A table is what it was (tests/golden pins the screens)."""
    r = cli(["why-pending", "-A"], env=live)
    assert r.stdout.splitlines()[0].split() == LIST_HEADERS
    assert copy.deepcopy(_json(cli, live)) == _json(cli, live, "--no-headers")


@pytest.mark.parametrize(("output", "empty"), [("text", False), ("wide", False), ("name", True)])
def test_nothing_pending(cli: Any, output: str, empty: bool) -> None:
    """-o wide says there is nothing pending as the table does; -o name prints no line at all."""
    r = cli(["why-pending", "-A", "-f", str(FIXTURES / "pending" / "not-pending.yaml"), "-o", output])
    assert r.exit_code == 0, r.stderr
    assert (r.stdout == "") is empty
    assert not any(h in r.stdout for h in LIST_HEADERS)
