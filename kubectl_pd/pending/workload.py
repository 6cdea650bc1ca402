"""One Workload's story: its conditions, Kueue's message (0.18 free text and 0.19 tokens), admission checks,
eviction, and our arithmetic's numbers when Kueue gave none."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from kubectl_pd import kube
from kubectl_pd.kueue import messages as km
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue import versions
from kubectl_pd.kueue.model import Condition, ResourceFlavor, Workload, workload
from kubectl_pd.kueue.quantity import is_credits
from kubectl_pd.kueue.words import attempt_text, taint_text  # noqa: F401 - taint_text is read from here too
from kubectl_pd.pending import evictions as evm
from kubectl_pd.pending import topology as tp
from kubectl_pd.pending.gather import Facts
from kubectl_pd.pending.model import Reason, Say, amended, read_only, say
from kubectl_pd.pending.queues import structural
from kubectl_pd.pending.roles import Unit
from kubectl_pd.pending.say import QuotaAsk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kubectl_pd.registry import ReasonCode

_CODE_HINTS = ("NamespaceNotAllowed", "InvalidResources", "PreemptionInProgress", "WaitingInQueue",
               "WaitingForPodsReady")  # the codes of Kueue's messages that come with a next step

# Kueue's QuotaReserved reason tokens (0.19's and KEP-10852's) -> our codes: kueue/versions.py, the one place
_TOKENS: dict[str, ReasonCode] = versions.reason_tokens(versions.DEFAULT_TARGET)  # type: ignore[assignment]
# the codes only a token gives (Kueue 0.20), each with its next step
_TOKEN_HINTS = ("Misconfigured", "QueueSuspended", "AdmissionGated", "OnHold", "DRAResourcesUnresolved")


_MESSAGE_CODES: dict[str, ReasonCode] = {
    "cq-inactive": "ClusterQueueInactive", "cq-not-found": "ClusterQueueMissing", "cq-missing": "ClusterQueueMissing",
    "cq-stopped": "ClusterQueueStopped", "lq-missing": "LocalQueueMissing", "lq-stopped": "LocalQueueStopped",
    "namespace-mismatch": "NamespaceNotAllowed", "namespace-missing": "NamespaceNotAllowed",
    "invalid-resources": "InvalidResources", "overlapping-preemption": "PreemptionInProgress",
    "preemption-gated": "PreemptionInProgress", "no-longer-fits": "WaitingInQueue",
    "pending-evaluation": "WaitingInQueue", "bypassed": "WaitingInQueue", "gate-cleared": "WaitingInQueue",
    "waiting-pods-ready": "WaitingForPodsReady", "deactivated": "Deactivated",
}


_QUOTA_CODES = ("QuotaExhausted", "NeedsPreemption", "QuotaExceedsCapacity", "QuotaUnknown")


def verdict_reasons(v: vd.PodSetVerdict, kueue: str | None, wl: str, prefix: str = "") -> list[Reason]:
    """Our arithmetic's verdict for one pod set, as reasons (with Kueue's message when it spoke)."""
    role = v.demand.role
    if v.code == "ResourceNotCovered":
        return [Reason("ResourceNotCovered", say("not-covered", prefix=prefix, role=role, resources=list(v.uncovered)),
                       role=role, workload=wl, kueue_message=kueue,
                       resource=v.uncovered[0],
                       hint=say("next.cover", resource=v.uncovered[0]))]
    if v.code in _QUOTA_CODES and v.best is not None and v.best.resource:
        return [_quota_reason(v, v.best, kueue, wl, prefix)]
    if v.code == "NoMatchingFlavor":
        first = v.attempts[0].flavor if v.attempts else None
        return [Reason("NoMatchingFlavor", say("no-flavor.ours", prefix=prefix, role=role, attempts=list(v.attempts)),
                       role=role, workload=wl,
                       kueue_message=kueue, flavor=first,
                       hint=say("next.match-flavor", role=role, get=False))]
    if v.code == "QuotaUnknown":
        return [Reason("QuotaUnknown", say("quota-unknown.request", prefix=prefix, role=role),
                       role=role, workload=wl, kueue_message=kueue)]
    if v.code == "InvalidResources" and v.assignment is not None:
        return [_invalid_reason(role, bad, kueue, wl, prefix) for bad in v.assignment.invalid][:3]
    return []


def _invalid_reason(role: str, bad: Any, kueue: str | None, wl: str, prefix: str) -> Reason:
    return Reason("InvalidResources", say("invalid", prefix=prefix, role=role, bad=bad),
                  role=role, workload=wl, kueue_message=kueue, resource=bad.resource, requested=bad.requested,
                  params=read_only({"rule": bad.rule, "container": bad.container, "limit": bad.limit}),
                  hint=say("next.lower-request", role=role, resource=bad.resource, limit=bad.limit))


def _quota_reason(v: vd.PodSetVerdict, best: vd.Blocker, kueue: str | None, wl: str, prefix: str) -> Reason:
    d, role, res = v.demand, v.demand.role, best.resource or ""
    total = d.requests.get(res, best.requested)
    per_pod = (total / d.count) if total is not None and d.count else None
    params = {"outcome": best.outcome, "previous": best.previous, "capacity": best.capacity,
              "nominal": best.nominal, "jointNeeded": v.joint_needed}
    if v.own is not None and (ob := vd.blocker(v.own)) is not None:
        params["kueueNeeded"] = ob.needed
    if v.code == "QuotaUnknown":
        msg = say("quota-unknown.quota", prefix=prefix, role=role, requested=best.requested, resource=res,
                  flavor=best.flavor, unknown=best.unknown)
        hint = say("next.read-quota", unknown=best.unknown, resource=res, flavor=best.flavor)
        return Reason(v.code, msg, role=role, workload=wl, kueue_message=kueue, resource=res,
                      flavor=best.flavor, requested=best.requested, hint=hint, params=read_only(params))
    ask = QuotaAsk(best, d.count, per_pod)
    if v.code in ("QuotaExhausted", "NeedsPreemption"):
        hint = _short_of_quota_hint(v, best)
        own = vd.blocker(v.own) if v.own is not None else None
        msg = say("short-of-quota", prefix=prefix, role=role, ask=ask, preempt=v.code == "NeedsPreemption",
                  own=_own(v, own))
        summary = say("short-of-quota.summary", prefix=prefix, role=role, needed=best.needed, resource=res,
                      flavor=best.flavor)
    else:
        msg = say("over-capacity", prefix=prefix, role=role, ask=ask)
        hint = say("next.raise-nominal-of", resource=res, flavor=best.flavor, needed=best.needed)
        summary = say("over-capacity.summary", prefix=prefix, role=role, ask=ask)
    return Reason(v.code or "Unknown", msg, role=role, workload=wl, kueue_message=kueue, resource=res,
                  flavor=best.flavor, requested=best.requested, available=best.available, needed=best.needed,
                  hint=hint, params=read_only(params), summary=summary)


def _short_of_quota_hint(v: vd.PodSetVerdict, best: vd.Blocker) -> Say:
    free = v.joint_needed if v.joint_needed is not None and v.joint_needed > (best.needed or 0) else None
    return say("next.free", amount=free or best.needed, resource=best.resource or "", flavor=best.flavor,
               together=free is not None)


def _own(v: vd.PodSetVerdict, ob: vd.Blocker | None) -> dict[str, Any] | None:
    """Kueue's own number (its Workload alone), when it differs from the joint one: said apart."""
    b = v.best
    if v.own is None or ob is None or b is None or ob.needed is None or (ob.needed, ob.flavor) == (b.needed, b.flavor):
        return None
    if vd.code_of(v.own) is None:
        return {"fits": next(iter(v.own.flavors.values()), "?")}
    return {"needed": ob.needed, "resource": ob.resource or b.resource, "flavor": ob.flavor}


