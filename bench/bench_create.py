"""`kubectl pd create`: wall time of --help, --dry-run=client and --dry-run=server, side by side,
and the requests each sends (client: none; server: the preflight GETs plus one POST).

Run: python bench/bench_create.py   (from the repository root, with the package installed)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.apiserver import FakeApiServer, load_objects  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "create"
EXE = shutil.which("kubectl-pd", path=str(Path(sys.executable).parent)) or "kubectl-pd"
BASE = ["create", "qwen", "--model", "m", "--engine-version", "1", "--kv-cache-pool", "kv",
        "--instance-type", "gpustack--nvidia-h20-linux-amd64", "--prefill", "1", "--decode", "2"]


def median_time(args: list[str], env: dict[str, str], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        r = subprocess.run([EXE, *args], env=env, capture_output=True)
        times.append(time.perf_counter() - t)
        assert r.returncode == 0, r.stderr
    return statistics.median(times)


def main() -> None:
    offline = {**os.environ, "KUBECONFIG": "/nonexistent"}
    server = FakeApiServer(objects=load_objects(FIXTURES / "cluster.yaml", FIXTURES / "crd-pd-atomic.yaml")).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            kc = server.write_kubeconfig(Path(tmp) / "kc", namespace="team-a")
            live = {**os.environ, "KUBECONFIG": str(kc)}
            help_t, client_t, server_t = [], [], []
            before = len(server.requests)
            for _ in range(5):  # interleaved, so machine noise hits all three alike
                help_t.append(median_time(["--help"], offline, 1))
                client_t.append(median_time([*BASE, "--dry-run=client", "-o", "yaml"], offline, 1))
                server_t.append(median_time([*BASE, "--dry-run=server"], live, 1))
            per_run = (len(server.requests) - before) / 5
    finally:
        server.stop()
    h, c, s = (statistics.median(x) for x in (help_t, client_t, server_t))
    print(f"--help                     {h * 1000:7.1f} ms")
    print(f"--dry-run=client -o yaml   {c * 1000:7.1f} ms  ({c / h:.2f}x --help), 0 requests")
    print(f"--dry-run=server           {s * 1000:7.1f} ms  ({s / h:.2f}x --help), {per_run:.0f} requests per run")


if __name__ == "__main__":
    main()
