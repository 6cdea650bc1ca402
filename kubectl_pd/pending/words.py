"""why-pending's English, in one place: what each reason says (keyed by the sentence ids the diagnosis
returns with its codes), the clauses later steps add, and the headline. The text screen and the message
field of -o json/yaml both read it; nothing in the diagnosis reads back what is written here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from kubectl_pd import memo
from kubectl_pd.cluster import kinds
from kubectl_pd.kueue.admission import Invalid
from kubectl_pd.kueue.quantity import format_cards, is_credits
from kubectl_pd.kueue.verdicts import ADMITTED, FITS, Blocker, FlavorBar
from kubectl_pd.kueue.words import attempt_text
from kubectl_pd.labels import GROUP_LABEL, MANAGED_LABEL, QUEUE_LABEL
from kubectl_pd.pending.model import Diagnosis, Reason, RoleRow, Say, amount_of, more, short
from kubectl_pd.pending.pods import Unschedulable
from kubectl_pd.pending.roles import FAST_ADMISSION, TOTAL_COUNT
from kubectl_pd.pending.say import OnFlavor, PartlyPreempted, QuotaAsk, Read
from kubectl_pd.pending.target import IncompleteError, Target, Unread

TARGET_WORDS = {"ModelDeployment": "modeldeployment", "Workload": "workload", "PodGroup": "pod group", "Pod": "pod",
                "LeaderWorkerSet": "leaderworkerset", "DisaggregatedSet": "disaggregatedset",
                "Deployment": "deployment", "StatefulSet": "statefulset",
                "LLMInferenceService": "llminferenceservice"}


def text(x: Say | None) -> str:
    if x is None:
        return ""
    return SENTENCES[x.id](**x.args) if x.args else _bare(x.id)


@memo.per_run(256)
def _bare(id: str) -> str:  # noqa: A002 - a sentence's id
    """A sentence that names no value (a note every item of a run repeats), written once."""
    return SENTENCES[id]()


def message(r: Reason) -> str:
    """The reason's message: its sentence, then what later steps added."""
    return text(r.message) + "".join(text(c) for c in r.clauses)


def _leads_with_role(x: Say) -> bool:
    return x.id in ROLE_FIRST and not x.args.get("prefix")


def headline(d: Diagnosis) -> str:
    """`<kind> <ns>/<name> is pending (<Code>): <role>: <the first reason's clause>`."""
    t = d.target
    what = TARGET_WORDS.get(t.kind, t.kind)
    if d.what_if:
        return _what_if_headline(d)
    if not d.pending:
        return f"{what} {t.namespace}/{t.name} is not pending: {message(d.reasons[0]) if d.reasons else 'admitted'}"
    r = d.reasons[0]
    first = r.summary if r.summary is not None else r.message
    first_text = text(first) if r.summary is not None else message(r)
    who = f"{r.role}: " if r.role and not _leads_with_role(first) else ""
    return f"{what} {t.namespace}/{t.name} is pending ({r.code}): {who}{first_text}"


def story(d: Diagnosis) -> str | None:
    """The PD story in one line (several roles, not all admitted), None otherwise."""
    from kubectl_pd.pending.target import OWNER_KINDS

    # what a PD framework makes, one Workload per role's group: Kueue admits each apart
    apart = d.target.kind in OWNER_KINDS and d.shape != "pd-atomic"
    return _story(d.roles, d.reasons, "apart" if apart else d.shape, d.joint)


def _story(rows: list[RoleRow], reasons: list[Reason], shape: str,
           joint: dict[tuple[str, str], Fraction]) -> str | None:
    """The PD story in one line: which role would fit, which needs what (Kueue's per-pod-set number), what
    they need together (the joint shortfall), and that admission is atomic."""
    if len(rows) < 2 or not any(row.verdict != ADMITTED for row in rows):
        return None
    if reasons and reasons[0].code == "AllReplicasTerminating":
        return None  # the story is the quota's; a group going away has none
    parts = [_role_part(row, reasons, shape, bool(joint)) for row in rows]
    together = [f"{more(q, res)} in flavor {f}" for (f, res), q in sorted(joint.items())]
    if together and sum(1 for row in rows if row.verdict != ADMITTED and not row.reserved) > 1 \
            or together and shape == "per-replica":
        parts.append("together they need " + " and ".join(together))
    tail = "atomic admission holds " + ("both" if len(rows) == 2 else "all of them") if shape != "apart" else \
        "Kueue admits each of their Workloads apart"
    return "; ".join(parts) + "; " + tail


def _role_part(row: RoleRow, reasons: list[Reason], shape: str, joint: bool) -> str:
    """One role's clause of the story."""
    r = next((x for x in reasons if x.role == row.name and x.code != "NotPending"), None)
    if row.verdict == ADMITTED:
        return f"{row.name} is admitted"
    if row.reserved:
        return f"{row.name} holds its quota"
    if row.verdict == FITS:
        return f"{row.name} would fit now" if not joint else f"{row.name} would fit alone"
    if r is None:
        return f"{row.name}: {row.verdict}"
    if r.code in ("QuotaExhausted", "NeedsPreemption", "PreemptionInProgress") and r.needed is not None:
        each = " each" if shape == "per-replica" and (row.want or 0) > 1 else ""
        return f"{row.name} needs {more(r.needed, r.resource)}{each}"
    if r.code == "QuotaExceedsCapacity":
        return f"{row.name} can never fit as configured"
    if r.code == "PodGroupIncomplete":
        return f"{row.name} has {row.have}/{row.want if row.want is not None else '?'} pods"
    return f"{row.name}: {r.code}"


def assumption(d: Diagnosis) -> str:
    """`decode at 1 replica, prefill at 2 replicas`."""
    return ", ".join(f"{r} at {n} replica{'s' if n != 1 else ''}" for r, n in d.what_if.items())


def what_if_verdict(d: Diagnosis) -> str:
    """fits (every role fits or is admitted under the assumption) | blocked | unknown."""
    if any(r.verdict == "blocked" for r in d.roles):
        return "blocked"
    return "fits" if d.roles and all(r.verdict in (FITS, ADMITTED) for r in d.roles) else "unknown"


def _what_if_headline(d: Diagnosis) -> str:
    head = f"with {assumption(d)}: "
    verdict = what_if_verdict(d)
    if verdict == "fits":
        return head + "every role fits now"
    r = next((x for x in d.reasons if x.code != "NotPending"), None)
    if r is None:
        return head + ("still blocked" if verdict == "blocked" else "whether every role fits is unknown")
    first = r.summary if r.summary is not None else r.message
    who = f"{r.role}: " if r.role and not _leads_with_role(first) else ""
    said = text(first) if r.summary is not None else message(r)
    return head + ("still blocked: " if verdict == "blocked" else "not known to fit: ") + f"{who}{said} ({r.code})"


def real_state(d: Diagnosis) -> str:
    """The line under a what-if headline: the state as read, named as such."""
    t = d.target
    state = "pending" if d.pending else "not pending"
    return (f"real state: {TARGET_WORDS.get(t.kind, t.kind)} {t.namespace}/{t.name} is {state}; the roles, quota "
            f"and reasons below assume {assumption(d)} (nothing was changed in the cluster)")


# Sentences whose text begins with the role's name (when no prefix such as "once composed, " is given).
ROLE_FIRST: set[str] = set()

SENTENCES: dict[str, Callable[..., str]] = {}


