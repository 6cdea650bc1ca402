"""No credential in any output (issue 30, item 3): a hostile server or proxy echoes the request's own
credentials in a 403 message (and in a Warning header), and the exec plugin's arguments carry a client
secret; every command, every output format, with and without KUBECTL_PD_DEBUG, is grepped for each
form of each secret. Real subprocess runs against the loopback server (tests/apiserver.py)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apiserver import TOKEN, FakeApiServer, Fault, load_objects
from tests.conftest import FIXTURES

KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
USER, PASSWORD = "alice", "basic-password-do-not-print"
BASIC_B64 = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
SECRET_ARG = "oidc-client-secret-do-not-print"
ECHO = 'clusterqueues is forbidden: User "{auth} {user}" cannot list resource "clusterqueues"'

COMMANDS = {
    "lint": ["lint"],
    "why-pending": ["why-pending", "qwen-pd", "-n", "team-a"],
    "why-pending-all-json": ["why-pending", "-A", "-o", "json"],
    "why-pending-all": ["why-pending", "-A"],
    "create": ["create", "qwen-pd", "-n", "team-a", "--model", "Qwen/Qwen3-8B", "--instance-type",
               "gpustack--nvidia-h20-linux-amd64", "--prefill", "1", "--decode", "2", "--engine-version", "0.8.5",
               "--kv-cache-pool", "kv"],
}


def _run(args: list[str], kc: Path, debug: bool) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1"}
    env.pop("KUBECTL_PD_DEBUG", None)
    if debug:
        env["KUBECTL_PD_DEBUG"] = "1"
    return subprocess.run([sys.executable, "-m", "kubectl_pd", *args, "--request-timeout", "10s"], env=env,
                          capture_output=True, text=True, timeout=60)


def _leaks(text: str, secrets: list[str]) -> list[str]:
    return [s for s in secrets if s in text]


@pytest.fixture
def hostile(tmp_path: Path) -> Any:
    started: list[FakeApiServer] = []

    def start(auth: str, command: str = "lint") -> tuple[Path, list[str]]:
        if command == "create":  # the write is refused, echoing the credentials
            objs = load_objects(FIXTURES / "create/cluster.yaml", FIXTURES / "create/crd-pd-atomic.yaml")
            faults = [Fault("/apis/worker.gpustack.ai/*", method="POST", status=403, echo=ECHO)]
        else:
            objs = load_objects(FIXTURES / "pending/quota-exhausted.yaml")
            faults = [Fault(f"{KUEUE}/*", status=403, echo=ECHO)]
        server = FakeApiServer(objects=objs, faults=faults, basic=(USER, PASSWORD)).start()
        started.append(server)
        if auth == "token":
            kc = server.write_kubeconfig(tmp_path / "kc")
            return kc, [TOKEN]
        if auth == "basic":
            kc = server.write_kubeconfig(tmp_path / "kc", user={"username": USER, "password": PASSWORD})
            return kc, [PASSWORD, BASIC_B64]
        plugin = tmp_path / "plugin.py"
        plugin.write_text("import json\nprint(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', "
                          f"'kind': 'ExecCredential', 'status': {{'token': {TOKEN!r}}}}}))\n")
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                         "args": [str(plugin), f"--oidc-client-secret={SECRET_ARG}"],
                         "interactiveMode": "Never"}}
        kc = server.write_kubeconfig(tmp_path / "kc", user=user)
        return kc, [TOKEN, SECRET_ARG]

    yield start
    for s in started:
        s.stop()


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("auth", ["token", "basic", "exec"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_403_echoing_the_credentials_never_prints_them(hostile: Any, auth: str, command: str,
                                                         debug: bool) -> None:
    kc, secrets = hostile(auth, command)
    r = _run(COMMANDS[command], kc, debug)
    assert "Traceback" not in r.stderr
    assert _leaks(r.stdout + r.stderr, secrets) == [], (r.returncode, r.stdout[-500:], r.stderr[-800:])
    assert "<redacted>" in r.stdout + r.stderr  # the message was printed, with the secret taken out


def test_a_failing_exec_plugin_is_named_by_its_executable_only(tmp_path: Path) -> None:
    server = FakeApiServer().start()
    try:
        plugin = tmp_path / "plugin.py"
        plugin.write_text("import sys\nsys.exit(3)\n")
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                         "args": [str(plugin), "--oidc-client-secret", SECRET_ARG, f"--token={SECRET_ARG}2"],
                         "env": [{"name": "CLIENT_SECRET", "value": SECRET_ARG + "3"}],
                         "interactiveMode": "Never"}}
        kc = server.write_kubeconfig(tmp_path / "kc", user=user)
        for debug in (False, True):
            r = _run(["lint"], kc, debug)
            assert r.returncode == 1 and "Traceback" not in r.stderr
            assert SECRET_ARG not in r.stdout + r.stderr, r.stderr
            assert len(r.stderr.splitlines()) == 1
    finally:
        server.stop()


def test_no_credential_of_the_kubeconfig_in_a_kubeconfig_error(tmp_path: Path) -> None:
    """A kubeconfig kubectl refuses (token and basic auth together) is refused without echoing either."""
    kc = tmp_path / "kc"
    kc.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        "users": [{"name": "u", "user": {"token": TOKEN, "username": USER, "password": PASSWORD}}]}))
    r = _run(["lint"], kc, False)
    assert r.returncode == 1 and _leaks(r.stdout + r.stderr, [TOKEN, PASSWORD]) == []
