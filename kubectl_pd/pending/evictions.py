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

from kubectl_pd.cluster.source import Obj, name_of
from kubectl_pd.kueue.quantity import CREDITS_PER_CARD, try_parse
from kubectl_pd.lazyre import lazy
from kubectl_pd.pending.model import conditions, dct, lst, text, to_int
from kubectl_pd.records import dataclass

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


@dataclass(frozen=True)
class Preemption:
    uid: str | None
    job_uid: str | None
    rule: str | None  # InClusterQueue | InCohortReclamation | ... (None: words we do not know)
    why: str
    preemptor_path: str | None
    preemptee_path: str | None
    preemptor_priority: int | None = None
    preemptee_priority: int | None = None

    @property
    def preemptor_queue(self) -> str | None:
        """The last element of Kueue's `/cohort/.../clusterqueue` path."""
        p = self.preemptor_path
        return p.rstrip("/").rsplit("/", 1)[-1] or None if p and p != "UNKNOWN" else None


def parse_preemption(message: object) -> Preemption | None:
    if not isinstance(message, str):
        return None
    m = _PREEMPTED.match(message.strip())
    if not m:
        return None

    def known(x: str | None) -> str | None:
        return None if x in (None, "", "UNKNOWN") else x

    return Preemption(known(m.group("uid")), known(m.group("job")), RULES.get(m.group("why")), m.group("why"),
                      known(m.group("a")), known(m.group("b")), to_int(m.group("pp")), to_int(m.group("tp")))


def preemption_of(wl: Obj, events: list[Obj]) -> tuple[str | None, str | None, Preemption | None] | None:
    """(condition reason, message, parsed) when the Workload's last eviction was a preemption; the
    `Preempted` event (same message plus priorities) fills in what the condition lacks."""
    conds = conditions(wl)
    pre = dct(conds.get("Preempted"))
    ev = dct(conds.get("Evicted"))
    if pre.get("status") != "True" and not (ev.get("status") == "True" and ev.get("reason") == EVICTED_BY_PREEMPTION):
        return None
    msg = text(pre.get("message")) or text(ev.get("message"))
    rule = text(pre.get("reason")) if pre.get("status") == "True" else None
    parsed = parse_preemption(msg)
    for e in events:
        if e.get("reason") == "Preempted" and text(dct(e.get("involvedObject")).get("name")) == name_of(wl):
            richer = parse_preemption(e.get("message") or e.get("note"))
            if richer is not None and (parsed is None or richer.uid == parsed.uid):
                parsed, msg = richer, msg or text(e.get("message"))
    return rule or (parsed.rule if parsed else None), msg, parsed


@dataclass(frozen=True)
class RetryLoop:
    check: str
    times: int  # evictions (or retries) counted
    since: str | None  # the first retry's or eviction's time we can see
    message: str | None  # the check's own words
    requeue_at: str | None
    state: str | None


def retry_loop(wl: Obj, events: list[Obj]) -> RetryLoop | None:
    """A check that keeps answering Retry: `retryCount`, schedulingStats evictions by `AdmissionCheck`,
    `requeueState.count` after such an eviction, and the Evicted events, whichever counts most."""
    status = dct(wl.get("status"))
    checks = [dct(c) for c in lst(status.get("admissionChecks"))]
    evictions = sum(to_int(dct(e).get("count")) or 0 for e in lst(dct(status.get("schedulingStats")).get("evictions"))
                    if dct(e).get("reason") == EVICTED_BY_CHECK)
    ev = dct(conditions(wl).get("Evicted"))
    by_check = ev.get("status") == "True" and ev.get("reason") == EVICTED_BY_CHECK
    rs = dct(status.get("requeueState"))
    requeues = to_int(rs.get("count")) or 0 if by_check else 0
    ev_events = [e for e in events if text(dct(e.get("involvedObject")).get("name")) == name_of(wl)
                 and (e.get("reason") == EVENT_BY_CHECK or str(e.get("message") or "").startswith(BY_CHECK_WORDS))]
    counted = sum(to_int(e.get("count")) or 1 for e in ev_events)
    retried = [c for c in checks if (to_int(c.get("retryCount")) or 0) > 0 or c.get("state") == "Retry"]
    named = _named_in(text(ev.get("message")) if by_check else None)
    check = next((c for c in retried if c.get("state") == "Retry"), None) or (retried[0] if retried else None)
    if check is None and named:
        check = next((c for c in checks if c.get("name") == named[0][0]), {"name": named[0][0]})
    times = max(evictions, requeues, counted, max((to_int(c.get("retryCount")) or 0 for c in retried), default=0))
    if check is None or times < LOOP_AT:
        return None
    name = str(check.get("name") or "?")
    own = text(check.get("message"))
    if own and own.startswith(RESET):  # the eviction reset it: the check's words survive in the Evicted message
        own = None
    words = own or next((m for n, m in named if n == name and m), None)
    firsts = [str(e.get("firstTimestamp")) for e in ev_events if e.get("firstTimestamp")]
    since = min(firsts) if firsts else None
    return RetryLoop(name, times, since, words, text(rs.get("requeueAt")), text(check.get("state")))


_NAMED = lazy(r'"(?P<n>[^"]+)"(?: \((?P<m>.*?)\))?(?:; |$)')


def _named_in(message: str | None) -> list[tuple[str, str | None]]:
    """The checks of `Evicted due to AdmissionCheck(s) in Retry state: "a" (words); "b"`."""
    if not message or "state: " not in message:
        return []
    return [(m.group("n"), m.group("m")) for m in _NAMED.finditer(message.split("state: ", 1)[1])]


@dataclass(frozen=True)
class NodeFit:
    name: str
    labels: dict[str, str]  # <what> -> value of <what>.fit.gpustack.ai/<key>


def accelerator_key(flavor: Obj | None) -> str | None:
    for k in dct(dct(dct(flavor).get("spec")).get("nodeLabels")):
        if str(k).startswith(ACCEL_PREFIX) and "." not in str(k)[len(ACCEL_PREFIX):]:
            return str(k)[len(ACCEL_PREFIX):]
    return None


def fit_labels(nodes: list[Obj], key: str | None) -> list[NodeFit]:
    """GPUStack's per-card fit labels of each node (for one accelerator key when known)."""
    out = []
    for n in nodes:
        labels = dct(dct(n.get("metadata")).get("labels"))
        got = {}
        for k, v in labels.items():
            what, sep, akey = str(k).partition(FIT_SUFFIX)
            if sep and (key is None or akey == key):
                got[what] = str(v)
        out.append(NodeFit(name_of(n), got))
    return out


def fragmentation(fits: list[NodeFit], asks: dict[str, Fraction | None]) -> dict[str, Any] | None:
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
