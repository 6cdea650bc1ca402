"""Issue 49: the dependent rounds of one target's diagnosis, counted from the request trace (KUBECTL_PD_TRACE,
cluster/pool.py) of a real run through kubectl against the loopback API server, whose every answer waits DELAY
seconds, so a read that waited on another's answer starts a round later (bench/trace_rounds.py's rule: a request
is one round deeper than the deepest request that had answered before it started).

A pod group waiting in its ClusterQueue behind three others: the first round reads the target and the bounded sets;
the second what they name, the visibility listing among them and, beside it, one page of the namespace's
Workloads (pending/plan.ahead_within: the queue counts few pending), from which the Workloads ahead are answered.
Two rounds, no GET of a Workload ahead; without the queue's count the Workloads ahead are read by name after the
listing (a third round), and the diagnosis is the same."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import run_kubectl
from tests.realcluster import objs

NS, LQ, CQ, RF = "far", "main", "far-cq", "far-rf"
DELAY = 0.3  # each answer's wait: far above a loaded machine's lag between the reads of one round
GROUPS = 4  # pg-0 .. pg-3, queued in that order; the target is the last


def _layout(pending: int | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    cq = objs.cluster_queue(CQ, [(RF, [objs.quota(objs.GPU, "2")])])
    if pending is not None:
        cq["status"] = {"pendingWorkloads": pending, "admittedWorkloads": 0, "reservingWorkloads": 0}
    out: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
                                 objs.flavor(RF), cq, objs.local_queue(NS, LQ, CQ)]
    items = []
    for i in range(GROUPS):
        g = f"pg-{i}"
        out += [objs.group_pod(NS, f"{g}-{role}", g, 2, LQ, role, {objs.GPU: "1"}) for role in ("prefill", "decode")]
        wl = objs.workload(NS, g, LQ, [("prefill", 1, {objs.GPU: "1"}), ("decode", 1, {objs.GPU: "1"})])
        wl["metadata"]["annotations"] = {"kueue.x-k8s.io/is-group-workload": "true"}
        wl["metadata"]["creationTimestamp"] = f"2026-12-03T09:00:0{i}Z"
        out.append(wl)
        items.append({"metadata": {"name": g, "namespace": NS, "creationTimestamp": f"2026-12-03T09:00:0{i}Z"},
                      "priority": 0, "localQueueName": LQ, "positionInClusterQueue": i, "positionInLocalQueue": i})
    vis = {"apiVersion": "visibility.kueue.x-k8s.io/v1beta2", "kind": "PendingWorkloadsSummary",
           "metadata": {"name": CQ}, "items": items}
    return out, {f"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/{CQ}/pendingworkloads": vis}


def _rounds(trace: Path) -> list[tuple[int, str]]:
    """(round, "METHOD path") of each traced request, by start."""
    rows = sorted((float(t0), float(t1), f"{method} {path}") for t0, t1, _fresh, _status, method, path in
                  (line.split(" ", 5) for line in trace.read_text().splitlines()))
    depth: list[int] = []
    for i, (t0, _t1, _what) in enumerate(rows):
        depth.append(1 + max((depth[j] for j in range(i) if rows[j][1] <= t0), default=0))
    return [(d, what) for d, (_t0, _t1, what) in zip(depth, rows, strict=True)]


def _run(apiserver: Callable, tmp_path: Path, pending: int | None) -> tuple[int, dict[str, Any], list[tuple[int, str]]]:
    objects, raw = _layout(pending)
    _server, env = apiserver(*objects, raw=raw, delay=DELAY)
    trace = tmp_path / f"trace-{pending}"
    r = run_kubectl(["pd", "why-pending", f"podgroup/pg-{GROUPS - 1}", "-n", NS, "-o", "json"],
                    env={**env, "KUBECTL_PD_TRACE": str(trace)})
    assert r.stderr == "" or r.returncode == 0, r.stderr
    return r.returncode, json.loads(r.stdout), _rounds(trace)


def _ahead_gets(rounds: list[tuple[int, str]]) -> list[str]:
    return [w for _d, w in rounds if w.startswith(f"GET /apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads/pg-")
            and not w.endswith(f"/pg-{GROUPS - 1}")]


def test_one_target_waiting_behind_others_is_read_in_two_dependent_rounds(apiserver: Callable,
                                                                          tmp_path: Path) -> None:
    _code, doc, rounds = _run(apiserver, tmp_path, GROUPS)
    assert max(d for d, _w in rounds) == 2, rounds
    assert not _ahead_gets(rounds), rounds  # the Workloads ahead came from the page read beside the listing
    page = [d for d, w in rounds if w.startswith(f"GET /apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads?")]
    assert page == [2], rounds
    # ...and the page answered them: three Workloads ahead, each with its requests
    ahead = _ahead_of(doc)
    assert [(a["name"], a["position"]) for a in ahead] == [(f"pg-{i}", i + 1) for i in range(GROUPS - 1)]
    assert all(a["requests"] for a in ahead), ahead


def test_without_the_queues_count_the_workloads_ahead_are_a_third_round_and_the_diagnosis_is_the_same(
        apiserver: Callable, tmp_path: Path) -> None:
    paged = _run(apiserver, tmp_path, GROUPS)
    code, doc, rounds = _run(apiserver, tmp_path, None)
    assert max(d for d, _w in rounds) == 3, rounds
    assert sorted(_ahead_gets(rounds)) == [f"GET /apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads/pg-{i}"
                                           for i in range(GROUPS - 1)]
    assert {d for d, w in rounds if w in _ahead_gets(rounds)} == {3}
    assert (code, _ahead_of(doc)) == (paged[0], _ahead_of(paged[1]))


def _ahead_of(doc: dict[str, Any]) -> Any:
    return doc["queue"]["ahead"]


def _import_order(apiserver: Callable, target: str) -> list[str]:
    """The modules `why-pending TARGET -n NS -o json` imports, in the order their imports end (`python -X
    importtime`), against the loopback server holding the GROUPS layout."""
    import os
    import subprocess
    import sys

    objects, raw = _layout(GROUPS)
    _server, env = apiserver(*objects, raw=raw)
    args = ["why-pending", target, "-n", NS, "-o", "json"]
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "kubectl_pd", *args], capture_output=True, text=True,
                       env={**os.environ, **env}, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return [line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")]


def test_nothing_a_target_needs_only_later_is_imported_before_its_first_round_goes_out(apiserver: Callable) -> None:
    """Start-up (issue 49, item 3): what a run imports before the head start (pending/lookahead.py) sends the first
    round is waited for at every distance; the Kueue model, MultiKueue's words and the diagnosis load while the
    reads are in flight. Read from `python -X importtime`'s order (a module is listed when its import ends)."""
    order = _import_order(apiserver, f"podgroup/pg-{GROUPS - 1}")
    before = order[:order.index("kubectl_pd.pending.lookahead")]
    late = ("kubectl_pd.kueue.model", "kubectl_pd.multikueue.words", "kubectl_pd.pending.gather",
            "kubectl_pd.pending.diagnose")
    assert not [m for m in late if m in before], before
    assert all(m in order for m in late[::2])  # loaded all the same, after


def test_a_one_target_json_run_loads_no_template_engine_nor_click_suggestions_and_readies_its_transport_first(
        apiserver: Callable) -> None:
    """Start-up of one target's -o json (a bare NAME, with short options): the jsonpath engine (output/printers.py
    loads it only for a template, a -file form or --sort-by) and difflib (click's suggestions for an unknown
    option, which click computed on the way to every short option: commands/options.quick_short_options) never
    load; the transport's TLS modules load before the diagnosis' (cluster/live.LiveSource.ready: round 1's
    requests then go out without sharing the interpreter with those imports)."""
    order = _import_order(apiserver, f"pg-{GROUPS - 1}")
    assert not [m for m in order if m in ("kubectl_pd.output.jsonpath", "difflib")], order
    assert order.index("ssl") < order.index("kubectl_pd.pending.render"), order
