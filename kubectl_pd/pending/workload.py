"""One Workload's story: its conditions, Kueue's message (0.18 free text and 0.19 tokens), admission checks,
eviction, and our arithmetic's numbers when Kueue gave none."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from kubectl_pd.cluster.source import Obj, name_of
from kubectl_pd.kueue import messages as km
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import Condition, ResourceFlavor, Workload, pod_requests, resource_flavor, workload
from kubectl_pd.kueue.quantity import format_cards, is_credits
from kubectl_pd.kueue.words import attempt_text, taint_text  # noqa: F401 - taint_text is read from here too
from kubectl_pd.pending import evictions as evm
from kubectl_pd.pending import topology as tp
from kubectl_pd.pending.gather import Facts
from kubectl_pd.pending.model import Reason, amount_of, more, say, short
from kubectl_pd.pending.queues import structural
from kubectl_pd.pending.roles import Unit, pod_role, podset_role

# Kueue 0.19 granular QuotaReserved reasons (UnadmittedWorkloadsObservability) -> our codes
_TOKENS = {
    "NoMatchingFlavor": "NoMatchingFlavor", "WaitingForQuota": "QuotaExhausted",
    "ExceedsMaxQuota": "QuotaExceedsCapacity", "TopologyPlacementFailed": "NoMatchingFlavor",
    "WaitingForPreemptedWorkloads": "PreemptionInProgress", "PendingEvaluation": "WaitingInQueue",
    "WaitingForPodsReady": "WaitingForPodsReady", "Waiting": "WaitingForPodsReady", "Deactivated": "Deactivated",
}


_MESSAGE_CODES = {
    "cq-inactive": "ClusterQueueInactive", "cq-not-found": "ClusterQueueMissing", "cq-missing": "ClusterQueueMissing",
    "cq-stopped": "ClusterQueueStopped", "lq-missing": "LocalQueueMissing", "lq-stopped": "LocalQueueStopped",
    "namespace-mismatch": "NamespaceNotAllowed", "namespace-missing": "NamespaceNotAllowed",
    "invalid-resources": "InvalidResources", "overlapping-preemption": "PreemptionInProgress",
    "preemption-gated": "PreemptionInProgress", "no-longer-fits": "WaitingInQueue",
    "pending-evaluation": "WaitingInQueue", "bypassed": "WaitingInQueue", "gate-cleared": "WaitingInQueue",
    "waiting-pods-ready": "WaitingForPodsReady", "deactivated": "Deactivated",
}


_CODE_TEXT = {
    "NamespaceNotAllowed": "the ClusterQueue's namespaceSelector does not admit this namespace",
    "InvalidResources": "Kueue refuses the pods' resource requests",
    "PreemptionInProgress": "Kueue is preempting other Workloads to make room",
    "WaitingInQueue": "waiting for the scheduler to reach it",
    "WaitingForPodsReady": "Kueue holds admissions until every admitted Workload's pods are ready",
    "Deactivated": "the Workload is deactivated",
    "QuotaExhausted": "not enough unused quota now",
    "QuotaExceedsCapacity": "the request exceeds what the queue can ever give",
    "NoMatchingFlavor": "no flavor matches",
}


def _pods(d: vd.RoleDemand, per_pod: Fraction | None, res: str) -> str:
    return f" ({d.count} pods x {short(per_pod, res)})" if per_pod is not None and d.count > 1 else ""


def _own_note(v: vd.PodSetVerdict, res: str) -> str:
    """Kueue's own number (its Workload alone), said apart from the joint one when they differ."""
    own = v.own
    if own is None:
        return ""
    ob = vd.blocker(own)
    b = v.best
    if ob is None or b is None or ob.needed is None or (ob.needed, ob.flavor) == (b.needed, b.flavor):
        return ""
    if vd.code_of(own) is None:
        return f" (its Workload alone would fit flavor {next(iter(own.flavors.values()), '?')} now)"
    return f" (its Workload alone: {more(ob.needed, ob.resource or res)} in flavor {ob.flavor})"


