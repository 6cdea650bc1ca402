"""Copies past `now` that admission would make room for by preemption, each with the Workloads it would preempt.

Each further copy is judged by the engine's preemption view (`kueue.preempt_answer.PreemptionView.judge`: the policy
pass, then the real oracle over the admitted Workloads read once per queue, and Kueue's targets from that same
assignment). A copy that would preempt sees its targets leave the queues (their usage out of the snapshot and out
of the Workloads the Context read) and is judged again, as Kueue tries it again once they are gone, preempting more
where that assignment needs it; once it fits it is taken as admitted, its own usage in, as a Workload of the
request's priority, newer than every other; the next copy is judged against that. The copies `now` counted are
put in first the same way, so the quota the preemptor sees is the one they leave.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.simulate import Part, Placed, Stop, stop_of, with_usage
from kubectl_pd.create.nodes import Fit
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import preempt_reads as rd
from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import NEVER, FlavorResource, Snapshot
from kubectl_pd.kueue.preempt_answer import Victim
from kubectl_pd.records import dataclass, replace

DEFAULT_LIMIT = 20  # further copies judged at most
OWN_NAMESPACE = "(capacity)"  # the namespace the hypothetical copies are given in the preemptor's view

NOT_ALLOWED = "policy-never"  # the queue's preemption policies allow none
# Kueue's cycles for one preempting copy: after its targets are gone Kueue assigns flavors afresh (the preemption's
# outcome clears LastAssignment, scheduler.go:291@v0.19.2), which may choose others and preempt again (layout seed
# 46157: decode's fb freed by copy1, prefill then ends its scan in fb and preempts copy0 too); a bound no queue nears
MAX_CYCLES = 16


@dataclass(frozen=True)
class PreemptingCopy:
    targets: tuple[Victim, ...]
    borrows: bool


@dataclass(frozen=True)
class PreemptCount:
    """Copies admitted by preemption after `now`, each with its targets; `stop` what stops the next one;
    `unknown` why the targets could not be known (a read refused, usage the Workloads read do not account for)."""

    copies: tuple[PreemptingCopy, ...]
    stop: Stop | None
    unknown: str | None = None
    capped: bool = False
    reason: str | None = None  # NOT_ALLOWED: nothing judged


def may_preempt(snap: Snapshot, parts: Sequence[Part]) -> bool:
    """Whether any queue of the copy may preempt at all (else no Workload is read)."""
    for part in parts:
        cq = snap.cluster_queues.get(part.cluster_queue)
        if cq is None:
            continue
        p = cq.preemption
        if p.within_cluster_queue != NEVER or (cq.cohort and p.reclaim_within_cohort != NEVER):
            return True
    return False


def _all_frs(snap: Snapshot, cq_name: str) -> list[FlavorResource]:
    cq = snap.cluster_queues[cq_name]
    return [(f.name, r.name) for g in cq.resource_groups for f in g.flavors for r in f.resources]


def prepare(ctx: Any, original: Snapshot, parts: Sequence[Part], placed: Sequence[Placed], priority: int) -> None:
    """Read the admitted Workloads of every queue the preemptor may look at (on the queues as they are), then
    put the copies already counted among them, so the Workloads read account for the snapshot's usage."""
    queues: list[str] = []
    for part in parts:
        if part.cluster_queue in original.cluster_queues:
            queues += rd.queues_to_read(original, part.cluster_queue, _all_frs(original, part.cluster_queue))
    ctx.reads.consult(list(dict.fromkeys(queues)))  # a reading record (cluster/admitted.Reading) reads them now
    for i, copy in enumerate(placed):
        _admit(ctx, copy.usage, f"copy-{i + 1}", priority, ctx.now + i)


def _admit(ctx: Any, usage: Sequence[tuple[str, FlavorResource, Fraction]], name: str, priority: int,
           created: float) -> None:
    by_cq: dict[str, dict[FlavorResource, Fraction]] = {}
    for cq, fr, q in usage:
        by_cq.setdefault(cq, {})[fr] = by_cq.get(cq, {}).get(fr, Fraction(0)) + q
    for cq, use in by_cq.items():
        if cq in ctx.reads.workloads:  # a queue read: its Workloads are its usage; else its status counts it
            ctx.reads.workloads[cq].append(pre.Admitted(OWN_NAMESPACE, name, cq, priority, use, created, created))


def _evict(ctx: Any, snap: Snapshot, victims: Sequence[Victim]) -> Snapshot:
    out: list[tuple[str, FlavorResource, Fraction]] = []
    for v in victims:
        kept = []
        for w in ctx.reads.workloads.get(v.cluster_queue, []):
            if (w.namespace, w.name) == (v.namespace, v.name):
                out += [(w.cluster_queue, fr, q) for fr, q in w.usage.items()]
            else:
                kept.append(w)
        ctx.reads.workloads[v.cluster_queue] = kept
    return with_usage(snap, out, -1)


@dataclass(frozen=True)
class _Step:
    """One copy judged through the Context: placed (its flavors and usage) with the Workloads it preempts, or
    not (`stop`, or `unknown` when the candidates could not be known)."""

    placed: Placed | None
    targets: tuple[Victim, ...] = ()
    stop: Stop | None = None
    unknown: str | None = None
    first_stop: Stop | None = None  # a placed copy that preempts: why it does not fit now


