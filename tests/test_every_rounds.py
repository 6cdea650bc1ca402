"""Issue 49: why-pending with no TARGET (-A, or a namespace) in one round past its lists. The run's lists go out
with the bounded sets the targets read by name (pending/gather.EVERY_SETS: LocalQueues, ClusterQueues, flavors); its
Events and LimitRanges per namespace and the visibility API's listing of each waiting queue go out together once
the lists are in (cluster/prefetch.PrefetchedSource.warm); the targets are then diagnosed from memory. A
live-looking Source (tests/test_two_rounds.Far) that also reads a set in one page logs each read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubectl_pd.cluster.source import Obj
from kubectl_pd.pending.gather import Facts, gather_all
from tests.apiserver import load_objects, unrelated_workloads
from tests.test_two_rounds import Far, _same

FIX = Path(__file__).parent / "fixtures" / "pending"


class FarPaged(Far):
    def list_within(self, kind: str, namespace: str | None, most: int) -> list[Obj] | None:
        objs = self.list(kind, namespace)
        return objs if len(objs) <= most else None


def _objects() -> list[dict[str, Any]]:
    return load_objects(FIX / "waiting-in-queue.yaml") + unrelated_workloads(
        30, queue="gpustack-fnv64-5582b5d69c84a5c3", message="couldn't assign flavors")


def _by_target(facts: list[Facts]) -> dict[Any, Facts]:
    return {f.target: f for f in facts}


def test_every_target_is_read_in_one_round_past_the_lists() -> None:
    objs = _objects()
    src = FarPaged(objs)
    got, notes = gather_all(src, None)
    want, want_notes = gather_all(Far(objs, parallel=False), None)
    assert notes == want_notes and _by_target(got).keys() == _by_target(want).keys()
    for t, f in _by_target(want).items():
        _same(_by_target(got)[t], f)
    rounds = src.rounds()
    assert max(d for d, _w in rounds) <= 2, rounds
    assert {w for d, w in rounds if d == 2} <= {"list Event", "list LimitRange", "raw clusterqueues/pendingworkloads"}
    # the queues and flavors by name came from the sets
    assert not {w for _d, w in rounds} & {"get LocalQueue", "get ClusterQueue", "get ResourceFlavor"}


def test_without_one_page_the_sets_are_left_to_the_reads_by_name() -> None:
    objs = _objects()
    src = Far(objs)  # no list_within: a Source that does not read a set in one page (a recorder, a snapshot)
    got, _notes = gather_all(src, None)
    want, _n = gather_all(Far(objs, parallel=False), None)
    for t, f in _by_target(want).items():
        _same(_by_target(got)[t], f)
    assert "get ClusterQueue" in {w for _d, w in src.rounds()}