_QUOTA_CODES = ("QuotaExhausted", "NeedsPreemption", "QuotaExceedsCapacity", "QuotaUnknown")


def verdict_reasons(v: vd.PodSetVerdict, kueue: str | None, wl: str, prefix: str = "") -> list[Reason]:
    """Our arithmetic's verdict for one pod set, as reasons (with Kueue's message when it spoke)."""
    role = v.demand.role
    if v.code == "ResourceNotCovered":
        return [Reason("ResourceNotCovered", f"{prefix}{role} requests {', '.join(v.uncovered)}, which the "
                       f"ClusterQueue does not cover", role=role, workload=wl, kueue_message=kueue,
                       resource=v.uncovered[0],
                       hint=f"add {v.uncovered[0]} to the ClusterQueue's coveredResources, or drop the request")]
    if v.code in _QUOTA_CODES and v.best is not None and v.best.resource:
        return [_quota_reason(v, v.best, kueue, wl, prefix)]
    if v.code == "NoMatchingFlavor":
        parts = "; ".join(attempt_text(b) for b in v.attempts)
        first = v.attempts[0].flavor if v.attempts else None
        return [Reason("NoMatchingFlavor", f"{prefix}no flavor takes {role}: {parts}", role=role, workload=wl,
                       kueue_message=kueue, flavor=first,
                       hint=f"fix {role}'s nodeSelector/tolerations, or the flavors' nodeLabels/nodeTaints")]
    if v.code == "QuotaUnknown":
        return [Reason("QuotaUnknown", f"{prefix}whether {role} fits is unknown: a request could not be read",
                       role=role, workload=wl, kueue_message=kueue)]
    if v.code == "InvalidResources" and v.assignment is not None:
        return [_invalid_reason(role, bad, kueue, wl, prefix) for bad in v.assignment.invalid][:3]
    return []


def _invalid_reason(role: str, bad: Any, kueue: str | None, wl: str, prefix: str) -> Reason:
    where = f"container {bad.container}" if bad.container else "the pod"
    limit = "its limit" if bad.rule == "requests-exceed-limits" else "the namespace's LimitRange maximum"
    return Reason("InvalidResources", f"{prefix}{role}: {where} requests {short(bad.requested, bad.resource)}, above "
                  f"{limit} ({short(bad.limit, bad.resource)}): Kueue refuses it before trying any flavor",
                  role=role, workload=wl, kueue_message=kueue, resource=bad.resource, requested=bad.requested,
                  params={"rule": bad.rule, "container": bad.container, "limit": bad.limit},
                  hint=f"lower {role}'s {bad.resource} request to at most {short(bad.limit, bad.resource)}, or raise "
                       f"the limit")


def _quota_reason(v: vd.PodSetVerdict, best: vd.Blocker, kueue: str | None, wl: str, prefix: str) -> Reason:
    d, role, res = v.demand, v.demand.role, best.resource or ""
    total = d.requests.get(res, best.requested)
    per_pod = (total / d.count) if total is not None and d.count else None
    params = {"outcome": best.outcome, "previous": best.previous, "capacity": best.capacity,
              "nominal": best.nominal, "jointNeeded": v.joint_needed}
    if v.own is not None and (ob := vd.blocker(v.own)) is not None:
        params["kueueNeeded"] = ob.needed
    if v.code == "QuotaUnknown":
        what = "its cohort could not be read" if best.unknown == "cohort" else f"{best.unknown} is unreadable"
        msg = (f"{prefix}{role} asks {short(best.requested, res)} in flavor {best.flavor}, but {what}: whether "
               f"it fits is unknown")
        hint = ("grant get/list on clusterqueues and cohorts.kueue.x-k8s.io, or pass them with --from-file"
                if best.unknown == "cohort" else f"fix {best.unknown} of {res} in flavor {best.flavor}")
        return Reason(v.code, msg, role=role, workload=wl, kueue_message=kueue, resource=res,
                      flavor=best.flavor, requested=best.requested, hint=hint, params=params)
    if v.code in ("QuotaExhausted", "NeedsPreemption"):
        msg, hint, summary = _short_of_quota(v, best, per_pod, prefix)
    else:
        cap = best.capacity
        before = f" (next to {short(best.previous, res)} for the roles before it)" if best.previous else ""
        msg = (f"{prefix}{role} asks {short(best.requested, res)}{_pods(d, per_pod, res)}{before} but flavor "
               f"{best.flavor} can give at most {short(cap, res)}: never admitted as configured")
        hint = f"raise nominalQuota of {res} in flavor {best.flavor} by {short(best.needed, res)}"
        summary = (f"{prefix}{role} asks {short(best.requested, res)}{before} but flavor {best.flavor} can give at "
                   f"most {short(cap, res)}")
    return Reason(v.code or "Unknown", msg, role=role, workload=wl, kueue_message=kueue, resource=res,
                  flavor=best.flavor, requested=best.requested, available=best.available, needed=best.needed,
                  hint=hint, params=params, summary=summary)


