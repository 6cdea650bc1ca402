"""The one admission engine: Kueue's flavor assignment for a workload-like demand, as a pure function.

`assign(snapshot, cluster_queue, demand)` is the small cousin of Kueue's
`pkg/scheduler/flavorassigner` (v0.18.4; v0.19 where it differs): pod sets in the Workload's order,
pod-set groups assigned together, resource groups and flavors in queue order, each flavor judged by its
own taints and node labels, then by quota through the cohort tree (`pkg/cache/scheduler/resource_node.go`:
available, potential available, lending and borrowing limits), then chosen by `flavorFungibility`.
Every flavor tried is kept with its outcome and numbers; the result carries codes and parameters only.
why-pending builds the demand from Workloads or Pods, create from the request; nothing else in the code
base computes quota.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import IntEnum, StrEnum
from fractions import Fraction
from functools import cached_property
from typing import Any

from kubectl_pd import memo
from kubectl_pd.errors import PdError
from kubectl_pd.kueue import versions
from kubectl_pd.kueue.model import (
    NEVER,
    TRY_NEXT_FLAVOR,
    ClusterQueue,
    FlavorFungibility,
    FlavorQuotas,
    FlavorResource,
    LimitRangeItem,
    PodSet,
    Requirement,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Taint,
    Toleration,
    Workload,
)
from kubectl_pd.records import dataclass, field, replace


class AssignmentMode(IntEnum):
    """Kueue's FlavorAssignmentMode (flavorassigner.go:452@v0.19.2, :362@v0.18.4), ordered from lowest to
    highest preference; its word (`text`, a `Mode`: NoFit, Preempt, Fit) is what the records and the outputs carry.
    UNKNOWN is ours, below NoFit: a number the verdict needs could not be read. Kueue's DeferredFit (2: the
    Workload fits but waits for preemptions to finish within one cycle) is a state of a running scheduler,
    never of a snapshot: not modelled."""

    UNKNOWN = -1
    NO_FIT = 0
    PREEMPT = 1
    FIT = 3

    @property
    def text(self) -> Mode:
        return _MODE_TEXT[self]


class Mode(StrEnum):
    """An assignment's mode as the records carry it: Kueue's FlavorAssignmentMode by its word (a str, so the
    outputs print it as Kueue does); `rank` orders it."""

    UNKNOWN = "Unknown"
    NO_FIT = "NoFit"
    PREEMPT = "Preempt"
    FIT = "Fit"

    @property
    def rank(self) -> AssignmentMode:
        return _MODE_OF[self]


_MODE_TEXT = {AssignmentMode.UNKNOWN: Mode.UNKNOWN, AssignmentMode.NO_FIT: Mode.NO_FIT,
              AssignmentMode.PREEMPT: Mode.PREEMPT, AssignmentMode.FIT: Mode.FIT}
_MODE_OF = {text: mode for mode, text in _MODE_TEXT.items()}
NO_FIT, PREEMPT, FIT, UNKNOWN = Mode.NO_FIT, Mode.PREEMPT, Mode.FIT, Mode.UNKNOWN


def worst(modes: Iterable[Mode]) -> Mode:
    """The least preferred of these modes (Fit for none), in AssignmentMode's order."""
    return min(modes, key=_MODE_OF.__getitem__, default=FIT)


class Outcome(StrEnum):
    """What one flavor tried for one pod set (or pod-set group) came to."""

    FITS = "fits"
    BORROWS = "fits-borrowing"
    PREEMPTS = "needs-preemption"  # quota would hold it once candidates are preempted (or reclaimed)
    NO_CANDIDATES = "no-preemption-candidates"  # it fits the quota, but nothing it may preempt is running
    NO_FIT_NOW = "no-fit"  # over unused quota, and policy allows no preemption
    EXCEEDS = "exceeds-capacity"  # more than the flavor can ever give, borrowing included
    NOT_MATCHING = "node-affinity-mismatch"
    UNTOLERATED = "untolerated-taint"
    FLAVOR_MISSING = "flavor-not-found"
    QUOTA_UNKNOWN = "quota-unknown"


FITS, BORROWS, PREEMPTS, NO_CANDIDATES = Outcome.FITS, Outcome.BORROWS, Outcome.PREEMPTS, Outcome.NO_CANDIDATES
NO_FIT_NOW, EXCEEDS, NOT_MATCHING = Outcome.NO_FIT_NOW, Outcome.EXCEEDS, Outcome.NOT_MATCHING
UNTOLERATED, FLAVOR_MISSING, QUOTA_UNKNOWN = Outcome.UNTOLERATED, Outcome.FLAVOR_MISSING, Outcome.QUOTA_UNKNOWN

KUEUE_DEFAULT = versions.ENGINE_DEFAULT  # 0.19 ranks flavors slightly differently (versions.py)



class Possibility(StrEnum):
    """An oracle's answer to "could preemption make room for this much?" (with the borrowing height after)."""

    PREEMPT = "Preempt"
    RECLAIM = "Reclaim"
    NO_CANDIDATES = "NoCandidates"


PREEMPT_POSSIBLE, RECLAIM_POSSIBLE = Possibility.PREEMPT, Possibility.RECLAIM
NO_CANDIDATES_FOUND = Possibility.NO_CANDIDATES
Oracle = Callable[[ClusterQueue, FlavorResource, Fraction, int], tuple[Possibility, int]]


class PreemptionMode(IntEnum):
    """Kueue's preemptionMode, the flavor assigner's own finer mode (flavorassigner.go:522@v0.19.2,
    :426@v0.18.4), ordered from lowest to highest preference."""

    NO_FIT = 0
    NO_CANDIDATES = 1  # preemption would make room, but the simulation found nothing to preempt
    PREEMPT = 2
    RECLAIM = 3
    FIT = 4

    @property
    def assignment_mode(self) -> AssignmentMode:
        """Kueue's preemptionMode.flavorAssignmentMode (flavorassigner.go:604@v0.19.2)."""
        return _ASSIGNMENT_MODE[self]

    @property
    def is_preempt(self) -> bool:
        """Kueue's granularMode.isPreemptMode: preemption targets were found (flavorassigner.go:622@v0.19.2)."""
        return self is PreemptionMode.PREEMPT or self is PreemptionMode.RECLAIM

    @staticmethod
    def of_possibility(possibility: Possibility) -> PreemptionMode:
        """Kueue's fromPreemptionPossibility (flavorassigner.go:577@v0.19.2) over an oracle's answer."""
        return _OF_POSSIBILITY.get(possibility, PreemptionMode.PREEMPT)


