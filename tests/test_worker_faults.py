"""One cluster's unreadable answer makes its part unknown, named with its source; the rest of the answer stands
(multikueue/reads.py: _settle; cluster/live.py: an answer nested past what Python follows is the server's
BrokenAnswer, never "the input"). Staged on loopback API servers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.apiserver import Fault
from tests.test_multikueue_live import NS, Start, kubeconfig, manager_objects, worker_objects

DEEP = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
COPY = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/g"


def test_one_worker_nested_past_python_the_rest_stands(apiserver: Start, cli: Callable[..., Any],
                                                       tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    w1, _ = apiserver(worker_objects("2"))
    w2, _ = apiserver(worker_objects("16"), faults=[Fault(COPY, body=DEEP)])
    env = kubeconfig(tmp_path, manager, {"worker-1": w1, "worker-2": w2})
    r = cli(["why-pending", "g", "-n", NS, "-o", "json", "--worker-contexts-by-name"], env=env)
    assert r.exit_code == 1, r.stderr  # incomplete: one worker's part unknown
    doc = json.loads(r.stdout)
    assert doc["reasons"]  # the manager's answer stands
    workers = {w["cluster"]: w for w in doc["multikueue"]["workers"]}
    assert (workers["worker-1"]["read"], workers["worker-1"]["pending"]) == ("read", True)
    bad = workers["worker-2"]
    assert (bad["read"], bad["pending"], bad["context"]) == ("unreachable", None, "worker-2")
    assert "nested too deeply" in bad["reasons"][0]["params"]["error"]
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith("error: worker-2: ") and "nested too deeply" in errors[0]


def test_a_single_cluster_answer_nested_past_python_is_the_servers(apiserver: Start, cli: Callable[..., Any],
                                                                  tmp_path: Path) -> None:
    manager, env = apiserver(manager_objects(workers=["worker-1"]), faults=[Fault(COPY, body=DEEP)])
    r = cli(["why-pending", "workload/g", "-n", NS], env=env)
    assert r.exit_code == 1 and r.stdout == "", r.stderr
    assert r.stderr.count("\n") == 1 and "answer to GET" in r.stderr and "nested too deeply" in r.stderr
    assert "input" not in r.stderr
