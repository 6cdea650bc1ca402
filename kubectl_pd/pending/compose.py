"""The one place a Reason is finished: a step returns its base Reason, later steps return what they found
about it (frozen records below), and `compose` builds the final Reason by keyword from both. No step
patches a Reason it did not build, so the diagnosis does not depend on the order of its steps.

What `compose` adds, in this fixed order (params merged after the base's, clauses after the base's):
1. `role`: the base's, else the role the finding names (a per-replica group's one role);
2. `once_composed`: the clause `queue.blocks-once-composed` (a queue problem found before any Workload);
3. `pair` (Preempted only): params `preemptorRoles` (when the preemptor is ours), `lostRoles`, `holdingRoles`;
   clauses `preempted.by-our-own` (the target is the deployment), then `preempted.holders` or
   `preempted.all-lost`;
4. `standing` (WaitingInQueue only): param `position` and clause `queue.position` when the position was read,
   then param `aheadRequests` and clause `queue.ahead-ask` when every Workload ahead was read; and for any
   reason whose next step is `hint.wait`, that hint with what was read of the queue (none under --what-if).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.pending.model import Reason, Say, amended, read_only, say
from kubectl_pd.records import dataclass


@dataclass(frozen=True)
class PairEffect:
    """A preemption seen from the pair: the preemptor's roles when it is one of ours, the roles the preempted
    Workload lost, the roles still holding quota that serves nothing without them."""

    lost: tuple[str, ...]  # sorted
    holders: tuple[str, ...]  # sorted
    roles: tuple[str, ...]  # the preempted Workload's roles, in its order
    preemptor_roles: tuple[str, ...] | None = None  # None: the preemptor is not one of ours
    by_our_own: bool = False  # say that ours preempted ours (the target is the deployment)


@dataclass(frozen=True)
class QueueStanding:
    """What was read of the target's place in its ClusterQueue (visibility API and status)."""

    cq: str | None
    position: int | None  # 1-based; None = not listed or not read
    visibility: str  # listed | not-listed | not-served | not-read
    cq_pending: int | None  # the ClusterQueue's status.pendingWorkloads
    ahead_requests: dict[str, Fraction] | None = None  # what every Workload ahead asks together; None = unknown
    hypothetical: bool = False  # --what-if: no waiting advice


@dataclass(frozen=True)
class Findings:
    """What later steps found that applies to one base Reason (each part optional)."""

    role: str | None = None
    once_composed: bool = False
    pair: PairEffect | None = None
    standing: QueueStanding | None = None


def compose(base: Reason, found: Findings) -> Reason:
    """The final Reason: the base with the findings that apply to its code, by keyword, in the order above
    (the base itself when none applies: a Reason is frozen, so it can be shared)."""
    if not _applies(base, found):
        return base
    params: dict[str, Any] = dict(base.params)
    clauses: list[Say] = list(base.clauses)
    if found.once_composed:
        clauses.append(say("queue.blocks-once-composed"))
    if found.pair is not None and base.code == "Preempted":
        _pair(found.pair, params, clauses)
    hint = base.hint
    if found.standing is not None:
        if base.code == "WaitingInQueue":
            _standing(found.standing, params, clauses)
        hint = _wait_hint(base.hint, found.standing)
    return amended(base, role=base.role if base.role is not None else found.role, params=read_only(params),
                   clauses=tuple(clauses), hint=hint)


def _applies(base: Reason, found: Findings) -> bool:
    return (found.once_composed or (found.role is not None and base.role is None)
            or (found.pair is not None and base.code == "Preempted")
            or (found.standing is not None and (base.code == "WaitingInQueue"
                                                or (base.hint is not None and base.hint.id == "hint.wait"))))


def _pair(p: PairEffect, params: dict[str, Any], clauses: list[Say]) -> None:
    if p.preemptor_roles is not None:
        params["preemptorRoles"] = list(p.preemptor_roles)
        if p.by_our_own:
            clauses.append(say("preempted.by-our-own", roles=list(p.preemptor_roles)))
    params["lostRoles"] = list(p.lost)
    params["holdingRoles"] = list(p.holders)
    if p.holders:
        clauses.append(say("preempted.holders", holders=list(p.holders), lost=list(p.lost)))
    elif len(p.lost) > 1:
        clauses.append(say("preempted.all-lost", roles=list(p.roles)))


def _standing(s: QueueStanding, params: dict[str, Any], clauses: list[Say]) -> None:
    if s.position is not None and "position" not in params:
        params["position"] = s.position
        clauses.append(say("queue.position", position=s.position, cq=s.cq))
    if s.position is not None and s.ahead_requests:
        params["aheadRequests"] = dict(s.ahead_requests)
        clauses.append(say("queue.ahead-ask", requests=dict(s.ahead_requests)))


def _wait_hint(hint: Say | None, s: QueueStanding) -> Say | None:
    """WaitingInQueue's next step says only what was read: next in line, how many are ahead, or that the
    position is unknown (and why); never a queue the tool did not see."""
    if hint is None or hint.id != "hint.wait":
        return hint
    return None if s.hypothetical else say("hint.wait", cq=s.cq, position=s.position, visibility=s.visibility,
                                           cq_pending=s.cq_pending)


__all__ = ["Findings", "PairEffect", "QueueStanding", "compose"]