_ASSIGNMENT_MODE = {PreemptionMode.NO_FIT: AssignmentMode.NO_FIT, PreemptionMode.NO_CANDIDATES: AssignmentMode.PREEMPT,
                    PreemptionMode.PREEMPT: AssignmentMode.PREEMPT, PreemptionMode.RECLAIM: AssignmentMode.PREEMPT,
                    PreemptionMode.FIT: AssignmentMode.FIT}
_OF_POSSIBILITY = {PREEMPT_POSSIBLE: PreemptionMode.PREEMPT, RECLAIM_POSSIBLE: PreemptionMode.RECLAIM,
                   NO_CANDIDATES_FOUND: PreemptionMode.NO_CANDIDATES}


class BorrowingLevel(int):
    """Kueue's borrowingLevel (flavorassigner.go:492@v0.19.2): how far up the cohort tree the quota comes
    from; 0 is the ClusterQueue's own quota. Increasing, not necessarily by one."""

    __slots__ = ()

    def better_than(self, other: int) -> bool:
        """Kueue's betterThan: the quota is more local than `other`'s."""
        return self < other

    @property
    def optimal(self) -> bool:
        """Kueue's optimal: no borrowing."""
        return self == 0


@dataclass(frozen=True)
class GranularMode:
    """Kueue's granularMode{preemptionMode, borrowingLevel} (flavorassigner.go:509@v0.19.2, :413@v0.18.4):
    how one flavor can take a pod set, compared by `preferred_to` (Kueue's isPreferred) under the queue's
    flavorFungibility; no order of its own, since which of two is better depends on that preference."""

    preemption: PreemptionMode
    borrowing: BorrowingLevel

    def preferred_to(self, other: GranularMode, ff: FlavorFungibility, kueue: tuple[int, int]) -> bool:
        """Kueue's isPreferred(self, other) (flavorassigner.go:535@v0.19.2, :439@v0.18.4): NoFit is never
        preferred; from 0.19 a flavor without preemption candidates ranks below every viable one; then
        PreemptionOverBorrowing compares borrowing first, anything else (BorrowingOverPreemption, the
        default) the preemption mode first."""
        a, b = self, other
        if a.preemption is PreemptionMode.NO_FIT:
            return False
        if b.preemption is PreemptionMode.NO_FIT:
            return True
        a_none, b_none = a.preemption is PreemptionMode.NO_CANDIDATES, b.preemption is PreemptionMode.NO_CANDIDATES
        if a_none != b_none and versions.no_candidates_ranks_last(kueue):
            return not a_none  # 0.19: a flavor with nothing to preempt ranks below every viable one
        if ff.preference == "PreemptionOverBorrowing":
            if a.borrowing != b.borrowing:
                return a.borrowing.better_than(b.borrowing)
            return a.preemption > b.preemption
        if a.preemption != b.preemption:
            return a.preemption > b.preemption
        return a.borrowing.better_than(b.borrowing)

    def try_next(self, ff: FlavorFungibility) -> bool:
        """Kueue's shouldTryNextFlavor (flavorassigner.go:1259@v0.19.2): whether the next flavor is tried
        after this one."""
        if self.preemption is PreemptionMode.NO_FIT or self.preemption is PreemptionMode.NO_CANDIDATES:
            return True
        if self.preemption.is_preempt and ff.when_can_preempt == TRY_NEXT_FLAVOR:
            return True
        return not self.borrowing.optimal and ff.when_can_borrow == TRY_NEXT_FLAVOR


NO_BORROWING = BorrowingLevel(0)
# Kueue's bestGranularMode and worstGranularMode (flavorassigner.go:514-519@v0.19.2)
BEST_MODE = GranularMode(PreemptionMode.FIT, NO_BORROWING)
WORST_MODE = GranularMode(PreemptionMode.NO_FIT, BorrowingLevel(sys.maxsize))


@dataclass(frozen=True)
class Invalid:
    """A request Kueue refuses before any flavor is tried: above the container's limit, or above a
    LimitRange maximum (Kueue: `resources validation failed` / `resources didn't satisfy LimitRange
    constraints`)."""

    rule: str  # requests-exceed-limits | limitrange-max
    container: str
    resource: str
    requested: Fraction
    limit: Fraction


@dataclass(frozen=True)
class PodSetDemand:
    """What one pod set asks: per-pod requests x count; `role` is ours, for the printers."""

    name: str
    count: int
    requests: Mapping[str, Fraction]
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: tuple[tuple[Requirement, ...], ...] | None = None
    tolerations: tuple[Toleration, ...] = ()
    group: str | None = None
    role: str | None = None
    unknown: tuple[str, ...] = ()
    invalid: tuple[Invalid, ...] = ()  # what Kueue refuses before assigning flavors

    def total(self, count: int | None = None) -> dict[str, Fraction]:
        n = self.count if count is None else count
        return dict(self.requests) if n == 1 else {r: q * n for r, q in self.requests.items()}

    @cached_property
    def memo_key(self) -> Hashed:
        """Everything of this pod set that assign reads or copies into its answer, hashed once."""
        return Hashed((self.name, self.count, _quantities_key(self.requests), _mapping_key(self.node_selector),
                       self.affinity, self.tolerations, self.group, self.role, self.unknown, self.invalid))


class Hashed:
    """A tuple with its hash computed once: Fraction's hash runs in Python, and a run over thousands of
    pending Workloads looks the same pod set up in the assignment memo several times."""

    __slots__ = ("value", "_hash")

    def __init__(self, value: tuple[Any, ...]) -> None:
        self.value = value
        self._hash = hash(value)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hashed) and self._hash == other._hash and self.value == other.value


@dataclass(frozen=True)
class Demand:
    """A Workload, real or hypothetical (create's request), as the engine sees it."""

    pod_sets: tuple[PodSetDemand, ...]
    priority: int = 0
    reclaimable: Mapping[str, int] = field(default_factory=dict)


def demand_of(wl: Workload, roles: Mapping[str, str] | None = None) -> Demand:
    return Demand(tuple(demand_of_pod_set(ps, (roles or {}).get(ps.name)) for ps in wl.pod_sets),
                  wl.priority, wl.reclaimable)


