"""The JSON Schema of why-pending's `multikueue` block (contract 1.4), used by kubectl_pd/agent/schemas.py."""

from __future__ import annotations

from typing import Any

from kubectl_pd.multikueue.codes import CODES, STATES


def multikueue(reason: dict[str, Any]) -> dict[str, Any]:
    """REASON: the schema of the engine's reason (a worker copy's own reasons use it)."""
    from kubectl_pd.agent.schemas import NS, OPEN, S, closed

    nb: dict[str, Any] = {"type": ["boolean", "null"]}
    finding = closed({"code": {"enum": sorted(CODES)}, "message": S,
                      "params": {**OPEN, "description": "the finding's evidence as data"}})
    worker = closed({
        "cluster": S, "context": {**NS, "description": "the kubeconfig context read (null: none)"},
        "read": {"enum": ["read", "no-context", "unreachable", "forbidden", "not-nominated"]},
        "nominated": {"type": "boolean"}, "connected": {**nb, "description": "its MultiKueueCluster's Active"},
        "pending": {**nb, "description": "its copy waits; null: not known (not read, or no copy)"},
        "reasons": {"type": "array", "items": {"oneOf": [finding, reason]}}})
    return {**closed({"admissionCheck": S, "state": {"enum": list(STATES)}, "message": S, "dispatchedTo": NS,
                      "nominated": {"type": "array", "items": S}, "reasons": {"type": "array", "items": finding},
                      "workers": {"type": "array", "items": worker}}),
            "description": "present when the target's Workload waits on a MultiKueue admission check "
                           "(docs/multikueue.md): the manager's state, then each worker as read"}
