"""Issue 42, residue: an empty `tokenFile` was sent as no token at all and answered by the server's 401 ("rejected
the credentials"), and a FIFO `tokenFile` was read as empty (no writer) or waited on for 10 s (a silent writer),
whatever --request-timeout said. client-go refuses an empty token file before any request ("read empty token
from file", transport/token_source.go); a token file is read again every minute, which a pipe cannot give.
Now each is one `error:` line, exit 2, before any request (tests/apiserver.py counts them)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.apiserver import FakeApiServer


@pytest.fixture
def server() -> Iterator[FakeApiServer]:
    s = FakeApiServer().start()
    yield s
    s.stop()


def _odd(tmp_path: Path, kind: str) -> tuple[str, subprocess.Popen[bytes] | socket.socket | None]:
    p = tmp_path / kind
    if kind == "empty":
        p.write_bytes(b"")
    elif kind == "blanks":
        p.write_bytes(b"  \n\t\n")
    elif kind == "dev-zero":
        return "/dev/zero", None
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(p))
        sock.listen(1)
        return str(p), sock
    else:
        os.mkfifo(p)
        if kind == "fifo-silent-writer":  # holds the FIFO open for writing and writes nothing
            return str(p), subprocess.Popen(["sh", "-c", f"exec 3>'{p}'; sleep 60"])
    return str(p), None


@pytest.mark.parametrize(("kind", "says"), [
    ("empty", "is empty"), ("blanks", "only blanks"), ("fifo", "FIFO"), ("fifo-silent-writer", "FIFO"),
    ("socket", "socket"), ("dev-zero", "device"),
])
def test_an_empty_or_fifo_token_file_is_one_line_before_any_request(server: FakeApiServer, tmp_path: Path,
                                                                    kind: str, says: str) -> None:
    path, holder = _odd(tmp_path, kind)
    try:
        kc = server.write_kubeconfig(tmp_path / "kc", user={"tokenFile": path})
        env = {**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1"}
        started = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--request-timeout", "30s"], env=env,
                           capture_output=True, text=True, timeout=60)
        seconds = time.monotonic() - started
    finally:
        if isinstance(holder, subprocess.Popen):
            holder.kill()
            holder.wait()
        elif holder is not None:
            holder.close()
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "tokenFile" in lines[0] and path in lines[0] and says in lines[0], lines[0]
    assert "401" not in lines[0] and "Traceback" not in r.stderr
    assert not server.requests  # refused before anything was sent
    assert seconds < 8  # no wait on a pipe (was 10 s for a silent writer, whatever --request-timeout said)


def test_a_token_file_with_a_token_still_works(server: FakeApiServer, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(f"  {server.token}\n")
    kc = server.write_kubeconfig(tmp_path / "kc", user={"tokenFile": str(token)})
    r = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--request-timeout", "30s"],
                       env={**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1"}, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert any(("Authorization", f"Bearer {server.token}") in q.headers for q in server.requests)
