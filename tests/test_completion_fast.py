"""The bridge's fast path (why-pending targets without click) answers exactly what the command tree does."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_pd.commands.bridge import fast_target
from tests.apiserver import Fault


@pytest.mark.parametrize("words", [
    ["why-pending", ""],
    ["why-pending", "q"],
    ["why-pending", "zz"],
    ["why-pending", "-n", "team-a", ""],
    ["why-pending", "-A", ""],
    ["why-pending", "--context", "loopback", "-n", "team-b", ""],
])
def test_fast_path_matches_the_command_tree(cli: Callable, apiserver: Callable, words: list[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a")
    full = cli(["__complete", *words], env=env)
    assert full.exit_code == 0
    monkeypatch.setenv("KUBECONFIG", env["KUBECONFIG"])  # the environment kubectl gives the bridge
    fast = fast_target(words)
    assert fast is not None
    assert "\n".join(fast) + "\n" == full.stdout


@pytest.mark.parametrize("words", [["why-pending", "-"], ["why-pending", "qwen-pd", ""], ["lint", ""],
                                   ["why-pending", "--namespace=x", ""], ["why-pending", "-o", ""]])
def test_everything_else_takes_the_full_path(words: list[str]) -> None:
    assert fast_target(words) is None


def test_fast_path_gives_up_within_its_deadline_and_loads_no_click(apiserver: Callable) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a",
                            faults=[Fault("/apis/worker.gpustack.ai/*", hang=10)])
    code = ("import sys; from kubectl_pd.commands.bridge import main; "
            "sys.argv=['x','why-pending','--request-timeout','300ms','']; main(); "
            "print('click' in sys.modules, 'kubernetes' in sys.modules)")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30,
                       env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", **env})
    assert time.monotonic() - t0 < 3  # the server hangs for 10 s; the deadline is 0.3 s
    assert p.stdout == ":4\nFalse False\n" and p.stderr == ""


def test_a_live_tab_loads_only_what_the_lookup_needs(apiserver: Callable) -> None:
    """Each of these costs a Tab press 5 to 30 ms to import (docs/benchmarks.md): the bridge answers
    without them. `-I -S`: no site-packages at all (the fast path needs none), so an environment's own
    .pth hooks, which may import typing, stay out of the count."""
    server, env = apiserver("pending/quota-exhausted.yaml", namespace="team-a")
    heavy = ["click", "kubernetes", "yaml", "typing", "dataclasses", "inspect", "http.client", "email",
             "kubectl_pd.pending.diagnose", "tabulate"]
    code = ("import sys; from kubectl_pd.commands.bridge import main; sys.argv=['x','why-pending','']; main(); "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    root = str(Path(__file__).resolve().parent.parent)
    p = subprocess.run([sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {root!r}); " + code],
                       capture_output=True, text=True, timeout=30,
                       env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", **env})
    assert (p.stdout, p.stderr) == ("qwen-pd\n:4\n[]\n", "")


@pytest.mark.parametrize("server", ["https://127.0.0.1:6443", "https://kube.example", "http://kube.example/",
                                    "https://Kube.Example:8443/prefix?x=1", "https://u:p@kube.example:1",
                                    "https://[fd00::1]:6443", "https://kube.example:port", "kube.example:6443"])
def test_host_port_agrees_with_the_url_parser_or_defers_to_it(server: str) -> None:
    from urllib.parse import urlsplit

    from kubectl_pd.commands.bridge import _host_port

    found = _host_port(server)
    if found is not None:
        parts = urlsplit(server)
        assert found == (parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    else:
        assert any(c in server for c in "@[") or "://" not in server or server.endswith(":port")
