"""Issue 12's input-side ratios, side by side in one run, each against its own floor:

  lint -f queues.json (2,000 queues x 64 flavors), wall time   vs  python -c "json.load(...)"   goal 1.5x
  lint -f queues.yaml, peak memory                             vs  yaml.load_all(CSafeLoader)  goal 1.5x
  kubectl-pd --help, wall time                                 vs  python -c "import click, yaml"  goal 1.3x
  kubectl-pd create ... --dry-run=client -o yaml, wall time    vs  python -c "import click, yaml"  goal 1.3x

Every figure is a whole process (startup included), the pairs run interleaved (A B A B ...: the machine
is shared and noisy) and the ratio quoted is the median of the per-pair ratios. The JSON read alone
(in process, the part the reader owns) is printed too: the lint rules' own time is the rest.

    python bench/bench_input.py [--queues 2000] [--flavors 64] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
PY = sys.executable


WRITE = f"""
import json, sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from pathlib import Path
import yaml
from bench_lint import write_queues
y, j = Path(sys.argv[1]), Path(sys.argv[2])
write_queues(y, int(sys.argv[3]), int(sys.argv[4]))
with y.open() as fh:
    docs = list(yaml.load_all(fh, Loader=yaml.CSafeLoader))
j.write_text(json.dumps({{"apiVersion": "v1", "kind": "List", "items": docs}}, indent=4))
"""


def run(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process, from the kernel's own accounting."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env={**os.environ, "NO_COLOR": "1", "KUBECONFIG": "/nonexistent"})
    _, _, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, usage.ru_maxrss


def pair(a: list[str], b: list[str], runs: int) -> dict[str, float]:
    run(a), run(b)  # warm up: page cache, pyc files
    ta, tb, ma, mb = [], [], [], []
    for _ in range(runs):
        wa, pa = run(a)
        wb, pb = run(b)
        ta.append(wa)
        tb.append(wb)
        ma.append(pa)
        mb.append(pb)
    return {"a": statistics.median(ta), "b": statistics.median(tb),
            "time": statistics.median(x / y for x, y in zip(ta, tb, strict=True)),
            "mem_a": statistics.median(ma) / 1024, "mem_b": statistics.median(mb) / 1024,
            "mem": statistics.median(x / y for x, y in zip(ma, mb, strict=True))}


def read_only(path: Path, runs: int) -> tuple[float, float]:
    """In process, interleaved: the snapshot reader alone and json.load of the same file (medians), to
    split the reader's time from the lint rules'."""
    code = ("import gc, json, sys, time; from kubectl_pd.cluster.snapshot import SnapshotSource; gc.disable(); "
            "t = time.perf_counter(); SnapshotSource.from_paths([sys.argv[1]]); a = time.perf_counter() - t; "
            "t = time.perf_counter(); json.load(open(sys.argv[1])); b = time.perf_counter() - t; print(a, b)")
    pairs = [subprocess.run([PY, "-c", code, str(path)], capture_output=True, text=True, check=True).stdout.split()
             for _ in range(runs)]
    return statistics.median(float(a) for a, _ in pairs), statistics.median(float(b) for _, b in pairs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", type=int, default=2000)
    ap.add_argument("--flavors", type=int, default=64)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    pd = str(BIN / "kubectl-pd")
    floor = [PY, "-c", "import click, yaml"]
    create = [pd, "create", "qwen-pd", "--model", "Qwen/Qwen3-8B", "--instance-type",
              "gpustack--nvidia-h20-linux-amd64", "--prefill", "1", "--decode", "2", "--engine-version", "0.8.5",
              "--kv-cache-pool", "kv", "--dry-run=client", "-o", "yaml"]
    with tempfile.TemporaryDirectory() as tmp:
        y, j = Path(tmp) / "queues.yaml", Path(tmp) / "queues.json"
        # written by a child: a parent grown by loading them would make every fork slow and every
        # child's peak memory start at the parent's size
        subprocess.run([PY, "-c", WRITE, str(y), str(j), str(args.queues), str(args.flavors)], check=True)
        rows = [
            ("lint -f queues.json: time", "json.load", "time", 1.5,
             pair([pd, "lint", "-f", str(j)], [PY, "-c", f"import json; json.load(open({str(j)!r}))"], args.runs)),
            ("lint -f queues.yaml: peak memory", "yaml CSafeLoader", "mem", 1.5,
             pair([pd, "lint", "-f", str(y)],
                  [PY, "-c", f"import yaml; list(yaml.load_all(open({str(y)!r}), Loader=yaml.CSafeLoader))"],
                  max(2, args.runs // 2))),
            ("--help: time", "import click, yaml", "time", 1.3, pair([pd, "--help"], floor, args.runs * 3)),
            ("create --dry-run=client: time", "import click, yaml", "time", 1.3, pair(create, floor, args.runs * 3)),
        ]
        json_read, json_load = read_only(j, 3)
    print(f"{args.queues} queues x {args.flavors} flavors; medians of interleaved runs; whole processes")
    print(f"  {'measure':<36} {'kubectl-pd':>12} {'floor':>12}  {'ratio':>6}  goal   floor is")
    for name, what, kind, goal, r in rows:
        if kind == "time":
            a, b = f"{r['a'] * 1000:9.0f} ms", f"{r['b'] * 1000:9.0f} ms"
        else:
            a, b = f"{r['mem_a']:8.0f} MiB", f"{r['mem_b']:8.0f} MiB"
        ratio = r[kind]
        print(f"  {name:<36} {a:>12} {b:>12}  {ratio:5.2f}x  {goal}x  {what}"
              f"{'' if ratio <= goal else '  (over)'}")
    print(f"  the JSON reader alone, in process: {json_read:.2f} s against json.load's {json_load:.2f} s: "
          f"{json_read / json_load:.2f}x; the rest of lint's time is its rules")


if __name__ == "__main__":
    main()