def workload_reasons(u: Unit, facts: Facts, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
                      now: datetime, notes: list[Say], hypothetical: bool = False) -> list[Reason]:
    """The Workload's story; an admission-check retry loop or a preemption leads it (they explain why the
    Workload is back in the queue at all), what holds it now follows."""
    rest = _workload_reasons(u, facts, verdicts, now, notes, hypothetical)
    if u.workload is None or u.workload.admitted or any(r.code in ("NotPending", "Deactivated") for r in rest):
        return rest
    wl, events = u.workload, facts.events
    loop = evm.retry_loop(wl, events)
    if loop is not None:
        head = retry_loop_reason(loop, u, facts)
        return [head] + [r for r in rest if r.code not in ("AdmissionCheckPending", "Evicted")]
    pre = evm.preemption_of(wl, events) if not wl.reserved else None
    if pre is not None:
        return [preempted_reason(pre, u, facts)] + rest  # an Evicted reason after it says the back-off
    ut = evm.unscheduled_timeout(wl) if not wl.reserved else None
    if ut is not None:
        return [unscheduled_reason(ut, u)] + rest
    return rest


def unscheduled_reason(ut: evm.UnscheduledTimeout, u: Unit) -> Reason:
    """PodsUnscheduledTimeout (Kueue 0.20): admitted, pods never scheduled in time, evicted and requeued."""
    return Reason("PodsUnscheduledTimeout", say("kueue.code", code=ut.code), workload=u.group,
                  kueue_message=ut.message,
                  params=read_only({"times": ut.times, "underlyingCause": "WaitForScheduling"}),
                  hint=say("next.kueue-code", code=ut.code, ns=""))