def _short_of_quota(v: vd.PodSetVerdict, best: vd.Blocker, per_pod: Fraction | None,
                    prefix: str) -> tuple[str, str, str]:
    """QuotaExhausted / NeedsPreemption: (message, hint, headline clause)."""
    d, role, res = v.demand, v.demand.role, best.resource or ""
    placed = f", {amount_of(best.previous, res)} of them for the roles before it" if best.previous else ""
    msg = (f"{prefix}{role} needs {more(best.needed, res)} in flavor {best.flavor}: it asks "
           f"{short(best.requested, res)}{_pods(d, per_pod, res)}; {amount_of(best.available, res)} "
           f"{'are' if best.available != 1 else 'is'} free of {short(best.nominal, res)} nominal{placed}")
    msg += _own_note(v, res)
    if v.code == "NeedsPreemption":
        msg += "; it fits only by preempting other Workloads (which ones cannot be known from a snapshot)"
    free = v.joint_needed if v.joint_needed is not None and v.joint_needed > (best.needed or 0) else None
    hint = f"free {short(free or best.needed, res)} in flavor {best.flavor}"
    hint += " (what the roles need together)" if free is not None else ""
    return msg, hint, f"{prefix}{role} needs {more(best.needed, res)} in flavor {best.flavor}"


def workload_reasons(u: Unit, facts: Facts, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
                      now: datetime, notes: list[str], hypothetical: bool = False) -> list[Reason]:
    """The Workload's story; an admission-check retry loop or a preemption leads it (they explain why the
    Workload is back in the queue at all), what holds it now follows."""
    rest = _workload_reasons(u, facts, verdicts, now, notes, hypothetical)
    if u.workload is None or u.admitted or any(r.code in ("NotPending", "Deactivated") for r in rest):
        return rest
    wl, events = facts.wl(u.workload), facts.event_views()
    loop = evm.retry_loop(wl, events)
    if loop is not None:
        head = retry_loop_reason(loop, u, facts)
        return [head] + [r for r in rest if r.code not in ("AdmissionCheckPending", "Evicted")]
    pre = evm.preemption_of(wl, events) if not u.reserved else None
    if pre is not None:
        return [preempted_reason(pre, u, facts)] + rest  # an Evicted reason after it says the back-off
    return rest


