"""kubectl-pd next to kubectl on a real, populated control plane (issue 38): pod groups with their Pods and Events.

A real control plane (scripts/real-cluster: kube-apiserver 1.36 with its watch cache off, etcd 3.6, Kueue) holds N
two-role pod groups in one namespace (2 Pods each, one GPU a Pod, gated by Kueue's pod integration) on one
ClusterQueue whose quota admits one group, so the others wait in its queue, plus one Event per group about
its Workload. At each size, three measures, each side by side with kubectl's own read on the same server:

  why-pending podgroup/X -o json   vs  kubectl get workload X -o json
  why-pending -A                   vs  kubectl get workloads -A
  why-pending -A -o json           vs  kubectl get workloads -A -o json

and the floor beside the first: `kubectl pd --version` (kubectl's plugin dispatch, Python, click; no read) against
the same `kubectl get workload X -o json`. Each row prints the machine's load average when it ended.

Runs are interleaved (ours, kubectl, [the other build of ours], ours, ...); medians of wall time and client
CPU (bench_live.measured), and the median of the pairwise ratios. `--before DIR`: a checkout of another
commit (`git archive COMMIT | tar -x -C DIR`), measured in the same rounds as a third column (its
`kubectl-pd` is this Python with DIR first on sys.path).

`--krew`: "ours" is the krew archive this tree builds (dist/kubectl-pd-<version>-linux-<arch>.tar.gz, made by
scripts/build-release), unpacked as krew installs it, its launcher run by the first python3 on PATH after it
(/usr/bin's): what a user who installed the plugin runs, without the development install's import finder.

`--rtt-ms 0,20,50,100` (issue 49, a far cluster): every command, ours and kubectl's, goes through
bench/delayproxy.py, a relay that holds each chunk RTT/2 ms each way (TLS passes through); per RTT and size,
`podgroup/X -o json`, a bare NAME (`why-pending X -o json`) and `-A` next to kubectl's reads, interleaved,
medians. Each command is also run once traced: our request trace (KUBECTL_PD_TRACE, bench/trace_rounds.py:
requests, DEPENDENT ROUNDS, TLS handshakes) and, for both sides, the relay's own view (connections, and the
critical path in round trips on the wire, the TLS handshake's included). `--loopback`: the loopback API server
(tests/apiserver.py) holds the groups instead of a real plane (no Kueue controller: every Workload is plainly
pending, its visibility listing served as a raw path).

Run: python bench/bench_real_groups.py [--runs 7] [--sizes 250,2000] [--kueue 0.19] [--before DIR] [--watch-cache]
                                       [--krew] [--rtt-ms 0,20,50,100] [--loopback]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import yaml  # noqa: E402
from bench_live import BIN, kubectl, timed  # noqa: E402
from delayproxy import DelayProxy  # noqa: E402
from trace_rounds import rounds  # noqa: E402

from tests.apiserver import FakeApiServer  # noqa: E402
from tests.realcluster import objs  # noqa: E402
from tests.realcluster.plane import Plane, wait_for  # noqa: E402

NS, LQ, CQ, RF = "bench-pg", "main", "bench-cq", "bench-rf"


def group(i: int) -> str:
    return f"pg-{i:05d}"


def fill(plane: Plane, n: int, start: int) -> None:
    """Groups start..n-1: two Pods each (prefill, decode), then one Event about each group's Workload."""
    docs = [objs.group_pod(NS, f"{group(i)}-{role}", group(i), 2, LQ, role, {objs.GPU: "1"})
            for i in range(start, n) for role in ("prefill", "decode")]
    for k in range(0, len(docs), 500):
        plane.kubectl("create", "-f", "-", input=yaml.safe_dump_all(docs[k:k + 500]), timeout=1800)
    wait_for(f"{n} Workloads", lambda: len(plane.get("workloads", namespace=NS)["items"]) >= n, timeout=1800,
             every=2.0)
    events = [{"apiVersion": "v1", "kind": "Event",
               "metadata": {"name": f"{group(i)}.bench", "namespace": NS},
               "involvedObject": {"apiVersion": objs.KV, "kind": "Workload", "name": group(i), "namespace": NS},
               "reason": "Pending", "message": "bench: waiting for quota", "type": "Normal",
               "firstTimestamp": "2026-12-03T09:00:00Z", "lastTimestamp": "2026-12-03T09:00:00Z", "count": 1,
               "source": {"component": "bench"}} for i in range(start, n)]
    for k in range(0, len(events), 1000):
        plane.kubectl("create", "-f", "-", input=yaml.safe_dump_all(events[k:k + 1000]), timeout=1800)