def retry_loop_reason(loop: evm.RetryLoop, u: Unit, facts: Facts) -> Reason:
    """AdmissionCheckRetryLoop: how many times, since when, the check's words; for gpustack-node-devices the
    per-card fit labels of the flavor's nodes (largest free slice vs what one Pod asks)."""
    g = u.group
    params: dict[str, Any] = {"check": loop.check, "times": loop.times, "since": loop.since,
                              "requeueAt": loop.requeue_at, "state": loop.state}
    frag: dict[str, Any] | None = None
    hint = say("next.free-devices", check=loop.check)
    role = None
    if loop.check == evm.NODE_DEVICES:
        frag = _fragmentation(u, facts)
        if frag is not None:
            params["fragmentation"] = frag
            short_of = [r for r, ok in frag["fits"].items() if ok is False]
            if short_of:
                role = short_of[0]
                hint = say("next.defragment", flavors=list(frag.get("flavors") or ["?"]), role=role)
        elif any(v is None for v in facts.nodes.values()):
            params["fragmentation"] = None  # the flavor's Nodes could not be read: a note says so
    msg = say("retry-loop", check=loop.check, g=g, times=loop.times, since=loop.since, requeue_at=loop.requeue_at,
              fragmentation=frag)
    return Reason("AdmissionCheckRetryLoop", msg, role=role, workload=g, kueue_message=loop.message,
                  params=read_only(params), hint=hint)


def _fragmentation(u: Unit, facts: Facts) -> dict[str, Any] | None:
    nodes: dict[str, kube.Node] = {}
    flavors = [f for f, ns in facts.nodes.items() if ns]
    for f in flavors:
        for n in facts.nodes.get(f) or []:
            nodes.setdefault(n.name, n)
    if not nodes:
        return None
    key = next((k for f in flavors if (k := evm.accelerator_key(_flavor(facts, f)))), None)
    asks: dict[str, Fraction | None] = {}
    role_names = set(u.roles)
    for p in u.pods:
        r = u.role_of(p, role_names)
        if r not in asks:
            req = dict(p.template.requests)
            asks[r] = next((q for res, q in req.items() if is_credits(res)), None)
    frag = evm.fragmentation(evm.fit_labels(list(nodes.values()), key), asks)
    if frag is None:
        return None
    frag["flavors"] = flavors
    frag["acceleratorKey"] = key
    return frag


def _flavor(facts: Facts, name: str) -> ResourceFlavor | None:
    return facts.flavors.get(name)


def _preempted_at(wl: Workload) -> str | None:
    """When the preemption happened: the Preempted condition's transition (else the Evicted one's), as Kueue
    wrote it; None when neither carries a time."""
    for c in (wl.condition("Preempted"), wl.condition("Evicted")):
        if c is not None and c.true and c.last_transition:
            return c.last_transition
    return None


def preempted_reason(pre: tuple[str | None, str | None, evm.PreemptionMessage | None], u: Unit, facts: Facts) -> Reason:
    """Preempted: by whom (UID, its ClusterQueue, ours or not), by which rule; the pair effect is said by
    the diagnosis, which sees every role's Workload."""
    rule, message, p = pre
    g = u.group
    by_uid = {w.uid: n for n, w in facts.workloads.items() if w is not None}
    name = by_uid.get(p.uid or "") if p is not None else None
    cq = p.preemptor_queue if p is not None else None
    params: dict[str, Any] = {"rule": rule, "preemptorUID": p.uid if p else None,
                              "preemptorJobUID": p.job_uid if p else None, "preemptorClusterQueue": cq,
                              "preemptorWorkload": name, "preemptorPath": p.preemptor_path if p else None,
                              "preempteePath": p.preemptee_path if p else None,
                              "preemptorPriority": p.preemptor_priority if p else None,
                              "preempteePriority": p.preemptee_priority if p else None,
                              **_kueue020_preemption(p),
                              "at": _preempted_at(u.workload) if u.workload is not None else None}
    if name is None and p is not None and p.preemptor:  # PreemptionConfig names the preemptor ns/name
        ns, _, n = p.preemptor.rpartition("/")
        name = n if ns in ("", facts.target.namespace) else p.preemptor
        params["preemptorWorkload"] = name
    msg = say("preempted", g=g, name=name, uid=p.uid if p else None, cq=cq, rule=rule)
    return Reason("Preempted", msg, workload=g, kueue_message=message, params=read_only(params),
                  hint=say("next.avoid-preemption"))


def _kueue020_preemption(p: evm.PreemptionMessage | None) -> dict[str, Any]:
    """Kueue 0.20's additions, present only when Kueue wrote them: the priorities' base and boost, and the
    PreemptionConfig rule that chose the Workload."""
    if p is None:
        return {}
    out: dict[str, Any] = {}
    if p.preemptor_boost is not None:
        out.update(preemptorBase=p.preemptor_base, preemptorBoost=p.preemptor_boost,
                   preempteeBase=p.preemptee_base, preempteeBoost=p.preemptee_boost)
    if p.config is not None:
        out.update(preemptionConfig=p.config, preemptionConfigRule=p.config_rule)
    return out


