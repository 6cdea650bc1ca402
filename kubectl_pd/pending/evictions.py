"""Evictions that explain a wait: an admission check answering `Retry` again and again (each answer evicts
and requeues the Workload), and preemption by another Workload (who, in which ClusterQueue, by which rule).

Message formats follow Kueue v0.18.4/v0.19.2:
- pkg/controller/core/workload_controller.go: `Evicted due to %s` of buildAdmissionChecksMessage,
  `AdmissionCheck(s) in %s state: %q (%s); ...`, the Evicted condition's reason `AdmissionCheck`;
- apis/kueue/v1beta2/workload_types.go: `status.admissionChecks[].retryCount`,
  `status.schedulingStats.evictions[] {reason, underlyingCause, count}`, `status.requeueState {count, requeueAt}`;
- pkg/scheduler/preemption/preemption.go: `Preempted to accommodate a workload (UID: %s, JobUID: %s) due to
  %s; preemptor path: %s; preemptee path: %s`, the reasons of HumanReadablePreemptionReasons, and the
  `Preempted` event's `; preemptor effective priority: %d (base: %d, boost: %d); ...` tail.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from kubectl_pd import kube
from kubectl_pd.kueue import versions
from kubectl_pd.kueue.model import AdmissionCheckState, Condition, ResourceFlavor, Workload, to_int
from kubectl_pd.kueue.quantity import CREDITS_PER_CARD, try_parse
from kubectl_pd.lazyre import lazy
from kubectl_pd.records import dataclass, replace

EVICTED_BY_CHECK = "AdmissionCheck"  # kueue.WorkloadEvictedByAdmissionCheck
EVICTED_BY_PREEMPTION = "Preempted"  # kueue.WorkloadEvictedByPreemption
EVENT_BY_CHECK = "EvictedDueToAdmissionCheck"  # workload.go reportEvictedWorkload: ReasonWithCause(Evicted, reason)
BY_CHECK_WORDS = "Evicted due to AdmissionCheck"
NODE_DEVICES = "gpustack-node-devices"
FIT_SUFFIX = ".fit.gpustack.ai/"  # GPUStack's per-card fit node labels: <what>.fit.gpustack.ai/<acceleratorKey>
ACCEL_PREFIX = "acceleratable.feature.gpustack.ai/"
SLICED = "sliced-max-free-units"  # the largest free slice on one card, in GPUStack's units (credits)
SHARED = "shared-free-cards"  # whole cards free for sharing
LOOP_AT = 2  # evicted by a check this many times: a loop, not one retry
RESET = "Reset to Pending after eviction. Previously: "  # admissionchecks.go resetChecksOnEviction

# HumanReadablePreemptionReasons (preemption.go), reversed: the rule from the message's words
RULES = {
    "prioritization in the ClusterQueue": "InClusterQueue",
    "reclamation within the cohort": "InCohortReclamation",
    "Fair Sharing within the cohort": "InCohortFairSharing",
    "reclamation within the cohort while borrowing": "InCohortReclaimWhileBorrowing",
}
_PREEMPTED = lazy(r"^Preempted to accommodate a workload \(UID: (?P<uid>[^,]*), JobUID: (?P<job>[^)]*)\) "
                        r"due to (?P<why>.*?); preemptor path: (?P<a>[^;]*); preemptee path: (?P<b>[^;]*)"
                        r"(?:; preemptor effective priority: (?P<pp>-?\d+).*?; preemptee effective priority: "
                        r"(?P<tp>-?\d+).*)?$", re.DOTALL)
# the Preempted event's tail (preemption.go:260@ff69552e79ad21652c36caa97038382e55625cf7): effective priority
# with its base and boost (priority boost, Kueue 0.20)
_BOOST = lazy(r"; preemptor effective priority: (?P<pp>-?\d+) \(base: (?P<pb>-?\d+), boost: (?P<px>-?\d+)\); "
              r"preemptee effective priority: (?P<tp>-?\d+) \(base: (?P<tb>-?\d+), boost: (?P<tx>-?\d+)\)$")
# ConfigurablePreemptions (PreemptionConfig, alpha in Kueue 0.20, CHANGELOG-0.20.md #15913): the Evicted and
# Preempted messages name the rule, e.g. "Preempted by rule 'r' in PreemptionConfig 'c' to accommodate workload
# ns/name" (Kueue's site docs of the feature); the Preempted condition's message stops after the config's name.
_BY_RULE = lazy(r"^Preempted by rule '(?P<rule>[^']*)' in PreemptionConfig '(?P<config>[^']*)'"
                r"(?: to accommodate workload (?P<who>\S+))?(?P<rest>;.*)?$", re.DOTALL)
PREEMPTION_CONFIG = "PreemptionConfig"  # our rule name for a PreemptionConfig preemption


@dataclass(frozen=True)
class PreemptionMessage:
    uid: str | None
    job_uid: str | None
    rule: str | None  # InClusterQueue | InCohortReclamation | ... (None: words we do not know)
    why: str
    preemptor_path: str | None
    preemptee_path: str | None
    preemptor_priority: int | None = None
    preemptee_priority: int | None = None
    preemptor_base: int | None = None  # the effective priority's parts (Kueue 0.20's event tail)
    preemptor_boost: int | None = None
    preemptee_base: int | None = None
    preemptee_boost: int | None = None
    config_rule: str | None = None  # PreemptionConfig: the rule and the config that chose this Workload
    config: str | None = None
    preemptor: str | None = None  # PreemptionConfig: the preemptor as namespace/name

    @property
    def preemptor_queue(self) -> str | None:
        """The last element of Kueue's `/cohort/.../clusterqueue` path."""
        p = self.preemptor_path
        return p.rstrip("/").rsplit("/", 1)[-1] or None if p and p != "UNKNOWN" else None


