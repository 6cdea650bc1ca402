"""Issue 42, the MCP server: M11 (a call naming a FIFO inside --allow-file never answered and blocked every later
call; the server outlived its client's disconnect), M12 (arguments nested 900 levels got no answer at all), and
the residues (a NUL in a path; a 1.34 MB result with no paging). Through the SDK's own client where it can speak,
and raw JSON-RPC lines over the server's stdin and stdout where the client would refuse to send them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kubectl_pd.agent import server as mcp_server
from kubectl_pd.agent import tools as T
from tests.apiserver import Fault
from tests.mcp_client import ROOT, server_command, session

EXAMPLE = ROOT / "examples" / "qwen-pd-pending.yaml"


def _error(result: Any) -> str:
    assert result.is_error, result.content[0].text
    return str(result.content[0].text)


# ------------------------------------------------------------------------------------------------- M11
@pytest.mark.parametrize("inside", [False, True])
def test_a_fifo_is_refused_before_it_is_opened_and_the_next_call_answers(tmp_path: Path, inside: bool) -> None:
    allowed = tmp_path / "allowed"
    (allowed / "sub").mkdir(parents=True)
    fifo = allowed / "sub" / "snap.yaml"
    os.mkfifo(fifo)
    (allowed / "ok.yaml").write_text(EXAMPLE.read_text())
    start = time.monotonic()
    r = session(["--allow-file", str(allowed), "--call-timeout", "20s"], [
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(allowed / "sub" if inside else fifo)]}),
        ("pd_lint", {"crds": [str(fifo)], "manifests": "{}"}),
        ("pd_why_pending", {"target": "qwen-pd", "kueueConfig": str(fifo), "files": [str(allowed / "ok.yaml")]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(allowed / "ok.yaml")]}),
    ], timeout=60).results
    assert time.monotonic() - start < 20  # no call waited for a writer
    for res in r[:3]:
        assert "FIFO" in _error(res) and res.meta["kubectl-pd/exitCode"] == 2
    assert not r[3].is_error


def test_a_nul_in_a_path_is_a_plain_tool_error(tmp_path: Path) -> None:
    r = session(["--allow-file", str(tmp_path)], [("pd_why_pending", {"target": "x", "files": [f"{tmp_path}/a\0b"]})])
    assert "NUL" in _error(r.results[0]) and r.results[0].meta["kubectl-pd/exitCode"] == 2


def test_a_call_past_its_deadline_is_stopped_and_does_not_block_the_next(apiserver: Callable) -> None:
    _server, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a",
                             faults=[Fault("/apis/worker.gpustack.ai/*", hang=60, times=1)])
    flags = [f"--kubeconfig={env['KUBECONFIG']}", "--request-timeout=50s", "--call-timeout=3s",
             "--allow-file", str(EXAMPLE.parent)]
    times: dict[str, float] = {}
    results: dict[str, Any] = {}

    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=server_command(*flags)[1:], cwd=str(ROOT))
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                start = time.monotonic()

                async def call(name: str, args: dict[str, Any]) -> None:
                    results[name] = await s.call_tool("pd_why_pending", args)
                    times[name] = time.monotonic() - start

                async with anyio.create_task_group() as tg:
                    tg.start_soon(call, "stuck", {"target": "qwen-pd"})
                    await anyio.sleep(0.3)
                    tg.start_soon(call, "next", {"target": "qwen-pd", "files": [str(EXAMPLE)]})

    anyio.run(main)
    assert "did not finish within 3s" in _error(results["stuck"])
    assert results["stuck"].meta["kubectl-pd/exitCode"] == 1
    assert not results["next"].is_error
    assert times["next"] < times["stuck"] < 20  # the second call was answered while the first was stuck


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def _raw_server(*flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(server_command(*flags), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=ROOT)


def _send(p: subprocess.Popen[str], msg: Any) -> None:
    assert p.stdin is not None
    p.stdin.write((msg if isinstance(msg, str) else json.dumps(msg)) + "\n")
    p.stdin.flush()


def _receive(p: subprocess.Popen[str], timeout: float = 20) -> Any:
    """The next line the server writes, within `timeout` seconds (an unanswered request fails, never hangs)."""
    import select

    assert p.stdout is not None
    ready, _, _ = select.select([p.stdout], [], [], timeout)
    assert ready, "no answer"
    return json.loads(p.stdout.readline())


def _initialise(p: subprocess.Popen[str]) -> None:
    _send(p, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    assert "result" in _receive(p)
    _send(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})


def test_the_server_exits_when_its_client_closes_stdin_and_kills_a_running_call(apiserver: Callable) -> None:
    _server, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a",
                             faults=[Fault("/apis/worker.gpustack.ai/*", hang=60)])
    p = _raw_server(f"--kubeconfig={env['KUBECONFIG']}", "--request-timeout=50s", "--call-timeout=50s")
    try:
        _initialise(p)
        _send(p, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "pd_why_pending", "arguments": {"target": "qwen-pd"}}})
        deadline = time.monotonic() + 20
        while not _children(p.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = _children(p.pid)
        assert workers  # the call runs in a worker process
        assert p.stdin is not None
        p.stdin.close()
        p.wait(timeout=15)  # before: it ran until SIGTERM
        time.sleep(0.2)
        assert [w for w in workers if _alive(w)] == []
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


# ------------------------------------------------------------------------------------------------- M12
@pytest.mark.parametrize("levels", [65, 900, 100_000])
def test_deep_nesting_is_a_json_rpc_error_and_the_server_goes_on(levels: int) -> None:
    p = _raw_server()
    try:
        _initialise(p)
        deep = "[" * levels + "]" * levels
        _send(p, '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "pd_lint", '
                 f'"arguments": {{"manifests": "x", "strict": {deep}}}}}}}')
        answer = _receive(p)
        assert answer["id"] == 7 and answer["error"]["code"] == -32600
        assert str(mcp_server.MAX_DEPTH) in answer["error"]["message"]
        _send(p, {"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
        from kubectl_pd.agent.tools import TOOLS

        assert len(_receive(p)["result"]["tools"]) == len(TOOLS)  # the server goes on: every tool listed
    finally:
        p.kill()
        p.wait()


DEPTHS = [("{}", 64, False), ("[" * 64 + "]" * 64, 64, False), ("[" * 65 + "]" * 65, 64, True),
          ('"' + "[" * 100 + '"', 64, False), ('"\\"' + "[" * 100 + '"', 64, False),
          ('{"a": [' + "{" * 70 + "}" * 70 + "]}", 64, True)]


@pytest.mark.parametrize(("text", "limit", "over"), DEPTHS)
def test_depth_over(text: str, limit: int, over: bool) -> None:
    assert mcp_server.depth_over(text, limit) is over


# ------------------------------------------------------------------------------------------- paging
def _doc(n: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "items": [{"target": {"name": f"t{i:04d}"}, "pad": "x" * 100} for i in range(n)]}


@pytest.mark.parametrize(("n", "offset", "want_count", "want_next"), [
    (3, 0, None, None),  # small: whole, no page
    (254, 0, 6, "6"), (254, 6, 6, "12"), (254, 250, 4, None), (254, 999, 0, None)])
def test_a_large_result_is_paged(n: int, offset: int, want_count: int | None, want_next: str | None) -> None:
    doc = _doc(n)
    size = len(json.dumps(doc))
    got, page = T.paged(doc, offset, size, limit=1024)
    if want_count is None:
        assert page is None and got == doc
        return
    assert page is not None
    assert (page["count"], page["nextCursor"], page["total"]) == (want_count, want_next, n)
    assert got["items"] == doc["items"][offset:offset + want_count]
    assert len(json.dumps(got)) <= 1024 or want_count == 1


def test_every_page_together_is_the_whole_list() -> None:
    doc = _doc(254)
    size = len(json.dumps(doc))
    seen: list[Any] = []
    offset: int | None = 0
    while offset is not None:
        got, page = T.paged(doc, offset, size, limit=T.MAX_RESULT // 64)
        assert page is not None
        seen += got["items"]
        offset = int(page["nextCursor"]) if page["nextCursor"] else None
    assert seen == doc["items"]


# ------------------------------------------------------------------------------------------ krew archive
_HIDE_SDK = """import sys, importlib.machinery as m
class _NoSiteSdk:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "mcp":
            return None
        spec = m.PathFinder.find_spec(name, [p for p in sys.path if "site-packages" not in p])
        if spec is None:
            raise ModuleNotFoundError(name)
        return spec
sys.meta_path.insert(0, _NoSiteSdk)
"""


def test_the_krew_archive_finds_the_sdk_where_its_one_command_puts_it(tmp_path: Path) -> None:
    run = [sys.executable, "-c", _HIDE_SDK + "from kubectl_pd.commands.cli import main; main(['mcp'])"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("KUBECTL_PD_MCP_SDK", None)
    p = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1
    where = tmp_path / "kubectl-pd" / f"mcp-sdk-py{sys.version_info[0]}.{sys.version_info[1]}"
    assert f"-m pip install --target {where} 'mcp>=2.3,<3'" in p.stderr
    (where / "mcp").mkdir(parents=True)  # what that command makes, stood in for by a stub package
    (where / "mcp" / "__init__.py").write_text("import sys\nsys.stderr.write('stub sdk\\n')\nsys.exit(0)\n")
    p = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert (p.returncode, p.stderr) == (0, "stub sdk\n")
