"""The capacity answer: one run's counts as one frozen record (codes, numbers and the engine's own records; no
English). capacity/document.py builds the -o json document from it, capacity/words.py writes the screen from it:
the headline (`Now:`), the preemption lines, `Next:`, the Nodes and each role's table come from this one record."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.capacity.gather import Capacity
    from kubectl_pd.create.flags import Role
    from kubectl_pd.create.preflight import CheckFinding

UNKNOWN = "QuotaUnknown"  # a stop at a quota or usage of no size the engine can compute with


@dataclass(frozen=True)
class ModeledOn:
    """A PD framework's role: the Workload its copy is modeled on, and how many of that role's were read."""

    role: str
    workload: str
    groups: int


@dataclass(frozen=True)
class Target:
    """What was weighed: a Request (create's flags), a PodGroup, a ModelDeployment or a PD framework's object
    (`workloads`: the Workloads its copy is modeled on; None: not a framework's)."""

    kind: str
    name: str | None
    namespace: str
    api_profile: str
    workloads: tuple[ModeledOn, ...] | None = None


@dataclass(frozen=True)
class RoleShape:
    """A role of the copy and the queues it goes to (None: unknown)."""

    name: str
    replicas: int
    size: int
    accelerator: int
    local_queue: str | None
    cluster_queue: str | None
    resource: str | None


@dataclass(frozen=True)
class Tally:
    """A count as the answer gives it: `now` None when none is known (a stop at a quota of unknown size before any
    copy was placed: unknown is never zero), `at_least` when it stopped at a limit or a deadline."""

    now: int | None
    at_least: bool
    by_borrowing: int | None
    within_nominal: int | None
    next: sim.Stop | None
    flavors: tuple[tuple[str, str, str, str], ...]  # the first copy's (workload, pod set, resource, flavor)


@dataclass(frozen=True)
class Answer:
    """The whole answer. `copies` None in `counted`: the copy could not be judged (see `findings`, `unread`)."""

    target: Target
    roles: tuple[RoleShape, ...]
    copies: Tally
    by_preemption: pe.PreemptCount | None
    per_role: tuple[tuple[str, Tally], ...]
    findings: tuple[CheckFinding, ...]
    weighed: bool  # the snapshot was read: whether the Nodes were weighed is part of the answer
    nodes: tuple[tuple[str, int], ...] | None  # each flavor's Nodes (0: not weighed); None: they could not be read
    by_pod_set_order: tuple[tuple[str, int], ...]  # each pod-set order's count, when they differ
    unread: tuple[tuple[str, str], ...]  # the reads that failed (what, why)
    timed_out: tuple[tuple[str | None, int], ...]  # the counts stopped at the deadline: (role or None, how many)
    unknown: sim.Stop | None  # the count stopped at a quota or usage of unknown size

    @property
    def complete(self) -> bool:
        """Every read made and every count finished (else `incomplete[]`, exit 1)."""
        return not (self.unread or self.timed_out or self.unknown)


WAITS = "waits-for-quota"  # create's check: "it will stay pending ... once quota frees"


def answer(target: Target, plan: Capacity, copies: sim.Count | None, preempting: pe.PreemptCount | None,
           per_role: dict[str, sim.Count], by_order: dict[str, int]) -> Answer:
    """The one record of a run; `copies` None: the copy could not be judged."""
    stop = copies.stop if copies else None
    unknown = stop if copies is not None and stop is not None and stop.code == UNKNOWN else None
    timed = [(None, copies), *per_role.items()]
    return Answer(
        target, tuple(_role(plan, r) for r in plan.roles), _copies(copies, preempting), preempting,
        tuple((name, _tally(c)) for name, c in per_role.items()),
        tuple(_findings(plan, [stop, *(c.stop for c in per_role.values())])),
        plan.snapshot is not None, _nodes(plan),
        tuple(by_order.items()) if len(set(by_order.values())) > 1 else (),
        tuple(plan.unread), tuple((role, c.now) for role, c in timed if c is not None and c.timed_out), unknown)


def _role(plan: Capacity, r: Role) -> RoleShape:
    return RoleShape(r.name, r.replicas, r.size or 1, r.accelerator, plan.local_queues.get(r.name),
                     plan.cluster_queues.get(r.name), plan.resources.get(r.name))


def _flavors(c: sim.Count) -> tuple[tuple[str, str, str, str], ...]:
    return c.placed[0].flavors if c.placed else ()


def _copies(c: sim.Count | None, preempting: pe.PreemptCount | None) -> Tally:
    """The copy's count: what stops the next copy is after the copies preemption admits, when those were judged;
    a stop at a quota of unknown size makes a count "at least" what was placed before it, or unknown."""
    if c is None:
        return Tally(None, False, None, None, None, ())
    nxt = preempting.stop if preempting is not None and preempting.stop is not None else c.stop
    if c.stop is not None and c.stop.code == UNKNOWN:
        if c.now:
            return Tally(c.now, True, c.by_borrowing, c.now - c.by_borrowing, nxt, _flavors(c))
        return Tally(None, c.capped, None, None, nxt, _flavors(c))
    return Tally(c.now, c.capped, c.by_borrowing, c.now - c.by_borrowing, nxt, _flavors(c))


def _tally(c: sim.Count) -> Tally:
    """A role's count alone; stopped at a quota of unknown size it is never a number of copies: `now` None when
    none was placed before it, else "at least" (unknown is never zero, issue 50 R6)."""
    unknown = c.stop is not None and c.stop.code == UNKNOWN
    if unknown and not c.now:
        return Tally(None, False, None, None, c.stop, ())
    return Tally(c.now, c.capped or unknown, c.by_borrowing, c.now - c.by_borrowing, c.stop, _flavors(c))


def _findings(plan: Capacity, stops: list[sim.Stop | None]) -> list[CheckFinding]:
    """The preflight's findings, but its "waits for quota" of a role no Node could ever run (that would say it
    fits once quota frees)."""
    never = {s.role for s in stops if s is not None and s.code == sim.NODE_CODE and s.never}
    return [f for f in plan.report.findings if not (f.check == WAITS and f.params.get("role") in never)]


def _nodes(plan: Capacity) -> tuple[tuple[str, int], ...] | None:
    """The Nodes each flavor of the copy's queues has (0: not weighed); None: they could not be read."""
    if plan.fit is None:
        return None
    return tuple((f, len(ns)) for f, ns in sorted(plan.fit.by_flavor.items()))
