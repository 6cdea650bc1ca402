"""One CLI run, its output captured: how every tool answers, so a tool's document is the CLI's `-o json` byte for
byte (the same command function, the same printer, the same error lines and exit codes).

`run` runs it in this process (serialised: stdin, stdout and stderr are the process's, swapped for the run's own
buffers); `Workers.isolated` runs it in a worker process of its own (kubectl_pd/agent/worker.py) with a deadline,
killed with its process group when the deadline passes or `stop_all` is called (the client went away): what the
MCP server does for every call. Each API request of a run ends at the server's --request-timeout. Nothing of the MCP
SDK is imported here."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence

from kubectl_pd.output import stderr
from kubectl_pd.records import dataclass

ENTRY = "kubectl_pd.commands.cli"  # the `kubectl-pd` console script's module (pyproject.toml)

_LOCK = threading.Lock()


@dataclass(frozen=True)
class Ran:
    code: int  # the exit code the CLI would give
    stdout: str
    stderr: str
    errors: tuple[str, ...] = ()  # what the run said as `error: ...` lines, as data (kubectl_pd/output/stderr.py)
    warnings: tuple[str, ...] = ()  # and as `warning: ...` lines

    @property
    def error(self) -> str:
        """The run's last error ("" when there is none)."""
        return self.errors[-1] if self.errors else ""

    @classmethod
    def failed(cls, error: str) -> Ran:
        """A run that did not happen or did not end (the server's own failure): exit 1 and its one error."""
        return cls(1, "", stderr.line(stderr.ERROR, error) + "\n", (error,))


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="", write_through=True)


@contextlib.contextmanager
def _captured(stdin: str | None) -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    """The run's stdin (the text given, else empty: never the server's own protocol stream), stdout, stderr."""
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = _stream(), _stream()
    sys.stdin, sys.stdout, sys.stderr = _stream((stdin or "").encode()), out, err
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


def run(argv: Sequence[str], stdin: str | None = None) -> Ran:
    """`kubectl pd ARGV` through the CLI's own entry point (ENTRY's `main`, the console script's), in this process.
    By name, as a process would start it and as commands/cli.py loads each command: the commands start this server
    (`kubectl pd mcp`), so the server names the entry point instead of importing it."""
    import importlib

    cli = importlib.import_module(ENTRY)

    with _LOCK, _captured(stdin) as (out, err), stderr.Collected() as said:
        code = 0
        try:
            cli.main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        return Ran(code, _text(out), _text(err), stderr.texts(said, stderr.ERROR), stderr.texts(said, stderr.WARNING))


def answer(ran: Ran) -> dict[str, object]:
    """A worker's answer (kubectl_pd/agent/worker.py): the run as JSON data, its errors and warnings as lists."""
    return {"code": ran.code, "stdout": ran.stdout, "stderr": ran.stderr, "errors": list(ran.errors),
            "warnings": list(ran.warnings)}


def answered(doc: dict[str, object]) -> Ran:
    """The run a worker's answer holds (ValueError, KeyError, TypeError: not one)."""
    errors, warnings = doc["errors"], doc["warnings"]
    if not isinstance(errors, list) or not isinstance(warnings, list):
        raise TypeError("errors and warnings are lists")
    code = doc["code"]
    if not isinstance(code, int):
        raise TypeError("code is an int")
    return Ran(code, str(doc["stdout"]), str(doc["stderr"]), tuple(map(str, errors)), tuple(map(str, warnings)))


def _worker_env() -> dict[str, str]:
    """The environment of a worker: this one, with the directory kubectl_pd is imported from first on the path
    (a krew archive or a checkout is found as this process found it)."""
    import kubectl_pd

    root = os.path.dirname(os.path.dirname(os.path.abspath(kubectl_pd.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


IDLE_S = 120.0  # a worker started ahead and not taken within this is reaped (started again by the next call)


class Workers:
    """The worker processes of one MCP server (kubectl_pd/agent/worker.py): the running calls', and at most ONE
    started ahead of the next call with its imports under way (a burst of calls leaves one behind, not one per
    call), reaped once it has waited `idle` seconds. `stop_all` (the client went away) kills them all."""

    def __init__(self, idle: float = IDLE_S) -> None:
        self._live: set[subprocess.Popen[bytes]] = set()
        self._spare: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self.idle = idle

    def alive(self) -> int:
        """The worker processes running now (the calls' and the spare)."""
        with self._lock:
            return sum(1 for p in self._live if p.poll() is None)

    def isolated(self, argv: Sequence[str], stdin: str | None = None, deadline: float | None = None) -> Ran:
        """`kubectl pd ARGV` in a worker process; past `deadline` seconds it is killed (with its process group)
        and the outcome says so (exit 1)."""
        from kubectl_pd.agent import words as agent_words

        if self.stopping.is_set():
            return Ran.failed(agent_words.STOPPING)
        proc = self._take()
        try:
            data, _ = proc.communicate(json.dumps({"argv": list(argv), "stdin": stdin}).encode(), timeout=deadline)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return Ran.failed(agent_words.past_deadline(deadline or 0))
        finally:
            with self._lock:
                self._live.discard(proc)
        if self.stopping.is_set() and proc.returncode and proc.returncode < 0:
            return Ran.failed(agent_words.STOPPING)
        try:
            return answered(json.loads(data))
        except (ValueError, KeyError, TypeError):
            return Ran.failed(agent_words.worker_failed(proc.returncode))

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-m", "kubectl_pd.agent.worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=None, env=_worker_env(), start_new_session=True)
        with self._lock:
            self._live.add(proc)
        return proc

    def _take(self) -> subprocess.Popen[bytes]:
        """A worker for this call (the spare one when it is still alive), and a new spare for the next."""
        with self._lock:
            spare = self._spare.pop() if self._spare else None
        if spare is None or spare.poll() is not None:
            if spare is not None:
                with self._lock:
                    self._live.discard(spare)
            spare = self._start()
        with self._lock:
            wanted = not self.stopping.is_set() and not self._spare
        if wanted:
            ahead = self._start()
            with self._lock:
                keep = not self._spare and not self.stopping.is_set()
                if keep:
                    self._spare.append(ahead)
            if keep:
                self._reap_later(ahead)
            else:  # another call's spare got there first: one is enough
                self._drop(ahead)
        return spare

    def _reap_later(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill PROC if it is still the spare `idle` seconds from now."""
        timer = threading.Timer(self.idle, self._reap, (proc,))
        timer.daemon = True
        timer.start()

    def _reap(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            if proc not in self._spare:
                return
            self._spare.remove(proc)
        self._drop(proc)

    def _drop(self, proc: subprocess.Popen[bytes]) -> None:
        _kill(proc)
        with self._lock:
            self._live.discard(proc)

    def stop_all(self) -> None:
        """The client went away: every worker killed, and no new call started."""
        self.stopping.set()
        with self._lock:
            procs = list(self._live)
            self._spare.clear()
        for p in procs:
            _kill(p)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """The worker and every process of its group (a credential plugin it started)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()
