"""Concurrent reads (issue 38): a single diagnosis's independent reads go out together, in waves, bounded per
Source; a failed read is still reported once; the planner takes asks for more than one Source.

A real Source over a snapshot that says it is live and takes SLOW seconds to answer each read records when
each read started and ended: reads that do not depend on each other must overlap in time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster import prefetch
from kubectl_pd.cluster.prefetch import Ask, in_waves, perform
from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.cluster.source import Obj, Origin, SourceDefaults
from kubectl_pd.errors import ForbiddenError, PdError
from kubectl_pd.pending.gather import gather
from kubectl_pd.pending.preempt import context
from kubectl_pd.pending.target import Target
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
SLOW = 0.3  # long enough that a loaded machine starts every read of a wave before the first ends


class Slow(SourceDefaults):
    """A live-looking Source over a snapshot: each read takes SLOW seconds and is logged (what, start, end).
    The visibility API and Kueue's ConfigMap are not served (404), as on a cluster without them."""

    is_live = True

    def __init__(self, objs: list[dict[str, Any]], refuse: str | None = None) -> None:
        self.inner = SnapshotSource.from_objects(objs)
        self.log: list[tuple[str, float, float]] = []
        self.lock = threading.Lock()
        self.refuse = refuse
        self.busy = 0
        self.most = 0

    def _timed(self, what: str, read: Callable[[], Any]) -> Any:
        with self.lock:
            self.busy += 1
            self.most = max(self.most, self.busy)
        start = time.monotonic()
        try:
            time.sleep(SLOW)
            if self.refuse is not None and what.startswith(self.refuse):
                raise ForbiddenError(f"{what}: forbidden")
            return read()
        finally:
            with self.lock:
                self.busy -= 1
                self.log.append((what, start, time.monotonic()))

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        return self._timed(f"get {kind}", lambda: self.inner.get(kind, name, namespace))  # type: ignore[no-any-return]

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *,
             reduce: Callable[[Obj], Obj | None] | None = None) -> list[Obj]:
        return self._timed(f"list {kind}", lambda: self.inner.list(  # type: ignore[no-any-return]
            kind, namespace, label_selector, field_selector, reduce=reduce))

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        return self._timed(f"raw {resource}", lambda: None)  # type: ignore[no-any-return]

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)

    def span(self, what: str) -> tuple[float, float]:
        found = [(s, e) for w, s, e in self.log if w == what]
        assert found, (what, [w for w, _s, _e in self.log])
        return found[0]


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _waves(log: list[tuple[str, float, float]]) -> int:
    """Rounds of reads: a read that starts after every read of the round before has ended opens a new one."""
    rounds, end = 0, float("-inf")
    for _w, s, e in sorted(log, key=lambda x: x[1]):
        if s >= end:
            rounds, end = rounds + 1, e
        else:
            end = max(end, e)
    return rounds


def test_a_pod_group_is_read_in_four_waves() -> None:
    src = Slow(load_objects(FIX / "needs-preemption.yaml"))
    ctx = context(src, None, False)
    facts = gather(src, Target("PodGroup", "qwen-pd", "team-a"), strict=False, preempt=ctx)
    assert facts.workloads.get("qwen-pd") is not None
    assert _overlap(src.span("list Pod"), src.span("get Workload"))  # the group's Pods and its Workload
    # the queue's flavor, LimitRanges, events, the visibility API, the admitted Workloads and Kueue's
    # ConfigMap: one wave
    wave = [src.span(w) for w in ("get ResourceFlavor", "list LimitRange", "list Event", "list Workload",
                                  "raw clusterqueues/pendingworkloads", "raw configmaps")]
    assert all(_overlap(a, b) for a in wave for b in wave)
    # the group, its LocalQueue, its ClusterQueue, what explains it (before: the Workload after the Pods, the
    # admitted Workloads after the rest); the queue chain follows the Workload's answer, not the Pods list's
    # (pending/lookahead.py: tests/test_head_start.py), so the Pods list and the deployment its Pods name
    # (read once the Pods have answered, beside the LocalQueue) are left out of the count
    chain = [x for x in src.log if x[0] not in ("list Pod", "get ModelDeployment")]
    assert src.span("get LocalQueue")[0] >= src.span("get Workload")[1]
    assert src.span("get ClusterQueue")[0] >= src.span("get LocalQueue")[1]
    assert all(s >= src.span("get ClusterQueue")[1] for s, _e in wave)
    assert _waves(chain) == 4, sorted((round(s - src.log[0][1], 2), w) for w, s, _e in src.log)
    assert src.most <= prefetch.PARALLEL
    assert ctx.known.workloads  # the preemption record was filled before any diagnosis


def test_a_refused_read_in_a_wave_is_reported_once_and_the_rest_stand() -> None:
    src = Slow(load_objects(FIX / "needs-preemption.yaml"), refuse="list LimitRange")
    facts = gather(src, Target("PodGroup", "qwen-pd", "team-a"), strict=False, preempt=context(src, None, False))
    unread = [n for n in facts.notes if n.id == "note.unread"]
    assert [n.args["what"].kind for n in unread] == ["LimitRange"]
    assert facts.flavors and facts.cluster_queues  # the reads beside it stand


def test_perform_bounds_each_source_and_keeps_the_order() -> None:
    class Live:
        is_live = True

    a, b = Live(), Live()
    busy: dict[int, int] = {id(a): 0, id(b): 0}
    most: dict[int, int] = {id(a): 0, id(b): 0}
    lock = threading.Lock()

    def read(src: object, i: int) -> Callable[[], int]:
        def call() -> int:
            with lock:
                busy[id(src)] += 1
                most[id(src)] = max(most[id(src)], busy[id(src)])
            time.sleep(0.02)
            with lock:
                busy[id(src)] -= 1
            if i == 3:
                raise PdError("refused")
            return i
        return call

    asks = [Ask(a if i % 2 else b, read(a if i % 2 else b, i)) for i in range(20)]
    results = perform(asks)
    assert [v if ok else "error" for ok, v in results] == [i if i != 3 else "error" for i in range(20)]
    assert isinstance(results[3][1], PdError)
    assert most[id(a)] == prefetch.PARALLEL and most[id(b)] == prefetch.PARALLEL  # each cluster its own bound


def test_a_snapshot_answers_in_the_calling_thread() -> None:
    snap = SnapshotSource.from_objects([])
    here = threading.get_ident()
    assert perform([Ask(snap, threading.get_ident)]) == [(True, here)]


def test_in_waves_follows_the_dependencies_across_sources() -> None:
    """MultiKueue's shape: the manager's Workload first, then each worker's copy, then what they name."""
    class Live:
        is_live = True

    manager, w1, w2 = Live(), Live(), Live()
    order: list[str] = []

    def read(name: str) -> Callable[[], str]:
        def call() -> str:
            order.append(name)
            return name
        return call

    asks = [Ask(manager, read("wl"), "wl"), Ask(w1, read("w1"), "w1", ("wl",)), Ask(w2, read("w2"), "w2", ("wl",)),
            Ask(w1, read("cq1"), "cq1", ("w1",))]

    def then(ask: Ask, done: dict[str, tuple[bool, Any]]) -> Ask | None:
        return None if ask.name == "w2" else ask  # what the manager's answer says is not needed is dropped

    got = in_waves(asks, then)
    assert got == {"wl": (True, "wl"), "w1": (True, "w1"), "w2": (True, None), "cq1": (True, "cq1")}
    assert order == ["wl", "w1", "cq1"]
    with pytest.raises(ValueError):
        in_waves([Ask(manager, read("x"), "x", ("y",))])
