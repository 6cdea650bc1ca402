"""The head start (pending/lookahead.py, pending/run.head_start): a target's first round of reads (pending/plan.py)
sent before the diagnosis code loads, handed to gather's identical calls once; the bounded sets answer reads by
name. A live-looking Source over a snapshot, whose Pods list is slow, logs each read: the facts are the same as
when nothing is read ahead (issue 49 replaced the queue chain this file tested: tests/test_two_rounds.py)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.cluster.source import Obj, Origin, SourceDefaults
from kubectl_pd.errors import ForbiddenError
from kubectl_pd.pending import plan
from kubectl_pd.pending.gather import Facts, gather
from kubectl_pd.pending.lookahead import Lookahead
from kubectl_pd.pending.target import Target
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
QUICK, SLOW = 0.05, 0.6


class Timed(SourceDefaults):
    """Each read takes QUICK seconds, the Pods list SLOW; `parallel` False sends the reads one after another, for
    the answer to compare with."""

    is_live = True

    def __init__(self, objs: list[dict[str, Any]], *, parallel: bool = True, refuse: str | None = None,
                 break_once: str | None = None) -> None:
        self.inner = SnapshotSource.from_objects(objs)
        self.parallel = parallel
        self.refuse = refuse
        self.break_once = break_once
        self.log: list[tuple[str, float, float]] = []
        self.lock = threading.Lock()

    def _timed(self, what: str, read: Callable[[], Any]) -> Any:
        start = time.monotonic()
        try:
            time.sleep(SLOW if what == "list Pod" else QUICK)
            if self.break_once is not None and what == self.break_once:
                self.break_once = None
                raise _Broken(what)
            if self.refuse is not None and what == self.refuse:
                raise ForbiddenError(f"{what}: forbidden")
            return read()
        finally:
            with self.lock:
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
        return next((s, e) for w, s, e in self.log if w == what)


class _Broken(BaseException):
    """Not an Exception: what `attempt` does not catch, so the chain stops without handing its read over."""


TARGET = Target("PodGroup", "qwen-pd", "team-a")
SETS = {"list LocalQueue", "list LimitRange", "list ClusterQueue", "list ResourceFlavor"}


def _facts(src: Timed) -> Facts:
    return gather(src, TARGET, strict=False)


def _same(a: Facts, b: Facts) -> None:
    assert a.workloads == b.workloads and a.local_queues == b.local_queues
    assert a.cluster_queues == b.cluster_queues and a.flavors == b.flavors
    assert a.events == b.events and a.limit_ranges == b.limit_ranges and a.pending == b.pending
    assert a.notes == b.notes and a.incomplete == b.incomplete and a.pods == b.pods


# ---- the head start: a target's first reads sent before the diagnosis code loads (pending/run.head_start)

def _sent(src: Timed, kind: str, name: str = TARGET.name) -> Lookahead:
    return Lookahead(src).send(plan.first_round((kind,), name, TARGET.namespace))


def _headed(src: Timed, kind: str = "PodGroup") -> tuple[Lookahead, Facts]:
    head = _sent(src, kind)
    try:
        return head, gather(head, Target(kind, TARGET.name, TARGET.namespace), strict=False)
    finally:
        head.close()


def test_a_head_start_sends_the_first_wave_at_once_and_changes_no_read_and_no_fact() -> None:
    objs = load_objects(FIX / "quota-exhausted.yaml")
    src, plain = Timed(objs), Timed(objs, parallel=False)
    t0 = time.monotonic()
    head = _sent(src, "PodGroup")
    time.sleep(QUICK / 2)  # the code a command loads meanwhile: the first reads are in flight already
    assert not src.log
    got = gather(head, TARGET, strict=False)
    head.close()
    _same(got, _facts(plain))
    assert src.span("get Workload")[0] - t0 < QUICK / 2 and src.span("list Pod")[0] - t0 < QUICK / 2
    assert not [t for t in threading.enumerate() if t.name == "kubectl-pd-head"]


def test_a_head_start_for_each_kind_reads_what_the_plan_would() -> None:
    objs = load_objects(FIX / "quota-exhausted.yaml")
    for kind in ("Workload", "PodGroup"):
        src, plain = Timed(objs), Timed(objs, parallel=False)
        _h, got = _headed(src, kind)
        want = gather(plain, Target(kind, TARGET.name, TARGET.namespace), strict=False)
        _same(got, want)
        by_name = {"get LocalQueue", "get ClusterQueue", "get ResourceFlavor", "get AdmissionCheck"}
        # the queues and flavors by name came from the sets (one list each), everything else was read as plainly
        got_reads, plain_reads = Counter(w for w, _s, _e in src.log), Counter(w for w, _s, _e in plain.log)
        assert set(got_reads - plain_reads) <= SETS and max((got_reads - plain_reads).values(), default=1) == 1, kind
        assert set(plain_reads - got_reads) <= by_name, kind
        assert not by_name & {w for w, _s, _e in src.log}, kind


def test_a_read_sent_ahead_that_no_call_took_is_never_handed_to_a_later_call() -> None:
    """A bare NAME starts with a ModelDeployment's reads; whatever the plan did not take is dropped at close, so
    the next --watch round reads afresh."""
    objs = load_objects(FIX / "quota-exhausted.yaml")
    src = Timed(objs)
    head = _sent(src, "ModelDeployment", "nothing-of-that-name")
    head.close()
    n = len(src.log)
    assert head.get("ModelDeployment", "nothing-of-that-name", TARGET.namespace) is None
    assert len(src.log) == n + 1  # read again, not taken from the head start


def test_a_refused_first_read_is_settled_where_the_plan_asks_it() -> None:
    objs = load_objects(FIX / "quota-exhausted.yaml")
    for refused in ("list Pod", "get Workload"):
        try:
            got = _headed(Timed(objs, refuse=refused))[1]
        except Exception as e:  # noqa: BLE001 - the plan raises what it raises without a head start too
            try:
                gather(Timed(objs, parallel=False, refuse=refused), TARGET, strict=False)
            except Exception as f:  # noqa: BLE001
                assert type(e) is type(f) and str(e) == str(f), refused
                continue
            raise
        _same(got, gather(Timed(objs, parallel=False, refuse=refused), TARGET, strict=False))


def test_the_head_start_hands_every_other_attribute_to_the_live_source() -> None:
    src = Timed(load_objects(FIX / "quota-exhausted.yaml"))
    head = _sent(src, "Pod", "nothing")
    head.close()
    assert head.is_live and head.inner is src and head.parallel
    assert head.replay is src.replay and head.served_versions("kueue.x-k8s.io") == src.served_versions("kueue.x-k8s.io")
    assert head.stored("Workload") == src.stored("Workload")