def _workload_reasons(u: Unit, facts: Facts, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
                      now: datetime, notes: list[Say], hypothetical: bool = False) -> list[Reason]:
    """`hypothetical` (--what-if): Kueue's last message is about the real demand, so only our engine speaks
    for quota."""
    wl = u.workload if u.workload is not None else workload({})
    g = u.group
    if wl.finished:
        return [Reason("NotPending", say("wl.finished", g=g), workload=g)]
    if not wl.active:
        return [_deactivated(wl, g, facts.target.namespace)]
    if _is_true(wl, "Evicted") and (wl.admitted or wl.reserved and evm.preemption_of(wl, facts.events) is not None):
        return [_evicting(u, wl, facts)]  # still holds its quota while Kueue stops its Pods (issue 46, finding 8)
    if wl.admitted:
        return [Reason("NotPending", say("wl.admitted", g=g), workload=g)]
    if wl.reserved:
        return _reserved(wl, g, facts.target.namespace)
    evicted = _waiting_for_requeue(wl, g, now)
    if evicted is not None:
        return [evicted]
    ev = wl.condition("Evicted")
    if ev is not None and ev.true:
        notes.append(say("note.requeued", g=g, reason=ev.reason, message=ev.message))
    return _aged_as_kueue_said(_queued(u, wl, facts, verdicts, notes, hypothetical), wl, facts, now)


def _is_true(wl: Workload, t: str) -> bool:
    c = wl.condition(t)
    return c is not None and c.true


def _evicting(u: Unit, wl: Workload, facts: Facts) -> Reason:
    """Kueue evicted (or preempted) a Workload that still holds its quota: it is stopping the group's Pods (it
    deletes every Pod of a pod group) and requeues the Workload once they are gone. Never "not pending"."""
    deleting, pods = sum(1 for p in u.pods if p.deleting), len(u.pods)
    going = {"evicting": True, "podsDeleting": deleting, "pods": pods}
    pre = evm.preemption_of(wl, facts.events)
    clause = say("wl.evicting", deleting=deleting, pods=pods)
    if pre is not None:
        r = preempted_reason(pre, u, facts)
        return amended(r, params=read_only({**r.params, **going}), clauses=(*r.clauses, clause))
    ev = wl.condition("Evicted")
    msg = say("wl.evicted", g=u.group, cause=ev.reason if ev else "", preempted_for=None, count=None, at=None,
              wait=None)
    return Reason("Evicted", msg, workload=u.group, kueue_message=(ev.message if ev else None) or None,
                  params=read_only({"cause": ev.reason if ev else None, **going}), clauses=(clause,),
                  hint=say("next.wait-requeue", back_off=False))


def _deactivated(wl: Workload, g: str, ns: str) -> Reason:
    dt, ev = wl.condition("DeactivationTarget"), wl.condition("Evicted")
    parked = next((c for c in wl.admission_checks if km.PARKED_MARKER in c.message), None)
    kmsg = (parked.message if parked else None) or (dt.message if dt else None) or (ev.message if ev else None)
    return Reason("Deactivated", say("wl.deactivated", g=g, parked=parked is not None), workload=g,
                  kueue_message=kmsg or None,
                  hint=say("next.reactivate", g=g, ns=ns, parked=parked is not None))


def _reserved(wl: Workload, g: str, ns: str) -> list[Reason]:
    """Quota is reserved: the admission checks say what holds the admission."""
    out = []
    for c in wl.admission_checks:
        if c.state == "Rejected":
            out.append(Reason("AdmissionCheckRejected", say("check.rejected-wl", check=c.name, g=g),
                              workload=g, kueue_message=c.message or None,
                              hint=say("next.fix-check", check=c.name, g=g, ns=ns)))
        elif c.state in ("Pending", "Retry"):
            joint = "joint" in c.name
            out.append(Reason("AdmissionCheckPending", say("check.pending", check=c.name, state=c.state, joint=joint),
                              workload=g, kueue_message=c.message or None,
                              hint=say("next.wait-check", check=c.name, joint=joint)))
    if out:
        return out
    adm = wl.condition("Admitted")
    return [Reason("Unknown", say("wl.reserved-not-admitted", g=g), workload=g,
                   kueue_message=(adm.message if adm else None) or None)]


def _waiting_for_requeue(wl: Workload, g: str, now: datetime) -> Reason | None:
    """Evicted and not requeued yet: the back-off explains the wait."""
    ev, requeued = wl.condition("Evicted"), wl.condition("Requeued")
    if ev is None or not ev.true or (requeued is not None and requeued.true):
        return None
    rs = wl.requeue_state
    at = rs.requeue_at if rs is not None else None
    t = _parse_time(at) if at is not None else None
    wait = (t - now).total_seconds() if t is not None and t > now else None
    count = rs.count if rs is not None else None
    msg = say("wl.evicted", g=g, cause=ev.reason, preempted_for=km.parse_preempted(ev.message), count=count, at=at,
              wait=wait)
    return Reason("Evicted", msg, workload=g, kueue_message=ev.message or None,
                  hint=say("next.wait-requeue", back_off=at is not None))


def _queued(u: Unit, wl: Workload, facts: Facts, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
            notes: list[Say], hypothetical: bool) -> list[Reason]:
    """In the queue, no reservation: queue problems, then Kueue's words, then our arithmetic."""
    return [_node_checked(r, u, wl, facts) for r in _queued_reasons(u, wl, facts, verdicts, notes, hypothetical)]


