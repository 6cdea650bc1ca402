"""Issue 48, nothing parses text it composed: the CLI's `error:` and `warning:` lines are written by one module
(kubectl_pd/output/stderr.py), which records each as data while a run collects; the MCP server's runs
(`agent/run.run` in this process, `Workers.isolated` in a worker) carry them as `Ran.errors` / `Ran.warnings`, and
a tool's answer is made of that data, never of the run's stderr. The plain CLI's stderr is unchanged, byte for
byte (the same lines the collector holds, in the order they were said)."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kubectl_pd import interrupt
from kubectl_pd.agent import run as running
from kubectl_pd.agent import tools
from kubectl_pd.agent import words as agent_words
from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.create import flags, preflight
from kubectl_pd.create.flags import CreateRequest, parse_role
from kubectl_pd.gpustack.roles import PER_REPLICA
from kubectl_pd.output import stderr
from kubectl_pd.output.stderr import ERROR, WARNING
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent / "kubectl_pd"
H20 = "gpustack--nvidia-h20-linux-amd64"
A10G = "gpustack--nvidia-a10g-linux-amd64"  # its ClusterQueue is stopped (tests/fixtures/create/cluster.yaml)
L40S = "gpustack--nvidia-l40s-linux-amd64"
BASE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5"]


def _lines(said: list[tuple[str, str]]) -> str:
    return "".join(stderr.line(kind, text) + "\n" for kind, text in said)


# ----------------------------------------------------------------------------- the module itself (pure)
@pytest.mark.parametrize("said", [
    [],
    [(WARNING, "w")],
    [(ERROR, "e1"), (ERROR, "e2")],
    [(WARNING, "w1"), (ERROR, "e"), (WARNING, "w2")],
])
def test_what_is_said_is_written_and_collected_in_order(said: list[tuple[str, str]],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with stderr.Collected() as got:
        for kind, text in said:
            stderr.say(kind, text)
    assert got == said
    assert capsys.readouterr() == ("", _lines(said))
    assert stderr.texts(got, ERROR) == tuple(t for k, t in said if k == ERROR)


def test_outside_a_collector_only_the_line_is_written_and_collectors_nest(capsys: pytest.CaptureFixture[str]) -> None:
    stderr.warning("before")
    with stderr.Collected() as outer:
        with stderr.Collected() as inner:
            stderr.error("inner")
        stderr.say(WARNING, "outer", echo=False)
    stderr.error("after")
    assert (outer, inner) == ([(WARNING, "outer")], [(ERROR, "inner")])
    assert capsys.readouterr().err == _lines([(WARNING, "before"), (ERROR, "inner"), (WARNING, "outer"),
                                              (ERROR, "after")])


# ----------------------------------------------------------------------------- through the CLI and the agent
def _report(kubeconfig: str, roles: tuple[str, ...]) -> preflight.Preflight:
    """The preflight's findings for BASE + these roles, through the Python API against the same server."""
    req = CreateRequest(name="qwen", namespace="team-a", model="Qwen/Qwen2.5-7B", engine_version="0.8.5",
                        instance_type=H20, roles=flags.all_role_specs(tuple(parse_role(r) for r in roles), None, None))
    checked = flags.check_request(req)
    assert checked.problems == []
    return preflight.run(LiveSource(ClusterOptions(kubeconfig=kubeconfig)), req, checked.roles, PER_REPLICA,
                         "team-a")


PREFILL = f"name=p,kind=prefill,instance-type={H20}"
STOPPED_DECODE = f"name=d,kind=decode,replicas=2,instance-type={A10G},size=1"
DECODE = f"name=d,kind=decode,replicas=2,instance-type={L40S},size=1"

# (id, global flags, the command, exit code, the warnings' and errors' count); each run's lines are its warnings,
# then its errors (create warns, then refuses)
CASES = [
    ("usage", [], ["create"], 2, 0, 1),
    ("flags", [], ["create", "x", "--model", "m", "--engine-version", "1", "--prefill", "0", "--decode", "0"], 1, 0,
     4),
    ("preflight-warns", [], [*BASE, "--role", PREFILL, "--role", DECODE, "--dry-run=server", "-o", "json"], 0, 1,
     0),
    ("insecure-warns-then-refused", ["--insecure-skip-tls-verify"],
     [*BASE, "--role", PREFILL, "--role", STOPPED_DECODE, "--dry-run=server", "-o", "json"], 1, 2, 1),
]


@pytest.fixture
def workers() -> Iterator[running.Workers]:
    pool = running.Workers()
    yield pool
    pool.stop_all()


