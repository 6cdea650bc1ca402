"""Startup cost of `kubectl-pd --help` against the floor `python -c "import click, yaml"`.

Run from the checkout: python bench/bench_startup.py [REPS]

Both are measured interleaved in one run (the machine is shared and noisy) and compared by median;
the bar is 2.5x. Also timed, for information: the completion bridge (`kubectl_complete-pd wh`, what
every Tab press pays) and, if dist/ holds this machine's release archive, its launcher with a warm cache
and its bridge (`kubectl_complete-pd why-pending ""`, the bridge's fast path, which the krew bridge
reaches through sh). Finally it
checks with `python -X importtime` that `--help` never imports the kubernetes client.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
BAR = 2.5


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - t0


def host_archive() -> Path | None:
    """dist/'s newest release archive for this machine's krew platform (scripts/build-release names them)."""
    plat = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), "?")
    arch = {"x86_64": "amd64", "AMD64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "?")
    archives = sorted((ROOT / "dist").glob(f"kubectl-pd-*-{plat}-{arch}.tar.gz"))
    return archives[-1] if archives else None


def krew_commands(tmp: Path) -> tuple[list[str], list[str]] | None:
    archive = host_archive()
    if archive is None:
        return None
    with tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
    return ([sys.executable, "-I", "-S", str(tmp / "kubectl-pd"), "--help"],
            [str(tmp / "kubectl_complete-pd"), "why-pending", ""])


def imports_of_help() -> list[str]:
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "kubectl_pd", "--help"],
                       capture_output=True, text=True, check=True)
    names = [line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")]
    return [n for n in names if n.split(".")[0] == "kubernetes"]


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    env = {**os.environ, "KUBECONFIG": "/nonexistent"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the launcher's cache must keep its .pyc files, as for a user
    with tempfile.TemporaryDirectory() as tmp:
        env["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        cases: dict[str, list[str]] = {
            "kubectl-pd --help": [str(BIN / "kubectl-pd"), "--help"],
            'python -c "import click, yaml"': [sys.executable, "-c", "import click, yaml"],
            "kubectl_complete-pd wh": [str(BIN / "kubectl_complete-pd"), "wh"],
            'kubectl_complete-pd why-pending ""': [str(BIN / "kubectl_complete-pd"), "why-pending", ""],
        }
        app = krew_commands(Path(tmp))
        if app:
            cases["krew launcher --help (-I -S, warm cache)"] = app[0]
            cases["krew kubectl_complete-pd why-pending \"\""] = app[1]
            env["PATH"] = f"{tmp}{os.pathsep}{env.get('PATH', '')}"  # its bridge runs `kubectl-pd`
        for cmd in cases.values():  # warm up: pyc files, page cache, the launcher's unpacked cache
            timed(cmd, env)
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(reps):
            for name, cmd in cases.items():
                samples[name].append(timed(cmd, env))
    medians = {name: statistics.median(v) for name, v in samples.items()}
    floor = medians['python -c "import click, yaml"']
    print(f"startup, median of {reps} interleaved runs each")
    for name, m in medians.items():
        print(f"  {name:<45} {m * 1000:7.1f} ms   {m / floor:5.2f}x the floor")
    ratio = medians["kubectl-pd --help"] / floor
    verdict = "OK" if ratio <= BAR else "TOO SLOW"
    print(f"kubectl-pd --help / import click, yaml = {ratio:.2f}x (bar {BAR}x): {verdict}")
    heavy = imports_of_help()
    print(f"--help imports kubernetes: {'yes: ' + ', '.join(heavy[:5]) if heavy else 'no'}")
    sys.exit(0 if ratio <= BAR and not heavy else 1)


if __name__ == "__main__":
    main()
