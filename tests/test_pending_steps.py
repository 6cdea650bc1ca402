"""Issue 29, item 2: the diagnosis's steps return what they found and `pending/compose.compose` builds each
final Reason from a base Reason and the findings that apply to it; nothing is patched afterwards.

(a) the steps over the whole target (`diagnose.LATE_STEPS`) give the same Diagnosis in every order;
(b) a Reason (and a Diagnosis) cannot be changed once built;
(c) `compose` over a table: base reason + findings -> params and clause ids (codes and values, no English).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from dataclasses import FrozenInstanceError
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.pending.compose import Findings, PairEffect, QueueStanding, compose
from kubectl_pd.pending.diagnose import LATE_STEPS, Diagnosis, diagnose
from kubectl_pd.pending.gather import gather
from kubectl_pd.pending.model import _REASON_FIELDS, Reason, amended, read_only, say
from kubectl_pd.pending.render import to_dict
from kubectl_pd.pending.target import Target
from kubectl_pd.records import replace
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
NOW = datetime(2026, 11, 29, 9, 20, tzinfo=UTC)
# the fixtures whose late steps have something to say: a preemption's pair effect, a queue position, the
# per-replica groups, the rows of admitted and blocked roles; and a few plain ones
FIXTURES = ("preempted", "preempted-in-part", "waiting-in-queue", "per-replica-joint", "quota-exhausted",
            "needs-preemption", "pods-unschedulable", "pod-group-incomplete", "cluster-queue-inactive", "not-pending")
ORDERS = list(itertools.permutations(LATE_STEPS))


def _diagnose(name: str, order: tuple[str, ...] | None) -> Diagnosis:
    items = copy.deepcopy(load_objects(FIX / f"{name}.yaml"))
    from tests.test_pending_fixtures import target_of

    facts = gather(SnapshotSource.from_objects(items), Target(target_of(name)[1], "qwen-pd", "team-a"))
    return diagnose(facts, now=NOW, order=order)


@pytest.mark.parametrize("name", FIXTURES)
def test_late_steps_in_every_order_give_the_same_diagnosis(name: str) -> None:
    first = _diagnose(name, None)
    for order in ORDERS:
        d = _diagnose(name, order)
        assert d == first, order
        assert to_dict(d) == to_dict(first), order


def test_every_fixture_gives_the_same_diagnosis_in_reverse_order() -> None:
    reverse = tuple(reversed(tuple(LATE_STEPS)))
    names = sorted(p.stem for p in FIX.glob("*.yaml"))
    assert len(names) > 30
    for name in names:
        assert to_dict(_diagnose(name, reverse)) == to_dict(_diagnose(name, None)), name


def test_the_late_steps_are_the_three_independent_ones() -> None:
    assert set(LATE_STEPS) == {"queue", "pairs", "rows"}


# (b) frozen ---------------------------------------------------------------------------------------------

def _reason() -> Reason:
    return Reason("WaitingInQueue", say("waiting-in-queue", untouched=False), workload="g",
                  params=read_only({"queue": "cq"}), clauses=(say("ours.not-evaluated"),), hint=say("hint.wait"))


def test_a_reason_cannot_be_changed_once_built() -> None:
    r = _reason()
    with pytest.raises(FrozenInstanceError):
        r.code = "Unknown"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        r.hint = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        r.params["position"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        r.clauses.append(say("queue.blocks-once-composed"))  # type: ignore[attr-defined]
    assert r.params == {"queue": "cq"} and [c.id for c in r.clauses] == ["ours.not-evaluated"]


def test_read_only_copies_what_it_is_given() -> None:
    given = {"queue": "cq"}
    p = read_only(given)
    given["queue"] = "other"
    assert p == {"queue": "cq"}
    assert read_only() == {}


def test_the_reasons_of_a_diagnosis_cannot_be_changed() -> None:
    d = _diagnose("preempted", None)
    r = d.reasons[0]
    assert r.code == "Preempted" and r.params["lostRoles"] == ["decode"]
    with pytest.raises(TypeError):
        r.params["lostRoles"] = []  # type: ignore[index]
    with pytest.raises(FrozenInstanceError):
        r.clauses = ()  # type: ignore[misc]


def test_amended_is_a_new_reason_and_knows_the_fields() -> None:
    r = _reason()
    a = amended(r, role="decode", clauses=(*r.clauses, say("queue.blocks-once-composed")))
    assert (a.role, [c.id for c in a.clauses]) == ("decode", ["ours.not-evaluated", "queue.blocks-once-composed"])
    assert (r.role, [c.id for c in r.clauses]) == (None, ["ours.not-evaluated"])
    assert a == replace(r, role="decode", clauses=a.clauses)
    with pytest.raises(FrozenInstanceError):
        a.role = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        amended(r, colour="red")
    assert _REASON_FIELDS == {f.name for f in dataclasses.fields(Reason)}


# (c) compose ---------------------------------------------------------------------------------------------

STANDING = QueueStanding(cq="cq", position=3, visibility="listed", cq_pending=7,
                         ahead_requests={"cpu": Fraction(2)})
UNLISTED = QueueStanding(cq="cq", position=None, visibility="not-listed", cq_pending=7)
HOLDERS = PairEffect(lost=("prefill",), holders=("decode",), roles=("prefill",))
OURS_ALL_LOST = PairEffect(lost=("decode", "prefill"), holders=(), roles=("prefill", "decode"),
                           preemptor_roles=("router",), by_our_own=True)
OURS_QUIET = PairEffect(lost=("decode",), holders=(), roles=("decode",), preemptor_roles=("router",))


def _base(code: Any, params: dict[str, Any] | None = None, clauses: tuple[str, ...] = (), role: str | None = None,
          hint: str | None = None) -> Reason:
    return Reason(code, say("kueue.code", code=code), role=role, workload="g", params=read_only(params),
                  clauses=tuple(say(c) for c in clauses), hint=say(hint) if hint else None)  # type: ignore[arg-type]


# base, findings -> params, clause ids, role, hint (id, args) or None
COMPOSE_CASES: list[tuple[str, Reason, Findings, dict[str, Any], list[str], str | None, Any]] = [
    ("waiting: position and what is ahead", _base("WaitingInQueue", hint="hint.wait"), Findings(standing=STANDING),
     {"position": 3, "aheadRequests": {"cpu": Fraction(2)}}, ["queue.position", "queue.ahead-ask"], None,
     ("hint.wait", {"cq": "cq", "position": 3, "visibility": "listed", "cq_pending": 7})),
    ("waiting: a position already said is kept", _base("WaitingInQueue", {"position": 1}),
     Findings(standing=STANDING), {"position": 1, "aheadRequests": {"cpu": Fraction(2)}}, ["queue.ahead-ask"],
     None, None),
    ("waiting: not listed, only the hint", _base("WaitingInQueue", hint="hint.wait"), Findings(standing=UNLISTED),
     {}, [], None, ("hint.wait", {"cq": "cq", "position": None, "visibility": "not-listed", "cq_pending": 7})),
    ("waiting: --what-if gives no waiting advice", _base("WaitingInQueue", hint="hint.wait"),
     Findings(standing=QueueStanding(cq="cq", position=2, visibility="listed", cq_pending=1, hypothetical=True)),
     {"position": 2}, ["queue.position"], None, None),
    ("the base's clauses come first", _base("WaitingInQueue", clauses=("ours.not-evaluated",)),
     Findings(standing=STANDING),
     {"position": 3, "aheadRequests": {"cpu": Fraction(2)}},
     ["ours.not-evaluated", "queue.position", "queue.ahead-ask"], None, None),
    ("preempted: roles still holding quota", _base("Preempted", {"rule": "InClusterQueue"}), Findings(pair=HOLDERS),
     {"rule": "InClusterQueue", "lostRoles": ["prefill"], "holdingRoles": ["decode"]}, ["preempted.holders"], None,
     None),
    ("preempted: by our own, every role lost", _base("Preempted"), Findings(pair=OURS_ALL_LOST),
     {"preemptorRoles": ["router"], "lostRoles": ["decode", "prefill"], "holdingRoles": []},
     ["preempted.by-our-own", "preempted.all-lost"], None, None),
    ("preempted: ours, not the deployment's view", _base("Preempted"), Findings(pair=OURS_QUIET),
     {"preemptorRoles": ["router"], "lostRoles": ["decode"], "holdingRoles": []}, [], None, None),
    ("pair and position apply to their codes only", _base("QuotaExhausted", {"outcome": "x"}, hint="next.free"),
     Findings(pair=HOLDERS, standing=STANDING), {"outcome": "x"}, [], None, ("next.free", {})),
    ("a hint.wait of another code gets the queue's words", _base("Unknown", hint="hint.wait"),
     Findings(standing=UNLISTED), {}, [], None,
     ("hint.wait", {"cq": "cq", "position": None, "visibility": "not-listed", "cq_pending": 7})),
    ("a per-replica group's one role", _base("QuotaExhausted"), Findings(role="decode"), {}, [], "decode", None),
    ("a role the base names is kept", _base("QuotaExhausted", role="prefill"), Findings(role="decode"), {}, [],
     "prefill", None),
    ("a queue problem before any Workload", _base("ClusterQueueInactive", {"queue": "cq"}),
     Findings(once_composed=True, standing=STANDING), {"queue": "cq"}, ["queue.blocks-once-composed"], None, None),
    ("nothing found: the base as it was", _base("Preempted", {"rule": "r"}, ("kueue.preempting",)), Findings(),
     {"rule": "r"}, ["kueue.preempting"], None, None),
]


@pytest.mark.parametrize(("base", "found", "params", "clauses", "role", "hint"),
                         [c[1:] for c in COMPOSE_CASES], ids=[c[0] for c in COMPOSE_CASES])
def test_compose(base: Reason, found: Findings, params: dict[str, Any], clauses: list[str], role: str | None,
                 hint: Any) -> None:
    before = (dict(base.params), base.clauses, base.hint)
    r = compose(base, found)
    assert dict(r.params) == params
    assert [c.id for c in r.clauses] == clauses
    assert (r.code, r.workload, r.message) == (base.code, base.workload, base.message)
    assert r.role == role
    assert (None if r.hint is None else (r.hint.id, r.hint.args)) == hint
    assert (dict(base.params), base.clauses, base.hint) == before  # the base is untouched
    with pytest.raises(TypeError):
        r.params["x"] = 1  # type: ignore[index]


def test_compose_is_the_same_for_the_same_input() -> None:
    found = Findings(pair=HOLDERS, standing=STANDING)
    base = _base("Preempted")
    assert compose(base, found) == compose(base, found)