def kc_server(text: str) -> str:
    """The server URL of a kubeconfig kubectl wrote (one cluster: --minify)."""
    return next(line.split("server:", 1)[1].strip() for line in text.splitlines() if "server:" in line)


def before_bin(tree: Path, where: Path) -> Path:
    """A bin directory whose `kubectl-pd` runs the checkout in TREE with this Python."""
    where.mkdir(parents=True, exist_ok=True)
    script = where / "kubectl-pd"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(tree)!r})\n"
                      # an editable install's import hook would load this tree's package instead
                      "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in "
                      "str(getattr(f, '__module__', ''))]\n"
                      "from kubectl_pd.commands.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return where


def krew_bin(where: Path) -> Path:
    """This tree's krew archive for this machine, unpacked into WHERE as krew would (its cache beside it)."""
    import platform
    import tarfile

    arch = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine()]
    archives = sorted((ROOT / "dist").glob(f"kubectl-pd-*-linux-{arch}.tar.gz"))
    if not archives:
        raise SystemExit("no krew archive in dist/: run python scripts/build-release first")
    where.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archives[-1]) as tf:
        tf.extractall(where, filter="data")
    return where


def measure(name: str, cmds: list[tuple[str, list[str], dict[str, str]]], runs: int) -> dict[str, object]:
    """Each command of CMDS once a round, RUNS rounds after a warm-up round; medians, ratios to the second
    (kubectl's read)."""
    for _label, cmd, env in cmds:
        timed(cmd, env)
    walls: dict[str, list[float]] = {label: [] for label, _c, _e in cmds}
    cpus: dict[str, list[float]] = {label: [] for label, _c, _e in cmds}
    codes: dict[str, set[int]] = {label: set() for label, _c, _e in cmds}
    for _ in range(runs):
        for label, cmd, env in cmds:
            wall, cpu, code = timed(cmd, env)
            walls[label].append(wall)
            cpus[label].append(cpu)
            codes[label].add(code)
    base = cmds[1][0]
    out: dict[str, object] = {"name": name}
    line = f"{name:<46}"
    for label, _c, _e in cmds:
        w, c = statistics.median(walls[label]), statistics.median(cpus[label])
        rw = statistics.median(a / b for a, b in zip(walls[label], walls[base], strict=True))
        rc = statistics.median(a / b if b else float("inf") for a, b in zip(cpus[label], cpus[base], strict=True))
        out[label] = {"wall": w, "cpu": c, "wall_ratio": rw, "cpu_ratio": rc, "codes": sorted(codes[label])}
        line += f" | {label}: {w * 1000:6.0f} ms / {c * 1000:6.0f} ms cpu"
        if label != base:
            line += f" ({rw:.2f}x, cpu {rc:.2f}x)"
    out["load"] = os.getloadavg()[0]
    print(f"{line} | load {out['load']:.1f}", flush=True)
    return out


