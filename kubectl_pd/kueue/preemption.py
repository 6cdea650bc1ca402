"""Kueue's preemptor as a pure function: which admitted Workloads admitting a pending one would evict.

The small cousin of Kueue's `pkg/scheduler/preemption` (v0.18.4): candidates from the preemptor's own
ClusterQueue (`withinClusterQueue`) and from the queues of its cohort tree that use more than their
nominal quota in a flavor/resource that needs preemption (`reclaimWithinCohort`, with
`borrowWithinCohort` and its `maxPriorityThreshold`), with the hierarchical advantage of nested Cohorts;
candidates in Kueue's order, removed one by one until the Workload fits, then added back in reverse while
it still fits (the minimal set Kueue really evicts). Fair sharing, when Kueue's configuration enables it,
follows `fairPreemptions` with its two strategies over dominant resource shares (kueue/fairsharing.py).
Not simulated: AdmissionFairSharing's LocalQueue usage in the ordering, the priority-boost annotation
(PriorityBoost gate, off by default), topology-aware placement of the preemptor.

Usage comes from the admitted Workloads themselves (as Kueue's cache does), so a simulation can take a
Workload out and put it back. The result carries codes only: Kueue's reason for each target.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import NEVER, ClusterQueue, FlavorResource, Snapshot
from kubectl_pd.kueue.preempt_common import ANY as ANY
from kubectl_pd.kueue.preempt_common import DEFAULT_STRATEGIES as DEFAULT_STRATEGIES
from kubectl_pd.kueue.preempt_common import DEFAULTS as DEFAULTS
from kubectl_pd.kueue.preempt_common import IN_CLUSTER_QUEUE as IN_CLUSTER_QUEUE
from kubectl_pd.kueue.preempt_common import IN_COHORT_FAIR_SHARING as IN_COHORT_FAIR_SHARING
from kubectl_pd.kueue.preempt_common import IN_COHORT_RECLAIM_WHILE_BORROWING as IN_COHORT_RECLAIM_WHILE_BORROWING
from kubectl_pd.kueue.preempt_common import IN_COHORT_RECLAMATION as IN_COHORT_RECLAMATION
from kubectl_pd.kueue.preempt_common import LESS_THAN_INITIAL_SHARE as LESS_THAN_INITIAL_SHARE
from kubectl_pd.kueue.preempt_common import LESS_THAN_OR_EQUAL_TO_FINAL_SHARE as LESS_THAN_OR_EQUAL_TO_FINAL_SHARE
from kubectl_pd.kueue.preempt_common import LOWER_OR_NEWER_EQUAL as LOWER_OR_NEWER_EQUAL
from kubectl_pd.kueue.preempt_common import LOWER_PRIORITY as LOWER_PRIORITY
from kubectl_pd.kueue.preempt_common import REASON, Candidate, OrderKey
from kubectl_pd.kueue.preempt_common import Admitted as Admitted
from kubectl_pd.kueue.preempt_common import Ctx as Ctx
from kubectl_pd.kueue.preempt_common import PreemptionTarget as PreemptionTarget
from kubectl_pd.kueue.preempt_common import Preemptor as Preemptor
from kubectl_pd.kueue.preempt_common import Settings as Settings
from kubectl_pd.kueue.preempt_common import State as State
from kubectl_pd.kueue.preempt_common import find_candidates as find_candidates
from kubectl_pd.kueue.preempt_common import ordering_key as ordering_key
from kubectl_pd.kueue.preempt_common import satisfies as satisfies

# ---------------------------------------------------------------------------------------- times


def epoch(ts: str) -> float | None:
    """RFC 3339 -> seconds since the epoch; None when it cannot be read."""
    from datetime import datetime
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------- quota state


# ---------------------------------------------------------------------------------------- policy


def _split(cands: list[Candidate], key: Callable[[Admitted], OrderKey]) -> tuple[list[Candidate], list[Candidate]]:
    cands.sort(key=lambda c: key(c.wl))
    return [c for c in cands if c.wl.evicted], [c for c in cands if not c.wl.evicted]


def classical(ctx: Ctx) -> list[PreemptionTarget]:
    """Kueue's classicalPreemptions."""
    p = ctx.cq.preemption
    same = ctx.from_queue(ctx.cq.name, None, False) if p.within_cluster_queue != NEVER else []
    hier, prio = ctx.hierarchical()
    key = ordering_key(ctx.cq.name, ctx.settings.now)
    eh, nh = _split(hier, key)
    ep, np_ = _split(prio, key)
    es, ns = _split(same, key)
    ordered = eh + ep + es + nh + np_ + ns
    forbidden = p.borrow_within_cohort == NEVER
    under_nominal = all(ctx.node.nominal.get(fr, Fraction(0)) > ctx.node.usage.get(fr, Fraction(0)) for fr in ctx.frs)
    if (not hier and not prio) or (forbidden and not under_nominal):
        attempts = [True]
    elif forbidden and not hier:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for borrowing in attempts:
        targets: list[PreemptionTarget] = []
        for c in ordered:
            if not ctx.valid(c, borrowing):
                continue
            ctx.state.remove(c.wl)
            targets.append(PreemptionTarget(c.wl, REASON[c.variant]))
            if ctx.fits(borrowing):
                targets = ctx.fill_back(targets, borrowing)
                ctx.restore(targets)
                return targets
        ctx.restore(targets)
    return []


