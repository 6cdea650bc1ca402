"""The figures issue 29's note asks for, for one checkout of kubectl-pd: radon's cyclomatic complexity and
maintainability index of kubectl_pd/pending and kubectl_pd/kueue, the functions there with more than five
and more than six parameters, and callgrind's instruction counts of three runs. Prints one Markdown table;
run it for the code before and after (the before: `git archive c56744f | tar -x -C /tmp/before`).

Run: python bench/issue29_figures.py CHECKOUT [CHECKOUT ...] [--no-callgrind] [--seeds 0,1]

- radon (`pip install radon`): `radon cc -s -a` and `radon mi -s` over the two packages, through its
  command line (the figures as its own report prints them; the worst three functions named).
- parameters: the AST walk of tests/test_architecture_params.py (of this repository, applied to the
  checkout's files): every def and lambda, every parameter but self and cls.
- callgrind (`valgrind --tool=callgrind`; the instructions of the whole process, the median over hash
  seeds): `why-pending qwen-pd -o json` against the loopback server of
  tests/fixtures/pending/quota-exhausted.yaml (docs/benchmarks.md's figure), `why-pending -A -o json` over
  200 pending Workloads (bench/bench_scale.py's cluster, smaller: a run whose memos are hit thousands of
  times), and `lint -f examples/lint/gpustack-70-flavors.yaml`. The checkout's package is imported through
  PYTHONPATH with this interpreter (so its dependencies), as the console script imports it.
"""

from __future__ import annotations

import argparse
import json
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

from bench_scale import pending_cluster  # noqa: E402

from tests.apiserver import FakeApiServer, load_objects  # noqa: E402
from tests.test_architecture_params import PACKAGES, _functions, count  # noqa: E402

FIXTURE = ROOT / "tests/fixtures/pending/quota-exhausted.yaml"
LINT_FILE = ROOT / "examples/lint/gpustack-70-flavors.yaml"
ENTRY = "import sys; sys.argv[0] = 'kubectl-pd'; from kubectl_pd.commands.cli import main; sys.exit(main())"
ALL_PENDING = 200


def radon_cc(checkout: Path) -> tuple[str, str]:
    """(`A (2.9)`: radon's average over the blocks, the worst three `name C`)."""
    dirs = [str(checkout / "kubectl_pd" / p) for p in PACKAGES]
    out = subprocess.run([sys.executable, "-m", "radon", "cc", "-s", "-a", "-j", *dirs], capture_output=True,
                         text=True, check=True).stdout
    blocks = [{**b, "file": Path(k).name} for k, file in json.loads(out).items() if isinstance(file, list)
              for b in file]
    scores = [b["complexity"] for b in blocks]
    text = subprocess.run([sys.executable, "-m", "radon", "cc", "-s", "-a", *dirs], capture_output=True,
                          text=True, check=True).stdout
    m = re.search(r"Average complexity: (\w) \(([0-9.]+)\)", text)
    average = f"{m.group(1)} ({float(m.group(2)):.2f})" if m else f"{statistics.mean(scores):.2f}"
    worst = sorted(blocks, key=lambda b: -b["complexity"])[:3]
    return (f"{average} over {len(blocks)} blocks",
            ", ".join(f"`{b['file']}:{b.get('classname', '') + '.' if b.get('classname') else ''}{b['name']}` "
                      f"{b['complexity']}" for b in worst))


def radon_mi(checkout: Path) -> str:
    """The mean and the lowest maintainability index of the two packages' files."""
    dirs = [str(checkout / "kubectl_pd" / p) for p in PACKAGES]
    out = subprocess.run([sys.executable, "-m", "radon", "mi", "-s", "-j", *dirs], capture_output=True,
                         text=True, check=True).stdout
    files = {str(Path(k).relative_to(checkout / "kubectl_pd")): v["mi"]
             for k, v in json.loads(out).items() if isinstance(v, dict) and "mi" in v}
    low = min(files, key=files.__getitem__)
    return f"mean {statistics.mean(files.values()):.1f}, lowest {files[low]:.1f} (`{low}`)"