def demand_of_pod_set(ps: PodSet, role: str | None = None, count: int | None = None,
                      limit_ranges: tuple[LimitRangeItem, ...] = (),
                      requests: Mapping[str, Fraction] | None = None) -> PodSetDemand:
    """`requests`: per pod, when not the pod set's own (a Workload's status.resourceRequests)."""
    return PodSetDemand(ps.name, ps.count if count is None else count, ps.requests if requests is None else requests,
                        ps.node_selector, ps.affinity, ps.tolerations, ps.group, role, ps.unknown,
                        invalid_requests(ps, limit_ranges))


def invalid_requests(ps: PodSet, limit_ranges: tuple[LimitRangeItem, ...] = ()) -> tuple[Invalid, ...]:
    """Kueue's checks before flavor assignment: a container's request above its own limit, and requests
    above the namespace's LimitRange maxima (per container, and for the pod's total)."""
    out = [Invalid("requests-exceed-limits", c, r, req, lim) for c, rs in ps.limits.items()
           for r, (req, lim) in rs.items()]
    for item in limit_ranges:
        for r, cap in item.max.items():
            if item.type == "Container":
                out += [Invalid("limitrange-max", c, r, q, cap) for c, reqs in ps.containers.items()
                        if (q := reqs.get(r)) is not None and q > cap]
            elif item.type == "Pod" and ps.requests.get(r, Fraction(0)) > cap:
                out.append(Invalid("limitrange-max", "", r, ps.requests[r], cap))
    return tuple(out)


@dataclass(frozen=True)
class ResourceCheck:
    """One resource of one flavor: Kueue's numbers for it (all in the resource's base unit)."""

    resource: str
    outcome: Outcome
    requested: Fraction  # this pod set (or group)
    previous: Fraction  # earlier pod sets of the same Workload already placed in this flavor
    available: Fraction | None  # unused now, borrowing included (Kueue's Available)
    capacity: Fraction | None  # the most it could ever get (Kueue's PotentialAvailable)
    nominal: Fraction
    needed: Fraction | None = None  # how much more than `available` (or `capacity` when it exceeds)
    borrow: int = 0  # cohort height it borrows from (0 = within its own nominal quota)
    unknown: str | None = None  # the field that could not be read


@dataclass(frozen=True)
class FlavorAttempt:
    flavor: str
    outcome: Outcome
    mode: Mode  # Kueue's mode for this flavor: Fit | Preempt | NoFit
    checks: tuple[ResourceCheck, ...] = ()
    taint: Taint | None = None
    borrow: int = 0

    @cached_property
    def deciding(self) -> ResourceCheck | None:
        """The resource whose outcome decided this flavor (the worst one)."""
        bad = [c for c in self.checks if c.outcome == self.outcome]
        return bad[0] if bad else (self.checks[0] if self.checks else None)


@dataclass(frozen=True)
class GroupResult:
    """One resource group's search for one pod set (or pod-set group)."""

    covered: tuple[str, ...]
    attempts: tuple[FlavorAttempt, ...]
    chosen: str | None
    mode: Mode


@dataclass(frozen=True)
class PodSetAssignment:
    name: str
    role: str | None
    count: int
    requests: Mapping[str, Fraction]  # total for the pod set (pods included when covered)
    flavors: Mapping[str, str]  # resource -> flavor
    mode: Mode
    groups: tuple[GroupResult, ...] = ()
    not_covered: tuple[str, ...] = ()  # requested resources no resource group covers
    borrow: int = 0
    evaluated: bool = True  # False: Kueue stopped at an earlier failing pod set; ours went on for the numbers
    unknown: tuple[str, ...] = ()
    invalid: tuple[Invalid, ...] = ()

    @cached_property
    def attempts(self) -> tuple[FlavorAttempt, ...]:
        return tuple(a for g in self.groups for a in g.attempts)

    @cached_property
    def blocking(self) -> FlavorAttempt | None:
        """The attempt that explains a pod set that does not fit now: the quota attempt closest to fitting
        (needs preemption, then smallest shortfall), else the first attempt."""
        if self.mode == FIT:
            return None
        for g in self.groups:
            if g.mode == FIT:
                continue
            quota = [a for a in g.attempts if a.checks and a.outcome not in (FITS, BORROWS)]
            chosen = next((a for a in quota if a.flavor == g.chosen), None)
            if chosen is not None:  # the flavor Kueue would preempt in (with real candidates, not the closest)
                return chosen
            if quota:
                return min(quota, key=_closeness)
            if g.attempts:
                return g.attempts[0]
        return None


def _closeness(a: FlavorAttempt) -> tuple[int, Fraction]:
    order = {PREEMPTS: 0, NO_CANDIDATES: 1, NO_FIT_NOW: 2, QUOTA_UNKNOWN: 3, EXCEEDS: 4}
    c = a.deciding
    return order.get(a.outcome, 5), (c.needed if c is not None and c.needed is not None else Fraction(0))


@dataclass(frozen=True)
class Assignment:
    cluster_queue: str
    pod_sets: tuple[PodSetAssignment, ...]
    mode: Mode
    borrowing: int
    joint: Mapping[FlavorResource, Fraction] = field(default_factory=dict)  # all pod sets at once: shortfall

    @property
    def fits(self) -> bool:
        return self.mode == FIT


# ---------------------------------------------------------------------------------------- cohort tree


@dataclass
class _Node:
    """A ClusterQueue or Cohort as Kueue's resourceNode: quotas, subtree quota, usage. `nominal`, `lending`
    and `borrowing` are the quotas' figures by (flavor, resource), where the quota sets them."""

    name: str
    quotas: dict[FlavorResource, ResourceQuota]
    parent: _Node | None = None
    is_cq: bool = False
    subtree: dict[FlavorResource, Fraction] = field(default_factory=dict)
    usage: dict[FlavorResource, Fraction] = field(default_factory=dict)
    children: list[_Node] = field(default_factory=list)
    nominal: dict[FlavorResource, Fraction] = field(default_factory=dict)
    lending: dict[FlavorResource, Fraction] = field(default_factory=dict)
    borrowing: dict[FlavorResource, Fraction] = field(default_factory=dict)
    weight: Fraction = Fraction(1)  # spec.fairSharing.weight

    def local_quota(self, fr: FlavorResource) -> Fraction:
        if fr in self.lending:
            return max(Fraction(0), self.subtree.get(fr, Fraction(0)) - self.lending[fr])
        return Fraction(0)

    def local_available(self, fr: FlavorResource) -> Fraction:
        return max(Fraction(0), self.local_quota(fr) - self.usage.get(fr, Fraction(0)))

    def borrowing_with(self, fr: FlavorResource, val: Fraction) -> bool:
        """Whether the node would be over its subtree quota with `val` more in use."""
        return self.subtree.get(fr, Fraction(0)) < self.usage.get(fr, Fraction(0)) + val

    def within_nominal(self, frs: Iterable[FlavorResource]) -> bool:
        return not any(self.borrowing_with(fr, Fraction(0)) for fr in frs)

    def path_to_root(self) -> Iterator[_Node]:
        n = self.parent
        while n is not None:
            yield n
            n = n.parent

    def root(self) -> _Node:
        n = self
        while n.parent is not None:
            n = n.parent
        return n

    def height(self) -> int:
        h = min(len(self.children), 1)
        for c in self.children:
            if not c.is_cq:
                h = max(h, c.height() + 1)
        return h

    def cluster_queues(self) -> Iterator[_Node]:
        for c in self.children:
            if c.is_cq:
                yield c
            else:
                yield from c.cluster_queues()


