"""Issue 46, finding 6, through `why-pending` on loopback API servers (a manager and two workers): MultiKueue's
verdict, its `next:` and each worker row come from one record, the workers as read. A manager whose workers can
never hold the group is not told to wait for the check or to free devices on its flavor's nodes; a worker row
shows a shortfall only where that worker's own figures stand by it (never `short 4` beside a role that fits)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema

from tests.conftest import ROOT
from tests.test_multikueue_live import Start, kubeconfig, manager_objects, worker_objects

NS = "team-a"


def _worker(quota: str, message_quota: str | None = None) -> list[dict[str, Any]]:
    """A worker whose ClusterQueue gives QUOTA; Kueue's message on the copy written when it gave MESSAGE_QUOTA."""
    objs = worker_objects(quota)
    if message_quota is None:
        return objs
    return json.loads(json.dumps(objs).replace(f"maximum capacity ({quota})", f"maximum capacity ({message_quota})"))


def _run(apiserver: Start, cli: Callable[..., Any], tmp_path: Path, w1: list[dict[str, Any]],
         w2: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], nominated=["worker-1", "worker-2"]))
    s1, _ = apiserver(w1)
    s2, _ = apiserver(w2)
    env = kubeconfig(tmp_path, manager, {"worker-1": s1, "worker-2": s2})
    args = ["why-pending", "g", "-n", NS, "--worker-contexts-by-name"]
    r = cli([*args, "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    jsonschema.validate(json.loads(r.stdout), json.loads((ROOT / "docs" / "schema" / "why-pending.json").read_text()))
    text = cli(args, env=env)
    assert text.exit_code == 0, text.stderr
    header = next(ln for ln in text.stdout.splitlines() if ln.strip().startswith("WORKER "))
    cols = [m.start() for m in re.finditer(r"\S+", header)]
    rows = {}
    for ln in text.stdout.splitlines():
        if ln.startswith("  worker-"):  # the worker table: SHORT is its 7th column
            rows[ln.split()[0]] = [ln[a:b].strip() for a, b in zip(cols, [*cols[1:], len(ln)], strict=True)]
    return json.loads(r.stdout), rows


def _codes(items: list[dict[str, Any]]) -> list[str]:
    return [x["code"] for x in items]


def test_no_worker_can_hold_it_the_verdict_is_multikueues(apiserver: Start, cli: Callable[..., Any],
                                                          tmp_path: Path) -> None:
    doc, rows = _run(apiserver, cli, tmp_path, _worker("2"), _worker("4"))
    mk = doc["multikueue"]
    found = {f["code"]: f["params"] for f in mk["reasons"]}
    assert found["MultiKueueNoWorkerFits"] == {"clusters": ["worker-1", "worker-2"]}
    # the manager's next: no generic wait for its MultiKueue check (nor its flavor's nodes): MultiKueue's steps say
    assert doc["next"] == []
    assert {c: r[6] for c, r in rows.items()} == {"worker-1": "6 nvidia.com/gpu", "worker-2": "4 nvidia.com/gpu"}


def test_no_worker_can_hold_it_the_managers_headline_is_multikueues(apiserver: Start, cli: Callable[..., Any],
                                                                   tmp_path: Path) -> None:
    """The manager's own headline and reasons come from the same record as the worker table: not a wait on its
    MultiKueue check (AdmissionCheckPending) beside MultiKueue's 'no worker can hold it'."""
    doc, _ = _run(apiserver, cli, tmp_path, _worker("2"), _worker("4"))
    head = doc["reasons"][0]
    assert head["code"] == "MultiKueueNoWorkerFits"
    assert head["params"] == {"check": "multikueue", "clusters": ["worker-1", "worker-2"]}
    assert head["params"]["clusters"] == doc["multikueue"]["reasons"][-1]["params"]["clusters"]
    assert "AdmissionCheckPending" not in _codes(doc["reasons"])
    assert doc["next"] == []  # the steps are the MultiKueue block's, from the same workers


def test_the_multikueue_blocks_steps_are_data(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    """`multikueue.next[]` (contract 1.8): the block's `next:` lines as codes and params, from the same workers as
    the table: each worker's quota step (the reason it answers), then releasing the manager's quota."""
    doc, _ = _run(apiserver, cli, tmp_path, _worker("2"), _worker("4"))
    assert [(s["code"], s["params"]) for s in doc["multikueue"]["next"]] == [
        ("worker", {"cluster": "worker-1", "reason": "QuotaExceedsCapacity"}),
        ("worker", {"cluster": "worker-2", "reason": "QuotaExceedsCapacity"}),
        ("release", {"namespace": NS, "workload": "g"})]
    doc, _ = _run(apiserver, cli, tmp_path, _worker("16", "4"), _worker("2"))
    steps = {s["params"]["cluster"]: s for s in doc["multikueue"]["next"]}
    # worker-1's own diagnosis: its queue read fits the copy (the state read outranks Kueue's older words, issue 46
    # finding 6), so its step is its own wait, never a quota step
    assert steps["worker-1"]["code"] == "worker" and steps["worker-1"]["params"]["reason"] == "WaitingInQueue"
    assert steps["worker-2"]["code"] == "worker"
    assert "release" not in [s["code"] for s in doc["multikueue"]["next"]]


def test_a_worker_that_may_hold_it_leaves_the_manager_waiting(apiserver: Start, cli: Callable[..., Any],
                                                              tmp_path: Path) -> None:
    """One worker's own figures fit: MultiKueue decides nothing of the manager's wait, which stays the check's."""
    doc, _ = _run(apiserver, cli, tmp_path, _worker("16", "4"), _worker("2"))
    assert doc["reasons"][0]["code"] == "AdmissionCheckPending"
    assert "MultiKueueNoWorkerFits" not in _codes(doc["reasons"])


def test_a_worker_whose_own_figures_fit_is_no_never(apiserver: Start, cli: Callable[..., Any],
                                                    tmp_path: Path) -> None:
    """worker-1's queue gives 16 now; Kueue's message there was written when it gave 4: its figures fit, so it is
    no evidence that no worker can hold the group, and its row shows no shortfall."""
    doc, rows = _run(apiserver, cli, tmp_path, _worker("16", "4"), _worker("2"))
    mk = doc["multikueue"]
    assert "MultiKueueNoWorkerFits" not in _codes(mk["reasons"])
    workers = {w["cluster"]: w for w in mk["workers"]}
    w1 = {r["code"]: r["params"] for r in workers["worker-1"]["reasons"]}  # the queue read decides; Kueue's words
    assert "QuotaExceedsCapacity" not in w1 and w1["WaitingInQueue"]["kueueDisagrees"]["read"] != \
        w1["WaitingInQueue"]["kueueDisagrees"]["kueue"]  # ... are said beside it as Kueue's
    assert {c: r[6] for c, r in rows.items()} == {"worker-1": "-", "worker-2": "6 nvidia.com/gpu"}
    assert doc["next"] == []