def loopback_objects(n: int) -> tuple[list[dict[str, object]], dict[str, object]]:
    """The same layout on the loopback server: N groups' Pods, their (plainly pending) Workloads and Events,
    the queue, and the visibility API's listing of the ClusterQueue (a raw path)."""
    out: list[dict[str, object]] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
                                    objs.flavor(RF), objs.cluster_queue(CQ, [(RF, [objs.quota(objs.GPU, "2")])]),
                                    objs.local_queue(NS, LQ, CQ)]
    items = []
    for i in range(n):
        g = group(i)
        out += [objs.group_pod(NS, f"{g}-{role}", g, 2, LQ, role, {objs.GPU: "1"}) for role in ("prefill", "decode")]
        wl = objs.workload(NS, g, LQ, [("prefill", 1, {objs.GPU: "1"}), ("decode", 1, {objs.GPU: "1"})])
        wl["metadata"]["annotations"] = {"kueue.x-k8s.io/is-group-workload": "true"}  # type: ignore[index]
        wl["metadata"]["creationTimestamp"] = f"2026-12-03T09:{i // 60 % 60:02d}:{i % 60:02d}Z"  # type: ignore[index]
        out.append(wl)
        out.append({"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{g}.bench", "namespace": NS},
                    "involvedObject": {"apiVersion": objs.KV, "kind": "Workload", "name": g, "namespace": NS},
                    "reason": "Pending", "message": "bench: waiting for quota", "type": "Normal",
                    "firstTimestamp": "2026-12-03T09:00:00Z", "lastTimestamp": "2026-12-03T09:00:00Z",
                    "count": 1, "source": {"component": "bench"}})
        items.append({"metadata": {"name": g, "namespace": NS, "creationTimestamp": "2026-12-03T09:00:00Z"},
                      "priority": 0, "localQueueName": LQ, "positionInClusterQueue": i,
                      "positionInLocalQueue": i})
    vis = {"apiVersion": "visibility.kueue.x-k8s.io/v1beta2", "kind": "PendingWorkloadsSummary",
           "metadata": {"name": CQ}, "items": items}
    return out, {f"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/{CQ}/pendingworkloads": vis}


def traced(cmd: list[str], env: dict[str, str], proxy: DelayProxy, where: Path) -> dict[str, object]:
    """One run of CMD with a request trace and the relay counting connections: ours through KUBECTL_PD_TRACE,
    kubectl's from its own -v=6 log (each response's time and duration give its start)."""
    import subprocess

    trace = where / f"trace-{time.monotonic_ns()}"
    ours = cmd[1] == "pd"
    proxy.measure()
    r = subprocess.run(cmd if ours else [*cmd, "-v=6"], env={**env, "KUBECTL_PD_TRACE": str(trace)},
                       capture_output=True, text=True, timeout=300)
    conns = proxy.measure().conns
    if not ours:
        trace.write_text("".join(klog_trace(r.stderr)))
    t = rounds(trace)
    return {"requests": t.requests, "rounds": t.rounds, "per_round": list(t.per_round), "connections": conns,
            "handshakes": t.handshakes if ours else conns, "fresh_rounds": list(t.fresh_rounds)}


def klog_trace(log: str) -> list[str]:
    """kubectl -v=6's responses as trace lines (start, end; a connection per request is not known: 0)."""
    import re

    out = []
    for m in re.finditer(r"^I\d{4} (\d\d):(\d\d):(\d\d\.\d+) .*\"Response\" verb=\"(\w+)\" url=\"([^\"]*)\".*"
                         r"milliseconds=(\d+)", log, re.M):
        end = int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])
        out.append(f"{end - int(m[6]) / 1000:.6f} {end:.6f} 0 200 {m[4]} {m[5]}\n")
    return out


def said(t: dict[str, object]) -> str:
    return (f"{t['requests']} req in {t['rounds']} dependent rounds {t['per_round']}, {t['connections']} "
            f"connections")


