"""Issue 39's figures on running MultiKueue planes (scripts/real-cluster up --multikueue-workers N): the
requests one cross-cluster why-pending makes on each cluster (the manager's diagnosis, its MultiKueue reads,
each worker's copy), and its wall time against `kubectl get workload NAME -o json` on the manager.

The MultiKueue part alone (multikueue/run.explain, in process) is timed too: the figure its read waves change.

Run: python bench/bench_multikueue.py --kubeconfig DIR/kubeconfig --namespace NS --workload NAME [--runs 5]
(the planes and the Workload are the caller's: e.g. tests/realcluster/test_multikueue.py's shapes)
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_live import BIN, kubectl, pair  # noqa: E402

from kubectl_pd.cluster.config import ClusterOptions  # noqa: E402
from kubectl_pd.cluster.live import LiveSource  # noqa: E402


class Counted:
    """A Source that counts the calls it passes on (get, list, get_raw), by cluster."""

    def __init__(self, inner: Any, name: str, counts: Counter[str]) -> None:
        self.inner, self.name, self.counts = inner, name, counts

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self.inner, attr)
        if attr in ("get", "list", "get_raw"):
            def call(*a: Any, **k: Any) -> Any:
                self.counts[self.name] += 1
                return value(*a, **k)
            return call
        return value


def requests(kubeconfig: str, ns: str, name: str) -> Counter[str]:
    from kubectl_pd.multikueue.run import explain
    from kubectl_pd.pending.gather import gather
    from kubectl_pd.pending.target import Target

    counts: Counter[str] = Counter()
    opts = ClusterOptions(kubeconfig=kubeconfig, context="admin")
    mgr = Counted(LiveSource(opts), "manager", counts)
    facts = gather(mgr, Target("PodGroup", name, ns), strict=False)  # type: ignore[arg-type]
    explain(mgr, facts, opts, {}, by_name=True,  # type: ignore[arg-type]
            open_worker=lambda ctx: Counted(LiveSource(ClusterOptions(kubeconfig=kubeconfig, context=ctx)), ctx,
                                            counts))  # type: ignore[arg-type,return-value]
    return counts


def mk_part(kubeconfig: str, ns: str, name: str, runs: int) -> list[float]:
    """Wall time (ms) of the MultiKueue part alone (multikueue/run.explain: the manager's MultiKueue reads and
    every worker's copy), in process, after one gather of the manager: what changes when its waves change."""
    import time

    from kubectl_pd.multikueue.run import explain
    from kubectl_pd.pending.gather import gather
    from kubectl_pd.pending.target import Target

    opts = ClusterOptions(kubeconfig=kubeconfig, context="admin")
    facts = gather(LiveSource(opts), Target("PodGroup", name, ns), strict=False)
    out = []
    for _ in range(runs + 1):  # the first warms imports and connections: dropped
        t = time.perf_counter()
        explain(LiveSource(opts), facts, opts, {}, by_name=True)
        out.append((time.perf_counter() - t) * 1000)
    return out[1:]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    counts = requests(a.kubeconfig, a.namespace, a.workload)
    print("requests by cluster:", dict(sorted(counts.items())), "total", sum(counts.values()))
    import statistics

    part = mk_part(a.kubeconfig, a.namespace, a.workload, max(a.runs, 5) * 3)
    print(f"MultiKueue part alone: median {statistics.median(part):.1f} ms, min {min(part):.1f} ms ({len(part)} runs)")
    env = {"KUBECONFIG": a.kubeconfig, "PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(Path.home())}
    k = kubectl()
    pair(f"why-pending {a.workload} (manager + workers)",
         [k, "pd", "why-pending", a.workload, "-n", a.namespace, "-o", "json", "--worker-contexts-by-name"],
         [k, "get", "workload", a.workload, "-n", a.namespace, "-o", "json"], env, a.runs, 3.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
