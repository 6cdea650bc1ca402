"""kubectl_pd.records against the standard library's dataclass, per interpreter.

    python bench/bench_records.py [--runs N] [PYTHON ...]

For each interpreter (default: this one) and each path (records' own, and the standard library's, the
path records hands every class to when `_HAND_BACK` is set), N fresh processes each import the
modules a live why-pending and a lint load (every dataclass of the package defined) and make one
instance of each class (the own path compiles `__init__` then). The median time of that, in ms, is
printed per interpreter and path. Only the standard library is needed: run it with any Python >= 3.11
that has no third-party packages, e.g. a pyenv 3.13.

A third row per interpreter is what sets records.COMPILE_AFTER: the time of one instance of a five-field
frozen class through the generic `__init__` and through the compiled one, the time of one `compile` of
that `__init__`, and how many instances the compile pays for (its time over the difference per instance).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("kubectl_pd.pending.diagnose", "kubectl_pd.pending.gather", "kubectl_pd.create.preflight",
           "kubectl_pd.lint.engine", "kubectl_pd.cluster.pool", "kubectl_pd.cluster.endpoint")

CHILD = """
import sys, time
t0 = time.perf_counter()
import kubectl_pd.records as records
records._HAND_BACK = {stdlib}
import importlib
for m in {modules!r}:
    importlib.import_module(m)
classes = [c for name, mod in list(sys.modules.items()) if name.startswith("kubectl_pd")
           for c in vars(mod).values()
           if isinstance(c, type) and c.__module__ == name and "__dataclass_fields__" in c.__dict__]
made = 0
for c in classes:
    specs = c.__dict__.get("_records_specs")
    if specs is not None:
        missing = records.MISSING
        required = [n for n, s in specs.items() if s.default is missing and s.default_factory is missing]
    else:  # the standard library's: reading its fields is what a class built there already paid for
        import dataclasses
        required = [f.name for f in dataclasses.fields(c)
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    try:
        c(*[None] * len(required))
        made += 1
    except Exception:
        pass
t1 = time.perf_counter()
print((t1 - t0) * 1000, len(classes), made, "dataclasses" in sys.modules)
"""


INIT_COSTS = r"""
import json, timeit
from kubectl_pd import records
SRC = (
    "from __future__ import annotations\n"
    "@dataclass(frozen=True)\n"
    "class C:\n"
    "    a: int\n"
    "    b: str = 'x'\n"
    "    c: tuple = ()\n"
    "    d: object = None\n"
    "    e: list = field(default_factory=list)\n"
)
default = records.COMPILE_AFTER
def make(after):
    records.COMPILE_AFTER = after
    env = {"dataclass": records.dataclass, "field": records.field}
    exec(SRC, env)
    return env["C"]
generic, compiled = make(10**9), make(1)
compiled(1)
def best(fn, n):
    return min(timeit.repeat(fn, number=n, repeat=5)) / n
g = best(lambda: generic(1, "y", d=3), 20000)
c = best(lambda: compiled(1, "y", d=3), 20000)
specs = compiled.__dict__["_records_specs"]
k = best(lambda: records._compiled_init(compiled, specs, True), 500)
print(json.dumps({"generic_instance_us": round(g * 1e6, 2), "compiled_instance_us": round(c * 1e6, 2),
                  "compile_us": round(k * 1e6, 1), "compile_pays_after_instances": round(k / (g - c)),
                  "COMPILE_AFTER": default}))
"""


def init_costs(python: str) -> dict[str, object]:
    """One instance through each `__init__`, one compile (records' own path only)."""
    out = subprocess.run([python, "-c", INIT_COSTS], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    row: dict[str, object] = json.loads(out)
    return row


def sample(python: str, stdlib: bool, runs: int) -> dict[str, object]:
    code = CHILD.format(stdlib=stdlib, modules=MODULES)
    times, info = [], None
    for _ in range(runs):
        out = subprocess.run([python, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        ms, classes, made, loaded = out.split()
        times.append(float(ms))
        info = (int(classes), int(made), loaded == "True")
    assert info is not None
    return {"median_ms": round(statistics.median(times), 2), "min_ms": round(min(times), 2),
            "classes": info[0], "instances": info[1], "dataclasses_imported": info[2]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("pythons", nargs="*", default=[sys.executable])
    args = ap.parse_args()
    for python in args.pythons:
        version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        for stdlib in (False, True):
            row = {"python": version, "path": "standard library" if stdlib else "records' own",
                   **sample(python, stdlib, args.runs)}
            print(json.dumps(row))
        print(json.dumps({"python": version, "path": "records' own, one class", **init_costs(python)}))


if __name__ == "__main__":
    main()