def _quota_map(groups: tuple[ResourceGroup, ...]) -> dict[FlavorResource, ResourceQuota]:
    return {(f.name, r.name): r for g in groups for f in g.flavors for r in f.resources}


def _node(name: str, groups: tuple[ResourceGroup, ...], is_cq: bool = False, weight: Fraction = Fraction(1)) -> _Node:
    quotas = _quota_map(groups)
    return _Node(name, quotas, is_cq=is_cq, weight=weight, nominal={fr: q.nominal for fr, q in quotas.items()},
                 lending={fr: q.lending_limit for fr, q in quotas.items() if q.lending_limit is not None},
                 borrowing={fr: q.borrowing_limit for fr, q in quotas.items() if q.borrowing_limit is not None})


MAX_COHORT_DEPTH = 256  # levels of Cohorts above a ClusterQueue the engine follows (its walks recurse)


def _check_depth(snap: Snapshot) -> None:
    """A Cohort chain deeper than MAX_COHORT_DEPTH is refused by name, before any walk recurses into it (a
    3,000-level chain is no layout anyone runs; Kueue itself sets no bound). Cycles end the walk: they are said
    elsewhere (model.cohort_cycle)."""
    for name in snap.cohorts:
        seen = {name}
        at = snap.cohorts[name].parent
        while at and at not in seen:
            seen.add(at)
            if len(seen) > MAX_COHORT_DEPTH:
                raise PdError(f"the Cohort tree above Cohort {name} is more than {MAX_COHORT_DEPTH} levels deep: "
                              "kubectl-pd does not judge a tree that deep")
            c = snap.cohorts.get(at)
            at = c.parent if c is not None else None


class Tree:
    """The cohort forest of a snapshot, with usage as the queues' status reports it, or as `usage` gives it
    for the queues it names (preemption.State: the sum of the admitted Workloads read)."""

    def __init__(self, snap: Snapshot, usage: Mapping[str, Mapping[FlavorResource, Fraction]] | None = None):
        _check_depth(snap)
        self.nodes: dict[str, _Node] = {}
        cohorts: dict[str, _Node] = {}

        def cohort_node(name: str, seen: tuple[str, ...] = ()) -> _Node:
            if name in cohorts:
                return cohorts[name]
            c = snap.cohorts.get(name)
            node = _node(name, c.resource_groups, weight=c.fair_weight) if c else _node(name, ())
            cohorts[name] = node
            if c is not None and c.parent:
                if c.parent not in seen + (name,):  # a cycle: Kueue keeps its queues inactive
                    parent = cohort_node(c.parent, seen + (name,))
                    node.parent = parent
                    parent.children.append(node)
            return node

        for cq in snap.cluster_queues.values():
            node = _node(cq.name, cq.resource_groups, is_cq=True, weight=cq.fair_weight)
            node.subtree = dict(node.nominal)
            node.usage = dict(usage[cq.name] if usage is not None and cq.name in usage else cq.reserved)
            if cq.cohort:
                parent = cohort_node(cq.cohort)
                node.parent = parent
                parent.children.append(node)
            self.nodes[cq.name] = node
        for name in snap.cohorts:
            cohort_node(name)
        self.roots = [c for c in cohorts.values() if c.parent is None]
        for root in self.roots:
            self._accumulate(root)
        # (flavor, resource) a tree cannot count: some member's quota or usage is unreadable
        self._unknown: dict[str, set[FlavorResource]] = {}
        for cq in snap.cluster_queues.values():
            bad = {fr for fr, q in _quota_map(cq.resource_groups).items() if q.unknown} | set(cq.usage_unknown)
            self._unknown.setdefault(self.root(self.nodes[cq.name]).name, set()).update(bad)
        for name, c in snap.cohorts.items():
            bad = {fr for fr, q in _quota_map(c.resource_groups).items() if q.unknown}
            self._unknown.setdefault(self.root(cohorts[name]).name, set()).update(bad)

    @staticmethod
    def root(node: _Node) -> _Node:
        return node.root()

    def unreadable(self, node: _Node, fr: FlavorResource) -> bool:
        """Whether a member of `node`'s tree has an unreadable quota or usage for `fr`."""
        return fr in self._unknown.get(self.root(node).name, ())

    def _accumulate(self, node: _Node) -> None:
        node.subtree = dict(node.nominal)
        node.usage = {}
        for child in node.children:
            if not child.is_cq:
                self._accumulate(child)
            for fr, q in child.subtree.items():
                node.subtree[fr] = node.subtree.get(fr, Fraction(0)) + q - child.local_quota(fr)
            for fr, u in child.usage.items():
                node.usage[fr] = node.usage.get(fr, Fraction(0)) + max(Fraction(0), u - child.local_quota(fr))

    def available(self, node: _Node, fr: FlavorResource) -> Fraction:
        if node.parent is None:
            return node.subtree.get(fr, Fraction(0)) - node.usage.get(fr, Fraction(0))
        parent_available = self.available(node.parent, fr)
        if fr in node.borrowing:
            lq = node.local_quota(fr)
            stored = node.subtree.get(fr, Fraction(0)) - lq
            used_in_parent = max(Fraction(0), node.usage.get(fr, Fraction(0)) - lq)
            parent_available = min(stored - used_in_parent + node.borrowing[fr], parent_available)
        return node.local_available(fr) + parent_available

    def potential(self, node: _Node, fr: FlavorResource) -> Fraction:
        """Kueue's potentialAvailable."""
        if node.parent is None:
            return node.subtree.get(fr, Fraction(0))
        avail = node.local_quota(fr) + self.potential(node.parent, fr)
        if fr in node.borrowing:
            avail = min(node.subtree.get(fr, Fraction(0)) + node.borrowing[fr], avail)
        return avail

    def borrow_height(self, node: _Node, fr: FlavorResource, val: Fraction) -> tuple[int, bool]:
        """Kueue's FindHeightOfLowestSubtreeThatFits: (height, may reclaim within the hierarchy)."""
        q = node.quotas.get(fr)
        nominal = q.nominal if q is not None else Fraction(0)
        if node.parent is None or nominal >= node.usage.get(fr, Fraction(0)) + val:
            return 0, node.parent is not None
        remaining = val - node.local_available(fr)
        t: _Node | None = node.parent
        root: _Node = node.parent
        while t is not None:
            if t.subtree.get(fr, Fraction(0)) >= t.usage.get(fr, Fraction(0)) + remaining:
                return t.height(), t.parent is not None
            remaining -= t.local_available(fr)
            root = t
            t = t.parent
        return root.height(), False


