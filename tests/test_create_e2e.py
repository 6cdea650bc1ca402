"""End to end: the real kubectl finds the plugin and scaffolds offline; the output lints clean."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_kubectl

H20 = "gpustack--nvidia-h20-linux-amd64"
OFFLINE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv",
           "--instance-type", H20, "--prefill", "1", "--decode", "2", "--dry-run=client", "-o", "yaml"]


def test_real_kubectl_scaffolds_offline(tmp_path: Path) -> None:
    r = run_kubectl(["pd", *OFFLINE, "-n", "team-a"], env={"KUBECONFIG": str(tmp_path / "missing")})
    assert r.returncode == 0, r.stderr
    md = yaml.safe_load(r.stdout)
    assert (md["kind"], md["metadata"]["namespace"]) == ("ModelDeployment", "team-a")
    assert [(x["name"], x["kind"], x["replicas"]) for x in md["spec"]["roles"]] == [("prefill", "prefill", 1),
                                                                                    ("decode", "decode", 2)]
    bad = run_kubectl(["pd", *OFFLINE, "--role", "name=Bad"], env={"KUBECONFIG": str(tmp_path / "missing")})
    assert bad.returncode == 1 and bad.stderr.startswith("error: --role name=Bad: spec.roles[0].name 'Bad'")


COMMON = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--instance-type", H20,
          "--dry-run=client", "-o", "yaml"]


@pytest.mark.parametrize("extra", [
    ["--kv-cache-pool", "kv", "--prefill", "1", "--decode", "2"],
    ["--api-profile", "per-replica", "--role", "name=s,size=2,accelerator=2", "--router", "llm-d-router"],
    ["--kv-cache-pool", "kv", "--decode", "2",
     "--role", "name=prefill,kind=prefill,accelerator-key=nvidia-h20,image=reg/vllm:0.8.5,arg=--max-model-len=8192"],
], ids=["pd-atomic", "per-replica", "accelerator-key"])
def test_scaffold_round_trips_through_lint(cli: Callable, tmp_path: Path, extra: list[str]) -> None:
    """`kubectl pd lint -f -` on `create --dry-run=client -o yaml` must be clean (exit 0)."""
    env = {"KUBECONFIG": str(tmp_path / "missing"), "NO_COLOR": "1"}
    made = cli([*COMMON, *extra], env=env)
    assert made.exit_code == 0, made.stderr
    assert yaml.safe_load(made.stdout)["kind"] == "ModelDeployment"
    linted = cli(["lint", "-f", "-"], env=env, input=made.stdout)
    assert linted.exit_code == 0, linted.stdout + linted.stderr
