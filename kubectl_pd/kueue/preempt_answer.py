"""What admitting a pending Workload would preempt, who holds the quota it waits for, who preempted it.

Per pending Workload: the engine's assignment with the policy-only oracle first; when that needs no
preemption, or the queue's policies allow none, nothing more is read. Otherwise the admitted Workloads of
the queues the answer depends on are read (kubectl_pd/kueue/preempt_reads.py), the assignment is redone
with the real oracle and Kueue's targets are computed (kubectl_pd/kueue/preemption.py). A failed read
makes the answer unknown, never a guess. Codes and numbers only: the printers (pending/preempt_render.py for
why-pending, create/preempt_words.py for create) make the English. Shared by create and why-pending: the core.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import preempt_reads as rd
from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue.config import KueueConfig
from kubectl_pd.kueue.model import NEVER, FlavorResource, Snapshot, conditions_of, workload
from kubectl_pd.records import dataclass, field

UNACCOUNTED = "usage-unaccounted"  # a queue's reported usage is not what its Workloads hold (snapshot)
MAX_HOLDERS = 5


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
class Preemptor:
    """Who preempted a Workload, from the UID in Kueue's eviction message."""

    uid: str
    namespace: str | None = None
    name: str | None = None
    cluster_queue: str | None = None  # from the message's preemptor path, or the Workload found


@dataclass
class Answer:
    workload: str  # namespace/name of the pending Workload
    cluster_queue: str
    needed: bool = False  # admission needs preemption
    targets: tuple[Victim, ...] | None = ()  # None = unknown which
    unknown: str | None = None
    holders: tuple[Holder, ...] = ()
    preempted_by: Preemptor | None = None
    notes: list[str] = field(default_factory=list)
    searched: bool = False  # candidates were looked for among the admitted Workloads


def _queue_of(facts: Any, obj: Mapping[str, Any]) -> str | None:
    adm = (obj.get("status") or {}).get("admission") or {}
    if isinstance(adm.get("clusterQueue"), str):
        return str(adm["clusterQueue"])
    lq = facts.local_queues.get((obj.get("spec") or {}).get("queueName") or "")
    cq = ((lq or {}).get("spec") or {}).get("clusterQueue")
    return cq if isinstance(cq, str) else None


def _epoch(obj: Mapping[str, Any]) -> float:
    ts = (obj.get("metadata") or {}).get("creationTimestamp")
    return (pre.epoch(ts) if isinstance(ts, str) else None) or 0.0


def _blocking_frs(a: ad.Assignment) -> list[FlavorResource]:
    out: list[FlavorResource] = []
    for p in a.pod_sets:
        b = p.blocking
        if b is not None:
            out += [(b.flavor, c.resource) for c in b.checks if c.outcome not in (ad.FITS, ad.BORROWS)]
    return list(dict.fromkeys(out))


def _unaccounted(snap: Snapshot, reads: rd.Reads) -> bool:
    """A read queue reports more usage than its admitted Workloads hold: some holder was not seen (a
    snapshot without them, or Workloads the read missed), so the candidates are not all known."""
    for q, ws in reads.workloads.items():
        total: dict[FlavorResource, Fraction] = {}
        for w in ws:
            for fr, v in w.usage.items():
                total[fr] = total.get(fr, Fraction(0)) + v
        if any(v > total.get(fr, Fraction(0)) for fr, v in snap.cluster_queues[q].reserved.items()):
            return True
    return False


def holders(snap: Snapshot, reads: rd.Reads, frs: Iterable[FlavorResource]) -> tuple[Holder, ...]:
    """The admitted Workloads holding the most of each flavor/resource, with whether their queue borrows."""
    state = pre.State(snap, reads.admitted(), reads.read)
    out = []
    for fr in frs:
        rows = []
        for w in reads.admitted():
            amount = w.usage.get(fr, Fraction(0))
            if amount > 0:
                borrows = state.nodes[w.cluster_queue].borrowing_with(fr, Fraction(0))
                rows.append(Holder(w.namespace, w.name, w.cluster_queue, w.priority, fr[0], fr[1], amount,
                                   w.reserved_at, borrows))
        out += sorted(rows, key=lambda h: (-h.amount, h.priority, h.namespace, h.name))[:MAX_HOLDERS]
    return tuple(out)


def answer(source: Any, snap: Snapshot, facts: Any, obj: Mapping[str, Any], config: KueueConfig, *,
           want_holders: bool = False, live: bool = True) -> Answer | None:
    """The preemption answer for one pending Workload object; None when its queue is not known."""
    cq_name = _queue_of(facts, obj)
    if cq_name is None:
        return None
    wl = workload(obj)
    return answer_for(source, snap, cq_name, ad.demand_of(wl), f"{wl.namespace}/{wl.name}", wl.priority,
                      _epoch(obj), config, want_holders=want_holders)


