"""Read, then decide (issue 38): every read a diagnosis rests on is made by the gather step, before it.

Every why-pending fixture is gathered through a Source that refuses any read once it is closed (one target,
and every target as `why-pending -A` reads them); the Source is closed, then every diagnosis and its
preemption answer are worked out: none may read, and none may have asked for a queue the plan did not read.
The answers are the same as those of a run through an open Source (the goldens pin those).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.admitted import read_admitted
from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.cluster.source import Obj, Origin, SourceDefaults
from kubectl_pd.errors import NotFoundError
from kubectl_pd.kueue import preempt_reads as pr
from kubectl_pd.pending.diagnose import diagnose
from kubectl_pd.pending.gather import Facts, gather, gather_all, gather_preemption
from kubectl_pd.pending.preempt import context, section
from kubectl_pd.pending.target import IncompleteError, Target
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
FIXTURES = sorted(p.stem for p in FIX.glob("*.yaml"))


def target_of(name: str) -> tuple[str, str]:
    from tests.test_pending_fixtures import target_of as of

    return of(name)


class ReadAfterClose(AssertionError):
    """A read sent once gathering was over."""


class Closing(SourceDefaults):
    """A real Source over another that answers until `close()`, then refuses every read."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.is_live = inner.is_live
        self.replay = inner.replay
        self.closed = False
        self.reads = 0

    def close(self) -> None:
        self.closed = True

    def _check(self, what: str) -> None:
        if self.closed:
            raise ReadAfterClose(what)
        self.reads += 1

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        self._check(f"get {kind} {namespace}/{name}")
        return self.inner.get(kind, name, namespace)  # type: ignore[no-any-return]

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *,
             reduce: Callable[[Obj], Obj | None] | None = None) -> list[Obj]:
        self._check(f"list {kind} {namespace}")
        return self.inner.list(kind, namespace, label_selector, field_selector,  # type: ignore[no-any-return]
                               reduce=reduce)

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        self._check(f"raw {path}")
        return self.inner.get_raw(path, query, resource=resource,  # type: ignore[no-any-return]
                                  namespace=namespace)

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)  # type: ignore[no-any-return]


def _source(name: str) -> Closing:
    return Closing(SnapshotSource.from_objects(load_objects(FIX / f"{name}.yaml")))


def _decide(facts: Facts, ctx: Any) -> tuple[Any, Any]:
    d = diagnose(facts, preempt=ctx)
    return d, section(d)


@pytest.mark.parametrize("holders", [False, True])
@pytest.mark.parametrize("name", FIXTURES)
def test_one_target_decides_on_what_was_gathered(name: str, holders: bool) -> None:
    src = _source(name)
    ctx = context(src, None, holders)
    try:
        facts = gather(src, Target(target_of(name)[1], "qwen-pd", "team-a"), strict=False, preempt=ctx)
    except (NotFoundError, IncompleteError):
        pytest.fail(f"{name}: the fixture's deployment qwen-pd in team-a is not there")
    assert src.reads > 0
    src.close()
    _decide(facts, ctx)
    assert ctx.known.missed == []  # the plan read every queue an answer asked for


@pytest.mark.parametrize("name", FIXTURES)
def test_every_target_decides_on_what_was_gathered(name: str) -> None:
    src = _source(name)
    ctx = context(src, None, True)
    every, _notes = gather_all(src, None)
    assert every
    gather_preemption(src, every, ctx)
    src.close()
    for facts in every:
        _decide(facts, ctx)
    assert ctx.known.missed == []


def test_the_closed_source_refuses_every_read() -> None:
    src = _source(FIXTURES[0])
    src.close()
    for read in (lambda: src.get("Workload", "w", "ns"), lambda: src.list("Pod", "ns"),
                 lambda: src.get_raw("/api")):
        with pytest.raises(ReadAfterClose):
            read()


def test_a_queue_the_plan_missed_is_unknown_never_empty() -> None:
    known = pr.Known()
    reads = pr.Reads(known)
    reads.consult(["cq"])
    assert (reads.unknown, known.missed, reads.workloads) == (pr.UNREADABLE, ["cq"], {})


def test_an_answer_sees_only_the_queues_it_consulted() -> None:
    src = SnapshotSource.from_objects(load_objects(FIX / "needs-preemption.yaml"))
    known = read_admitted(src, ["a", "b"])
    assert set(known.workloads) == {"a", "b"} and known.failed == {}
    reads = pr.Reads(known)
    reads.consult(["a"])
    assert reads.read == frozenset({"a"})


def test_the_test_catches_a_diagnosis_that_reads() -> None:
    """The same run with a record that reads when asked (create's preflight's) reads after the close."""
    from kubectl_pd.cluster.admitted import Reading
    from kubectl_pd.kueue.preempt_answer import PreemptionView

    src = _source("needs-preemption")
    facts = gather(src, Target("ModelDeployment", "qwen-pd", "team-a"), strict=False)
    src.close()
    with pytest.raises(ReadAfterClose):
        _decide(facts, PreemptionView(Reading(src)))


def test_some_fixtures_plan_preemption_reads() -> None:
    from kubectl_pd.pending.gather import preemption_plan

    planned = {n for n in FIXTURES
               if preemption_plan(gather_all(_source(n), None)[0], holders=False).queues}
    assert {"needs-preemption"} <= planned
