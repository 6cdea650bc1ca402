"""The shell: help, version, usage errors, and kubectl finding the plugin."""

import subprocess
import sys
from collections.abc import Callable

from kubectl_pd import __version__
from tests.conftest import run_kubectl


def test_help_lists_commands_with_kubectl_usage(cli: Callable) -> None:
    r = cli(["--help"])
    assert r.exit_code == 0
    assert r.stdout.startswith("Usage: kubectl pd [OPTIONS] COMMAND [ARGS]...")
    commands = r.stdout.split("\nCommands:\n", 1)[1].splitlines()
    # every command, in the order a newcomer meets them, and no hidden one (__complete)
    assert [line.split()[0] for line in commands] == ["create", "why-pending", "lint", "snapshot", "tree", "capacity",
                                                      "queues", "mcp",
                                                      "schema", "completion"]


def test_version(cli: Callable) -> None:
    r = cli(["--version"])
    assert (r.exit_code, r.stdout) == (0, f"kubectl-pd {__version__}\n")


def test_unknown_command_is_one_line_exit_2(cli: Callable) -> None:
    r = cli(["frobnicate"])
    assert r.exit_code == 2
    assert r.stderr == "error: No such command 'frobnicate'. (see 'kubectl pd --help')\n"
    assert r.stdout == ""


def test_bad_global_flag_value(cli: Callable) -> None:
    r = cli(["--request-timeout", "soon", "lint", "--help"])
    assert r.exit_code == 2
    assert r.stderr == ("error: Invalid value for '--request-timeout': use a duration like 5s, 1m or 500ms (0 means "
                        "no timeout) (see 'kubectl pd --help')\n")


def test_python_dash_m() -> None:
    r = subprocess.run([sys.executable, "-m", "kubectl_pd", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("Usage: kubectl pd ")


def test_real_kubectl_finds_the_plugin() -> None:
    r = run_kubectl(["pd", "--help"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Usage: kubectl pd [OPTIONS] COMMAND [ARGS]...")
    listed = run_kubectl(["plugin", "list", "--name-only"])
    assert "kubectl-pd" in listed.stdout.split()
