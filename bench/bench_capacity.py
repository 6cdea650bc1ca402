"""`kubectl pd capacity` and `kubectl pd queues` next to `kubectl get clusterqueues,workloads -A -o json`, on one
loopback API server (tests/apiserver.py, in a process of its own) holding a GPUStack cohort of 20 ClusterQueues
and N admitted Workloads (one card each) spread over 20 namespaces, and N/8 Nodes of 8 cards. The pool the
deployment asks for is full of low-priority Workloads and allows preemption, so capacity counts now (0), then up
to 20 copies by preemption, reading that pool's admitted Workloads (one field-selected list) and the flavor's
Nodes (one paged list); queues reads two lists. Median wall time,
client CPU, peak memory and the requests the server saw, as bench_scale.py prints them. Goal (issue 41): within
2x of kubectl's wall time.

Run: python bench/bench_capacity.py [--runs 3] [--sizes 2000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_live import kubectl, measured  # noqa: E402

from tests.apiserver import FakeApiServer  # noqa: E402

BIN = Path(sys.executable).parent
API = "kueue.x-k8s.io/v1beta2"
CREDITS = "credits.gpustack.ai/nvidia"
CARD = 1_600_000
QUEUES = 20
POOL = "gpustack--nvidia-h20-linux-amd64"
ACTIVE = [{"type": "Active", "status": "True", "reason": "Ready", "message": ""}]


def _cq(name: str, cards: int, used: int) -> dict[str, Any]:
    usage = [{"name": "h20", "resources": [{"name": CREDITS, "total": str(used * CARD)}]}]
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": {"cohortName": "gpu", "preemption": {"withinClusterQueue": "LowerPriority"},
                     "resourceGroups": [{"coveredResources": [CREDITS], "flavors": [
                         {"name": "h20", "resources": [{"name": CREDITS, "nominalQuota": str(cards * CARD)}]}]}]},
            "status": {"conditions": ACTIVE, "flavorsReservation": usage, "flavorsUsage": usage,
                       "admittedWorkloads": used, "reservingWorkloads": used, "pendingWorkloads": 0}}


def _admitted(ns: str, name: str, cq: str) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "Workload",
            "metadata": {"name": name, "namespace": ns, "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"priority": -10, "queueName": "lq", "podSets": [{"name": "main", "count": 1}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                       "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                                      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": ""}],
                       "admission": {"clusterQueue": cq, "podSetAssignments": [
                           {"name": "main", "flavors": {CREDITS: "h20"}, "resourceUsage": {CREDITS: str(CARD)},
                            "count": 1}]}}}


def cluster(n: int) -> list[dict[str, Any]]:
    per = n // QUEUES
    names = [POOL, *(f"gpustack--peer-{i:02d}" for i in range(1, QUEUES))]
    objs: list[dict[str, Any]] = [_cq(q, per, per) for q in names]
    objs += [{"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "h20"}, "spec": {}},
             {"apiVersion": API, "kind": "Cohort", "metadata": {"name": "gpu"}, "spec": {}},
             {"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "InstanceType", "metadata": {"name": POOL},
              "status": {"entrance": "lq"}},
             {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "team-00"},
              "spec": {"clusterQueue": POOL}, "status": {"conditions": ACTIVE}}]
    objs += [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"team-{i:02d}"}} for i in range(20)]
    objs += [_admitted(f"team-{i % 20:02d}", f"wl-{i:05d}", names[i // per]) for i in range(per * QUEUES)]
    objs += [_node(i) for i in range(max(1, n // 8))]  # 8 cards a Node: the Nodes capacity weighs the Pods on
    return objs


def _node(i: int) -> dict[str, Any]:
    alloc = {"cpu": "96", "memory": "1Ti", "pods": "110", CREDITS: str(8 * CARD)}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"gpu-{i:04d}", "labels": {
        "nvidia.com/gpu.product": "NVIDIA-H20", "kubernetes.io/hostname": f"gpu-{i:04d}"}},
            "spec": {}, "status": {"allocatable": alloc, "capacity": alloc}}


def serve(n: int, kubeconfig: str) -> None:
    server = FakeApiServer(objects=cluster(n)).start()
    server.write_kubeconfig(Path(kubeconfig), namespace="team-00")
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "count":
            print(len(server.requests), flush=True)
    server.stop()


def compare(n: int, rows: list[tuple[str, list[str]]], theirs: list[str], runs: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-capacity-"))
    kc = tmp / "kubeconfig"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(n), str(kc)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdin is not None

        def served() -> int:
            assert server.stdout is not None and server.stdin is not None
            server.stdin.write("count\n")
            server.stdin.flush()
            return int(server.stdout.readline())

        if server.stdout.readline().strip() != "ready":
            sys.exit("the loopback API server did not start")
        env = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp), "NO_COLOR": "1",
               "KUBECONFIG": str(kc)}
        measured(theirs, env, 900)  # warm-up: kubectl's discovery cache, the page cache
        med = statistics.median
        b = [measured(theirs, env, 900) for _ in range(runs)]
        print(f"kubectl get clusterqueues,workloads -A -o json, {n}: {med(x[0] for x in b):6.2f} s wall "
              f"{med(x[1] for x in b):6.2f} s cpu {med(x[2] for x in b) / 1024:6.0f} MiB", flush=True)
        for label, ours in rows:
            measured(ours, env, 900)
            a = []
            requests = 0
            for _ in range(runs):
                before = served()
                a.append(measured(ours, env, 900))
                requests = served() - before
            wall = med(x[0] for x in a) / med(x[0] for x in b)
            print(f"  {label:<34} {med(x[0] for x in a):6.2f} s wall {med(x[1] for x in a):6.2f} s cpu "
                  f"{med(x[2] for x in a) / 1024:6.0f} MiB {requests:>4} requests | {wall:5.2f}x kubectl's wall "
                  f"(goal <= 2x) exit codes {sorted({x[3] for x in a})}", flush=True)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        return serve(int(sys.argv[2]), sys.argv[3])
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="2000")
    args = ap.parse_args()
    k = kubectl()
    shape = ["--instance-type", POOL, "--prefill", "1", "--decode", "2", "--priority", "10", "-n", "team-00"]
    for n in (int(s) for s in args.sizes.split(",") if s):
        compare(n, [("capacity (20 copies by preemption)", [k, "pd", "capacity", *shape, "-o", "json"]),
                    ("capacity --max-preemption 0", [k, "pd", "capacity", *shape, "--max-preemption", "0",
                                                     "-o", "json"]),
                    ("queues -o json", [k, "pd", "queues", "-o", "json"]),
                    ("queues (text)", [k, "pd", "queues"])],
                [k, "get", "clusterqueues,workloads", "-A", "-o", "json"], args.runs)


if __name__ == "__main__":
    main()
