"""A closed stdout (`kubectl pd ... | head`, the reader gone before or while the tool writes) ends quietly with
exit 0, for every command and output format (issue 30, item 6: `why-pending -A -o json | head` exited 1).

Real subprocess runs: stdout is a pipe whose reading end is closed before the tool starts (every write then
fails with EPIPE), and once the way `head -c` does it, after part of a long output was read."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.apiserver import FakeApiServer, load_objects
from tests.conftest import FIXTURES

ROOT = Path(__file__).parent.parent
QUEUES = str(ROOT / "examples/lint/gpustack-split-queue.yaml")
PENDING = str(FIXTURES / "pending/quota-exhausted.yaml")
CREATE = ["create", "qwen-pd", "-n", "team-a", "--model", "Qwen/Qwen3-8B", "--instance-type",
          "gpustack--nvidia-h20-linux-amd64", "--prefill", "1", "--decode", "2", "--engine-version", "0.8.5",
          "--kv-cache-pool", "kv"]

OFFLINE: dict[str, list[str]] = {
    **{f"lint-{o}": ["lint", "-f", QUEUES, "-o", o] for o in ("text", "json", "yaml", "sarif", "junit", "github")},
    "lint-fix": ["lint", "-f", QUEUES, "--fix"],
    "lint-fix-patch": ["lint", "-f", QUEUES, "--fix", "-o", "patch"],
    "lint-diff": ["lint", "-f", QUEUES, "--diff"],
    "lint-write-baseline-stdout": ["lint", "-f", QUEUES, "--write-baseline", "-"],
    **{f"why-pending-all-{o}": ["why-pending", "-A", "-f", PENDING, "-o", o] for o in ("text", "json", "yaml")},
    **{f"why-pending-{o}": ["why-pending", "qwen-pd", "-n", "team-a", "-f", PENDING, "-o", o]
       for o in ("text", "json", "yaml")},
    **{f"create-{o}": [*CREATE, "--dry-run=client", "-o", o] for o in ("yaml", "json", "name")},
    "schema-lint": ["schema", "lint"],
    "completion-bash": ["completion", "bash"],
    "help": ["--help"],
    "version": ["--version"],
}
LIVE: dict[str, list[str]] = {
    **{f"why-pending-all-{o}": ["why-pending", "-A", "-o", o] for o in ("text", "json", "yaml")},
    "why-pending": ["why-pending", "qwen-pd", "-n", "team-a"],
    **{f"lint-{o}": ["lint", "-o", o] for o in ("text", "json", "sarif")},
}


def _closed_reader(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte
    try:
        r = subprocess.run([sys.executable, "-m", "kubectl_pd", *args], stdout=write, stderr=subprocess.PIPE,
                           text=True, timeout=120, env={**os.environ, "NO_COLOR": "1", **(env or {})})
    finally:
        os.close(write)
    return r.returncode, r.stderr


@pytest.mark.parametrize("name", sorted(OFFLINE))
def test_a_closed_stdout_ends_quietly(name: str) -> None:
    code, err = _closed_reader(OFFLINE[name])
    assert (code, err) == (0, ""), name


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    server = FakeApiServer(objects=load_objects(FIXTURES / "pending/quota-exhausted.yaml")).start()
    kc = server.write_kubeconfig(tmp_path_factory.mktemp("kc") / "kc")
    yield {"KUBECONFIG": str(kc)}
    server.stop()


@pytest.mark.parametrize("name", sorted(LIVE))
def test_a_closed_stdout_ends_quietly_live(cluster: dict[str, str], name: str) -> None:
    code, err = _closed_reader([*LIVE[name], "--request-timeout", "20s"], cluster)
    assert (code, err) == (0, ""), name


@pytest.mark.parametrize("output", ["json", "yaml"])
def test_a_closed_stdout_ends_quietly_create_preflight(output: str, tmp_path: Path) -> None:
    objs = load_objects(FIXTURES / "create/cluster.yaml", FIXTURES / "create/crd-pd-atomic.yaml")
    server = FakeApiServer(objects=objs).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kc")
        code, err = _closed_reader([*CREATE, "--preflight", "-o", output, "--request-timeout", "20s"],
                                   {"KUBECONFIG": str(kc)})
    finally:
        server.stop()
    assert (code, err) == (0, "")


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_head_after_part_of_a_long_output(tmp_path: Path, unbuffered: str) -> None:
    """`| head -c 100` on an output far past a pipe's 64 KiB: the reader leaves mid-way. Unbuffered, Python's
    text layer dropped the rest of a short write without an error: lint's own exit 1, nothing said."""
    many = tmp_path / "many.yaml"
    many.write_text("\n---\n".join([Path(QUEUES).read_text()] * 200))
    p = subprocess.Popen([sys.executable, "-m", "kubectl_pd", "lint", "-f", str(many), "-o", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": unbuffered})
    assert p.stdout is not None and p.stderr is not None
    first = p.stdout.read(100)
    time.sleep(0.5)  # the tool blocked in its write, the pipe full
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=120)
    assert len(first) == 100 and (p.returncode, err) == (0, b"")
