"""Issue 49, item 3: MultiKueue in three dependent rounds. A worker's reads start as soon as the manager's answers
name it (the manager's second round), not after the manager's whole gather: the manager's first round carries what
selects the workers (its AdmissionChecks and MultiKueueConfigs, pending/plan.multikueue_reads) when the user asked
for workers to be read; the worker's own first round (pending/plan.worker_round) goes out beside the manager's
second; the worker's second round is the third. Counted from the request trace (KUBECTL_PD_TRACE, cluster/pool.py)
by bench/trace_rounds.py, through a real process: every server answers after DELAY seconds, so a round on the
wire is a round of the plan."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.apiserver import FakeApiServer
from tests.test_multikueue_live import _pods, kubeconfig, manager_objects, worker_objects

ROOT = Path(__file__).resolve().parent.parent
DELAY = 0.5  # well above what the run's own work between two rounds costs on a loaded machine


def _trace_rounds() -> Any:
    spec = importlib.util.spec_from_file_location("trace_rounds", ROOT / "bench" / "trace_rounds.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["trace_rounds"] = mod  # its dataclass looks its module up
    spec.loader.exec_module(mod)
    return mod


# a bare NAME goes the same way (its MultiKueue reads go before the last bounded sets: pending/plan.first_round),
# but waits for its ModelDeployment form to be refused first: one slow 404 there costs the whole chain a round on
# the wire, so it is not counted here
@pytest.mark.parametrize("target", ["podgroup/g", "workload/g"])
def test_a_manager_and_its_workers_in_three_rounds(tmp_path: Path, target: str) -> None:
    servers = [FakeApiServer(objects=manager_objects(workers=["worker-1", "worker-2"],
                                                     nominated=["worker-1", "worker-2"]), delay=DELAY).start(),
               # a worker holds the group's Pods (MultiKueue's pod adapter copies them there)
               FakeApiServer(objects=worker_objects("2") + _pods(), delay=DELAY).start(),
               FakeApiServer(objects=worker_objects("16") + _pods(), delay=DELAY).start()]
    try:
        env = kubeconfig(tmp_path, servers[0], {"worker-1": servers[1], "worker-2": servers[2]})
        trace = tmp_path / "trace"
        r = subprocess.run([sys.executable, "-m", "kubectl_pd", "why-pending", target, "-n", "team-a", "-o", "json",
                            "--worker-contexts-by-name"], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           env={**env, "PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),
                                "KUBECTL_PD_TRACE": str(trace)})
    finally:
        for s in servers:
            s.stop()
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    workers = {w["cluster"]: w for w in doc["multikueue"]["workers"]}
    assert {c: (w["read"], w["pending"]) for c, w in workers.items()} == {"worker-1": ("read", True),
                                                                           "worker-2": ("read", True)}
    assert "QuotaExceedsCapacity" in [x["code"] for x in workers["worker-1"]["reasons"]]
    traced = _trace_rounds().rounds(trace)
    assert all(s.count() >= 1 for s in servers[1:])  # each worker was read
    assert traced.rounds <= 3, (traced, trace.read_text())
