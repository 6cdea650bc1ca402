"""The `$ kubectl pd ...` examples of the README and docs/, found, run and compared, so none can drift.

An example is a fenced block whose lines starting with `$ ` are commands, each followed by its output
(stdout, then stderr). A block is checked when every command in it runs offline: `kubectl pd` with
`-f`/`--from-file` (or `create ... --dry-run=client`), or `echo $?` for the exit code of the one before.

A block can also name the cluster it runs against, on the line right before its fence:
`<!-- example-cluster: create/cluster.yaml create/crd-pd-atomic.yaml namespace=team-a -->` (fixture
files under tests/fixtures/). Each of its commands then runs against a fresh loopback API server
(tests/apiserver.py) holding those objects, through a real kubeconfig, so one command's writes never
change the next one's output. A cluster that changes while a command waits (`create --wait`: the
operator renders the Pods, Kueue composes and admits the Workload) is named by `scenario=NAME`, one of
tests/scenarios.py's SCENARIOS: the command then runs in-process on fake time (tests/clock.py, through
the clock and sleep seams of create/wait.py and commands/why_pending.py), the scenario's steps change the
server at fixed fake moments, nothing sleeps in real time, and the output is stdout and stderr
interleaved as a terminal shows them. A block that cannot run (its output is shortened) says so and why:
`<!-- example-not-run: REASON -->`; tests/test_docs_examples.py fails on a `$ kubectl pd` block that is
neither runnable nor marked.
`scripts/refresh-examples` rewrites the outputs; tests/test_docs_examples.py fails when one is stale.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import sys
import tempfile
import types
import uuid
from pathlib import Path

from kubectl_pd.records import dataclass

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
CLUSTER = re.compile(r"<!-- example-cluster: ([^>]*?) -->\n\Z")
NOT_RUN = re.compile(r"<!-- example-not-run: ([^>]*?) -->\n\Z")


@dataclass(frozen=True)
class Step:
    command: str  # without the `$ `, continuation lines joined
    output: str


@dataclass(frozen=True)
class Example:
    path: Path
    start: int  # offset of the block's body in the file
    end: int
    steps: tuple[Step, ...]
    cluster: tuple[str, ...] = ()  # fixture files of the loopback server the commands run against
    namespace: str | None = None  # the kubeconfig context's namespace there
    scenario: str | None = None  # tests/scenarios.py: how the cluster changes while a command waits
    not_run: str | None = None  # why the page does not expect this block to run

    @property
    def runnable(self) -> bool:
        if self.not_run:
            return False
        check = _against_cluster if self.cluster else _offline
        return bool(self.steps) and all(check(s.command) for s in self.steps) and \
            _offline(self.steps[0].command) != "echo"


def _against_cluster(command: str) -> str | None:
    if command.strip() == "echo $?":
        return "echo"
    if not command.startswith("kubectl pd ") or "..." in command or "#" in command:
        return None
    return "cluster"


def _offline(command: str) -> str | None:
    if command.strip() == "echo $?":
        return "echo"
    if not command.startswith("kubectl pd ") or "..." in command or "#" in command:
        return None
    args = shlex.split(command)
    if "-f" in args or "--from-file" in args or any(a.startswith("--from-file=") for a in args):
        return "file"
    if args[2:3] == ["create"] and "--dry-run=client" in args:
        return "file"
    return None


def _steps(body: str) -> tuple[Step, ...]:
    steps: list[Step] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if not steps and lines[i].strip():
                return ()  # output before any command: not an example
            i += 1
            continue
        cmd = lines[i][2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        out: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
        steps.append(Step(cmd, "\n".join(out).rstrip("\n")))
    return tuple(steps)


def examples(path: Path) -> list[Example]:
    text = path.read_text()
    out = []
    for m in FENCE.finditer(text):
        if not m.group(1).startswith("$ "):
            continue
        named = CLUSTER.search(text, 0, m.start())
        words = named.group(1).split() if named else []
        named_words = dict(w.split("=", 1) for w in words if "=" in w)
        files = tuple(w for w in words if "=" not in w)
        skip = NOT_RUN.search(text, 0, m.start())
        out.append(Example(path, m.start(1), m.end(1), _steps(m.group(1)), cluster=files,
                           namespace=named_words.get("namespace"), scenario=named_words.get("scenario"),
                           not_run=skip.group(1) if skip else None))
    return out


def _with_cluster(example: Example, root: Path, env: dict[str, str], argv: list[str]) -> subprocess.CompletedProcess:
    """Run `argv` against a fresh loopback API server holding the example's fixtures (and playing its
    scenario, when it names one)."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import tests.apiserver as api

    # The server gives every object a random uid; the page shows fixed ones (the n-th uid it hands out).
    counter = itertools.count()
    real_uuid = api.uuid
    api.uuid = types.SimpleNamespace(uuid4=lambda: uuid.uuid5(uuid.NAMESPACE_URL, f"kubectl-pd-docs/{next(counter)}"))
    objects = api.load_objects(*(root / "tests" / "fixtures" / f for f in example.cluster))
    server = api.FakeApiServer(objects=objects).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            kc = server.write_kubeconfig(Path(tmp) / "kubeconfig", namespace=example.namespace)
            env = {**env, "KUBECONFIG": str(kc)}
            if example.scenario:
                return _played(example.scenario, server, env, argv[1:])
            return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
        api.uuid = real_uuid