def parse_preemption(message: object) -> PreemptionMessage | None:
    if not isinstance(message, str):
        return None
    text = message.strip()
    by_rule = _BY_RULE.match(text)
    if by_rule:
        return _with_priorities(PreemptionMessage(None, None, PREEMPTION_CONFIG, text, None, None,
                                                  config_rule=by_rule.group("rule"), config=by_rule.group("config"),
                                                  preemptor=by_rule.group("who")), by_rule.group("rest") or "")
    m = _PREEMPTED.match(text)
    if not m:
        return None

    def known(x: str | None) -> str | None:
        return None if x in (None, "", "UNKNOWN") else x

    parsed = PreemptionMessage(known(m.group("uid")), known(m.group("job")), RULES.get(m.group("why")), m.group("why"),
                               known(m.group("a")), known(m.group("b")), to_int(m.group("pp")), to_int(m.group("tp")))
    return _with_priorities(parsed, text)


def _with_priorities(p: PreemptionMessage, text: str) -> PreemptionMessage:
    """The effective priorities with base and boost, when the text ends with Kueue 0.20's event tail."""
    b = _BOOST.search(text)
    if b is None:
        return p
    return replace(p, preemptor_priority=int(b.group("pp")), preemptor_base=int(b.group("pb")),
                   preemptor_boost=int(b.group("px")), preemptee_priority=int(b.group("tp")),
                   preemptee_base=int(b.group("tb")), preemptee_boost=int(b.group("tx")))


Preempted = tuple[str | None, str | None, PreemptionMessage | None]  # (rule, message, parsed)