def targets(snap: Snapshot, workloads: Iterable[Admitted], preemptor: Preemptor,
            needs_preemption: Iterable[FlavorResource], settings: Settings = DEFAULTS,
            state: State | None = None) -> tuple[PreemptionTarget, ...]:
    """Kueue's GetTargets: the Workloads evicted to admit `preemptor`, each with Kueue's reason; () when
    nothing can be preempted. `needs_preemption`: the flavor/resources the assignment marks Preempt."""
    st = state if state is not None else State(snap, workloads)
    ctx = Ctx(st, snap.cluster_queues[preemptor.cluster_queue], preemptor, frozenset(needs_preemption), settings)
    if settings.fair_sharing:
        from kubectl_pd.kueue import fairsharing
        return tuple(fairsharing.fair_preemptions(ctx))
    return tuple(classical(ctx))


def simulate(snap: Snapshot, state: State, preemptor: Preemptor, fr: FlavorResource, quantity: Fraction,
             settings: Settings = DEFAULTS) -> tuple[ad.Possibility, int]:
    """Kueue's PreemptionOracle.SimulatePreemption for one flavor/resource: (NoCandidates | Preempt |
    Reclaim, the borrowing height once the targets are gone)."""
    one = Preemptor(preemptor.cluster_queue, preemptor.priority, {fr: quantity}, preemptor.created)
    found = targets(snap, (), one, (fr,), settings, state)
    node = state.nodes[preemptor.cluster_queue]
    if not found:
        return ad.NO_CANDIDATES_FOUND, state.borrow_height(node, fr, quantity)[0]
    for t in found:
        state.remove(t.workload)
    after = state.borrow_height(node, fr, quantity)[0]
    for t in found:
        state.add(t.workload)
    if any(t.workload.cluster_queue == preemptor.cluster_queue for t in found):
        return ad.PREEMPT_POSSIBLE, after
    return ad.RECLAIM_POSSIBLE, after


# ---------------------------------------------------------------------------------------- engine glue


def oracle(snap: Snapshot, state: State, priority: int, created: float = 0.0,
           settings: Settings = DEFAULTS) -> ad.Oracle:
    """The flavor assigner's preemption oracle from the admitted Workloads (admission.Oracle)."""
    def ask(cq: ClusterQueue, fr: FlavorResource, val: Fraction, borrow: int) -> tuple[ad.Possibility, int]:
        return simulate(snap, state, Preemptor(cq.name, priority, {}, created), fr, val, settings)
    return ask


def needs_preemption(a: ad.Assignment) -> frozenset[FlavorResource]:
    """Kueue's flavorResourcesNeedPreemption: the chosen flavor/resources whose mode is Preempt."""
    out: set[FlavorResource] = set()
    for p in a.pod_sets:
        for g in p.groups:
            chosen = next((at for at in g.attempts if at.flavor == g.chosen), None)
            if chosen is None:
                continue
            out.update((g.chosen, c.resource) for c in chosen.checks
                       if c.outcome in (ad.PREEMPTS, ad.NO_CANDIDATES) and g.chosen is not None)
    return frozenset(out)


def usage_of(a: ad.Assignment) -> dict[FlavorResource, Fraction]:
    """Kueue's TotalRequestsFor: every pod set's total in the flavor it was given."""
    out: dict[FlavorResource, Fraction] = {}
    for p in a.pod_sets:
        for r, q in p.requests.items():
            f = p.flavors.get(r)
            if f is not None:
                out[(f, r)] = out.get((f, r), Fraction(0)) + q
    return out


def flavor_modes(a: ad.Assignment) -> dict[str, dict[str, tuple[str, str]]]:
    """Per pod set, resource -> (flavor, Kueue's FlavorAssignmentMode for that resource: Fit | Preempt)."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for p in a.pod_sets:
        modes: dict[str, tuple[str, str]] = {}
        for g in p.groups:
            chosen = next((at for at in g.attempts if at.flavor == g.chosen), None)
            for c in chosen.checks if chosen is not None and g.chosen is not None else ():
                if c.resource in p.flavors:
                    pre = c.outcome in (ad.PREEMPTS, ad.NO_CANDIDATES)
                    modes[c.resource] = (g.chosen or "", ad.PREEMPT if pre else ad.FIT)
        out[p.name] = modes
    return out
