"""`kubectl pd queues`: every ClusterQueue's figures (kueue/figures.py) as one document, sorted by name as kubectl
sorts; codes and quantities only (queues/words.py makes the screen)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.kueue import figures as fg
from kubectl_pd.kueue.model import ClusterQueue, Snapshot
from kubectl_pd.kueue.quantity import format_quantity


def _q(q: Fraction | None, resource: str) -> str | None:
    return None if q is None else format_quantity(q, resource)


def _row(r: fg.FlavorFigures) -> dict[str, Any]:
    res = r.resource
    return {"flavor": r.flavor, "resource": res, "nominal": _q(r.nominal, res), "used": _q(r.used, res),
            "reserved": _q(r.reserved, res), "borrowed": _q(r.borrowed, res), "lent": _q(r.lent, res),
            "lendable": _q(r.lendable, res), "free": _q(r.free, res),
            "borrowingLimit": _q(r.borrowing_limit, res), "lendingLimit": _q(r.lending_limit, res),
            "cohortFree": _q(r.cohort_free, res), "borrowable": _q(r.borrowable, res)}


def _state(cq: ClusterQueue) -> dict[str, Any]:
    active = cq.conditions.get("Active")
    stopped = cq.stop_policy not in (None, "None")
    return {"active": None if active is None else (active.true and not stopped),
            "reason": "Stopped" if stopped and (active is None or active.true) else (
                active.reason if active is not None and not active.true else None),
            "message": f"spec.stopPolicy {cq.stop_policy}" if stopped and (active is None or active.true) else (
                active.message if active is not None and not active.true else None),
            "stopPolicy": cq.stop_policy}


def document(snap: Snapshot, unread: list[tuple[str, str]]) -> dict[str, Any]:
    from kubectl_pd.contract import QUEUES

    rows = fg.figures(snap)
    queues = []
    unread = list(unread)
    for name in sorted(snap.cluster_queues):
        cq = snap.cluster_queues[name]
        unread += _unknown(cq)
        queues.append({"name": name, "cohort": cq.cohort, **_state(cq),
                       "pendingWorkloads": cq.pending_workloads, "reservingWorkloads": cq.reserving_workloads,
                       "admittedWorkloads": cq.admitted_workloads,
                       "flavors": [_row(r) for r in rows.get(name, ())
                                   if (r.flavor, r.resource) not in cq.usage_unknown]})
    doc: dict[str, Any] = {"schemaVersion": QUEUES, "clusterQueues": queues, "cohorts": _cohorts(snap),
                           "borrowing": [_flow(f) for f in fg.flows(snap, rows)],
                           "cohortsKnown": snap.peers_complete}
    if unread:
        doc["incomplete"] = [{"read": what, "error": why} for what, why in unread]
    return doc


def _unknown(cq: ClusterQueue) -> list[tuple[str, str]]:
    """The flavors of CQ whose figures are unknown (a quota of no size the engine can use, an unreadable usage):
    left out of its rows and said in `incomplete` (exit 1), never shown as 0."""
    from kubectl_pd.queues.words import unknown_figures

    out = [unknown_figures(cq.name, f.name, q.name, q.unknown)
           for g in cq.resource_groups for f in g.flavors for q in f.resources if q.unknown]
    out += [unknown_figures(cq.name, fl, res, ()) for fl, res in sorted(cq.usage_unknown)]
    return out


def _flow(f: fg.Flow) -> dict[str, Any]:
    return {"cohort": f.cohort, "flavor": f.flavor, "resource": f.resource, "attributed": f.attributed,
            "borrowers": [{"clusterQueue": q, "amount": _q(a, f.resource)} for q, a in f.borrowers],
            "lenders": [{"clusterQueue": q, "amount": _q(a, f.resource)} for q, a in f.lenders],
            "lent": _q(f.lent, f.resource), "cohortQuota": _q(f.cohort_quota, f.resource),
            "unattributed": _q(f.unattributed, f.resource)}


def _cohorts(snap: Snapshot) -> list[dict[str, Any]]:
    """Every cohort named by a queue or read as an object: its parent, child cohorts and member queues."""
    names = {cq.cohort for cq in snap.cluster_queues.values() if cq.cohort} | set(snap.cohorts)
    quota: dict[str, list[dict[str, Any]]] = {}
    for f in fg.cohort_figures(snap):
        quota.setdefault(f.cohort, []).append(_cohort_quota(f))
    out = []
    for name in sorted(names):
        c = snap.cohorts.get(name)
        entry: dict[str, Any] = {"name": name, "parent": c.parent if c is not None else None,
                 "cohorts": sorted(n for n, o in snap.cohorts.items() if o.parent == name),
                 "clusterQueues": sorted(q.name for q in snap.cluster_queues.values() if q.cohort == name)}
        if name in quota:
            entry["quota"] = quota[name]
        if snap.cycle_of(name) is not None:  # Kueue: "cohort has a cycle", every queue under it inactive
            entry["cycle"] = True
        out.append(entry)
    return out


def _cohort_quota(f: fg.CohortFigures) -> dict[str, Any]:
    res = f.resource
    return {"flavor": f.flavor, "resource": res, "nominal": _q(f.nominal, res), "subtree": _q(f.subtree, res),
            "used": _q(f.used, res), "free": _q(f.free, res), "lendingLimit": _q(f.lending_limit, res),
            "borrowingLimit": _q(f.borrowing_limit, res)}