def _sentence(id: str, *, role_first: bool = False) -> Callable[[Callable[..., str]], Callable[..., str]]:  # noqa: A002
    def register(fn: Callable[..., str]) -> Callable[..., str]:
        SENTENCES[id] = fn
        if role_first:
            ROLE_FIRST.add(id)
        return fn
    return register


def _unused(**_kw: Any) -> str:
    return ""


# -- clauses that later steps add to a reason's message ------------------------------------------------

@_sentence("queue.position")
def _position(position: int, cq: str | None) -> str:
    return f"; position {position} in ClusterQueue {cq}" + (f" ({position - 1} ahead)" if position > 1 else " (next)")


@_sentence("queue.ahead-ask")
def _ahead_ask(requests: dict[str, Fraction]) -> str:
    return "; the Workloads ahead ask " + ", ".join(short(q, res) for res, q in sorted(requests.items()))


@_sentence("queue.blocks-once-composed")
def _blocks_once_composed() -> str:
    return " (it will block the group once Kueue composes it)"


@_sentence("preempted.by-our-own")
def _by_our_own(roles: list[str]) -> str:
    return f", one of this deployment's own Workloads ({', '.join(roles) or '?'})"


@_sentence("preempted.holders")
def _holders(holders: list[str], lost: list[str]) -> str:
    return (f"; {', '.join(holders)} still hold{'s' if len(holders) == 1 else ''} quota for nothing: "
            f"the pair cannot serve without {', '.join(lost) or 'the lost role'}")


@_sentence("preempted.all-lost")
def _all_lost(roles: list[str]) -> str:
    return f"; every role of the pair ({', '.join(roles)}) lost its quota together (atomic)"


@_sentence("ours.not-evaluated")
def _not_evaluated() -> str:
    return " (our arithmetic; no scheduler has evaluated this Workload yet)"


@_sentence("ours.fits-now")
def _fits_now(role: str, flavor: str | None) -> str:
    return (f"; on the usage read now, our arithmetic says {role} fits flavor {flavor} (Kueue's message is from its "
            f"last attempt)")


@_sentence("kueue.alone-says")
def _alone_says(role: str, needed: Fraction | None, resource: str | None, flavor: str | None) -> str:
    return f" (Kueue, counting {role} alone against what is free, says {more(needed, resource)} in flavor {flavor})"


@_sentence("kueue.said-ago")
def _said_ago(at: str) -> str:
    return f" (Kueue's message of {at})"


@_sentence("kueue.disagrees")
def _kueue_disagrees(**p: Any) -> str:  # flavor, resource, field, kueue, read; role, at, age
    resource, age, at = p.get("resource"), p.get("age"), p.get("at")
    what = {"maximumCapacity": "can give at most"}.get(p["field"], p["field"])
    when = f" ({_human(age)} ago)" if age is not None else (f" (of {at})" if at else "")
    return (f"; Kueue's message{when} says flavor {p.get('flavor')} {what} {short(p.get('kueue'), resource)}, but the "
            f"ClusterQueue read gives {short(p.get('read'), resource)}: the state read decides")


@_sentence("kueue.other-flavor")
def _kueue_other_flavor(flavor: str | None, resource: str | None, previous: Fraction | None,
                        requested: Fraction | None, capacity: Fraction | None, needed: Fraction | None) -> str:
    before = f" after {short(previous, resource)} for the pod sets before it" if previous else ""
    return (f" (Kueue's last attempt names flavor {flavor} instead: it asks {short(requested, resource)} there"
            f"{before}, over its maximum of {short(capacity, resource)})")


@_sentence("kueue.preempting")
def _preempting(count: int) -> str:
    return f"; Kueue is preempting {count} workload(s) to make room"


# -- queues ---------------------------------------------------------------------------------------------

@_sentence("lq.missing")
def _lq_missing(lq: str, ns: str) -> str:
    return f"LocalQueue {lq} does not exist in namespace {ns}"


@_sentence("lq.stopped")
def _lq_stopped(lq: str, stop: str) -> str:
    return f"LocalQueue {lq} is stopped (stopPolicy {stop})"


@_sentence("cq.missing")
def _cq_missing(cq: str, lq: str) -> str:
    return f"ClusterQueue {cq} (named by LocalQueue {lq}) does not exist"


@_sentence("cq.stopped")
def _cq_stopped(cq: str, stop: str) -> str:
    return f"ClusterQueue {cq} is stopped (stopPolicy {stop})"


def _cause_text(c: dict[str, Any]) -> str:
    names = c["names"]
    if c["kind"] == "missing-flavors":
        return f"ResourceFlavor(s) {', '.join(names)} do not exist"
    if c["kind"] == "missing-checks":
        return f"AdmissionCheck(s) {', '.join(names)} do not exist"
    if c["kind"] == "inactive-checks":
        detail = [f"{n}: {m}" for n, m in c["detail"]]
        return f"AdmissionCheck(s) {', '.join(names)} are inactive" + (f" ({'; '.join(detail)})" if detail else "")
    if c["kind"] == "missing-topology":
        return f"Topology {names[0] if names else '?'} of a TAS flavor does not exist"
    if c["kind"] == "stopped":
        return "it is stopped"
    return str(c["text"])


@_sentence("cq.inactive")
def _cq_inactive(cq: str, causes: list[dict[str, Any]], reason: str) -> str:
    return f"ClusterQueue {cq} is inactive: " + ("; ".join(_cause_text(c) for c in causes) or reason or "not active")


def _miss_text(miss: tuple[str, ...]) -> str:
    if miss[0] == "null":
        return "the selector is null, which selects no namespace"
    if miss[0] == "label":
        return f"needs label {miss[1]}={miss[2]}"
    key, op, vals = miss[1], miss[2], list(miss[3:])
    return f"needs {key} {op} {vals}" if vals else f"needs {key} {op}"


@_sentence("cq.namespace-not-selected")
def _namespace_not_selected(cq: str, ns: str, miss: tuple[str, ...]) -> str:
    return f"ClusterQueue {cq}'s namespaceSelector does not select namespace {ns} ({_miss_text(miss)})"


_QUEUE_WORDS = {"LocalQueueMissing": "LocalQueue {} does not exist", "LocalQueueStopped": "LocalQueue {} is stopped",
                "ClusterQueueMissing": "ClusterQueue {} does not exist",
                "ClusterQueueStopped": "ClusterQueue {} is stopped",
                "ClusterQueueInactive": "ClusterQueue {} is inactive"}


@_sentence("queue.from-kueue")
def _from_kueue(code: str, subject: str | None) -> str:
    what = _QUEUE_WORDS.get(code, code + " {}")
    return what.format(subject or "?") + " (Kueue's words; the queue itself was not read)"


# -- a Workload's story -------------------------------------------------------------------------------

_CODE_TEXT = {
    "NamespaceNotAllowed": "the ClusterQueue's namespaceSelector does not admit this namespace",
    "InvalidResources": "Kueue refuses the pods' resource requests",
    "PreemptionInProgress": "Kueue is preempting other Workloads to make room",
    "WaitingInQueue": "waiting for the scheduler to reach it",
    "WaitingForPodsReady": "Kueue holds admissions until every admitted Workload's pods are ready",
    "Misconfigured": "Kueue finds the Workload's queue configuration broken",
    "QueueSuspended": "Kueue holds it: its LocalQueue or ClusterQueue is stopped or inactive",
    "AdmissionGated": "an admission gate (kueue.x-k8s.io/admission-gated-by) holds it",
    "OnHold": "its quota was released on purpose and it is not requeued",
    "DRAResourcesUnresolved": "Kueue cannot resolve its DRA resources to quota",
    "PodsUnscheduledTimeout": "it was admitted, but its pods stayed unscheduled past Kueue's timeout: evicted and "
                              "requeued",
    "Deactivated": "the Workload is deactivated",
    "QuotaExhausted": "not enough unused quota now",
    "QuotaExceedsCapacity": "the request exceeds what the queue can ever give",
    "NoMatchingFlavor": "no flavor matches",
}


