"""`kubectl pd tree`: how a deployment hangs together, as plain data (pure: Facts and Events in, a dict out).

ModelDeployment (or the pod group, with no deployment) -> replica groups (one per Kueue pod group: one for
the seed's pd-atomic deployment, one per replica for GPUStack's v1) -> the group's Workload (state, queue,
flavors) -> its Pods (phase, node, scheduling gates); every node carries the newest Event about its object.
Codes and values only: pending/tree_render.py makes the text.
"""

from __future__ import annotations

from typing import Any

from kubectl_pd import kube
from kubectl_pd.kueue.model import Workload
from kubectl_pd.pending.gather import Facts
from kubectl_pd.pending.roles import labelled_role


def workload_state(wl: Workload) -> str:
    """finished | admitted | quota-reserved | evicted | inactive | pending (the first that holds)."""
    if wl.finished:
        return "finished"
    if wl.admitted:
        return "admitted"
    if wl.reserved:
        return "quota-reserved"
    if not wl.active:
        return "inactive"
    evicted = wl.condition("Evicted")
    if evicted is not None and evicted.true:
        return "evicted"
    return "pending"


def newest_events(events: list[kube.Event]) -> dict[tuple[str, str], kube.Event]:
    """(kind, name) of an involved object -> its newest Event (by last time, then first, then creation)."""
    out: dict[tuple[str, str], kube.Event] = {}
    for e in events:
        if e.involved_kind is None and e.involved_name is None:
            continue
        key = (e.involved_kind or "", e.involved_name or "")
        if key not in out or e.when >= out[key].when:
            out[key] = e
    return out


def _event(newest: dict[tuple[str, str], kube.Event], kind: str, name: str) -> dict[str, Any] | None:
    e = newest.get((kind, name))
    if e is None:
        return None
    return {"type": e.type, "reason": e.reason, "message": e.message, "time": e.when or None, "count": e.count}


def build(facts: Facts, events: list[kube.Event]) -> dict[str, Any]:
    """The tree of the target the facts were read for."""
    newest = newest_events(events)
    groups = list(dict.fromkeys([*facts.groups, *(g for g in (facts.group_of(p) for p in facts.pods) if g)]))
    children = [_group(facts, g, newest) for g in groups]
    loose = [p for p in facts.pods if not facts.group_of(p)]
    if loose and not groups:  # a Pod of no group (its own Workload, by job UID)
        children = [_group(facts, name, newest, loose) for name in facts.workloads] or \
            [{"kind": "ReplicaGroup", "name": None, "roles": [], "workload": None,
              "pods": [_pod(facts, p, newest) for p in loose]}]
    md = facts.deployment
    t = facts.target
    root: dict[str, Any] = {"kind": "ModelDeployment" if md is not None else t.kind,
                            "name": md.name if md is not None else t.name, "namespace": t.namespace}
    if md is not None:
        root["phase"] = md.phase
        root["apiVersion"] = md.api_version
        root["event"] = _event(newest, "ModelDeployment", md.name)
    root["groups"] = children
    return root


def _group(facts: Facts, group: str, newest: dict[tuple[str, str], kube.Event],
           pods: list[kube.Pod] | None = None) -> dict[str, Any]:
    members = pods if pods is not None else [p for p in facts.pods if facts.group_of(p) == group]
    members = sorted(members, key=lambda p: p.name)
    roles = list(dict.fromkeys(r for r in (labelled_role(p.labels) for p in members) if r))
    return {"kind": "ReplicaGroup", "name": group, "roles": roles, "workload": _workload(facts, group, newest),
            "pods": [_pod(facts, p, newest) for p in members]}


def _workload(facts: Facts, group: str, newest: dict[tuple[str, str], kube.Event]) -> dict[str, Any] | None:
    """The group's Workload; `state` "missing" when read and absent, "unknown" when its read failed."""
    if group not in facts.workloads:
        return {"name": group, "state": "unknown", "localQueue": None, "clusterQueue": None, "flavors": [],
                "event": None}
    wl = facts.workloads[group]
    if wl is None:
        return {"name": group, "state": "missing", "localQueue": None, "clusterQueue": None, "flavors": [],
                "event": None}
    cq = wl.cluster_queue
    lq = facts.local_queues.get(wl.queue_name) if wl.queue_name else None
    if cq is None and lq is not None:
        cq = lq.cluster_queue
    flavors = list(dict.fromkeys(f for psa in wl.admission for f in psa.flavors.values()))
    return {"name": wl.name, "state": workload_state(wl), "localQueue": wl.queue_name, "clusterQueue": cq,
            "flavors": flavors, "event": _event(newest, "Workload", wl.name)}


def _pod(facts: Facts, p: kube.Pod, newest: dict[tuple[str, str], kube.Event]) -> dict[str, Any]:
    gates = [g for g in p.gate_names if g]
    return {"name": p.name, "role": labelled_role(p.labels), "phase": p.phase, "node": p.node_name,
            "gates": gates, "deleting": p.deleting, "event": _event(newest, "Pod", p.name)}
