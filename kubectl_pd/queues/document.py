"""`kubectl pd queues -o json`: the document, built from the run's one record (queues/answer.py), never patched."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.contract import QUEUES
from kubectl_pd.kueue import figures as fg
from kubectl_pd.kueue.quantity import format_quantity
from kubectl_pd.pending.screen_words import incomplete
from kubectl_pd.queues.answer import Answer, Cohort, Queue
from kubectl_pd.queues.words import unread


def _q(q: Fraction | None, resource: str) -> str | None:
    return None if q is None else format_quantity(q, resource)


def to_dict(a: Answer) -> dict[str, Any]:
    doc: dict[str, Any] = {"schemaVersion": QUEUES, "clusterQueues": [_queue(q) for q in a.cluster_queues],
                           "cohorts": [_cohort(c) for c in a.cohorts], "borrowing": [_flow(f) for f in a.borrowing],
                           "cohortsKnown": a.cohorts_known}
    if a.unread or a.unknown:
        doc["incomplete"] = incomplete(unread(a))
    return doc


def _queue(q: Queue) -> dict[str, Any]:
    return {"name": q.name, "cohort": q.cohort, "active": q.active, "reason": q.reason, "message": q.message,
            "stopPolicy": q.stop_policy, "pendingWorkloads": q.pending_workloads,
            "reservingWorkloads": q.reserving_workloads, "admittedWorkloads": q.admitted_workloads,
            "flavors": [_row(r) for r in q.flavors]}


def _row(r: fg.FlavorFigures) -> dict[str, Any]:
    res = r.resource
    return {"flavor": r.flavor, "resource": res, "nominal": _q(r.nominal, res), "used": _q(r.used, res),
            "reserved": _q(r.reserved, res), "borrowed": _q(r.borrowed, res), "lent": _q(r.lent, res),
            "lendable": _q(r.lendable, res), "free": _q(r.free, res),
            "borrowingLimit": _q(r.borrowing_limit, res), "lendingLimit": _q(r.lending_limit, res),
            "cohortFree": _q(r.cohort_free, res), "borrowable": _q(r.borrowable, res)}


def _flow(f: fg.Flow) -> dict[str, Any]:
    return {"cohort": f.cohort, "flavor": f.flavor, "resource": f.resource, "attributed": f.attributed,
            "borrowers": [{"clusterQueue": q, "amount": _q(a, f.resource)} for q, a in f.borrowers],
            "lenders": [{"clusterQueue": q, "amount": _q(a, f.resource)} for q, a in f.lenders],
            "lent": _q(f.lent, f.resource), "cohortQuota": _q(f.cohort_quota, f.resource),
            "unattributed": _q(f.unattributed, f.resource)}


def _cohort(c: Cohort) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": c.name, "parent": c.parent, "cohorts": list(c.cohorts),
                             "clusterQueues": list(c.cluster_queues)}
    if c.quota:
        entry["quota"] = [_cohort_quota(f) for f in c.quota]
    if c.cycle:  # Kueue: "cohort has a cycle", every queue under it inactive
        entry["cycle"] = True
    return entry


def _cohort_quota(f: fg.CohortFigures) -> dict[str, Any]:
    res = f.resource
    return {"flavor": f.flavor, "resource": res, "nominal": _q(f.nominal, res), "subtree": _q(f.subtree, res),
            "used": _q(f.used, res), "free": _q(f.free, res), "lendingLimit": _q(f.lending_limit, res),
            "borrowingLimit": _q(f.borrowing_limit, res)}
