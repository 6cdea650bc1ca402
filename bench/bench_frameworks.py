"""One DisaggregatedSet diagnosis next to kubectl's read of the same Workloads, on the real frameworks' plane
(issue 47's "Done when": the requests and wall time of one `ds/NAME` diagnosis against `kubectl get workloads -l
kueue.x-k8s.io/job-uid=...`).

scripts/real-cluster up --lws (kube-apiserver, etcd, kwok, kube-controller-manager, LWS v0.9's manager, Kueue with
its LWS, Deployment and StatefulSet integrations; the lws_plane fixture's plane) holds a half-admitted
DisaggregatedSet, as the journey tests/realcluster/test_frameworks_journeys.py brings it about: a ClusterQueue of 5
cards, prefill one Pod of 2 (priority pd-high), decode one group of 2 Pods of 2 (pd-low), the queue held until both
roles' Workloads exist: Kueue admits prefill, decode waits. Then, interleaved, after a warm-up round:

  kubectl pd why-pending ds/pd -o json     (kubectl's plugin dispatch, as a user runs it)
  kubectl get workloads -l 'kueue.x-k8s.io/job-uid in (<each role's LWS uid>)' -o json
  kubectl pd capacity ds/pd -o json        (one more group of every role)

kubectl's line is handed the LWS uids: a user first finds them (`kubectl get lws -l
disaggregatedset.x-k8s.io/name=pd`), one more request not timed here. Medians of wall time and client CPU, the
machine's load average after each row; each command once more traced: ours by KUBECTL_PD_TRACE (cluster/pool.py),
kubectl's by its -v=6 log (bench_real_groups.klog_trace): requests and dependent rounds. Wrap it in
`flock /tmp/bench.lock` so no two timing runs overlap.

Run: flock /tmp/bench.lock python bench/bench_frameworks.py [--runs 9] [--kueue 0.19] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_live import BIN, kubectl  # noqa: E402
from bench_real_groups import klog_trace, measure  # noqa: E402
from trace_rounds import rounds  # noqa: E402

from tests.realcluster import frameworks as fw  # noqa: E402
from tests.realcluster import journey as jr  # noqa: E402
from tests.realcluster.plane import Plane  # noqa: E402


def half_admitted(plane: Plane) -> tuple[str, dict[str, str]]:
    """The journey's DisaggregatedSet `pd`, prefill admitted and decode waiting: (namespace, role -> LWS uid)."""
    ns = plane.namespace("bfw")
    jr.layout(plane, "gpu", ns, {"q": {"z0": (5, None, None)}}, hold=("q",))
    ds = fw.disaggregated_set(ns, "pd", "q", [fw.Role("prefill", gpus=2), fw.Role("decode", size=2, gpus=2)])
    for r in ds["spec"]["roles"]:
        r["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "pd-high" if r["name"] == "prefill" else "pd-low"
    plane.apply(ds)
    roles = {x["metadata"]["labels"][fw.DS_ROLE]: x["metadata"]["uid"] for x in fw.wait_lws_of_set(plane, ns, "pd", 2)}
    for uid in roles.values():
        fw.wait_workloads(plane, ns, uid, 1)
    plane.kubectl("patch", "localqueue", "q", "-n", ns, "--type=json",
                  "-p", '[{"op":"remove","path":"/spec/stopPolicy"}]')
    pre = fw.settle(plane, ns, roles["prefill"], 1)
    dec = fw.settle(plane, ns, roles["decode"], 1)
    if not (fw.admitted(pre[0]) and not fw.admitted(dec[0])):
        sys.exit(f"not half-admitted: prefill admitted {fw.admitted(pre[0])}, decode {fw.admitted(dec[0])}")
    return ns, roles


def traced(cmd: list[str], env: dict[str, str], where: Path) -> dict[str, object]:
    """One run of CMD with a request trace: ours through KUBECTL_PD_TRACE, kubectl's from its -v=6 log."""
    trace = where / f"trace-{time.monotonic_ns()}"
    ours = cmd[1] == "pd"
    r = subprocess.run(cmd if ours else [*cmd, "-v=6"], env={**env, "KUBECTL_PD_TRACE": str(trace)},
                       capture_output=True, text=True, timeout=300)
    if not ours:
        trace.write_text("".join(klog_trace(r.stderr)))
    t = rounds(trace)
    lines = sorted(trace.read_text().splitlines()) if trace.exists() else []
    paths = [" ".join(ln.split(" ", 5)[4:]) for ln in lines]  # "METHOD PATH?QUERY", in the order sent
    return {"requests": t.requests, "rounds": t.rounds, "per_round": list(t.per_round), "exit": r.returncode,
            "paths": paths}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--kueue", default="0.19")
    ap.add_argument("--json", type=Path, help="write the figures here too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-fw-") as tmp:
        work = Path(tmp)
        plane = Plane(args.kueue, work / "plane")
        t0 = time.monotonic()
        plane.up("--lws")
        try:
            up_s = time.monotonic() - t0
            ns, roles = half_admitted(plane)
            kc = work / "kubeconfig"  # as kubectl writes it (bench_real_groups: PyYAML's costs kubectl-pd ~130 ms)
            kc.write_text(plane.kubectl("config", "view", "--raw", "--flatten", "--minify").stdout)
            kc.chmod(0o600)
            env = {"PATH": f"{BIN}:/usr/bin:/bin", "KUBECONFIG": str(kc), "HOME": str(plane.workdir),
                   "XDG_CACHE_HOME": str(work / "cache")}
            k = kubectl()
            uids = ",".join(sorted(roles.values()))
            why = [k, "pd", "why-pending", "ds/pd", "-n", ns, "-o", "json"]
            get = [k, "get", "workloads", "-n", ns, "-l", f"kueue.x-k8s.io/job-uid in ({uids})", "-o", "json"]
            cap = [k, "pd", "capacity", "ds/pd", "-n", ns, "-o", "json"]
            said = json.loads(subprocess.run(why, env=env, capture_output=True, text=True, timeout=300).stdout)
            codes = [r["code"] for r in said["reasons"]]
            print(f"Kueue {plane.version}, LWS {plane.state().get('lws')}; plane up in {up_s:.0f} s; "
                  f"why-pending ds/pd says {codes[0]} (reasons {codes}); {args.runs} interleaved rounds, "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
            row = measure("ds/pd: why-pending vs kubectl get workloads",
                          [("why-pending", why, env), ("kubectl", get, env), ("capacity", cap, env)], args.runs)
            row["traces"] = {label: traced(cmd, env, work) for label, cmd in
                             (("why-pending", why), ("kubectl", get), ("capacity", cap))}
            for label, t in row["traces"].items():  # type: ignore[attr-defined]
                print(f"     {label}: {t['requests']} requests in {t['rounds']} dependent rounds {t['per_round']}",
                      flush=True)
                for path in t["paths"] if label != "kubectl" else ():
                    print(f"         {path}", flush=True)
            row.update(kueue=plane.version, lws=plane.state().get("lws"), codes=codes, up_s=up_s)
            if args.json:
                args.json.write_text(json.dumps(row, indent=1, default=str))
        finally:
            plane.down()


if __name__ == "__main__":
    main()