def _aged_as_kueue_said(out: list[Reason], wl: Workload, facts: Facts, now: datetime | None) -> list[Reason]:
    """What came from Kueue's QuotaReserved message carries when Kueue said it (issue 46, finding 6)."""
    qr = wl.condition("QuotaReserved")
    said = _said_when(qr, now if facts.live else None) if qr is not None and qr.status == "False" and qr.message \
        else None  # from a file, the moment it was read is not known: Kueue's time is said, not an age
    return [_aged(r, qr.message, said) if said is not None and qr is not None else r for r in out]


_RAISES = ("next.raise-nominal", "next.raise-nominal-of")


def _node_checked(r: Reason, u: Unit, wl: Workload, facts: Facts) -> Reason:
    """A quota raise is advice only where some Node of the flavor could hold one Pod of the role (create/nodes.py's
    fit, over the Nodes this run read): where none could, the raise would admit a Pod no Node runs, so `next:` says
    the Nodes are too small instead; where the flavor's Nodes were not read, the raise says so (issue 46, finding 8)."""
    if r.code != "QuotaExceedsCapacity" or r.hint is None or r.hint.id not in _RAISES or not r.flavor:
        return r
    from kubectl_pd.create import nodes as nf
    from kubectl_pd.kueue import admission as ad

    flavor, read = facts.flavors.get(r.flavor), facts.nodes.get(r.flavor, ())
    ps = next((p for p in wl.pod_sets if u.podset_role(p, set(u.roles)) == r.role), None)
    if flavor is None or ps is None or read is None or r.flavor not in facts.nodes:
        state = "refused" if r.flavor in facts.nodes and read is None else "unread"
        return amended(r, params=read_only({**r.params, "nodeFit": state}),
                       hint=say(r.hint.id, **{**r.hint.args, "nodes": state}))  # type: ignore[arg-type]
    miss = nf.too_small(flavor, read, ad.demand_of_pod_set(ps, r.role, count=1))
    if miss is None:
        return amended(r, params=read_only({**r.params, "nodeFit": "holds"}))
    fit = {"flavor": miss.flavor, "nodes": miss.nodes, "allowed": miss.allowed, "resource": miss.resource,
           "requested": miss.requested, "largest": miss.largest, "node": miss.node}
    return amended(r, params=read_only({**r.params, "nodeFit": "too-small", "nodes": fit}),
                   clauses=(*r.clauses, say("nodes.too-small", role=r.role, **fit)),
                   hint=say("next.nodes-too-small", role=r.role, **fit))


def _said_when(qr: Condition, now: datetime | None) -> tuple[str, float | None] | None:
    """When Kueue wrote its QuotaReserved message (lastTransitionTime as written) and how long before the run's
    clock (None: no clock, or a time ahead of it); None when the condition carries no time."""
    if not qr.last_transition:
        return None
    t = _parse_time(qr.last_transition)
    age = (now - t).total_seconds() if t is not None and now is not None and t <= now else None
    return qr.last_transition, age


def _aged(r: Reason, message: str, said: tuple[str, float | None]) -> Reason:
    """A reason that shows Kueue's QuotaReserved message: its time as data, its age said."""
    if r.kueue_message is None or message.find(r.kueue_message) < 0:
        return r
    at, age = said
    if "kueueDisagrees" in r.params:  # the disagreement says when Kueue wrote what the state read contradicts
        clauses = tuple(say("kueue.disagrees", **{**c.args, "at": at, "age": age}) if c.id == "kueue.disagrees"
                        else c for c in r.clauses)
    else:  # its time as Kueue wrote it: an age in every screen would change by the day for the same state
        clauses = (*r.clauses, say("kueue.said-ago", at=at))
    return amended(r, params=read_only({**r.params, "kueueSaidAt": at}), clauses=clauses)


def _queued_reasons(u: Unit, wl: Workload, facts: Facts, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
                    notes: list[Say], hypothetical: bool) -> list[Reason]:
    g = u.group
    qr = wl.condition("QuotaReserved")
    ps_roles = {ps.name: u.podset_role(ps, set(u.roles)) for ps in wl.pod_sets}
    queue_problems = structural(facts, u.queue, g)
    qr_reason = qr.reason if qr is not None else ""
    qr_msg = qr.message if qr is not None and qr.status == "False" and not hypothetical else None
    parsed = km.parse_message(qr_msg) if qr_msg else None
    kueue_reasons = _kueue_reasons(parsed, qr_reason, ps_roles, verdicts, facts, u) if parsed else []
    if queue_problems:
        if kueue_reasons and not any(r.code == queue_problems[0].code for r in kueue_reasons):
            notes.append(say("note.kueue-differs", g=g, message=qr_msg))
        elif qr_msg:
            return [amended(r, kueue_message=r.kueue_message or qr_msg) for r in queue_problems]
        return queue_problems
    if kueue_reasons:
        return kueue_reasons
    return _ours(g, qr, verdicts, qr_msg)