def preemption_of(wl: Workload, events: list[kube.Event]) -> Preempted | None:
    """(condition reason, message, parsed) when the Workload's last eviction was a preemption; the
    `Preempted` event (same message plus priorities) fills in what the condition lacks."""
    pre, ev = wl.condition("Preempted"), wl.condition("Evicted")
    preempted = pre is not None and pre.true
    if not preempted and not (ev is not None and ev.true and ev.reason == EVICTED_BY_PREEMPTION):
        return None
    msg = (pre.message if pre is not None else None) or (ev.message if ev is not None else None)
    rule = pre.reason if pre is not None and preempted else None
    parsed = parse_preemption(msg)
    if parsed is not None and parsed.preemptor is None and parsed.config is not None and ev is not None:
        fuller = parse_preemption(ev.message)  # the Evicted message also names whom the rule made room for
        if fuller is not None and fuller.config == parsed.config and fuller.preemptor:
            parsed = fuller
    for e in events:
        if e.reason == "Preempted" and e.involved_name == wl.name:
            richer = parse_preemption(e.message)
            if richer is not None and (parsed is None or richer.uid == parsed.uid):
                parsed, msg = richer, msg or e.message
    return rule or (parsed.rule if parsed else None), msg, parsed


@dataclass(frozen=True)
class UnscheduledTimeout:
    """Evicted because required pods stayed unscheduled (Kueue 0.20, WaitForPodsReadyUnscheduledTimeout)."""

    code: str  # versions.EVICTION_CAUSES_020's code
    times: int  # evictions with that underlying cause (schedulingStats)
    message: str | None  # the Evicted condition's words (`Exceeded the PodsReady timeout ns/name`)


EVICTED_BY_PODS_READY = "PodsReadyTimeout"  # kueue.WorkloadEvictedByPodsReadyTimeout


def unscheduled_timeout(wl: Workload) -> UnscheduledTimeout | None:
    """The last eviction was the PodsReady timeout and its underlying cause was a scheduling one (0.20's
    `WaitForScheduling`): the Evicted reason stays PodsReadyTimeout, only `schedulingStats.evictions[]
    .underlyingCause` says why. Said only when every PodsReadyTimeout eviction counted has that cause: with
    another cause (`WaitForStart`, `WaitForRecovery`) counted too, which one was last is unknown."""
    ev = wl.condition("Evicted")
    if ev is None or not ev.true or ev.reason != EVICTED_BY_PODS_READY:
        return None
    causes = {e.underlying_cause: e.count for e in wl.evictions if e.reason == EVICTED_BY_PODS_READY}
    if len(causes) != 1:
        return None
    (cause, count), = causes.items()
    code = versions.EVICTION_CAUSES_020.get(cause)
    return UnscheduledTimeout(code, count, ev.message or None) if code is not None else None


@dataclass(frozen=True)
class RetryLoop:
    check: str
    times: int  # evictions (or retries) counted
    since: str | None  # the first retry's or eviction's time we can see
    message: str | None  # the check's own words
    requeue_at: str | None
    state: str | None


def _evicted_by_check(wl: Workload) -> Condition | None:
    ev = wl.condition("Evicted")
    return ev if ev is not None and ev.true and ev.reason == EVICTED_BY_CHECK else None


def _check_evictions(wl: Workload, events: list[kube.Event]) -> list[kube.Event]:
    return [e for e in events if e.involved_name == wl.name
            and (e.reason == EVENT_BY_CHECK or (e.message or "").startswith(BY_CHECK_WORDS))]


def _looping_check(wl: Workload, retried: list[AdmissionCheckState],
                   named: list[tuple[str, str | None]]) -> AdmissionCheckState | None:
    """The check in the loop: one answering Retry now, else one that retried, else the one the Evicted
    condition names."""
    check = next((c for c in retried if c.state == "Retry"), None) or (retried[0] if retried else None)
    if check is None and named:
        check = wl.check(named[0][0]) or AdmissionCheckState(named[0][0], "")
    return check