def _human(secs: float) -> str:
    s = int(secs)
    if s < 120:
        return f"{s}s"
    if s < 7200:
        return f"{s // 60}m"
    if s < 3 * 86400:
        return f"{s // 3600}h"
    return f"{s // 86400}d"


def _n(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{float(q):.3g}"


def _pods(count: int, per_pod: Fraction | None, res: str) -> str:
    return f" ({count} pods x {short(per_pod, res)})" if per_pod is not None and count > 1 else ""


@_sentence("not-covered", role_first=True)
def _not_covered(prefix: str, role: str, resources: list[str]) -> str:
    return f"{prefix}{role} requests {', '.join(resources)}, which the ClusterQueue does not cover"


@_sentence("no-flavor.ours")
def _no_flavor_ours(prefix: str, role: str, attempts: list[Blocker]) -> str:
    return f"{prefix}no flavor takes {role}: {'; '.join(attempt_text(b) for b in attempts)}"


@_sentence("no-flavor.kueue")
def _no_flavor_kueue(role: str, parts: list[str]) -> str:
    return f"no flavor takes {role}: {'; '.join(parts)}"


@_sentence("quota-unknown.request")
def _quota_unknown_request(prefix: str, role: str) -> str:
    return f"{prefix}whether {role} fits is unknown: a request could not be read"


@_sentence("quota-unknown.quota", role_first=True)
def _quota_unknown_quota(prefix: str, role: str, requested: Fraction | None, resource: str, flavor: str,
                         unknown: str | None) -> str:
    what = "its cohort could not be read" if unknown == "cohort" else (
        "the queue's quota is set by dynamic quota orchestration and status.effectiveQuotas gives none readable "
        "(quota unknown)" if unknown == "status.effectiveQuotas" else f"{unknown} is unreadable")
    return (f"{prefix}{role} asks {short(requested, resource)} in flavor {flavor}, but {what}: whether it fits is "
            f"unknown")


@_sentence("invalid", role_first=True)
def _invalid(prefix: str, role: str, bad: Invalid) -> str:
    where = f"container {bad.container}" if bad.container else "the pod"
    bound = "its limit" if bad.rule == "requests-exceed-limits" else "the namespace's LimitRange maximum"
    return (f"{prefix}{role}: {where} requests {short(bad.requested, bad.resource)}, above {bound} "
            f"({short(bad.limit, bad.resource)}): Kueue refuses it before trying any flavor")


@_sentence("short-of-quota", role_first=True)
def _short_of_quota(prefix: str, role: str, ask: QuotaAsk, preempt: bool, own: dict[str, Any] | None) -> str:
    b, res = ask.best, ask.best.resource or ""
    msg = (f"{prefix}{role} needs {more(b.needed, res)} in flavor {b.flavor}: it asks "
           f"{short(b.requested, res)}{_pods(ask.count, ask.per_pod, res)}{_next_to(b.previous, res)}; "
           f"{amount_of(b.available, res)} {'are' if b.available != 1 else 'is'} free of {short(b.nominal, res)} "
           f"nominal")
    if own is not None and "fits" in own:
        msg += f" (its Workload alone would fit flavor {own['fits']} now)"
    elif own is not None:
        msg += f" (its Workload alone: {more(own['needed'], own['resource'])} in flavor {own['flavor']})"
    if preempt:
        msg += "; it fits only by preempting other Workloads"  # which ones: the preemption answer
    return msg


@_sentence("short-of-quota.summary", role_first=True)
def _short_of_quota_summary(prefix: str, role: str, needed: Fraction | None, resource: str, flavor: str) -> str:
    return f"{prefix}{role} needs {more(needed, resource)} in flavor {flavor}"


def _next_to(previous: Fraction | None, res: str) -> str:
    return f" (next to {short(previous, res)} for the roles before it)" if previous else ""


@_sentence("over-capacity", role_first=True)
def _over_capacity(prefix: str, role: str, ask: QuotaAsk) -> str:
    b, res = ask.best, ask.best.resource or ""
    return (f"{prefix}{role} asks {short(b.requested, res)}{_pods(ask.count, ask.per_pod, res)}"
            f"{_next_to(b.previous, res)} but flavor {b.flavor} can give at most {short(b.capacity, res)}: never "
            f"admitted as configured")


@_sentence("over-capacity.summary", role_first=True)
def _over_capacity_summary(prefix: str, role: str, ask: QuotaAsk) -> str:
    b, res = ask.best, ask.best.resource or ""
    return (f"{prefix}{role} asks {short(b.requested, res)}{_next_to(b.previous, res)} but flavor {b.flavor} can "
            f"give at most {short(b.capacity, res)}")


@_sentence("retry-loop")
def _retry_loop(check: str, g: str, times: int, since: str | None, requeue_at: str | None,
                fragmentation: dict[str, Any] | None) -> str:
    msg = (f"admission check {check} answered Retry and Kueue evicted and requeued Workload {g} {times} times"
           + (f" since {since}" if since else "") + (f"; next requeue at {requeue_at}" if requeue_at else ""))
    return msg + (_fragmented(fragmentation) if fragmentation is not None else "")


def _fragmented(frag: dict[str, Any]) -> str:
    """What GPUStack's per-card fit labels show against what one pod asks."""
    short_of = [r for r, ok in frag["fits"].items() if ok is False]
    most = []
    if frag.get("mostFreeCards") is not None:
        most.append(f"{_n(frag['mostFreeCards'])} free card(s) on one node ({frag['mostFreeCardsNode']})")
    if frag.get("largestFreeSlice") is not None:
        most.append(f"a free slice of {format_cards(frag['largestFreeSlice'])} on one card "
                    f"({frag['largestFreeSliceNode']})")
    asks = ", ".join(f"a {r} pod asks {format_cards(a)}" for r, a in frag["podAsks"].items() if a is not None)
    if not most or not asks:
        return ""
    return (f"; GPUStack's fit labels show at most {' and '.join(most)}, while {asks}"
            + (": the free cards are fragmented across nodes" if short_of else ""))


@_sentence("preempted")
def _preempted(g: str, name: str | None, uid: str | None, cq: str | None, rule: str | None) -> str:
    who = f"Workload {name}" if name else (f"a Workload (UID {uid})" if uid else "another Workload")
    return f"Workload {g} was preempted by {who}" + (f" of ClusterQueue {cq}" if cq else "") + (
        f" ({rule})" if rule else "")


@_sentence("wl.finished")
def _finished(g: str) -> str:
    return f"Workload {g} is finished"


@_sentence("wl.admitted")
def _admitted(g: str) -> str:
    return f"Workload {g} is admitted"


@_sentence("wl.deactivated")
def _deactivated(g: str, parked: bool) -> str:
    why = "parked by GPUStack's joint admission check after waiting 30 minutes" if parked else "spec.active is false"
    return f"Workload {g} is deactivated: {why}"


@_sentence("wl.reserved-not-admitted")
def _reserved_not_admitted(g: str) -> str:
    return f"quota is reserved but Workload {g} is not admitted yet"


@_sentence("wl.evicted")
def _evicted(g: str, cause: str, preempted_for: str | None, count: int | None, at: str | None,
             wait: float | None) -> str:
    when = f"; requeued at {at}" if at is not None else ""
    if at is not None and wait is not None:
        when += f" (in {_human(wait)})"
    detail = f" (preempted for {preempted_for})" if preempted_for else ""
    return (f"Workload {g} was evicted ({cause or '?'}){detail}"
            + (f", {count} time{'s' if count != 1 else ''}" if count else "") + when)


@_sentence("wl.evicting")
def _evicting(deleting: int, pods: int) -> str:
    going = f"{deleting} of its {pods} pods are being deleted" if pods else "its pods are gone"
    return f"; it still holds its quota while Kueue evicts it ({going}), then Kueue requeues it"


@_sentence("check.rejected-wl")
def _check_rejected_wl(check: str, g: str) -> str:
    return f"admission check {check} rejected Workload {g}"


@_sentence("check.pending")
def _check_pending(check: str, state: str, joint: bool) -> str:
    what = ("waits for every replica of every role to reserve quota" if joint else
            "retries: no node has the free devices yet" if state == "Retry" else "has not answered yet")
    return f"quota is reserved; admission check {check} is {state}: it {what}"


@_sentence("check.no-worker-fits")
def _check_no_worker_fits(check: str, clusters: list[str]) -> str:
    return (f"quota is reserved; MultiKueue check {check} waits, but no worker can ever hold the group: "
            f"{', '.join(clusters)} each lack the quota by their own figures (MultiKueue's worker table)")


@_sentence("check.rejected")
def _check_rejected(check: str) -> str:
    return f"admission check {check} rejected it"


@_sentence("check.retry")
def _check_retry(check: str) -> str:
    return f"admission check {check} asks to retry"


@_sentence("check.failed")
def _check_failed() -> str:
    return "an admission check failed"


@_sentence("waiting-for-pods-ready")
def _waiting_for_pods_ready() -> str:
    return "Kueue holds admissions until every admitted Workload's pods are ready (waitForPodsReady.blockAdmission)"


@_sentence("waiting-in-queue")
def _waiting_in_queue(untouched: bool) -> str:
    return "fits the free quota now; waiting for the scheduler to reach it" + (
        " (no scheduler has evaluated this Workload yet)" if untouched else "")


@_sentence("kueue.code")
def _kueue_code(code: str) -> str:
    return _CODE_TEXT.get(code, code)


@_sentence("kueue.hard-error")
def _hard_error(role: str | None) -> str:
    return f"Kueue could not assign flavors to {role}"


@_sentence("kueue.unknown")
def _kueue_unknown() -> str:
    return "Kueue's reason is not one kubectl-pd knows; its words follow"


@_sentence("kueue.not-placed")
def _not_placed(role: str) -> str:
    return f"Kueue could not place {role}"


@_sentence("kueue.needs", role_first=True)
def _kueue_needs(role: str, needed: Fraction | None, resource: str | None, flavor: str | None) -> str:
    return f"{role} needs {more(needed, resource)} in flavor {flavor}"


@_sentence("kueue.over-capacity", role_first=True)
def _kueue_over_capacity(role: str, requested: Fraction | None, previous: Fraction | None, resource: str | None,
                         flavor: str | None, capacity: Fraction | None) -> str:
    before = f" (after {short(previous, resource)} for the pod sets before it)" if previous else ""
    return (f"{role} asks {short(requested, resource)}{before} but flavor {flavor} can give at most "
            f"{short(capacity, resource)}: never admitted as configured")


@_sentence("topology")
def _topology(role: str, nums: dict[str, Any], level: str | None, mode: str | None, flavors: list[str]) -> str:
    where = f" in one {level} domain" if level and mode == "required" else (
        f" (preferring one {level} domain)" if level else "")
    if nums.get("fit") is not None:
        what = (f"topology {nums['topology']} fits only {nums['fit']} of {role}'s {nums['total']} "
                f"{nums['unit']}(s){where}")
    else:
        layers = "; ".join(f"{x['fit']}/{x['needed']} slices fit on level {x['level']}"
                           for x in nums.get("sliceLayers", []))
        what = f"topology {nums['topology']} cannot fit {role}{where}" + (f": {layers}" if layers else "")
    if nums.get("noSingleNodeFits"):
        short = ", ".join(f"{r} on {n}" for r, n in (nums.get("exclusions") or {}).get("resources", {}).items())
        what += f": no single node of {nums['totalNodes']} can take one pod (short of {short})"
    return what + (f" (TAS flavor {', '.join(flavors)})" if flavors else "")


# -- pod groups and their Pods ----------------------------------------------------------------------------

@_sentence("target.nothing-found")
def _nothing_found() -> str:
    return "no pods, pod group or Workload found for this target"


@_sentence("target.all-admitted")
def _all_admitted() -> str:
    return "every pod group is admitted"


@_sentence("role.no-group")
def _no_group(role: str, want: int) -> str:
    return f"role {role} has 0 of {want} pods: no pod group exists for it yet, so Kueue has nothing to compose"


@_sentence("role.replica-groups")
def _replica_groups(role: str, have: int, want: int) -> str:
    return (f"role {role} has {have} of {want} replica groups: the joint admission check waits for every replica "
            f"(assembling)")


@_sentence("group.queues-differ")
def _queues_differ(g: str, values: list[str]) -> str:
    return f"pods of group {g} disagree on the queue name ({', '.join(values)}): Kueue refuses to compose the group"


@_sentence("group.counts-differ")
def _counts_differ(g: str, values: list[str]) -> str:
    return f"pods of group {g} disagree on {TOTAL_COUNT} ({', '.join(values)}): Kueue refuses to compose the group"


@_sentence("group.fast-admission")
def _fast_admission(g: str, roles: list[str]) -> str:
    return (f"group {g} sets {FAST_ADMISSION}: Kueue composes one pod set from the first pod with the whole total "
            f"count, collapsing the roles ({', '.join(roles) or '?'}) into one")


@_sentence("group.too-many-roles")
def _too_many_roles(g: str, roles: int, limits: tuple[int, int] | None) -> str:
    limit = f" (Kueue 0.18 allows {limits[0]} roles per group; 0.19 allows {limits[1]})" if limits else ""
    return f"group {g} has {roles} roles: more than Kueue composes into one Workload{limit}"


@_sentence("group.not-composable")
def _not_composable(g: str) -> str:
    return f"Kueue cannot compose group {g}"


@_sentence("group.incomplete")
def _incomplete(g: str, have: int, want: int, roles: list[tuple[str, int, int | None]] | None) -> str:
    if roles is None:
        return f"group {g} has {have} of {want} pods: Kueue composes no Workload until every pod exists"
    detail = "; ".join(f"{r} {h}/{w}" for r, h, w in roles) or f"{have}/{want}"
    return f"group {g} has {have} of {want} pods ({detail}): Kueue composes no Workload until every pod exists"


@_sentence("group.terminating")
def _group_terminating(g: str, deleting: int, pods: int, replacing: bool, held: dict[str, int] | None = None) -> str:
    going = f"{deleting} of its {pods} pods are being deleted" if deleting else "its pods are gone"
    hold = ("; " + ", ".join(f"{n} held by finalizer {f}" for f, n in held.items())) if held else ""
    if replacing:
        return f"group {g} waits for replacement pods ({going}{hold}; Kueue: WaitingForReplacementPods)"
    return f"group {g} is going away: every one of its {pods} pods is being deleted{hold}"


KUEUE_FINALIZER = MANAGED_LABEL  # Kueue's pod integration's finalizer: the same string as its label


@_sentence("next.finalizers")
def _next_finalizers(g: str, ns: str, held: dict[str, int], pods: list[str]) -> str:
    who = [f"Kueue's pod controller takes off {f}" if f == KUEUE_FINALIZER else f"whoever set {f} takes it off"
           for f in held]
    pod = f" (kubectl get pod {pods[0]} -n {ns} -o jsonpath='{{.metadata.finalizers}}')" if pods else ""
    kueue = (f"; if it does not, check that kueue-controller-manager runs and what Workload {g} says"
             if KUEUE_FINALIZER in held else "")
    return (f"the deleted pods go only once {' and '.join(who)}{pod}{kueue}; then recreate the group if it should "
            f"run")


@_sentence("next.wait-terminating")
def _next_wait_terminating(g: str, ns: str) -> str:
    return (f"wait for the pods to go, then recreate the group if it should run (kubectl get pods -n {ns} "
            f"-l kueue.x-k8s.io/pod-group-name={g})")


@_sentence("group.not-composed")
def _not_composed(g: str, have: int, stale: str | None) -> str:
    note = f" (a stale ErrWorkloadCompose event says: {stale})" if stale else ""
    return f"group {g} is complete ({have} pods) but Kueue has not composed its Workload yet{note}"


@_sentence("pods.gated", role_first=True)
def _gated(role: str, gated: int, pods: int, gates: list[str], g: str) -> str:
    return (f"{role}: {gated} of {pods} waiting pods still carry scheduling gate(s) {', '.join(gates)} although "
            f"Workload {g} is admitted")


@_sentence("pods.unschedulable", role_first=True)
def _unschedulable(role: str, refused: int, pods: int, scheduler: Unschedulable, where: OnFlavor) -> str:
    flavor, ignored, node_fit, nodes = where.flavor, where.ignored, where.node_fit, scheduler.nodes
    said = "; ".join(f"{n} {c}" for n, c in scheduler.causes) or scheduler.message
    msg = (f"{role}: {refused} of {pods} pods admitted on flavor {flavor or '?'} but the kube-scheduler places "
           f"none: {said}" + (f" (of {nodes} nodes)" if nodes is not None else ""))
    if ignored:
        keys = ", ".join(f"{k}={v}" for k, v in ignored.items())
        msg += (f"; Kueue ignored nodeSelector {keys} because flavor {flavor} does not declare "
                f"{'that key' if len(ignored) == 1 else 'those keys'}")
    if node_fit is not None:
        total, matching, able, room = node_fit
        if not matching:
            msg += f"; none of flavor {flavor}'s {total} node(s) carries what the pod selects"
        elif not able:
            msg += (f"; of flavor {flavor}'s {total} node(s), {matching} carry what the pod selects, but none is large "
                    f"enough for one pod by allocatable: the nodes are too small")
        else:
            msg += (f"; of flavor {flavor}'s {total} node(s), {matching} carry what the pod selects, {able} of them "
                    f"could hold {room} such pod(s) by allocatable (running pods not counted)")
    return msg


# -- next steps ---------------------------------------------------------------------------------------------

def hint(h: Say) -> str:
    return text(h)


@_sentence("hint.wait")
def _hint_wait(cq: str | None = None, position: int | None = None, visibility: str = "not-read",
               cq_pending: int | None = None) -> str:
    if position == 1:
        return f"wait: it is next in line in ClusterQueue {cq}"
    if position is not None:
        ahead = position - 1
        return f"wait: {ahead} Workload{'s are' if ahead != 1 else ' is'} ahead of it in ClusterQueue {cq}"
    if cq_pending == 0:
        return f"wait: ClusterQueue {cq} reports no pending Workloads, so none is ahead of it"
    why = {"not-served": "the visibility API is not served", "not-listed": "the visibility API does not list it",
           }.get(visibility, "the visibility API was not read")
    return f"wait for Kueue's scheduler; its position is unknown: {why}"


# -- the quota view -----------------------------------------------------------------------------------------

def lending(b: FlavorBar, amount: Callable[[Fraction, str], str]) -> str:
    """A queue in a cohort: what the cohort has free, what of it this queue may borrow now, and why."""
    unit = " cards" if is_credits(b.resource) else f" {b.resource}"
    limit = "none" if b.borrowing_limit is None else amount(b.borrowing_limit, b.resource)
    return (f"cohort {b.cohort}: {amount(b.cohort_free or Fraction(0), b.resource)}{unit} free, of which this "
            f"queue may borrow {amount(b.borrowable or Fraction(0), b.resource)} now (borrowing limit {limit}; "
            f"borrowed {amount(b.borrowed, b.resource)})")


@_sentence("next.create-lq")
def _next_create_lq(lq: str, ns: str, cq: str | None) -> str:
    return (f"create LocalQueue {lq} in {ns}" + (f" (spec.clusterQueue: {cq})" if cq else "")
            + "; GPUStack creates it in every non-system namespace")


@_sentence("next.resume-lq")
def _next_resume_lq(lq: str, ns: str) -> str:
    return f"kubectl patch localqueue {lq} -n {ns} --type merge -p '{{\"spec\":{{\"stopPolicy\":\"None\"}}}}'"


@_sentence("next.create-cq")
def _next_create_cq(cq: str, lq: str) -> str:
    return f"create ClusterQueue {cq}, or point LocalQueue {lq} at an existing one"


@_sentence("next.resume-cq")
def _next_resume_cq(cq: str) -> str:
    return (f"kubectl patch clusterqueue {cq} --type merge -p '{{\"spec\":{{\"stopPolicy\":\"None\"}}}}' (GPUStack "
            f"holds a queue whose InstanceType is inactive)")


@_sentence("cq.cohort-cycle")
def _cq_cohort_cycle(cq: str, cycle: list[str]) -> str:
    return (f"ClusterQueue {cq} admits nothing: its cohort has a cycle ({' -> '.join(cycle)}), and Kueue keeps every "
            f"ClusterQueue under it out of scheduling (\"cohort has a cycle\")")


@_sentence("next.break-cycle")
def _next_break_cycle(cycle: list[str]) -> str:
    return (f"break the Cohort cycle {' -> '.join(cycle)}: remove spec.parentName of one of them, or point it outside "
            f"the loop (kubectl pd lint finds it: PD413)")


@_sentence("next.activate-cq")
def _next_activate_cq(cq: str, causes: list[dict[str, Any]]) -> str:
    for c in causes:
        names = c["names"]
        if c["kind"] == "missing-flavors":
            return (f"create ResourceFlavor {', '.join(names)}, or remove it from ClusterQueue {cq} "
                    f"(kubectl pd lint cq/{cq})")
        if c["kind"] in ("missing-checks", "inactive-checks"):
            return (f"make AdmissionCheck {', '.join(names)} exist and Active (GPUStack's worker applies gpustack-* "
                    f"checks at start-up), or drop it from ClusterQueue {cq}")
        if c["kind"] == "missing-topology":
            return f"create Topology {names[0] if names else ''} for the TAS flavor"
    return f"fix the ClusterQueue: kubectl pd lint cq/{cq}"


@_sentence("next.select-namespace")
def _next_select_namespace(ns: str) -> str:
    return f"label namespace {ns} to match the selector, or widen the ClusterQueue's namespaceSelector"


def _patch_active(g: str, ns: str) -> str:
    return f"kubectl patch workload {g} -n {ns} --type merge -p '{{\"spec\":{{\"active\":true}}}}'"


@_sentence("next.cover")
def _next_cover(resource: str) -> str:
    return f"add {resource} to the ClusterQueue's coveredResources, or drop the request"


@_sentence("next.match-flavor")
def _next_match_flavor(role: str, get: bool) -> str:
    return (f"fix {role}'s nodeSelector/tolerations, or the flavors' nodeLabels/nodeTaints"
            + (" (kubectl get resourceflavors -o yaml)" if get else ""))


@_sentence("next.lower-request")
def _next_lower_request(role: str, resource: str, limit: Fraction | None) -> str:
    return f"lower {role}'s {resource} request to at most {short(limit, resource)}, or raise the limit"


@_sentence("next.read-quota")
def _next_read_quota(unknown: str | None, resource: str, flavor: str) -> str:
    if unknown == "cohort":
        return "grant get/list on clusterqueues and cohorts.kueue.x-k8s.io, or pass them with --from-file"
    if unknown == "status.effectiveQuotas":
        return (f"see the ClusterQueue's Distributed condition: the orchestrator writes {resource} in flavor "
                f"{flavor} to status.effectiveQuotas")
    return f"fix {unknown} of {resource} in flavor {flavor}"


def _contradiction(flavor: str | None, amount: Fraction, resource: str | None) -> str:
    """A shortfall of zero or less is no advice: Kueue's message and its own numbers disagree (a message older
    than the quota, or one that contradicts itself)."""
    return (f"Kueue's message says flavor {flavor} can never hold it, yet by its own numbers nothing is short "
            f"({short(-amount, resource)} to spare): the message is older than the quota or contradicts itself; "
            f"read it again once Kueue retries (kubectl describe clusterqueue)")


def _unweighed(flavor: str | None, nodes: str | None) -> str:
    """What a quota raise says when the flavor's Nodes were not weighed against one Pod."""
    if nodes is None:
        return ""
    why = "could not be read" if nodes == "refused" else "were not read"
    return (f" (flavor {flavor}'s Nodes {why}: check that one allocates what a pod asks, or the raise admits a pod no "
            f"Node runs)")


@_sentence("next.raise-nominal-of")
def _next_raise_nominal_of(resource: str, flavor: str, needed: Fraction | None, nodes: str | None = None) -> str:
    if needed is not None and needed <= 0:
        return _contradiction(flavor, needed, resource)
    return (f"raise nominalQuota of {resource} in flavor {flavor} by {short(needed, resource)}"
            + _unweighed(flavor, nodes))


@_sentence("next.raise-nominal")
def _next_raise_nominal(flavor: str | None, amount: Fraction | None, resource: str | None, role: str | None,
                        nodes: str | None = None) -> str:
    if amount is not None and amount <= 0:
        return _contradiction(flavor, amount, resource)
    return (f"raise nominalQuota in flavor {flavor} by {short(amount, resource)}"
            + (f", or scale {role} down" if role else "") + _unweighed(flavor, nodes))


def _too_small(p: Mapping[str, Any]) -> str:
    """role, flavor, nodes, allowed; resource, requested, largest (None: no Node the pod may go to at all)."""
    role, flavor, resource = p.get("role"), p["flavor"], p.get("resource")
    if resource is None:
        return (f"none of flavor {flavor}'s {p['nodes']} Node(s) is one a pod of {role} may go to (its selector or a "
                "taint)")
    return (f"no Node of flavor {flavor} can hold one pod of {role}: it asks {short(p.get('requested'), resource)}, "
            f"the largest of the {p['allowed']} Node(s) it may go to allocates {short(p.get('largest'), resource)}")


@_sentence("nodes.too-small")
def _nodes_too_small(**p: Any) -> str:  # role, flavor, nodes, allowed; resource, requested, largest, node
    return "; " + _too_small(p)


@_sentence("next.nodes-too-small")
def _next_nodes_too_small(**p: Any) -> str:  # role, flavor, nodes, allowed; resource, requested, largest, node
    role, flavor, resource = p.get("role"), p["flavor"], p.get("resource")
    fix = (f"give {role} fewer {resource} per pod, or add Nodes that allocate {short(p.get('requested'), resource)} "
           f"to flavor {flavor}" if resource is not None else f"let {role}'s pods onto flavor {flavor}'s Nodes")
    return f"{fix}; more quota alone would admit a pod no Node runs"


@_sentence("next.free")
def _next_free(amount: Fraction | None, resource: str | None, flavor: str | None, together: bool) -> str:
    together_text = " (what the roles need together)" if together else ""
    return f"free {short(amount, resource)} in flavor {flavor}{together_text}"


@_sentence("next.free-devices")
def _next_free_devices(check: str) -> str:
    return f"free devices on the flavor's nodes, or ask {check}'s controller why it retries"


@_sentence("next.defragment")
def _next_defragment(flavors: list[str], role: str) -> str:
    return (f"free whole cards on one node of flavor {', '.join(flavors)} (drain or defragment it), or give {role} "
            f"fewer cards per pod")


@_sentence("next.avoid-preemption")
def _next_avoid_preemption() -> str:
    return "raise the deployment's priority, or give its ClusterQueue nominal quota the cohort cannot reclaim"


@_sentence("next.reactivate")
def _next_reactivate(g: str, ns: str, parked: bool) -> str:
    return ("free capacity for every role, then reactivate: " if parked else "reactivate: ") + _patch_active(g, ns)


@_sentence("next.fix-check")
def _next_fix_check(check: str, g: str, ns: str) -> str:
    return f"fix what {check} reports, then reactivate: {_patch_active(g, ns)}"


@_sentence("next.wait-check")
def _next_wait_check(check: str, joint: bool) -> str:
    if joint:
        return "the other roles must reserve quota first (see their reasons)"
    return f"wait for {check}, or free devices on the flavor's nodes"


@_sentence("next.wait-requeue")
def _next_wait_requeue(back_off: bool) -> str:
    return "wait for the requeue back-off" if back_off else "wait for Kueue to requeue it"


@_sentence("next.wait-pods-ready")
def _next_wait_pods_ready() -> str:
    return "wait for the running Workloads' pods to become ready"


@_sentence("next.wait-preemption")
def _next_wait_preemption() -> str:
    return "wait for the preemption to finish"


@_sentence("next.kueue-code")
def _next_kueue_code(code: str, ns: str) -> str:
    return {
        "NamespaceNotAllowed": f"label namespace {ns} to match the ClusterQueue's namespaceSelector",
        "InvalidResources": "fix the pods' requests and limits (Kueue's words above)",
        "PreemptionInProgress": "wait: Kueue is preempting lower-priority Workloads to make room",
        "WaitingInQueue": "wait: Kueue will try again",
        "WaitingForPodsReady": "wait for the running Workloads' pods to become ready",
        "Misconfigured": "fix what Kueue's message names (a missing queue, the ClusterQueue's namespaceSelector)",
        "QueueSuspended": "clear the stopPolicy of the queue Kueue names (kubectl get localqueue,clusterqueue)",
        "AdmissionGated": "wait for the controller in kueue.x-k8s.io/admission-gated-by, or remove the annotation",
        "OnHold": "scale the workload up again (e.g. its StatefulSet) to requeue it",
        "DRAResourcesUnresolved": "map the DeviceClass in Kueue's deviceClassMappings, or fix the claim Kueue names",
        "PodsUnscheduledTimeout": "fix what keeps kube-scheduler from placing the pods (selectors, taints, free "
                                  "nodes), or raise waitForPodsReady.unscheduledTimeout",
    }[code]


@_sentence("next.describe")
def _next_describe(g: str, ns: str) -> str:
    return f"kubectl describe workload {g} -n {ns}"


@_sentence("next.topology")
def _next_topology(role: str, nums: dict[str, Any], level: str | None) -> str:
    if nums.get("fit") is not None and level:
        return (f"free {nums['total'] - nums['fit']} more {nums['unit']}(s) of room in one {level} domain, relax "
                f"{role}'s required topology to preferred, or scale {role} down")
    return f"relax {role}'s topology request or free nodes in the topology {nums['topology']}"



@_sentence("next.describe-workload")
def _next_describe_workload(ns: str, name: str) -> str:
    return f"kubectl describe workload -n {ns} {name}"


@_sentence("next.operator")
def _next_operator(role: str, md: str, ns: str) -> str:
    return f"check why the operator has not created {role} pods (kubectl describe md {md} -n {ns})"


@_sentence("next.one-queue")
def _next_one_queue(g: str) -> str:
    return f"recreate the pods of group {g} with one {QUEUE_LABEL} label"


@_sentence("next.one-count")
def _next_one_count(g: str) -> str:
    return f"recreate the pods of group {g} with one total count"


@_sentence("next.no-fast-admission")
def _next_no_fast_admission() -> str:
    return "remove the fast-admission annotation: roles must stay separate pod sets"


@_sentence("next.split")
def _next_split() -> str:
    return "split the deployment: at most 10 roles per pod group"


@_sentence("next.delete-conflict")
def _next_delete_conflict(g: str) -> str:
    return f"delete the Workload {g} that is not a pod-group Workload"


@_sentence("partly.admitted")
def _partly_admitted(admitted: list[str], lacking: list[str], counts: tuple[int, int],
                     held: list[dict[str, str]]) -> str:
    admitted_n, waiting_n = counts
    holds = ", ".join(f"{h['quantity']} {h['resource']} in flavor {h['flavor']}" for h in held) or "their quota"
    if lacking:  # roles admitted apart: what runs cannot serve without what waits
        held_by = "its Workload holds" if admitted_n == 1 else f"its {admitted_n} Workloads hold"
        return (f"{', '.join(admitted) or '?'} admitted, {', '.join(lacking)} still waiting: {held_by} {holds} while "
                f"the deployment serves nothing without {', '.join(lacking)}")
    return (f"{admitted_n} of {admitted_n + waiting_n} Workloads admitted (holding {holds}), {waiting_n} "
            f"still waiting")


@_sentence("next.atomic")
def _next_atomic(kind: str) -> str:
    if kind == "DisaggregatedSet":
        return ("admit the roles together: Kueue's DisaggregatedSet integration makes one Workload of every role "
                "(feature gate DisaggregatedSetIntegration, where the cluster's Kueue has it), or deploy the roles as "
                "one pod group (kubectl pd create --target pods writes one)")
    return ("admit the roles together: deploy them as one pod group holding every role (kubectl pd create "
            "--target pods writes one), so Kueue admits all of them or none")


@_sentence("next.create-pods")
def _next_create_pods(role: str | None, ns: str, g: str, missing: int | None = None) -> str:
    what = f"{role} pods" if role else (f"{missing} pod(s) of the group (their roles are not known)" if missing
                                        else "pods of the group")
    return (f"create the missing {what} (or look at why they are not created: kubectl get pods -n {ns} -l "
            f"{GROUP_LABEL}={g})")


@_sentence("next.check-kueue")
def _next_check_kueue(ns: str, name: str) -> str:
    return ("check that Kueue's pod integration is enabled and the kueue-controller-manager is healthy; kubectl get "
            f"events -n {ns} --field-selector involvedObject.name={name}")


@_sentence("next.gate")
def _next_gate(kueue: bool, gate: str) -> str:
    if kueue:
        return ("Kueue removes its gate on admission: check kueue-controller-manager's logs and that pod integration "
                "is enabled")
    return f"the gate {gate} belongs to another controller: ask what it waits for"


@_sentence("next.ignored-selector")
def _next_ignored_selector(flavor: str, ignored: dict[str, str], role: str) -> str:
    keys = ", ".join(f"{k}={v}" for k, v in ignored.items())
    return (f"no node of flavor {flavor} need carry {keys}: give {role} an InstanceType whose flavors declare it, or "
            f"drop it from {role}'s nodeSelector")


@_sentence("next.describe-pod")
def _next_describe_pod(pod: str, ns: str) -> str:
    return f"kubectl describe pod {pod} -n {ns}"



# -- notes: what could not be read or known ----------------------------------------------------------------

@_sentence("note.unread")
def _note_unread(what: Read, message: str) -> str:
    return f"could not read {read_text(what)}: {message}"


@_sentence("note.run-unread")
def _note_run_unread(what: Read, ns: str | None, message: str) -> str:
    where = f' in namespace "{ns}"' if ns else ""
    return f"could not read {read_text(what)}{where} (read once for every target of the run): {message}"


@_sentence("note.unlisted")
def _note_unlisted(kind: str, message: str) -> str:
    return f"could not list {kind}s: {message}"


@_sentence("note.groups-not-read")
def _note_groups_not_read(more: int, most: int) -> str:
    return f"{more} more pod groups were not read (at most {most} Workloads per target)"


@_sentence("note.no-visibility")
def _note_no_visibility() -> str:
    return "the Kueue visibility API is not served: queue positions are not known"


@_sentence("note.lone-in-cohort")
def _note_lone_in_cohort(cohort: str, cq: str) -> str:
    return (f"the snapshot holds no other member of cohort {cohort} (ClusterQueue {cq}'s): what it may borrow is "
            f"unknown; add `kubectl get clusterqueues,cohorts -o yaml` to it")


@_sentence("note.operator")
def _note_operator(status: str, reason: str, message: str) -> str:
    return f"the operator reports QuotaReserved={status} ({reason}): {message}".rstrip(": ")


# -- GPUStack's v1 ModelDeployment status (pending/md_v1.py): the operator's verdict over the whole set ------

def _operator_words(message: str) -> str:
    return f" (the operator: {message})" if message else ""


def _roles_held(held: dict[str, int] | None) -> str:
    return ", ".join(f"{r} ({n} replica{'s' if n != 1 else ''})" for r, n in sorted((held or {}).items())) or "none"


@_sentence("operator.reason")
def _operator_reason(code: str, md: str, ns: str, message: str, part: PartlyPreempted | None = None) -> str:
    if code == "PreemptedInPart":
        held, queues, lost_kinds = (part.held, part.queues, part.lost_kinds) if part else (None, None, None)
        lost = (f"; no {', '.join(lost_kinds)} replica is admitted, so a whole role is lost, not only capacity"
                if lost_kinds else "")
        where = f" in ClusterQueue {', '.join(queues)}" if queues else ""
        return (f"GPUStack reports {md} preempted in part: higher priority reclaimed some replicas while roles "
                f"{_roles_held(held)} still hold quota{where}{lost}; the set cannot serve in full, and whatever draws "
                f"next from {'that queue' if len(queues or []) == 1 else 'those queues'} is refused (insufficient "
                f"unused quota) until capacity returns, with no timeout{_operator_words(message)}")
    if code == "Parked":
        return (f"GPUStack's joint admission check parked {md}: its replica set failed to assemble for long enough "
                f"that its Workloads were deactivated; they ask for nothing now, and an identical re-apply does not "
                f"clear it{_operator_words(message)}")
    if code == "NoQueueInReservedNamespace":
        return (f"namespace {ns} is one GPUStack reserves: it has no LocalQueue, so {md} is never scheduled, "
                f"whatever the quota{_operator_words(message)}")
    return f"every replica of {md} is on its way out, so none holds quota{_operator_words(message)}"


@_sentence("next.operator-reason")
def _next_operator_reason(code: str, md: str, ns: str, part: PartlyPreempted | None = None) -> str:
    if code == "PreemptedInPart":
        return (f"three ways out: add capacity (the reclaimed replicas are admitted again on their own); delete and "
                f"recreate md/{md} -n {ns} (that releases the quota the kept replicas hold); or move the roles onto "
                f"different instanceTypes, so one preemption cannot reclaim both halves from one queue")
    if code == "Parked":
        return (f"free capacity for the whole set, then reactivate its Workloads (spec.active: true), or delete and "
                f"recreate md/{md} -n {ns}")
    if code == "NoQueueInReservedNamespace":
        return f"create {md} in a namespace GPUStack serves (kubectl get localqueues -A lists them)"
    if code == "AdmissionInFlight":
        return "wait; if it stays, check the health of Kueue's pod integration (kueue-controller-manager's log)"
    if code == "AllReplicasTerminating":
        return "wait for the replicas to go; unless the deployment is being deleted, the operator replaces them"
    if code == "PodGroupIncomplete":
        return (f"wait for the missing replicas, or check why the operator does not create them "
                f"(kubectl describe md {md} -n {ns})")
    return f"wait, or check the operator's events for it (kubectl describe md {md} -n {ns})"


@_sentence("operator.said")
def _operator_said(reason: str, message: str) -> str:
    return f"the operator reports QuotaReserved {reason}" + (f": {message}" if message else "")


@_sentence("note.deployment")
def _note_deployment(phase: str | None, summary: str | None, message: str | None,
                     roles: list[dict[str, Any]]) -> str:
    head = f"deployment phase {phase or 'unknown'}" + (f" ({message})" if message else "")
    if summary is not None:
        head += f", ready {summary}"
    parts = []
    for r in roles:
        quota = "quota unknown" if r["quotaReserved"] is None else f"{r['quotaReserved']} with quota"
        ready = "?" if r["ready"] is None else r["ready"]
        desired = "?" if r["desired"] is None else r["desired"]
        flavors = f" on {', '.join(r['assignedFlavors'])}" if r["assignedFlavors"] else ""
        parts.append(f"{r['name']} {ready}/{desired} ready, {quota}{flavors}")
    return head + (": " + "; ".join(parts) if parts else "")


@_sentence("note.requeued")
def _note_requeued(g: str, reason: str, message: str) -> str:
    return f"Workload {g} was evicted ({reason}) and has been requeued: {message}".rstrip(": ")


@_sentence("note.kueue-differs")
def _note_kueue_differs(g: str, message: str | None) -> str:
    return f"Kueue's last message for {g} says something else: {message}"


# -- reads: what a note, an error or the `incomplete` list of -o json says could not be read ---------------

def read_text(r: Read) -> str:
    """A read, named: `workload "w"`, `localqueue "q" in "ns"`, `events in namespace "ns"`, ..."""
    return _READ_WORDS[r.purpose](r)


def _where(r: Read) -> str:
    return f' in "{r.namespace}"' if r.namespace else ""


def _plural(kind: str) -> str:
    k = kinds.lookup(kind)
    return k.plural if k else kind


_READ_WORDS: dict[str, Callable[[Read], str]] = {
    "get": lambda r: f'{r.kind.lower()} "{r.name}"{_where(r)}',
    "list": lambda r: _plural(r.kind) + _where(r),
    "events": lambda r: f'events in namespace "{r.namespace}"',
    "pod-workload": lambda r: "the pod's Workload",
    "cohort-peers": lambda r: "clusterqueues (the cohort's peers)",
    "flavor-nodes": lambda r: f"the nodes of flavor {r.name}",
    "ahead": lambda r: f'{r.kind.lower()} "{r.name}"{_where(r)} (ahead in the queue)',
    "pending-workloads": lambda r: f'the pending workloads of clusterqueue "{r.name}" (visibility API)',
    "raw": lambda r: r.name,
}


def incomplete_error(target: Target, unread: list[Unread]) -> IncompleteError:
    """The IncompleteError handed to the user: the reads that failed, with the printer's message."""
    return IncompleteError(target, unread, incomplete(target, unread))


def incomplete(target: Target, unread: list[Unread]) -> str:
    """IncompleteError's message: the target and the first three reads that failed, each with its error."""
    what = "; ".join(f"{read_text(u.read)}: {u.why}" for u in unread[:3])
    kind = TARGET_WORDS.get(target.kind, target.kind.lower())
    return (f"the diagnosis of {kind} {target.namespace}/{target.name} is incomplete, so there is no verdict: "
            f"could not read {what}")


# -- GPUStack's operator conditions besides QuotaReserved (pending/operator.py): weights, router, cache, ... --------

@_sentence("operator.weights")
def _operator_weights(md: str, artifact: str | None, reason: str, message: str, blocked: bool) -> str:
    what = f"ModelArtifact {artifact}" if artifact else "its model weights"
    held = ("the operator creates no Pod until they are available, so there is no Workload and no quota verdict yet"
            if blocked else "its replica Pods wait for them")
    return f"{md} waits for {what} (WeightsReady=False, {reason}): {held}{_operator_words(message)}"


@_sentence("next.weights")
def _next_weights(md: str, ns: str, artifact: str | None, reason: str) -> str:
    if artifact and reason in ("ArtifactNotFound", "ArtifactNotResolved"):
        return (f"create or fix ModelArtifact {artifact} (kubectl describe modelartifact {artifact} -n {ns}); the "
                f"operator creates the Pods the pass after it resolves")
    return f"fix what the operator's message names (kubectl describe md {md} -n {ns}); the Pods follow on their own"


@_sentence("operator.no-replicas")
def _operator_no_replicas(md: str, message: str) -> str:
    return (f"GPUStack's operator has created no replica of {md} yet (QuotaReserved NoReplicas): there is no pod "
            f"group to judge{_operator_words(message)}")


@_sentence("next.no-replicas")
def _next_no_replicas(md: str, ns: str) -> str:
    return f"wait for the operator's next pass; if it stays, read its events (kubectl describe md {md} -n {ns})"


@_sentence("note.operator-condition")
def _note_operator_condition(code: str, type: str, status: str, reason: str, message: str) -> str:  # noqa: A002
    return f"{code}: the operator reports {type}={status}" + (f" ({reason})" if reason else "") + (
        f": {message}" if message else "")
