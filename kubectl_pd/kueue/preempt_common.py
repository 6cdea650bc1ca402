"""What Kueue's two preemptors share (the cousin of Kueue's `pkg/scheduler/preemption/common`): the
admitted Workloads and the pending one as the preemptor sees them, its settings, the quota state that
Workloads are taken out of and put back into, the preemption policies, Kueue's candidate ordering, and
the search context both the classical (kueue/preemption.py) and the fair-sharing (kueue/fairsharing.py)
preemptor run over. Neither preemptor imports the other for these."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import NEVER, ClusterQueue, FlavorResource, Snapshot
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
REASON = {_WITHIN_CQ: IN_CLUSTER_QUEUE, _HIERARCHICAL: IN_COHORT_RECLAMATION,
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
class PreemptionTarget:
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


Node = ad._Node  # the cohort tree's node: one class for admission and preemption


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


OrderKey = tuple[bool, bool, int, float, str]  # what ordering_key sorts candidates by


def ordering_key(cq: str, now: float) -> Callable[[Admitted], OrderKey]:
    """Kueue's CandidatesOrdering: evicted first, other queues first, lower priority, newer reservation."""
    def key(w: Admitted) -> OrderKey:
        reserved = now if w.reserved_at is None else w.reserved_at
        return (not w.evicted, w.cluster_queue == cq, w.priority, -reserved, w.uid)
    return key


def uses(wl: Admitted, frs: frozenset[FlavorResource]) -> bool:
    return any(fr in frs for fr in wl.usage)


@dataclass
class Candidate:
    wl: Admitted
    lca: Node | None
    variant: int


class Ctx:
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

    def from_queue(self, name: str, lca: Node | None, advantage: bool) -> list[Candidate]:
        out = []
        for wl in self.state.workloads.get(name, ()):
            v = self.variant(wl, advantage)
            if v != _NEVER:
                out.append(Candidate(wl, lca, v))
        return out

    def in_subtree(self, current: Node, lca: Node, skip: Node | None, advantage: bool, out: list[Candidate]) -> None:
        for child in current.children:
            if child.is_cq or child is skip or child.within_nominal(self.frs):
                continue
            self.in_subtree(child, lca, skip, advantage, out)
        for child in current.children:
            if child.is_cq and child is not self.node and not child.within_nominal(self.frs):
                out += self.from_queue(child.name, lca, advantage)

    def hierarchical(self) -> tuple[list[Candidate], list[Candidate]]:
        """Kueue's collectCandidatesForHierarchicalReclaim: (hierarchy, priority) candidates."""
        hier: list[Candidate] = []
        prio: list[Candidate] = []
        if self.node.parent is None or self.cq.preemption.reclaim_within_cohort == NEVER:
            return hier, prio
        advantage, remaining = fit_in_quota(self.node, self.pre.usage)
        previous: Node | None = None
        for cur in self.node.path_to_root():
            self.in_subtree(cur, cur, previous, advantage, hier if advantage else prio)
            fits, remaining = fit_in_quota(cur, remaining)
            advantage = advantage or fits
            previous = cur
        return hier, prio

    def valid(self, c: Candidate, borrowing: bool) -> bool:
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

    def fill_back(self, targets: list[PreemptionTarget], borrowing: bool) -> list[PreemptionTarget]:
        """Kueue's fillBackWorkloads: put back, newest-removed first (skipping the last), what is not needed."""
        for i in range(len(targets) - 2, -1, -1):
            self.state.add(targets[i].workload)
            if self.fits(borrowing):
                targets[i] = targets[-1]
                targets.pop()
            else:
                self.state.remove(targets[i].workload)
        return targets

    def restore(self, targets: list[PreemptionTarget]) -> None:
        for t in targets:
            self.state.add(t.workload)


def fit_in_quota(node: Node, requests: Mapping[FlavorResource, Fraction]
                  ) -> tuple[bool, dict[FlavorResource, Fraction]]:
    fits = all(not node.borrowing_with(fr, v) for fr, v in requests.items())
    return fits, {fr: max(Fraction(0), v - node.local_available(fr)) for fr, v in requests.items()}


def find_candidates(ctx: Ctx) -> list[Admitted]:
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
