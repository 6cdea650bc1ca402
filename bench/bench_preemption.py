"""why-pending's preemption answer at scale, next to `kubectl get workloads -A -o json` on the same server.

20 ClusterQueues in one cohort, 1,000 admitted Workloads each (20,000), one pending Workload that needs
preemption in its own queue (withinClusterQueue and reclaimWithinCohort LowerPriority; one peer borrows).
Prints medians of interleaved runs of wall time and peak resident memory (the child's ru_maxrss, from
wait4) for `kubectl pd why-pending NAME -o json` and `kubectl get workloads -A -o json`, and the ratios
(goals: time <= 1.5x, memory <= 0.5x). Run: python bench/bench_preemption.py [RUNS]
"""

from __future__ import annotations

import copy
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

from tests.apiserver import FakeApiServer, load_objects  # noqa: E402

FIXTURE = ROOT / "tests/fixtures/pending/needs-preemption.yaml"
BIN = Path(sys.executable).parent
CQ = "gpustack--nvidia-h20-linux-amd64"
FLAVOR = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
CREDITS = "credits.gpustack.ai/nvidia"
QUEUES, PER_QUEUE = 20, 1000


def _wl(i: int, cq: str, credits: int, priority: int) -> dict[str, Any]:
    t = f"2026-11-28T{i % 24:02d}:{i % 60:02d}:00Z"
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": f"{cq}-wl-{i}", "namespace": f"ns-{i % 50}", "uid": f"uid-{cq}-{i}",
                     "creationTimestamp": t},
        "spec": {"queueName": "lq", "priority": priority, "podSets": [{"name": "main", "count": 1, "template": {
            "spec": {"containers": [{"name": "c", "resources": {"requests": {CREDITS: str(credits)}}}]}}}]},
        "status": {"admission": {"clusterQueue": cq, "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": {CREDITS: FLAVOR}, "resourceUsage": {CREDITS: str(credits)}}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                            "lastTransitionTime": t},
                           {"type": "Admitted", "status": "True", "reason": "Admitted", "lastTransitionTime": t}]},
    }


def objects() -> list[dict[str, Any]]:
    objs = load_objects(FIXTURE)
    base = next(o for o in objs if o["kind"] == "ClusterQueue")
    objs.remove(base)
    objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "bench"},
                 "spec": {}})
    for q in range(QUEUES):
        cq = copy.deepcopy(base)
        name = CQ if q == 0 else f"peer-{q}"
        cq["metadata"]["name"] = name
        cq["spec"]["cohortName"] = "bench"
        cq["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"}
        nominal = 25600
        # the cohort is full: the pending queue holds 9600k of its 25600k, peer-1 borrows the other 16000k,
        # every other peer uses its nominal quota; the pending 16000k fits the queue's nominal quota once
        # lower-priority Workloads (its own, or peer-1's) are preempted
        used = 9600 if q == 0 else (41600 if q == 1 else 25600)
        each = used * 1000 // PER_QUEUE
        total = each * PER_QUEUE
        cq["status"]["flavorsReservation"] = [{"name": FLAVOR, "resources": [{"name": CREDITS, "total": str(total)}]}]
        cq["status"]["flavorsUsage"] = copy.deepcopy(cq["status"]["flavorsReservation"])
        cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = f"{nominal}k"
        objs.append(cq)
        objs += [_wl(i, name, each, (i % 3) - 1) for i in range(PER_QUEUE)]
    return objs


def serve(kubeconfig: str) -> None:
    """The server in a process of its own: a child forked from a process holding 20,000 objects would
    start with that process's resident pages, and ru_maxrss would count them."""
    server = FakeApiServer(objects=objects()).start()
    server.write_kubeconfig(Path(kubeconfig), namespace="team-a")
    print("ready", flush=True)
    sys.stdin.read()
    lists = [r for r in server.requests if r.path.endswith("/workloads") and "fieldSelector" in r.query]
    print(len(lists), sorted({r.query["fieldSelector"] for r in lists}), flush=True)
    server.stop()


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        return serve(sys.argv[2])
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    k = kubectl()
    tmp = Path(tempfile.mkdtemp(prefix="bench-preempt-"))
    kc = tmp / "kubeconfig"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(kc)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdin is not None
        assert server.stdout.readline().strip() == "ready"
        env = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp), "NO_COLOR": "1",
               "KUBECONFIG": str(kc)}
        ours = [k, "pd", "why-pending", "qwen-pd", "-o", "json"]
        theirs = [k, "get", "workloads", "-A", "-o", "json"]
        out = subprocess.run(ours, env=env, capture_output=True, text=True, check=False)
        import json

        pre = json.loads(out.stdout).get("preemption") if out.returncode == 0 else out.stderr
        print(f"targets: {len(pre['targets']) if isinstance(pre, dict) and pre.get('targets') else pre}")
        measured(ours, env)
        measured(theirs, env)
        rows: dict[str, list[tuple[float, float, int, int]]] = {"ours": [], "kubectl": []}
        for _ in range(runs):
            rows["ours"].append(measured(ours, env))
            rows["kubectl"].append(measured(theirs, env))
        t = {n: statistics.median(r[0] for r in v) for n, v in rows.items()}
        m = {n: statistics.median(r[2] for r in v) for n, v in rows.items()}
        codes = {n: sorted({r[3] for r in v}) for n, v in rows.items()}
        print(f"workloads: {QUEUES * PER_QUEUE} in {QUEUES} ClusterQueues; {runs} interleaved runs, medians")
        print(f"why-pending: {t['ours'] * 1000:.0f} ms, {m['ours'] / 1024:.0f} MiB peak; exit {codes['ours']}")
        print(f"kubectl get workloads -A -o json: {t['kubectl'] * 1000:.0f} ms, {m['kubectl'] / 1024:.0f} MiB peak; "
              f"exit {codes['kubectl']}")
        print(f"time ratio {t['ours'] / t['kubectl']:.2f}x (goal <= 1.5x); memory ratio "
              f"{m['ours'] / m['kubectl']:.2f}x (goal <= 0.5x)")
        server.stdin.close()
        lists = server.stdout.readline().strip()
        print(f"field-selected Workload lists over {runs + 2} why-pending runs: {lists}")
    finally:
        server.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
