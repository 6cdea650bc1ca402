"""What GPUStack's operator says of a deployment besides QuotaReserved, as reasons and notes with codes.

The operator writes one status struct for `v1alpha1` and `v1` alike (`v1` re-declares the v1alpha1 type:
api/worker/v1/model_deployment.go@a916db4e), so everything here reads both versions:
- `WeightsReady=False`: the deployment waits for its model weights. With a reason that blocks (the artifact is
  missing or unresolved, a claim unbound, ...) the operator creates no Pod at all, reports QuotaReserved=Unknown
  `NoReplicas`, and its phase message is this condition's message (gpustack/lines.py WEIGHTS_BLOCKED, cited there).
  That is our `WeightsNotReady`, ranked before any quota verdict, naming the artifact and the operator's message.
- QuotaReserved `NoReplicas` with the weights not in the way is `ReplicasNotCreated`: the operator created no replica
  yet. It is never `PodGroupIncomplete`, which is a group short of its declared total.
- While the operator created nothing, our own "no pod group exists for role X" findings are the same fact misnamed:
  they are dropped.
- RouterReady, RoleKindsReady, DomainRegistered, CacheAttached, ReplicasUpToDate and KVEventsPublishing do not keep
  a deployment from admission: each one not True becomes a note with a code (NOTE_CODES), and the deployment's
  `-o json` view lists them (`deployment.conditions`).

Pure: the typed ModelDeployment (and the reasons the other steps found) in; reasons, notes and rows out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_pd.gpustack.model import ModelDeployment, operator_conditions
from kubectl_pd.pending import md_v1
from kubectl_pd.pending.model import Reason, read_only
from kubectl_pd.pending.say import Say, say

if TYPE_CHECKING:
    from kubectl_pd.kueue.model import Condition

# WeightsReady's reasons that hold every new Pod back (gpustack/lines.py WEIGHTS_BLOCKED; kept here so the pending
# package imports no create-side module)
BLOCKED = frozenset({"ArtifactNotFound", "ArtifactNotResolved", "ClaimNotBound", "AccessModeConflict",
                     "NodeDeliveryUnavailable", "FilterNeedsNodeDelivery"})

# A condition that is not True -> the code of its note (the operator's own reason travels as a parameter)
NOTE_CODES: dict[str, str] = {
    "WeightsReady": "WeightsNotReady",
    "RouterReady": "RouterNotReady",
    "RoleKindsReady": "RoleKindsNotReady",
    "DomainRegistered": "DomainNotRegistered",
    "CacheAttached": "CacheNotAttached",
    "ReplicasUpToDate": "ReplicasNotUpToDate",
    "KVEventsPublishing": "KVEventsNotPublishing",
}


def weights_held(md: ModelDeployment | None) -> Condition | None:
    """The WeightsReady condition when it is False (the deployment waits for its weights), else None."""
    c = md.conditions.get("WeightsReady") if md is not None else None
    return c if c is not None and c.status == "False" else None


def created_nothing(md: ModelDeployment | None) -> bool:
    """The operator says it created no replica: QuotaReserved `NoReplicas`, or weights that hold every Pod back."""
    if md is None:
        return False
    quota = md.conditions.get("QuotaReserved")
    held = weights_held(md)
    return (quota is not None and quota.reason == "NoReplicas") or (held is not None and held.reason in BLOCKED)


def notes(md: ModelDeployment | None) -> list[Say]:
    """The phase and role summary (v1alpha1 and v1 alike), then a note per operator condition that is not True and
    is not already a reason (WeightsReady=False is one)."""
    if md is None:
        return []
    out = md_v1.status_note(md)
    for c in operator_conditions(md):
        if c.true or (c.type == "WeightsReady" and c.status == "False"):
            continue
        out.append(say("note.operator-condition", code=NOTE_CODES[c.type], type=c.type, status=c.status,
                       reason=c.reason, message=c.message))
    return out


def judge(md: ModelDeployment | None, ours: list[Reason]) -> list[Reason]:
    """`ours` with the operator's word added: WeightsNotReady first, then QuotaReserved's reason as a code of ours
    (md_v1), `NoReplicas` read as ReplicasNotCreated; our "no pod group for role X" dropped when the operator
    created no replica (its own answer says why)."""
    if md is None:
        return list(ours)
    nothing = created_nothing(md)
    kept = [r for r in ours if not (nothing and r.code == "PodGroupIncomplete" and r.message.id == "role.no-group")]
    out = [*kept, *_weights(md)]
    quota = md.conditions.get("QuotaReserved")
    if quota is not None and quota.reason == "NoReplicas" and not quota.true:
        if weights_held(md) is None:
            out.append(_not_created(md, quota))
        return out
    return out + md_v1.operator_reasons(md, kept)


def _weights(md: ModelDeployment) -> list[Reason]:
    c = weights_held(md)
    if c is None:
        return []
    artifact = md.artifact or md.status_artifact
    blocked = c.reason in BLOCKED
    params: dict[str, Any] = {"operatorReason": c.reason, "status": c.status, "message": c.message,
                              "artifact": artifact, "podsHeld": blocked}
    return [Reason("WeightsNotReady",
                   say("operator.weights", md=md.name, artifact=artifact, reason=c.reason, message=c.message,
                       blocked=blocked),
                   hint=say("next.weights", md=md.name, ns=md.namespace or "", artifact=artifact, reason=c.reason),
                   params=read_only(params))]


def _not_created(md: ModelDeployment, quota: Condition) -> Reason:
    params: dict[str, Any] = {"operatorReason": quota.reason, "status": quota.status, "message": quota.message}
    return Reason("ReplicasNotCreated", say("operator.no-replicas", md=md.name, message=quota.message),
                  hint=say("next.no-replicas", md=md.name, ns=md.namespace or ""),
                  params=read_only(params))


def condition_rows(md: ModelDeployment | None) -> list[dict[str, Any]]:
    """`deployment.conditions` of -o json: every operator condition the object carries (QuotaReserved first), with
    our code for one that is not True (None when True)."""
    if md is None:
        return []
    quota = md.conditions.get("QuotaReserved")
    rows = [quota] if quota is not None else []
    rows += operator_conditions(md)
    return [{"type": c.type, "status": c.status, "reason": c.reason or None, "message": c.message or None,
             "code": None if c.true else NOTE_CODES.get(c.type)} for c in rows]
