"""Every error the foundation promises, through the real entry point: one `error:` line, the right exit code,
no traceback, never the token."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.apiserver import TOKEN, FakeApiServer, Forbid

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}


def _one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in stderr and TOKEN not in stderr
    return lines[0]


@pytest.mark.parametrize("command", [["lint"], ["why-pending", "qwen-pd", "-n", "team-a"]])
def test_unreachable(cli: Callable, tmp_path: Path, command: list[str]) -> None:
    dead = FakeApiServer().start()
    kc = dead.write_kubeconfig(tmp_path / "kc")
    dead.stop()
    r = cli([*command, "--request-timeout", "2s"], env={"KUBECONFIG": str(kc)})
    assert r.exit_code == 1
    assert re.fullmatch(r"error: cannot reach the API server at https://127\.0\.0\.1:\d+ \(connection refused\): is "
                        r"the cluster up, and is context 'loopback' the right one\?", _one_error_line(r.stderr))


@pytest.mark.parametrize("command", [["lint"], ["why-pending", "qwen-pd", "-n", "team-a"]])
def test_timeout(cli: Callable, tmp_path: Path, command: list[str]) -> None:
    slow = FakeApiServer(delay=2).start()
    try:
        kc = slow.write_kubeconfig(tmp_path / "kc")
        r = cli([*command, "--request-timeout", "300ms"], env={"KUBECONFIG": str(kc)})
    finally:
        slow.stop()
    assert r.exit_code == 1
    assert _one_error_line(r.stderr) == (f"error: the API server at {slow.url} did not answer within 0.3s "
                                         "(--request-timeout): check the network or raise the timeout")


def test_unknown_context(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CQ)
    r = cli(["lint", "--context", "prod"], env=env)
    assert r.exit_code == 1
    assert _one_error_line(r.stderr) == 'error: context "prod" not found in the kubeconfig (available: loopback)'
    assert server.requests == []


def test_unauthorized(cli: Callable, apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver(CQ)
    kc = server.write_kubeconfig(tmp_path / "stale", token="stale-token")
    r = cli(["why-pending", "qwen-pd", "-n", "team-a"], env={"KUBECONFIG": str(kc)})
    assert r.exit_code == 1
    assert _one_error_line(r.stderr) == (f"error: the API server at {server.url} rejected the credentials of "
                                         "context 'loopback' (401 Unauthorized): log in again or refresh the "
                                         "kubeconfig user")  # and never the stale token


def test_forbidden_names_verb_resource_namespace(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver(CQ, forbid=[Forbid("list", "clusterqueues")])
    r = cli(["lint"], env=env)
    assert r.exit_code == 1
    assert _one_error_line(r.stderr).startswith(
        'error: forbidden: RBAC does not let user "system:serviceaccount:pd-tests:reader" list '
        "clusterqueues.kueue.x-k8s.io at cluster scope")


def test_kueue_not_installed(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver(groups={"": ["v1"], "worker.gpustack.ai": ["v1alpha1"]})
    r = cli(["lint"], env=env)
    assert r.exit_code == 1
    assert _one_error_line(r.stderr) == ("error: Kueue is not installed in this cluster (the API group kueue.x-k8s.io "
                                         "is not served): install Kueue, or check the context")


def test_modeldeployment_crd_not_installed(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver(groups={"": ["v1"], "kueue.x-k8s.io": ["v1beta2"]})
    r = cli(["why-pending", "md/qwen-pd", "-n", "team-a"], env=env)
    assert r.exit_code == 1
    assert _one_error_line(r.stderr) == ("error: the ModelDeployment CRD is not installed in this cluster "
                                         "(modeldeployments.worker.gpustack.ai is not served): install the GPUStack "
                                         "operator, or check the context")


@pytest.mark.parametrize("command", [["lint", "-f"], ["why-pending", "qwen-pd", "--from-file"]])
def test_malformed_yaml_names_file_and_line(cli: Callable, tmp_path: Path, command: list[str]) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("apiVersion: v1\nkind: List\nitems:\n- {name: [x\n")
    r = cli([*command, str(f)])
    assert r.exit_code == 2
    assert _one_error_line(r.stderr).startswith(f"error: {f}:5: malformed YAML")


@pytest.mark.parametrize("command", [["lint", "-f"], ["why-pending", "qwen-pd", "--from-file"]])
def test_document_that_is_not_an_object(cli: Callable, tmp_path: Path, command: list[str]) -> None:
    f = tmp_path / "odd.yaml"
    f.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nname: not-an-object\n")
    r = cli([*command, str(f)])
    assert r.exit_code == 2
    assert _one_error_line(r.stderr) == f"error: {f}:5: not a Kubernetes object (no kind)"


def test_missing_kubeconfig(cli: Callable, tmp_path: Path) -> None:
    r = cli(["lint"], env={"KUBECONFIG": str(tmp_path / "absent")})
    assert r.exit_code == 1
    assert _one_error_line(r.stderr) == ("error: no kubeconfig found: set --kubeconfig or KUBECONFIG, or work offline "
                                         "with --from-file/-f")
