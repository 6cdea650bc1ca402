"""Benchmark `kubectl pd lint -f` on one big file: 1,000 and 2,000 ClusterQueues of 64 flavors each.

Prints, for each size, the end-to-end time of the real command (a subprocess, startup included) and
the in-process split between reading the YAML and running the rules, then the 2,000/1,000 ratio
(2.0 means time grows linearly with the number of queues). Every tenth queue is written as the old
16-flavor split, so findings are produced and rendered too. Target: well under 20 s for 2,000.

    python bench/bench_lint.py [--sizes 1000,2000] [--flavors 64]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.commands.lint import loading_heap
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import context_from, lint_objects

CPUS = ("amd-epyc-9004", "amd-epyc-7r32", "intel-xeon-8480", "intel-xeon-6454s", "amd-epyc-9654",
        "intel-xeon-8592", "amd-epyc-9754", "intel-xeon-6548y")


def write_queues(path: Path, queues: int, flavors: int) -> None:
    """`queues` GPUStack ClusterQueues with `flavors` flavors each, as `kubectl get -o yaml` would list them."""
    with path.open("w") as out:
        for q in range(queues):
            model = f"h{q % 97}"
            split = q % 10 == 0
            out.write(
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n"
                f"  name: gpustack--nvidia-{model}-linux-amd64-{q}\n  labels:\n"
                "    kubernetes.io/os: linux\n    kubernetes.io/arch: amd64\n"
                f"    acceleratable.feature.gpustack.ai/nvidia-{model}: \"true\"\n"
                "    resource.gpustack.ai/type: instancetypes\n"
                "spec:\n  namespaceSelector: {}\n  admissionChecksStrategy:\n    admissionChecks:\n"
                "    - name: gpustack-node-devices\n  resourceGroups:\n")
            per_group = 16 if split else flavors
            for f in range(flavors):
                if f % per_group == 0:
                    out.write("  - coveredResources:\n    - credits.gpustack.ai/nvidia\n    flavors:\n")
                cpu = CPUS[f % len(CPUS)]
                cards = 1 << (f // len(CPUS) % 4)
                out.write(
                    f"    - name: gpustack--{cpu}--nvidia-{model}-linux-amd64-{cards}d-fnv64-{f:08x}\n"
                    "      resources:\n      - name: credits.gpustack.ai/nvidia\n"
                    f"        nominalQuota: {cards * 1600 * (1 + f % 3)}k\n")


def run_command(path: Path, crd: str | None = None) -> tuple[float, int, int]:
    """Wall time, exit code and output lines of the real console script."""
    exe = Path(sys.executable).parent / "kubectl-pd"
    t0 = time.perf_counter()
    extra = ["--crd", crd] if crd else []
    p = subprocess.run([str(exe), "lint", "-f", str(path), *extra], capture_output=True, text=True,
                       env={**os.environ, "NO_COLOR": "1"})
    return time.perf_counter() - t0, p.returncode, len(p.stdout.splitlines())


def in_process(path: Path, crd: str | None = None) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    with loading_heap():  # as the command reads
        source = SnapshotSource.from_paths([str(path)])
    t1 = time.perf_counter()
    objs = list(source.all_objects())
    ctx = LintContext()
    if crd:
        from kubectl_pd.lint.schema.sources import from_files

        ctx.schemas = from_files([crd], None)
    result = lint_objects(objs, context_from(objs, ctx), origin_of=source.origin)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, len(result.findings)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,2000", help="comma-separated queue counts (default 1000,2000)")
    ap.add_argument("--flavors", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3, help="runs per size; the best is reported")
    ap.add_argument("--crd", help="also check against this CRD (PD501/PD502), e.g. "
                                  "tests/fixtures/lint/crds/clusterqueues-subset.yaml")
    ap.add_argument("--compare-cel", action="store_true",
                    help="only time the CEL libraries that were candidates, on Kueue's rules (those installed)")
    args = ap.parse_args()
    if args.compare_cel:
        compare_cel(args.flavors)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for n in sizes:
            paths[n] = Path(tmp) / f"queues-{n}.yaml"
            write_queues(paths[n], n, args.flavors)
        walls: dict[int, list[float]] = {n: [] for n in sizes}
        outcome: dict[int, tuple[int, int]] = {}
        for _ in range(args.repeat):  # sizes interleaved, best of N: the machine is shared and noisy
            for n in sizes:
                wall, rc, lines = run_command(paths[n], args.crd)
                walls[n].append(wall)
                outcome[n] = (rc, lines)
        for n in sizes:
            mb = paths[n].stat().st_size / 1e6
            parse, rules, findings = in_process(paths[n], args.crd)
            wall = min(walls[n])
            rc, lines = outcome[n]
            rows.append((n, wall))
            print(f"{n:>6} queues x {args.flavors} flavors ({mb:5.1f} MB): kubectl-pd lint {wall:6.2f} s "
                  f"(best of {args.repeat}; exit {rc}, {lines} lines) | in process: read {parse:5.2f} s, "
                  f"rules {rules:5.2f} s, {findings} findings")
    if len(rows) >= 2:
        (n1, t1), (n2, t2) = rows[0], rows[-1]
        print(f"ratio {n2}/{n1} queues: time x{t2 / t1:.2f} for size x{n2 / n1:.2f} (linear = equal)")


KUEUE_RULES = (
    "self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
    "!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, "
    "f.resources.all(r, !has(r.borrowingLimit)))) : true",
    "!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  self.borrowWithinCohort.policy "
    "!= 'Never')",
)


def compare_cel(flavors: int, runs: int = 200) -> None:
    """Milliseconds to evaluate Kueue's three CEL rules on one queue of `flavors` flavors, per library."""
    group = {"coveredResources": ["cpu"], "flavors": [
        {"name": f"f{i}", "resources": [{"name": "cpu", "nominalQuota": "4"}]} for i in range(flavors)]}
    inputs = (group, {"resourceGroups": [group]}, {"reclaimWithinCohort": "Never",
                                                   "borrowWithinCohort": {"policy": "LowerPriority"}})

    def timed(name: str, run: Callable[[str, object], object]) -> None:
        t0 = time.perf_counter()
        for _ in range(runs):
            for rule, value in zip(KUEUE_RULES, inputs, strict=True):
                run(rule, value)
        print(f"{name:32} {(time.perf_counter() - t0) / runs * 1000:8.3f} ms per queue")

    try:
        from cel_expr_python import cel as gcel

        env = gcel.NewEnv(variables={"self": gcel.Type.DYN})
        progs = {r: env.compile(r) for r in KUEUE_RULES}
        timed("cel-expr-python (chosen)", lambda r, v: progs[r].eval(data={"self": v}).value())
    except ImportError:
        print("cel-expr-python: not installed")
    try:
        import cel as rcel

        rprogs = {r: rcel.compile(r) for r in KUEUE_RULES}
        timed("common-expression-language", lambda r, v: rprogs[r].execute({"self": v}))
    except ImportError:
        print("common-expression-language: not installed")
    try:
        import celpy

        cenv = celpy.Environment()
        cprogs = {r: cenv.program(cenv.compile(r)) for r in KUEUE_RULES}
        timed("cel-python", lambda r, v: cprogs[r].evaluate({"self": celpy.json_to_cel(v)}))
    except ImportError:
        print("cel-python: not installed")


if __name__ == "__main__":
    main()
