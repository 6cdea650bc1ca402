"""How many more copies fit: Kueue's admission placed one copy after another, as a pure function.

A copy is the Workloads one more deployment makes (`Part`s: a ClusterQueue and a Demand each, in the order
Kueue would see them). Each copy goes through the one engine (`kueue.admission.assign`, with its flavor order,
fungibility and pod-set order); an admitted copy's usage (`preemption.usage_of`: what Kueue charges, in the
flavors it chose) is added to its queue's reservation in a new Snapshot, and the next copy is judged against that.
The first copy that does not fit stops the count, and its blocking flavor and resource say why (`Stop`). Nothing
here reads the cluster; the preemption pass (capacity/preempt.py) is the one that asks the engine's Context.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from kubectl_pd.create import nodes as nd
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import FlavorResource, Snapshot
from kubectl_pd.records import dataclass, replace

DEFAULT_LIMIT = 1000  # copies counted at most: past this the answer is "at least"
DEFAULT_DEADLINE_S = 60.0  # one count's wall time at most: past it the answer is "at least" what was counted

# Codes that no amount of freed quota changes: "never on this configuration"
NEVER_CODES = frozenset({"QuotaExceedsCapacity", "NoMatchingFlavor", "ResourceNotCovered", "InvalidResources",
                         "ClusterQueueMissing"})

Assign = Callable[[Snapshot, str, ad.Demand], ad.Assignment]


@dataclass(frozen=True)
class Part:
    """One Workload of a copy: its ClusterQueue, a label (the pod group or replica group) and its demand."""

    cluster_queue: str
    workload: str
    demand: ad.Demand


@dataclass(frozen=True)
class Stop:
    """What stops the next copy: the reason code of the first pod set that does not fit, and its numbers."""

    code: str
    cluster_queue: str
    workload: str
    pod_set: str
    role: str | None
    flavor: str | None = None
    resource: str | None = None
    requested: Fraction | None = None
    available: Fraction | None = None
    capacity: Fraction | None = None
    needed: Fraction | None = None
    never: bool = False  # no freed quota would admit it: the configuration never can
    node: str | None = None  # PodsUnschedulable: the largest Node the flavor allows (capacity: its allocatable)
    nodes: int | None = None  # PodsUnschedulable: how many Nodes the flavor has


@dataclass(frozen=True)
class Placed:
    """One copy admitted: the flavor each pod set got, and whether it borrows from the cohort."""

    borrows: bool
    flavors: tuple[tuple[str, str, str, str], ...]  # (workload, pod set, resource, flavor)
    usage: tuple[tuple[str, FlavorResource, Fraction], ...]  # (cluster queue, (flavor, resource), amount)


@dataclass(frozen=True)
class Count:
    """`now` copies admitted one after another, `by_borrowing` of them borrowing; `stop` what stops the next
    (None when the count reached `limit`, `capped`); `snapshot` the queues with the admitted copies in them."""

    now: int
    by_borrowing: int
    placed: tuple[Placed, ...]
    stop: Stop | None
    capped: bool
    snapshot: Snapshot
    timed_out: bool = False  # stopped at the deadline (`capped` too): the count is at least `now`


def with_usage(snap: Snapshot, usage: Sequence[tuple[str, FlavorResource, Fraction]], sign: int = 1) -> Snapshot:
    """The snapshot with `usage` added to (sign -1: taken from) its queues' reservation and admitted usage, as
    an admitted Workload is counted in status.flavorsReservation and status.flavorsUsage; a new object, so the
    engine's memo of the old one is not reused."""
    if not usage:
        return snap
    by_cq: dict[str, dict[FlavorResource, Fraction]] = {}
    for cq_name, fr, q in usage:
        by_cq.setdefault(cq_name, {})[fr] = by_cq.get(cq_name, {}).get(fr, Fraction(0)) + sign * q
    queues = dict(snap.cluster_queues)
    for name, delta in by_cq.items():
        cq = queues.get(name)
        if cq is None:
            continue
        queues[name] = replace(cq, reserved=_plus(cq.reserved, delta), admitted=_plus(cq.admitted, delta))
    return replace(snap, cluster_queues=queues)


def _plus(have: Mapping[FlavorResource, Fraction], delta: Mapping[FlavorResource, Fraction],
          ) -> dict[FlavorResource, Fraction]:
    out = dict(have)
    for fr, q in delta.items():
        out[fr] = max(Fraction(0), out.get(fr, Fraction(0)) + q)
    return out


