"""Ctrl-C stops every command within a second: SIGINT at random moments, on a busy machine.

The plugin runs as a real process (as a terminal's foreground job starts it: `spawn_interruptible`) against
the loopback API server, made slow here (every answer waits `DELAY` seconds) so that reads are in flight
when the signal comes; two CPU-bound processes run beside it. Every interrupted run must exit within
`LIMIT` seconds of the signal with exit code 130 and the documented last line (`error: interrupted`; for
`create --wait`, what was created and how to remove it), never a traceback. The sleeps below are the
random moments themselves, not waits for something to happen.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.apiserver import FakeApiServer, load_objects
from tests.conftest import FIXTURES, spawn_interruptible

PD = [sys.executable, "-m", "kubectl_pd"]
TELLS_IMPORTS = [sys.executable, "-X", "importtime", "-m", "kubectl_pd"]  # says on stderr when our code has loaded
LIMIT = 1.0  # seconds from SIGINT to exit
DELAY = 0.05  # seconds the loopback server takes for every answer
INTERRUPTED = "error: interrupted"
CREATED = ("error: interrupted: modeldeployment.worker.gpustack.ai/qwen was created and remains in namespace "
           "team-a; follow it with `kubectl pd why-pending md/qwen -n team-a`, remove it with "
           "`kubectl delete modeldeployment.worker.gpustack.ai/qwen -n team-a`")
MAY_EXIST = ("error: interrupted while creating modeldeployment.worker.gpustack.ai/qwen in namespace team-a: it may "
             "exist now; check with `kubectl get modeldeployment.worker.gpustack.ai/qwen -n team-a`, remove it with "
             "`kubectl delete modeldeployment.worker.gpustack.ai/qwen -n team-a`")


@dataclass
class SlowServer(FakeApiServer):
    """The loopback API server, counting requests begun and answered (a new helper: tests/apiserver.py is
    left as it is)."""

    begun: int = 0
    answered: int = 0
    posts: int = 0
    first: threading.Event = field(default_factory=threading.Event)
    counted: threading.Condition = field(default_factory=threading.Condition)

    def handle(self, method: str, target: str, headers: dict[str, str], raw: bytes,
               *rest: Any, **kw: Any) -> tuple[int, Any, str]:
        with self.counted:
            self.begun += 1
            self.posts += method == "POST"
            self.counted.notify_all()
        self.first.set()
        try:
            return super().handle(method, target, headers, raw, *rest, **kw)
        finally:
            with self.counted:
                self.answered += 1
                self.counted.notify_all()

    def reset(self) -> None:
        """Forget the counts, once every request begun was answered (an interrupted client's last request
        is still served after it left: a POST stores its object then)."""
        with self.counted:
            assert self.counted.wait_for(lambda: self.answered >= self.begun, 30)
            self.begun = self.answered = self.posts = 0
            self.first.clear()

    def wait_answered(self, n: int, timeout: float) -> bool:
        with self.counted:
            return self.counted.wait_for(lambda: self.answered >= n, timeout)


class Child:
    """One run of the plugin; stderr is read as it comes (import-time lines apart)."""

    def __init__(self, args: list[str], env: dict[str, str], *, tell_imports: bool = False) -> None:
        self.p = spawn_interruptible([*(TELLS_IMPORTS if tell_imports else PD), *args], env=env)
        self.err: list[str] = []
        self.loaded = threading.Event()  # the package kubectl_pd is imported: its Ctrl-C handling is in place
        self.lines: list[str] = []
        self.printed = threading.Event()  # a first line on stdout
        self.progress = threading.Event()  # create --wait's first progress line: the wait loop has begun
        self._readers = [threading.Thread(target=self._read_err, daemon=True),
                         threading.Thread(target=self._read_out, daemon=True)]
        for t in self._readers:
            t.start()
        self.sent = 0.0

    def _read_err(self) -> None:
        assert self.p.stderr is not None
        for line in self.p.stderr:
            if line.startswith("import time:"):
                if line.rstrip().endswith("| kubectl_pd"):
                    self.loaded.set()
                continue
            self.err.append(line)
            if "  pods " in line:
                self.progress.set()

    def _read_out(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.lines.append(line)
            self.printed.set()

    def sigint(self) -> bool:
        """Send SIGINT; False when the run had already ended."""
        if self.p.poll() is not None:
            return False
        self.sent = time.monotonic()
        self.p.send_signal(signal.SIGINT)
        return True

    def finish(self) -> float:
        """Seconds from the signal to the exit (the run is killed after 10 s, which fails the test)."""
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return float("inf")
        took = time.monotonic() - self.sent
        for t in self._readers:
            t.join(timeout=10)
        return took

    @property
    def stderr(self) -> str:
        return "".join(self.err)

    @property
    def last_error_line(self) -> str:
        lines = [x for x in self.stderr.splitlines() if x.strip()]
        return lines[-1] if lines else ""


@pytest.fixture
def busy() -> Iterator[None]:
    """Two CPU-bound processes beside the run, ended by their own ids."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[Callable[..., tuple[SlowServer, dict[str, str]]]]:
    started: list[SlowServer] = []

    def start(*names: str, namespace: str | None = "team-a") -> tuple[SlowServer, dict[str, str]]:
        server = SlowServer(objects=load_objects(*(FIXTURES / n for n in names)), delay=DELAY).start()
        assert isinstance(server, SlowServer)
        started.append(server)
        kc = server.write_kubeconfig(tmp_path / f"kubeconfig-{len(started)}", namespace=namespace)
        return server, {**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1"}

    yield start
    for s in started:
        s.stop()


TOOK: list[float] = []  # seconds from SIGINT to exit of every interrupted run (shown with `pytest -s`)


def _assert_interrupted(child: Child, took: float, last: str = INTERRUPTED) -> None:
    TOOK.append(took)
    assert took < LIMIT, (took, child.stderr)
    assert "Traceback" not in child.stderr, child.stderr
    assert (child.p.returncode, child.last_error_line) == (130, last), child.stderr


def test_why_pending_live_stops_within_a_second_at_any_moment(slow_server: Callable, busy: None) -> None:
    """50 runs of a live why-pending, two at a time: SIGINT before the reads (our code loaded, nothing asked
    yet), while the parallel reads are in flight, or after the last answer (while it diagnoses and prints)."""
    lanes = [slow_server("pending/quota-exhausted.yaml") for _ in range(2)]
    counts: list[Counter[str]] = [Counter(), Counter()]
    failures: list[BaseException] = []

    def lane(k: int) -> None:
        try:
            _why_pending_runs(*lanes[k], random.Random(18 + k), 25, counts[k])
        except BaseException as e:  # noqa: B036 - reported by the test below
            failures.append(e)

    threads = [threading.Thread(target=lane, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    phases = counts[0] + counts[1]
    print(f"\nwhy-pending: {dict(phases)}; SIGINT to exit: max {max(TOOK):.3f} s, "
          f"median {sorted(TOOK)[len(TOOK) // 2]:.3f} s over {len(TOOK)} interrupted runs")
    assert min(phases["before"], phases["during"], phases["after"]) >= 5, phases  # each moment was met
    assert phases["finished first"] <= 10, phases


def _why_pending_runs(server: SlowServer, env: dict[str, str], rng: random.Random, runs: int,
                      phases: Counter[str]) -> None:
    whole = subprocess.run([*PD, "why-pending", "qwen-pd"], env=env, capture_output=True, text=True, timeout=60)
    assert whole.returncode == 0 and whole.stdout
    reads = server.answered
    assert reads >= 6
    for i in range(runs):
        server.reset()
        phase = ("before", "during", "during", "after")[i % 4]
        child = Child(["why-pending", "qwen-pd"], env, tell_imports=phase == "before")
        if phase == "before":
            assert child.loaded.wait(30), child.stderr
            time.sleep(rng.uniform(0, 0.03))
        elif phase == "during":
            assert server.first.wait(30), child.stderr
            time.sleep(rng.uniform(0, reads * DELAY / 2))  # the reads take about 5 rounds of DELAY
        else:
            assert server.wait_answered(reads, 30), child.stderr
            time.sleep(rng.uniform(0, 0.01))
        begun, answered = server.begun, server.answered
        if not child.sigint():  # it had finished: a complete answer, nothing to interrupt
            child.finish()
            assert phase == "after" and child.p.returncode == 0 and "".join(child.lines) == whole.stdout
            phases["finished first"] += 1
            continue
        took = child.finish()
        seen = "before" if begun == 0 else "during" if answered < reads else "after"
        if seen == "after" and child.p.returncode == 0:  # the signal came as it was exiting: ignored then
            assert took < LIMIT and "".join(child.lines) == whole.stdout, child.stderr
            phases["finished first"] += 1
            continue
        _assert_interrupted(child, took)
        phases[seen] += 1


def test_create_wait_stops_within_a_second_and_says_what_remains(slow_server: Callable, busy: None) -> None:
    """Ctrl-C while create checks the cluster writes nothing; during --wait, the deployment remains and the
    message says how to follow it or remove it."""
    rng = random.Random(1818)
    server, env = slow_server("create/cluster.yaml", "create/crd-pd-atomic.yaml")
    args = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv",
            "--prefill", "1", "--decode", "2", "--instance-type", "gpustack--nvidia-h20-linux-amd64", "--wait=60s"]
    md = ("ModelDeployment", "worker.gpustack.ai/v1alpha1", "qwen", "team-a")
    for i in range(5):
        server.reset()
        server.delete(*md)
        child = Child(args, env)
        moment = ("preflight", "post", "wait", "wait", "wait")[i]
        if moment == "wait":  # the first progress line: the wait loop has begun
            assert child.progress.wait(30), child.stderr
            time.sleep(rng.uniform(0, 1.2))
        elif moment == "post":  # the one write is on its way; the server answers it DELAY s later
            assert server.first.wait(30) and _posted(server, 30), child.stderr
        else:  # the preflight reads, before the one write
            assert server.first.wait(30), child.stderr
            time.sleep(rng.uniform(0, 2 * DELAY))
        posted = _posted(server, 0)
        assert child.sigint()
        took = child.finish()
        if moment == "wait":
            _assert_interrupted(child, took, CREATED)
            assert "".join(child.lines) == "modeldeployment.worker.gpustack.ai/qwen created\n"
            assert server.stored(*md) is not None
        elif moment == "post":
            _assert_interrupted(child, took, MAY_EXIST)
        elif not posted:
            _assert_interrupted(child, took)
            assert server.stored(*md) is None and child.lines == []


def _posted(server: SlowServer, timeout: float) -> bool:
    """A POST has begun (counted before the server's delay); waits up to `timeout` seconds for one."""
    with server.counted:
        return server.counted.wait_for(lambda: server.posts > 0, timeout)


def test_why_pending_watch_stops_within_a_second(slow_server: Callable, busy: None) -> None:
    """Ctrl-C is how --watch ends: exit 0 once a diagnosis was printed (docs/why-pending.md), at once."""
    rng = random.Random(181818)
    server, env = slow_server("pending/quota-exhausted.yaml")
    for _ in range(4):
        child = Child(["why-pending", "qwen-pd", "--watch", "--watch-interval", "0.2"], env)
        assert child.printed.wait(30), child.stderr
        time.sleep(rng.uniform(0, 0.6))
        assert child.sigint()
        took = child.finish()
        assert took < LIMIT and child.p.returncode == 0 and "Traceback" not in child.stderr, child.stderr
        assert child.lines[0].startswith("PENDING")


def test_lint_of_a_live_cluster_stops_within_a_second(slow_server: Callable, busy: None) -> None:
    rng = random.Random(18181818)
    server, env = slow_server("pending/quota-exhausted.yaml")
    for _ in range(5):
        server.reset()
        child = Child(["lint"], env)
        assert server.first.wait(30), child.stderr
        time.sleep(rng.uniform(0, 3 * DELAY))
        if not child.sigint():
            continue
        _assert_interrupted(child, child.finish())
