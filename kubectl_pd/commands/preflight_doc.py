"""The document of `kubectl pd create ... --preflight -o json|yaml`: what create would write and what the checks
against the cluster found, written by no one (the contract: kubectl_pd/contract.py, docs/schema/preflight.json).

Keys: schemaVersion; target {name, namespace, kind, apiProfile}; wouldCreate (create would write it: no error,
or only forceable ones with --force); findings [{severity, check, message, forceable, params}], in the order the
checks ran; queues {role: LocalQueue}; preemption and holders as why-pending gives them (who admitting it would
preempt); manifest (the object create would POST, or a List of the Pods of --target pods)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.contract import PREFLIGHT
from kubectl_pd.create.preflight import CheckFinding, Preflight
from kubectl_pd.kueue.quantity import format_quantity


def document(name: str, namespace: str, kind: str, profile: str, report: Preflight, force: bool,
             manifest: dict[str, Any]) -> dict[str, Any]:
    from kubectl_pd.pending.preempt_render import to_json

    return {
        "schemaVersion": PREFLIGHT,
        "target": {"kind": kind, "name": name, "namespace": namespace, "apiProfile": profile},
        "wouldCreate": not report.errors(force),
        "findings": [_finding(f, report.covered) for f in report.findings],
        "queues": dict(report.queues),
        **to_json(report.preemption),
        "manifest": manifest,
    }


def _finding(f: CheckFinding, covered: dict[str, str]) -> dict[str, Any]:
    resource = covered.get(str(f.params.get("role", "")), "")
    return {"severity": f.severity, "check": f.check, "message": f.message, "forceable": f.forceable,
            "params": {k: _plain(v, resource) for k, v in f.params.items()}}


def _plain(v: Any, resource: str) -> Any:
    if isinstance(v, Fraction):
        return format_quantity(v, resource)
    if isinstance(v, dict):
        return {str(k): _plain(x, resource) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x, resource) for x in v]
    return v