def _ours(g: str, qr: Condition | None, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
          qr_msg: str | None) -> list[Reason]:
    """Kueue has said nothing (yet): our arithmetic answers."""
    untouched = qr is None
    out = [r for (w, _ps), v in verdicts.items() if w == g and v.verdict in (vd.BLOCKED, vd.UNKNOWN)
           for r in verdict_reasons(v, None, g)]
    if not out:  # each pod set fits alone, but not next to the ones before it: the Workload waits
        out = [r for v in vd.together_blocked(v for (w, _ps), v in verdicts.items() if w == g)[:1]
               for r in verdict_reasons(v, None, g)]
    if out:
        if untouched:
            return [amended(r, clauses=(*r.clauses, say("ours.not-evaluated"))) for r in out]
        return out
    if qr is not None and qr.reason in ("Waiting", "WaitingForPodsReady"):
        return [Reason("WaitingForPodsReady", say("waiting-for-pods-ready"), workload=g,
                       kueue_message=qr.message or None,
                       hint=say("next.wait-pods-ready"))]
    return [Reason("WaitingInQueue", say("waiting-in-queue", untouched=untouched), workload=g,
                   kueue_message=qr_msg or None,
                   hint=say("hint.wait"))]  # what is known of the queue is said once it was read


def _parse_time(text: str) -> datetime | None:
    """RFC 3339 as Kubernetes writes it; a time without a zone is taken as UTC."""
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _kueue_reasons(parsed: km.Message, token: str, ps_roles: dict[str, str],
                   verdicts: dict[tuple[str, str], vd.PodSetVerdict], facts: Facts, u: Unit) -> list[Reason]:
    g = u.group
    text = parsed.text
    ns = facts.target.namespace
    if parsed.kind in _MESSAGE_CODES:
        code = _MESSAGE_CODES[parsed.kind]
        if parsed.kind in ("cq-inactive", "cq-not-found", "cq-missing", "cq-stopped", "lq-missing", "lq-stopped"):
            return structural(facts, u.queue, g, kueue=text, fallback=(code, parsed.subject))
        hint = say("next.kueue-code", code=code, ns=ns) if code in _CODE_HINTS else None
        return [Reason(code, say("kueue.code", code=code), workload=g, kueue_message=text, hint=hint)]
    if parsed.kind == "failed-admission-checks":
        out = []
        checks = u.workload.admission_checks if u.workload is not None else ()
        for c in checks:
            if c.state == "Rejected":
                out.append(Reason("AdmissionCheckRejected", say("check.rejected", check=c.name),
                                  workload=g, kueue_message=c.message or text))
            elif c.state == "Retry":
                out.append(Reason("AdmissionCheckPending", say("check.retry", check=c.name),
                                  workload=g, kueue_message=c.message or text))
        return out or [Reason("AdmissionCheckRejected", say("check.failed"), workload=g, kueue_message=text)]
    if parsed.kind == "hard-error":
        role = ps_roles.get(parsed.subject or "", parsed.subject)
        return [Reason("Unknown", say("kueue.hard-error", role=role), role=role, workload=g,
                       kueue_message=text)]
    if parsed.kind == "flavors":
        out = []
        stale = False  # a pod set Kueue's retry judged from another flavor than ours (see _retried_elsewhere)
        differs: list[dict[str, Any]] = []  # Kueue's figures the objects read contradict (issue 46, finding 6)
        for psf in parsed.pod_sets:
            role = ps_roles.get(psf.pod_set, psf.pod_set)
            ours = verdicts.get((g, psf.pod_set))
            said = _figures_differ(psf, ours)
            if said:
                differs.extend({**d, "role": role} for d in said)
                stale = True
                continue
            if _retried_elsewhere(psf, ours):
                stale = True
                continue
            other = _other_flavor(psf, ours)
            if other is not None and ours is not None:  # one flavor from one record: the engine's, Kueue's beside it
                out.extend(amended(r, kueue_message=psf.text, params=read_only({**r.params, "kueueSays": other}),
                                   clauses=(*r.clauses, say("kueue.other-flavor", **other)))
                           for r in verdict_reasons(ours, None, g))
                continue
            out.extend(_topology_reasons(psf, role, g, u, facts) or _podset_reasons(psf, role, g, parsed, ours))
        if stale:  # our arithmetic's own verdicts for the pod sets it finds blocked, Kueue's words beside them
            named = {r.role for r in out}
            out.extend(_disagreeing(amended(r, kueue_message=text), differs) for (wl, _ps), v in verdicts.items()
                       if wl == g and v.verdict == vd.BLOCKED for r in verdict_reasons(v, None, g)
                       if r.role not in named)
            if not out and differs:  # every pod set fits on the state read: Kueue has not tried it again yet
                out.append(_disagreeing(Reason("WaitingInQueue", say("waiting-in-queue", untouched=False),
                                               workload=g, kueue_message=text, hint=say("hint.wait")), differs))
        if out:
            return out
    token_code = _TOKENS.get(token)
    if token_code is not None:
        hint = say("next.kueue-code", code=token_code, ns=ns) if token_code in _TOKEN_HINTS else None
        params = {"gatedBy": list(km.admission_gated_by(text))} if token_code == "AdmissionGated" else {}
        return [Reason(token_code, say("kueue.code", code=token_code), workload=g, kueue_message=text, hint=hint,
                       params=read_only(params))]
    return [Reason("Unknown", say("kueue.unknown"), workload=g,
                   kueue_message=text, hint=say("next.describe", g=g, ns=ns))]


