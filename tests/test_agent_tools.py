"""The ready tool files of examples/agents/: each is parsed as its host parses it, and every command it declares is
run, through the real kubectl (as `kubectl pd ...`), against a snapshot (`--from-file`) and against the loopback
cluster holding the same objects; each answers with a document its JSON Schema accepts."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from kubectl_pd.agent import schemas
from tests.conftest import ROOT, kubectl_binary, run_kubectl
from tests.mcp_client import session

AGENTS = ROOT / "examples" / "agents"
KUBECTL_AI = AGENTS / "kubectl-ai-tools.yaml"
HOLMES = AGENTS / "holmesgpt-toolset.yaml"
SNAPSHOT = ROOT / "tests" / "fixtures" / "pending" / "preempted.yaml"  # a preempted, still pending qwen-pd
CREATE_CLUSTER = ["create/cluster.yaml", "create/crd-pd-atomic.yaml"]
# what a model would fill into Holmes's {{ parameters }}
PARAMETERS = {"target": "qwen-pd", "namespace": "team-a", "role": "decode", "replicas": "1"}


def _kubectl_ai_commands() -> list[str]:
    """The examples each kubectl-ai tool's command_desc gives (`- kubectl pd ...` lines)."""
    tools = yaml.safe_load(KUBECTL_AI.read_text())
    assert isinstance(tools, list) and tools
    out = []
    for t in tools:
        assert set(t) == {"name", "description", "command", "command_desc"}, t  # kubectl-ai's CustomToolConfig
        assert t["command"] == "kubectl" and re.fullmatch(r"[a-z_]+", t["name"])
        found = re.findall(r"^\s*- (kubectl pd .+?)\s*$", t["command_desc"], flags=re.M)
        assert found, t["name"]
        out += found
    return out


def _holmes_commands() -> list[str]:
    doc = yaml.safe_load(HOLMES.read_text())
    (toolset,) = doc["toolsets"].values()
    assert {"description", "tools", "prerequisites", "llm_instructions"} <= set(toolset)
    out = []
    for t in toolset["tools"]:
        assert set(t) == {"name", "description", "command"}, t
        names = set(re.findall(r"{{\s*(\w+)\s*}}", t["command"]))
        assert names <= set(PARAMETERS), names
        out.append(re.sub(r"{{\s*(\w+)\s*}}", lambda m: PARAMETERS[m.group(1)], t["command"]))
    return out


def _schema_of(argv: list[str]) -> str:
    return {"why-pending": "why-pending", "lint": "lint", "create": "preflight"}[argv[2]]


def _check(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    p = run_kubectl(argv[1:], env=env)
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    errors = list(jsonschema.Draft202012Validator(schemas.SCHEMAS[_schema_of(argv)]()).iter_errors(doc))
    assert not errors, [e.message for e in errors[:3]]
    return doc


COMMANDS = [("kubectl-ai", c) for c in _kubectl_ai_commands()] + [("holmesgpt", c) for c in _holmes_commands()]


@pytest.mark.parametrize(("host", "command"), COMMANDS, ids=[f"{h}:{c[11:60]}" for h, c in COMMANDS])
def test_every_declared_command_runs(host: str, command: str, apiserver: Callable,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)
    assert argv[:2] == ["kubectl", "pd"] and "-o" in argv and argv[argv.index("-o") + 1] == "json"
    assert not {"--fix", "--write-baseline", "--dry-run", "--wait"} & set(argv)  # read-only, all of them
    if argv[2] == "create":
        assert "--preflight" in argv
        _, env = apiserver(*CREATE_CLUSTER, namespace="team-a")
        doc = _check(argv, env)
        assert doc["wouldCreate"] is True
        return
    server, env = apiserver(str(SNAPSHOT), namespace="team-a")
    live = _check(argv, env)  # the live cluster holding the snapshot's objects
    assert {r.method for r in server.requests} <= {"GET"}
    if "-f" not in argv:
        offline = _check([*argv, "--from-file", str(SNAPSHOT)], env)  # and the snapshot itself
        assert offline.keys() == live.keys()


def test_holmes_prerequisite_runs() -> None:
    (toolset,) = yaml.safe_load(HOLMES.read_text())["toolsets"].values()
    for pre in toolset["prerequisites"]:
        argv = shlex.split(pre["command"])
        assert argv[:2] == ["kubectl", "pd"]
        p = run_kubectl(argv[1:])
        assert p.returncode == 0 and p.stdout.startswith("kubectl-pd "), p.stderr


def test_the_mcp_client_config_starts_the_server(apiserver: Callable, tmp_path: Path) -> None:
    """examples/agents/mcp.json as a host reads it: `kubectl pd mcp ...`, here through the real kubectl."""
    (entry,) = json.loads((AGENTS / "mcp.json").read_text())["mcpServers"].values()
    assert entry["command"] == "kubectl" and entry["args"][:2] == ["pd", "mcp"]
    _, env = apiserver(str(SNAPSHOT), namespace="team-a")
    args = [("loopback" if a == "my-cluster" else str(tmp_path) if a == "/srv/snapshots" else a)
            for a in entry["args"][2:]]
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    out = session(args, [("pd_why_pending", {"target": "qwen-pd"})], env={**env, "PATH": path},
                  command=[kubectl_binary(), "pd", "mcp"])
    assert [t.name for t in out.tools][:1] == ["pd_why_pending"]
    assert not out.results[0].is_error and out.results[0].structured_content["pending"] is True
