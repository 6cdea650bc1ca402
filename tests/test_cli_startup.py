"""Startup stays light: help and completion never import the kubernetes client (it costs ~0.3s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Runs the real entry point in a fresh interpreter, then reports what got imported.
PROBE = """
import json, sys
from {module} import main
sys.argv = ["{prog}", *json.loads(sys.argv[1])]
try:
    main({call_args})
except SystemExit as e:
    code = e.code
else:
    code = 0
heavy = sorted(m for m in sys.modules if m.split(".")[0] == "kubernetes")
print("\\n@@" + json.dumps({{"code": code, "heavy": heavy}}))
"""


def probe(args: list[str], *, bridge: bool = False, kubeconfig: str = "/nonexistent") -> dict:
    if bridge:
        code = PROBE.format(module="kubectl_pd.completion_bridge", prog="kubectl_complete-pd", call_args="")
    else:
        code = PROBE.format(module="kubectl_pd.cli", prog="kubectl-pd", call_args="")
    env = {"PATH": "/usr/bin:/bin", "KUBECONFIG": kubeconfig, "HOME": "/nonexistent"}
    r = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True,
                       timeout=60, env=env)
    assert "Traceback" not in r.stderr, r.stderr
    return json.loads(r.stdout.rsplit("\n@@", 1)[1])


@pytest.mark.parametrize("args", [
    ["--help"],
    ["--version"],
    ["create", "--help"],
    ["why-pending", "--help"],
    ["lint", "--help"],
    ["completion", "bash"],
    [],
    ["create", "q", "--model", "m", "--instance-type", "it", "--prefill", "1", "--decode", "1",
     "--engine-version", "1", "--kv-cache-pool", "kv", "--dry-run=client", "-o", "yaml"],
    ["lint", "-f", str(Path(__file__).parent.parent / "examples" / "lint" / "team-queues.yaml")],
], ids=lambda a: " ".join(a[:3]) or "bare")
def test_help_does_not_import_the_kubernetes_client(args: list[str]) -> None:
    got = probe(args)
    assert got["code"] in (0, 1, None)
    assert got["heavy"] == [], f"kubectl pd {' '.join(args)} imported {got['heavy'][:5]}"


@pytest.mark.parametrize("words", [
    ["wh"],
    [""],
    ["why-pending", "--"],
    ["lint", "-o", ""],
    ["create", "x", "--role", "name=p,kind="],
], ids=lambda w: " ".join(w) or "empty")
def test_offline_completion_does_not_import_the_kubernetes_client(words: list[str]) -> None:
    assert probe(["__complete", *words])["heavy"] == []
    assert probe(words, bridge=True)["heavy"] == []


def test_live_completion_is_the_one_path_that_loads_it(tmp_path: Path) -> None:
    """A token kubeconfig completes without the kubernetes package; the probe's positive control is an
    auth-provider user (OIDC), the one shape that still goes through it."""
    kc = tmp_path / "kubeconfig"
    kc.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: x, cluster: {server: 'https://127.0.0.1:9'}}]\n"
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: x, user: u}}]\n"
    )
    got = probe(["__complete", "why-pending", "-n", ""], kubeconfig=str(kc))
    assert got["code"] in (0, None)
    assert "kubernetes" not in got["heavy"]
    oidc = tmp_path / "kubeconfig-oidc"
    oidc.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: x, cluster: {server: 'https://127.0.0.1:9'}}]\n"
        "users: [{name: u, user: {auth-provider: {name: oidc, config: {id-token: t, client-id: c, "
        "idp-issuer-url: 'https://127.0.0.1:9'}}}}]\ncontexts: [{name: c, context: {cluster: x, user: u}}]\n"
    )
    got = probe(["__complete", "why-pending", "-n", ""], kubeconfig=str(oidc))
    assert got["code"] in (0, None)
    assert "kubernetes" in got["heavy"]
