"""What admitting a pending Workload would preempt, who holds the quota it waits for, who preempted it.

One assignment per Workload, returned with its preemption answer (`PreemptionView.judge`: a `Judged`, as Kueue's
scheduler returns the targets with the assignment, getAssignments in pkg/scheduler/scheduler.go@v0.19.2; the
diagnosis hands kueue/verdicts.evaluate the assignment and keeps the answer, `Answers`): the policy-only oracle
first; when that needs no preemption, or the queue's policies allow none, nothing more is
consulted. Otherwise the admitted Workloads of the queues the answer depends on are consulted in the run's
closed record (kubectl_pd/kueue/preempt_reads.Known, which the gather step filled before the diagnosis:
pending/gather.gather_preemption), the assignment is redone with the real oracle, and Kueue's targets are
computed from that same assignment (kubectl_pd/kueue/preemption.py). Nothing here reads the cluster. A
queue that could not be read makes the answer unknown and leaves the verdict on the policy oracle, never a
guess. Codes and numbers only: the printers (pending/preempt_render.py for why-pending,
create/preempt_words.py for create) make the English.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, Protocol

from kubectl_pd import memo
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import preempt_reads as rd
from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.config import KueueConfig
from kubectl_pd.kueue.model import NEVER, Condition, FlavorResource, Snapshot, Workload
from kubectl_pd.records import dataclass, replace

UNACCOUNTED = "usage-unaccounted"  # a queue's reported usage is not what its Workloads hold (snapshot)
MAX_HOLDERS = 5
_STATES = 64  # quota states one preemption view keeps (one past it empties the table)


@dataclass(frozen=True)
class Victim:
    namespace: str
    name: str
    cluster_queue: str
    priority: int
    reason: str


@dataclass(frozen=True)
class Holder:
    namespace: str
    name: str
    cluster_queue: str
    priority: int
    flavor: str
    resource: str
    amount: Fraction
    reserved_at: float | None
    borrows: bool  # its queue uses more than its nominal quota of this flavor/resource


@dataclass(frozen=True)
class PreemptedBy:
    """Who preempted a Workload, from the UID in Kueue's eviction message."""

    uid: str
    namespace: str | None = None
    name: str | None = None
    cluster_queue: str | None = None  # from the message's preemptor path, or the Workload found


@dataclass(frozen=True)
class Answer:
    workload: str  # namespace/name of the pending Workload
    cluster_queue: str
    needed: bool = False  # admission needs preemption
    targets: tuple[Victim, ...] | None = ()  # None = unknown which
    unknown: str | None = None
    holders: tuple[Holder, ...] = ()
    preempted_by: PreemptedBy | None = None
    notes: tuple[str, ...] = ()
    searched: bool = False  # candidates were looked for among the admitted Workloads


@dataclass(frozen=True)
class Judged:
    """A Workload's one assignment and its preemption answer with it (None: no preemption question was asked: the
    queue is unknown or inactive), as Kueue's scheduler returns the targets with the assignment
    (getAssignments, pkg/scheduler/scheduler.go@v0.19.2)."""

    assignment: ad.Assignment
    answer: Answer | None = None


def _queue_of(facts: Any, wl: Workload) -> str | None:
    """The Workload's ClusterQueue: where it is admitted, else what its LocalQueue names (typed records)."""
    if wl.cluster_queue:
        return str(wl.cluster_queue)
    lq = facts.local_queues.get(wl.queue_name or "")
    return lq.cluster_queue if lq is not None else None


def _blocking_frs(a: ad.Assignment) -> list[FlavorResource]:
    out: list[FlavorResource] = []
    for p in a.pod_sets:
        b = p.blocking
        if b is not None:
            out += [(b.flavor, c.resource) for c in b.checks if c.outcome not in (ad.FITS, ad.BORROWS)]
    return list(dict.fromkeys(out))


