"""Bounded reads (issue 30, item 7): an answer announced as 1 GB, an endless chunked body, a gzip bomb and
a server that hands out a new continue token on every page each end with one clear error, quickly and in
bounded memory (peak RSS of the real process, measured with wait4). Real subprocess runs against the
loopback server (tests/apiserver.py)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.apiserver import FakeApiServer, Fault

CQ_LIST = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}
MiB = 1 << 20


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[FakeApiServer, Path]]:
    s = FakeApiServer(objects=[CQ]).start()
    yield s, s.write_kubeconfig(tmp_path / "kc")
    s.stop()


def _measured(kc: Path, args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, float, int]:
    """(exit code, stderr, seconds, peak RSS in bytes) of one real run. The peak is the child's VmHWM, read
    from /proc while it runs (the high-water mark of its own image, which exec resets; wait4's ru_maxrss
    would count the test process it was forked from)."""
    full = {**os.environ, "KUBECONFIG": str(kc), **(env or {})}
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([sys.executable, "-m", "kubectl_pd", *args], env=full, stdout=subprocess.DEVNULL,
                             stderr=err)
        peak = 0
        while p.poll() is None:
            try:
                status = Path(f"/proc/{p.pid}/status").read_text()
            except OSError:
                break
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) * 1024)
            time.sleep(0.005)
        p.wait(timeout=120)
        seconds = time.monotonic() - started
        err.seek(0)
        return p.returncode, err.read(), seconds, peak


def _one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


def test_an_answer_announced_as_1_gb_is_refused_before_it_is_read(server: tuple[FakeApiServer, Path]) -> None:
    s, kc = server
    s.faults.append(Fault(CQ_LIST, length=10**9))
    code, err, seconds, peak = _measured(kc, ["lint", "--request-timeout", "30s"])
    assert code == 1 and "KUBECTL_PD_MAX_RESPONSE_SIZE" in _one_error(err)
    assert seconds < 10 and peak < 200 * MiB


@pytest.mark.parametrize("shape", ["endless-chunked", "gzip-bomb", "endless-length"])
def test_an_endless_or_inflating_body_stops_at_the_bound(server: tuple[FakeApiServer, Path], shape: str) -> None:
    s, kc = server
    fault = {"endless-chunked": Fault(CQ_LIST, body=b" " * MiB, endless=True),
             "gzip-bomb": Fault(CQ_LIST, body=gzip.compress(b" " * (256 * MiB), 9),
                                headers={"Content-Encoding": "gzip"}),
             "endless-length": Fault(CQ_LIST, body=b" " * MiB, length=(1 << 40))}[shape]
    s.faults.append(fault)
    bound = 32 * MiB
    env = {"KUBECTL_PD_MAX_RESPONSE_SIZE": "32Mi"}
    code, err, seconds, peak = _measured(kc, ["lint", "--request-timeout", "60s"], env)
    assert code == 1 and "32Mi" in _one_error(err)
    assert seconds < 30
    assert peak < 3 * bound + 120 * MiB, peak  # the bound, a copy of it, and the interpreter


def test_a_new_continue_token_on_every_page_is_not_followed_forever(tmp_path: Path) -> None:
    s = FakeApiServer(objects=[CQ], endless_pages=True).start()
    try:
        kc = s.write_kubeconfig(tmp_path / "kc")
        code, err, seconds, _ = _measured(kc, ["lint", "--request-timeout", "30s"])
        assert code == 1 and _one_error(err)
        assert len(s.lists("clusterqueues")) <= 2 * (1 + 2) + 10
    finally:
        s.stop()


def test_a_bad_bound_is_an_input_error(server: tuple[FakeApiServer, Path]) -> None:
    _, kc = server
    code, err, _, _ = _measured(kc, ["lint"], {"KUBECTL_PD_MAX_RESPONSE_SIZE": "lots"})
    assert code == 2 and "KUBECTL_PD_MAX_RESPONSE_SIZE" in _one_error(err)
