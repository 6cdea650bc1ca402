"""A Cohort cycle (issue 46, finding 7): Kueue logs "cohort has a cycle" and keeps every ClusterQueue under it out of
scheduling (pkg/cache/hierarchy/cycle.go, pkg/cache/scheduler/snapshot.go@v0.19.2). lint finds it (PD413, files
and live), queues names it (never drops the tree), why-pending names it instead of Kueue's "is inactive" taken as
unread. Asserted on rule ids, paths, codes and params."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.kueue.model import cohort_cycle
from tests.builders import cluster_queue

GPU = "nvidia.com/gpu"
NS = "team-a"

CYCLES = [
    ({"a": "b", "b": "a"}, "a", ("a", "b", "a")),
    ({"a": "b", "b": "a", "c": "a"}, "c", ("c", "a", "b", "a")),  # into a loop: Kueue's HasCycle too
    ({"a": "a"}, "a", ("a", "a")),
    ({"a": "b", "b": None}, "a", None),
    ({"a": "root"}, "a", None),  # a parent no object names: a root as Kueue sees it
    ({}, None, None),
]


@pytest.mark.parametrize("parents, start, want", CYCLES, ids=[str(c[0]) for c in CYCLES])
def test_cohort_cycle(parents: dict[str, str | None], start: str | None, want: tuple[str, ...] | None) -> None:
    assert cohort_cycle(parents, start) == want


def co(name: str, parent: str | None) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": name},
            "spec": {"parentName": parent} if parent else {}}


def objects(looped: bool = True) -> list[dict[str, Any]]:
    q1 = cluster_queue("q1", {"f": "4"}, resource=GPU, cohort="a", active=True)
    q2 = cluster_queue("q2", {"f": "4"}, resource=GPU, cohort="b", active=True)
    for q in (q1, q2):
        q["spec"]["namespaceSelector"] = {}
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq1", "namespace": NS},
          "spec": {"clusterQueue": "q1"}}
    rf = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}}
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
          "metadata": {"name": "w1", "namespace": NS, "creationTimestamp": "2026-01-01T00:00:00Z"},
          "spec": {"queueName": "lq1", "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
              {"name": "c", "image": "i", "resources": {"requests": {GPU: "1"}}}]}}}]},
          "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                                     "message": "ClusterQueue q1 is inactive",
                                     "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
    return [co("a", "b"), co("b", "a" if looped else None), q1, q2, lq, rf, wl]


def _file(tmp_path: Path, objs: list[dict[str, Any]]) -> str:
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(path)


def _pd413(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((f["object"]["kind"], f["object"]["name"], f["path"]) for f in doc["findings"]
                  if f["id"] == "PD413")


WANT = [("ClusterQueue", "q1", "spec.cohortName"), ("ClusterQueue", "q2", "spec.cohortName"),
        ("Cohort", "a", "spec.parentName"), ("Cohort", "b", "spec.parentName")]


def test_lint_files_finds_the_cycle(cli: Callable, tmp_path: Path) -> None:
    r = cli(["lint", "-f", _file(tmp_path, objects()), "-o", "json"])
    assert r.exit_code == 1
    assert _pd413(json.loads(r.stdout)) == WANT
    clean = cli(["lint", "-f", _file(tmp_path, objects(looped=False)), "-o", "json"])
    assert _pd413(json.loads(clean.stdout)) == []


def test_lint_live_finds_the_cycle(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver(objects())
    r = cli(["lint", "-o", "json"], env=env)
    assert r.exit_code == 1, r.stderr
    assert _pd413(json.loads(r.stdout)) == WANT


def test_queues_names_the_cycle(cli: Callable, tmp_path: Path) -> None:
    r = cli(["queues", "-f", _file(tmp_path, objects()), "-o", "json"])
    doc = json.loads(r.stdout)
    assert {c["name"]: c.get("cycle") for c in doc["cohorts"]} == {"a": True, "b": True}
    assert {q["name"]: q["flavors"][0]["lent"] for q in doc["clusterQueues"]} == {"q1": None, "q2": None}
    assert doc["borrowing"] == []
    text = cli(["queues", "-f", _file(tmp_path, objects())]).stdout
    assert "cohort a:" in text and "cohort b:" in text  # never dropped


def test_why_pending_names_the_cycle(cli: Callable, tmp_path: Path) -> None:
    r = cli(["why-pending", "workload/w1", "-n", NS, "-f", _file(tmp_path, objects()), "-o", "json"])
    doc = json.loads(r.stdout)
    first = doc["reasons"][0]
    assert (first["code"], first["params"].get("cycle")) == ("ClusterQueueInactive", ["a", "b", "a"])
    assert first["kueueMessage"] == "ClusterQueue q1 is inactive"
    assert all(b["cohortFree"] is None and b["lent"] is None for b in doc["quota"])