def _unaccounted(snap: Snapshot, reads: rd.Reads, queues: Iterable[str]) -> bool:
    """A read queue reports more usage than its admitted Workloads hold: some holder was not seen (a
    snapshot without them, or Workloads the read missed), so the candidates are not all known."""
    for q in queues:
        cq = snap.cluster_queues.get(q)
        if cq is None:
            continue
        total: dict[FlavorResource, Fraction] = {}
        for w in reads.workloads.get(q, ()):
            for fr, v in w.usage.items():
                total[fr] = total.get(fr, Fraction(0)) + v
        if any(v > total.get(fr, Fraction(0)) for fr, v in cq.reserved.items()):
            return True
    return False


def holders(snap: Snapshot, reads: rd.Reads, frs: Iterable[FlavorResource], queues: Iterable[str] | None = None,
            state: pre.State | None = None) -> tuple[Holder, ...]:
    """The admitted Workloads of `queues` (default: every queue read) holding the most of each
    flavor/resource, with whether their queue borrows."""
    import heapq

    state = state if state is not None else pre.State(snap, reads.admitted(), reads.read)
    wanted = sorted(set(reads.workloads if queues is None else queues) & set(snap.cluster_queues))
    out = []
    for fr in frs:
        borrows = {q: state.nodes[q].borrowing_with(fr, Fraction(0)) for q in wanted}
        rows = (Holder(w.namespace, w.name, w.cluster_queue, w.priority, fr[0], fr[1], w.usage[fr], w.reserved_at,
                       borrows[q])
                for q in wanted for w in reads.workloads.get(q, ()) if w.usage.get(fr, 0) > 0)
        out += heapq.nsmallest(MAX_HOLDERS, rows, key=lambda h: (-h.amount, h.priority, h.namespace, h.name))
    return tuple(out)