def parameters(checkout: Path) -> tuple[int, int]:
    """How many functions of pending/ and kueue/ take more than five, and more than six, parameters."""
    counts = [count(fn) for pkg in PACKAGES for path in sorted((checkout / "kubectl_pd" / pkg).rglob("*.py"))
              for fn in _functions(path.read_text(encoding="utf-8"))]
    return sum(1 for n in counts if n > 5), sum(1 for n in counts if n > 6)


def instructions(checkout: Path, args: list[str], kubeconfig: Path | None, seed: int) -> int:
    """The instructions callgrind counts for one run of `kubectl-pd ARGS` from `checkout`."""
    with tempfile.TemporaryDirectory(prefix="pd-figures-") as tmp:
        out = Path(tmp) / "callgrind.out"
        env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, "NO_COLOR": "1", "PYTHONPATH": str(checkout),
               "PYTHONHASHSEED": str(seed), "PYTHONDONTWRITEBYTECODE": "1"}
        if kubeconfig is not None:
            env["KUBECONFIG"] = str(kubeconfig)
        # once without valgrind: the .pyc files of the checkout written (PYTHONDONTWRITEBYTECODE off) and the
        # run checked to reach its end
        warm = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        done = subprocess.run([sys.executable, "-c", ENTRY, *args], env=warm, cwd=tmp, capture_output=True,
                              text=True, timeout=600)
        if done.returncode not in (0, 1, 2, 3, 4, 5, 6):
            raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr.strip()}")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c",
                        ENTRY, *args], env=env, cwd=tmp, capture_output=True, timeout=1800, check=False)
        for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise SystemExit(f"{args}: callgrind wrote no totals")


def _median(checkout: Path, args: list[str], kubeconfig: Path | None, seeds: list[int]) -> str:
    counts = [instructions(checkout, args, kubeconfig, s) for s in seeds]
    return f"{statistics.median(counts) / 1e6:,.0f} M"


def callgrind(checkout: Path, seeds: list[int]) -> dict[str, str]:
    """The three counts, each over its own loopback server."""
    figures: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="pd-figures-kc-") as tmp:
        kc = Path(tmp) / "kubeconfig"
        server = FakeApiServer(objects=load_objects(FIXTURE)).start()
        try:
            server.write_kubeconfig(kc, namespace="team-a")
            figures["why-pending qwen-pd -o json"] = _median(checkout, ["why-pending", "qwen-pd", "-o", "json"],
                                                             kc, seeds)
        finally:
            server.stop()
        server = FakeApiServer(objects=pending_cluster(ALL_PENDING)).start()
        try:
            server.write_kubeconfig(kc, namespace="team-00")
            figures[f"why-pending -A -o json ({ALL_PENDING} pending)"] = _median(
                checkout, ["why-pending", "-A", "-o", "json"], kc, seeds)
        finally:
            server.stop()
    figures[f"lint -f {LINT_FILE.relative_to(ROOT)}"] = _median(checkout, ["lint", "-f", str(LINT_FILE)], None,
                                                                seeds)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="+", type=Path)
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--seeds", default="0", help="hash seeds, comma-separated: the median is printed")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    columns: list[dict[str, str]] = []
    for checkout in args.checkouts:
        checkout = checkout.resolve()
        cc, worst = radon_cc(checkout)
        over5, over6 = parameters(checkout)
        col = {"radon cc, average (pending/, kueue/)": cc, "radon cc, worst three": worst,
               "radon mi (per file)": radon_mi(checkout), "functions with > 5 parameters": str(over5),
               "functions with > 6 parameters": str(over6)}
        if not args.no_callgrind:
            col.update({f"callgrind: {k}": v for k, v in callgrind(checkout, seeds).items()})
        columns.append(col)
        print(f"measured {checkout}", file=sys.stderr, flush=True)
    names = [str(c) for c in args.checkouts]
    print("| figure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for row in columns[0]:
        print(f"| {row} | " + " | ".join(c.get(row, "") for c in columns) + " |")


if __name__ == "__main__":
    main()