def answer_for(source: Any, snap: Snapshot, cq_name: str, demand: ad.Demand, label: str, priority: int,
               created: float, config: KueueConfig, *, want_holders: bool = False) -> Answer | None:
    """The preemption answer for a demand (a Workload's, or create's request) on one ClusterQueue."""
    if cq_name not in snap.cluster_queues or _inactive(snap, cq_name):
        return None
    out = Answer(label, cq_name)
    if config.note:
        out.notes.append(config.note)
    first = ad.assign(snap, cq_name, demand, fair_sharing=config.fair_sharing)
    frs = _blocking_frs(first)
    p = snap.cluster_queues[cq_name].preemption
    out.needed = first.mode == ad.PREEMPT
    policies_allow = p.within_cluster_queue != NEVER or (p.reclaim_within_cohort != NEVER
                                                        and snap.cluster_queues[cq_name].cohort is not None)
    if not out.needed or not policies_allow:
        if out.needed:
            out.targets = ()
        if want_holders and frs:
            reads = rd.read(source, _holder_queues(snap, cq_name, frs))
            out.holders = holders(snap, reads, frs) if reads.unknown is None else ()
        return out
    queues = rd.queues_to_read(snap, cq_name, _candidate_frs(snap, cq_name, demand))
    reads = rd.read(source, queues)
    out.searched = True
    if reads.unknown is None and _unaccounted(snap, reads):
        reads.unknown = UNACCOUNTED
    if reads.unknown is not None:
        out.targets, out.unknown = None, reads.unknown
        return out
    settings = config.settings(now=_now())
    state = pre.State(snap, reads.admitted(), reads.read)
    real = ad.assign(snap, cq_name, demand, oracle=pre.oracle(snap, state, priority, created, settings),
                     fair_sharing=config.fair_sharing)
    out.needed = real.mode == ad.PREEMPT
    if out.needed:
        me = pre.Preemptor(cq_name, priority, pre.usage_of(real), created)
        found = pre.targets(snap, (), me, pre.needs_preemption(real), settings, state)
        out.targets = tuple(Victim(t.workload.namespace, t.workload.name, t.workload.cluster_queue,
                                   t.workload.priority, t.reason) for t in found)
    if frs:
        out.holders = holders(snap, reads, frs)
    return out


def for_request(source: Any, snap: Snapshot, cq_name: str, workloads: Iterable[tuple[str, list[Any]]]
                ) -> list[Answer]:
    """create's request, Workload by Workload as Kueue would see it (priority 0: no priority class)."""
    from kubectl_pd.kueue import config as kc

    cfg = kc.read(source) if getattr(source, "is_live", False) else kc.KueueConfig(note=kc.NOTE_DEFAULTS_UNREAD)
    out = []
    for name, members in workloads:
        demand = ad.Demand(tuple(p for _, p in members))
        a = answer_for(source, snap, cq_name, demand, name, 0, _now(), cfg)
        if a is not None:
            out.append(a)
    return out


def _inactive(snap: Snapshot, cq_name: str) -> bool:
    """A stopped or inactive queue admits nothing: preemption is not what it waits for."""
    cq = snap.cluster_queues[cq_name]
    active = cq.conditions.get("Active")
    return cq.stop_policy not in (None, "None") or (active is not None and not active.true)


def _now() -> float:
    import time

    return time.time()


def _candidate_frs(snap: Snapshot, cq_name: str, demand: ad.Demand) -> list[FlavorResource]:
    """Every flavor/resource of the queue the Workload's resources could be given."""
    cq = snap.cluster_queues[cq_name]
    wanted = {r for ps in demand.pod_sets for r in ps.requests} | {"pods"}
    return [(f.name, r.name) for g in cq.resource_groups for f in g.flavors for r in f.resources if r.name in wanted]


def _holder_queues(snap: Snapshot, cq_name: str, frs: list[FlavorResource]) -> list[str]:
    state = pre.State(snap, (), frozenset())
    node = state.nodes[cq_name]
    out = [cq_name]
    if node.parent is not None:
        out += [q.name for q in node.root().cluster_queues()
                if q.name != cq_name and any(q.borrowing_with(fr, Fraction(0)) for fr in frs)]
    return out


_UID = re.compile(r"\(UID: ([^,)]+)")
_PATH = re.compile(r"preemptor path: (\S+?);")


def preempted_by(source: Any, obj: Mapping[str, Any]) -> Preemptor | None:
    """Resolve the preemptor named by UID in a Preempted condition to namespace/name and queue."""
    cond = conditions_of(obj).get("Preempted")
    if cond is None or not cond.true:
        return None
    m = _UID.search(cond.message)
    if m is None or m.group(1) == "UNKNOWN":
        return None
    uid = m.group(1)
    path = _PATH.search(cond.message)
    cq = path.group(1).rsplit("/", 1)[-1] if path and path.group(1) != "UNKNOWN" else None
    if cq is None:
        return Preemptor(uid)
    reads = rd.read(source, [cq])
    for w in reads.admitted():
        if w.uid == uid:
            return Preemptor(uid, w.namespace, w.name, w.cluster_queue)
    return Preemptor(uid, cluster_queue=cq)


def for_facts(source: Any, facts: Any, snap: Snapshot, config: KueueConfig, *, want_holders: bool = False
              ) -> list[Answer]:
    """Every Workload of the target that waits for quota, and every one that was preempted."""
    out = []
    for obj in facts.workloads.values():
        if not isinstance(obj, dict):
            continue
        conds = conditions_of(obj)
        if conds.get("Finished") is not None and conds["Finished"].true:
            continue
        a: Answer | None = None
        if not (conds.get("QuotaReserved") is not None and conds["QuotaReserved"].true):
            a = answer(source, snap, facts, obj, config, want_holders=want_holders, live=facts.live)
        by = preempted_by(source, obj)
        if by is not None:
            if a is None:
                meta = obj.get("metadata") or {}
                a = Answer(f"{meta.get('namespace')}/{meta.get('name')}", _queue_of(facts, obj) or "")
            a.preempted_by = by
        if a is not None:
            out.append(a)
    return out