class PreemptionView:
    """One run's preemption inputs, shared by every Workload the run judges (why-pending's target, every
    pending Workload of `why-pending -A`, create's request): Kueue's configuration (`--kueue-config`, else the
    record's), the admitted Workloads per ClusterQueue as the gather step read them (`known`) and what the
    answers have consulted of them (`reads`). It keeps no answer: `judge` returns each with its assignment.

    `judge` is the one assignment a Workload's verdict rests on (kueue/verdicts.evaluate takes it through
    `Answers.assign`): the policy-only oracle first; when that needs preemption and the queue's policies allow
    some, the admitted Workloads of the queues the answer depends on are consulted and the assignment is redone
    with the real oracle (no candidates: the next flavor, as Kueue does), and the targets come from that same
    assignment. When the Workloads could not be read (403, a snapshot without them, usage they do not account
    for) the verdict keeps the policy oracle and the answer says "unknown which"."""

    def __init__(self, known: rd.Known | None = None, config: KueueConfig | None = None, *,
                 want_holders: bool = False) -> None:
        self.known = known if known is not None else rd.Known()
        self._config = config
        self.has_config = config is not None  # `--kueue-config`: the gather step need not read it
        self.want_holders = want_holders
        self.reads = rd.Reads(self.known)
        self.now = _now()
        # per snapshot and set of queues read: the quota state from the admitted Workloads (the simulations
        # put back every Workload they take out, so one state serves every pending Workload of the run). Found
        # by value (memo.matched): the snapshot's queue names and the queues read; the snapshot and the admitted
        # Workloads consulted checked equal (capacity's copies evict and admit between two questions)
        self._states: dict[tuple[tuple[str, ...], frozenset[str]], tuple[Any, pre.State]] = {}

    def _state(self, snap: Snapshot) -> pre.State:
        read, admitted = self.reads.read, self.reads.admitted()
        return memo.matched(self._states, (tuple(snap.cluster_queues), read), (snap, tuple(admitted)),
                            lambda: pre.State(snap, admitted, read), _STATES)

    @property
    def config(self) -> KueueConfig:
        if self._config is None:  # `--kueue-config` wins; else what the gather step read (a snapshot's own
            self._config = self.known.kueue_config()  # ConfigMap counts as a live one does)
        if self._config is None:
            from kubectl_pd.kueue import config as kc

            self.known.missed.append(kc.CONFIGMAP)
            self._config = kc.KueueConfig(note=kc.NOTE_DEFAULTS_UNREAD)
        return self._config

    def judge(self, snap: Snapshot, cq_name: str, demand: ad.Demand, about: vd.WorkloadFacts) -> Judged:
        """The Workload's assignment with its preemption answer."""
        first = ad.assign(snap, cq_name, demand)
        if cq_name not in snap.cluster_queues or rd.inactive(snap, cq_name):
            return Judged(first)
        if _some_flavor_no_fit(first) and _fair_sharing_may_preempt(snap, cq_name) and self.config.fair_sharing:
            # with fair sharing on, reclaimWithinCohort lets a borrowing queue preempt (Kueue's
            # canPreemptWhileBorrowing): the policy pass is Kueue's only with the same setting. A flavor that
            # did not fit may then need preemption and end the search there (whenCanPreempt=MayStopSearch),
            # even when a later flavor fits (flavorassigner_test.go:3070@v0.19.2, "when borrowing while
            # preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Any")
            first = ad.assign(snap, cq_name, demand, fair_sharing=True)
        out = Answer(about.label, cq_name, needed=first.mode == ad.PREEMPT)
        if _preemption_may_win(first) and rd.policies_allow(snap, cq_name):
            return self._with_candidates(snap, cq_name, demand, about, first, out)
        if not _some_pod_set_preempts(first) or not rd.policies_allow(snap, cq_name):
            frs = _blocking_frs(first) if self.want_holders else []
            if frs:
                queues = rd.holder_queues(snap, cq_name, frs)
                self.reads.consult(queues)
                out = replace(out, holders=holders(snap, self.reads, frs, queues) if self.reads.unknown is None
                              else ())
            return Judged(first, out)
        return self._with_candidates(snap, cq_name, demand, about, first, out)

    def _with_candidates(self, snap: Snapshot, cq_name: str, demand: ad.Demand, about: vd.WorkloadFacts,
                         first: ad.Assignment, out: Answer) -> Judged:
        cfg = self.config
        notes = (cfg.note,) if cfg.note else ()
        queues = rd.queues_to_read(snap, cq_name, _candidate_frs(snap, cq_name, demand))
        self.reads.consult(queues)
        unknown = self.reads.unknown or (UNACCOUNTED if _unaccounted(snap, self.reads, queues) else None)
        if unknown is not None:
            return Judged(first, replace(out, targets=None, unknown=unknown, notes=notes, searched=True))
        created = self.now if about.created is None else about.created
        settings = cfg.settings(now=self.now)
        state = self._state(snap)
        oracle = pre.oracle(snap, state, demand.priority, created, settings)
        real = ad.assign(snap, cq_name, demand, oracle=oracle, fair_sharing=cfg.fair_sharing)
        needed, targets = real.mode == ad.PREEMPT, out.targets
        if needed:
            real, found = self._targets_or_next(snap, demand, real, oracle, created)
            needed = real.mode == ad.PREEMPT
            targets = tuple(Victim(t.workload.namespace, t.workload.name, t.workload.cluster_queue,
                                   t.workload.priority, t.reason) for t in found)
        frs = _blocking_frs(first)
        held = holders(snap, self.reads, frs, queues, state) if frs else out.holders
        return Judged(real, replace(out, needed=needed, targets=targets, holders=held, notes=notes, searched=True))

    def _targets_or_next(self, snap: Snapshot, demand: ad.Demand, real: ad.Assignment, oracle: ad.Oracle,
                         created: float) -> tuple[ad.Assignment, tuple[Any, ...]]:
        """Kueue's scheduler on an assignment that needs preemption: the targets for the whole Workload
        (GetTargets, its usage in every flavor it was given). Where it finds none (each flavor's own search may
        have found some, the whole Workload's none: a pod set borrowing elsewhere while borrowWithinCohort is
        Never), it preempts nothing and requeues the Workload (RequeueReasonPreemptionNoCandidates,
        scheduler.go:438@v0.19.2) with its scan's progress kept (recordAssignment, :284), so its next attempt
        resumes each pod set's scan after the flavor it tried last (`ad.resume`): that attempt is judged the same
        way, until one fits, preempts someone, or no scan can go on; then the Workload waits as one that does not
        fit, the answer says "nothing", the verdict never "fits by preempting" (issue 37 W8; layout seed 46054,
        tests/realcluster/cases/layouts)."""
        cfg = self.config
        settings, state, fair = cfg.settings(now=self.now), self._state(snap), cfg.fair_sharing
        got: ad.Assignment | None = real
        for _ in range(ad._MAX_ATTEMPTS):
            if got is None or got.mode == ad.FIT:
                break
            if got.mode == ad.PREEMPT:
                me = pre.Preemptor(got.cluster_queue, demand.priority, pre.usage_of(got), created)
                found = pre.targets(snap, (), me, pre.needs_preemption(got), settings, state)
                if found:
                    return got, tuple(found)
            got = ad.resume(snap, demand, got, oracle=oracle, fair_sharing=fair)
        if got is not None and got.mode == ad.FIT:
            return got, ()
        return ad.assign(snap, real.cluster_queue, demand, oracle=_no_candidates, fair_sharing=fair), ()

    def preempted_by(self, conditions: Mapping[str, Condition]) -> PreemptedBy | None:
        """Resolve the preemptor named by UID in a Workload's Preempted condition to namespace/name and queue."""
        named = rd.preemptor_queue(conditions)
        if named is None:
            return None
        uid, cq = named
        if cq is None:
            return PreemptedBy(uid)
        for w in self._admitted_in(cq):
            if w.uid == uid:
                return PreemptedBy(uid, w.namespace, w.name, w.cluster_queue)
        return PreemptedBy(uid, cluster_queue=cq)

    def _admitted_in(self, cq: str) -> list[pre.Admitted]:
        """`cq`'s admitted Workloads as an answer consulting it now would see them, without consulting it: who
        preempted a Workload is no answer's input, so looking it up changes no later answer (`why-pending -A`
        gives each target the same verdict whether or not its preemptor is shown)."""
        if cq in self.reads.workloads:
            return self.reads.workloads[cq]
        if self.reads.unknown is not None:
            return []  # as a consult would: once a queue could not be read, every later answer is unknown
        if not self.known.has(cq):
            self.known.fill([cq])  # a closed record: unreadable, and the plan that missed it is recorded
        return [] if cq in self.known.failed else self.known.workloads.get(cq, [])