def stop_of(part: Part, a: ad.Assignment) -> Stop:
    """The first pod set Kueue stops at (an evaluated one that does not fit), as a Stop."""
    psa = next((p for p in a.pod_sets if p.evaluated and vd.code_of(p) is not None),
               next((p for p in a.pod_sets if vd.code_of(p) is not None), a.pod_sets[0] if a.pod_sets else None))
    if psa is None:
        return Stop("QuotaUnknown", part.cluster_queue, part.workload, "", None)
    code = vd.code_of(psa) or "QuotaExhausted"
    b = vd.blocker(psa)
    if b is None:
        return Stop(code, part.cluster_queue, part.workload, psa.name, psa.role, never=code in NEVER_CODES)
    return Stop(code, part.cluster_queue, part.workload, psa.name, psa.role, b.flavor, b.resource,
                (b.requested or Fraction(0)) + b.previous if b.requested is not None else None,
                b.available, b.capacity, b.needed, code in NEVER_CODES)


NODE_CODE = "PodsUnschedulable"  # why-pending's code for admitted Pods kube-scheduler refuses


def node_stop(part: Part, miss: nd.TooSmall, never: bool) -> Stop:
    """A pod set no Node of its flavor could hold: never (every flavor Kueue could give it), or on the flavor
    Kueue gives it now."""
    short = miss.requested - (miss.largest or Fraction(0)) if miss.requested is not None else None
    return Stop(NODE_CODE, part.cluster_queue, part.workload, miss.pod_set, miss.role, miss.flavor, miss.resource,
                miss.requested, None, miss.largest, short, never, miss.node, miss.nodes)


def never_on_nodes(fit: nd.Fit | None, snap: Snapshot, part: Part) -> Stop | None:
    """A pod set of the part that no Node of any flavor Kueue could give it would hold."""
    if fit is None:
        return None
    for ps in part.demand.pod_sets:
        miss = fit.never(snap, part.cluster_queue, ps)
        if miss is not None:
            return node_stop(part, miss, True)
    return None


def landed_on_small(fit: nd.Fit | None, snap: Snapshot, part: Part, a: ad.Assignment) -> Stop | None:
    """A pod set the assignment puts on a flavor whose Nodes cannot hold one of its Pods (others could)."""
    if fit is None:
        return None
    by_name = {ps.name: ps for ps in part.demand.pod_sets}
    for psa in a.pod_sets:
        ps = by_name.get(psa.name)
        if ps is None:
            continue
        for flavor in dict.fromkeys(psa.flavors.values()):
            miss = fit.on(snap, flavor, ps)
            if miss is not None:
                return node_stop(part, miss, False)
    return None


def place(snap: Snapshot, parts: Sequence[Part], assign: Assign, fit: nd.Fit | None = None,
          ) -> tuple[Placed | None, Stop | None, Snapshot]:
    """One copy: each Workload in order against the queues with the ones before it in them. (the copy, None,
    the snapshot with it) when every Workload fits now and its Pods fit a Node of their flavor (`fit`: the Nodes
    read; None, not weighed); (None, why not, the snapshot unchanged) else."""
    s = snap
    flavors: list[tuple[str, str, str, str]] = []
    usage: list[tuple[str, FlavorResource, Fraction]] = []
    borrows = False
    for part in parts:
        if part.cluster_queue not in s.cluster_queues:
            return None, Stop("ClusterQueueMissing", part.cluster_queue, part.workload, "", None, never=True), snap
        if (never := never_on_nodes(fit, s, part)) is not None:
            return None, never, snap
        a = assign(s, part.cluster_queue, part.demand)
        if a.mode != ad.FIT:
            return None, stop_of(part, a), snap
        if (small := landed_on_small(fit, s, part, a)) is not None:
            return None, small, snap
        borrows = borrows or a.borrowing > 0
        flavors += [(part.workload, p.name, r, f) for p in a.pod_sets for r, f in sorted(p.flavors.items())]
        mine = [(part.cluster_queue, fr, q) for fr, q in pre.usage_of(a).items() if q]
        usage += mine
        s = with_usage(s, mine)
    return Placed(borrows, tuple(flavors), tuple(usage)), None, s


Progress = Callable[[int], None]  # told the copies counted so far (a terminal's progress line)


