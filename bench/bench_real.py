"""kubectl-pd side by side with kubectl against a real kube-apiserver (scripts/real-cluster, with Kueue).

N pending Workloads (one GPU each, `spec.active: false`, so Kueue leaves them be) over 20 namespaces, on one
ClusterQueue, stored in the real etcd and served by the real kube-apiserver 1.36 (its own paging, gzip and
JSON). Rows: `why-pending -A -o json` against `kubectl get workloads -A -o json` at each size, and a live
single diagnosis of a real pending pod group against `kubectl get workload NAME -o json`. Median wall time
and client CPU of interleaved runs (bench_live.pair).

Run: python bench/bench_real.py [--runs 5] [--sizes 2000,10000] [--kueue 0.19]
(starts its own control plane; needs what scripts/real-cluster up needs)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import yaml  # noqa: E402
from bench_live import BIN, kubectl, pair  # noqa: E402

from tests.realcluster import objs  # noqa: E402
from tests.realcluster.plane import Plane, condition, wait_for  # noqa: E402


def fill(plane: Plane, n: int, start: int) -> None:
    docs = []
    for i in range(start, n):
        ns = f"bench-{i % 20}"
        docs.append(objs.workload(ns, f"w{i:05d}", "main", [("main", 1, {objs.GPU: "1"})], active=False))
    for k in range(0, len(docs), 1000):
        plane.kubectl("create", "-f", "-", input=yaml.safe_dump_all(docs[k:k + 1000]), timeout=1200)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--kueue", default="0.19")
    args = ap.parse_args()
    plane = Plane(args.kueue, Path(tempfile.mkdtemp(prefix="pd-bench-")) / "run").up()
    try:
        env = {"PATH": f"{BIN}:/usr/bin:/bin", "KUBECONFIG": str(plane.kubeconfig), "HOME": str(plane.workdir)}
        rf, cq = "bench-rf", "bench-cq"
        plane.apply(objs.flavor(rf), objs.cluster_queue(cq, [(rf, [objs.quota(objs.GPU, "2")])]),
                    *[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"bench-{i}"}} for i in range(20)],
                    *[objs.local_queue(f"bench-{i}", "main", cq) for i in range(20)])
        plane.apply(*[objs.group_pod("bench-0", f"g-{r}", "g", 2, "main", r, {objs.GPU: "2"})
                      for r in ("prefill", "decode")], server_side=False)
        wait_for("Kueue's verdict", lambda: any(w["metadata"]["name"] == "g" and condition(w, "QuotaReserved")
                                                for w in plane.get("workloads", namespace="bench-0")["items"]))
        k = kubectl()
        server = json.loads(plane.kubectl("version", "-o", "json").stdout)["serverVersion"]["gitVersion"]
        print(f"Kueue {plane.version}, kube-apiserver {server}; {args.runs} interleaved runs; "
              f"wall ours / kubectl / ratio | CPU ours / kubectl / ratio")
        pair("live why-pending podgroup/g -o json",
             [k, "pd", "why-pending", "podgroup/g", "-n", "bench-0", "-o", "json"],
             [k, "get", "workload", "g", "-n", "bench-0", "-o", "json"], env, args.runs, 2.5)
        have = 0
        for n in (int(x) for x in args.sizes.split(",")):
            fill(plane, n, have)
            have = n
            pair(f"why-pending -A -o json, {n:,} pending", [k, "pd", "why-pending", "-A", "-o", "json"],
                 [k, "get", "workloads", "-A", "-o", "json"], env, args.runs, 2.0)
    finally:
        plane.down()
        shutil.rmtree(plane.workdir.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
