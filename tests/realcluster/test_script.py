"""scripts/real-cluster's own manners: one error line and exit 2 for bad usage, a component that does not get
ready stops everything with its last log lines, Ctrl-C stops everything, and nothing is left running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import spawn_interruptible
from tests.realcluster.plane import SCRIPT

pytestmark = pytest.mark.cluster


def _run(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def _ours_running(workdir: Path) -> list[int]:
    """Processes whose command line names WORKDIR (every component is started with a path inside it)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if str(workdir).encode() in (d / "cmdline").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
    return found


@pytest.mark.parametrize("args", [("up", "--kueue", "0.20", "--workdir", "{w}"), ("up", "--kueue", "0.19.9",
                                                                                   "--workdir", "{w}"),
                                  ("down", "--workdir", "{w}"), ("up", "--kueue", "0.19", "--workdir", "{w}",
                                                                 "--nodes", "0")])
def test_bad_usage_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    got = _run(*(a.format(w=tmp_path / "w") for a in args))
    assert got.returncode == 2 and got.stdout == ""
    assert len(got.stderr.strip().splitlines()) == 1 and got.stderr.startswith("error: ")


def test_without_go(tmp_path: Path) -> None:
    got = _run("up", "--kueue", "0.19", "--workdir", str(tmp_path / "w"), env={"PATH": "/usr/bin:/bin"})
    assert got.returncode == 2 and "go is not on PATH" in got.stderr
    assert not (tmp_path / "w").exists()


def test_a_component_not_ready_stops_everything(tmp_path: Path) -> None:
    w = tmp_path / "w"
    got = _run("up", "--kueue", "0.19", "--workdir", str(w), env={"REAL_CLUSTER_START_TIMEOUT": "0.05"})
    assert got.returncode == 1
    assert any(ln.startswith("error: ") and "not ready after" in ln for ln in got.stderr.splitlines())
    assert not _ours_running(w) and not w.exists()
    assert not Path("/visibility/tls.crt").exists()  # mounted only inside Kueue's namespace, never written here


def test_ctrl_c_stops_everything(tmp_path: Path) -> None:
    w = tmp_path / "w"
    # as a terminal starts a foreground job: a run started in the background (SIGINT ignored) still sees Ctrl-C
    p = spawn_interruptible([sys.executable, str(SCRIPT), "up", "--kueue", "0.19", "--workdir", str(w)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (w / "logs" / "kube-apiserver.log").exists():
        time.sleep(0.1)
    assert (w / "logs").exists(), "up never reached kube-apiserver"
    p.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130 and time.monotonic() - t0 < 15, err
    assert not _ours_running(w) and not w.exists()


def test_a_port_taken_meanwhile_starts_the_plane_again_on_new_ports(tmp_path: Path) -> None:
    """CI once lost kube-apiserver's port between choosing it and binding it: up starts that plane again."""
    import socket

    w = tmp_path / "w"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        # the ports are chosen in the order etcd, etcd's peer, kube-apiserver, ...: the third is taken
        got = _run("up", "--kueue", "0.19", "--workdir", str(w), "--nodes", "1",
                   env={"REAL_CLUSTER_PORTS": f",,{taken}"})
    try:
        assert got.returncode == 0, got.stderr[-3000:]
        assert "starting again on new ports" in got.stderr
        assert f":{taken}" not in (w / "kubeconfig").read_text()
        ports = json.loads((w / "state.json").read_text())["ports"]
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
        assert len(set(ports.values())) == len(ports) and all(p < low for p in ports.values())
    finally:
        assert _run("down", "--workdir", str(w)).returncode == 0
    assert not _ours_running(w) and not w.exists()
