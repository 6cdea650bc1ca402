"""kubectl's connection flags in Tab: offered by name, honoured by live lookups (through the real kubectl's
plugin completion, the bridge's fast path and the command tree alike), and --cluster/--user completed from
the kubeconfig."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_pd.commands.bridge import fast_target
from tests.apiserver import TLS, TOKEN, FakeApiServer
from tests.builders import namespace
from tests.conftest import run_kubectl
from tests.test_completion_kubectl import candidates


@pytest.mark.parametrize(("typed", "offered"), [
    ("--as", ["--as", "--as-group", "--as-uid", "--as-user-extra"]),
    ("--insec", ["--insecure-skip-tls-verify"]),
    ("--tl", ["--tls-server-name"]),
    ("--cer", ["--certificate-authority"]),
    ("--se", ["--server"]),
    ("--to", ["--token"]),
    ("--us", ["--user"]),
    ("--cl", ["--cluster", "--client-certificate", "--client-key"]),
    ("--pro", ["--proxy-url"]),
])
def test_kubectl_offers_the_connection_flags(typed: str, offered: list[str]) -> None:
    for command in ("why-pending", "lint", "create"):
        r = run_kubectl(["__complete", "pd", command, typed])
        assert r.returncode == 0, r.stderr
        also = ["--selector"] if (command, typed) == ("why-pending", "--se") else []  # kubectl's -l (issue 32)
        assert sorted(candidates(r.stdout)) == sorted(offered + also)


def _ca(server: FakeApiServer) -> str:
    assert isinstance(server.tls, TLS) and server.tls.ca is not None
    return str(server.tls.ca)


def test_live_tab_with_server_and_token_flags_and_no_kubeconfig(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver([namespace(n) for n in ("ml", "mlops", "default")])
    env = {"KUBECONFIG": str(tmp_path / "absent")}
    flags = ["-s", server.url, "--token", TOKEN, "--certificate-authority", _ca(server), "--as", "alice"]
    server.header_log.clear()
    r = run_kubectl(["__complete", "pd", "why-pending", *flags, "-n", "ml"], env=env)
    assert r.returncode == 0, r.stderr
    assert candidates(r.stdout) == ["ml", "mlops"]
    assert server.header_log and all(("Impersonate-User", "alice") in h for h in server.header_log)
    assert TOKEN not in r.stdout  # (kubectl itself echoes the words typed on stderr)


def test_fast_path_takes_the_flags_as_the_command_tree_does(cli: Callable, apiserver: Callable, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    server, _ = apiserver("pending/quota-exhausted.yaml", namespace="team-a")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    words = ["why-pending", "--server", server.url, "--token", TOKEN, "--certificate-authority", _ca(server),
             "--as", "alice", "--as-group", "dev", "--as-group", "ops", "-n", "team-a", ""]
    full = cli(["__complete", *words], env={"KUBECONFIG": str(tmp_path / "absent")})
    assert full.exit_code == 0
    server.header_log.clear()
    fast = fast_target(words)
    assert fast is not None and len(fast) > 1  # names were found
    assert "\n".join(fast) + "\n" == full.stdout
    groups = [v for k, v in server.header_log[0] if k == "Impersonate-Group"]
    assert groups == ["dev", "ops"]


def test_cluster_and_user_complete_from_the_kubeconfig(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver()
    assert cli(["__complete", "lint", "--cluster", "loop"], env=env).stdout.splitlines()[0] == "loopback"
    assert cli(["__complete", "lint", "--user", "t"], env=env).stdout.splitlines()[0] == "tester"


# -- every command takes the flags ----------------------------------------------------------------------

CREATE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv",
          "--prefill", "1", "--decode", "2", "--instance-type", "gpustack--nvidia-h20-linux-amd64", "--dry-run=server"]
COMMANDS = {
    "lint": (("create/cluster.yaml",), ["lint"]),
    "why-pending": (("pending/quota-exhausted.yaml",), ["why-pending", "qwen-pd", "-n", "team-a"]),
    "create": (("create/cluster.yaml", "create/crd-pd-atomic.yaml"), [*CREATE, "-n", "team-a"]),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_takes_the_connection_flags(command: str, cli: Callable, apiserver: Callable,
                                                  tmp_path: Path) -> None:
    fixtures, argv = COMMANDS[command]
    server, kubeconfig_env = apiserver(*fixtures, namespace="team-a")
    expected = cli(argv, env=kubeconfig_env)  # the same command through the kubeconfig
    env = {"KUBECONFIG": str(tmp_path / "absent"), "NO_COLOR": "1"}
    flags = ["--server", server.url, "--token", TOKEN, "--certificate-authority", _ca(server), "--as", "alice",
             "--as-group", "dev", "--as-group", "ops"]
    server.header_log.clear()
    r = cli([*argv, *flags], env=env)
    assert (r.exit_code, r.stdout) == (expected.exit_code, expected.stdout), r.stderr
    assert server.header_log
    for headers in server.header_log:
        assert [(k, v) for k, v in headers if k.startswith("Impersonate-")] == [
            ("Impersonate-User", "alice"), ("Impersonate-Group", "dev"), ("Impersonate-Group", "ops")]
    assert TOKEN not in r.stdout + r.stderr