# ---------------------------------------------------------------------------------------- matching


def _tolerates(t: Toleration, taint: Taint) -> bool:
    if t.effect and t.effect != taint.effect:
        return False
    if t.operator == "Exists":
        return not t.key or t.key == taint.key
    return t.key == taint.key and t.value == taint.value


def untolerated(flavor: ResourceFlavor, tolerations: tuple[Toleration, ...]) -> Taint | None:
    tols = tolerations + flavor.tolerations
    for taint in flavor.node_taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(_tolerates(t, taint) for t in tols):
            return taint
    return None


def _requirement(e: Requirement, labels: Mapping[str, str]) -> bool:
    v = labels.get(e.key)
    if e.operator == "In":
        return v is not None and v in e.values
    if e.operator == "NotIn":
        return v is None or v not in e.values
    if e.operator == "Exists":
        return v is not None
    if e.operator == "DoesNotExist":
        return v is None
    if e.operator in ("Gt", "Lt") and v is not None and len(e.values) == 1:
        try:
            a, b = int(v), int(e.values[0])
        except ValueError:
            return False
        return a > b if e.operator == "Gt" else a < b
    return False


def matches(ps: PodSetDemand, flavor: ResourceFlavor) -> bool:
    """Kueue's flavorSelector: only the label keys this flavor declares are judged (Kueue 0.17.8+/0.18.2+)."""
    keys = set(flavor.node_labels)
    labels = flavor.node_labels
    for k, v in ps.node_selector.items():
        if k in keys and labels.get(k) != v:
            return False
    if ps.affinity is None:
        return True
    terms = []
    for term in ps.affinity:
        kept = tuple(e for e in term if e.key in keys)
        if not kept:
            return True  # a term with no judged key drops the whole affinity, as Kueue does
        terms.append(kept)
    if not terms:
        return True
    return any(all(_requirement(e, labels) for e in term) for term in terms)


# ---------------------------------------------------------------------------------------- oracle


def policy_oracle(cq: ClusterQueue, fr: FlavorResource, val: Fraction, borrow: int) -> tuple[Possibility, int]:
    """What a snapshot without the running Workloads can say: preemption is possible only where the
    queue's policy allows it; whether candidates exist is not known (the verdict says so)."""
    p = cq.preemption
    if p.within_cluster_queue == NEVER and p.reclaim_within_cohort == NEVER and p.borrow_within_cohort == NEVER:
        return NO_CANDIDATES_FOUND, borrow
    if p.within_cluster_queue == NEVER and not cq.cohort:
        # the cohort policies have no one to act on outside a cohort: nothing can be preempted (found by the
        # real Kueue, which admitted such a Workload in the next flavor: tests/realcluster/cases)
        return NO_CANDIDATES_FOUND, borrow
    if p.within_cluster_queue == NEVER and p.reclaim_within_cohort != NEVER and cq.cohort:
        return RECLAIM_POSSIBLE, borrow
    return PREEMPT_POSSIBLE, borrow



# ---------------------------------------------------------------------------------------- assignment


def _can_preempt_while_borrowing(cq: ClusterQueue, fair_sharing: bool) -> bool:
    p = cq.preemption
    return p.borrow_within_cohort != NEVER or (fair_sharing and p.reclaim_within_cohort != NEVER)


def _outcome(mode: GranularMode, exceeds: bool) -> Outcome:
    if exceeds:
        return EXCEEDS
    if mode.preemption is PreemptionMode.FIT:
        return FITS if mode.borrowing.optimal else BORROWS
    return _PREEMPTION_OUTCOME.get(mode.preemption, NO_FIT_NOW)


_PREEMPTION_OUTCOME = {PreemptionMode.PREEMPT: PREEMPTS, PreemptionMode.RECLAIM: PREEMPTS,
                       PreemptionMode.NO_CANDIDATES: NO_CANDIDATES}
_NO_FIT = GranularMode(PreemptionMode.NO_FIT, NO_BORROWING)