def _topology_reasons(psf: km.PodSetFailure, role: str, g: str, u: Unit, facts: Facts) -> list[Reason]:
    """TopologyUnsatisfied: Kueue's not-fit words for a TAS flavor, with the pod set's requested level."""
    out = []
    for fr in psf.reasons:
        if fr.kind != km.TOPOLOGY:
            continue
        nums = tp.parse_not_fit(fr.text)
        if nums is None:
            continue
        wl = u.workload if u.workload is not None else None
        req = tp.request_of(next((ps for ps in wl.pod_sets if ps.name == psf.pod_set), None) if wl else None)
        flavors = tp.tas_flavors(facts.flavors, nums["topology"])
        params = {**nums, **{k: v for k, v in req.items() if v is not None}, "podSet": psf.pod_set,
                  "flavors": flavors}
        level = req.get("level")
        what = say("topology", role=role, nums=nums, level=level, mode=req.get("mode"), flavors=flavors)
        hint = say("next.topology", role=role, nums=nums, level=level)
        out.append(Reason("TopologyUnsatisfied", what, role=role, workload=g, kueue_message=psf.text,
                          flavor=flavors[0] if flavors else None, params=read_only(params), hint=hint))
    return out


def _podset_reasons(psf: km.PodSetFailure, role: str, g: str, parsed: km.Message,
                    ours: vd.PodSetVerdict | None) -> list[Reason]:
    """One pod set's failure in Kueue's words, numbers first from our arithmetic when both agree on it."""
    kinds = {r.kind for r in psf.reasons}
    if km.RESOURCE_UNAVAILABLE in kinds:
        res = next(r.resource for r in psf.reasons if r.kind == km.RESOURCE_UNAVAILABLE)
        return [Reason("ResourceNotCovered", say("not-covered", prefix="", role=role, resources=[res]),
                       role=role, workload=g, kueue_message=psf.text, resource=res,
                       hint=say("next.cover", resource=res))]
    unused = [r for r in psf.reasons if r.kind == km.INSUFFICIENT_UNUSED]
    if unused:
        return [_insufficient_unused(psf, unused, role, g, parsed, ours)]
    over = [r for r in psf.reasons if r.kind == km.INSUFFICIENT_QUOTA]
    if over:
        return [_over_capacity(psf, _closest(over), role, g, ours)]
    flavorish = [r for r in psf.reasons if r.kind in (km.NODE_AFFINITY, km.UNTOLERATED_TAINT, km.FLAVOR_NOT_FOUND,
                                                       km.TOPOLOGY, km.SKIPPED)]
    if flavorish:
        return [Reason("NoMatchingFlavor", say("no-flavor.kueue", role=role, parts=[r.text for r in psf.reasons]),
                       role=role, workload=g,
                       kueue_message=psf.text, flavor=flavorish[0].flavor,
                       hint=say("next.match-flavor", role=role, get=True))]
    return [Reason("Unknown", say("kueue.not-placed", role=role), role=role, workload=g, kueue_message=psf.text)]


def _insufficient_unused(psf: km.PodSetFailure, unused: list[Any], role: str, g: str, parsed: km.Message,
                         ours: vd.PodSetVerdict | None) -> Reason:
    k = min(unused, key=lambda r: r.needed if r.needed is not None else Fraction(10**30))
    code: ReasonCode = "PreemptionInProgress" if parsed.preempting else "QuotaExhausted"
    mine = verdict_reasons(ours, None, g) if ours is not None and ours.verdict == vd.BLOCKED else []
    clauses: list[Say] = []
    preempting = [say("kueue.preempting", count=parsed.preempting)] if parsed.preempting else []
    if mine and mine[0].code in ("QuotaExhausted", "NeedsPreemption", "QuotaExceedsCapacity"):
        r = mine[0]
        if r.needed != k.needed or r.flavor != k.flavor:
            clauses.append(say("kueue.alone-says", role=role, needed=k.needed, resource=k.resource, flavor=k.flavor))
        keep = r.code != "QuotaExhausted" and not parsed.preempting
        return amended(r, kueue_message=psf.text, code=r.code if keep else code,
                       clauses=(*r.clauses, *clauses, *preempting),
                       hint=say("next.wait-preemption") if parsed.preempting else r.hint)
    if ours is not None and ours.verdict == vd.FITS:
        clauses.append(say("ours.fits-now", role=role, flavor=ours.flavor))
    hint = say("next.wait-preemption") if parsed.preempting else say("next.free", amount=k.needed,
                                                                       resource=k.resource, flavor=k.flavor,
                                                                       together=False)
    return Reason(code, say("kueue.needs", role=role, needed=k.needed, resource=k.resource, flavor=k.flavor),
                  role=role, workload=g, kueue_message=psf.text, resource=k.resource, flavor=k.flavor,
                  needed=k.needed, hint=hint, clauses=(*clauses, *preempting))


