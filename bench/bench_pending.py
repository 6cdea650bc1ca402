"""Requests and wall time of `why-pending` for one target, on an empty namespace and on one with 10,000
unrelated Workloads, side by side in one run (run from the checkout: python bench/bench_pending.py); with
`--per-reason`, the request count of each reason's fixture.

The count must not move with the namespace's size: one target is read with label selectors, direct GETs
of the group's Workload and field-selected events, never a list of every Workload. For contrast the last
line times the list a naive tool would send instead.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kubectl_pd.cluster.config import ClusterOptions  # noqa: E402
from kubectl_pd.cluster.live import LiveSource  # noqa: E402
from kubectl_pd.pending import explain  # noqa: E402
from tests.apiserver import FakeApiServer, load_objects, unrelated_workloads  # noqa: E402

FIXTURES = {
    "seed shape (1 group, 2 pod sets)": ROOT / "tests/fixtures/pending/quota-exhausted.yaml",
    "per-replica shape (3 groups)": ROOT / "tests/fixtures/pending/per-replica-joint.yaml",
}
RUNS = 5


def unrelated(n: int) -> list[dict[str, Any]]:
    return unrelated_workloads(n, message="couldn't assign flavors to pod set main: insufficient unused "
                               "quota for cpu in flavor default, 1 more needed")


def measure(objs: list[dict[str, Any]], tmp: Path, raw: dict[str, Any] | None = None) -> tuple[int, float, list[str]]:
    server = FakeApiServer(objects=objs, raw=raw or {}).start()
    try:
        kc = server.write_kubeconfig(tmp / "kubeconfig")
        times, count, paths = [], 0, []
        for _ in range(RUNS):
            before = len(server.requests)
            source = LiveSource(ClusterOptions(kubeconfig=str(kc)))
            t0 = time.perf_counter()
            explain(source, "qwen-pd", "team-a")
            times.append(time.perf_counter() - t0)
            count = len(server.requests) - before
            paths = [r.path for r in server.requests[before:]]
        return count, statistics.median(times), paths
    finally:
        server.stop()


def naive_list(objs: list[dict[str, Any]], tmp: Path) -> tuple[int, float]:
    server = FakeApiServer(objects=objs).start()
    try:
        kc = server.write_kubeconfig(tmp / "kubeconfig-naive")
        source = LiveSource(ClusterOptions(kubeconfig=str(kc)))
        t0 = time.perf_counter()
        n = len(source.list("Workload", "team-a"))
        return n, time.perf_counter() - t0
    finally:
        server.stop()


def per_reason(tmp: Path) -> None:
    """Requests of one diagnosis per reason fixture (empty namespace; Nodes, the Workloads ahead and the
    visibility API counted where the reason reads them)."""
    import json

    vis = json.loads((ROOT / "tests/fixtures/pending/waiting-in-queue-visibility.json").read_text())
    vis_path = "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/gpustack--nvidia-h20-linux-amd64/pendingworkloads"
    print("requests per reason (one fixture each, empty namespace)")
    for path in sorted((ROOT / "tests/fixtures/pending").glob("*.yaml")):
        raw = {vis_path: vis} if path.stem == "waiting-in-queue" else None
        count, _wall, _paths = measure(load_objects(path), tmp, raw)
        print(f"  {path.stem:32} {count:>3}")


def main() -> None:
    if "--per-reason" in sys.argv:
        with tempfile.TemporaryDirectory() as d:
            per_reason(Path(d))
        return
    big = unrelated(10_000)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(f"why-pending, one target, median of {RUNS} runs against tests/apiserver.FakeApiServer")
        print(f"{'fixture':36} {'other Workloads':>15} {'requests':>9} {'wall time':>10}")
        for label, path in FIXTURES.items():
            rows = []
            for extra in (0, 10_000):
                objs = load_objects(path) + (big if extra else [])
                count, wall, paths = measure(objs, tmp)
                assert all(not p.endswith("/workloads") for p in paths), "a Workload list was sent"
                rows.append((count, wall))
                print(f"{label:36} {extra:>15,} {count:>9} {wall * 1000:>8.1f}ms")
            (c0, w0), (c1, w1) = rows
            print(f"{'':36} {'ratio 10k/empty':>15} {c1 / c0:>9.2f} {w1 / w0:>9.2f}x")
        n, wall = naive_list(load_objects(FIXTURES["seed shape (1 group, 2 pod sets)"]) + big, tmp)
        print(f"for contrast: one list of the namespace's Workloads returns {n:,} objects in {wall * 1000:.0f}ms")


if __name__ == "__main__":
    main()
