"""`kubectl pd queues`: every ClusterQueue's figures (kueue/figures.py) as one frozen record, sorted by name as
kubectl sorts; codes and quantities only. queues/document.py builds the -o json document from it, queues/words.py
writes the screen from the same record."""

from __future__ import annotations

from kubectl_pd.kueue import figures as fg
from kubectl_pd.kueue.model import ClusterQueue, Snapshot
from kubectl_pd.records import dataclass


@dataclass(frozen=True)
class Queue:
    """One ClusterQueue: its state (`active` None: no Active condition read) and its flavors' figures (a flavor of
    unknown figures left out, and said in the answer's `incomplete`)."""

    name: str
    cohort: str | None
    active: bool | None
    reason: str | None
    message: str | None
    stop_policy: str | None
    pending_workloads: int | None
    reserving_workloads: int | None
    admitted_workloads: int | None
    flavors: tuple[fg.FlavorFigures, ...]


@dataclass(frozen=True)
class Cohort:
    """A cohort named by a queue or read as an object: its parent, child cohorts, member queues, its own quota
    (none: it has none) and whether its parent chain loops (Kueue: "cohort has a cycle")."""

    name: str
    parent: str | None
    cohorts: tuple[str, ...]
    cluster_queues: tuple[str, ...]
    quota: tuple[fg.CohortFigures, ...]
    cycle: bool


@dataclass(frozen=True)
class Unknown:
    """A flavor of a ClusterQueue whose figures are unknown: FIELDS, its quota fields of no size the engine can
    compute with; none: its usage could not be read. Left out of the queue's rows, never shown as 0."""

    cluster_queue: str
    flavor: str
    resource: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    """The run's one record: the table, the cohort tree, who borrows from whom, and what is unknown (exit 1):
    the lists that failed (`unread`: what, the error) and the flavors of unknown figures (`unknown`)."""

    cluster_queues: tuple[Queue, ...]
    cohorts: tuple[Cohort, ...]
    borrowing: tuple[fg.Flow, ...]
    cohorts_known: bool
    unread: tuple[tuple[str, str], ...]
    unknown: tuple[Unknown, ...]


def answer(snap: Snapshot, unread: list[tuple[str, str]]) -> Answer:
    rows = fg.figures(snap)
    queues = []
    unknown: list[Unknown] = []
    for name in sorted(snap.cluster_queues):
        cq = snap.cluster_queues[name]
        unknown += _unknown(cq)
        queues.append(Queue(name, cq.cohort, *_state(cq), cq.pending_workloads, cq.reserving_workloads,
                            cq.admitted_workloads,
                            tuple(r for r in rows.get(name, ()) if (r.flavor, r.resource) not in cq.usage_unknown)))
    return Answer(tuple(queues), _cohorts(snap), fg.flows(snap, rows), snap.peers_complete, tuple(unread),
                  tuple(unknown))


def _state(cq: ClusterQueue) -> tuple[bool | None, str | None, str | None, str | None]:
    """(active, reason, message, stopPolicy): a stopPolicy stops an active queue."""
    active = cq.conditions.get("Active")
    stopped = cq.stop_policy not in (None, "None")
    if stopped and (active is None or active.true):
        return False if active is not None else None, "Stopped", f"spec.stopPolicy {cq.stop_policy}", cq.stop_policy
    if active is not None and not active.true:
        return False, active.reason, active.message, cq.stop_policy
    return None if active is None else True, None, None, cq.stop_policy


def _unknown(cq: ClusterQueue) -> list[Unknown]:
    """The flavors of CQ whose figures are unknown (a quota of no size the engine can use, an unreadable usage):
    left out of its rows and said in `incomplete` (exit 1), never shown as 0."""
    out = [Unknown(cq.name, f.name, q.name, tuple(q.unknown))
           for g in cq.resource_groups for f in g.flavors for q in f.resources if q.unknown]
    out += [Unknown(cq.name, fl, res, ()) for fl, res in sorted(cq.usage_unknown)]
    return out


def _cohorts(snap: Snapshot) -> tuple[Cohort, ...]:
    names = {cq.cohort for cq in snap.cluster_queues.values() if cq.cohort} | set(snap.cohorts)
    quota: dict[str, list[fg.CohortFigures]] = {}
    for f in fg.cohort_figures(snap):
        quota.setdefault(f.cohort, []).append(f)
    out = []
    for name in sorted(names):
        c = snap.cohorts.get(name)
        out.append(Cohort(name, c.parent if c is not None else None,
                          tuple(sorted(n for n, o in snap.cohorts.items() if o.parent == name)),
                          tuple(sorted(q.name for q in snap.cluster_queues.values() if q.cohort == name)),
                          tuple(quota.get(name, ())), snap.cycle_of(name) is not None))
    return tuple(out)
