"""The English of the MCP server's own refusals and limits (kubectl_pd/agent/)."""

from __future__ import annotations

STOPPING = "the MCP client closed the connection: the call was not run to its end"


def past_deadline(seconds: float) -> str:
    return (f"the call did not finish within {seconds:g}s (the server's --call-timeout): it was stopped; "
            f"the server goes on")


def worker_failed(code: int | None) -> str:
    return f"the call's worker process ended without an answer (exit {code})"


def too_deep(limit: int) -> str:
    return f"invalid request: JSON nested deeper than {limit} levels"


def not_a_file(what: str, value: str, kind: str) -> str:
    return f"{what}: {value} is {kind}, not a file or directory: refused before it is opened"


def nul_in_path(what: str) -> str:
    return f"{what}: a path with a NUL character names no file"


def paged(shown: int, first: int, total: int, key: str, cursor: str | None) -> str:
    more = f"; the next page: the same call with cursor={cursor!r}" if cursor else ""
    return f"{key} {first + 1}-{first + shown} of {total} in this result (results are paged past 256 KiB){more}"