class Judge(Protocol):
    """What a diagnosis judges its Workloads with: a PreemptionView, or `POLICY_ONLY` (reads nothing)."""

    def judge(self, snap: Snapshot, cq_name: str, demand: ad.Demand, about: vd.WorkloadFacts) -> Judged: ...

    def preempted_by(self, conditions: Mapping[str, Condition]) -> PreemptedBy | None: ...


class _PolicyOnly:
    """The policy-only oracle, no answer: a diagnosis with no admitted Workloads to consult."""

    def judge(self, snap: Snapshot, cq_name: str, demand: ad.Demand, about: vd.WorkloadFacts) -> Judged:
        return Judged(ad.assign(snap, cq_name, demand))

    def preempted_by(self, conditions: Mapping[str, Condition]) -> PreemptedBy | None:
        return None


POLICY_ONLY: Judge = _PolicyOnly()


class Answers:
    """One diagnosis's preemption answers as its assignments return them (`assign`: the kueue/verdicts.Assigner
    it hands the engine), by Workload; `of_facts` makes its preemption part. Made and dropped by that diagnosis."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self._by_label: dict[str, Answer] = {}

    def assign(self, snap: Snapshot, cq_name: str, demand: ad.Demand, about: vd.WorkloadFacts) -> ad.Assignment:
        j = self.judge.judge(snap, cq_name, demand, about)
        if j.answer is not None:
            self._by_label[about.label] = j.answer
        return j.assignment

    def every(self) -> list[Answer]:
        """Every answer, in the order their Workloads were first judged."""
        return list(self._by_label.values())

    def answer_of(self, label: str) -> Answer | None:
        """The answer of the Workload `label` (namespace/name) judged last; None: none was asked."""
        return self._by_label.get(label)

    def of_facts(self, facts: Any) -> tuple[Answer, ...]:
        """The answers of one target's Workloads (those it judged), and who preempted each preempted one."""
        out = []
        for key, wl in facts.workloads.items():
            if wl is None:
                continue
            label = f"{wl.namespace or facts.target.namespace}/{wl.name or key}"
            a = self._by_label.get(label)
            by = self.judge.preempted_by(wl.conditions)
            if by is not None:
                a = replace(a if a is not None else Answer(label, _queue_of(facts, wl) or ""), preempted_by=by)
            if a is not None:
                out.append(a)
        return tuple(out)


