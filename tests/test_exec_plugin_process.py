"""An exec credential plugin's processes (issue 30, item 5): it runs in its own process group, killed with
its children on timeout and on Ctrl-C; a credential it printed before exiting is taken at once, whatever a
child of it still holds open (kubectl waits for that child's end: client-go runs the plugin with
exec.Cmd.Run and a bytes.Buffer as its stdout, plugin/pkg/client/auth/exec/exec.go@940ba0429d407abf3dc389ee
08d81a8603b3728d (refreshCredsLocked), so Go's Wait copies the pipe to its end of file).

Real subprocess runs against the loopback server (tests/apiserver.py); the plugin writes its own pid and
its child's to a file, and the test looks both up in /proc afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.apiserver import TOKEN, FakeApiServer
from tests.conftest import spawn_interruptible

PLUGIN = """\
import json, os, subprocess, sys, time
pids, mode = sys.argv[1], sys.argv[2]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])  # inherits stdout, stderr
with open(pids + ".part", "w") as fh:
    fh.write(f"{os.getpid()} {child.pid}")
os.rename(pids + ".part", pids)
if mode == "print":
    print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                      "status": {"token": "TOKEN"}}), flush=True)
    sys.exit(0)
time.sleep(120)
""".replace("TOKEN", TOKEN)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _pids(path: Path, within: float = 30) -> list[int]:
    end = time.monotonic() + within
    while not path.exists():
        assert time.monotonic() < end, "the plugin never started"
        time.sleep(0.02)
    return [int(p) for p in path.read_text().split()]


def _gone(pids: list[int], within: float = 3) -> bool:
    end = time.monotonic() + within
    while any(_alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.05)
    return not any(_alive(p) for p in pids)


@pytest.fixture
def plugin_kubeconfig(tmp_path: Path) -> Iterator:
    servers: list[FakeApiServer] = []
    pidfile = tmp_path / "pids"

    def make(mode: str) -> tuple[Path, Path]:
        (tmp_path / "plugin.py").write_text(PLUGIN)
        server = FakeApiServer().start()
        servers.append(server)
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                         "args": [str(tmp_path / "plugin.py"), str(pidfile), mode], "interactiveMode": "Never"}}
        return server.write_kubeconfig(tmp_path / "kc", user=user), pidfile

    yield make
    if pidfile.exists():
        for pid in (int(p) for p in pidfile.read_text().split()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for s in servers:
        s.stop()


def _env(kc: Path) -> dict[str, str]:
    env = {**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1"}
    env.pop("KUBECTL_PD_DEBUG", None)
    return env


def test_a_credential_printed_before_exit_is_taken_though_a_child_holds_stdout(plugin_kubeconfig) -> None:
    kc, pidfile = plugin_kubeconfig("print")
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--request-timeout", "20s"], env=_env(kc),
                       capture_output=True, text=True, timeout=90)
    took = time.monotonic() - start
    plugin, child = _pids(pidfile)
    assert r.returncode == 0, r.stderr
    assert took < 15, took  # not the 20 s deadline (twice it, before): the child's open stdout is not waited for
    assert not _alive(plugin) and _alive(child)  # the child was the plugin's business, left as kubectl leaves it


def test_a_plugin_past_the_deadline_is_killed_with_its_children(plugin_kubeconfig) -> None:
    kc, pidfile = plugin_kubeconfig("hang")
    r = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--request-timeout", "3s"], env=_env(kc),
                       capture_output=True, text=True, timeout=90)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [f"error: exec credential plugin `{sys.executable}` did not finish within 3s "
                                     "(--request-timeout)"]
    assert _gone(_pids(pidfile))


@pytest.mark.parametrize("command", [["lint"], ["why-pending", "-A"]])
def test_ctrl_c_kills_the_plugin_and_its_children(plugin_kubeconfig, command: list[str]) -> None:
    kc, pidfile = plugin_kubeconfig("hang")
    p = spawn_interruptible([sys.executable, "-m", "kubectl_pd", *command, "--request-timeout", "60s"],
                            env=_env(kc))
    try:
        pids = _pids(pidfile)
        p.send_signal(signal.SIGINT)
        start = time.monotonic()
        _, err = p.communicate(timeout=30)
        assert time.monotonic() - start < 3
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and err.strip().splitlines()[-1] == "error: interrupted", err
    assert _gone(pids)
