"""Issue 49: one target in two dependent rounds of reads (a third for the Workloads ahead of it, which only the
visibility API's listing names). The first round is pending/plan.py's data, sent by the head start
(pending/lookahead.py); gather's reads by name of a queue, flavor or check are answered from the bounded sets that
round read. A live-looking Source over each fixture answers every read after DELAY seconds and logs it; a read is
one round deeper than the deepest read that had answered before it started. The facts are those of the same
gather with nothing sent ahead, one read after another."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster import prefetch
from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.cluster.source import Obj, Origin, SourceDefaults
from kubectl_pd.errors import ForbiddenError, NotFoundError
from kubectl_pd.pending import plan
from kubectl_pd.pending.gather import Facts, gather
from kubectl_pd.pending.lookahead import Lookahead
from kubectl_pd.pending.run import BARE_FORMS
from kubectl_pd.pending.target import Target
from tests.apiserver import load_objects
from tests.builders import resource_flavor

FIX = Path(__file__).parent / "fixtures" / "pending"
DELAY = 0.1  # well above what gather's own work between two rounds costs on a loaded machine


class Far(SourceDefaults):
    """Every read answers after DELAY seconds, logged (what, start, end); `parallel` False: one after another."""

    is_live = True

    def __init__(self, objs: list[dict[str, Any]], *, parallel: bool = True, refuse: str | None = None) -> None:
        self.inner = SnapshotSource.from_objects(objs)
        self.parallel = parallel
        self.refuse = refuse
        self.log: list[tuple[str, float, float]] = []
        self.lock = threading.Lock()

    def _timed(self, what: str, read: Callable[[], Any]) -> Any:
        start = time.monotonic()
        try:
            time.sleep(DELAY)
            if what == self.refuse:
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
        if resource == "clusterqueues/pendingworkloads":  # the fixtures' visibility listing, when they hold one
            cq = path.rstrip("/").split("/")[-2]
            return self._timed(f"raw {resource}", lambda: next(  # type: ignore[no-any-return]
                (d for d in self.inner.list("PendingWorkloadsSummary") if d["metadata"]["name"] == cq), None))
        return self._timed(f"raw {resource}", lambda: None)  # type: ignore[no-any-return]

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)

    def rounds(self) -> list[tuple[int, str]]:
        """(round, what) of each read, by start."""
        log = sorted(self.log, key=lambda x: x[1])
        depth: list[int] = []
        for i, (_w, start, _e) in enumerate(log):
            depth.append(1 + max((depth[j] for j in range(i) if log[j][2] <= start), default=0))
        return [(d, w) for d, (w, _s, _e) in zip(depth, log, strict=True)]


def _same(a: Facts, b: Facts) -> None:
    for f in ("deployment", "workloads", "local_queues", "cluster_queues", "flavors", "checks", "events",
              "limit_ranges", "pending", "peer_queues", "cohorts", "ahead", "notes", "incomplete", "pods", "groups"):
        assert getattr(a, f) == getattr(b, f), f


def _far(src: Far, target: Target, forms: tuple[str, ...]) -> Facts:
    head = Lookahead(src).send(plan.first_round(forms, target.name, target.namespace))
    try:
        for kind in forms:  # a bare NAME: each form in turn, as pending/run.one_named tries them
            try:
                return gather(head, Target(kind, target.name, target.namespace), strict=False)
            except NotFoundError:
                continue
        raise AssertionError("no form found")
    finally:
        head.close()


def _plain(objs: list[dict[str, Any]], target: Target, forms: tuple[str, ...], refuse: str | None = None) -> Facts:
    for kind in forms:
        try:
            return gather(Far(objs, parallel=False, refuse=refuse), Target(kind, target.name, target.namespace),
                          strict=False)
        except NotFoundError:
            continue
    raise AssertionError("no form found")


# (fixture, the forms tried, the rounds past the second allowed): a deployment whose Pods name groups of other names
# reads their Workloads in the second round, and what explains them in a third
CASES = [("waiting-in-queue", BARE_FORMS, 0), ("waiting-in-queue", ("PodGroup",), 0),
         ("quota-exhausted", ("PodGroup",), 0),
         ("needs-preemption", ("PodGroup",), 0), ("local-queue-missing", BARE_FORMS, 1),
         ("cluster-queue-missing", BARE_FORMS, 0), ("admission-check-pending", BARE_FORMS, 0),
         ("not-pending", BARE_FORMS, 0)]


@pytest.mark.parametrize(("fixture", "forms", "more"), CASES, ids=[f"{f}-{len(k)}" for f, k, _m in CASES])
def test_one_target_is_read_in_two_rounds_and_the_facts_are_unchanged(fixture: str, forms: tuple[str, ...],
                                                                     more: int) -> None:
    objs = load_objects(FIX / f"{fixture}.yaml")
    target = Target(forms[0], "qwen-pd", "team-a")
    src = Far(objs)
    _same(_far(src, target, forms), _plain(objs, target, forms))
    rounds = src.rounds()
    # two rounds; one more only for the Workloads the visibility listing puts ahead of ours (a GET of each)
    assert all(d <= 2 + more or (d == 3 + more and w == "get Workload") for d, w in rounds), rounds
    # the queues and flavors by name came from the first round's sets
    assert not [w for d, w in rounds if d > 1 and w in ("get LocalQueue", "get ClusterQueue", "get ResourceFlavor")]


def test_a_refused_set_leaves_its_reads_by_name_to_the_cluster() -> None:
    objs = load_objects(FIX / "quota-exhausted.yaml")
    target = Target("PodGroup", "qwen-pd", "team-a")
    for refused in ("list ClusterQueue", "list LocalQueue", "list ResourceFlavor", "list LimitRange"):
        src = Far(objs, refuse=refused)
        _same(_far(src, target, ("PodGroup",)), _plain(objs, target, ("PodGroup",), refuse=refused))
        assert "get " + refused.split()[1] in {w for _d, w in src.rounds()} or refused == "list LimitRange", refused


def test_a_refused_set_read_by_name_too_is_the_same_note() -> None:
    objs = load_objects(FIX / "quota-exhausted.yaml")
    target = Target("PodGroup", "qwen-pd", "team-a")
    src = Far(objs, refuse="list LimitRange")
    got = _far(src, target, ("PodGroup",))
    _same(got, _plain(objs, target, ("PodGroup",), refuse="list LimitRange"))
    assert [n.id for n in got.notes].count("note.unread") == 1


def test_the_plan_is_data_and_a_bare_names_first_round_is_one_wave() -> None:
    first = plan.first_round(BARE_FORMS, "x", "ns")
    assert len(first) == len(set(first)) == 4 + len(plan.SETS) <= prefetch.PARALLEL
    assert all(plan.is_set(k) for k in first if k[0] == "list" and k[3] is None)


def test_a_set_is_read_in_one_page_or_not_at_all(apiserver: Callable) -> None:
    _, env = apiserver(*(resource_flavor(f"f{i}") for i in range(3)))
    live = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"]))
    assert live.list_within("ResourceFlavor", None, 2) is None  # more than one page: read by name instead
    got = live.list_within("ResourceFlavor", None, 5)
    assert got is not None and sorted(o["metadata"]["name"] for o in got) == ["f0", "f1", "f2"]
    assert all(o["kind"] == "ResourceFlavor" for o in got)