class _Assigner:
    def __init__(self, snap: Snapshot, cq: ClusterQueue, tree: Tree, oracle: Oracle, fair_sharing: bool,
                 kueue: tuple[int, int]) -> None:
        self.snap, self.cq, self.tree, self.oracle, self.fair = snap, cq, tree, oracle, fair_sharing
        self.kueue = kueue
        self.node = tree.nodes[cq.name]

    def check_flavor(self, name: str, members: list[PodSetDemand]) -> FlavorAttempt | None:
        """Kueue's checkFlavorForPodSets: None when the flavor may hold every pod set of the group."""
        flavor = self.snap.flavor_state(name)
        if flavor is None:
            return None  # not read: selectors and taints are not judged
        if not isinstance(flavor, ResourceFlavor):
            return FlavorAttempt(name, FLAVOR_MISSING, NO_FIT)
        for ps in members:
            taint = untolerated(flavor, ps.tolerations)
            if taint is not None:
                return FlavorAttempt(name, UNTOLERATED, NO_FIT, taint=taint)
            if not matches(ps, flavor):
                return FlavorAttempt(name, NOT_MATCHING, NO_FIT)
        return None

    def fits_quota(self, fr: FlavorResource, assumed: Fraction, request: Fraction, rq: ResourceQuota | None,
                   priority: int) -> tuple[GranularMode, ResourceCheck]:
        """Kueue's fitsResourceQuota, with the numbers kept."""
        node, tree = self.node, self.tree
        nominal = rq.nominal if rq is not None else Fraction(0)
        available = max(Fraction(0), tree.available(node, fr))
        capacity = tree.potential(node, fr)
        val = assumed + request
        base = ResourceCheck(fr[1], FITS, request, assumed, available, capacity, nominal)
        if rq is not None and rq.unknown:
            return _NO_FIT, replace(base, outcome=QUOTA_UNKNOWN, unknown=rq.unknown[0])
        if fr in self.cq.usage_unknown:
            return _NO_FIT, replace(base, outcome=QUOTA_UNKNOWN, unknown="status.flavorsReservation")
        if tree.unreadable(node, fr):  # a peer's or a Cohort's quota: what the cohort lends is unknown
            return _NO_FIT, replace(base, available=None, capacity=None, outcome=QUOTA_UNKNOWN, unknown="cohort")
        if self.cq.cohort and not self.snap.peers_complete:
            # the cohort could not be read: only a borrowingLimit bounds what it might lend
            upper = nominal + rq.borrowing_limit if rq is not None and rq.borrowing_limit is not None else None
            partial = replace(base, available=None, capacity=upper)
            if upper is not None and val > upper:
                return _NO_FIT, replace(partial, outcome=EXCEEDS, needed=val - upper)
            return _NO_FIT, replace(partial, outcome=QUOTA_UNKNOWN, unknown="cohort")
        if val > capacity:
            return _NO_FIT, replace(base, outcome=EXCEEDS, needed=val - capacity)
        borrow, may_reclaim = tree.borrow_height(node, fr, val)
        if val <= available:
            mode = BEST_MODE if borrow == 0 else GranularMode(PreemptionMode.FIT, BorrowingLevel(borrow))
            return mode, replace(base, outcome=BORROWS if borrow else FITS, borrow=borrow)
        needed = val - available
        if nominal >= val or may_reclaim or _can_preempt_while_borrowing(self.cq, self.fair):
            possibility, after = self.oracle(self.cq, fr, val, borrow)
            mode = GranularMode(PreemptionMode.of_possibility(possibility), BorrowingLevel(after))
            return mode, replace(base, outcome=_outcome(mode, False), needed=needed, borrow=after)
        mode = GranularMode(PreemptionMode.NO_FIT, BorrowingLevel(borrow))
        return mode, replace(base, outcome=NO_FIT_NOW, needed=needed, borrow=borrow)

    def find(self, members: list[PodSetDemand], requests: Mapping[str, Fraction], covered: tuple[str, ...],
             flavors: tuple[FlavorQuotas, ...], assumed: Mapping[FlavorResource, Fraction], priority: int,
             ) -> GroupResult:
        """Kueue's findFlavorForPodSets for one resource group."""
        ff, kueue = self.cq.fungibility, self.kueue
        reqs = {r: q for r, q in requests.items() if r in covered}
        best, best_mode = None, WORST_MODE  # Kueue's bestAssignment, bestAssignmentMode
        attempts: list[FlavorAttempt] = []
        for fq in flavors:
            refused = self.check_flavor(fq.name, members)
            if refused is not None:
                attempts.append(refused)
                continue
            representative = BEST_MODE  # made the worst mode of the flavor's resources, as Kueue reduces it
            checks: list[ResourceCheck] = []
            for r, q in reqs.items():
                fr = (fq.name, r)
                mode, check = self.fits_quota(fr, assumed.get(fr, Fraction(0)), q, fq.quota(r), priority)
                checks.append(check)
                if check.outcome == QUOTA_UNKNOWN:
                    # an unreadable quota: whether Kueue stops here or goes on is not knowable
                    attempts.append(FlavorAttempt(fq.name, QUOTA_UNKNOWN, UNKNOWN, tuple(checks)))
                    return GroupResult(covered, tuple(attempts), None, UNKNOWN)
                if representative.preferred_to(mode, ff, kueue):
                    representative = mode
                if representative.preemption is PreemptionMode.NO_FIT:
                    break
            exceeds = any(c.outcome == EXCEEDS for c in checks)
            attempts.append(FlavorAttempt(fq.name, _outcome(representative, exceeds),
                                          representative.preemption.assignment_mode.text, tuple(checks),
                                          borrow=max((c.borrow for c in checks), default=0)))
            if not representative.try_next(ff):
                best, best_mode = fq.name, representative
                break
            if representative.preferred_to(best_mode, ff, kueue):
                best, best_mode = fq.name, representative
        if best is None or best_mode.preemption is PreemptionMode.NO_FIT:
            return GroupResult(covered, tuple(attempts), None, NO_FIT)
        return GroupResult(covered, tuple(attempts), best, best_mode.preemption.assignment_mode.text)


def _mapping_key(m: Mapping[Any, Any]) -> tuple[Any, ...]:
    return tuple(sorted(m.items()))


_EXACT = (Fraction, int)  # a tuple: `Fraction | int` would build a new union on every call


def _quantities_key(m: Mapping[str, Fraction]) -> tuple[Any, ...]:
    """A mapping of quantities as a key of plain integers (numerator, denominator): equal for equal values,
    hashed and compared in C, not by Fraction's methods, which run in Python."""
    return tuple(sorted((k, (q.numerator, q.denominator) if isinstance(q, _EXACT) else q)
                        for k, q in m.items()))


def _demand_key(demand: Demand) -> tuple[Any, ...]:
    """Everything of a Demand that assign reads or copies into its answer, as one hashable value."""
    return (tuple(ps.memo_key for ps in demand.pod_sets), demand.priority, _mapping_key(demand.reclaimable))


def assign(snap: Snapshot, cluster_queue: str, demand: Demand, *, oracle: Oracle = policy_oracle,
           fair_sharing: bool = False, kueue: tuple[int, int] = KUEUE_DEFAULT) -> Assignment:
    """`assign_now`, remembered for the run (memo.by_value: the question by value, the snapshot checked equal):
    a run over thousands of pending Workloads (why-pending -A) asks the same question of one queue snapshot
    again and again, and the answer is immutable and a function of its inputs. Only with the policy oracle, a
    pure function: a real oracle carries a preemption state."""
    table = memo.table("kueue.admission.assign") if oracle is policy_oracle else None
    if table is None:
        return assign_now(snap, cluster_queue, demand, oracle=oracle, fair_sharing=fair_sharing, kueue=kueue)
    key = (cluster_queue, _demand_key(demand), fair_sharing, kueue)
    try:
        hit = table.get(key)
    except TypeError:  # something unhashable in the demand: no memo for it
        return assign_now(snap, cluster_queue, demand, oracle=oracle, fair_sharing=fair_sharing, kueue=kueue)
    if hit is not None and (hit[0] is snap or hit[0] == snap):
        return hit[1]  # type: ignore[no-any-return]
    out = assign_now(snap, cluster_queue, demand, oracle=oracle, fair_sharing=fair_sharing, kueue=kueue)
    memo.put(table, key, (snap, out), _ASSIGNED)
    return out