def count(snap: Snapshot, parts: Sequence[Part], *, limit: int = DEFAULT_LIMIT,
          assign: Assign = ad.assign, fit: nd.Fit | None = None, deadline: float | None = None,
          progress: Progress | None = None, clock: Callable[[], float] | None = None) -> Count:
    """How many copies of `parts` Kueue would admit now, one after another (each against the queues with the
    ones before it admitted), and what stops the next one. Bounded by `limit` copies and by `deadline` (a
    `clock()` time, time.monotonic by default): past either the count is "at least" (`capped`; `timed_out` for
    the deadline). `progress` is told the count after each copy."""
    import time

    now_of = clock or time.monotonic
    if assign is ad.assign:  # the engine's own assignment, over one cohort tree kept up to date copy by copy
        assign = Incremental()
    placed: list[Placed] = []
    s = snap
    for _ in range(limit):
        if deadline is not None and placed and now_of() >= deadline:
            return Count(len(placed), sum(p.borrows for p in placed), tuple(placed), None, True, s, timed_out=True)
        copy, stop, s = place(s, parts, assign, fit)
        if copy is None:
            return Count(len(placed), sum(p.borrows for p in placed), tuple(placed), stop, False, s)
        if not copy.usage:  # it charges nothing the queues count: no quota bounds it
            return Count(len(placed) + 1, 0, (*placed, copy), None, True, s)
        placed.append(copy)
        if progress is not None:
            progress(len(placed))
    return Count(len(placed), sum(p.borrows for p in placed), tuple(placed), None, True, s)


class Incremental:
    """`kueue.admission.assign_now` (the policy oracle, Kueue's defaults) over ONE cohort tree that follows the
    count: a copy changes only its queues' reservation (`with_usage`), so the tree's usage of those queues is set
    and their cohort tree summed again, instead of a tree built from the whole snapshot per copy (on the largest
    ClusterQueue Kueue accepts that build was 86% of a copy's time). Any other change (a queue's quota, its
    cohort, a queue added): the tree is built afresh. tests/test_capacity_bounds.py holds it equal to `ad.assign`
    on every count case."""

    def __init__(self) -> None:
        self.snap: Snapshot | None = None
        self.tree: ad.Tree | None = None

    def __call__(self, snap: Snapshot, cluster_queue: str, demand: ad.Demand) -> ad.Assignment:
        cq = snap.cluster_queues[cluster_queue]
        if any(ps.invalid for ps in demand.pod_sets):
            return ad.assign_once(snap, cluster_queue, demand)
        tree = self._tree(snap)

        def attempt(tried: Mapping[int, Mapping[str, int]]) -> ad.Assignment:
            return ad._attempt(ad._Assigner(snap, cq, tree, ad.policy_oracle, False, ad.KUEUE_DEFAULT),
                               demand, tried)

        first = got = attempt({})
        for _ in range(ad._MAX_ATTEMPTS):  # assign_now's resumed scans, as it does them
            tried = ad.tried_flavors(cq, got)
            if not ad.waits(got) or not any(i != -1 for t in tried.values() for i in t.values()):
                break
            got = attempt(tried)
        return got if got.fits or not ad._placed_before(first, got) else first

    def _tree(self, snap: Snapshot) -> ad.Tree:
        old, tree = self.snap, self.tree
        if old is snap and tree is not None:
            return tree
        if old is None or tree is None or not self._follows(old, snap, tree):
            tree = ad.Tree(snap)
        self.snap, self.tree = snap, tree
        return tree

    @staticmethod
    def _follows(old: Snapshot, new: Snapshot, tree: ad.Tree) -> bool:
        """Bring TREE from OLD to NEW when only reservations changed (True); False: build it afresh."""
        if old.cohorts is not new.cohorts or old.cluster_queues.keys() != new.cluster_queues.keys():
            return False
        changed = [(n, q) for n, q in new.cluster_queues.items() if q is not old.cluster_queues[n]]
        for name, q in changed:
            was = old.cluster_queues[name]
            if (q.resource_groups, q.cohort, q.usage_unknown) != (was.resource_groups, was.cohort, was.usage_unknown):
                return False
        roots = set()
        for name, q in changed:
            node = tree.nodes[name]
            node.usage = dict(q.reserved)
            if node.parent is not None:
                roots.add(node.root().name)
        for root in tree.roots:
            if root.name in roots:
                tree._accumulate(root)
        return True
