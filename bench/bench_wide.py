"""why-pending -A -o wide at 2,000 pending Workloads, next to `kubectl get workloads -A -o wide`, on one loopback
API server (the cluster of bench_scale.py: 2,000 pending Workloads over 20 namespaces on one full ClusterQueue,
served in a process of its own). Ours: `kubectl pd why-pending -A -o wide` (a diagnosis per Workload, the table
with queue, flavor, shortfall, position, age and preempting); theirs: kubectl's wide table of the same
Workloads (no diagnosis). Median wall time, CPU, peak memory and requests, as bench_scale.py prints them.

Run: python bench/bench_wide.py [--runs 3] [--sizes 2000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_live import kubectl  # noqa: E402
from bench_scale import compare, serve  # noqa: E402


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:  # bench_scale.compare starts its server through this file
        return serve(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="2000")
    args = ap.parse_args()
    k = kubectl()
    for n in (int(s) for s in args.sizes.split(",") if s):
        compare(f"why-pending -A -o wide, {n}", n, [k, "pd", "why-pending", "-A", "-o", "wide"],
                [k, "get", "workloads", "-A", "-o", "wide"], args.runs, 2.0, 1.0)
        compare(f"  -o json, {n}", n, [k, "pd", "why-pending", "-A", "-o", "json"],
                [k, "get", "workloads", "-A", "-o", "json"], args.runs, 2.0, 1.0)


if __name__ == "__main__":
    main()
