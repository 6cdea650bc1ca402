"""The one writer of the CLI's `error: ...` and `warning: ...` lines on stderr (issue 48: nothing parses text it
composed). Each line is also recorded as data, (kind, text), while a `Collected` is open: the MCP server opens one
around each CLI run (kubectl_pd/agent/run.py), so a tool reads the run's errors and warnings as they were said,
never by reading its stderr back. Outside a `Collected` only the line is written.

A ContextVar holds the open collector's list: the threads a run starts (interrupt.thread) run in a copy of its
context, so what they say is recorded in the same list. Tiny on purpose: the CLI's entry point and the reads load
it only when a line is said (start-up imports nothing for it), and it imports nothing a run has not loaded
already (click only where a line is written through it)."""

from __future__ import annotations

import sys
from contextvars import ContextVar

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads it the same)
if TYPE_CHECKING:
    from contextvars import Token
    from types import TracebackType

ERROR = "error"
WARNING = "warning"

Said = list[tuple[str, str]]  # (kind, text) in the order they were written

_SAID: ContextVar[Said | None] = ContextVar("kubectl_pd_said", default=None)


def line(kind: str, text: str) -> str:
    """The line as written, without its newline: `error: TEXT`, `warning: TEXT`."""
    return f"{kind}: {text}"


def say(kind: str, text: str, *, echo: bool = True, flush: bool = True) -> None:
    """Record (kind, text) in the open collector, then write its line on stderr: through click.echo (`echo`,
    as the commands write: click drops terminal escapes off a terminal, then flushes), else as one plain write
    to sys.stderr, flushed when `flush` (as the reads write theirs)."""
    said = _SAID.get()
    if said is not None:
        said.append((kind, text))
    if echo:
        import click

        click.echo(line(kind, text), err=True)
        return
    sys.stderr.write(line(kind, text) + "\n")
    if flush:
        sys.stderr.flush()


def error(text: str) -> None:
    say(ERROR, text)


def warning(text: str) -> None:
    say(WARNING, text)


def texts(said: Said, kind: str) -> tuple[str, ...]:
    """The texts of one kind, in order."""
    return tuple(t for k, t in said if k == kind)


class Collected:
    """`with Collected() as said:` records every line said inside it (and in the threads started there) in
    `said`, as (kind, text); the collector open before it is back when it ends."""

    def __enter__(self) -> Said:
        self.said: Said = []
        self._token: Token[Said | None] = _SAID.set(self.said)
        return self.said

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        _SAID.reset(self._token)