@pytest.mark.parametrize(("global_flags", "command", "code", "warned", "failed"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_the_cli_says_and_the_agent_reads_the_same_lines_as_data(
        global_flags: list[str], command: list[str], code: int, warned: int, failed: int, apiserver: Callable,
        workers: running.Workers) -> None:
    server, env = apiserver("create/cluster.yaml", "create/crd-per-replica-pascal.yaml", namespace="team-a")
    argv = ["--kubeconfig", env["KUBECONFIG"], *global_flags, *command]
    plain = run_cli(argv, env=env)
    here = running.run(argv)
    there = workers.isolated(argv, None, 120)
    # the same run in this process and in a worker (the stdout of a server dry run has the server's uid and time)
    assert (here.code, here.stderr, here.errors, here.warnings) == (there.code, there.stderr, there.errors,
                                                                    there.warnings)
    assert (here.code, len(here.warnings), len(here.errors)) == (plain.exit_code, warned, failed) == \
           (code, warned, failed)
    said = [(WARNING, w) for w in here.warnings] + [(ERROR, e) for e in here.errors]
    assert here.stderr == plain.stderr == _lines(said)  # the plain CLI's stderr, byte for byte, is the data
    assert here.error == (here.errors[-1] if failed else "")


def test_the_data_holds_the_preflights_findings(apiserver: Callable) -> None:
    server, env = apiserver("create/cluster.yaml", "create/crd-per-replica-pascal.yaml", namespace="team-a")
    argv = ["--kubeconfig", env["KUBECONFIG"], *CASES[3][1], *CASES[3][2]]
    ran = running.run(argv)
    report = _report(env["KUBECONFIG"], (PREFILL, STOPPED_DECODE))
    assert [(f.check, f.severity) for f in report.findings] == [("joint-check", "warning"),
                                                                 ("cluster-queue", "error")]
    assert ran.warnings[1:] == (report.findings[0].message,)  # after the insecure connection's
    assert ran.errors == (f"{report.findings[1].message}; nothing was written",)


@pytest.mark.parametrize(("how", "error"), [
    ("stopped", agent_words.STOPPING),
    ("deadline", agent_words.past_deadline(0.001)),
])
def test_the_servers_own_failures_are_data_too(how: str, error: str, workers: running.Workers) -> None:
    if how == "stopped":
        workers.stop_all()
    ran = workers.isolated(["--help"], None, 0.001)
    assert (ran.code, ran.errors, ran.warnings, ran.error) == (1, (error,), (), error)


# ----------------------------------------------------------------------------- a tool's answer: the data only
LINT_DOC = {"summary": {"errors": 0, "warnings": 0, "objects": 0}, "findings": []}


@pytest.mark.parametrize(("ran", "code", "lines"), [
    # a document: its warnings, then (on a failure) its last error, from the data; stderr is never read
    (running.Ran(1, json.dumps(LINT_DOC), "", ("e1", "e2"), ("w",)), 1, [stderr.line(WARNING, "w"),
                                                                         stderr.line(ERROR, "e2")]),
    (running.Ran(0, json.dumps(LINT_DOC), "error: not data\nwarning: not data\n"), 0, []),
    # no document: the last error, or that nothing was printed
    (running.Ran(2, "", "", ("bad flag",)), 2, [stderr.line(ERROR, "bad flag")]),
    (running.Ran(0, "", "error: not data\n"), 1, [stderr.line(ERROR, "the command printed nothing")]),
])
def test_a_tools_answer_is_made_of_the_runs_data(ran: running.Ran, code: int, lines: list[str]) -> None:
    answer = tools.call("pd_lint", {"manifests": "{}"}, tools.Guard(), [], lambda argv, stdin: ran)
    assert answer.code == code
    if answer.document is None:
        assert answer.text.splitlines() == lines
    else:
        got = answer.text.splitlines()
        assert [x for x in got if x.startswith((f"{WARNING}: ", f"{ERROR}: "))] == lines


# ----------------------------------------------------------------------------- one writer
PREFIXES = tuple(stderr.line(kind, "") for kind in (ERROR, WARNING))
WRITER = ROOT / "output" / "stderr.py"
# interrupt.py writes its one line with os.write just before os._exit (no run is left to collect it), and it sits
# on floor 0, below output/ (tests/test_import_circles.py): its MESSAGE is checked against the writer's form below
BEFORE_ANY_RUN = ROOT / "interrupt.py"


def _composed(path: Path) -> list[str]:
    """The string literals (and f-strings) of a module that start with an `error: ` or `warning: ` prefix."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            head = node.values[0].value
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            head = node.value
        else:
            continue
        if isinstance(head, str) and head.lstrip("\n").startswith(PREFIXES):
            found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    return sorted(set(found))  # an f-string's head is found twice: as the f-string and as its first part


def test_no_module_but_the_writer_composes_an_error_or_warning_line() -> None:
    found = [x for p in sorted(ROOT.rglob("*.py")) if p not in (WRITER, BEFORE_ANY_RUN) for x in _composed(p)]
    assert found == []
    assert interrupt.MESSAGE == stderr.line(ERROR, "interrupted")