def count_all(ctx: Any, snap: Snapshot, parts: Sequence[Part], *, priority: int, limit: int = sim.DEFAULT_LIMIT,
              preempt_limit: int = DEFAULT_LIMIT, fit: Fit | None = None) -> tuple[sim.Count, PreemptCount]:
    """Copies one after another through the engine's preemption view (`PreemptionView.judge`, as why-pending and
    create judge a Workload): the ones that fit without preempting are `now` (with the admitted Workloads known,
    a flavor whose preemption would find no candidate is passed over for the next, as Kueue does); from the
    first that preempts, each further copy and its targets, up to `preempt_limit`. A queue whose Workloads
    could not be read: `now` from the policy pass alone, the preemption unknown. `fit`: the Nodes read (a copy
    whose Pods no Node of their flavor holds is not counted: simulate.place)."""
    parts = at_priority(parts, priority)  # the preemptor is the copy, at the copy's priority (never 0 by default)
    prepare(ctx, snap, parts, (), priority)
    if ctx.reads.unknown is not None:
        return sim.count(snap, parts, limit=limit, fit=fit), PreemptCount((), None, unknown=ctx.reads.unknown)
    placed: list[Placed] = []
    copies: list[PreemptingCopy] = []
    s, now_snap, now_stop = snap, snap, None
    while True:
        if not copies and len(placed) >= limit:
            return sim.Count(len(placed), sum(p.borrows for p in placed), tuple(placed), None, True, s), \
                PreemptCount((), None)
        if copies and len(copies) >= preempt_limit:
            return _now(placed, now_stop, now_snap), PreemptCount(tuple(copies), None, capped=True)
        saved = {q: list(ws) for q, ws in ctx.reads.workloads.items()}
        step, s2 = _one(ctx, s, parts, len(placed) + len(copies) + 1, priority, fit)
        if step.placed is None:
            ctx.reads.workloads.clear()
            ctx.reads.workloads.update(saved)
            if not copies:
                return _now(placed, step.stop, s), PreemptCount((), step.stop if step.unknown is None else None,
                                                                 step.unknown)
            return _now(placed, now_stop, now_snap), PreemptCount(tuple(copies), step.stop, step.unknown)
        if not copies and not step.targets:
            placed.append(step.placed)
        else:
            if not copies:
                now_stop, now_snap = step.first_stop, s
            copies.append(PreemptingCopy(step.targets, step.placed.borrows))
        s = s2


def at_priority(parts: Sequence[Part], priority: int) -> list[Part]:
    """The copy's Workloads at its priority: the engine's preemptor takes the Demand's (kueue/preempt_answer), so a
    copy at equal priority never preempts another under LowerPriority, and one at a higher priority does."""
    return [replace(p, demand=replace(p.demand, priority=priority)) for p in parts]


def _now(placed: list[Placed], stop: Stop | None, snap: Snapshot) -> sim.Count:
    return sim.Count(len(placed), sum(p.borrows for p in placed), tuple(placed), stop, False, snap)


def _one(ctx: Any, snap: Snapshot, parts: Sequence[Part], n: int, priority: int, fit: Fit | None,
         ) -> tuple[_Step, Snapshot]:
    s = snap
    targets: list[Victim] = []
    borrows = False
    first_stop: Stop | None = None
    flavors: list[tuple[str, str, str, str]] = []
    usage: list[tuple[str, FlavorResource, Fraction]] = []
    created = ctx.now + 10_000 + n  # newer than every Workload of the queues and every copy before it
    for part in parts:
        if part.cluster_queue not in s.cluster_queues:
            return _Step(None, stop=Stop("ClusterQueueMissing", part.cluster_queue, part.workload, "", None,
                                         never=True)), snap
        if (never := sim.never_on_nodes(fit, s, part)) is not None:
            return _Step(None, stop=never), snap
        facts = vd.WorkloadFacts(f"{OWN_NAMESPACE}/copy-{n}/{part.workload}", priority, created)
        for _ in range(MAX_CYCLES):
            judged = ctx.judge(s, part.cluster_queue, part.demand, facts)
            a, answer = judged.assignment, judged.answer
            if a.mode in (ad.FIT, ad.PREEMPT) and (small := sim.landed_on_small(fit, s, part, a)) is not None:
                return _Step(None, stop=small), snap
            if a.mode != ad.PREEMPT:
                break
            if answer is None or answer.targets is None:
                return _Step(None, stop=stop_of(part, a),
                             unknown=(answer.unknown if answer is not None else None) or "unknown"), snap
            if not answer.targets:  # it would need preemption, but nothing may be preempted: it waits
                return _Step(None, stop=replace(stop_of(part, a), code="QuotaExhausted")), snap
            first_stop = first_stop or stop_of(part, a)
            victims = list(answer.targets)  # the engine's own records of who it would preempt
            targets += victims
            s = _evict(ctx, s, victims)  # once they are gone Kueue tries the Workload again, from its first flavor
        if a.mode != ad.FIT:
            return _Step(None, stop=stop_of(part, a)), snap
        borrows = borrows or a.borrowing > 0
        flavors += [(part.workload, p.name, r, f) for p in a.pod_sets for r, f in sorted(p.flavors.items())]
        mine = [(part.cluster_queue, fr, q) for fr, q in pre.usage_of(a).items() if q]
        usage += mine
        s = with_usage(s, mine)
        _admit(ctx, mine, f"copy-{n}", priority, created)
    return _Step(Placed(borrows, tuple(flavors), tuple(usage)), tuple(targets), first_stop=first_stop), s