def _preemption_may_win(first: ad.Assignment) -> bool:
    """A Workload the policy pass places without preemption, where some flavor tried needs preemption while
    borrowing: without the candidates the policy pass keeps that borrowing, but once Kueue's oracle has
    removed them the flavor may borrow less (PreemptionOverBorrowing prefers it; whenCanBorrow=TryNextFlavor
    stops there), so only the admitted Workloads can say which flavor Kueue takes
    (scheduler_test.go:5573@v0.18.4)."""
    return first.mode == ad.FIT and any(a.mode == ad.PREEMPT and a.borrow > 0
                                        for p in first.pod_sets for a in p.attempts)


def _some_pod_set_preempts(first: ad.Assignment) -> bool:
    """The Workload needs preemption, or some pod set the policy pass placed needs it while a later one finds no
    flavor: whether that pod set has candidates (its code: needs preemption, or waits) only the admitted Workloads
    can say (0.19.2 layout seed 46239: prefill "needs preemption" under LowerPriority among holders of higher
    priority only, beside decode's QuotaExhausted; Kueue preempts nothing)."""
    return first.mode == ad.PREEMPT or any(p.evaluated and p.mode == ad.PREEMPT for p in first.pod_sets)


def _some_flavor_no_fit(first: ad.Assignment) -> bool:
    """Whether the policy pass found no fit at all, or passed over a flavor that did not fit: the places
    where fair sharing's canPreemptWhileBorrowing can change Kueue's choice."""
    return first.mode == ad.NO_FIT or any(a.mode == ad.NO_FIT for p in first.pod_sets for a in p.attempts)


def _fair_sharing_may_preempt(snap: Snapshot, cq_name: str) -> bool:
    """Whether fair sharing could turn the queue's NoFit into a preemption: it borrows through a cohort
    with reclaimWithinCohort and no borrowWithinCohort (which already allows it without fair sharing)."""
    cq = snap.cluster_queues[cq_name]
    p = cq.preemption
    return cq.cohort is not None and p.reclaim_within_cohort != NEVER and p.borrow_within_cohort == NEVER


def _now() -> float:
    import time

    return time.time()


def _candidate_frs(snap: Snapshot, cq_name: str, demand: ad.Demand) -> list[FlavorResource]:
    """Every flavor/resource of the queue the Workload's resources could be given."""
    cq = snap.cluster_queues[cq_name]
    wanted = {r for ps in demand.pod_sets for r in ps.requests} | {"pods"}
    return [(f.name, r.name) for g in cq.resource_groups for f in g.flavors for r in f.resources if r.name in wanted]


Context = PreemptionView  # the name its callers import (commands/why_pending.py, pending/run.py), until they move


def _no_candidates(_cq: Any, _fr: Any, _val: Any, borrow: int) -> tuple[ad.Possibility, int]:
    """The oracle once the search found no target: preemption makes no room anywhere."""
    return ad.NO_CANDIDATES_FOUND, borrow
