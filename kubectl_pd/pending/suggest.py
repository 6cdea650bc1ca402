"""What would make it fit now: the smallest changes, each checked with the admission engine, not guessed.

For a deployment blocked on quota: fewer replicas of one role (the most that fit), another ClusterQueue
of those read whose quota would take every role now (GPUStack: another InstanceType), or a higher
`borrowingLimit` the cohort could honour. When none of these would admit it, say so: "none".
A change is proposed only when `assign` on the changed demand or queue says Fit.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import ClusterQueue, ResourceGroup, Snapshot
from kubectl_pd.records import dataclass, field, replace

SCALE = "scale"  # fewer replicas of a role
QUEUE = "queue"  # another ClusterQueue (InstanceType) with room
BORROWING_LIMIT = "borrowing-limit"  # let the queue borrow more from its cohort
NONE = "none"  # nothing short of more quota
REACH_INSTANCE_TYPE = "instance-type"  # a queue suggestion: GPUStack's InstanceType (its entrance LocalQueue)
REACH_UNREAD = "local-queue-unread"  # a queue suggestion: a plain ClusterQueue, no LocalQueue of it read

MAX_TRIES = 12  # assign() calls per role for the replica search (a binary search over replicas)


@dataclass(frozen=True)
class Suggestion:
    kind: str
    role: str | None = None
    source: Any = None  # from
    target: Any = None  # to
    params: dict[str, Any] = field(default_factory=dict)
    reach: str | None = None  # QUEUE: how the namespace reaches the other queue (REACH_*); not in the JSON


def _pending(queue: vd.QueueDemand) -> list[tuple[vd.RoleDemand, ad.PodSetDemand]]:
    return [(d, p) for _, members in queue.workloads for d, p in members if not d.reserved]


def _fits(snap: Snapshot, cq: str, pods: list[ad.PodSetDemand]) -> bool:
    return bool(pods) and ad.assign(snap, cq, ad.Demand(tuple(pods))).fits


def _scaled(pending: list[tuple[vd.RoleDemand, ad.PodSetDemand]], role: str, replicas: int,
            ) -> list[ad.PodSetDemand]:
    """The pending pod sets with `role` at `replicas` replicas: a pod set's count in the seed shape,
    the number of its Workloads in the per-replica shape."""
    mine = [(d, p) for d, p in pending if d.role == role]
    others = [p for d, p in pending if d.role != role]
    if len(mine) == 1:
        d, p = mine[0]
        return [replace(p, count=replicas * d.size), *others]
    return [p for _, p in mine[:replicas]] + others


def _replicas(pending: list[tuple[vd.RoleDemand, ad.PodSetDemand]], role: str) -> int:
    mine = [d for d, _ in pending if d.role == role]
    return mine[0].count // max(mine[0].size, 1) if len(mine) == 1 else len(mine)


def _most_that_fit(fits: Callable[[int], bool], high: int) -> int:
    """The largest n in [0, high) with fits(n), assuming fewer replicas never fit worse."""
    lo, hi, tries = 0, high - 1, 0
    best = 0
    while lo <= hi and tries < MAX_TRIES:
        mid = (lo + hi + 1) // 2
        tries += 1
        if mid > 0 and fits(mid):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


def _with_borrowing(cq: ClusterQueue, flavor: str, resource: str, limit: Fraction | None) -> ClusterQueue:
    groups = []
    for g in cq.resource_groups:
        flavors = tuple(replace(f, resources=tuple(replace(r, borrowing_limit=limit) if (f.name, r.name) ==
                                                   (flavor, resource) else r for r in f.resources))
                        for f in g.flavors)
        groups.append(ResourceGroup(g.covered, flavors))
    return replace(cq, resource_groups=tuple(groups))


def suggest(snap: Snapshot, cq_name: str, queue: vd.QueueDemand,
            verdicts: dict[tuple[str, str], vd.PodSetVerdict]) -> list[Suggestion]:
    """Changes that would admit every pending role of `queue` now, smallest first."""
    pending = _pending(queue)
    pods = [p for _, p in pending]
    if not pending or _fits(snap, cq_name, pods):
        return []
    blocked = [v for v in verdicts.values() if v.verdict == vd.BLOCKED and v.cluster_queue == cq_name]
    if not blocked or any(v.code not in ("QuotaExhausted", "NeedsPreemption", "QuotaExceedsCapacity")
                          for v in blocked):
        return []  # only quota is weighed here: a flavor that matches no role is fixed elsewhere
    out = _scale_downs(snap, cq_name, pending) + _other_queues(snap, cq_name, pods)
    out += _borrowing(snap, cq_name, pods, blocked)
    return out or [Suggestion(NONE)]


def _scale_downs(snap: Snapshot, cq_name: str,
                 pending: list[tuple[vd.RoleDemand, ad.PodSetDemand]]) -> list[Suggestion]:
    """Per role: the most replicas that fit now, when fewer than it has."""
    out = []
    for role in dict.fromkeys(d.role for d, _ in pending):
        have = _replicas(pending, role)
        n = _most_that_fit(_fits_scaled(snap, cq_name, pending, role), have)
        if n:
            out.append(Suggestion(SCALE, role, have, n))
    return out


def _fits_scaled(snap: Snapshot, cq_name: str, pending: list[tuple[vd.RoleDemand, ad.PodSetDemand]],
                 role: str) -> Callable[[int], bool]:
    return lambda k: _fits(snap, cq_name, _scaled(pending, role, k))


def _other_queues(snap: Snapshot, cq_name: str, pods: list[ad.PodSetDemand]) -> list[Suggestion]:
    """Another ClusterQueue read that covers every resource asked and fits every pod set now, and that the
    namespace reaches it by (`reach`): a GPUStack pool's InstanceType (GPUStack makes its entrance LocalQueue in
    every namespace it serves: REACH_INSTANCE_TYPE); a plain Kueue ClusterQueue only through a LocalQueue of the
    namespace that points at it, which was not read (REACH_UNREAD: said as a condition, never as a queue to use;
    issue 46: advice that works)."""
    from kubectl_pd.kueue.resources import is_credits

    wanted = {r for p in pods for r, q in p.requests.items() if q}
    reach = REACH_INSTANCE_TYPE if wanted and all(is_credits(r) for r in wanted) else REACH_UNREAD
    return [Suggestion(QUEUE, None, cq_name, name, reach=reach)
            for name, other in snap.cluster_queues.items()
            if name != cq_name and wanted and all(other.group_of(r) for r in wanted) and _fits(snap, name, pods)]


def _borrowing(snap: Snapshot, cq_name: str, pods: list[ad.PodSetDemand],
               blocked: list[vd.PodSetVerdict]) -> list[Suggestion]:
    """In a cohort whose peers were all read: the first borrowingLimit that, raised, admits them all."""
    cq = snap.cluster_queues[cq_name]
    if not cq.cohort or not snap.peers_complete:
        return []
    for v in blocked:
        b = v.best
        if b is None or b.resource is None:
            continue
        rq = cq.quota(b.flavor, b.resource)
        if rq is None or rq.borrowing_limit is None:
            continue
        raised = rq.borrowing_limit + (v.joint_needed or b.needed or Fraction(0))
        trial = replace(snap, cluster_queues={**snap.cluster_queues,
                                              cq_name: _with_borrowing(cq, b.flavor, b.resource, raised)})
        if _fits(trial, cq_name, pods):
            return [Suggestion(BORROWING_LIMIT, None, rq.borrowing_limit, raised,
                               {"flavor": b.flavor, "resource": b.resource})]
    return []


def _resized(d: vd.RoleDemand, p: ad.PodSetDemand, pods: int, workload: str | None = None,
             ) -> tuple[vd.RoleDemand, ad.PodSetDemand]:
    p = replace(p, count=pods)
    return replace(d, count=pods, requests=p.total(), workload=workload or d.workload, reserved=False), p


def what_if(queue: vd.QueueDemand, replicas: dict[str, int]) -> vd.QueueDemand:
    """`--what-if role=N`: the same demand with N replicas of a role (the pod set's count when one pod set
    holds the role; Workloads kept or repeated when each replica is its own), without touching the cluster."""
    out = vd.QueueDemand()
    alone: dict[str, list[tuple[str, list[tuple[vd.RoleDemand, ad.PodSetDemand]]]]] = {}
    for wl, members in queue.workloads:
        if len(members) == 1 and members[0][0].role in replicas and members[0][0].count <= members[0][0].size:
            alone.setdefault(members[0][0].role, []).append((wl, members))  # one replica per Workload
            continue
        out.workloads.append((wl, [_resized(d, p, replicas[d.role] * d.size) if d.role in replicas else (d, p)
                                   for d, p in members]))
    for role, wls in alone.items():
        kept = list(wls[:replicas[role]])
        while len(kept) < replicas[role]:
            wl, [(d, p)] = wls[-1]
            name = f"{wl}+{len(kept)}"
            kept.append((name, [_resized(d, p, d.count, name)]))
        out.workloads.extend(kept)
    return out
