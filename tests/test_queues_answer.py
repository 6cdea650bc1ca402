"""queues' one record (queues/answer.py), pure: a snapshot in, the record out; the -o json document built from it
(queues/document.py) carries the same figures. Asserted on states, codes and numbers, not English."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd.kueue.model import Snapshot
from kubectl_pd.queues import document, words
from kubectl_pd.queues.answer import Unknown, answer
from tests.builders import cluster_queue, cohort


def _cq(name: str, *, active: bool | None = True, stop: str | None = None, cohort_name: str | None = None,
        used: str = "0") -> dict[str, Any]:
    o = cluster_queue(name, {"f": "4"}, resource="nvidia.com/gpu", cohort=cohort_name, used={"f": used},
                      active=active)
    if stop is not None:
        o["spec"]["stopPolicy"] = stop
    return o


# (case, ClusterQueue, want (active, reason, stopPolicy))
STATES = [
    ("active", _cq("a"), (True, None, None)),
    ("no Active condition: unknown, never true", _cq("a", active=None), (None, None, None)),
    ("inactive: Kueue's reason", _cq("a", active=False), (False, "Inactive", None)),
    ("a stopPolicy stops an active queue", _cq("a", stop="Hold"), (False, "Stopped", "Hold")),
    ("a stopPolicy with no condition read: stopped, active unknown", _cq("a", active=None, stop="Hold"),
     (None, "Stopped", "Hold")),
    ("stopPolicy None stops nothing", _cq("a", stop="None"), (True, None, "None")),
    ("inactive and held: Kueue's own reason first", _cq("a", active=False, stop="Hold"), (False, "Inactive", "Hold")),
]


@pytest.mark.parametrize(("case", "obj", "want"), STATES, ids=[c[0] for c in STATES])
def test_a_queues_state(case: str, obj: dict[str, Any], want: tuple[Any, ...]) -> None:
    q = answer(Snapshot.of([obj]), []).cluster_queues[0]
    assert (q.active, q.reason, q.stop_policy) == want


def test_the_record_is_sorted_and_the_cohort_tree_is_data() -> None:
    a = answer(Snapshot.of([_cq("b", cohort_name="team"), _cq("a", cohort_name="team"), cohort("team", "org")]), [])
    assert [q.name for q in a.cluster_queues] == ["a", "b"]
    # a cohort named by a queue or read as an object (its parent, only named, is not one of the tree's)
    assert [(c.name, c.parent, c.cohorts, c.cluster_queues, c.cycle) for c in a.cohorts] == [
        ("team", "org", (), ("a", "b"), False)]


def test_unknown_figures_are_left_out_and_said_apart() -> None:
    o = _cq("a", used="2")
    o["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "lots"
    a = answer(Snapshot.of([o]), [("Cohorts", "forbidden")])
    assert a.cluster_queues[0].flavors == ()
    assert a.unknown == (Unknown("a", "f", "nvidia.com/gpu", ("nominalQuota",)),)
    assert a.unread == (("Cohorts", "forbidden"),)
    rows = words.unread(a)
    assert [r[0] for r in rows][0] == "Cohorts" and len(rows) == 2
    assert [i["read"] for i in document.to_dict(a)["incomplete"]] == [r[0] for r in rows]


def test_the_document_is_the_records_figures() -> None:
    a = answer(Snapshot.of([_cq("a", used="3")]), [])
    f = a.cluster_queues[0].flavors[0]
    # reserved (status.flavorsReservation) but not admitted (no flavorsUsage): said apart from used
    assert (f.nominal, f.used, f.reserved, f.free) == (Fraction(4), Fraction(0), Fraction(3), Fraction(1))
    doc = document.to_dict(a)
    row = doc["clusterQueues"][0]["flavors"][0]
    assert (row["nominal"], row["used"], row["reserved"], row["free"]) == ("4", "0", "3", "1")
    assert "incomplete" not in doc and doc["cohortsKnown"] is a.cohorts_known