def _played(scenario: str, server: object, env: dict[str, str], args: list[str]) -> subprocess.CompletedProcess:
    """Run `kubectl pd ARGS` in-process on fake time while the scenario changes the server; stdout and
    stderr interleaved, as a terminal shows them."""
    from click.testing import CliRunner

    from kubectl_pd.commands import why_pending
    from kubectl_pd.commands.cli import main
    from kubectl_pd.create import wait
    from tests.clock import FakeTime
    from tests.scenarios import SCENARIOS

    if scenario not in SCENARIOS:
        raise ValueError(f"unknown example scenario {scenario!r} (tests/scenarios.py has {sorted(SCENARIOS)})")
    clock = SCENARIOS[scenario](server, FakeTime())  # type: ignore[arg-type]
    http = sys.modules.get("kubectl_pd.cluster.http")
    if http is not None:  # as a fresh process: no credentials of an earlier in-process run to redact
        http._SECRETS.clear()
    saved = wait.default_clock, wait.default_sleep, why_pending.SLEEP
    wait.default_clock, wait.default_sleep, why_pending.SLEEP = clock.monotonic, clock.sleep, clock.sleep
    code = 0
    try:
        with CliRunner().isolation(env=env) as streams:
            try:
                main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            shown = (streams[2] if len(streams) > 2 else streams[0]).getvalue().decode()  # click 8.1: mixed
    finally:
        wait.default_clock, wait.default_sleep, why_pending.SLEEP = saved
    return subprocess.CompletedProcess(["kubectl-pd", *args], code, shown, "")


def run(example: Example, root: Path, executable: str = "kubectl-pd") -> tuple[Step, ...]:
    """Each step's real output (no colour, a wide terminal so nothing wraps)."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("KUBECONFIG", None)
    got: list[Step] = []
    code = 0
    for step in example.steps:
        if _offline(step.command) == "echo":
            got.append(Step(step.command, str(code)))
            continue
        args = shlex.split(step.command)[2:]
        if example.cluster:
            p = _with_cluster(example, root, env, [executable, *args])
        else:
            p = subprocess.run([executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=120)
        code = p.returncode
        got.append(Step(step.command, (p.stdout + p.stderr).rstrip("\n")))
    return tuple(got)


def render(steps: tuple[Step, ...], original: str) -> str:
    """The block body with fresh outputs, keeping each command as it was written and the blank lines
    that separate one step from the next."""
    found = list(re.finditer(r"^\$ (?:[^\n]*\\\n)*[^\n]*", original, re.M))
    parts = []
    for i, (m, step) in enumerate(zip(found, steps, strict=True)):
        chunk = original[m.start():found[i + 1].start() if i + 1 < len(found) else len(original)]
        blank = max(0, len(chunk) - len(chunk.rstrip("\n")) - 1)
        parts.append(m.group(0) + ("\n" + step.output if step.output else "") + "\n" * blank)
    return "\n".join(parts) + "\n"


def refresh(path: Path, root: Path) -> int:
    """Rewrite the outputs of every runnable example in `path`; the number changed."""
    text = path.read_text()
    changed = 0
    for ex in reversed(examples(path)):
        if not ex.runnable:
            continue
        body = render(run(ex, root), text[ex.start:ex.end])
        if body != text[ex.start:ex.end]:
            text = text[:ex.start] + body + text[ex.end:]
            changed += 1
    path.write_text(text)
    return changed
