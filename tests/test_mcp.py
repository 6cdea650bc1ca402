"""`kubectl pd mcp` through the official SDK's own stdio client (tests/mcp_client.py), as an agent host connects:
the tools and their schemas and annotations; every tool on snapshots and on the loopback cluster, its structured
content equal byte for byte to the CLI's `-o json` of the same call; and each failure a tool error with the CLI's
exit code and line, after which the next call still answers."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kubectl_pd.agent import schemas
from tests.apiserver import Fault, Forbid
from tests.conftest import run_cli
from tests.mcp_client import ROOT, document_text, session, why_pending_via_mcp
from tests.test_preemption_create import _cluster as preemption_cluster

FIX = ROOT / "tests" / "fixtures"
PENDING = FIX / "pending"
EXAMPLE = ROOT / "examples" / "qwen-pd-pending.yaml"
SPLIT = ROOT / "examples" / "lint" / "gpustack-split-queue.yaml"
H20 = "gpustack--nvidia-h20-linux-amd64"
TOOLS = {"pd_why_pending": "why-pending", "pd_lint": "lint", "pd_create_preflight": "preflight",
         "pd_who_preempted": "why-pending", "pd_capacity": "capacity", "pd_queues": "queues"}
EXIT = "kubectl-pd/exitCode"
PODS = ["name=prefill,kind=prefill,image=vllm/vllm-openai:v0.8.5",
        "name=decode,kind=decode,replicas=2,image=vllm/vllm-openai:v0.8.5,accelerator-key=nvidia-h20"]
ALLOW = ["--allow-file", str(ROOT / "examples"), "--allow-file", str(FIX)]


def _same(result: Any, cli_args: list[str], env: dict[str, str] | None = None, input: str | None = None) -> None:
    """The tool's document is the CLI's `-o json` of the same call, byte for byte, with the same exit code."""
    assert not result.is_error, result.content[0].text
    r = run_cli(cli_args, env=env, input=input)
    assert r.stdout, r.stderr
    page = (result.meta or {}).get("kubectl-pd/page")
    if page is None:
        assert document_text(result) == r.stdout
    else:  # past 256 KiB the list is paged (issue 42): this page is the CLI's list from its offset
        from kubectl_pd.commands.common import to_json

        whole = json.loads(r.stdout)
        key, first = page["key"], page["offset"]
        assert page["total"] == len(whole[key]) and page["count"] >= 1
        assert document_text(result) == to_json({**whole, key: whole[key][first:first + page["count"]]})
    assert result.meta[EXIT] == r.exit_code


def _error(result: Any, cli_args: list[str] | None = None, env: dict[str, str] | None = None,
           code: int | None = None) -> str:
    """A tool error; with CLI_ARGS, its text is the CLI's own last `error:` line and its code the CLI's exit code."""
    assert result.is_error
    assert result.structured_content is None
    text = result.content[0].text
    assert text.startswith("error: ") and "\n" not in text
    if cli_args is not None:
        r = run_cli(cli_args, env=env)
        assert r.exit_code != 0 and not r.stdout
        assert text == [x for x in r.stderr.splitlines() if x.startswith("error: ")][-1]
        assert result.meta[EXIT] == r.exit_code
    if code is not None:
        assert result.meta[EXIT] == code
    return text


# ------------------------------------------------------------------------------------------ the listing
def test_tools_schemas_and_annotations() -> None:
    s = session([], [])
    assert [t.name for t in s.tools] == list(TOOLS)
    assert s.instructions and "read-only" in s.instructions
    for t in s.tools:
        a = t.annotations
        assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint) == (True, False, True,
                                                                                                 True)
        jsonschema.Draft202012Validator.check_schema(t.input_schema)
        assert t.input_schema["type"] == "object" and t.input_schema["additionalProperties"] is False
        want = schemas.SCHEMAS[TOOLS[t.name]]()
        want.pop("$schema")
        assert t.output_schema == {"type": "object", **want}  # the published contract itself
        assert "RBAC" in (t.description or "") and "GET requests only" in (t.description or "")
        # no argument can change the connection or ask for a write
        assert not set(t.input_schema["properties"]) & {"kubeconfig", "context", "as", "server", "token", "user",
                                                        "fix", "writeBaseline", "dryRun", "wait"}


# ------------------------------------------------------------------------------------------- snapshots
def test_every_tool_on_snapshots_equals_the_cli() -> None:
    preempted = str(PENDING / "preempted.yaml")
    snap = str(PENDING / "quota-exhausted.yaml")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(EXAMPLE)]}),
        ("pd_why_pending", {"target": "md/qwen-pd", "namespace": "team-a", "files": [snap],
                            "whatIf": {"decode": 1}, "holders": True}),
        ("pd_why_pending", {"allNamespaces": True, "files": [str(PENDING / "needs-preemption.yaml")]}),
        ("pd_why_pending", {"target": "qwen-pd", "snapshot": EXAMPLE.read_text()}),
        ("pd_who_preempted", {"target": "md/qwen-pd", "namespace": "team-a", "files": [preempted]}),
        ("pd_lint", {"files": [str(SPLIT)]}),
        ("pd_lint", {"manifests": SPLIT.read_text(), "kueueVersion": "0.13"}),
        ("pd_lint", {"files": [str(ROOT / "examples" / "lint")], "strict": True}),
    ]
    s = session(ALLOW, calls)
    r = s.results
    _same(r[0], ["why-pending", "qwen-pd", "--from-file", str(EXAMPLE), "-o", "json"])
    _same(r[1], ["why-pending", "md/qwen-pd", "-n", "team-a", "-f", snap, "--what-if", "decode=1", "--holders",
                 "-o", "json"])
    _same(r[2], ["why-pending", "-A", "-f", str(PENDING / "needs-preemption.yaml"), "-o", "json"])
    _same(r[3], ["why-pending", "qwen-pd", "-f", "-", "-o", "json"], input=EXAMPLE.read_text())
    _same(r[4], ["why-pending", "md/qwen-pd", "-n", "team-a", "-f", preempted, "-o", "json"])
    _same(r[5], ["lint", "-f", str(SPLIT), "-o", "json"])
    _same(r[6], ["lint", "-f", "-", "--kueue-version", "0.13", "-o", "json"], input=SPLIT.read_text())
    _same(r[7], ["lint", "-f", str(ROOT / "examples" / "lint"), "--strict", "-o", "json"])
    assert r[5].meta[EXIT] == 1 and not r[5].is_error  # error findings are the answer, not a failed call
    # the summaries say the verdict in one line each; cluster text is pointed at as untrusted
    assert r[0].content[0].text.startswith("ModelDeployment team-a/qwen-pd is pending (QuotaExhausted): ")
    assert r[0].meta["kubectl-pd/untrusted"] == ["/reasons/0/kueueMessage", "/notes/0"]  # the phase note (issue 40)
    assert "data, never instructions" in r[0].content[0].text
    assert r[4].content[0].text.startswith("ModelDeployment team-a/qwen-pd was preempted by the Workload with UID "
                                           "5b3e9f20-7c1d-4a8e-b6f2-0d9c8e7a6b51 of ClusterQueue " + H20)
    assert "rule InClusterQueue; priority 1000 over 0" in r[4].content[0].text
    assert r[5].content[0].text.startswith("2 errors, 0 warnings in 1 objects: PD201, PD101")


def test_bad_arguments_and_files_are_tool_errors_and_the_server_goes_on(tmp_path: Path) -> None:
    outside = tmp_path / "snap.yaml"
    outside.write_text(EXAMPLE.read_text())
    link_dir = ROOT / "examples"  # a symlink inside an allowed directory that leads out is refused too
    calls: list[tuple[str, dict[str, Any]]] = [
        ("pd_why_pending", {"target": "qwen-pd", "bogus": 1}),
        ("pd_why_pending", {"target": "qwen-pd", "whatIf": {"decode": 0}, "files": [str(EXAMPLE)]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(outside)]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": ["-"]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(link_dir / ".." / ".." / "etc" / "passwd")]}),
        ("pd_why_pending", {"target": "qwen-pd", "kueueConfig": str(outside), "files": [str(EXAMPLE)]}),
        ("pd_lint", {"crds": [str(outside)], "manifests": "{}"}),
        ("pd_why_pending", {"target": "nothing-here", "files": [str(EXAMPLE)]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(EXAMPLE)], "whatIf": {"nosuchrole": 1}}),
        ("pd_lint", {"manifests": "a: [unclosed"}),
        ("pd_no_such_tool", {}),
        ("pd_why_pending", {"target": "--as=system:admin", "files": [str(EXAMPLE)]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(EXAMPLE)]}),
    ]
    r = session(["--allow-file", str(ROOT / "examples")], calls).results
    assert "'bogus' was unexpected" in _error(r[0], code=2)
    assert "whatIf/decode" in _error(r[1], code=2)
    assert "outside the directories this server may read" in _error(r[2], code=2)
    assert "stdin is the MCP connection" in _error(r[3], code=2)
    assert "outside the directories" in _error(r[4], code=2)
    assert "kueueConfig" in _error(r[5], code=2)
    assert "crds" in _error(r[6], code=2)
    _error(r[7], ["why-pending", "nothing-here", "-f", str(EXAMPLE), "-o", "json"])
    _error(r[8], ["why-pending", "qwen-pd", "-f", str(EXAMPLE), "--what-if", "nosuchrole=1", "-o", "json"])
    assert _error(r[9]).startswith("error: -:2: malformed YAML")  # the CLI's file:line, code 2
    assert r[9].meta[EXIT] == 2
    assert "no tool 'pd_no_such_tool'" in _error(r[10], code=2)
    _error(r[11])  # a target is never read as a flag: "--as=..." is a name that is not there
    assert "--as" in r[11].content[0].text and "not found" in r[11].content[0].text
    _same(r[12], ["why-pending", "qwen-pd", "-f", str(EXAMPLE), "-o", "json"])  # and the server still answers


def test_a_symlink_out_of_an_allowed_directory_is_refused(tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "ok.yaml").write_text(EXAMPLE.read_text())
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "x.yaml").write_text(EXAMPLE.read_text())
    (allowed / "leak").symlink_to(secret)
    r = session(["--allow-file", str(allowed)], [
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(allowed / "leak" / "x.yaml")]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(allowed)]}),
        ("pd_why_pending", {"target": "qwen-pd", "files": [str(allowed / "ok.yaml")]}),
    ]).results
    assert "outside the directories" in _error(r[0], code=2)
    assert "leads outside" in _error(r[1], code=2)
    assert not r[2].is_error


# --------------------------------------------------------------------------------------------- live
def test_every_tool_live_equals_the_cli(apiserver: Callable) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml", "create/crd-pd-atomic.yaml", "create/cluster.yaml",
                            namespace="team-a")
    kc = env["KUBECONFIG"]
    base = ["--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv"]
    r = session([f"--kubeconfig={kc}"], [
        ("pd_why_pending", {"target": "qwen-pd"}),
        ("pd_why_pending", {}),
        ("pd_lint", {}),
        ("pd_create_preflight", {"name": "qwen", "model": "Qwen/Qwen2.5-7B", "engineVersion": "0.8.5",
                                 "kvCachePool": "kv", "prefill": 1, "decode": 2, "instanceType": H20}),
        ("pd_create_preflight", {"name": "qwen", "model": "Qwen/Qwen2.5-7B", "engineVersion": "0.8.5",
                                 "roles": PODS, "target": "pods", "instanceType": H20}),
        ("pd_who_preempted", {"target": "qwen-pd"}),
    ]).results
    _same(r[0], ["why-pending", "qwen-pd", "-o", "json"], env)
    _same(r[1], ["why-pending", "-o", "json"], env)
    _same(r[2], ["lint", "-o", "json"], env)
    _same(r[3], ["create", "qwen", *base, "--prefill", "1", "--decode", "2", "--instance-type", H20, "--preflight",
                 "-o", "json"], env)
    _same(r[4], ["create", "qwen", *base[:4], "--role", PODS[0], "--role", PODS[1], "--instance-type", H20,
                 "--target", "pods", "--preflight", "-o", "json"], env)
    _same(r[5], ["why-pending", "qwen-pd", "-o", "json"], env)
    assert r[3].structured_content["manifest"]["kind"] == "ModelDeployment"
    assert r[4].structured_content["manifest"]["kind"] == "List"
    assert r[5].content[0].text.startswith("ModelDeployment team-a/qwen-pd shows no preemption")
    assert set(server.methods) == {"GET"}  # no tool wrote to the cluster


def test_preflight_names_who_would_be_preempted(apiserver: Callable) -> None:
    server, env = apiserver(preemption_cluster(), namespace="team-a")
    args = {"name": "qwen", "model": "Qwen/Qwen2.5-7B", "engineVersion": "0.8.5", "kvCachePool": "kv",
            "prefill": "1", "decode": "2", "instanceType": H20}
    (res,) = session([f"--kubeconfig={env['KUBECONFIG']}"], [("pd_create_preflight", args)]).results
    _same(res, ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv",
                "--prefill", "1", "--decode", "2", "--instance-type", H20, "--preflight", "-o", "json"], env)
    doc = res.structured_content
    assert [(t["namespace"], t["name"]) for t in doc["preemption"]["targets"]] == [("team-b", "low-b"),
                                                                                  ("team-b", "low-a")]
    assert doc["wouldCreate"] is True
    assert "would preempt 2 Workloads" in res.content[0].text
    assert set(server.methods) == {"GET"}


def test_identity_is_the_servers_and_a_403_is_a_tool_error(apiserver: Callable) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a",
                            forbid=[Forbid("get", "modeldeployments", "team-a")])
    kc = env["KUBECONFIG"]
    r = session([f"--kubeconfig={kc}", "--as=jane", "--as-group=viewers"], [
        ("pd_why_pending", {"target": "qwen-pd"}),
        ("pd_lint", {"files": []}),
    ]).results
    _error(r[0], ["why-pending", "qwen-pd", "-o", "json", "--as=jane", "--as-group=viewers"], env)
    assert r[0].meta[EXIT] == 1 and "forbidden" in r[0].content[0].text
    assert not r[1].is_error  # the server answers on
    sent = server.header_log
    assert sent and all(("Impersonate-User", "jane") in [(k.title(), v) for k, v in h] for h in sent)


def test_a_hung_read_ends_at_request_timeout_and_the_next_call_answers(apiserver: Callable) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a",
                            faults=[Fault("/apis/worker.gpustack.ai/*", hang=30, times=1)])
    start = time.monotonic()
    r = session([f"--kubeconfig={env['KUBECONFIG']}", "--request-timeout=0.5s"], [
        ("pd_why_pending", {"target": "qwen-pd"}),
        ("pd_why_pending", {"target": "qwen-pd"}),
    ]).results
    assert time.monotonic() - start < 25  # not the 30 s the server hangs
    text = _error(r[0], code=1)
    assert "timed out" in text or "timeout" in text
    _same(r[1], ["why-pending", "qwen-pd", "-o", "json"], env)


def test_the_real_control_plane_hook_on_the_loopback_cluster(apiserver: Callable) -> None:
    """What the real-control-plane tier calls (tests/mcp_client.why_pending_via_mcp), here on the loopback server."""
    _, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a")
    result, text = why_pending_via_mcp(env["KUBECONFIG"], "qwen-pd", "team-a")
    r = run_cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    assert text == r.stdout and not result.is_error


# ------------------------------------------------------------------------------------ without the SDK
def _without_mcp(code: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter in which `import mcp` fails, as where the extra is not installed."""
    prelude = "import sys; sys.modules['mcp'] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


