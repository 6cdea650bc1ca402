"""Kueue's fair-sharing preemption (`fairPreemptions`, v0.18.4) over the preemptor's quota state.

Dominant resource shares as `pkg/cache/scheduler/fair_sharing.go` computes them (borrowed amount over
what the parent's tree could lend, x1000, divided by the fair weight), the ClusterQueue ordering of
`pkg/scheduler/preemption/fairsharing` (descend from the root into the child with the highest share,
pruning subtrees that do not borrow), and the two strategies (S2-a LessThanOrEqualToFinalShare, S2-b
LessThanInitialShare). Pure: it works on `preempt_common.State` and puts back what it takes out.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from kubectl_pd.kueue import preempt_common as pre
from kubectl_pd.kueue.preempt_common import Admitted, Ctx, Node, PreemptionTarget, State
from kubectl_pd.records import dataclass

FlavorResource = tuple[str, str]


@dataclass(frozen=True)
class DRS:
    weight: float = 1.0
    ratio: float = 0.0
    dominant: str = ""
    borrowing: bool = False

    @property
    def share(self) -> float:
        if self.ratio == 0:
            return 0.0
        if self.weight == 0:
            return float("inf")
        return self.ratio / self.weight

    @property
    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and self.ratio != 0


NEGATIVE = DRS(1.0, -1.0)


def compare(a: DRS, b: DRS) -> int:
    """Kueue's CompareDRS."""
    if a.zero_weight_borrows and b.zero_weight_borrows:
        x, y = a.ratio, b.ratio
    elif a.zero_weight_borrows:
        return 1
    elif b.zero_weight_borrows:
        return -1
    else:
        x, y = a.share, b.share
    return (x > y) - (x < y)


def drs(state: State, node: Node) -> DRS:
    """Kueue's dominantResourceShare of a ClusterQueue or Cohort (no extra request), with the node's own
    spec.fairSharing.weight."""
    weight = float(node.weight)
    if node.parent is None:
        return DRS(weight)
    borrowed: dict[str, Fraction] = {}
    for fr, quota in node.subtree.items():
        b = node.usage.get(fr, Fraction(0)) - quota
        if b > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], Fraction(0)) + b
    if not borrowed:
        return DRS(weight)
    root = node.parent.root()
    lendable: dict[str, Fraction] = {}
    for fr in root.subtree:
        lendable[fr[1]] = lendable.get(fr[1], Fraction(0)) + state.potential(node.parent, fr)
    ratio, dominant = 0.0, ""
    for r, b in borrowed.items():
        lr = lendable.get(r, Fraction(0))
        if lr > 0:
            x = float(b) * 1000.0 / float(lr)
            if x > ratio or (x == ratio and r < dominant):
                ratio, dominant = x, r
    return DRS(weight, ratio, dominant, True)


class _Ordering:
    """Kueue's TargetClusterQueueOrdering over the candidates (already in Kueue's candidate order)."""

    def __init__(self, ctx: Ctx, candidates: list[Admitted]) -> None:
        self.ctx = ctx
        self.pre = ctx.node
        self.ancestors = set(map(id, ctx.node.path_to_root()))
        self.queue: dict[str, list[Admitted]] = {}
        for c in candidates:
            self.queue.setdefault(c.cluster_queue, []).append(c)
        self.pruned_cqs: set[str] = set()
        self.pruned_cohorts: set[int] = set()

    def has(self, cq: str) -> bool:
        return bool(self.queue.get(cq))

    def pop(self, cq: str) -> Admitted:
        return self.queue[cq].pop(0)

    def drop(self, cq: str) -> None:
        self.pruned_cqs.add(cq)

    def __iter__(self) -> Iterator[Node]:
        if self.pre.parent is None:
            while self.has(self.pre.name):
                yield self.pre
            return
        root = self.pre.parent.root()
        while id(root) not in self.pruned_cohorts:
            t = self.next_target(root)
            if t is not None:
                yield t

    def next_target(self, cohort: Node) -> Node | None:
        key = pre.ordering_key(self.pre.name, self.ctx.settings.now)
        best_cq: Node | None = None
        best_cq_drs = NEGATIVE
        for cq in (c for c in cohort.children if c.is_cq and c.name not in self.pruned_cqs):
            d = drs(self.ctx.state, cq)
            if (not d.borrowing and cq is not self.pre) or not self.has(cq.name):
                self.pruned_cqs.add(cq.name)
            elif compare(d, best_cq_drs) == 0 and best_cq is not None:
                if key(self.queue[cq.name][0]) < key(self.queue[best_cq.name][0]):
                    best_cq = cq
            elif compare(d, best_cq_drs) == 1:
                best_cq, best_cq_drs = cq, d
        best_co: Node | None = None
        best_co_drs = NEGATIVE
        for co in (c for c in cohort.children if not c.is_cq and id(c) not in self.pruned_cohorts):
            d = drs(self.ctx.state, co)
            if not d.borrowing and id(co) not in self.ancestors:
                self.pruned_cohorts.add(id(co))
            elif compare(d, best_co_drs) >= 0:
                best_co, best_co_drs = co, d
        if best_co is None and best_cq is None:
            self.pruned_cohorts.add(id(cohort))
            return None
        if best_co is not None and compare(best_co_drs, best_cq_drs) >= 0:
            return self.next_target(best_co)
        return best_cq

    def almost_lcas(self, target: Node) -> tuple[Node, Node]:
        lca = next(a for a in target.path_to_root() if id(a) in self.ancestors)
        return _almost(self.pre, lca), _almost(target, lca)

    def shares(self, target: Node) -> tuple[DRS, DRS]:
        p, t = self.almost_lcas(target)
        return drs(self.ctx.state, p), drs(self.ctx.state, t)

    def share_after_removal(self, target: Node, wl: Admitted) -> DRS:
        st = self.ctx.state
        st.remove(wl)
        try:
            return drs(st, self.almost_lcas(target)[1])
        finally:
            st.add(wl)


