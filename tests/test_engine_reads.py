"""The one reader of the engine's snapshot (kubectl_pd/cluster/engine_reads.py): what each caller lists, and what a
refused list leaves unknown (never empty)."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.cluster import engine_reads
from tests.builders import cluster_queue, cohort, resource_flavor

OBJS = {"ClusterQueue": [cluster_queue("a", {"f1": "4"}, cohort="c"), cluster_queue("b", {"f2": "4"}, cohort="c"),
                         cluster_queue("alone", {"f1": "2"})],
        "Cohort": [cohort("c")], "ResourceFlavor": [resource_flavor("f1"), resource_flavor("f2")]}


def _lister(refused: tuple[str, ...], asked: list[str]) -> engine_reads.Lister:
    def lister(kind: str) -> list[Any] | None:
        asked.append(kind)
        return None if kind in refused else OBJS[kind]
    return lister


@pytest.mark.parametrize(("refused", "names", "want"), [
    ((), ("a",), ({"a"}, {"f1"}, True, True)),
    (("Cohort",), ("a",), ({"a"}, {"f1"}, True, False)),
    (("ResourceFlavor",), ("a",), ({"a"}, set(), True, True)),
    ((), None, ({"a", "b", "alone"}, {"f1", "f2"}, True, True)),
])
def test_listed(refused: tuple[str, ...], names: tuple[str, ...] | None,
                want: tuple[set[str], set[str], bool, bool]) -> None:
    asked: list[str] = []
    got = engine_reads.read(_lister(refused, asked), True, names)
    assert got is not None
    assert (set(got.queues), set(got.flavors), got.peers is not None, got.cohorts is not None) == want
    assert asked == ["ClusterQueue", "Cohort", "ResourceFlavor"]
    snap = got.snapshot()
    assert set(names or ()) <= set(snap.cluster_queues)


def test_no_queue_list_nothing_to_judge() -> None:
    asked: list[str] = []
    assert engine_reads.read(_lister(("ClusterQueue",), asked), True, ("a",)) is None
    assert asked == ["ClusterQueue"]


@pytest.mark.parametrize(("queue", "lists"), [("alone", []), ("a", ["ClusterQueue", "Cohort"])])
def test_given_queue_lists_peers_only_in_a_cohort(queue: str, lists: list[str]) -> None:
    """create's preflight: the queue and its flavors read already; the peers and Cohorts only for a cohort."""
    asked: list[str] = []
    obj = next(o for o in OBJS["ClusterQueue"] if o["metadata"]["name"] == queue)
    got = engine_reads.read(_lister((), asked), False, queues={queue: obj}, flavors={"f1": OBJS["ResourceFlavor"][0]},
                            cohort_only=True)
    assert got is not None and asked == lists and set(got.flavors) == {"f1"}


def test_without_flavors() -> None:
    """queues: every ClusterQueue and the Cohorts, no flavor."""
    asked: list[str] = []
    got = engine_reads.read(_lister((), asked), True, list_flavors=False)
    assert got is not None and got.flavors == {} and asked == ["ClusterQueue", "Cohort"]
