"""`kubectl pd why-pending -A`'s client CPU against `kubectl get workloads -A` on the loopback server (issue 49
item 6): the populated layout of bench_real_groups.loopback_objects (N two-role pod groups waiting in one
queue), each run through kubectl's plugin dispatch, interleaved rounds of this tree, another checkout
(--before) and kubectl; medians of client user+sys CPU (os.wait4's rusage: kubectl's and the plugin's). Each
round also checks that both checkouts printed the same thing. --profile DIR writes a cProfile of this tree's
run at each size (DIR/all-N.prof); --callgrind DIR counts this tree's (and --before's) instructions once per
size under `valgrind --tool=callgrind` (stable on a loaded machine, where CPU seconds wander).

Run: python bench/bench_all_cpu.py --sizes 250,2000 --runs 7 --before /tmp/before [--profile DIR] [--callgrind DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_live import kubectl, measured  # noqa: E402
from bench_real_groups import concurrent_handshakes, loopback_objects  # noqa: E402

from tests.apiserver import DEFAULT_GROUPS, FakeApiServer  # noqa: E402

# a checkout's package first (an editable install's finder would otherwise load the installed tree)
SHIM = """#!{python}
import sys
sys.path.insert(0, {tree!r})
sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in str(getattr(f, '__module__', ''))]
from kubectl_pd.commands.cli import main
sys.exit(main())
"""


def shim(where: Path, tree: Path) -> Path:
    """A bin directory whose kubectl-pd runs TREE's package with this interpreter."""
    where.mkdir(parents=True, exist_ok=True)
    f = where / "kubectl-pd"
    f.write_text(SHIM.format(python=sys.executable, tree=str(tree)))
    f.chmod(0o755)
    return where


def output(cmd: list[str], env: dict[str, str]) -> str:
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    return f"{r.returncode}\n{r.stdout}{r.stderr}"


def callgrind(tree_bin: Path, env: dict[str, str], out: Path) -> int:
    """Instructions of one run of the plugin itself (not kubectl's dispatch) under callgrind."""
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
           str(tree_bin / "kubectl-pd"), "why-pending", "-A"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3000)
    m = re.search(r"Collected : (\d+)", r.stderr)
    return int(m.group(1)) if m else -1


def size(args: argparse.Namespace, n: int, work: Path, bins: dict[str, Path]) -> None:
    objects, raw = loopback_objects(n)
    groups = {g: v for g, v in DEFAULT_GROUPS.items() if not g.startswith("visibility.")}
    server = concurrent_handshakes(FakeApiServer(objects=objects, raw=raw, groups=groups).start())
    try:
        kc = server.write_kubeconfig(work / f"kubeconfig-{n}.yaml")
        k = kubectl()
        base = {"HOME": str(work), "XDG_CACHE_HOME": str(work / "cache"), "KUBECONFIG": str(kc), "NO_COLOR": "1"}
        envs = {name: {**base, "PATH": f"{b}:{Path(k).parent}:/usr/bin:/bin"} for name, b in bins.items()}
        theirs = [k, "get", "workloads", "-A"]
        first = envs["after"]
        subprocess.run(theirs, env=first, capture_output=True, timeout=300)  # kubectl's discovery cache, warm
        outs = {name: output([k, "pd", "why-pending", "-A"], env) for name, env in envs.items()}
        if len(set(outs.values())) != 1:
            print(f"{n}: OUTPUTS DIFFER between the checkouts", flush=True)
        cpus: dict[str, list[float]] = {name: [] for name in [*envs, "kubectl"]}
        for _ in range(args.runs):
            for name, env in envs.items():
                cpus[name].append(measured([k, "pd", "why-pending", "-A"], env)[1])
            cpus["kubectl"].append(measured(theirs, first)[1])
        med = {name: statistics.median(v) for name, v in cpus.items()}
        row = ", ".join(f"{name} {med[name] * 1000:.0f} ms ({med[name] / med['kubectl']:.2f}x)"
                        for name in cpus if name != "kubectl")
        print(f"{n} groups, client user+sys CPU, medians of {args.runs}: {row}, kubectl {med['kubectl'] * 1000:.0f} ms",
              flush=True)
        if args.profile:
            args.profile.mkdir(parents=True, exist_ok=True)
            prof = args.profile / f"all-{n}.prof"
            subprocess.run([sys.executable, "-m", "cProfile", "-o", str(prof), str(bins["after"] / "kubectl-pd"),
                            "why-pending", "-A"], env=first, capture_output=True, timeout=600)
            print(f"  profile: {prof}", flush=True)
        if args.callgrind:
            args.callgrind.mkdir(parents=True, exist_ok=True)
            counts = {name: callgrind(b, envs[name], args.callgrind / f"cg-{name}-{n}.out") for name, b in bins.items()}
            print("  callgrind instructions (the plugin alone): "
                  + ", ".join(f"{name} {c:,}" for name, c in counts.items()), flush=True)
    finally:
        server.stop()


def serve(n: int, work: Path) -> None:
    """The layout of N groups on the loopback server until Ctrl-C, for runs by hand (cProfile, callgrind)."""
    import time

    objects, raw = loopback_objects(n)
    groups = {g: v for g, v in DEFAULT_GROUPS.items() if not g.startswith("visibility.")}
    server = concurrent_handshakes(FakeApiServer(objects=objects, raw=raw, groups=groups).start())
    try:
        print(server.write_kubeconfig(work / f"kubeconfig-{n}.yaml"), flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--sizes", default="250,2000")
    ap.add_argument("--before", type=Path, help="a checkout of another commit, measured beside this one")
    ap.add_argument("--profile", type=Path, help="a directory for cProfile's output of this tree's runs")
    ap.add_argument("--callgrind", type=Path, help="a directory for callgrind's output (one run per tree and size)")
    ap.add_argument("--serve", type=int, help="only serve N groups (prints the kubeconfig's path) until Ctrl-C")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pd-bench-allcpu-"))
    bins = {"after": shim(work / "bin-after", ROOT)}
    if args.before:
        bins = {"before": shim(work / "bin-before", args.before.resolve()), **bins}
    os.environ.pop("KUBECTL_PD_TRACE", None)
    if args.serve:
        serve(args.serve, work)
        return
    for n in (int(x) for x in args.sizes.split(",")):
        size(args, n, work, bins)


if __name__ == "__main__":
    main()
