"""`kubectl pd mcp`: the Model Context Protocol server over stdio, on the official `mcp` SDK (the `mcp` extra).

The only module that imports the SDK. Tools are listed from kubectl_pd/agent/tools.py; a call runs the CLI in a
worker process of its own (kubectl_pd/agent/run.py: Workers) with a deadline (--call-timeout), waited for in a
thread: the server keeps answering pings and other calls while one is in flight, a stuck call is killed at its
deadline, and the next call is served after any error. The protocol owns the process's real stdout: before
serving, file descriptor 1 is pointed at stderr, so nothing a run (or a credential plugin it starts) prints can
corrupt it.

What the SDK reads is screened first (issue 42, M12): a message nested deeper than MAX_DEPTH levels is answered
here with a JSON-RPC error (-32600) and never parsed. When the client closes stdin, every running call is killed
and the server exits (M11).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from kubectl_pd import __version__
from kubectl_pd.agent import run as running
from kubectl_pd.agent import tools as T
from kubectl_pd.output import stderr as said

INSTRUCTIONS = ("kubectl-pd diagnoses prefill/decode deployments admitted through Kueue: why one is pending "
                "(pd_why_pending), who preempted it (pd_who_preempted), what Kueue would refuse (pd_lint), and "
                "whether a deployment would be admitted before it is created (pd_create_preflight). Every tool "
                "is read-only. " + T.UNTRUSTED)


def _tool(t: T.Tool) -> types.Tool:
    return types.Tool(name=t.name, title=t.title, description=t.description, input_schema=t.input_schema,
                      output_schema=t.output_schema(),
                      annotations=types.ToolAnnotations(title=t.title, read_only_hint=t.annotations["readOnlyHint"],
                                                        destructive_hint=t.annotations["destructiveHint"],
                                                        idempotent_hint=t.annotations["idempotentHint"],
                                                        open_world_hint=t.annotations["openWorldHint"]))


def result(answer: T.ToolAnswer) -> types.CallToolResult:
    meta: dict[str, Any] = {T.EXIT_META: answer.code}
    if answer.is_error:
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)], is_error=True,
                                    _meta=meta)
    meta[T.UNTRUSTED_META] = answer.untrusted
    if answer.page is not None:
        meta[T.PAGE_META] = answer.page
        if answer.page["nextCursor"] is not None:
            meta[T.NEXT_CURSOR_META] = answer.page["nextCursor"]
    return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)],
                                structured_content=answer.document, is_error=False, _meta=meta)


DEFAULT_CALL_TIMEOUT = 120.0  # seconds a tool call may take, all its reads together (--call-timeout)
MAX_DEPTH = 64  # levels of JSON nesting a message may have (a tool's arguments need a handful)


def build(guard: T.Guard, connection: Sequence[str], deadline: float = DEFAULT_CALL_TIMEOUT,
          workers: running.Workers | None = None) -> Server[Any]:
    listed = types.ListToolsResult(tools=[_tool(t) for t in T.TOOLS])
    pool = workers or running.Workers()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listed

    def runner(argv: list[str], stdin: str | None) -> running.Ran:
        return pool.isolated(argv, stdin, deadline)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        def work() -> T.ToolAnswer:
            return T.call(params.name, params.arguments, guard, connection, runner)

        try:
            answer = await anyio.to_thread.run_sync(work)
        except Exception as e:  # a bug of ours: one line, and the server goes on
            answer = T.ToolAnswer(None, said.line(said.ERROR, f"internal error ({type(e).__name__}: {e})"), 1)
        return result(answer)

    return Server("kubectl-pd", version=__version__, title="kubectl pd", instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def _protocol_streams() -> tuple[Any, Any]:
    """The protocol's own stdin and stdout (duplicates of fds 0 and 1); then fd 0 reads nothing and fd 1 is stderr."""
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    text_in = open(wire_in, encoding="utf-8", errors="replace", newline="\n", closefd=True)  # noqa: SIM115
    text_out = open(wire_out, "w", encoding="utf-8", newline="\n", closefd=True)  # noqa: SIM115
    return anyio.wrap_file(text_in), anyio.wrap_file(text_out)


def depth_over(line: str, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text `line` nests arrays and objects deeper than `limit` (brackets inside strings do
    not count). Linear, no recursion: what a parser would recurse on is measured before it sees it."""
    if line.count("[") + line.count("{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for c in line:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                return True
        elif c in "]}":
            depth -= 1
    return False


def request_id(line: str) -> Any:
    """The id of a message too deep to parse, when its top level gives one plainly (else None, as JSON-RPC
    says for an id that cannot be read)."""
    import re

    m = re.match(r'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")', line)
    if m is None:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:
        return None


def too_deep_error(line: str) -> str:
    from kubectl_pd.agent import words

    return json.dumps({"jsonrpc": "2.0", "id": request_id(line),
                       "error": {"code": -32600, "message": words.too_deep(MAX_DEPTH)}})


class _Wire:
    """The protocol's stdout, one whole line at a time (the SDK's answers and ours interleave by line only)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.lock = anyio.Lock()

    async def write(self, text: str) -> None:
        async with self.lock:
            await self.inner.write(text)

    async def flush(self) -> None:
        async with self.lock:
            await self.inner.flush()

    async def answer(self, line: str) -> None:
        async with self.lock:
            await self.inner.write(line + "\n")
            await self.inner.flush()


class _Screened:
    """The protocol's stdin as the SDK reads it: a line nested too deep is answered here with a JSON-RPC error
    and not passed on; at end of file (the client went away) every running call is killed."""

    def __init__(self, inner: Any, wire: _Wire, workers: running.Workers) -> None:
        self.inner = inner
        self.wire = wire
        self.workers = workers

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self.inner:
            if depth_over(line):
                await self.wire.answer(too_deep_error(line))
                continue
            yield line
        self.workers.stop_all()
        _exit_soon()


def _exit_soon(grace: float = 5.0) -> None:
    """The client is gone: if the server has not wound down within `grace` seconds, it exits anyway."""
    import threading

    timer = threading.Timer(grace, os._exit, (0,))
    timer.daemon = True
    timer.start()


def serve(guard: T.Guard, connection: Sequence[str], deadline: float = DEFAULT_CALL_TIMEOUT) -> None:
    workers = running.Workers()
    server = build(guard, connection, deadline, workers)

    async def main() -> None:
        stdin, stdout = _protocol_streams()
        wire = _Wire(stdout)
        async with anyio.create_task_group() as tg:
            async def session() -> None:
                async with stdio_server(stdin=_Screened(stdin, wire, workers), stdout=wire) as (read, write):  # type: ignore[arg-type]
                    await server.run(read, write, server.create_initialization_options())
                tg.cancel_scope.cancel()

            tg.start_soon(session)

    sys.stdout.flush()
    anyio.run(main)
