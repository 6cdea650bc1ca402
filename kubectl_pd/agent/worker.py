"""One MCP tool call in a process of its own (issue 42, M11): the server starts `python -m kubectl_pd.agent.worker`
per call, sends it {"argv": [...], "stdin": TEXT|null} on its stdin, and reads {"code", "stdout", "stderr"} back.

A call that outlives its deadline, or whose client went away, is killed with its process group (a credential
plugin it started too): it can never block the next call nor outlive the server. The argv (which carries the
server's connection, a --token perhaps) travels on a pipe, never on a command line others can read. While the
run goes, file descriptor 1 points at stderr, so nothing the run (or a plugin) prints corrupts the answer."""

from __future__ import annotations

import json
import os

MAX_REQUEST = 64 * 2**20  # bytes: the argv and a snapshot given as text


def main() -> None:
    from kubectl_pd.agent import run as running

    answer = os.dup(1)
    os.dup2(2, 1)
    request = json.loads(_read_all(0))
    out = running.run([str(a) for a in request["argv"]], request.get("stdin"))
    data = json.dumps({"code": out.code, "stdout": out.stdout, "stderr": out.stderr}).encode()
    with open(answer, "wb", closefd=True) as fh:
        fh.write(data)


def _read_all(fd: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise SystemExit("request too large")
    return b"".join(parts)


if __name__ == "__main__":
    main()
