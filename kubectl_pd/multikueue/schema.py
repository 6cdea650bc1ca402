"""The JSON Schema of why-pending's `multikueue` block (contract 1.4; 1.5: the list's brief form), used by
kubectl_pd/agent/schemas.py."""

from __future__ import annotations

from typing import Any

from kubectl_pd.multikueue.codes import CODES, STATES, STEPS


def multikueue(reason: dict[str, Any], preemption: dict[str, Any], holders: dict[str, Any],
               preempted_by: dict[str, Any]) -> dict[str, Any]:
    """REASON: the schema of the engine's reason (a worker copy's own reasons use it); PREEMPTION, HOLDERS and
    PREEMPTED_BY: the single-cluster answer's keys (a worker's own preemption part uses them)."""
    from kubectl_pd.output.schema_parts import NS, OPEN, S, closed

    nb: dict[str, Any] = {"type": ["boolean", "null"]}
    finding = closed({"code": {"enum": sorted(CODES)}, "message": S,
                      "params": {**OPEN, "description": "the finding's evidence as data"}})
    worker = closed({
        "cluster": S, "context": {**NS, "description": "the kubeconfig context read (null: none)"},
        "read": {"enum": ["read", "no-context", "unreachable", "forbidden", "not-nominated"]},
        "nominated": {"type": "boolean"}, "connected": {**nb, "description": "its MultiKueueCluster's Active"},
        "pending": {**nb, "description": "its copy waits; null: not known (not read, or no copy)"},
        "reasons": {"type": "array", "items": {"oneOf": [finding, reason]}},
        "preemption": {**preemption, "description": "whom admission on this worker would preempt, from its own "
                                                    "Kueue configuration and admitted Workloads (1.6); "
                                                    + preemption["description"]},
        "holders": {**holders, "description": "the admitted Workloads holding the quota the copy waits for on this "
                                              "worker (1.6)"},
        "preemptedBy": {**preempted_by, "description": "who preempted the copy on this worker (1.6)"}},
        ["cluster", "context", "read", "nominated", "connected", "pending", "reasons", "preemption"])
    step = closed({"code": {"enum": list(STEPS)}, "message": S,
                   "params": {**OPEN, "description": "the step's values: worker {cluster, reason}, worker-fits "
                                                     "{cluster, roles}, release {namespace, workload}, wait {check}"}})
    whole = {**closed({"admissionCheck": S, "state": {"enum": list(STATES)}, "message": S, "dispatchedTo": NS,
                       "nominated": {"type": "array", "items": S}, "reasons": {"type": "array", "items": finding},
                       "workers": {"type": "array", "items": worker},
                       "next": {"type": "array", "items": step,
                                "description": "what to do, from the same workers as the table (1.8): the text "
                                               "block's `next:` lines, as data"}},
                      ["admissionCheck", "state", "message", "dispatchedTo", "nominated", "reasons", "workers"]),
             "description": "a TARGET's answer, when its Workload waits on a MultiKueue admission check "
                            "(docs/multikueue.md): the manager's state, then each worker as read"}
    brief = {**closed({"workloads": {"type": "array", "items": closed({
        "name": S, "dispatchedTo": {**NS, "description": "status.clusterName: the worker that admitted it"},
        "nominated": {"type": "array", "items": S, "description": "status.nominatedClusterNames"}})}}),
             "description": "a list item (no TARGET, 1.5): where the manager's Workloads went, from them alone "
                            "(no worker read)"}
    return {"oneOf": [whole, brief], "description": "present when a Workload of the target names a MultiKueue "
                                                    "worker, or (a TARGET) waits on a MultiKueue admission check"}
