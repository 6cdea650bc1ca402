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

from kubectl_pd.gpustack.model import ModelDeployment, SpecRole
from kubectl_pd.pending.model import Reason, read_only
from kubectl_pd.pending.say import PartlyPreempted, Say, say

if TYPE_CHECKING:
    from kubectl_pd.registry import ReasonCode

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
# NoReplicas (the operator created no replica, e.g. while its weights are held back) is not an incomplete group:
# pending/operator.py answers it (WeightsNotReady or ReplicasNotCreated) before this module is asked.
FALLBACK: dict[str, ReasonCode] = {"PodGroupIncomplete": "PodGroupIncomplete", "AdmissionInFlight": "WorkloadMissing"}
KNOWN = ("Reserved", "Pending", "NoReplicas", *ALWAYS, *FALLBACK)


def is_v1(md: ModelDeployment | None) -> bool:
    return md is not None and md.is_v1


def with_status(md: ModelDeployment | None) -> ModelDeployment | None:
    """The deployment when the operator wrote its phase, ready summary or conditions (shown in -o json as
    `deployment`): v1alpha1 and v1 alike, the operator writes one status struct for both."""
    if md is None:
        return None
    return md if md.phase or md.role_summary is not None or md.conditions else None


def status_note(md: ModelDeployment | None) -> list[Say]:
    """The deployment's phase and ready summary (`1R3P4D`), when the operator wrote either."""
    if md is None:
        return []
    phase, summary = md.phase or None, md.role_summary
    if phase is None and summary is None:
        return []
    return [say("note.deployment", phase=phase, summary=summary, message=md.phase_message, roles=role_status(md))]


def role_status(md: ModelDeployment | None) -> list[dict[str, Any]]:
    """`status.roles[]`: name, kind, desired, ready, quotaReserved (None when absent: unknown), flavors."""
    return [{"name": r.name, "kind": r.kind, "desired": r.desired, "ready": r.ready, "quotaReserved": r.quota_reserved,
             "assignedFlavors": list(r.assigned_flavors)} for r in (md.status_roles if md is not None else ())]


def operator_reasons(md: ModelDeployment | None, ours: list[Reason]) -> list[Reason]:
    """The QuotaReserved reason as a code of ours; Pending and PodGroupIncomplete only when our own reading of the
    Workloads found no reason of that kind (ours names the role, the flavor and the numbers)."""
    c = md.conditions.get("QuotaReserved") if md is not None else None
    if md is None or c is None or c.reason in ("", "Reserved", "Pending", "NoReplicas") or c.true:
        return []
    ns, name = md.namespace, md.name or None
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


def _preempted_in_part(md: ModelDeployment) -> dict[str, Any]:
    """Who still holds quota (role -> replicas), on which queues (each role's instanceType names its
    ClusterQueue), and the kinds that lost every replica. A role whose `quotaReserved` is absent is unknown: it is
    in neither list, and its kind is not said to be lost."""
    spec_roles: dict[str | None, SpecRole] = {r.name: r for r in md.roles}
    held: dict[str, int] = {}
    kinds_held: dict[str, bool | None] = {}  # kind -> some replica holds quota; None: a count of it is unknown
    for r in md.status_roles:
        spec_role = spec_roles.get(r.name)
        n, kind = r.quota_reserved, (r.kind or (spec_role.kind if spec_role is not None else None) or "Server")
        if n is None:
            kinds_held[kind] = kinds_held.get(kind) or None
            continue
        if n > 0:
            held[r.name] = n
        before = kinds_held.get(kind, False)
        kinds_held[kind] = True if n > 0 or before is True else before
    lost_kinds = sorted(k for k, any_held in kinds_held.items() if any_held is False)
    queues = sorted({t for r in held if (t := _instance_type(spec_roles.get(r)))})
    return {"held": held, "queues": queues, "lost_kinds": lost_kinds}


def _instance_type(role: SpecRole | None) -> str | None:
    return role.instance_type or None if role is not None else None