def far(args: argparse.Namespace, k: str, base_env: dict[str, str], kc_text: str, server: str, work: Path,
        n: int, figures: list[dict[str, object]], old_env: dict[str, str] | None = None) -> None:
    """The far-cluster rows at size N: each RTT through its own relay."""
    host, _, port = server.removeprefix("https://").removeprefix("http://").rpartition(":")
    target = group(n // 2)
    rows = [
        (f"podgroup/X -o json, {n:,} groups", ["pd", "why-pending", f"podgroup/{target}", "-n", NS, "-o", "json"],
         ["get", "workload", target, "-n", NS, "-o", "json"]),
        (f"NAME -o json, {n:,} groups", ["pd", "why-pending", target, "-n", NS, "-o", "json"],
         ["get", "workload", target, "-n", NS, "-o", "json"]),
        (f"-A, {n:,} groups", ["pd", "why-pending", "-A"], ["get", "workloads", "-A"]),
    ]
    rows = [r for r in rows if not args.rows or any(r[0].startswith(w) for w in args.rows.split(","))]
    for rtt in (float(x) for x in args.rtt_ms.split(",")):
        proxy = DelayProxy((host, int(port)), rtt / 2, lifetime=3600).start()
        try:
            kc = work / f"kubeconfig-{rtt:g}"
            kc.write_text(kc_text.replace(server, server.split("://")[0] + "://" + proxy.address))
            kc.chmod(0o600)
            env = {**base_env, "KUBECONFIG": str(kc)}
            print(f"-- RTT {rtt:g} ms ({n:,} groups)", flush=True)
            for name, ours, theirs in rows:
                cmds = [("ours", [k, *ours], env), ("kubectl", [k, *theirs], env)]
                if old_env is not None:
                    cmds.append(("before", [k, *ours], {**old_env, "KUBECONFIG": str(kc)}))
                row = {"size": n, "rtt_ms": rtt, **measure(f"RTT {rtt:g}: {name}", cmds, args.runs)}
                row["ours_trace"] = traced([k, *ours], env, proxy, work)
                row["kubectl_trace"] = traced([k, *theirs], env, proxy, work)
                print(f"     ours: {said(row['ours_trace'])} (new ones in rounds {row['ours_trace']['fresh_rounds']})"
                      f"\n     kubectl: {said(row['kubectl_trace'])}", flush=True)
                figures.append(row)
        finally:
            proxy.stop()


def concurrent_handshakes(server: FakeApiServer) -> FakeApiServer:
    """The loopback server's TLS handshake moved from its accept loop (one connection at a time: through the relay
    each costs a round trip, so eight connections opened together wait for each other) to each connection's own
    thread, as a real API server does it: the accept loop takes plain sockets from the same listening socket, and
    each connection's thread wraps its own (a wrapped listening socket that deferred its handshakes, the way this
    did before, left some of a first round's connections unanswered until the client's timeout)."""
    import os
    import socket
    import ssl

    httpd = server._httpd
    assert httpd is not None and server.tls is not None and not isinstance(server.tls, bool)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(server.tls.cert), str(server.tls.key))
    plain = socket.socket(fileno=os.dup(httpd.socket.fileno()))  # the same listening socket, not wrapped
    plain.listen(128)  # and a real server's backlog (its 5 drop the SYN of a sixth connection: a 1 s retry)
    finish = httpd.finish_request

    def wrapped(request: socket.socket, address: object) -> None:
        try:
            conn = ctx.wrap_socket(request, server_side=True)
        except OSError:
            request.close()
            return
        try:
            finish(conn, address)  # type: ignore[arg-type]
        finally:
            conn.close()

    httpd.get_request = plain.accept  # type: ignore[method-assign]
    httpd.finish_request = wrapped  # type: ignore[method-assign]
    return server


