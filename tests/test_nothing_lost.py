"""Nothing lost (issue 30, item 1): every file the tool writes is replaced atomically; `-` is stdout; an
input that is also the output is refused before it is read. Real subprocess runs."""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parent.parent
QUEUES = ROOT / "examples/lint/gpustack-split-queue.yaml"
CMD = [sys.executable, "-m", "kubectl_pd"]


def _baseline(tmp_path: Path) -> tuple[Path, bytes]:
    b = tmp_path / "baseline.json"
    subprocess.run([*CMD, "lint", "-f", str(QUEUES), "--write-baseline", str(b)], check=True, capture_output=True,
                   timeout=60)
    return b, b.read_bytes()


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_a_kill_at_any_moment_never_loses_the_baseline(tmp_path: Path) -> None:
    b, old = _baseline(tmp_path)
    rng = random.Random(30)
    outcomes = set()
    for _ in range(int(os.environ.get("PD_KILL_RUNS", "25"))):
        p = subprocess.Popen([*CMD, "lint", "-f", str(QUEUES), "--write-baseline", str(b)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, 0.9))
        p.send_signal(rng.choice([signal.SIGKILL, signal.SIGINT, signal.SIGTERM]))
        p.wait(timeout=30)
        outcomes.add(p.returncode)
        assert b.read_bytes() == old  # whole: the old baseline or its equal, never empty or partial
        for leftover in _leftovers(tmp_path):  # only a SIGKILL can leave a temporary file, never the target
            (tmp_path / leftover).unlink()


def test_a_full_disk_keeps_the_old_baseline_and_removes_the_temporary_file(tmp_path: Path) -> None:
    b, old = _baseline(tmp_path)
    old_doc = json.loads(old)
    old_doc["findings"] = old_doc["findings"] * 2000  # the one it replaces is bigger than the disk allows
    b.write_text(json.dumps(old_doc))
    before = b.read_bytes()

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal: what a full disk says
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    r = subprocess.run([*CMD, "lint", "-f", str(QUEUES), "--write-baseline", str(b)], capture_output=True,
                       text=True, timeout=60, preexec_fn=small_disk)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("error:")] == [r.stderr.splitlines()[-1]]
    assert b.read_bytes() == before and _leftovers(tmp_path) == []


def test_mode_and_symlink_are_kept(tmp_path: Path) -> None:
    b, _ = _baseline(tmp_path)
    os.chmod(b, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to(b.name)
    b.write_text("{}")
    subprocess.run([*CMD, "lint", "-f", str(QUEUES), "--write-baseline", str(link)], check=True,
                   capture_output=True, timeout=60)
    assert link.is_symlink() and json.loads(b.read_text())["findings"]
    assert stat.S_IMODE(b.stat().st_mode) == 0o640 and _leftovers(tmp_path) == []


def test_write_baseline_dash_is_stdout(tmp_path: Path) -> None:
    r = subprocess.run([*CMD, "lint", "-f", str(QUEUES), "--write-baseline", "-"], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert r.returncode == 0 and not (tmp_path / "-").exists()
    assert json.loads(r.stdout)["kind"] == "kubectl-pd-lint-baseline"
    r = subprocess.run([*CMD, "lint", "-f", str(QUEUES), "--write-baseline", "-", "-o", "json"], capture_output=True,
                       text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1


def test_an_input_that_is_also_stdout_is_refused_before_reading(tmp_path: Path) -> None:
    q = tmp_path / "q.yaml"
    q.write_bytes(QUEUES.read_bytes())
    for args in (["lint", "-f", str(q), "--fix"], ["lint", "-f", str(q)], ["lint", "-f", str(tmp_path)],
                 ["why-pending", "-A", "--from-file", str(q)]):
        q.write_bytes(QUEUES.read_bytes())
        with open(q, "w") as out:  # `... > q.yaml`: the shell empties it first
            r = subprocess.run([*CMD, *args], stdout=out, stderr=subprocess.PIPE, text=True, timeout=60)
        assert r.returncode == 2, (args, r.stderr)
        assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("error: ") and str(q) in r.stderr
    b, _ = _baseline(tmp_path)
    with open(b, "a") as out:
        r = subprocess.run([*CMD, "lint", "-f", str(QUEUES), "--baseline", str(b)], stdout=out,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1


def test_a_link_loop_inside_a_directory_is_said(tmp_path: Path) -> None:
    (tmp_path / "q.yaml").write_bytes(QUEUES.read_bytes())
    (tmp_path / "loop.yaml").symlink_to("loop.yaml")
    r = subprocess.run([*CMD, "lint", "-f", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "loop.yaml" in r.stderr and len(r.stderr.splitlines()) == 1
