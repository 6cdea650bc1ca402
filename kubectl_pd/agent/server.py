"""`kubectl pd mcp`: the Model Context Protocol server over stdio, on the official `mcp` SDK (the `mcp` extra).

The only module that imports the SDK. Tools are listed from kubectl_pd/agent/tools.py; a call runs the CLI in this
process (kubectl_pd/agent/run.py) in a worker thread, so the server keeps answering pings while a read is in
flight and serves the next call after any error. The protocol owns the process's real stdout: before serving,
file descriptor 1 is pointed at stderr, so nothing a run (or a credential plugin it starts) prints can corrupt it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from kubectl_pd import __version__
from kubectl_pd.agent import run as running
from kubectl_pd.agent import tools as T

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


def result(answer: T.Answer) -> types.CallToolResult:
    meta: dict[str, Any] = {T.EXIT_META: answer.code}
    if answer.is_error:
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)], is_error=True,
                                    _meta=meta)
    meta[T.UNTRUSTED_META] = answer.untrusted
    return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)],
                                structured_content=answer.document, is_error=False, _meta=meta)


def build(guard: T.Guard, connection: Sequence[str]) -> Server[Any]:
    listed = types.ListToolsResult(tools=[_tool(t) for t in T.TOOLS])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listed

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        def work() -> T.Answer:
            return T.call(params.name, params.arguments, guard, connection, running.run)

        try:
            answer = await anyio.to_thread.run_sync(work)
        except Exception as e:  # a bug of ours: one line, and the server goes on
            answer = T.Answer(None, f"error: internal error ({type(e).__name__}: {e})", 1)
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


def serve(guard: T.Guard, connection: Sequence[str]) -> None:
    server = build(guard, connection)

    async def main() -> None:
        stdin, stdout = _protocol_streams()
        async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    sys.stdout.flush()
    anyio.run(main)
