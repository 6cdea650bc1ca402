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

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import NEVER, ClusterQueue, FlavorResource, Snapshot, conditions_of, is_true
from kubectl_pd.kueue.quantity import try_parse
from kubectl_pd.records import dataclass

# Kueue's preemption reasons (the Preempted condition's reason on the victim)
IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

LOWER_PRIORITY = "LowerPriority"
LOWER_OR_NEWER_EQUAL = "LowerOrNewerEqualPriority"
ANY = "Any"

# Kueue's fair-sharing preemption strategies (config.kueue.x-k8s.io FairSharing.preemptionStrategies)
LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)

TIMESTAMP_BUFFER = 300.0  # seconds; SchedulerTimestampPreemptionBuffer (alpha, off by default)

# classical/hierarchical_preemption.go preemptionVariant
_NEVER, _WITHIN_CQ, _HIERARCHICAL, _RECLAIM_NO_BORROW, _RECLAIM_WHILE_BORROW = range(5)
_REASON = {_WITHIN_CQ: IN_CLUSTER_QUEUE, _HIERARCHICAL: IN_COHORT_RECLAMATION,
           _RECLAIM_NO_BORROW: IN_COHORT_RECLAMATION, _RECLAIM_WHILE_BORROW: IN_COHORT_RECLAIM_WHILE_BORROWING}


@dataclass(frozen=True)
class Admitted:
    """An admitted (quota-reserved) Workload as the preemptor sees it. Times are seconds since the epoch;
    `reserved_at` None = no QuotaReserved condition time (Kueue then uses "now")."""

    namespace: str
    name: str
    cluster_queue: str
    priority: int
    usage: Mapping[FlavorResource, Fraction]
    created: float = 0.0
    reserved_at: float | None = None
    evicted: bool = False
    uid: str = ""
    queue_name: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return self.namespace, self.name


@dataclass(frozen=True)
class Preemptor:
    """The pending Workload: its priority, queue-order time and usage per flavor/resource."""

    cluster_queue: str
    priority: int
    usage: Mapping[FlavorResource, Fraction]
    created: float = 0.0


@dataclass(frozen=True)
class Target:
    workload: Admitted
    reason: str


@dataclass(frozen=True)
class Settings:
    """What of Kueue's configuration the preemptor depends on."""

    fair_sharing: bool = False
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    timestamp_buffer: bool = False  # feature gate SchedulerTimestampPreemptionBuffer
    fs_within_nominal: bool = True  # feature gate FairSharingPreemptWithinNominal (beta, on)
    now: float = 0.0


DEFAULTS = Settings()


# ---------------------------------------------------------------------------------------- reading