def _figures_differ(psf: km.PodSetFailure, ours: vd.PodSetVerdict | None) -> list[dict[str, Any]]:
    """Kueue's "maximum capacity (C)" for a flavor and resource where the ClusterQueue read now gives another
    figure (Kueue wrote it before the quota changed): each as {flavor, resource, field, kueue, read}. Empty when
    our arithmetic did not weigh that flavor (nothing read to hold it against) or the figures agree."""
    if ours is None:
        return []
    read: dict[tuple[str | None, str | None], Fraction] = {
        (a.flavor, c.resource): c.capacity for psa in (ours.own, ours.assignment) if psa is not None
        for a in psa.attempts for c in a.checks if c.capacity is not None and c.unknown is None}
    return [{"flavor": k.flavor, "resource": k.resource, "field": "maximumCapacity", "kueue": k.capacity,
             "read": read[(k.flavor, k.resource)]}
            for k in psf.reasons if k.kind == km.INSUFFICIENT_QUOTA and k.capacity is not None
            and read.get((k.flavor, k.resource)) not in (None, k.capacity)]


def _disagreeing(r: Reason, differs: list[dict[str, Any]]) -> Reason:
    """The reason the state read gives, saying where Kueue's message disagrees with it (its figures and ours)."""
    if not differs:
        return r
    return amended(r, params=read_only({**r.params, "kueueDisagrees": differs[0]}),
                   clauses=(*r.clauses, say("kueue.disagrees", **differs[0])))


def _retried_elsewhere(psf: km.PodSetFailure, ours: vd.PodSetVerdict | None) -> bool:
    """Kueue's words say a pod set can never fit only because of the pod sets before it in flavors it tried,
    while our arithmetic finds it a flavor: Kueue's retry starts from the flavor after the one it last tried (a
    state it keeps to itself), so its "never" is about that attempt, not the configuration (issue 37 W9)."""
    over = [r for r in psf.reasons if r.kind == km.INSUFFICIENT_QUOTA]
    if not over or len(over) != len(psf.reasons) or ours is None or ours.verdict != vd.FITS:
        return False
    return all(k.previous and k.capacity is not None and k.requested is not None and k.requested <= k.capacity
               for k in over)


def _other_flavor(psf: km.PodSetFailure, ours: vd.PodSetVerdict | None) -> dict[str, Any] | None:
    """Kueue's words and our arithmetic both find the pod set over a flavor's maximum capacity, but name different
    flavors (Kueue placed the pod sets before it elsewhere on its last attempt, 0.19 seed 46007): the reason, the
    table and `next:` follow the engine's one record, and Kueue's flavor and figure are said beside it."""
    over = [r for r in psf.reasons if r.kind == km.INSUFFICIENT_QUOTA]
    if not over or ours is None or ours.verdict != vd.BLOCKED or ours.code != "QuotaExceedsCapacity":
        return None
    b, k = ours.best, _closest(over)
    if b is None or k.flavor == b.flavor or k.capacity is None:
        return None
    return {"flavor": k.flavor, "resource": k.resource, "previous": k.previous, "requested": k.requested,
            "capacity": k.capacity, "needed": Fraction((k.previous or 0) + (k.requested or 0) - k.capacity)}


def _closest(over: list[Any]) -> Any:
    """Of the flavors Kueue found too small, the one closest to fitting (the smallest shortfall, Kueue's order
    on a tie): the flavor the engine's best attempt names too, so headline, table and `next:` name one flavor."""
    def short(k: Any) -> Fraction:
        if k.capacity is None:
            return Fraction(10**30)
        return Fraction((k.previous or 0) + (k.requested or 0) - k.capacity)
    return min(over, key=short)


def _over_capacity(psf: km.PodSetFailure, k: Any, role: str, g: str, ours: vd.PodSetVerdict | None) -> Reason:
    need = Fraction((k.previous or 0) + (k.requested or 0) - k.capacity) if k.capacity is not None else None
    r = Reason("QuotaExceedsCapacity",
               say("kueue.over-capacity", role=role, requested=k.requested, previous=k.previous, resource=k.resource,
                   flavor=k.flavor, capacity=k.capacity), role=role, workload=g,
               kueue_message=psf.text,
               resource=k.resource, flavor=k.flavor, requested=k.requested, available=k.capacity,
               needed=need,
               hint=say("next.raise-nominal", flavor=k.flavor, amount=need, resource=k.resource,
                        role=None if ours is not None and ours.verdict == vd.BLOCKED else role))
    return r
