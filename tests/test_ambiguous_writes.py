"""Ambiguous writes told as such (issue 30, item 2). The loopback server stores the POSTed object and then
loses the answer (a hang past --request-timeout, 500, 504, a closed connection, a 201 with an HTML body);
create reads it back once and tells ours (success, with its uid), absent (not created) or unknown (with the
kubectl commands that settle it). A 503 with Retry-After whose POST was applied is recognised on the retry
(our own mark, annotation kubectl-pd.io/create-id), and --target pods names the Pods a failure leaves.
Real subprocess runs against tests/apiserver.py."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.apiserver import FakeApiServer, Fault, load_objects
from tests.conftest import FIXTURES

MD = "/apis/worker.gpustack.ai/v1alpha1/namespaces/team-a/modeldeployments"
PODS = "/api/v1/namespaces/team-a/pods"
H20 = "gpustack--nvidia-h20-linux-amd64"
CREATE = ["create", "qwen", "-n", "team-a", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5",
          "--prefill", "1", "--decode", "2", "--instance-type", H20, "--kv-cache-pool", "kv",
          "--request-timeout", "2s"]
PODS_CREATE = ["create", "qwen", "-n", "team-a", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5",
               "--target", "pods", "--instance-type", H20, "--request-timeout", "5s",
               "--role", "name=prefill,kind=prefill,replicas=2,image=i",
               "--role", "name=decode,kind=decode,replicas=2,image=i"]
HTML = b"<!doctype html><html><body>proxy</body></html>"


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Any]:
    started: list[FakeApiServer] = []

    def start(*faults: Fault, crd: bool = True) -> tuple[FakeApiServer, dict[str, str]]:
        objs = load_objects(FIXTURES / "create/cluster.yaml",
                            *([FIXTURES / "create/crd-pd-atomic.yaml"] if crd else []))
        s = FakeApiServer(objects=objs, faults=list(faults)).start()
        started.append(s)
        kc = s.write_kubeconfig(tmp_path / f"kc{len(started)}", namespace="team-a")
        return s, {**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1"}

    yield start
    for s in started:
        s.stop()


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kubectl_pd", *args], env=env, capture_output=True, text=True,
                          timeout=60)


def _stored(s: FakeApiServer) -> dict[str, Any] | None:
    return s.stored("ModelDeployment", "worker.gpustack.ai/v1alpha1", "qwen", "team-a")


LOST = {
    "hang": Fault(MD, method="POST", stored=True, hang=10),
    "500": Fault(MD, method="POST", stored=True, status=500, body={"kind": "Status", "code": 500}),
    "504": Fault(MD, method="POST", stored=True, status=504, body=b"gateway timeout", content_type="text/plain"),
    "closed": Fault(MD, method="POST", stored=True, status=201, body=b'{"kind": "ModelDeployment"}', close_after=3),
    "html-201": Fault(MD, method="POST", stored=True, status=201, body=HTML, content_type="text/html"),
}


@pytest.mark.parametrize("shape", sorted(LOST))
def test_a_lost_answer_to_an_applied_post_is_read_back_as_ours(cluster: Any, shape: str) -> None:
    s, env = cluster(LOST[shape])
    r = _run(CREATE, env)
    stored = _stored(s)
    assert stored is not None
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["modeldeployment.worker.gpustack.ai/qwen", "created"]
    assert stored["metadata"]["uid"] in r.stderr and r.stderr.startswith("warning: ")
    assert [q.method for q in s.requests].count("POST") == 1  # read back, never written twice


@pytest.mark.parametrize("status", [500, 502])
def test_a_lost_answer_to_a_post_that_was_not_applied_says_not_created(cluster: Any, status: int) -> None:
    s, env = cluster(Fault(MD, method="POST", status=status, body=b"upstream", content_type="text/plain"))
    r = _run(CREATE, env)
    assert r.returncode == 1 and r.stdout == "" and _stored(s) is None
    assert len(r.stderr.splitlines()) == 1 and "not created" in r.stderr
    assert [q.method for q in s.requests].count("POST") == 1


def test_an_unsettled_write_names_the_commands_that_settle_it(cluster: Any) -> None:
    s, env = cluster(Fault(MD, method="POST", stored=True, status=500, body=b"x", content_type="text/plain"),
                     Fault(MD + "/qwen", status=503, body=b"x", content_type="text/plain"))
    r = _run(CREATE, env)
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1
    for command in ("kubectl get modeldeployments.worker.gpustack.ai/qwen -n team-a",
                    "kubectl delete modeldeployments.worker.gpustack.ai/qwen -n team-a"):
        assert command in r.stderr


def test_a_post_retried_after_503_meets_its_own_object_and_succeeds(cluster: Any) -> None:
    s, env = cluster(Fault(MD, method="POST", stored=True, status=503, times=1, headers={"Retry-After": "1"},
                           body={"kind": "Status", "code": 503}))
    r = _run(CREATE, env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["modeldeployment.worker.gpustack.ai/qwen", "created"]
    assert [q.method for q in s.requests].count("POST") == 2 and _stored(s) is not None


def test_someone_elses_object_is_still_a_conflict(cluster: Any) -> None:
    s, env = cluster()
    s.put({"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "ModelDeployment",
           "metadata": {"name": "qwen", "namespace": "team-a"}, "spec": {}})
    r = _run(CREATE, env)
    assert r.returncode == 1 and "already exists" in r.stderr and len(r.stderr.splitlines()) == 1


def test_what_create_writes_carries_its_run_mark(cluster: Any) -> None:
    s, env = cluster()
    assert _run(CREATE, env).returncode == 0
    second, env2 = cluster()
    assert _run(CREATE, env2).returncode == 0
    marks = [(x.get("metadata", {}).get("annotations") or {}).get("kubectl-pd.io/create-id")
             for x in (_stored(s), _stored(second))]
    assert all(marks) and marks[0] != marks[1]
    dry = _run([*CREATE, "--dry-run=server", "-o", "json"], env)  # a dry run writes nothing: no mark
    assert dry.returncode == 1 or "create-id" not in dry.stdout


@pytest.mark.parametrize("how", ["500", "closed-unapplied", "403"])
def test_pods_target_names_the_created_pods_and_the_one_command_that_removes_them(cluster: Any, how: str) -> None:
    fault = {"500": Fault(PODS, method="POST", skip=2, status=500, body=b"x", content_type="text/plain"),
             "closed-unapplied": Fault(PODS, method="POST", skip=2, status=201, body=b"{}", close_after=0),
             "403": Fault(PODS, method="POST", skip=2, status=403, body={"kind": "Status", "code": 403,
                                                                        "message": "nope"})}[how]
    s, env = cluster(fault, crd=False)
    r = _run(PODS_CREATE, env)
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1, r.stderr
    created = [q.body["metadata"]["name"] for q in s.requests if q.method == "POST" and q.body]
    assert len(created) == 2 and all(name in r.stderr for name in created)
    group_label = "kueue.x-k8s.io/pod-group-name="
    assert "kubectl delete pods -l " + group_label in r.stderr
    assert [q.method for q in s.requests].count("POST") == 3  # the fourth is never sent