def retry_loop_reason(loop: evm.RetryLoop, u: Unit, facts: Facts) -> Reason:
    """AdmissionCheckRetryLoop: how many times, since when, the check's words; for gpustack-node-devices the
    per-card fit labels of the flavor's nodes (largest free slice vs what one Pod asks)."""
    g = u.group
    params: dict[str, Any] = {"check": loop.check, "times": loop.times, "since": loop.since,
                              "requeueAt": loop.requeue_at, "state": loop.state}
    msg = (f"admission check {loop.check} answered Retry and Kueue evicted and requeued Workload {g} "
           f"{loop.times} times" + (f" since {loop.since}" if loop.since else "")
           + (f"; next requeue at {loop.requeue_at}" if loop.requeue_at else ""))
    hint = f"free devices on the flavor's nodes, or ask {loop.check}'s controller why it retries"
    role = None
    if loop.check == evm.NODE_DEVICES:
        frag = _fragmentation(u, facts)
        if frag is not None:
            params["fragmentation"] = frag
            short_of = [r for r, ok in frag["fits"].items() if ok is False]
            most = []
            if frag.get("mostFreeCards") is not None:
                most.append(f"{_n(frag['mostFreeCards'])} free card(s) on one node ({frag['mostFreeCardsNode']})")
            if frag.get("largestFreeSlice") is not None:
                most.append(f"a free slice of {format_cards(frag['largestFreeSlice'])} on one card "
                            f"({frag['largestFreeSliceNode']})")
            asks = ", ".join(f"a {r} pod asks {format_cards(a)}" for r, a in frag["podAsks"].items() if a is not None)
            if most and asks:
                msg += (f"; GPUStack's fit labels show at most {' and '.join(most)}, while {asks}"
                        + (": the free cards are fragmented across nodes" if short_of else ""))
            if short_of:
                role = short_of[0]
                hint = (f"free whole cards on one node of flavor {', '.join(frag.get('flavors') or ['?'])} (drain or "
                        f"defragment it), or give {role} fewer cards per pod")
        elif any(v is None for v in facts.nodes.values()):
            params["fragmentation"] = None  # the flavor's Nodes could not be read: a note says so
    return Reason("AdmissionCheckRetryLoop", msg, role=role, workload=g, kueue_message=loop.message,
                  params=params, hint=hint)