_ASSIGNED = 65536  # the run's remembered assignments (one past it empties the table)


def assign_now(snap: Snapshot, cluster_queue: str, demand: Demand, *, oracle: Oracle = policy_oracle,
               fair_sharing: bool = False, kueue: tuple[int, int] = KUEUE_DEFAULT) -> Assignment:
    """Assign flavors to every pod set of `demand` on `cluster_queue`, as Kueue's scheduler leaves it once it
    has tried: the first attempt (`assign_once`), then, while that attempt leaves the Workload waiting and some
    pod set stopped its flavor scan before the last flavor, the next attempt resumed from the flavor after the
    one each pod set tried last (`tried_flavors`, `waits`). Kueue records that progress per pod set and resource
    (Assignment.append, flavorassigner.go:1013@v0.19.2, :792@v0.18.4; TriedFlavorIdx, :1240@v0.19.2), requeues
    such a Workload at once (ClusterQueue.requeueIfNotPresent and PendingFlavors, cache/queue/cluster_queue.go:679
    and workload/workload.go:211@v0.19.2) and starts the next scan there (NextFlavorToTryForPodSetResource,
    workload.go:226; flavorassigner.go:1088@v0.19.2, :843@v0.18.4); it starts over only when the ClusterQueue
    changes (scheduler.go:811@v0.19.2). What Kueue's condition then says is the last attempt's, and so is ours,
    unless that attempt leaves a pod set without a flavor the first attempt gave it (`_placed_before`)."""
    first = got = assign_once(snap, cluster_queue, demand, oracle=oracle, fair_sharing=fair_sharing, kueue=kueue)
    for _ in range(_MAX_ATTEMPTS):
        nxt = resume(snap, demand, got, oracle=oracle, fair_sharing=fair_sharing, kueue=kueue) if waits(got) else None
        if nxt is None:
            break
        got = nxt
    return got if got.fits or not _placed_before(first, got) else first


def resume(snap: Snapshot, demand: Demand, last: Assignment, *, oracle: Oracle = policy_oracle,
           fair_sharing: bool = False, kueue: tuple[int, int] = KUEUE_DEFAULT) -> Assignment | None:
    """Kueue's next attempt at a Workload whose attempt LAST (on its ClusterQueue) left it waiting in its queue:
    each pod set's scan resumed from the flavor after the one it tried last (`tried_flavors`); None when every scan
    had reached its last flavor (the next attempt starts over: the first again)."""
    cq = snap.cluster_queues[last.cluster_queue]
    tried = tried_flavors(cq, last)
    if not any(i != -1 for t in tried.values() for i in t.values()):
        return None
    return _attempt(_Assigner(snap, cq, Tree(snap), oracle, fair_sharing, kueue), demand, tried)


def _placed_before(first: Assignment, last: Assignment) -> bool:
    """The last attempt leaves a pod set with no flavor at all where the first (a scan from the first flavor)
    gave it one: only where that pod set's scan resumed stands in its way (a flavor before it would take it),
    and Kueue's next change of the queue starts the scan over. Its words ("no flavor", "maximum capacity")
    would then be claims of a queue that can never hold it: the verdict is the first attempt's (the arrangement
    Kueue comes back to), never a claim resting on where a scan resumed (tests/screen_cases.py W9)."""
    return any(p.evaluated and not p.flavors and any(q > 0 for q in p.requests.values()) and f.flavors
               for p, f in zip(last.pod_sets, first.pod_sets, strict=True))


_MAX_ATTEMPTS = 32  # each attempt moves some pod set's scan on by a flavor: a bound Kueue's queues never reach


def assign_once(snap: Snapshot, cluster_queue: str, demand: Demand, *, oracle: Oracle = policy_oracle,
                fair_sharing: bool = False, kueue: tuple[int, int] = KUEUE_DEFAULT) -> Assignment:
    """One attempt of Kueue's flavor assigner (its Assign, as Kueue's own test tables call it), every pod
    set's scan from the first flavor.

    Pod sets go in order; usage of earlier pod sets accumulates (Kueue's "previously considered podsets").
    Kueue stops at the first pod set that cannot be placed; we go on so every role gets its numbers, and
    mark the later ones `evaluated=False` so nobody mistakes them for Kueue's verdict."""
    cq = snap.cluster_queues[cluster_queue]
    if any(ps.invalid for ps in demand.pod_sets):  # refused before any flavor is tried
        refused = tuple(PodSetAssignment(ps.name, ps.role, ps.count, ps.total(), {}, NO_FIT, invalid=ps.invalid)
                        for ps in demand.pod_sets)
        return Assignment(cq.name, refused, NO_FIT, 0)
    return _attempt(_Assigner(snap, cq, Tree(snap), oracle, fair_sharing, kueue), demand, {})


def waits(a: Assignment) -> bool:
    """The attempt leaves the Workload waiting in its queue, as Kueue's scheduler marks it inadmissible: no
    flavor for some pod set (NoFit), or preemption with no candidate to preempt anywhere (Kueue finds no
    target, preempts nothing). A Workload that fits is admitted; one whose preemption may find targets
    preempts (and its next scan starts over): neither attempt is followed by a resumed one."""
    if a.mode == NO_FIT:
        return True
    if a.mode != PREEMPT:
        return False
    chosen = [at for p in a.pod_sets if p.evaluated for g in p.groups for at in g.attempts if at.flavor == g.chosen]
    return not any(at.outcome == PREEMPTS for at in chosen)


