"""The admitted Workloads Kueue's preemptor could pick from, as read before the diagnosis: pure, no I/O.

The reads themselves are the gather step's (kubectl_pd/pending/gather.py `read_admitted`): Kueue v0.18.4's
Workload CRD declares `.status.admission.clusterQueue` a selectable field, so each queue is listed with
`fieldSelector=status.admission.clusterQueue=<cq>` (a server that refuses the selector gets one cluster-wide
list instead). What is here: which queues a run must read (`plan`: from the queues' policies and the usage
they report, before any verdict), the closed record of what was read (`Known`: each queue's admitted
Workloads, or why they could not be read; Kueue's configuration), and what one run's answers have consulted
of it (`Reads`), so an answer depends on exactly the queues it needs, as when they were read one by one.

Which queues: the preemptor's own (when `withinClusterQueue` allows any preemption) and, when
`reclaimWithinCohort` does, the queues of its cohort tree that borrow in a flavor/resource the Workload
may need (a peer within its nominal quota holds no candidate); with `--holders`, the queues holding what
it waits for; the queue named by a Preempted condition. A 403 makes the answer unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue.config import KueueConfig
from kubectl_pd.kueue.model import NEVER, ClusterQueue, Condition, FlavorResource, Snapshot, Workload
from kubectl_pd.lazyre import lazy
from kubectl_pd.records import dataclass, field

SELECTOR = "status.admission.clusterQueue"

# Why the candidates are unknown (codes; printers make the English)
FORBIDDEN = "workloads-forbidden"
UNREADABLE = "workloads-unreadable"


def admitted_of(wl: Workload) -> pre.Admitted | None:
    """An admitted Workload as the preemptor sees it, from the one typed model: usage from its pod sets'
    `resourceUsage` (what Kueue charged). None when it holds no quota reservation or its usage cannot be read."""
    cq = wl.cluster_queue
    if not cq or not wl.reserved:
        return None
    usage: dict[FlavorResource, Fraction] = {}
    for psa in wl.admission:
        if psa.usage is None:
            return None
        for r, q in psa.usage.items():
            fr = (psa.flavors[r], r)
            usage[fr] = usage.get(fr, Fraction(0)) + q
    reserved = wl.conditions["QuotaReserved"].last_transition
    return pre.Admitted(wl.namespace, wl.name, cq, wl.priority, usage, pre.epoch(wl.created or "") or 0.0,
                        pre.epoch(reserved) if reserved else None, _true(wl.conditions, "Evicted"), wl.uid or "",
                        wl.queue_name or "")


def _true(conds: Mapping[str, Condition], t: str) -> bool:
    c = conds.get(t)
    return c is not None and c.true


@dataclass(frozen=True)
class Plan:
    """What the preemption answers of a run may read: the queues whose admitted Workloads (in order, once
    each) and whether Kueue's configuration."""

    queues: tuple[str, ...] = ()
    config: bool = False

    def __or__(self, other: Plan) -> Plan:
        return Plan(tuple(dict.fromkeys((*self.queues, *other.queues))), self.config or other.config)


def queues_to_read(snap: Snapshot, cq_name: str, frs: Iterable[FlavorResource]) -> list[str]:
    """The ClusterQueues whose Workloads can be candidates, from the policy and the reported usage."""
    cq = snap.cluster_queues[cq_name]
    p = cq.preemption
    out = [cq_name] if p.within_cluster_queue != NEVER else []
    if not cq.cohort or p.reclaim_within_cohort == NEVER:
        return out
    return out + _borrowing_peers(snap, cq_name, frs)


def _borrowing_peers(snap: Snapshot, cq_name: str, frs: Iterable[FlavorResource]) -> list[str]:
    """The other queues of the cohort tree that use more than their nominal quota in one of `frs`."""
    state = pre.State(snap, (), frozenset())  # usage as the queues report it
    root = state.nodes[cq_name].root()
    frs = list(frs)
    return [peer.name for peer in root.cluster_queues()
            if peer.name != cq_name and any(peer.borrowing_with(fr, Fraction(0)) for fr in frs)]


def holder_queues(snap: Snapshot, cq_name: str, frs: list[FlavorResource]) -> list[str]:
    """The queues whose Workloads may hold what `cq_name` waits for in `frs`: its own and its borrowing peers."""
    state = pre.State(snap, (), frozenset())
    node = state.nodes[cq_name]
    out = [cq_name]
    if node.parent is not None:
        out += [q.name for q in node.root().cluster_queues()
                if q.name != cq_name and any(q.borrowing_with(fr, Fraction(0)) for fr in frs)]
    return out


def policies_allow(snap: Snapshot, cq_name: str) -> bool:
    """Whether the queue's preemption policies let it preempt anything at all (else nothing is read)."""
    cq = snap.cluster_queues[cq_name]
    p = cq.preemption
    return p.within_cluster_queue != NEVER or (p.reclaim_within_cohort != NEVER and cq.cohort is not None)


def inactive(snap: Snapshot, cq_name: str) -> bool:
    """A stopped or inactive queue admits nothing: preemption is not what it waits for."""
    cq = snap.cluster_queues[cq_name]
    active = cq.conditions.get("Active")
    return cq.stop_policy not in (None, "None") or (active is not None and not active.true)


