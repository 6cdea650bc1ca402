"""LocalQueue, ClusterQueue and namespace problems, read from the objects themselves (reference/kueue.md §4, §9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubectl_pd.kueue import messages as km
from kubectl_pd.kueue.model import ClusterQueue
from kubectl_pd.pending.gather import Facts
from kubectl_pd.pending.model import Reason, read_only, say
from kubectl_pd.pending.roles import md_roles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kubectl_pd.registry import ReasonCode

STRUCTURAL = ("LocalQueueMissing", "LocalQueueStopped", "ClusterQueueMissing", "ClusterQueueStopped",
               "ClusterQueueInactive", "NamespaceNotAllowed")


def structural(facts: Facts, lq: str | None, g: str | None, kueue: str | None = None,
                fallback: tuple[ReasonCode, str | None] | None = None) -> list[Reason]:
    """LocalQueue / ClusterQueue / namespace problems from the objects themselves."""
    ns = facts.target.namespace
    if not lq:
        return []
    if lq in facts.local_queues and facts.local_queues[lq] is None:
        cq_guess = cq_of_queue(facts, lq)
        return [Reason("LocalQueueMissing", say("lq.missing", lq=lq, ns=ns), workload=g,
                       kueue_message=kueue, params=read_only({"queue": lq}),
                       hint=say("next.create-lq", lq=lq, ns=ns, cq=cq_guess))]
    lqo = facts.local_queues.get(lq)
    if lqo is None:
        return _from_fallback(fallback, g, kueue)
    stop = lqo.stop_policy
    if stop in ("Hold", "HoldAndDrain"):
        return [Reason("LocalQueueStopped", say("lq.stopped", lq=lq, stop=stop), workload=g,
                       kueue_message=kueue, params=read_only({"queue": lq}),
                       hint=say("next.resume-lq", lq=lq, ns=ns))]
    cq = lqo.cluster_queue
    if not cq:
        return _from_fallback(fallback, g, kueue)
    if cq in facts.cluster_queues and facts.cluster_queues[cq] is None:
        return [Reason("ClusterQueueMissing", say("cq.missing", cq=cq, lq=lq),
                       workload=g, kueue_message=kueue, params=read_only({"queue": cq}),
                       hint=say("next.create-cq", cq=cq, lq=lq))]
    cqo = facts.cluster_queues.get(cq)
    if cqo is None:
        return _from_fallback(fallback, g, kueue)
    model = cqo
    cstop = model.stop_policy
    if cstop in ("Hold", "HoldAndDrain"):
        return [Reason("ClusterQueueStopped", say("cq.stopped", cq=cq, stop=cstop), workload=g,
                       kueue_message=kueue, params=read_only({"queue": cq}),
                       hint=say("next.resume-cq", cq=cq))]
    active = model.conditions.get("Active")
    if active is not None and active.status == "False":
        causes = km.parse_cq_inactive(active.message)
        found = [_cause(c, facts) for c in causes]
        hint = say("next.activate-cq", cq=cq, causes=found)
        return [Reason("ClusterQueueInactive", say("cq.inactive", cq=cq, causes=found, reason=active.reason),
                       workload=g,
                       kueue_message=kueue or active.message or None, hint=hint, params=read_only({"queue": cq}))]
    cycle = _cohort_cycle(facts, model)
    if cycle is not None:  # the queue and its Cohorts were read: their state says why, not Kueue's older words
        return [Reason("ClusterQueueInactive", say("cq.cohort-cycle", cq=cq, cycle=list(cycle)), workload=g,
                       kueue_message=kueue, hint=say("next.break-cycle", cycle=list(cycle)),
                       params=read_only({"queue": cq, "cycle": list(cycle)}))]
    nsr = _namespace_mismatch(facts, model)
    if nsr:
        return [Reason("NamespaceNotAllowed", say("cq.namespace-not-selected", cq=cq, ns=ns, miss=nsr),
                       workload=g, kueue_message=kueue, params=read_only({"queue": cq}),
                       hint=say("next.select-namespace", ns=ns))]
    if fallback is not None and fallback[0] in _READ_HERE:  # both queues read, neither stopped nor inactive: the
        return []  # state read decides; Kueue's message stays on the reason that does hold, as Kueue's (issue 46)
    return _from_fallback(fallback, g, kueue)


# Kueue's queue words that the LocalQueue and ClusterQueue read settle (NamespaceNotAllowed needs the Namespace)
_READ_HERE = ("LocalQueueMissing", "LocalQueueStopped", "ClusterQueueMissing", "ClusterQueueStopped",
              "ClusterQueueInactive")


def _cohort_cycle(facts: Facts, cq: ClusterQueue) -> tuple[str, ...] | None:
    """The Cohort cycle above the queue, among the Cohorts read (kueue/model.cohort_cycle; none read: None)."""
    from kubectl_pd.kueue.model import cohort_cycle

    if not cq.cohort or not facts.cohorts:
        return None
    return cohort_cycle({c.name: c.parent for c in facts.cohorts}, cq.cohort)


def _from_fallback(fallback: tuple[ReasonCode, str | None] | None, g: str | None, kueue: str | None) -> list[Reason]:
    if fallback is None:
        return []
    code, subject = fallback
    return [Reason(code, say("queue.from-kueue", code=code, subject=subject),
                   workload=g, kueue_message=kueue, params=read_only({"queue": subject}))]


def _cause(c: km.InactiveCause, facts: Facts) -> dict[str, Any]:
    """One cause of an inactive ClusterQueue, with the Active words of the AdmissionChecks it names."""
    detail = []
    if c.kind == "inactive-checks":
        for n in c.names:
            check = facts.checks.get(n)
            act = check.conditions.get("Active") if check is not None else None
            if act is not None and act.message:
                detail.append((n, act.message))
    return {"kind": c.kind, "names": list(c.names), "text": c.text, "detail": detail}


Miss = tuple[str, ...]  # what a namespaceSelector needs that the namespace lacks: ("null",) | ("label", k, v) |
# ("expression", key, operator, values...)


def _namespace_mismatch(facts: Facts, cq: ClusterQueue) -> Miss | None:
    if cq.namespace_selector_null:
        return ("null",)
    sel = cq.namespace_selector
    if sel is None or facts.namespace_obj is None:
        return None  # not shown in the object we read, or the namespace was not read: do not guess
    labels = facts.namespace_obj.labels
    match = sel.get("matchLabels")
    for k, v in (match.items() if isinstance(match, dict) else ()):
        if labels.get(str(k)) != str(v):
            return ("label", str(k), str(v))
    exprs = sel.get("matchExpressions")
    for e in exprs if isinstance(exprs, list) else ():
        miss = _expression_miss(e if isinstance(e, dict) else {}, labels)
        if miss:
            return miss
    return None


def _expression_miss(e: dict[str, Any], labels: Mapping[str, str]) -> Miss | None:
    raw = e.get("values")
    key, op, vals = str(e.get("key")), e.get("operator"), [str(x) for x in (raw if isinstance(raw, list) else [])]
    ok = {"In": labels.get(key) in vals, "NotIn": labels.get(key) not in vals, "Exists": key in labels,
          "DoesNotExist": key not in labels}.get(str(op), True)
    return None if ok else ("expression", key, str(op), *vals)


def cq_of_queue(facts: Facts, lq: str | None) -> str | None:
    lqo = facts.local_queues.get(lq or "")
    cq = lqo.cluster_queue if lqo is not None else None
    if cq:
        return cq
    for r in md_roles(facts.deployment):
        if r.instance_type and r.instance_type in facts.cluster_queues:
            return r.instance_type
    return None