def tried_flavors(cq: ClusterQueue, a: Assignment) -> dict[int, dict[str, int]]:
    """Kueue's LastTriedFlavorIdx after the attempt A: for each pod set given a flavor, per resource, the
    index of the last flavor its scan tried in the resource group's list, or -1 when that was the last one
    (the next scan starts from the first); a pod set with no flavor, or after the first that failed, has none."""
    out: dict[int, dict[str, int]] = {}
    for i, p in enumerate(a.pod_sets):
        if not p.evaluated or not p.flavors:
            continue
        for g in p.groups:
            rg = cq.group_of(g.covered[0]) if g.covered else None
            if g.chosen is None or not g.attempts or rg is None:
                continue
            names = [f.name for f in rg.flavors]
            idx = names.index(g.attempts[-1].flavor) if g.attempts[-1].flavor in names else len(names) - 1
            for r in p.flavors:
                if r in g.covered:
                    out.setdefault(i, {})[r] = -1 if idx == len(names) - 1 else idx
    return out


def _attempt(a: _Assigner, demand: Demand, tried: Mapping[int, Mapping[str, int]]) -> Assignment:
    cq = a.cq
    assumed: dict[FlavorResource, Fraction] = {}
    results: dict[int, PodSetAssignment] = {}
    failed = False
    for idxs in _pod_set_groups(demand).values():
        members = [demand.pod_sets[i] for i in idxs]
        totals = [_pod_set_total(ps, demand.reclaimable, cq) for ps in members]
        requests = _sum(totals)
        mode, chosen, group_results, not_covered, unknown = _place(a, members, requests, assumed,
                                                                   (demand.priority, tried.get(idxs[0], {})))
        borrow = max((at.borrow for g in group_results for at in g.attempts if at.flavor == g.chosen), default=0)
        for i, ps, t in zip(idxs, members, totals, strict=True):
            flv = {r: f for r, f in chosen.items() if r in t}
            results[i] = PodSetAssignment(ps.name, ps.role, ps.count, t, flv, mode,
                                          tuple(group_results), not_covered, borrow if flv else 0, not failed, unknown)
        if chosen and mode != NO_FIT:
            _assume(assumed, totals, chosen)
        if mode in (NO_FIT, UNKNOWN) or not chosen and any(q > 0 for q in requests.values()):
            failed = True
    pod_sets = tuple(results[i] for i in range(len(demand.pod_sets)))
    return Assignment(cq.name, pod_sets, _overall(pod_sets), max((p.borrow for p in pod_sets if p.evaluated),
                                                                 default=0), _joint(a, demand, pod_sets))


def _pod_set_groups(demand: Demand) -> dict[str, list[int]]:
    """Pod-set groups (podSetGroupName) are placed together, in order of first appearance."""
    groups: dict[str, list[int]] = {}
    for i, ps in enumerate(demand.pod_sets):
        groups.setdefault(ps.group or f"#{i}", []).append(i)
    return groups


def _pod_set_total(ps: PodSetDemand, reclaimable: Mapping[str, int], cq: ClusterQueue) -> dict[str, Fraction]:
    """What a pod set charges: requests x (count - reclaimablePods), plus `pods` when the queue covers it."""
    count = max(0, ps.count - reclaimable.get(ps.name, 0))
    t = ps.total(count)
    if cq.group_of("pods") is not None:
        t["pods"] = Fraction(count)
    return t


def _sum(totals: list[dict[str, Fraction]]) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for t in totals:
        for r, q in t.items():
            out[r] = out.get(r, Fraction(0)) + q
    return out


def _place(a: _Assigner, members: list[PodSetDemand], requests: dict[str, Fraction],
           assumed: Mapping[FlavorResource, Fraction], ask: tuple[int, Mapping[str, int]]
           ) -> tuple[Mode, dict[str, str], list[GroupResult], tuple[str, ...], tuple[str, ...]]:
    """One pod set (or group) through every resource group it touches: (mode, resource -> flavor, the
    groups' searches, resources no group covers, resources whose request could not be read). ASK: the
    Workload's priority, and the index of the flavor each resource's scan tried last (`tried_flavors`)."""
    priority, tried = ask
    cq = a.cq
    not_covered = tuple(r for r, q in requests.items() if q > 0 and cq.group_of(r) is None)
    unknown = tuple(dict.fromkeys(u for ps in members for u in ps.unknown))
    if not_covered:
        return NO_FIT, {}, [], not_covered, unknown
    if unknown:
        return UNKNOWN, {}, [], not_covered, unknown
    mode = FIT
    chosen: dict[str, str] = {}
    group_results: list[GroupResult] = []
    for rg in cq.resource_groups:
        if not any(r in rg.covered for r in requests):
            continue
        start = next((tried[r] + 1 for r in requests if r in rg.covered and r in tried), 0)
        g = a.find(members, requests, rg.covered, rg.flavors[start:], assumed, priority)
        group_results.append(g)
        if g.chosen is None:
            return g.mode, {}, group_results, not_covered, unknown
        chosen.update({r: g.chosen for r in requests if r in rg.covered})
        mode = worst((mode, g.mode))
    return mode, chosen, group_results, not_covered, unknown


def _assume(assumed: dict[FlavorResource, Fraction], totals: list[dict[str, Fraction]], chosen: dict[str, str]) -> None:
    for t in totals:
        for r, q in t.items():
            if r in chosen and q:
                fr = (chosen[r], r)
                assumed[fr] = assumed.get(fr, Fraction(0)) + q


def _overall(pod_sets: tuple[PodSetAssignment, ...]) -> Mode:
    evaluated = [p for p in pod_sets if p.evaluated]
    mode = worst(p.mode for p in evaluated) if evaluated else NO_FIT
    if any(p.mode == UNKNOWN for p in pod_sets) and mode != NO_FIT:
        mode = UNKNOWN
    return mode


def _joint(a: _Assigner, demand: Demand, pod_sets: tuple[PodSetAssignment, ...]) -> dict[FlavorResource, Fraction]:
    """The atomic view: every pod set in the flavor it got or is blocked on, all at once, against what is
    unused now; the shortfall per flavor and resource (never Kueue's per-pod-set number)."""
    want: dict[FlavorResource, Fraction] = {}
    for p in pod_sets:
        if p.mode == UNKNOWN:
            continue
        for r, q in p.requests.items():
            f = p.flavors.get(r)
            if f is None:
                b = p.blocking
                f = b.flavor if b is not None and any(c.resource == r for c in b.checks) else None
            if f is not None and q:
                want[(f, r)] = want.get((f, r), Fraction(0)) + q
    out = {}
    for fr, q in want.items():
        rq = a.cq.quota(*fr)
        if rq is not None and rq.unknown or fr in a.cq.usage_unknown:
            continue
        available = max(Fraction(0), a.tree.available(a.node, fr))
        if q > available:
            out[fr] = q - available
    return out
