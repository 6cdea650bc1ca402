"""A MultiKueue snapshot (the manager's objects and each worker's copies, marked with their cluster) read by the
commands that judge one cluster: queues, tree and capacity see the manager's objects only, never a worker's
ClusterQueue as one of the manager's (why-pending replays the workers itself)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

FIX = Path(__file__).parent / "fixtures" / "pending" / "multikueue-no-worker-fits.yaml"
MANAGER_CQ = "gpustack--nvidia-h20-linux-amd64"


def test_queues_lists_the_managers_cluster_queues_only(cli: Callable) -> None:
    r = cli(["queues", "-f", str(FIX), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    assert [q["name"] for q in json.loads(r.stdout)["clusterQueues"]] == [MANAGER_CQ]


def test_why_pending_still_reads_the_workers_of_the_same_file(cli: Callable) -> None:
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(FIX), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["reasons"][0]["code"] == "MultiKueueNoWorkerFits"
    assert {w["cluster"] for w in doc["multikueue"]["workers"]} == {"worker-1", "worker-2"}
