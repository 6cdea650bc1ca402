"""`kubectl pd capacity -o json`: the document, built from the run's one record (capacity/answer.py), never
patched; the MCP tool reads the same document."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.answer import Answer, Tally, Target
from kubectl_pd.capacity.words import unread
from kubectl_pd.contract import CAPACITY
from kubectl_pd.kueue.quantity import format_quantity
from kubectl_pd.pending.screen_words import incomplete


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


def _flavors(t: Tally) -> list[dict[str, str]]:
    return [{"workload": w, "podSet": p, "resource": r, "flavor": f} for w, p, r, f in t.flavors]


def _tally(t: Tally) -> dict[str, Any]:
    return {"now": t.now, "atLeast": t.at_least, "byBorrowing": t.by_borrowing, "withinNominal": t.within_nominal}


def _preempt(p: pe.PreemptCount | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"count": len(p.copies), "atLeast": p.capped, "unknown": p.unknown, "reason": p.reason,
            "copies": [{"targets": [{"namespace": v.namespace, "name": v.name, "clusterQueue": v.cluster_queue,
                                     "priority": v.priority, "reason": v.reason} for v in c.targets],
                        "borrows": c.borrows} for c in p.copies],
            "next": stop_doc(p.stop)}


def _target(t: Target) -> dict[str, Any]:
    doc: dict[str, Any] = {"kind": t.kind, "name": t.name, "namespace": t.namespace, "apiProfile": t.api_profile}
    if t.workloads is not None:
        doc["workloads"] = [{"role": w.role, "workload": w.workload, "groups": w.groups} for w in t.workloads]
    return doc


def to_dict(a: Answer) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schemaVersion": CAPACITY, "target": _target(a.target),
        "roles": [{"name": r.name, "replicas": r.replicas, "size": r.size, "accelerator": r.accelerator,
                   "localQueue": r.local_queue, "clusterQueue": r.cluster_queue, "resource": r.resource}
                  for r in a.roles],
        **_tally(a.copies),
        "byPreemption": _preempt(a.by_preemption),
        "next": stop_doc(a.copies.next),
        "flavors": _flavors(a.copies),
        "perRole": [{"role": name, **_tally(t), "next": stop_doc(t.next), "flavors": _flavors(t)}
                    for name, t in a.per_role],
        "findings": [{"severity": f.severity, "check": f.check, "message": f.message} for f in a.findings],
    }
    if a.weighed:
        doc["nodes"] = None if a.nodes is None else [{"flavor": f, "nodes": n} for f, n in a.nodes]
    if not a.complete:
        doc["incomplete"] = incomplete(unread(a))
    if a.by_pod_set_order:
        doc["byPodSetOrder"] = dict(a.by_pod_set_order)
    return doc
