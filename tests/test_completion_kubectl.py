"""End to end through the real kubectl (1.26+ plugin completion) and the generated shell scripts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.builders import namespace
from tests.conftest import run_kubectl

ROOT = Path(__file__).parent.parent
BIN = Path(sys.executable).parent


def candidates(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    assert lines and lines[-1].startswith(":"), stdout
    return [line.split("\t")[0] for line in lines[:-1]]


def test_venv_has_both_executables() -> None:
    assert (BIN / "kubectl-pd").exists() and (BIN / "kubectl_complete-pd").exists()


def test_kubectl_completes_plugin_subcommands() -> None:
    r = run_kubectl(["__complete", "pd", "wh"])
    assert r.returncode == 0, r.stderr
    assert "why-pending" in candidates(r.stdout)
    assert r.stdout.splitlines()[-1] == ":4"


def test_kubectl_completes_role_kinds() -> None:
    r = run_kubectl(["__complete", "pd", "create", "x", "--role", "name=p,kind="])
    assert r.returncode == 0, r.stderr
    got = candidates(r.stdout)
    for kind in ("server", "prefill", "decode"):
        assert any(v == kind or v.endswith("kind=" + kind) for v in got), got


def test_kubectl_completes_flags_and_output_values() -> None:
    flags = candidates(run_kubectl(["__complete", "pd", "why-pending", "--na"]).stdout)
    assert flags == ["--namespace"]
    outputs = candidates(run_kubectl(["__complete", "pd", "lint", "-o", ""]).stdout)
    assert {"json", "yaml"} <= set(outputs)


def test_kubectl_completes_namespaces_live(apiserver: Callable) -> None:
    ns = [namespace(n) for n in ("ml", "mlops", "default")]
    server, env = apiserver(ns)
    r = run_kubectl(["__complete", "pd", "why-pending", "-n", "ml"], env=env)
    assert r.returncode == 0, r.stderr
    assert candidates(r.stdout) == ["ml", "mlops"]
    assert set(server.methods) == {"GET"}


def test_kubectl_runs_the_committed_sh_bridge(tmp_path: Path) -> None:
    # Only the committed script as kubectl_complete-pd, and the installed kubectl-pd behind it.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy2(ROOT / "completions" / "kubectl_complete-pd", bindir / "kubectl_complete-pd")
    os.symlink(BIN / "kubectl-pd", bindir / "kubectl-pd")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    from tests.conftest import kubectl_binary

    r = subprocess.run([kubectl_binary(), "__complete", "pd", "li"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert candidates(r.stdout) == ["lint"]
    assert f"About to call: {bindir / 'kubectl_complete-pd'}" in r.stderr


# -- the click scripts (`kubectl pd completion SHELL`) -------------------------------------------
# These scripts run `kubectl-pd` with _KUBECTL_PD_COMPLETE set; the entry point must honour it.


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_bash_script_completes_subcommands() -> None:
    script = ROOT / "completions" / "kubectl-pd.bash"
    driver = (
        f"source {script}\n"
        'COMP_WORDS=(kubectl-pd wh); COMP_CWORD=1; COMPREPLY=()\n'
        "_kubectl_pd_completion kubectl-pd\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", driver], capture_output=True, text=True,
                       env=_env(), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["why-pending"]


@pytest.mark.parametrize("shell, words, cword, expect", [
    ("bash_complete", "kubectl-pd completion z", "2", "plain,zsh"),
    ("zsh_complete", "kubectl-pd completion z", "2", "plain\nzsh\n_"),
    ("fish_complete", "kubectl-pd completion ", "", "plain,bash"),
])
def test_script_protocol_through_the_entry_point(shell: str, words: str, cword: str, expect: str) -> None:
    env = {**_env(), "_KUBECTL_PD_COMPLETE": shell, "COMP_WORDS": words, "COMP_CWORD": cword}
    r = subprocess.run([str(BIN / "kubectl-pd")], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert expect in r.stdout
