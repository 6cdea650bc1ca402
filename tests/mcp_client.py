"""Talk to `kubectl pd mcp` the way an agent host does: the official SDK's stdio client (mcp.client.stdio) starts
the server as a subprocess and speaks JSON-RPC over its stdin and stdout.

`session(...)` runs a list of tool calls in one server's lifetime; `why_pending_via_mcp(kubeconfig, target, ...)`
is the hook for the real-control-plane tier (tests marked `cluster`): pd_why_pending through the SDK client
against the cluster a kubeconfig names, with the CLI's `-o json` of the same call beside it."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).parent.parent


def server_command(*flags: str) -> list[str]:
    """`kubectl pd mcp FLAGS` from this checkout, with this interpreter (the venv's)."""
    return [sys.executable, "-m", "kubectl_pd", "mcp", *flags]


@dataclass
class Session:
    tools: list[Any] = field(default_factory=list)  # mcp_types.Tool, as the client lists them
    results: list[Any] = field(default_factory=list)  # mcp_types.CallToolResult, one per call
    instructions: str | None = None


def session(flags: Sequence[str], calls: Sequence[tuple[str, dict[str, Any]]], *, env: dict[str, str] | None = None,
            cwd: Path = ROOT, timeout: float = 120, command: Sequence[str] | None = None) -> Session:
    """Start the server with FLAGS (COMMAND FLAGS when given), list its tools, make each call in order, stop it."""
    out = Session()

    async def main() -> None:
        cmd = [*command, *flags] if command is not None else server_command(*flags)
        params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=str(cwd))
        with anyio.fail_after(timeout):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                init = await s.initialize()
                out.instructions = init.instructions
                out.tools = list((await s.list_tools()).tools)
                for name, args in calls:
                    out.results.append(await s.call_tool(name, args))

    anyio.run(main)
    return out


def document_text(result: Any) -> str:
    """The structured content as the CLI's `-o json` prints a document (kubectl_pd.commands.common.to_json)."""
    from kubectl_pd.commands.common import to_json

    return to_json(result.structured_content)


def why_pending_via_mcp(kubeconfig: str | Path, target: str, namespace: str | None = None,
                        flags: Sequence[str] = ()) -> tuple[Any, str]:
    """pd_why_pending on TARGET through the SDK client, the server started with --kubeconfig KUBECONFIG (and FLAGS);
    returns (the CallToolResult, the document as `-o json` text). Compare the text with
    `kubectl pd why-pending TARGET -n NS -o json --kubeconfig KUBECONFIG` byte for byte."""
    args: dict[str, Any] = {"target": target}
    if namespace is not None:
        args["namespace"] = namespace
    s = session([f"--kubeconfig={kubeconfig}", *flags], [("pd_why_pending", args)])
    result = s.results[0]
    return result, ("" if result.is_error else document_text(result))


def loads(text: str) -> Any:
    return json.loads(text)
