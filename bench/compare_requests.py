"""Two checkouts of kubectl-pd against the same loopback API server, fixture by fixture: the same output and the
same requests (issue 38: the reads moved from the diagnosis to the gather step, and went out in waves).

For every why-pending fixture (tests/fixtures/pending), `why-pending qwen-pd -o json` (namespace team-a) and
`why-pending -A`, run from each checkout (its package first on PYTHONPATH, this interpreter); prints the
fixtures whose exit code, output or set of requests (method, path, field selector) differ, then `done`.

Run: python bench/compare_requests.py BEFORE [AFTER] [FIXTURE ...]   (AFTER defaults to this checkout)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.apiserver import FakeApiServer, load_objects  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "pending"
# the checkout's package first: an editable install's import hook (a meta path finder, consulted before
# PYTHONPATH) would otherwise load the installed tree's kubectl_pd for both checkouts (and the run's working
# directory is a temporary one, not this checkout)
ENTRY = ("import sys; "
         "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in str(getattr(f, '__module__', ''))]; "
         "from kubectl_pd.commands.cli import main; sys.exit(main())")


def run(tree: str, fixture: str, args: list[str]) -> tuple[int, str, list[str]]:
    server = FakeApiServer(objects=load_objects(FIX / f"{fixture}.yaml")).start()
    try:
        with tempfile.TemporaryDirectory(prefix="pd-compare-") as tmp:
            kc = server.write_kubeconfig(Path(tmp) / "kubeconfig", namespace="team-a")
            env = {"PATH": os.environ.get("PATH", ""), "KUBECONFIG": str(kc), "HOME": tmp, "NO_COLOR": "1",
                   "PYTHONPATH": tree}
            r = subprocess.run([sys.executable, "-c", ENTRY, *args], env=env, capture_output=True, text=True,
                               timeout=300, cwd=tmp)  # not this checkout: `-c` puts the working directory first
        return r.returncode, r.stdout, sorted(f"{q.method} {q.path} {q.query.get('fieldSelector', '')}"
                                              for q in server.requests)
    finally:
        server.stop()


def main() -> None:
    before = sys.argv[1]
    after = sys.argv[2] if len(sys.argv) > 2 and not (FIX / f"{sys.argv[2]}.yaml").exists() else str(ROOT)
    names = [a for a in sys.argv[2:] if (FIX / f"{a}.yaml").exists()] or sorted(p.stem for p in FIX.glob("*.yaml"))
    for fixture in names:
        for args in (["why-pending", "qwen-pd", "-o", "json"], ["why-pending", "-A"]):
            a, b = run(before, fixture, args), run(after, fixture, args)
            extra, gone = [x for x in b[2] if x not in a[2]], [x for x in a[2] if x not in b[2]]
            if a[:2] != b[:2] or extra or gone:
                print(fixture, args[1], "same output" if a[:2] == b[:2] else "OUTPUT DIFFERS", "+", extra, "-", gone)
                if a[:2] != b[:2]:  # what differs: the exit codes, then the first lines of the outputs' diff
                    import difflib

                    diff = difflib.unified_diff(a[1].splitlines(), b[1].splitlines(), lineterm="", n=1)
                    print(f"  exit {a[0]} -> {b[0]}", *list(diff)[2:24], sep="\n  ")
    print("done")


if __name__ == "__main__":
    main()