def epoch(ts: str) -> float | None:
    """RFC 3339 -> seconds since the epoch; None when it cannot be read."""
    from datetime import datetime
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _d(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _l(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def admitted_of(obj: Any) -> Admitted | None:
    """An admitted Workload from its object: usage from `status.admission.podSetAssignments[].resourceUsage`
    (what Kueue charged). None when it holds no quota reservation or its usage cannot be read."""
    obj = _d(obj)
    meta, spec, status = _d(obj.get("metadata")), _d(obj.get("spec")), _d(obj.get("status"))
    adm = _d(status.get("admission"))
    conds = conditions_of(obj)
    cq = adm.get("clusterQueue")
    if not isinstance(cq, str) or not cq or not is_true(conds, "QuotaReserved"):
        return None
    usage: dict[FlavorResource, Fraction] = {}
    for psa in map(_d, _l(adm.get("podSetAssignments"))):
        flavors = _d(psa.get("flavors"))
        for r, v in _d(psa.get("resourceUsage")).items():
            q = try_parse(v)
            f = flavors.get(r)
            if q is None or not isinstance(f, str):
                return None
            usage[(f, str(r))] = usage.get((f, str(r)), Fraction(0)) + q
    prio = spec.get("priority")
    reserved = conds["QuotaReserved"].last_transition
    return Admitted(str(meta.get("namespace") or ""), str(meta.get("name") or ""), cq,
                    prio if isinstance(prio, int) and not isinstance(prio, bool) else 0, usage,
                    epoch(str(meta.get("creationTimestamp") or "")) or 0.0, epoch(reserved) if reserved else None,
                    is_true(conds, "Evicted"), str(meta.get("uid") or ""), str(spec.get("queueName") or ""))


# ---------------------------------------------------------------------------------------- quota state


_Node = ad._Node  # the cohort tree's node: one class for admission and preemption


class State(ad.Tree):
    """The cohort forest with usage from admitted Workloads; Workloads can be taken out and put back."""

    def __init__(self, snap: Snapshot, workloads: Iterable[Admitted], read: frozenset[str] | None = None) -> None:
        """`read`: the queues whose admitted Workloads were read (None = all); the others keep the usage
        their status reports and hold no candidate."""
        self.workloads: dict[str, list[Admitted]] = {}
        for wl in workloads:
            self.workloads.setdefault(wl.cluster_queue, []).append(wl)
        usage: dict[str, dict[FlavorResource, Fraction]] = {}
        for cq in snap.cluster_queues:
            if read is None or cq in read:
                total = usage[cq] = {}
                for wl in self.workloads.get(cq, ()):
                    for fr, q in wl.usage.items():
                        total[fr] = total.get(fr, Fraction(0)) + q
        super().__init__(snap, usage)

    def _change(self, wl: Admitted, sign: int) -> None:
        node = self.nodes.get(wl.cluster_queue)
        if node is None:
            return
        for fr, q in wl.usage.items():
            node.usage[fr] = node.usage.get(fr, Fraction(0)) + sign * q
        if node.parent is not None:
            self._accumulate(node.root())

    def remove(self, wl: Admitted) -> None:
        self._change(wl, -1)

    def add(self, wl: Admitted) -> None:
        self._change(wl, 1)

    def add_usage(self, cq: str, usage: Mapping[FlavorResource, Fraction], sign: int = 1) -> None:
        self._change(Admitted("", "", cq, 0, usage), sign)


# ---------------------------------------------------------------------------------------- policy


def satisfies(policy: str, preemptor: Preemptor, cand: Admitted, buffer: bool = False) -> bool:
    """Kueue's SatisfiesPreemptionPolicy."""
    lower = preemptor.priority > cand.priority
    if policy == LOWER_PRIORITY:
        return lower
    if policy == LOWER_OR_NEWER_EQUAL:
        newer = preemptor.priority == cand.priority and preemptor.created < cand.created
        if newer and buffer:
            newer = cand.created - preemptor.created > TIMESTAMP_BUFFER
        return lower or newer
    return policy == ANY


def ordering_key(cq: str, now: float) -> Callable[[Admitted], tuple]:
    """Kueue's CandidatesOrdering: evicted first, other queues first, lower priority, newer reservation."""
    def key(w: Admitted) -> tuple:
        reserved = now if w.reserved_at is None else w.reserved_at
        return (not w.evicted, w.cluster_queue == cq, w.priority, -reserved, w.uid)
    return key


def uses(wl: Admitted, frs: frozenset[FlavorResource]) -> bool:
    return any(fr in frs for fr in wl.usage)


@dataclass
class _Cand:
    wl: Admitted
    lca: _Node | None
    variant: int


class _Ctx:
    def __init__(self, state: State, cq: ClusterQueue, preemptor: Preemptor, frs: frozenset[FlavorResource],
                 settings: Settings) -> None:
        self.state, self.cq, self.pre, self.frs, self.settings = state, cq, preemptor, frs, settings
        self.node = state.nodes[cq.name]

    def fits(self, borrowing: bool) -> bool:
        """Kueue's workloadFits (topology left out)."""
        for fr, v in self.pre.usage.items():
            if not borrowing and self.node.nominal.get(fr, Fraction(0)) < self.node.usage.get(fr, Fraction(0)) + v:
                return False
            if v > max(Fraction(0), self.state.available(self.node, fr)):
                return False
        return True

    def variant(self, wl: Admitted, advantage: bool) -> int:
        """Kueue's classifyPreemptionVariant."""
        if not uses(wl, self.frs):
            return _NEVER
        p = self.cq.preemption
        same = wl.cluster_queue == self.cq.name
        policy = p.within_cluster_queue if same else p.reclaim_within_cohort
        if not satisfies(policy, self.pre, wl, self.settings.timestamp_buffer):
            return _NEVER
        if same:
            return _WITHIN_CQ
        if advantage:
            return _HIERARCHICAL
        if p.borrow_within_cohort == NEVER:
            return _RECLAIM_NO_BORROW
        th = p.borrow_threshold
        if wl.priority >= self.pre.priority or (th is not None and wl.priority > th):
            return _RECLAIM_NO_BORROW
        return _RECLAIM_WHILE_BORROW

    def from_queue(self, name: str, lca: _Node | None, advantage: bool) -> list[_Cand]:
        out = []
        for wl in self.state.workloads.get(name, ()):
            v = self.variant(wl, advantage)
            if v != _NEVER:
                out.append(_Cand(wl, lca, v))
        return out

    def in_subtree(self, current: _Node, lca: _Node, skip: _Node | None, advantage: bool, out: list[_Cand]) -> None:
        for child in current.children:
            if child.is_cq or child is skip or child.within_nominal(self.frs):
                continue
            self.in_subtree(child, lca, skip, advantage, out)
        for child in current.children:
            if child.is_cq and child is not self.node and not child.within_nominal(self.frs):
                out += self.from_queue(child.name, lca, advantage)

    def hierarchical(self) -> tuple[list[_Cand], list[_Cand]]:
        """Kueue's collectCandidatesForHierarchicalReclaim: (hierarchy, priority) candidates."""
        hier: list[_Cand] = []
        prio: list[_Cand] = []
        if self.node.parent is None or self.cq.preemption.reclaim_within_cohort == NEVER:
            return hier, prio
        advantage, remaining = _fit_in_quota(self.node, self.pre.usage)
        previous: _Node | None = None
        for cur in self.node.path_to_root():
            self.in_subtree(cur, cur, previous, advantage, hier if advantage else prio)
            fits, remaining = _fit_in_quota(cur, remaining)
            advantage = advantage or fits
            previous = cur
        return hier, prio

    def valid(self, c: _Cand, borrowing: bool) -> bool:
        """Kueue's candidateIsValid: earlier removals can make a later candidate's queue stop borrowing."""
        if c.wl.cluster_queue == self.cq.name:
            return True
        if borrowing and c.variant == _RECLAIM_NO_BORROW:
            return False
        node = self.state.nodes[c.wl.cluster_queue]
        if node.within_nominal(self.frs):
            return False
        for n in node.path_to_root():
            if n is c.lca:
                break
            if n.within_nominal(self.frs):
                return False
        return True

    def fill_back(self, targets: list[Target], borrowing: bool) -> list[Target]:
        """Kueue's fillBackWorkloads: put back, newest-removed first (skipping the last), what is not needed."""
        for i in range(len(targets) - 2, -1, -1):
            self.state.add(targets[i].workload)
            if self.fits(borrowing):
                targets[i] = targets[-1]
                targets.pop()
            else:
                self.state.remove(targets[i].workload)
        return targets

    def restore(self, targets: list[Target]) -> None:
        for t in targets:
            self.state.add(t.workload)


def _fit_in_quota(node: _Node, requests: Mapping[FlavorResource, Fraction]
                  ) -> tuple[bool, dict[FlavorResource, Fraction]]:
    fits = all(not node.borrowing_with(fr, v) for fr, v in requests.items())
    return fits, {fr: max(Fraction(0), v - node.local_available(fr)) for fr, v in requests.items()}


def _split(cands: list[_Cand], key: Callable[[Admitted], tuple]) -> tuple[list[_Cand], list[_Cand]]:
    cands.sort(key=lambda c: key(c.wl))
    return [c for c in cands if c.wl.evicted], [c for c in cands if not c.wl.evicted]


def classical(ctx: _Ctx) -> list[Target]:
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
        targets: list[Target] = []
        for c in ordered:
            if not ctx.valid(c, borrowing):
                continue
            ctx.state.remove(c.wl)
            targets.append(Target(c.wl, _REASON[c.variant]))
            if ctx.fits(borrowing):
                targets = ctx.fill_back(targets, borrowing)
                ctx.restore(targets)
                return targets
        ctx.restore(targets)
    return []


def find_candidates(ctx: _Ctx) -> list[Admitted]:
    """Kueue's findCandidates (fair sharing): own queue by withinClusterQueue, borrowing peers by
    reclaimWithinCohort."""
    p = ctx.cq.preemption
    out: list[Admitted] = []
    if p.within_cluster_queue != NEVER:
        out += [w for w in ctx.state.workloads.get(ctx.cq.name, ())
                if satisfies(p.within_cluster_queue, ctx.pre, w, ctx.settings.timestamp_buffer) and uses(w, ctx.frs)]
    if ctx.node.parent is not None and p.reclaim_within_cohort != NEVER:
        for peer in ctx.node.root().cluster_queues():
            if peer is ctx.node or not any(peer.borrowing_with(fr, Fraction(0)) for fr in ctx.frs):
                continue
            out += [w for w in ctx.state.workloads.get(peer.name, ())
                    if satisfies(p.reclaim_within_cohort, ctx.pre, w, ctx.settings.timestamp_buffer)
                    and uses(w, ctx.frs)]
    return out


def targets(snap: Snapshot, workloads: Iterable[Admitted], preemptor: Preemptor,
            needs_preemption: Iterable[FlavorResource], settings: Settings = DEFAULTS,
            state: State | None = None) -> tuple[Target, ...]:
    """Kueue's GetTargets: the Workloads evicted to admit `preemptor`, each with Kueue's reason; () when
    nothing can be preempted. `needs_preemption`: the flavor/resources the assignment marks Preempt."""
    st = state if state is not None else State(snap, workloads)
    ctx = _Ctx(st, snap.cluster_queues[preemptor.cluster_queue], preemptor, frozenset(needs_preemption), settings)
    if settings.fair_sharing:
        from kubectl_pd.kueue import fairsharing
        return tuple(fairsharing.fair_preemptions(ctx))
    return tuple(classical(ctx))


def simulate(snap: Snapshot, state: State, preemptor: Preemptor, fr: FlavorResource, quantity: Fraction,
             settings: Settings = DEFAULTS) -> tuple[str, int]:
    """Kueue's PreemptionOracle.SimulatePreemption for one flavor/resource: (NoCandidates | Preempt |
    Reclaim, the borrowing height once the targets are gone)."""
    one = Preemptor(preemptor.cluster_queue, preemptor.priority, {fr: quantity}, preemptor.created)
    found = targets(snap, (), one, (fr,), settings, state)
    node = state.nodes[preemptor.cluster_queue]
    if not found:
        return "NoCandidates", state.borrow_height(node, fr, quantity)[0]
    for t in found:
        state.remove(t.workload)
    after = state.borrow_height(node, fr, quantity)[0]
    for t in found:
        state.add(t.workload)
    if any(t.workload.cluster_queue == preemptor.cluster_queue for t in found):
        return "Preempt", after
    return "Reclaim", after


# ---------------------------------------------------------------------------------------- engine glue


def oracle(snap: Snapshot, state: State, priority: int, created: float = 0.0,
           settings: Settings = DEFAULTS) -> Callable[[ClusterQueue, FlavorResource, Fraction, int], tuple[str, int]]:
    """The flavor assigner's preemption oracle from the admitted Workloads (admission.Oracle)."""
    def ask(cq: ClusterQueue, fr: FlavorResource, val: Fraction, borrow: int) -> tuple[str, int]:
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
