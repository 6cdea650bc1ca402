"""Issue 42, residue: `-o jsonpath-file=F` / `custom-columns-file=F` opened F with a plain `open().read()`: a FIFO
without a writer (or with a silent one) hung the run, `/dev/zero` filled memory without end, a directory said
"Is a directory". A template file is now a regular file, checked by `stat` before it is opened (and again once
opened): one `error:` line, exit 1 as for any template kubectl refuses (docs/output.md), at once. Real
subprocess runs with a timeout, so a hang fails the test instead of hanging the suite."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

PENDING = str(Path(__file__).parent / "fixtures" / "pending" / "quota-exhausted.yaml")
COMMANDS = {
    "lint": ["lint", "-f", PENDING],
    "why-pending": ["why-pending", "-A", "-f", PENDING],
    "create": ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--instance-type",
               "gpustack--nvidia-h20-linux-amd64", "--kv-cache-pool", "kv", "--prefill", "1", "--decode", "2",
               "--dry-run=client", "-n", "team-a"],
}


def _run(args: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "KUBECONFIG": str(tmp_path / "missing"), "NO_COLOR": "1"}
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "kubectl_pd", *args], env=env, capture_output=True, text=True,
                       timeout=30)
    return r, time.monotonic() - started


def _odd(tmp_path: Path, kind: str) -> tuple[str, subprocess.Popen[bytes] | socket.socket | None]:
    p = tmp_path / f"t-{kind}"
    if kind == "dev-zero":
        return "/dev/zero", None
    if kind == "directory":
        p.mkdir()
        return str(p), None
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(p))
        return str(p), sock
    os.mkfifo(p)
    if kind == "fifo-silent-writer":
        return str(p), subprocess.Popen(["sh", "-c", f"exec 3>'{p}'; sleep 60"])
    return str(p), None


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("form", ["jsonpath-file", "custom-columns-file"])
@pytest.mark.parametrize(("kind", "says"), [("dev-zero", "device"), ("fifo", "FIFO"), ("fifo-silent-writer", "FIFO"),
                                            ("directory", "directory"), ("socket", "socket")])
def test_a_template_file_that_is_not_a_file_is_one_line(tmp_path: Path, command: str, form: str, kind: str,
                                                        says: str) -> None:
    path, holder = _odd(tmp_path, kind)
    try:
        r, seconds = _run([*COMMANDS[command], "-o", f"{form}={path}"], tmp_path)
    finally:
        if isinstance(holder, subprocess.Popen):
            holder.kill()
            holder.wait()
        elif holder is not None:
            holder.close()
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert path in lines[0] and says in lines[0] and "Traceback" not in r.stderr, lines[0]
    assert r.stdout == "" and seconds < 10


def test_a_template_file_past_its_bound_and_one_not_utf8(tmp_path: Path) -> None:
    from kubectl_pd.output.printers import MAX_TEMPLATE_FILE

    big = tmp_path / "big"
    with big.open("wb") as fh:
        fh.truncate(MAX_TEMPLATE_FILE + 1)  # sparse: costs no disk
    bad = tmp_path / "bad"
    bad.write_bytes(b"{.items[*]\xff}")
    for path, says in ((big, f"{MAX_TEMPLATE_FILE:,} bytes"), (bad, "UTF-8")):
        r, _ = _run([*COMMANDS["lint"], "-o", f"jsonpath-file={path}"], tmp_path)
        lines = r.stderr.splitlines()
        assert r.returncode == 1 and len(lines) == 1 and says in lines[0], r.stderr


def test_a_regular_template_file_still_works(tmp_path: Path) -> None:
    t = tmp_path / "t"
    t.write_text("{.metadata.name}\n")
    r, _ = _run([*COMMANDS["create"], "-o", f"jsonpath-file={t}"], tmp_path)
    assert r.returncode == 0 and r.stdout == "qwen\n", r.stderr
    link = tmp_path / "link"
    link.symlink_to(t)  # a link to a regular file is that file, as open() follows it
    r, _ = _run([*COMMANDS["create"], "-o", f"jsonpath-file={link}"], tmp_path)
    assert r.returncode == 0 and r.stdout == "qwen\n", r.stderr