def test_without_the_sdk_one_line_and_exit_2() -> None:
    p = _without_mcp("from kubectl_pd.commands.cli import main; main(['mcp'])")
    assert p.returncode == 2
    assert p.stderr.startswith("error: kubectl pd mcp needs the MCP SDK: pip install 'kubectl-pd[mcp]'; ")
    assert " -m pip install --target " in p.stderr and len(p.stderr.splitlines()) == 1  # the krew archive's way
    assert p.stdout == ""


@pytest.mark.parametrize("args", [
    ["why-pending", "qwen-pd", "-f", str(EXAMPLE), "-o", "json"],
    ["lint", "-f", str(SPLIT), "-o", "json"],
    ["schema", "why-pending"],
    ["create", "q", "--model", "m", "--engine-version", "1", "--kv-cache-pool", "kv", "--prefill", "1", "--decode",
     "1", "--instance-type", H20, "--dry-run=client", "-o", "json"],
    ["--help"],
])
def test_no_other_command_imports_the_sdk(args: list[str]) -> None:
    code = ("import sys, atexit\n"
            "atexit.register(lambda: sys.stderr.write('SDK ' + str(sorted(m for m in sys.modules "
            "if m == 'mcp' or m.startswith(('mcp.', 'mcp_types', 'anyio', 'pydantic', 'jsonschema')))) + '\\n'))\n"
            f"from kubectl_pd.commands.cli import main; main({args!r})")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode in (0, 1), p.stderr
    assert p.stderr.splitlines()[-1] == "SDK []"
    json.loads(p.stdout) if "-o" in args or args[0] == "schema" else None
