"""A Tab can run nothing and draw nothing a server names (completion/safe.py): a name must match Kubernetes' name
syntax for its kind, a control character is never offered, bash gets each candidate quoted, and the
kubectl_complete-pd bridge and `__complete` share that escaping. The hostile names come from the loopback API
server, as a hostile cluster or aggregated API server would list them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.completion import safe
from tests.builders import model_deployment, namespace

NS = "team-a"
HOSTILE = ["qwen;touch PWNED;#", "qwen$(touch PWNED)", "qwen*", "qwen\n_activeHelp_ run me",
           "qwen\x1b]52;c;cHduZWQ=\x07", "Qwen", "qwen\t1"]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(("kind", "name", "ok"), [
    ("ModelDeployment", "qwen", True), ("ModelDeployment", "qwen.v2-pd", True), ("Namespace", "team-a", True),
    ("Namespace", "a.b", False), ("ModelDeployment", "-qwen", False), ("ModelDeployment", "a" * 254, False),
    ("Namespace", "a" * 64, False), ("ModelDeployment", "", False), ("ModelDeployment", "a..b", False),
    *[("ModelDeployment", h, False) for h in HOSTILE]])
def test_name_syntax_per_kind(kind: str, name: str, ok: bool) -> None:
    assert safe.object_name(kind, name) is ok


@pytest.mark.parametrize(("value", "quoted"), [
    ("qwen", "qwen"), ("a;b", "a\\;b"), ("a b", "a\\ b"), ("$(x)", "\\$\\(x\\)"), ("~x", "\\~x"), ("*", "\\*"),
    ("ctx:a/b=c,d@e%f+g", "ctx:a/b=c,d@e%f+g")])
def test_bash_word_quotes_like_printf_q(value: str, quoted: str) -> None:
    assert safe.bash_word(value) == quoted
    if shutil.which("bash"):
        got = subprocess.run(["bash", "-c", 'printf %s "$1" | od -c >/dev/null; eval "printf %s $2"', "-", value,
                              quoted], capture_output=True, text=True, check=True).stdout
        assert got == value


def test_cobra_lines_offer_no_control_and_no_active_help() -> None:
    assert safe.cobra_line("qwen", "a\x1b[2Kdesc\nmore") == "qwen\ta [2Kdesc more"  # the ESC gone, nothing drawn
    for bad in ("q\nw", "q\x1b]52;c;x\x07", "_activeHelp_ hi", "q\x9b31m", ""):
        assert safe.cobra_line(bad) is None


@pytest.fixture
def hostile(apiserver: Callable[..., Any], tmp_path: Path) -> dict[str, str]:
    objs = [namespace(NS), model_deployment("qwen", NS), *[model_deployment(h, NS) for h in HOSTILE]]
    _, env = apiserver(objs, namespace=NS)
    return {**os.environ, **env, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.mark.parametrize("argv", [["kubectl_complete-pd"], ["kubectl-pd", "__complete"]])
def test_the_bridge_and_complete_offer_only_valid_names(hostile: dict[str, str], tmp_path: Path,
                                                        argv: list[str]) -> None:
    for words in (["why-pending", "q"], ["why-pending", "-n", NS, "q"], ["why-pending", "--context=x", "q"]):
        r = subprocess.run([str(BIN / argv[0]), *argv[1:], *words], env=hostile, cwd=tmp_path,
                           capture_output=True, timeout=60)
        out = r.stdout.decode()
        assert "\x1b" not in out and "\x07" not in out and "_activeHelp_" not in out and "PWNED" not in out, out
        if "--context=x" not in words:
            assert out.splitlines() == ["qwen", ":4"], out


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is what docs/install.md sets completion up for")
def test_bash_tab_then_enter_runs_nothing_a_server_names(hostile: dict[str, str], tmp_path: Path) -> None:
    kc = yaml.safe_load(Path(hostile["KUBECONFIG"]).read_text())
    ctx = kc["contexts"][0]
    kc["contexts"].append({"name": "a;touch PWNED2;#", "context": ctx["context"]})
    Path(hostile["KUBECONFIG"]).write_text(yaml.safe_dump(kc))
    script = """
source <(kubectl-pd completion bash)
COMP_WORDS=(kubectl-pd why-pending q); COMP_CWORD=2; COMPREPLY=()
_kubectl_pd_completion kubectl-pd
printf 'target:%s\\n' "${COMPREPLY[@]}"
for c in "${COMPREPLY[@]}"; do eval "printf 'typed:%s\\n' $c"; done
COMP_WORDS=(kubectl-pd why-pending --context a); COMP_CWORD=3; COMPREPLY=()
_kubectl_pd_completion kubectl-pd
printf 'context:%s\\n' "${COMPREPLY[@]}"
for c in "${COMPREPLY[@]}"; do eval "printf 'typed:%s\\n' $c"; done
"""
    r = subprocess.run(["bash", "-c", script], env=hostile, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    assert [ln for ln in lines if ln.startswith("target:")] == ["target:qwen"], r.stdout + r.stderr
    assert "context:a\\;touch\\ PWNED2\\;\\#" in lines and "typed:a;touch PWNED2;#" in lines, r.stdout
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "PWNED2").exists()
