"""One CLI run in this process, its output captured: how every tool answers, so a tool's document is the CLI's
`-o json` byte for byte (the same command function, the same printer, the same error lines and exit codes).

Runs are serialised (stdin, stdout and stderr are the process's, swapped for the run's own buffers); each API
request of a run ends at the server's --request-timeout. Nothing of the MCP SDK is imported here."""

from __future__ import annotations

import contextlib
import io
import sys
import threading
from collections.abc import Iterator, Sequence

from kubectl_pd.records import dataclass

_LOCK = threading.Lock()


@dataclass(frozen=True)
class Outcome:
    code: int  # the exit code the CLI would give
    stdout: str
    stderr: str

    @property
    def error(self) -> str:
        """The CLI's last `error: ...` line without its prefix ("" when there is none)."""
        lines = [x for x in self.stderr.splitlines() if x.startswith("error: ")]
        return lines[-1][len("error: "):] if lines else ""

    @property
    def warnings(self) -> list[str]:
        return [x[len("warning: "):] for x in self.stderr.splitlines() if x.startswith("warning: ")]


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="", write_through=True)


@contextlib.contextmanager
def _captured(stdin: str | None) -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    """The run's stdin (the text given, else empty: never the server's own protocol stream), stdout, stderr."""
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = _stream(), _stream()
    sys.stdin, sys.stdout, sys.stderr = _stream((stdin or "").encode()), out, err
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


def run(argv: Sequence[str], stdin: str | None = None) -> Outcome:
    """`kubectl pd ARGV` through the CLI's own entry point (kubectl_pd.cli.main), in this process."""
    from kubectl_pd import cli

    with _LOCK, _captured(stdin) as (out, err):
        code = 0
        try:
            cli.main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        return Outcome(code, _text(out), _text(err))
