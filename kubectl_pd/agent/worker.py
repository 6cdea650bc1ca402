"""One MCP tool call in a process of its own (issue 42, M11): the server starts `python -m kubectl_pd.agent.worker`
per call (one ahead of need, its imports done), sends it {"argv": [...], "stdin": TEXT|null} on its stdin, and
reads {"code", "stdout", "stderr", "errors", "warnings"} back (the errors and warnings the run said, as data:
kubectl_pd/agent/run.answer).

A call that outlives its deadline, or whose client went away, is killed with its process group (a credential
plugin it started too): it can never block the next call nor outlive the server. The argv (which carries the
server's connection, a --token perhaps) travels on a pipe, never on a command line others can read. While the
run goes, file descriptor 1 points at stderr, so nothing the run (or a plugin) prints corrupts the answer."""

from __future__ import annotations

import json
import os

MAX_REQUEST = 64 * 2**20  # bytes: the argv and a snapshot given as text


# imported before the request is read: the server keeps one worker started ahead (kubectl_pd/agent/run.py), so a
# call finds these loaded
WARM = ("kubectl_pd.commands.cli", "kubectl_pd.commands.why_pending", "kubectl_pd.commands.lint",
        "kubectl_pd.commands.create", "kubectl_pd.pending.diagnose", "kubectl_pd.pending.gather",
        "kubectl_pd.cluster.snapshot",
        "kubectl_pd.cluster.live", "yaml")


def main() -> None:
    import importlib

    from kubectl_pd.agent import run as running

    answer = os.dup(1)
    os.dup2(2, 1)
    for name in WARM:
        importlib.import_module(name)
    raw = _read_all(0)
    if not raw:  # the server went away before it had a call for this worker
        return
    request = json.loads(raw)
    out = running.run([str(a) for a in request["argv"]], request.get("stdin"))
    data = json.dumps(running.answer(out)).encode()
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
