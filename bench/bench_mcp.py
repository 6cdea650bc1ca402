"""`kubectl pd mcp` next to the CLI: what a host pays to start the server, and what one call costs.

Each mode is one whole client process (time it from outside, e.g. `/usr/bin/time -v python bench/bench_mcp.py
call`, or interleaved against the CLI line printed by `python bench/bench_mcp.py cli`):

- `none`: the SDK's stdio client imports and exits (the client's own cost, no server);
- `start`: it starts `kubectl pd mcp`, initializes the session, lists the tools and stops the server;
- `call`: the same plus one pd_why_pending on the demo snapshot (examples/qwen-pd-pending.yaml);
- `warm [N]`: one server, one warm-up call, then N (default 20) calls timed inside the client: prints the median
  and the spread of one call in a running server, in ms;
- `cli`: prints the CLI command of the same diagnosis (`kubectl-pd why-pending qwen-pd -f ... -o json`).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "examples" / "qwen-pd-pending.yaml"
ARGS = {"target": "qwen-pd", "files": [str(SNAPSHOT)]}


def main(mode: str, n: int) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    if mode == "none":
        return

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "kubectl_pd", "mcp", "--allow-file", str(SNAPSHOT.parent)],
                                       cwd=str(ROOT))
        t0 = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.list_tools()
            ready = (time.perf_counter() - t0) * 1000
            if mode == "start":
                return
            r = await s.call_tool("pd_why_pending", ARGS)
            assert not r.is_error, r.content
            if mode == "call":
                return
            took = []
            for _ in range(n):
                t0 = time.perf_counter()
                r = await s.call_tool("pd_why_pending", ARGS)
                took.append((time.perf_counter() - t0) * 1000)
                assert not r.is_error
            print(f"server spawned to tools listed: {ready:.0f} ms")
            print(f"one call in a running server: median {statistics.median(took):.1f} ms "
                  f"(min {min(took):.1f}, max {max(took):.1f}, {n} calls)")

    anyio.run(run)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "call"
    if mode == "cli":
        print(f"kubectl-pd why-pending qwen-pd -f {SNAPSHOT} -o json")
    else:
        main(mode, int(sys.argv[2]) if len(sys.argv) > 2 else 20)
