"""why-pending -A at scale, side by side with kubectl against one loopback API server in one run.

N pending Workloads (one CPU pod each) spread over 20 namespaces, all queued on one full ClusterQueue,
served by `tests/apiserver.py` over HTTPS in a process of its own (a client forked from a process that
holds N objects would count that process's pages in its own peak memory). Ours:
`kubectl pd why-pending -A -o json`; theirs: `kubectl get workloads -A -o json`. Goal (issue 22): within
2x in wall time, peak memory within kubectl's, and a request count that does not grow with N (apart
from pages of 500). Preemption at scale (20 queues x 1,000 admitted Workloads) is bench_preemption.py.

For each command: the median wall time of interleaved runs, the client's CPU (user + system, the process
and its children, from wait4) and its peak resident memory, and the requests the server saw.

A last row serves the first size again with the visibility API listing the first 1,000 pending Workloads
(`--listed`, the API's default page), as a real cluster with it enabled does: every diagnosis then has a
queue position and the Workloads before it.

Run: python bench/bench_scale.py [--runs 3] [--sizes 2000,10000] [--listed 1000]
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

from bench_live import kubectl, measured  # noqa: E402

from tests.apiserver import FakeApiServer  # noqa: E402

BIN = Path(sys.executable).parent
API = "kueue.x-k8s.io/v1beta2"
NAMESPACES = 20


def flavor(name: str) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {}}


def cluster_queue(name: str, cpu: int, *, cohort: str | None = None, used: int = 0,
                  within: str = "Never", reclaim: str = "Never") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
            {"name": "default", "resources": [{"name": "cpu", "nominalQuota": str(cpu)}]}]}],
        "preemption": {"withinClusterQueue": within, "reclaimWithinCohort": reclaim},
    }
    if cohort:
        spec["cohortName"] = cohort
    usage = [{"name": "default", "resources": [{"name": "cpu", "total": str(used), "borrowed": "0"}]}]
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec,
            "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Ready",
                                       "message": "Can admit new workloads",
                                       "lastTransitionTime": "2026-11-20T08:00:00Z"}],
                       "flavorsReservation": usage, "flavorsUsage": usage,
                       "admittedWorkloads": 0, "reservingWorkloads": 0, "pendingWorkloads": 0}}


def local_queue(ns: str, cq: str) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": ns},
            "spec": {"clusterQueue": cq}}


def workload(ns: str, name: str, *, cpu: int = 1, priority: int = 0, admitted_to: str | None = None,
             created: str = "2026-11-30T10:00:00Z") -> dict[str, Any]:
    wl: dict[str, Any] = {
        "apiVersion": API, "kind": "Workload",
        "metadata": {"name": name, "namespace": ns, "creationTimestamp": created, "uid": f"uid-{ns}-{name}"},
        "spec": {"queueName": "main", "priority": priority, "podSets": [{"name": "main", "count": 1, "template": {
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}}}]},
    }
    if admitted_to is None:
        wl["status"] = {"conditions": [{
            "type": "QuotaReserved", "status": "False", "reason": "Pending",
            "lastTransitionTime": created,
            "message": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                       f"default, {cpu} more needed"}]}
    else:
        wl["status"] = {
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "lastTransitionTime": created,
                 "message": f"Quota reserved in ClusterQueue {admitted_to}"},
                {"type": "Admitted", "status": "True", "reason": "Admitted", "lastTransitionTime": created,
                 "message": "The workload is admitted"}],
            "admission": {"clusterQueue": admitted_to, "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(cpu)}}]}}
    return wl


def pending_cluster(n: int) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = [flavor("default"), cluster_queue("full", 10, used=10)]
    for i in range(NAMESPACES):
        ns = f"team-{i:02d}"
        objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        objs.append(local_queue(ns, "full"))
    for i in range(n):
        objs.append(workload(f"team-{i % NAMESPACES:02d}", f"job-{i:05d}"))
    return objs


def visibility(n: int, listed: int) -> dict[str, Any]:
    """The visibility API's summary of ClusterQueue `full`: its first `listed` pending Workloads, in order."""
    items = [{"metadata": {"name": f"job-{i:05d}", "namespace": f"team-{i % NAMESPACES:02d}"}, "priority": 0,
              "localQueueName": "main", "positionInClusterQueue": i, "positionInLocalQueue": i // NAMESPACES}
             for i in range(min(n, listed))]
    return {"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/full/pendingworkloads":
            {"kind": "PendingWorkloadsSummary", "apiVersion": "visibility.kueue.x-k8s.io/v1beta2", "items": items}}


def compare(label: str, n: int, ours: list[str], theirs: list[str], runs: int,
            goal_wall: float, goal_mem: float, listed: int = 0) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    kc = tmp / "kubeconfig"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(n), str(kc), str(listed)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
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
        a: list[tuple[float, float, int, int]] = []
        b: list[tuple[float, float, int, int]] = []
        requests = 0
        for _ in range(runs):
            before = served()
            a.append(measured(ours, env, 900))
            requests = served() - before
            b.append(measured(theirs, env, 900))
        med = statistics.median
        wall = med(x[0] for x in a) / med(x[0] for x in b)
        mem = med(x[2] for x in a) / med(x[2] for x in b)
        codes = sorted({(x[3], y[3]) for x, y in zip(a, b, strict=True)})
        print(f"{label:<28} ours {med(x[0] for x in a):7.2f} s wall {med(x[1] for x in a):6.2f} s cpu "
              f"{med(x[2] for x in a) / 1024:6.0f} MiB  {requests:>5} requests | kubectl "
              f"{med(x[0] for x in b):6.2f} s wall {med(x[1] for x in b):6.2f} s cpu "
              f"{med(x[2] for x in b) / 1024:6.0f} MiB | wall {wall:5.2f}x (goal <= {goal_wall:g}x) "
              f"memory {mem:5.2f}x (goal <= {goal_mem:g}x) exit codes {codes}", flush=True)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def serve(n: int, kubeconfig: str, listed: int = 0) -> None:
    """The server, in this process of its own: answers `count` on stdin with the requests seen so far. With
    `listed`, the visibility API lists that many of the pending Workloads (else it is not served)."""
    server = FakeApiServer(objects=pending_cluster(n), raw=visibility(n, listed) if listed else {}).start()
    server.write_kubeconfig(Path(kubeconfig), namespace="team-00")
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "count":
            print(len(server.requests), flush=True)
    server.stop()


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        return serve(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--listed", type=int, default=1000,
                    help="a last row at the first size with the visibility API listing this many (0: none)")
    args = ap.parse_args()
    k = kubectl()
    theirs = [k, "get", "workloads", "-A", "-o", "json"]
    ours = [k, "pd", "why-pending", "-A", "-o", "json"]
    sizes = [int(s) for s in args.sizes.split(",") if s]
    for n in sizes:
        compare(f"why-pending -A, {n} pending", n, ours, theirs, args.runs, 2.0, 1.0)
    if args.listed and sizes:
        compare(f"  the same, {args.listed} listed", sizes[0], ours, theirs, args.runs, 2.0, 1.0, args.listed)

if __name__ == "__main__":
    main()
