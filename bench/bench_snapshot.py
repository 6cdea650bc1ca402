"""`kubectl pd snapshot -A` at scale, side by side with kubectl on one loopback API server (issue 32).

The cluster of bench_scale.py (N pending Workloads over 20 namespaces, one full ClusterQueue), served in a
process of its own. Ours: `kubectl pd snapshot -A -o FILE` (.yaml and .json; the reads of `why-pending -A`,
redacted, written atomically); theirs: what a user would paste into a bug report without it,
`kubectl get workloads,pods,localqueues,clusterqueues,resourceflavors,events -A -o yaml`. Median wall time,
CPU, peak memory and the requests our run made.

Run: python bench/bench_snapshot.py [--runs 3] [--sizes 2000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_live import kubectl  # noqa: E402
from bench_scale import compare  # noqa: E402  (its server runs as bench_scale.py --serve)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="2000")
    args = ap.parse_args()
    k = kubectl()
    out = Path(tempfile.mkdtemp(prefix="bench-snapshot-"))
    theirs = [k, "get", "workloads,pods,localqueues,clusterqueues,resourceflavors,events", "-A", "-o", "yaml"]
    for n in (int(s) for s in args.sizes.split(",") if s):
        for suffix in ("yaml", "json"):
            ours = [k, "pd", "snapshot", "-A", "-o", str(out / f"snapshot.{suffix}")]
            compare(f"snapshot -A -o .{suffix}, {n}", n, ours, theirs, args.runs, 2.0, 1.0)


if __name__ == "__main__":
    main()
