"""Every pending pod set of a target through the one admission engine (kueue.admission).

Two views, never mixed up. Per pod set, Kueue's own: its Workload against the queue now, pod sets in
order (what Kueue's message counts); a pod set blocked only by the ones before it is said to fit alone.
For the target, the joint one: every pending Workload at once, as a shortfall per flavor and resource (what
the deployment needs freed to run whole). For why-pending the joint view never turns a Workload's own verdict
into "never": Kueue admits each Workload apart (a DisaggregatedSet's roles, an LWS's groups, a Deployment's Pods),
so only a Workload's own pod sets can exceed the queue's capacity together. create's preflight asks of the
deployment whole (`evaluate(..., whole=True)`): there, roles that cannot fit together are "never".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import cached_property

from kubectl_pd import memo
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import ClusterQueue, LimitRangeItem, PodSet, Snapshot, Taint, Workload
from kubectl_pd.records import dataclass, field, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kubectl_pd.registry import ReasonCode

FITS = "fits"
BLOCKED = "blocked"
ADMITTED = "admitted"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class RoleDemand:
    """One pod set as the report names it: by role, with its totals (pods as a resource excluded)."""

    role: str
    workload: str
    pod_set: str
    count: int
    requests: Mapping[str, Fraction]  # total for the pod set
    size: int = 1  # pods per replica (GPUStack `size`)
    reserved: bool = False


@dataclass(frozen=True)
class Blocker:
    """What stops a pod set: one flavor's outcome and the deciding resource's numbers."""

    flavor: str
    outcome: ad.Outcome
    resource: str | None = None
    requested: Fraction | None = None
    previous: Fraction = Fraction(0)
    available: Fraction | None = None
    capacity: Fraction | None = None
    nominal: Fraction | None = None
    needed: Fraction | None = None
    taint: Taint | None = None
    unknown: str | None = None


@dataclass
class PodSetVerdict:
    demand: RoleDemand
    verdict: str
    code: ReasonCode | None = None
    flavor: str | None = None
    assignment: ad.PodSetAssignment | None = None  # the assignment the verdict rests on
    own: ad.PodSetAssignment | None = None  # Kueue's view: its Workload, pod sets in order
    max_pods: int | None = None
    cluster_queue: str | None = None
    joint_needed: Fraction | None = None  # what every pending pod set needs together in its blocking flavor

    @cached_property  # nothing sets `assignment` after construction (records.replace makes a new verdict)
    def best(self) -> Blocker | None:
        return blocker(self.assignment) if self.assignment is not None else None

    @property
    def attempts(self) -> tuple[Blocker, ...]:
        if self.assignment is None:
            return ()
        return tuple(_blocker(a) for a in self.assignment.attempts)

    @property
    def uncovered(self) -> tuple[str, ...]:
        return self.assignment.not_covered if self.assignment is not None else ()


_MEMO = 4096  # entries of each of this module's run tables


def _blocker(a: ad.FlavorAttempt) -> Blocker:
    """The attempt's numbers as a Blocker, made once per attempt for the run (assignments are remembered and
    shared by the diagnoses of a run: memo.by_value)."""
    return memo.by_value("kueue.verdicts.blocker", (a.flavor, a.outcome), a, lambda: _make_blocker(a), _MEMO)


def _make_blocker(a: ad.FlavorAttempt) -> Blocker:
    c = a.deciding
    if c is None:
        return Blocker(a.flavor, a.outcome, taint=a.taint)
    return Blocker(a.flavor, a.outcome, c.resource, c.requested, c.previous, c.available, c.capacity, c.nominal,
                   c.needed, a.taint, c.unknown)


def blocker(psa: ad.PodSetAssignment) -> Blocker | None:
    b = psa.blocking
    return _blocker(b) if b is not None else None


def code_of(psa: ad.PodSetAssignment) -> ReasonCode | None:
    """The reason code of one pod set's assignment; None when it fits now. Worked out once per assignment
    object (a run's diagnoses share the remembered ones)."""
    return memo.by_value("kueue.verdicts.code_of", (psa.name, psa.mode), psa, lambda: _code_of(psa), _MEMO)


def _code_of(psa: ad.PodSetAssignment) -> ReasonCode | None:
    if psa.invalid:
        return "InvalidResources"
    if psa.not_covered:
        return "ResourceNotCovered"
    if psa.mode == ad.FIT:
        return None
    if psa.mode == ad.UNKNOWN:
        return "QuotaUnknown"
    outcomes = {a.outcome for g in psa.groups if g.mode != ad.FIT for a in g.attempts}
    if psa.mode == ad.PREEMPT:
        b = psa.blocking
        return "NeedsPreemption" if b is not None and b.outcome == ad.PREEMPTS else "QuotaExhausted"
    if outcomes & {ad.NO_FIT_NOW, ad.NO_CANDIDATES, ad.PREEMPTS}:
        return "QuotaExhausted"
    if ad.QUOTA_UNKNOWN in outcomes:
        return "QuotaUnknown"
    if ad.EXCEEDS in outcomes:
        return "QuotaExceedsCapacity"
    return "NoMatchingFlavor"


def verdict_of(code: ReasonCode | None) -> str:
    if code is None:
        return FITS
    return UNKNOWN if code == "QuotaUnknown" else BLOCKED


def max_pods(b: Blocker | None, d: RoleDemand, others: Fraction = Fraction(0)) -> int | None:
    """The most pods of this pod set the blocking flavor could take (now, or ever when it exceeds) next
    to `others`, what the other pod sets of its Workload ask of the same resource."""
    if b is None or b.resource is None or d.count <= 0:
        return None
    total = d.requests.get(b.resource)
    if not total:
        return None
    room = b.capacity if b.outcome == ad.EXCEEDS else b.available
    if room is None:
        return None
    left = room - max(b.previous, others)  # floor(left / (total / count)), in integers: exact, and cheaper
    return max(0, (left.numerator * d.count * total.denominator) // (left.denominator * total.numerator))


@dataclass(frozen=True)
class FlavorBar:
    flavor: str
    resource: str
    nominal: Fraction
    used: Fraction  # admitted (flavorsUsage)
    reserved: Fraction  # reserved but not admitted (flavorsReservation - flavorsUsage)
    needed: Fraction  # what the pending demands ask of this flavor
    cohort: str | None = None  # the queue's cohort, when its peers were all read (else what it lends is unknown)
    cohort_free: Fraction | None = None  # what the cohort has free for this flavor and resource now
    borrowable: Fraction | None = None  # what this queue may take of it now, beyond its nominal (borrowingLimit)
    borrowing_limit: Fraction | None = None  # None: no limit
    borrowed: Fraction = Fraction(0)  # what the queue uses beyond its nominal quota
    lent: Fraction = Fraction(0)  # what other queues of the cohort use now of this queue's unused nominal quota
    lent_known: bool = True  # False: the queue is in a cohort whose members were not all read (lent unknown)

    @property
    def free(self) -> Fraction:
        """What of its nominal quota the queue could take now: unused, and not lent to the cohort (the one free
        figure of the screen: the reasons' `available` counts the same)."""
        return max(self.nominal - self.used - self.reserved - self.lent, Fraction(0))


@dataclass(frozen=True)
class WorkloadFacts:
    """What of a Workload besides its pod sets Kueue's admission reads: its priority, its queue-order time
    (seconds since the epoch; None = now, a Workload not created yet), its `status.reclaimablePods`, and its
    namespace/name for the preemption answer."""

    label: str
    priority: int = 0
    created: float | None = None
    reclaimable: Mapping[str, int] = field(default_factory=dict)


# The one assignment of a Workload the verdict rests on (kueue/preempt_answer.Context.assign): the policy-only
# oracle, or the real one over the admitted Workloads when they were read.
Assigner = Callable[[Snapshot, str, ad.Demand, WorkloadFacts], ad.Assignment]


def policy_assign(snap: Snapshot, cq_name: str, demand: ad.Demand, _facts: WorkloadFacts) -> ad.Assignment:
    return ad.assign(snap, cq_name, demand)


@dataclass
class QueueDemand:
    """The pod sets of one ClusterQueue, grouped by Workload in the order they are considered; `about` the
    rest of each Workload (priority, reclaimable pods, ...) by its name (absent: priority 0, created now)."""

    workloads: list[tuple[str, list[tuple[RoleDemand, ad.PodSetDemand]]]] = field(default_factory=list)
    about: dict[str, WorkloadFacts] = field(default_factory=dict)

    def facts_of(self, wl: str) -> WorkloadFacts:
        return self.about.get(wl) or WorkloadFacts(wl)

    def demand_of(self, wl: str, members: list[tuple[RoleDemand, ad.PodSetDemand]]) -> ad.Demand:
        f = self.facts_of(wl)
        return ad.Demand(tuple(p for _, p in members), f.priority, f.reclaimable)


_NOW = ("QuotaExhausted", "NeedsPreemption")  # blocked now, not forever


@dataclass
class QueueVerdict:
    verdicts: dict[tuple[str, str], PodSetVerdict]  # (workload, pod set) -> verdict
    bars: list[FlavorBar]
    joint: dict[tuple[str, str], Fraction]  # (flavor, resource) -> shortfall of every pending pod set at once


def evaluate(snap: Snapshot, cq_name: str, queue: QueueDemand, assign: Assigner = policy_assign,
             whole: bool = False) -> QueueVerdict:
    """Per pod set Kueue's view (its Workload, pod sets in order, its priority and reclaimable pods, through
    `assign`: the one assignment the preemption answer rests on too); a pod set that is blocked only by the
    ones before it fits alone and is said to; then the joint shortfall of every pending Workload at once.
    WHOLE (create's preflight: will the deployment ever run whole?): what cannot fit next to the others even in
    the queue's capacity is "never" for the deployment; else (why-pending: what Kueue says of each Workload) the
    Workloads are taken one at a time, as Kueue's scheduler does."""
    out: dict[tuple[str, str], PodSetVerdict] = {}
    pending: list[tuple[RoleDemand, ad.PodSetDemand]] = []
    order: list[tuple[str, list[tuple[RoleDemand, ad.PodSetDemand]], ad.Assignment]] = []
    for wl, members in queue.workloads:
        if all(d.reserved for d, _ in members):
            for d, _ in members:
                out[(d.workload, d.pod_set)] = PodSetVerdict(d, ADMITTED, cluster_queue=cq_name)
            continue
        kueue = assign(snap, cq_name, queue.demand_of(wl, members), queue.facts_of(wl))
        out.update(_workload_verdicts(snap, cq_name, members, kueue, queue.facts_of(wl).reclaimable))
        pending.extend(members)
        order.append((wl, members, kueue))
    if not pending:
        return QueueVerdict(out, _bars(snap.cluster_queues[cq_name], {}, snap), {})
    everyone = ad.Demand(tuple(_charged(p, queue, d.workload) for d, p in pending))
    # one pending Workload: its joint view is the assignment its verdicts come from (one set of figures)
    together = order[0][2] if len(order) == 1 else ad.assign(snap, cq_name, everyone)
    joint = dict(together.joint)
    # the deployment whole (the preflight): what cannot fit next to the others is never; else no "never" from the
    # sum: Kueue admits each Workload apart, one at a time, and one that fits the queue's capacity alone is at most
    # short of unused quota behind the others (LWS differential, Kueue 0.19.2, seeds 4711, 4740, 4743)
    if whole:
        _never_together(out, pending, together, cq_name)
    _short_together(out, pending, together)
    if len(order) > 1 and not whole:
        _one_at_a_time(snap, cq_name, queue, out, order, _beyond_together(pending, together))
    for v in out.values():
        b = v.best
        if v.verdict == BLOCKED and b is not None and b.resource is not None:
            v.joint_needed = joint.get((b.flavor, b.resource))
    return QueueVerdict(out, _bars(snap.cluster_queues[cq_name], _wanted(together), snap), joint)


def _charged(p: ad.PodSetDemand, queue: QueueDemand, wl: str) -> ad.PodSetDemand:
    """A pod set as Kueue charges it: its count less its Workload's reclaimable pods (for the joint view,
    where pod sets of several Workloads meet and pod-set names are not unique)."""
    gone = queue.facts_of(wl).reclaimable.get(p.name, 0)
    return replace(p, count=max(0, p.count - gone)) if gone else p


def _workload_verdicts(snap: Snapshot, cq_name: str, members: list[tuple[RoleDemand, ad.PodSetDemand]],
                       kueue: ad.Assignment, reclaimable: Mapping[str, int] | None = None,
                       ) -> dict[tuple[str, str], PodSetVerdict]:
    """One Workload as Kueue sees it (`kueue`, its assignment): its pod sets in order, each charged after the
    ones before it. One that does not fit now behind an earlier one that does not fit either, but would fit
    alone, is said to fit alone; behind earlier ones that all fit, Kueue's view is its verdict (issue 37 W3:
    they took the room, nothing is "freed")."""
    out: dict[tuple[str, str], PodSetVerdict] = {}
    reclaimable = reclaimable or {}
    earlier_fit = True  # every pod set Kueue charged before this one fits: then Kueue's view of it is the verdict
    for (d, p), psa in zip(members, kueue.pod_sets, strict=True):
        code = code_of(psa)
        behind_a_blocked_one = not earlier_fit
        earlier_fit = earlier_fit and code is None
        if code in _NOW and behind_a_blocked_one:
            alone = ad.assign(snap, cq_name, ad.Demand((p,), reclaimable=reclaimable)).pod_sets[0]
            if code_of(alone) is None:  # only the pod sets before it stand in its way
                out[(d.workload, d.pod_set)] = PodSetVerdict(
                    d, FITS, None, next(iter(alone.flavors.values()), None), alone, psa, cluster_queue=cq_name)
                continue
        b = blocker(psa)
        out[(d.workload, d.pod_set)] = PodSetVerdict(
            d, verdict_of(code), code, next(iter(psa.flavors.values()), None), psa, psa,
            max_pods(b, d, _others(members, d, b)) if code else None, cq_name)
    return out


def _others(members: list[tuple[RoleDemand, ad.PodSetDemand]], d: RoleDemand, b: Blocker | None) -> Fraction:
    """What the Workload's other pod sets ask of the blocking resource (summed only for a pod set that is blocked:
    Fraction's arithmetic runs in Python)."""
    res = b.resource if b is not None else None
    return sum((o.requests.get(res or "", Fraction(0)) for o, _ in members if o is not d), Fraction(0))


def together_blocked(verdicts: Iterable[PodSetVerdict]) -> list[PodSetVerdict]:
    """Kueue admits a Workload's pod sets together: each one said to fit alone (its own view, `own`, blocked
    only by the pod sets before it) blocks the Workload. Those verdicts as Kueue's view gives them, in order;
    Kueue's message names the first."""
    out = []
    for v in verdicts:
        code = code_of(v.own) if v.verdict == FITS and v.own is not None and v.own is not v.assignment else None
        if code is not None:
            out.append(replace(v, verdict=BLOCKED, code=code, assignment=v.own))
    return out


def _never_together(out: dict[tuple[str, str], PodSetVerdict], pending: list[tuple[RoleDemand, ad.PodSetDemand]],
                    together: ad.Assignment, cq_name: str) -> None:
    """The deployment whole (create's preflight): what cannot fit next to the others is never admitted with them."""
    for (d, _), psa in zip(pending, together.pod_sets, strict=True):
        v = out[(d.workload, d.pod_set)]
        if code_of(psa) == "QuotaExceedsCapacity" and (v.code is None or v.code in _NOW):
            b = blocker(psa)
            others = sum((o.requests.get(b.resource or "", Fraction(0)) for o, _ in pending if o is not d),
                         Fraction(0)) if b is not None else Fraction(0)
            out[(d.workload, d.pod_set)] = PodSetVerdict(d, BLOCKED, "QuotaExceedsCapacity", None, psa, v.own,
                                                         max_pods(b, d, others), cq_name)


def _short_together(out: dict[tuple[str, str], PodSetVerdict], pending: list[tuple[RoleDemand, ad.PodSetDemand]],
                    together: ad.Assignment) -> None:
    """Several Workloads of one deployment (its replica groups), each fitting the free quota alone, but not all
    of them: Kueue reserves them one by one and those after the free quota is spent wait, so the deployment
    is not admitted whole (found by the real Kueue, tests/realcluster/test_create_md_real.py). Each pod set
    the joint assignment leaves short is blocked with the joint code; its own view stays."""
    if len({d.workload for d, _ in pending}) < 2 or any(out[(d.workload, d.pod_set)].code for d, _ in pending):
        return
    for (d, _), psa in zip(pending, together.pod_sets, strict=True):
        v = out[(d.workload, d.pod_set)]
        code = code_of(psa)
        if code in _NOW and v.verdict == FITS:
            out[(d.workload, d.pod_set)] = replace(v, verdict=BLOCKED, code=code, assignment=psa,
                                                   own=v.own or v.assignment)


def _beyond_together(pending: list[tuple[RoleDemand, ad.PodSetDemand]], together: ad.Assignment) -> set[str]:
    """The Workloads a pod set of which the joint view finds beyond the queue's capacity (with the others' before
    it): Kueue, admitting them apart, finds such a one short of unused quota behind the others at most."""
    return {d.workload for (d, _), psa in zip(pending, together.pod_sets, strict=True)
            if code_of(psa) == "QuotaExceedsCapacity"}


def _one_at_a_time(snap: Snapshot, cq_name: str, queue: QueueDemand, out: dict[tuple[str, str], PodSetVerdict],
                   order: list[tuple[str, list[tuple[RoleDemand, ad.PodSetDemand]], ad.Assignment]],
                   beyond: set[str]) -> None:
    """Kueue's scheduler takes a queue's Workloads one at a time (queue order), each reserving its quota before
    the next is tried. A Workload of `beyond` that fits alone is judged again after the earlier ones that fit
    reserved theirs (the queue's reservation grown by their assignments): what it is short of then is Kueue's
    "insufficient unused quota" for it, never the sum's "maximum capacity". Its own view stays (`own`)."""
    cq = snap.cluster_queues[cq_name]
    reserved: dict[tuple[str, str], Fraction] = dict(cq.reserved)
    for wl, members, kueue in order:
        keys = [(d.workload, d.pod_set) for d, _ in members]
        if not kueue.fits or any(out[k].verdict != FITS for k in keys):
            continue  # blocked on its own: it reserves nothing
        if wl in beyond and reserved != cq.reserved:
            later = replace(snap, cluster_queues={**snap.cluster_queues, cq_name: replace(cq, reserved=reserved)})
            after = ad.assign(later, cq_name, queue.demand_of(wl, members))
            if not after.fits:
                for k, psa in zip(keys, after.pod_sets, strict=True):
                    v, code = out[k], code_of(psa)
                    if code in _NOW:
                        out[k] = replace(v, verdict=BLOCKED, code=code, assignment=psa, own=v.own or v.assignment)
                continue
        for psa in kueue.pod_sets:
            for r, q in psa.requests.items():
                if (f := psa.flavors.get(r)) is not None:
                    reserved[(f, r)] = reserved.get((f, r), _ZERO) + q


def _wanted(together: ad.Assignment) -> dict[tuple[str, str], Fraction]:
    """What every pending pod set asks, per (flavor, resource): the bars' demand."""
    wanted: dict[tuple[str, str], Fraction] = {}
    for psa in together.pod_sets:
        b = blocker(psa)
        for r, q in psa.requests.items():
            f = psa.flavors.get(r) or (b.flavor if b is not None and b.resource == r else None)
            if f is not None and q:
                was = wanted.get((f, r))
                wanted[(f, r)] = q if was is None else was + q
    return wanted


def _bars(cq: ClusterQueue, wanted: Mapping[tuple[str, str], Fraction], snap: Snapshot | None = None,
          ) -> list[FlavorBar]:
    bars = []
    # a cohort with a cycle: Kueue builds no tree for it (snapshot.go:182-185@v0.19.2), so nothing is lent or free
    tree = ad.Tree(snap) if snap is not None and cq.cohort and snap.peers_complete \
        and snap.cycle_of(cq.cohort) is None else None
    for key, nominal, used, reserved in quota_rows(cq):
        need = wanted.get(key, _ZERO)
        if need or used or reserved:
            bar = FlavorBar(key[0], key[1], nominal, used, reserved, need, lent_known=not cq.cohort,
                            borrowed=max(used + reserved - nominal, _ZERO))  # the queue's own: no cohort needed
            bars.append(lending(bar, cq, tree, key) if tree is not None else bar)
    return bars


_ZERO = Fraction(0)
QuotaRow = tuple[tuple[str, str], Fraction, Fraction, Fraction]


def quota_rows(cq: ClusterQueue) -> list[QuotaRow]:
    """(flavor, resource), nominal, used and reserved-not-admitted of each readable quota of `cq`, in order;
    the same queue (a run's thousands of diagnoses share its snapshot) is read once."""
    return memo.by_value("kueue.verdicts.quota_rows", cq.name, cq, lambda: _read_quota_rows(cq), _MEMO)


def _read_quota_rows(cq: ClusterQueue) -> list[QuotaRow]:
    rows = []
    for g in cq.resource_groups:
        for f in g.flavors:
            for q in f.resources:
                key = (f.name, q.name)
                if q.unknown:
                    continue  # an unreadable quota draws no bar (it is not zero)
                used = cq.admitted.get(key, _ZERO)
                rows.append((key, q.nominal, used, max(_ZERO, cq.reserved.get(key, _ZERO) - used)))
    return rows


def lending(bar: FlavorBar, cq: ClusterQueue, tree: ad.Tree, key: tuple[str, str]) -> FlavorBar:
    """What the cohort has free for this flavor and resource, and what of it the queue may borrow now."""
    node = tree.nodes.get(cq.name)
    if node is None or node.parent is None or tree.unreadable(node, key):
        return bar
    q = cq.quota(*key)
    in_use = bar.used + bar.reserved
    may_take = tree.available(node, key)  # the queue's own free nominal and what it may borrow
    # What of its unused quota others of the cohort use now: what it could not take back without a reclaim, and
    # never more than it lends the cohort: Kueue puts only `nominal - localQuota` of a queue in its cohort (at
    # most lendingLimit; resource_node.go:67-72, 217-229@v0.19.2), and `available` may be negative after an
    # over-admission (resource_node.go:100-106@v0.19.2), which is no more lent.
    lendable = max(bar.free, Fraction(0))
    if q is not None and q.lending_limit is not None:
        lendable = min(lendable, q.lending_limit)
    lent = min(max(bar.free - max(may_take, Fraction(0)), Fraction(0)), lendable)
    return replace(bar, cohort=cq.cohort, cohort_free=max(tree.available(node.parent, key), Fraction(0)),
                   lent=lent, lent_known=True, borrowable=max(may_take - (bar.free - lent), Fraction(0)),
                   borrowing_limit=q.borrowing_limit if q is not None else None,
                   borrowed=max(in_use - bar.nominal, Fraction(0)))


def pod_set_demands(wl: Workload, group: str, role_of: Mapping[str, str], pod_specs: Mapping[str, PodSet],
                    size_of: Mapping[str, int], limit_ranges: tuple[LimitRangeItem, ...] = (),
                    ) -> list[tuple[RoleDemand, ad.PodSetDemand]]:
    """A Workload's pod sets as demands. A trimmed pod set (no containers) is measured by its role's Pods;
    `status.resourceRequests`, where Kueue wrote it, is the authority for totals."""
    out = []
    for ps in wl.pod_sets:
        role = role_of.get(ps.name, ps.name)
        if not ps.has_template and role in pod_specs:  # the role's Pod, as the pod set its spec makes
            ps = replace(pod_specs[role], name=ps.name, count=ps.count, group=ps.group,
                         template_labels=dict(ps.template_labels))
        per_pod = dict(ps.requests)
        totals = wl.totals.get(ps.name)
        if totals and ps.count:
            per_pod = {k: q / ps.count for k, q in totals.items()}
        psd = ad.demand_of_pod_set(ps, role, limit_ranges=limit_ranges, requests=per_pod)
        d = RoleDemand(role, group, ps.name, ps.count, psd.total(), size_of.get(role, 1), wl.reserved)
        out.append((d, psd))
    return out


def template_demand(role: str, group: str, count: int, template: PodSet, size: int,
                    limit_ranges: tuple[LimitRangeItem, ...] = ()) -> tuple[RoleDemand, ad.PodSetDemand]:
    """What Kueue would compose from a role's Pods (no Workload yet): one pod set per role, from a Pod's
    template (kube.Pod.template)."""
    psd = ad.demand_of_pod_set(replace(template, name=role, count=count), role, limit_ranges=limit_ranges)
    return RoleDemand(role, group, role, count, psd.total(), size), psd


