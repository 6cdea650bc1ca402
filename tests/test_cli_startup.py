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
        code = PROBE.format(module="kubectl_pd.commands.bridge", prog="kubectl_complete-pd", call_args="")
    else:
        code = PROBE.format(module="kubectl_pd.commands.cli", prog="kubectl-pd", call_args="")
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


GC_PROBE = """
import gc, json, sys
before = gc.get_threshold()
import {module}
print(json.dumps({{"before": before, "after": gc.get_threshold(), "enabled": gc.isenabled()}}))
"""


@pytest.mark.parametrize("module", ["kubectl_pd.commands.cli", "kubectl_pd.commands.bridge"])
def test_start_up_collects_young_objects_less_often_but_still_collects(module: str) -> None:
    """Importing the CLI sets the tuned GC; the bridge sets it when it runs (its main)."""
    call = "" if module == "kubectl_pd.commands.cli" else "; kubectl_pd.commands.bridge.short_lived_gc()"
    code = GC_PROBE.format(module=module + call)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    got = json.loads(r.stdout)
    assert got["before"] == [700, 10, 10]
    assert got["after"] == [50_000, 10, 10] and got["enabled"] is True


def test_tuned_gc_frees_garbage_cycles_and_keeps_a_higher_threshold() -> None:
    code = """
import gc, json, weakref
gc.set_threshold(80_000, 5, 5)
from kubectl_pd.commands.bridge import short_lived_gc
short_lived_gc()
kept = gc.get_threshold()
gc.set_threshold(700, 10, 10)
short_lived_gc()
class Node: pass
refs = []
for _ in range(60_000):
    a, b = Node(), Node()
    a.b, b.a = b, a
    refs.append(weakref.ref(a))
alive = sum(r() is not None for r in refs)
print(json.dumps({"kept": kept, "alive": alive}))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    got = json.loads(r.stdout)
    assert got["kept"] == [80_000, 5, 5]
    assert got["alive"] < 60_000 // 2, "cycles made after start-up are still collected"