def main_loopback(args: argparse.Namespace) -> None:
    from tests.apiserver import DEFAULT_GROUPS

    work = Path(tempfile.mkdtemp(prefix="pd-bench-far-"))
    figures: list[dict[str, object]] = []
    k = kubectl()
    try:
        print(f"loopback API server (tests/apiserver.py), {args.runs} interleaved rounds; wall / client CPU, "
              f"medians; ratios to kubectl's", flush=True)
        for n in (int(x) for x in args.sizes.split(",")):
            objects, raw = loopback_objects(n)
            # the visibility group left out of discovery: the loopback server answers its discovery with no
            # resources, which kubectl will not cache (a discovery round of ten GETs on every run, which a real
            # plane's cached discovery does not cost); its listing is served as a raw path all the same
            groups = {g: v for g, v in DEFAULT_GROUPS.items() if not g.startswith("visibility.")}
            server = concurrent_handshakes(FakeApiServer(objects=objects, raw=raw, groups=groups).start())
            try:
                plain = server.write_kubeconfig(work / "kubeconfig.yaml")
                env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(work), "XDG_CACHE_HOME": str(work / "cache"),
                       "KUBECONFIG": str(plain)}
                import subprocess

                kc_text = subprocess.run([k, "config", "view", "--raw", "--flatten", "--minify"], env=env,
                                         capture_output=True, text=True, check=True).stdout
                far(args, k, env, kc_text, server.url, work, n, figures)
            finally:
                server.stop()
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--sizes", default="250,2000")
    ap.add_argument("--kueue", default="0.19")
    ap.add_argument("--before", type=Path, help="a checkout of another commit, measured beside this one")
    ap.add_argument("--json", type=Path, help="write the figures here too")
    ap.add_argument("--watch-cache", action="store_true", help="kube-apiserver's watch cache on (as in production)")
    ap.add_argument("--krew", action="store_true", help="ours: the krew archive of this tree, as installed")
    ap.add_argument("--rtt-ms", help="far cluster: these round-trip times through bench/delayproxy.py (0,20,50,100)")
    ap.add_argument("--loopback", action="store_true", help="the loopback API server instead of a real plane")
    ap.add_argument("--ours", type=Path, help="ours: a checkout of this tree (git archive), not the working tree")
    ap.add_argument("--rows", help="far cluster: only the rows whose name starts so (podgroup,NAME,-A)")
    args = ap.parse_args()
    if args.loopback:
        args.rtt_ms = args.rtt_ms or "0"
        main_loopback(args)
        return
    work = Path(tempfile.mkdtemp(prefix="pd-bench-groups-"))
    plane = Plane(args.kueue, work / "run").up(*(["--watch-cache"] if args.watch_cache else []))
    figures: list[dict[str, object]] = []
    try:
        # the admin's kubeconfig as kubectl writes it (`config view --raw --flatten --minify`): the plane's own is
        # PyYAML's, which wraps the certificates' base64 at 80 columns (a shape kubectl never writes), and holds
        # a token user whose hex token may start with digits: either sends kubectl-pd's kubeconfig reader to
        # PyYAML, about 130 ms of a run that a kubeconfig kubectl wrote does not cost
        kc = work / "kubeconfig"
        kc.write_text(plane.kubectl("config", "view", "--raw", "--flatten", "--minify").stdout)
        kc.chmod(0o600)
        ours_bin = krew_bin(work / "krew") if args.krew else BIN  # krew's launcher finds /usr/bin's python3
        if args.ours is not None:  # a fixed tree (git archive), so edits to this checkout meanwhile are not measured
            ours_bin = before_bin(args.ours.resolve(), work / "ours-bin")
        env = {"PATH": f"{ours_bin}:/usr/bin:/bin", "KUBECONFIG": str(kc), "HOME": str(plane.workdir),
               "XDG_CACHE_HOME": str(work / "cache")}
        old_env = None
        if args.before is not None:
            old_env = {**env, "PATH": f"{before_bin(args.before.resolve(), work / 'before-bin')}:{env['PATH']}"}
        plane.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}, objs.flavor(RF),
                    objs.cluster_queue(CQ, [(RF, [objs.quota(objs.GPU, "2")])]), objs.local_queue(NS, LQ, CQ))
        k = kubectl()
        server = json.loads(plane.kubectl("version", "-o", "json").stdout)["serverVersion"]["gitVersion"]
        cache = "on" if args.watch_cache else "off"
        print(f"Kueue {plane.version}, kube-apiserver {server} (watch cache {cache}); {args.runs} interleaved rounds; "
              f"wall / client CPU, medians; ratios to kubectl's", flush=True)
        have = 0
        for n in (int(x) for x in args.sizes.split(",")):
            t0 = time.monotonic()
            fill(plane, n, have)
            have = n
            print(f"-- {n:,} pod groups ({2 * n:,} Pods, {n:,} Events) stored in {time.monotonic() - t0:.0f} s",
                  flush=True)
            if args.rtt_ms:
                kc_text = kc.read_text()
                far(args, k, env, kc_text, kc_server(kc_text), work, n, figures, old_env)
                continue
            target = group(n // 2)
            rows = [
                (f"floor: --version, {n:,} groups", ["pd", "--version"],
                 ["get", "workload", target, "-n", NS, "-o", "json"]),
                (f"podgroup/X -o json, {n:,} groups",
                 ["pd", "why-pending", f"podgroup/{target}", "-n", NS, "-o", "json"],
                 ["get", "workload", target, "-n", NS, "-o", "json"]),
                (f"-A, {n:,} groups", ["pd", "why-pending", "-A"], ["get", "workloads", "-A"]),
                (f"-A -o json, {n:,} groups", ["pd", "why-pending", "-A", "-o", "json"],
                 ["get", "workloads", "-A", "-o", "json"]),
            ]
            for name, ours, theirs in rows:
                cmds = [("ours", [k, *ours], env), ("kubectl", [k, *theirs], env)]
                if old_env is not None:
                    cmds.append(("before", [k, *ours], old_env))
                figures.append({"size": n, **measure(name, cmds, args.runs)})
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1))
    finally:
        plane.down()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