def _n(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{float(q):.3g}"


def _fragmentation(u: Unit, facts: Facts) -> dict[str, Any] | None:
    nodes: dict[str, Obj] = {}
    flavors = [f for f, ns in facts.nodes.items() if ns]
    for f in flavors:
        for n in facts.nodes.get(f) or []:
            nodes.setdefault(name_of(n), n)
    if not nodes:
        return None
    key = next((k for f in flavors if (k := evm.accelerator_key(_flavor(facts, f)))), None)
    asks: dict[str, Fraction | None] = {}
    role_names = set(u.roles)
    for p in u.pods:
        r = pod_role(p, role_names)
        if r not in asks:
            req = pod_requests(p.get("spec"))
            asks[r] = next((q for res, q in req.items() if is_credits(res)), None)
    frag = evm.fragmentation(evm.fit_labels(list(nodes.values()), key), asks)
    if frag is None:
        return None
    frag["flavors"] = flavors
    frag["acceleratorKey"] = key
    return frag


def _flavor(facts: Facts, name: str) -> ResourceFlavor | None:
    obj = facts.flavors.get(name)
    return resource_flavor(obj) if obj is not None else None


def preempted_reason(pre: tuple[str | None, str | None, evm.PreemptionMessage | None], u: Unit, facts: Facts) -> Reason:
    """Preempted: by whom (UID, its ClusterQueue, ours or not), by which rule; the pair effect is said by
    the diagnosis, which sees every role's Workload."""
    rule, message, p = pre
    g = u.group
    by_uid = {facts.wl(w).uid: n for n, w in facts.workloads.items() if w is not None}
    name = by_uid.get(p.uid or "") if p is not None else None
    cq = p.preemptor_queue if p is not None else None
    params: dict[str, Any] = {"rule": rule, "preemptorUID": p.uid if p else None,
                              "preemptorJobUID": p.job_uid if p else None, "preemptorClusterQueue": cq,
                              "preemptorWorkload": name, "preemptorPath": p.preemptor_path if p else None,
                              "preempteePath": p.preemptee_path if p else None,
                              "preemptorPriority": p.preemptor_priority if p else None,
                              "preempteePriority": p.preemptee_priority if p else None}
    who = f"Workload {name}" if name else (f"a Workload (UID {p.uid})" if p and p.uid else "another Workload")
    msg = (f"Workload {g} was preempted by {who}" + (f" of ClusterQueue {cq}" if cq else "")
           + (f" ({rule})" if rule else ""))
    return Reason("Preempted", msg, workload=g, kueue_message=message, params=params,
                  hint="raise the deployment's priority, or give its ClusterQueue nominal quota the cohort cannot "
                       "reclaim")


def _patch_active(g: str, ns: str) -> str:
    return f"kubectl patch workload {g} -n {ns} --type merge -p '{{\"spec\":{{\"active\":true}}}}'"


def _workload_reasons(u: Unit, facts: Facts, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
                      now: datetime, notes: list[str], hypothetical: bool = False) -> list[Reason]:
    """`hypothetical` (--what-if): Kueue's last message is about the real demand, so only our engine speaks
    for quota."""
    wl = facts.wl(u.workload) if u.workload is not None else workload({})
    g = u.group
    u.reserved, u.admitted = wl.reserved, wl.admitted
    if wl.finished:
        return [Reason("NotPending", f"Workload {g} is finished", workload=g)]
    if not wl.active:
        return [_deactivated(wl, g, facts.target.namespace)]
    if u.admitted:
        return [Reason("NotPending", f"Workload {g} is admitted", workload=g)]
    if u.reserved:
        return _reserved(wl, g, facts.target.namespace)
    evicted = _waiting_for_requeue(wl, g, now)
    if evicted is not None:
        return [evicted]
    ev = wl.condition("Evicted")
    if ev is not None and ev.true:
        notes.append(f"Workload {g} was evicted ({ev.reason}) and has been requeued: {ev.message}".rstrip(": "))
    return _queued(u, wl, facts, verdicts, notes, hypothetical)


def _deactivated(wl: Workload, g: str, ns: str) -> Reason:
    dt, ev = wl.condition("DeactivationTarget"), wl.condition("Evicted")
    parked = next((c for c in wl.admission_checks if km.PARKED_MARKER in c.message), None)
    kmsg = (parked.message if parked else None) or (dt.message if dt else None) or (ev.message if ev else None)
    why = "parked by GPUStack's joint admission check after waiting 30 minutes" if parked else "spec.active is false"
    return Reason("Deactivated", f"Workload {g} is deactivated: {why}", workload=g, kueue_message=kmsg or None,
                  hint=("free capacity for every role, then reactivate: " if parked else "reactivate: ")
                  + _patch_active(g, ns))


def _reserved(wl: Workload, g: str, ns: str) -> list[Reason]:
    """Quota is reserved: the admission checks say what holds the admission."""
    out = []
    for c in wl.admission_checks:
        if c.state == "Rejected":
            out.append(Reason("AdmissionCheckRejected", f"admission check {c.name} rejected Workload {g}",
                              workload=g, kueue_message=c.message or None,
                              hint=f"fix what {c.name} reports, then reactivate: {_patch_active(g, ns)}"))
        elif c.state in ("Pending", "Retry"):
            joint = "joint" in c.name
            what = ("waits for every replica of every role to reserve quota" if joint else
                    "retries: no node has the free devices yet" if c.state == "Retry" else "has not answered yet")
            out.append(Reason("AdmissionCheckPending", f"quota is reserved; admission check {c.name} is "
                              f"{c.state}: it {what}", workload=g, kueue_message=c.message or None,
                              hint=("the other roles must reserve quota first (see their reasons)" if joint
                                    else f"wait for {c.name}, or free devices on the flavor's nodes")))
    if out:
        return out
    adm = wl.condition("Admitted")
    return [Reason("Unknown", f"quota is reserved but Workload {g} is not admitted yet", workload=g,
                   kueue_message=(adm.message if adm else None) or None)]


def _waiting_for_requeue(wl: Workload, g: str, now: datetime) -> Reason | None:
    """Evicted and not requeued yet: the back-off explains the wait."""
    ev, requeued = wl.condition("Evicted"), wl.condition("Requeued")
    if ev is None or not ev.true or (requeued is not None and requeued.true):
        return None
    rs = wl.requeue_state
    at = rs.requeue_at if rs is not None else None
    when = ""
    if at is not None:
        when = f"; requeued at {at}"
        t = _parse_time(at)
        if t is not None and t > now:
            when += f" (in {_human((t - now).total_seconds())})"
    count = rs.count if rs is not None else None
    pre = km.parse_preempted(ev.message)
    detail = f" (preempted for {pre})" if pre else ""
    return Reason("Evicted", f"Workload {g} was evicted ({ev.reason or '?'}){detail}"
                  + (f", {count} time{'s' if count != 1 else ''}" if count else "") + when,
                  workload=g, kueue_message=ev.message or None,
                  hint="wait for the requeue back-off" if at else "wait for Kueue to requeue it")


def _queued(u: Unit, wl: Workload, facts: Facts, verdicts: dict[tuple[str, str], vd.PodSetVerdict],
            notes: list[str], hypothetical: bool) -> list[Reason]:
    """In the queue, no reservation: queue problems, then Kueue's words, then our arithmetic."""
    g = u.group
    qr = wl.condition("QuotaReserved")
    ps_roles = {ps.name: podset_role(ps, u.pods, set(u.roles)) for ps in wl.pod_sets}
    queue_problems = structural(facts, u.queue, g)
    qr_reason = qr.reason if qr is not None else ""
    qr_msg = qr.message if qr is not None and qr.status == "False" and not hypothetical else None
    parsed = km.parse_message(qr_msg) if qr_msg else None
    kueue_reasons = _kueue_reasons(parsed, qr_reason, ps_roles, g, verdicts, facts, u) if parsed else []
    if queue_problems:
        if kueue_reasons and not any(r.code == queue_problems[0].code for r in kueue_reasons):
            notes.append(f"Kueue's last message for {g} says something else: {qr_msg}")
        elif qr_msg:
            for r in queue_problems:
                r.kueue_message = r.kueue_message or qr_msg
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
    if out:
        if untouched:
            for r in out:
                r.clauses.append(say("ours.not-evaluated"))
        return out
    if qr is not None and qr.reason in ("Waiting", "WaitingForPodsReady"):
        return [Reason("WaitingForPodsReady", "Kueue holds admissions until every admitted Workload's pods "
                       "are ready (waitForPodsReady.blockAdmission)", workload=g, kueue_message=qr.message or None,
                       hint="wait for the running Workloads' pods to become ready")]
    msg = "fits the free quota now; waiting for the scheduler to reach it"
    if untouched:
        msg += " (no scheduler has evaluated this Workload yet)"
    return [Reason("WaitingInQueue", msg, workload=g, kueue_message=qr_msg or None,
                   hint="wait: it is queued behind other Workloads")]


def _parse_time(text: str) -> datetime | None:
    """RFC 3339 as Kubernetes writes it; a time without a zone is taken as UTC."""
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _human(secs: float) -> str:
    s = int(secs)
    if s < 120:
        return f"{s}s"
    if s < 7200:
        return f"{s // 60}m"
    if s < 3 * 86400:
        return f"{s // 3600}h"
    return f"{s // 86400}d"


def _kueue_reasons(parsed: km.Message, token: str, ps_roles: dict[str, str], g: str,
                   verdicts: dict[tuple[str, str], vd.PodSetVerdict], facts: Facts, u: Unit) -> list[Reason]:
    text = parsed.text
    ns = facts.target.namespace
    if parsed.kind in _MESSAGE_CODES:
        code = _MESSAGE_CODES[parsed.kind]
        if parsed.kind in ("cq-inactive", "cq-not-found", "cq-missing", "cq-stopped", "lq-missing", "lq-stopped"):
            return structural(facts, u.queue, g, kueue=text, fallback=(code, parsed.subject))
        hint = {
            "NamespaceNotAllowed": f"label namespace {ns} to match the ClusterQueue's namespaceSelector",
            "InvalidResources": "fix the pods' requests and limits (Kueue's words above)",
            "PreemptionInProgress": "wait: Kueue is preempting lower-priority Workloads to make room",
            "WaitingInQueue": "wait: Kueue will try again",
            "WaitingForPodsReady": "wait for the running Workloads' pods to become ready",
        }.get(code)
        return [Reason(code, _CODE_TEXT.get(code, code), workload=g, kueue_message=text, hint=hint)]
    if parsed.kind == "failed-admission-checks":
        out = []
        checks = facts.wl(u.workload).admission_checks if u.workload is not None else ()
        for c in checks:
            if c.state == "Rejected":
                out.append(Reason("AdmissionCheckRejected", f"admission check {c.name} rejected it",
                                  workload=g, kueue_message=c.message or text))
            elif c.state == "Retry":
                out.append(Reason("AdmissionCheckPending", f"admission check {c.name} asks to retry",
                                  workload=g, kueue_message=c.message or text))
        return out or [Reason("AdmissionCheckRejected", "an admission check failed", workload=g, kueue_message=text)]
    if parsed.kind == "hard-error":
        role = ps_roles.get(parsed.subject or "", parsed.subject)
        return [Reason("Unknown", f"Kueue could not assign flavors to {role}", role=role, workload=g,
                       kueue_message=text)]
    if parsed.kind == "flavors":
        out = []
        for psf in parsed.pod_sets:
            role = ps_roles.get(psf.pod_set, psf.pod_set)
            ours = verdicts.get((g, psf.pod_set))
            out.extend(_topology_reasons(psf, role, g, u, facts) or _podset_reasons(psf, role, g, parsed, ours))
        if out:
            return out
    code = _TOKENS.get(token)
    if code is not None:
        return [Reason(code, _CODE_TEXT.get(code, code), workload=g, kueue_message=text)]
    return [Reason("Unknown", "Kueue's reason is not one kubectl-pd knows; its words follow", workload=g,
                   kueue_message=text, hint=f"kubectl describe workload {g} -n {ns}")]


def _topology_reasons(psf: km.PodSetFailure, role: str, g: str, u: Unit, facts: Facts) -> list[Reason]:
    """TopologyUnsatisfied: Kueue's not-fit words for a TAS flavor, with the pod set's requested level."""
    out = []
    for fr in psf.reasons:
        if fr.kind != km.TOPOLOGY:
            continue
        nums = tp.parse_not_fit(fr.text)
        if nums is None:
            continue
        wl = facts.wl(u.workload) if u.workload is not None else None
        req = tp.request_of(next((ps for ps in wl.pod_sets if ps.name == psf.pod_set), None) if wl else None)
        flavors = tp.tas_flavors(facts.flavors, nums["topology"])
        params = {**nums, **{k: v for k, v in req.items() if v is not None}, "podSet": psf.pod_set,
                  "flavors": flavors}
        level = req.get("level")
        where = f" in one {level} domain" if level and req.get("mode") == "required" else (
            f" (preferring one {level} domain)" if level else "")
        if nums.get("fit") is not None:
            what = (f"topology {nums['topology']} fits only {nums['fit']} of {role}'s {nums['total']} "
                    f"{nums['unit']}(s){where}")
        else:
            layers = "; ".join(f"{x['fit']}/{x['needed']} slices fit on level {x['level']}"
                               for x in nums.get("sliceLayers", []))
            what = f"topology {nums['topology']} cannot fit {role}{where}" + (f": {layers}" if layers else "")
        if flavors:
            what += f" (TAS flavor {', '.join(flavors)})"
        hint = (f"free {nums['total'] - nums['fit']} more {nums['unit']}(s) of room in one {level} domain, relax "
                f"{role}'s required topology to preferred, or scale {role} down"
                if nums.get("fit") is not None and level else
                f"relax {role}'s topology request or free nodes in the topology {nums['topology']}")
        out.append(Reason("TopologyUnsatisfied", what, role=role, workload=g, kueue_message=psf.text,
                          flavor=flavors[0] if flavors else None, params=params, hint=hint))
    return out


def _podset_reasons(psf: km.PodSetFailure, role: str, g: str, parsed: km.Message,
                    ours: vd.PodSetVerdict | None) -> list[Reason]:
    """One pod set's failure in Kueue's words, numbers first from our arithmetic when both agree on it."""
    kinds = {r.kind for r in psf.reasons}
    if km.RESOURCE_UNAVAILABLE in kinds:
        res = next(r.resource for r in psf.reasons if r.kind == km.RESOURCE_UNAVAILABLE)
        return [Reason("ResourceNotCovered", f"{role} requests {res}, which the ClusterQueue does not cover",
                       role=role, workload=g, kueue_message=psf.text, resource=res,
                       hint=f"add {res} to the ClusterQueue's coveredResources, or drop the request")]
    unused = [r for r in psf.reasons if r.kind == km.INSUFFICIENT_UNUSED]
    if unused:
        return [_insufficient_unused(psf, unused, role, g, parsed, ours)]
    over = [r for r in psf.reasons if r.kind == km.INSUFFICIENT_QUOTA]
    if over:
        return [_over_capacity(psf, over[0], role, g, ours)]
    flavorish = [r for r in psf.reasons if r.kind in (km.NODE_AFFINITY, km.UNTOLERATED_TAINT, km.FLAVOR_NOT_FOUND,
                                                       km.TOPOLOGY, km.SKIPPED)]
    if flavorish:
        parts = "; ".join(r.text for r in psf.reasons)
        return [Reason("NoMatchingFlavor", f"no flavor takes {role}: {parts}", role=role, workload=g,
                       kueue_message=psf.text, flavor=flavorish[0].flavor,
                       hint=f"fix {role}'s nodeSelector/tolerations, or the flavors' nodeLabels/nodeTaints "
                            f"(kubectl get resourceflavors -o yaml)")]
    return [Reason("Unknown", f"Kueue could not place {role}", role=role, workload=g, kueue_message=psf.text)]


def _insufficient_unused(psf: km.PodSetFailure, unused: list[Any], role: str, g: str, parsed: km.Message,
                         ours: vd.PodSetVerdict | None) -> Reason:
    k = min(unused, key=lambda r: r.needed if r.needed is not None else Fraction(10**30))
    code = "PreemptionInProgress" if parsed.preempting else "QuotaExhausted"
    mine = verdict_reasons(ours, None, g) if ours is not None and ours.verdict == vd.BLOCKED else []
    if mine and mine[0].code in ("QuotaExhausted", "NeedsPreemption", "QuotaExceedsCapacity"):
        r = mine[0]
        r.kueue_message = psf.text
        if mine[0].code == "QuotaExhausted" or parsed.preempting:
            r.code = code
        if r.needed != k.needed or r.flavor != k.flavor:
            r.clauses.append(say("kueue.alone-says", role=role, needed=k.needed, resource=k.resource, flavor=k.flavor))
    else:
        r = Reason(code, f"{role} needs {more(k.needed, k.resource)} in flavor {k.flavor}", role=role,
                   workload=g, kueue_message=psf.text, resource=k.resource, flavor=k.flavor, needed=k.needed,
                   hint=f"free {short(k.needed, k.resource)} in flavor {k.flavor}")
        if ours is not None and ours.verdict == vd.FITS:
            r.clauses.append(say("ours.fits-now", role=role, flavor=ours.flavor))
    if parsed.preempting:
        r.clauses.append(say("kueue.preempting", count=parsed.preempting))
        r.hint = "wait for the preemption to finish"
    return r


def _over_capacity(psf: km.PodSetFailure, k: Any, role: str, g: str, ours: vd.PodSetVerdict | None) -> Reason:
    need = (k.previous or 0) + (k.requested or 0) - (k.capacity or 0) if k.capacity is not None else None
    before = f" (after {short(k.previous, k.resource)} for the pod sets before it)" if k.previous else ""
    r = Reason("QuotaExceedsCapacity",
               f"{role} asks {short(k.requested, k.resource)}{before} but flavor {k.flavor} can give at most "
               f"{short(k.capacity, k.resource)}: never admitted as configured", role=role, workload=g,
               kueue_message=psf.text,
               resource=k.resource, flavor=k.flavor, requested=k.requested, available=k.capacity,
               needed=Fraction(need) if need is not None else None,
               hint=f"raise nominalQuota in flavor {k.flavor} by {short(need, k.resource)}, or scale {role} down")
    if ours is not None and ours.verdict == vd.BLOCKED:
        r.hint = f"raise nominalQuota in flavor {k.flavor} by {short(need, k.resource)}"
    return r