def every_fr(snap: Snapshot, cq_name: str) -> list[FlavorResource]:
    """Every flavor/resource the queue covers: what any Workload of it may be given."""
    cq = snap.cluster_queues[cq_name]
    return [(f.name, r.name) for g in cq.resource_groups for f in g.flavors for r in f.resources]


def alone(cq: ClusterQueue, *, holders: bool) -> Plan | None:
    """`plan` for a queue in no cohort, from the queue alone (before its flavors are read: the gather step
    sends these reads with the queue's other reads); None for a queue in a cohort (its peers decide)."""
    if cq.cohort:
        return None
    active = cq.conditions.get("Active")
    if cq.stop_policy not in (None, "None") or (active is not None and not active.true):
        return Plan()
    within = cq.preemption.within_cluster_queue != NEVER
    return Plan((cq.name,) if within or holders else (), within)


def plan(snap: Snapshot, cq_name: str, *, holders: bool) -> Plan:
    """What the answers of a pending Workload of `cq_name` may read, whatever its demand and its verdict (a
    superset of what `preempt_answer.PreemptionView.judge` consults): the candidates' queues over every
    flavor/resource of the queue when its policies allow preemption (and then Kueue's configuration), and
    with `holders` the queues that may hold what it waits for."""
    if cq_name not in snap.cluster_queues or inactive(snap, cq_name):
        return Plan()
    lone = alone(snap.cluster_queues[cq_name], holders=holders)
    if lone is not None:
        return lone
    frs = every_fr(snap, cq_name)
    out = Plan()
    if policies_allow(snap, cq_name):
        out = Plan(tuple(queues_to_read(snap, cq_name, frs)), True)
    if holders:
        out = out | Plan(tuple(holder_queues(snap, cq_name, frs)))
    return out


def preemptor_queue(conditions: Mapping[str, Condition]) -> tuple[str, str | None] | None:
    """(UID, ClusterQueue) of the preemptor a Workload's Preempted condition names; the queue None when the
    message names no path; None when the condition names no preemptor."""
    cond = conditions.get("Preempted")
    if cond is None or not cond.true:
        return None
    m = _UID.search(cond.message)
    if m is None or m.group(1) == "UNKNOWN":
        return None
    path = _PATH.search(cond.message)
    cq = path.group(1).rsplit("/", 1)[-1] if path and path.group(1) != "UNKNOWN" else None
    return m.group(1), cq


_UID = lazy(r"\(UID: ([^,)]+)")  # compiled when a Preempted condition is first read
_PATH = lazy(r"preemptor path: (\S+?);")


@dataclass
class Known:
    """What the gather step read for the preemption answers of one run, closed before any of them is worked
    out: each queue's admitted Workloads (`workloads`), why a queue's could not be read (`failed`, a code),
    and Kueue's configuration (None: not read). Nothing here reads; a queue asked for that was not read is
    recorded in `missed` (a plan that fell short) and answered as unreadable, never as empty."""

    workloads: dict[str, list[pre.Admitted]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    config: KueueConfig | None = None
    missed: list[str] = field(default_factory=list)
    requests: int = 0  # the lists sent to read it
    fallback: bool = False  # the server refused the field selector: one cluster-wide list
    wide: list[pre.Admitted] | None = None  # that list's admitted Workloads (None: not read)

    @property
    def unknown(self) -> str | None:
        """Why some queue could not be read (the first such), None when every queue was."""
        return next(iter(self.failed.values()), None)

    def has(self, queue: str) -> bool:
        return queue in self.workloads or queue in self.failed

    def fill(self, queues: list[str]) -> None:
        """Queues a run asks for that the gather step did not read: a closed record reads nothing; they
        are unreadable (a reading record for create's preflight overrides this: pending/gather.Reading)."""
        for q in queues:
            if self.wide is not None and not self.has(q):  # the cluster-wide list holds every queue's
                self.workloads[q] = [a for a in self.wide if a.cluster_queue == q]
            elif not self.has(q):
                self.missed.append(q)
                self.failed[q] = UNREADABLE

    def kueue_config(self) -> KueueConfig | None:
        return self.config


class Reads:
    """What one run's answers have consulted of `Known`, in the order they asked: an answer sees the
    admitted Workloads of the queues consulted so far, and once a queue could not be read every later
    answer is unknown (as when each queue was read when first needed)."""

    def __init__(self, known: Known) -> None:
        self.known = known
        self.workloads: dict[str, list[pre.Admitted]] = {}
        self.unknown: str | None = None

    @property
    def read(self) -> frozenset[str]:
        return frozenset(self.workloads)

    def admitted(self) -> list[pre.Admitted]:
        return [w for ws in self.workloads.values() for w in ws]

    def consult(self, queues: Iterable[str]) -> None:
        queues = [q for q in queues if q not in self.workloads]
        if self.unknown or not queues:
            return
        self.known.fill([q for q in queues if not self.known.has(q)])
        for q in queues:
            code = self.known.failed.get(q)
            if code is not None:
                self.unknown = code
                return
            self.workloads[q] = list(self.known.workloads.get(q, ()))