def retry_loop(wl: Workload, events: list[kube.Event]) -> RetryLoop | None:
    """A check that keeps answering Retry: `retryCount`, schedulingStats evictions by `AdmissionCheck`,
    `requeueState.count` after such an eviction, and the Evicted events, whichever counts most."""
    ev = _evicted_by_check(wl)
    rs = wl.requeue_state
    requeues = (rs.count or 0) if ev is not None and rs is not None else 0
    ev_events = _check_evictions(wl, events)
    counted = sum(e.count or 1 for e in ev_events)
    retried = [c for c in wl.admission_checks if c.retry_count > 0 or c.state == "Retry"]
    named = _named_in(ev.message if ev is not None else None)
    check = _looping_check(wl, retried, named)
    times = max(wl.evictions_by(EVICTED_BY_CHECK), requeues, counted, max((c.retry_count for c in retried), default=0))
    if check is None or times < LOOP_AT:
        return None
    own: str | None = check.message
    if own and own.startswith(RESET):  # the eviction reset it: the check's words survive in the Evicted message
        own = None
    words = own or next((m for n, m in named if n == check.name and m), None)
    firsts = [e.first_timestamp for e in ev_events if e.first_timestamp]
    return RetryLoop(check.name, times, min(firsts) if firsts else None, words,
                     rs.requeue_at if rs is not None else None, check.state or None)


_NAMED = lazy(r'"(?P<n>[^"]+)"(?: \((?P<m>.*?)\))?(?:; |$)')


def _named_in(message: str | None) -> list[tuple[str, str | None]]:
    """The checks of `Evicted due to AdmissionCheck(s) in Retry state: "a" (words); "b"`."""
    if not message or "state: " not in message:
        return []
    return [(m.group("n"), m.group("m")) for m in _NAMED.finditer(message.split("state: ", 1)[1])]


@dataclass(frozen=True)
class FitLabels:
    name: str
    labels: dict[str, str]  # <what> -> value of <what>.fit.gpustack.ai/<key>


def accelerator_key(flavor: ResourceFlavor | None) -> str | None:
    for k in (flavor.node_labels if flavor is not None else {}):
        if str(k).startswith(ACCEL_PREFIX) and "." not in str(k)[len(ACCEL_PREFIX):]:
            return str(k)[len(ACCEL_PREFIX):]
    return None


def fit_labels(nodes: list[kube.Node], key: str | None) -> list[FitLabels]:
    """GPUStack's per-card fit labels of each node (for one accelerator key when known)."""
    out = []
    for n in nodes:
        labels = n.labels
        got = {}
        for k, v in labels.items():
            what, sep, akey = str(k).partition(FIT_SUFFIX)
            if sep and (key is None or akey == key):
                got[what] = str(v)
        out.append(FitLabels(n.name, got))
    return out


def fragmentation(fits: list[FitLabels], asks: dict[str, Fraction | None]) -> dict[str, Any] | None:
    """What the fit labels say against what one Pod of each role asks (credits, M per card): a Pod of at
    most one card needs a free slice that large on one card; a larger Pod needs that many free cards on one
    node. None when no node carries a fit label."""
    slices = [(f.name, try_parse(f.labels[SLICED])) for f in fits if SLICED in f.labels]
    cards = [(f.name, try_parse(f.labels[SHARED])) for f in fits if SHARED in f.labels]
    if not slices and not cards:
        return None
    best_slice = max((q for _n, q in slices if q is not None), default=None)
    best_cards = max((q for _n, q in cards if q is not None), default=None)
    fits_role: dict[str, bool | None] = {}
    for role, ask in asks.items():
        if ask is None:
            fits_role[role] = None
        elif ask <= CREDITS_PER_CARD:
            fits_role[role] = None if best_slice is None else best_slice >= ask
        else:
            fits_role[role] = None if best_cards is None else best_cards * CREDITS_PER_CARD >= ask
    return {"largestFreeSlice": best_slice,
            "largestFreeSliceNode": next((n for n, q in slices if q == best_slice), None),
            "mostFreeCards": best_cards,
            "mostFreeCardsNode": next((n for n, q in cards if q == best_cards), None),
            "podAsks": dict(asks), "fits": fits_role,
            "nodes": [{"name": f.name, **f.labels} for f in fits if f.labels]}
