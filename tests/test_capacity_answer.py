"""capacity's one record (capacity/answer.py), pure: the counts in, the record out (the copy's and each role's
`Tally`, what stops the next copy, what is unknown); the -o json document (capacity/document.py) carries the same.
Asserted on numbers and codes, not English."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.answer import UNKNOWN, Target, answer
from kubectl_pd.capacity.document import to_dict
from kubectl_pd.capacity.gather import Capacity
from kubectl_pd.capacity.words import unread
from kubectl_pd.create.preflight import Preflight
from kubectl_pd.kueue.model import Snapshot

SNAP = Snapshot.of([])
TARGET = Target("Request", None, "team-a", "pd-atomic")


def _stop(code: str, never: bool = False) -> sim.Stop:
    return sim.Stop(code, "cq", "copy-1", "main", None, "f", "nvidia.com/gpu", Fraction(2), Fraction(1), Fraction(4),
                    Fraction(1), never)


def _count(now: int, borrowing: int = 0, stop: sim.Stop | None = None, capped: bool = False,
           timed_out: bool = False) -> sim.Count:
    placed = tuple(sim.Placed(False, (("w", "main", "nvidia.com/gpu", "f"),), ()) for _ in range(now))
    return sim.Count(now, borrowing, placed, stop, capped, SNAP, timed_out)


def _plan() -> Capacity:
    return Capacity(Preflight(), "pd-atomic", [])


QUOTA = _stop("QuotaExhausted")
UNKNOWN_STOP = _stop(UNKNOWN)

# (case, the copy's count, want (now, atLeast, byBorrowing, withinNominal, next's code))
COPIES = [
    ("not judged", None, (None, False, None, None, None)),
    ("counted, then stopped by quota", _count(3, 1, QUOTA), (3, False, 1, 2, "QuotaExhausted")),
    ("stopped at the limit: at least", _count(5, 0, None, capped=True), (5, True, 0, 5, None)),
    ("a quota of unknown size after some: at least them", _count(2, 0, UNKNOWN_STOP), (2, True, 0, 2, UNKNOWN)),
    ("a quota of unknown size first: unknown, never 0", _count(0, 0, UNKNOWN_STOP), (None, False, None, None, UNKNOWN)),
]


@pytest.mark.parametrize(("case", "count", "want"), COPIES, ids=[c[0] for c in COPIES])
def test_the_copys_tally(case: str, count: sim.Count | None, want: tuple[object, ...]) -> None:
    a = answer(TARGET, _plan(), count, None, {}, {})
    t = a.copies
    assert (t.now, t.at_least, t.by_borrowing, t.within_nominal, t.next.code if t.next else None) == want
    doc = to_dict(a)
    assert (doc["now"], doc["atLeast"], doc["byBorrowing"], doc["withinNominal"]) == want[:4]
    assert (doc["next"] or {}).get("code") == want[4]


# (case, a role's count alone, want (now, atLeast, byBorrowing))
ROLES = [
    ("counted", _count(4, 2, QUOTA), (4, False, 2)),
    ("a quota of unknown size after some: at least", _count(1, 0, UNKNOWN_STOP), (1, True, 0)),
    ("a quota of unknown size first: unknown", _count(0, 0, UNKNOWN_STOP), (None, False, None)),
]


@pytest.mark.parametrize(("case", "count", "want"), ROLES, ids=[c[0] for c in ROLES])
def test_each_roles_tally(case: str, count: sim.Count, want: tuple[object, ...]) -> None:
    a = answer(TARGET, _plan(), _count(1), None, {"decode": count}, {})
    (name, t), = a.per_role
    assert (name, t.now, t.at_least, t.by_borrowing) == ("decode", *want)


def test_next_is_after_the_copies_preemption_admits() -> None:
    never = _stop("QuotaExceedsCapacity", never=True)
    a = answer(TARGET, _plan(), _count(1, 0, QUOTA), pe.PreemptCount((), never), {}, {})
    assert a.copies.next == never and to_dict(a)["next"]["never"] is True


@pytest.mark.parametrize(("count", "unread_reads", "want"), [
    (_count(1), [], []),
    (_count(1), [("LocalQueue team-a/q", "forbidden")], ["LocalQueue team-a/q"]),
    (_count(3, timed_out=True, capped=True), [], ["timed out"]),
    (_count(0, 0, UNKNOWN_STOP), [("Nodes", "forbidden")], ["Nodes", "unknown"]),
])
def test_what_is_unknown_is_data_and_one_list(count: sim.Count, unread_reads: list[tuple[str, str]],
                                               want: list[str]) -> None:
    plan = _plan()
    plan.unread.extend(unread_reads)
    a = answer(TARGET, plan, count, None, {}, {})
    kinds = ([r for r, _why in a.unread] + ["timed out"] * len(a.timed_out)
             + (["unknown"] if a.unknown is not None else []))
    assert kinds == want and a.complete is (not want)
    assert len(unread(a)) == len(want)
    assert ("incomplete" in to_dict(a)) is bool(want)


def test_the_pod_set_orders_are_shown_only_when_their_counts_differ() -> None:
    assert answer(TARGET, _plan(), _count(2), None, {}, {"a,b": 2, "b,a": 2}).by_pod_set_order == ()
    a = answer(TARGET, _plan(), _count(1), None, {}, {"a,b": 2, "b,a": 1})
    assert to_dict(a)["byPodSetOrder"] == {"a,b": 2, "b,a": 1}