def _almost(node: Node, lca: Node) -> Node:
    a = node
    for anc in node.path_to_root():
        if anc is lca:
            return a
        a = anc
    raise AssertionError("no least common ancestor")


def _passes(strategy: str, pre_new: DRS, target_old: DRS, target_new: DRS) -> bool:
    if strategy == "LessThanOrEqualToFinalShare":
        return compare(pre_new, target_new) <= 0
    return compare(pre_new, target_old) < 0


def _fits(ctx: Ctx) -> bool:
    """Kueue's workloadFitsForFairSharing: judged without the preemptor's own simulated usage."""
    ctx.state.add_usage(ctx.pre.cluster_queue, ctx.pre.usage, -1)
    try:
        return ctx.fits(True)
    finally:
        ctx.state.add_usage(ctx.pre.cluster_queue, ctx.pre.usage, 1)


def _first(ctx: Ctx, candidates: list[Admitted], strategy: str) -> tuple[bool, list[PreemptionTarget], list[Admitted]]:
    ordering = _Ordering(ctx, candidates)
    targets: list[PreemptionTarget] = []
    retry: list[Admitted] = []
    within_nominal = ctx.settings.fs_within_nominal and ctx.node.within_nominal(ctx.frs)
    for cq in ordering:
        if cq is ctx.node or within_nominal:
            wl = ordering.pop(cq.name)
            ctx.state.remove(wl)
            reason = pre.IN_CLUSTER_QUEUE if cq is ctx.node else pre.IN_COHORT_RECLAMATION
            targets.append(pre.PreemptionTarget(wl, reason))
            if _fits(ctx):
                return True, targets, []
            continue
        pre_new, target_old = ordering.shares(cq)
        while ordering.has(cq.name):
            wl = ordering.pop(cq.name)
            if _passes(strategy, pre_new, target_old, ordering.share_after_removal(cq, wl)):
                ctx.state.remove(wl)
                targets.append(pre.PreemptionTarget(wl, pre.IN_COHORT_FAIR_SHARING))
                if _fits(ctx):
                    return True, targets, []
                break
            retry.append(wl)
    return False, targets, retry


def _second(ctx: Ctx, retry: list[Admitted], targets: list[PreemptionTarget]) -> tuple[bool, list[PreemptionTarget]]:
    ordering = _Ordering(ctx, retry)
    for cq in ordering:
        pre_new, target_old = ordering.shares(cq)
        wl = ordering.pop(cq.name)
        if compare(pre_new, target_old) < 0:
            ctx.state.remove(wl)
            targets.append(pre.PreemptionTarget(wl, pre.IN_COHORT_FAIR_SHARING))
            if _fits(ctx):
                return True, targets
        ordering.drop(cq.name)
    return False, targets


def fair_preemptions(ctx: Ctx) -> list[PreemptionTarget]:
    """Kueue's fairPreemptions."""
    candidates = pre.find_candidates(ctx)
    if not candidates:
        return []
    candidates.sort(key=pre.ordering_key(ctx.cq.name, ctx.settings.now))
    strategies = ctx.settings.strategies or pre.DEFAULT_STRATEGIES
    ctx.state.add_usage(ctx.pre.cluster_queue, ctx.pre.usage, 1)
    fits, targets, retry = _first(ctx, candidates, strategies[0])
    if not fits and len(strategies) > 1:
        fits, targets = _second(ctx, retry, targets)
    ctx.state.add_usage(ctx.pre.cluster_queue, ctx.pre.usage, -1)
    if not fits:
        ctx.restore(targets)
        return []
    targets = ctx.fill_back(targets, True)
    ctx.restore(targets)
    return targets
