"""What GPUStack's operator says of a whole deployment (the published `worker.gpustack.ai/v1` status), as reasons.

Every replica of every role is its own pod group (one Workload, one PodSet named by `kueue.x-k8s.io/role-hash`),
and the operator's admission check `gpustack-model-deployment-joint` holds every group until the whole set has
reserved quota; the other steps read those groups. This one reads the deployment's own verdict over all of
them: `status.phase`, `status.roleSummary`, `status.roles[]` and the `QuotaReserved` condition, whose reasons
(gpustack-operator docs/modules/model-deployment/status.md) each become a code of ours with its remedy.

Pure: the ModelDeployment in, reasons and a note out. An absent or unreadable field is said to be unknown, never
read as zero (status.md: an absent `quotaReserved` means the operator could not see, not "none").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_pd.kueue.model import conditions_of, to_int
from kubectl_pd.pending.model import Reason, read_only
from kubectl_pd.pending.say import PartlyPreempted, Say, say

if TYPE_CHECKING:
    from kubectl_pd.registry import ReasonCode

Obj = dict[str, Any]

# QuotaReserved reasons of the operator -> our code. ALWAYS: a verdict over the whole set that no Workload
# carries. FALLBACK: what our own reading of the Workloads and Pods says too, with the role and the numbers, so
# the operator's word is used only when ours found nothing of that code. Reserved and Pending add nothing: the
# Workloads' own reasons say which replicas wait and why (and the operator's message stays a note).
ALWAYS: dict[str, ReasonCode] = {
    "PreemptedInPart": "PreemptedInPart",
    "Parked": "Parked",
    "NoQueueInReservedNamespace": "NoQueueInReservedNamespace",
    "AllReplicasTerminating": "AllReplicasTerminating",
}
FALLBACK: dict[str, ReasonCode] = {"PodGroupIncomplete": "PodGroupIncomplete", "NoReplicas": "PodGroupIncomplete",
            "AdmissionInFlight": "WorkloadMissing"}
KNOWN = ("Reserved", "Pending", *ALWAYS, *FALLBACK)


def _d(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def is_v1(md: Obj | None) -> bool:
    return str(_d(md).get("apiVersion") or "").endswith("/v1")


def status_note(md: Obj | None) -> list[Say]:
    """The deployment's phase and ready summary (`1R3P4D`), when the operator wrote either."""
    st = _d(_d(md).get("status"))
    phase, summary = _s(st.get("phase")), _s(st.get("roleSummary"))
    if phase is None and summary is None:
        return []
    return [say("note.deployment", phase=phase, summary=summary, message=_s(st.get("phaseMessage")),
                roles=role_status(md))]


def role_status(md: Obj | None) -> list[dict[str, Any]]:
    """`status.roles[]`: name, kind, desired, ready, quotaReserved (None when absent: unknown), flavors."""
    out = []
    for r in _d(_d(md).get("status")).get("roles") or []:
        r = _d(r)
        if not _s(r.get("name")):
            continue
        flavors = r.get("assignedFlavors")
        out.append({"name": r["name"], "kind": _s(r.get("kind")), "desired": to_int(r.get("desired")),
                    "ready": to_int(r.get("ready")), "quotaReserved": to_int(r.get("quotaReserved")),
                    "assignedFlavors": [f for f in flavors if isinstance(f, str)] if isinstance(flavors, list)
                    else []})
    return out


def operator_reasons(md: Obj | None, ours: list[Reason]) -> list[Reason]:
    """The QuotaReserved reason as a code of ours; Pending and PodGroupIncomplete only when our own reading of the
    Workloads found no reason of that kind (ours names the role, the flavor and the numbers)."""
    c = conditions_of(md).get("QuotaReserved")
    if c is None or c.reason in ("", "Reserved", "Pending") or c.true:
        return []
    ns, name = _d(_d(md).get("metadata")).get("namespace"), _d(_d(md).get("metadata")).get("name")
    params: dict[str, Any] = {"operatorReason": c.reason, "status": c.status, "message": c.message}
    if c.reason in ALWAYS:
        code = ALWAYS[c.reason]
        extra = _preempted_in_part(md) if code == "PreemptedInPart" else {}
        params.update(extra)
        part = PartlyPreempted(**extra) if extra else None
        return [Reason(code, say("operator.reason", code=code, md=name, ns=ns, message=c.message, part=part),
                       hint=say("next.operator-reason", code=code, md=name, ns=ns, part=part),
                       params=read_only(params))]
    if c.reason in FALLBACK:
        code = FALLBACK[c.reason]
        if any(r.code == code for r in ours):
            return []
        return [Reason(code, say("operator.said", reason=c.reason, message=c.message),
                       hint=say("next.operator-reason", code=c.reason, md=name, ns=ns), params=read_only(params))]
    return [Reason("Unknown", say("operator.said", reason=c.reason, message=c.message), params=read_only(params))]


def _preempted_in_part(md: Obj | None) -> dict[str, Any]:
    """Who still holds quota (role -> replicas), on which queues (each role's instanceType names its
    ClusterQueue), and the kinds that lost every replica. A role whose `quotaReserved` is absent is unknown: it is
    in neither list, and its kind is not said to be lost."""
    spec_roles = {_d(r).get("name"): _d(r) for r in _d(_d(md).get("spec")).get("roles") or []}
    held: dict[str, int] = {}
    kinds_held: dict[str, bool | None] = {}  # kind -> some replica holds quota; None: a count of it is unknown
    for r in role_status(md):
        n, kind = r["quotaReserved"], (r["kind"] or _s(spec_roles.get(r["name"], {}).get("kind")) or "Server")
        if n is None:
            kinds_held[kind] = kinds_held.get(kind) or None
            continue
        if n > 0:
            held[r["name"]] = n
        before = kinds_held.get(kind, False)
        kinds_held[kind] = True if n > 0 or before is True else before
    lost_kinds = sorted(k for k, any_held in kinds_held.items() if any_held is False)
    queues = sorted({str(spec_roles[r].get("instanceType")) for r in held
                     if _s(spec_roles.get(r, {}).get("instanceType"))})
    return {"held": held, "queues": queues, "lost_kinds": lost_kinds}
