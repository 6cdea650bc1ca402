"""The capacity answer: the counts of one run as one document (codes and numbers; the English is in
capacity/words.py). `-o json` prints it; the text screen, the MCP tool and the tests read the same dict."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.gather import Capacity
from kubectl_pd.kueue.quantity import format_quantity

KIND_REQUEST = "Request"  # the shape given by flags (nothing read from the cluster for it)


def _q(q: Fraction | None, resource: str | None) -> str | None:
    return None if q is None else format_quantity(q, resource or "")


def stop_doc(s: sim.Stop | None) -> dict[str, Any] | None:
    if s is None:
        return None
    doc = {"code": s.code, "never": s.never, "clusterQueue": s.cluster_queue, "workload": s.workload,
           "podSet": s.pod_set or None, "role": s.role, "flavor": s.flavor, "resource": s.resource,
           "requested": _q(s.requested, s.resource), "available": _q(s.available, s.resource),
           "capacity": _q(s.capacity, s.resource), "shortfall": _q(s.needed, s.resource)}
    if s.code == sim.NODE_CODE:  # the Pods no Node holds: the largest Node (capacity: its allocatable), how many
        doc.update(node=s.node, nodes=s.nodes)
    return doc


def _copy_flavors(c: sim.Placed) -> list[dict[str, str]]:
    return [{"workload": w, "podSet": p, "resource": r, "flavor": f} for w, p, r, f in c.flavors]


def count_doc(c: sim.Count) -> dict[str, Any]:
    """One count's keys; a count that stops at a quota of unknown size is never a number of copies: `now` null when
    none was placed before it, else `atLeast` (unknown is never zero, issue 50 R6)."""
    unknown = c.stop is not None and c.stop.code == "QuotaUnknown"
    if unknown and not c.now:
        return {"now": None, "atLeast": False, "byBorrowing": None, "withinNominal": None, "next": stop_doc(c.stop),
                "flavors": []}
    return {"now": c.now, "atLeast": c.capped or unknown, "byBorrowing": c.by_borrowing,
            "withinNominal": c.now - c.by_borrowing, "next": stop_doc(c.stop),
            "flavors": _copy_flavors(c.placed[0]) if c.placed else []}


def preempt_doc(p: pe.PreemptCount | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"count": len(p.copies), "atLeast": p.capped, "unknown": p.unknown, "reason": p.reason,
            "copies": [{"targets": [{"namespace": v.namespace, "name": v.name, "clusterQueue": v.cluster_queue,
                                     "priority": v.priority, "reason": v.reason} for v in c.targets],
                        "borrows": c.borrows} for c in p.copies],
            "next": stop_doc(p.stop)}


def nodes_doc(plan: Capacity) -> list[dict[str, Any]] | None:
    """The Nodes each flavor of the copy's queues has (0: not weighed); None: they could not be read."""
    if plan.fit is None:
        return None
    return [{"flavor": f, "nodes": len(ns)} for f, ns in sorted(plan.fit.by_flavor.items())]


WAITS = "waits-for-quota"  # create's check: "it will stay pending ... once quota frees"


def _findings(plan: Capacity, stops: list[sim.Stop | None]) -> list[Any]:
    """The preflight's findings, but its "waits for quota" of a role no Node could ever run (that would say it
    fits once quota frees)."""
    never = {s.role for s in stops if s is not None and s.code == sim.NODE_CODE and s.never}
    return [f for f in plan.report.findings if not (f.check == WAITS and f.params.get("role") in never)]


def _next(copies: sim.Count | None, preempting: pe.PreemptCount | None) -> sim.Stop | None:
    """What stops the next copy: after the copies preemption admits, when those were judged; else after now."""
    if copies is None:
        return None
    if preempting is not None and preempting.stop is not None:
        return preempting.stop
    return copies.stop


def document(target: dict[str, Any], plan: Capacity, copies: sim.Count | None, preempting: pe.PreemptCount | None,
             per_role: dict[str, sim.Count]) -> dict[str, Any]:
    """The whole answer; `copies` None: the copy could not be judged (see `findings` and `incomplete`)."""
    from kubectl_pd.contract import CAPACITY

    roles = [{"name": r.name, "replicas": r.replicas, "size": r.size or 1, "accelerator": r.accelerator,
              "localQueue": plan.local_queues.get(r.name), "clusterQueue": plan.cluster_queues.get(r.name),
              "resource": plan.resources.get(r.name)} for r in plan.roles]
    doc: dict[str, Any] = {
        "schemaVersion": CAPACITY, "target": target, "roles": roles,
        "now": copies.now if copies else None,
        "atLeast": copies.capped if copies else False,
        "byBorrowing": copies.by_borrowing if copies else None,
        "withinNominal": (copies.now - copies.by_borrowing) if copies else None,
        "byPreemption": preempt_doc(preempting),
        "next": stop_doc(_next(copies, preempting)),
        "flavors": _copy_flavors(copies.placed[0]) if copies and copies.placed else [],
        "perRole": [{"role": name, **count_doc(c)} for name, c in per_role.items()],
        "findings": [{"severity": f.severity, "check": f.check, "message": f.message}
                     for f in _findings(plan, [copies.stop if copies else None, *(c.stop for c in per_role.values())])],
    }
    if plan.snapshot is not None:
        doc["nodes"] = nodes_doc(plan)
    unread = list(plan.unread)
    timed = [(None, copies), *per_role.items()]
    for role, c in timed:  # "at least": a count stopped at the run's deadline, said as such (exit 1)
        if c is not None and c.timed_out:
            from kubectl_pd.capacity.simulate import DEFAULT_DEADLINE_S
            from kubectl_pd.capacity.words import timed_out

            unread.append(timed_out(c.now, DEFAULT_DEADLINE_S, role))
    stop = copies.stop if copies else None
    if copies is not None and stop is not None and stop.code == "QuotaUnknown":  # unknown is never a count of 0
        from kubectl_pd.capacity.words import unknown_size

        if copies.now:
            doc["atLeast"] = True
        else:
            doc.update(now=None, byBorrowing=None, withinNominal=None)
        unread.append(unknown_size(stop.cluster_queue, stop.flavor, stop.resource))
    if unread:
        doc["incomplete"] = [{"read": what, "error": why} for what, why in unread]
    return doc
