"""Issue 24: a server that sends bytes past a correct Content-Length (here a second, complete answer: an empty
PodList) changes no command's verdict, nor does a gzip body a middlebox added: the unsolicited bytes are never read
as the answer to the next request (the connection is closed; kubectl does the same). No credential is printed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.apiserver import TOKEN, surplus_answer, unrelated_workloads

EMPTY = surplus_answer({"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": []})
H20 = "gpustack--nvidia-h20-linux-amd64"

COMMANDS: list[tuple[str, tuple[Any, ...], dict[str, Any], list[str]]] = [
    ("why-pending NAME", ("pending/quota-exhausted.yaml",), {},
     ["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"]),
    ("why-pending text", ("pending/quota-exhausted.yaml",), {}, ["why-pending", "qwen-pd", "-n", "team-a"]),
    ("why-pending -A", ("pending/per-replica-joint.yaml", unrelated_workloads(3)), {},
     ["why-pending", "-A", "-o", "json"]),
    ("why-pending, no target", ("pending/needs-preemption.yaml",), {}, ["why-pending", "-n", "team-a", "-o", "json"]),
    ("lint", ("lint/live-cluster.yaml",), {}, ["lint", "-o", "json"]),
    ("create --dry-run=server", ("create/cluster.yaml", "create/crd-pd-atomic.yaml"), {"namespace": "team-a"},
     ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--prefill", "1", "--decode", "2",
      "--instance-type", H20, "--dry-run=server", "-o", "json"]),
]
MISBEHAVIOURS = {"surplus": {"surplus": EMPTY}, "gzip": {"gzip": True}, "both": {"surplus": EMPTY, "gzip": True}}


@pytest.mark.parametrize("misbehaviour", sorted(MISBEHAVIOURS))
@pytest.mark.parametrize(("sources", "kwargs", "args"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_the_verdict_is_unchanged(cli: Callable, apiserver: Callable, sources: tuple[Any, ...], kwargs: dict[str, Any],
                                  args: list[str], misbehaviour: str) -> None:
    _, env = apiserver(*sources, **kwargs)
    server, bad_env = apiserver(*sources, **kwargs, **MISBEHAVIOURS[misbehaviour])
    good, bad = cli(args, env=env), cli(args, env=bad_env)
    assert good.exit_code in (0, 1) and "Traceback" not in good.stderr, good.stderr
    assert (bad.exit_code, bad.stdout) == (good.exit_code, good.stdout)
    lines = bad.stderr.splitlines(keepends=True)
    said = [ln for ln in lines if ln.startswith("warning: ") and "Content-Encoding gzip" in ln]
    # gzip never asked for is read as kubectl reads it, and said once (issue 30); the rest of stderr is unchanged
    assert len(said) == (1 if MISBEHAVIOURS[misbehaviour].get("gzip") else 0)
    assert "".join(ln for ln in lines if ln not in said) == good.stderr
    assert TOKEN not in bad.stdout + bad.stderr
    assert server.requests  # the misbehaving server was asked
