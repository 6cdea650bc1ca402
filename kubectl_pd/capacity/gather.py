"""The reads `kubectl pd capacity` plans, done once, into a closed snapshot and the copy's Workloads.

create's preflight (create/preflight.run) checks the request against the cluster and names each role's LocalQueue
and the accelerator resource its queue covers (kueue/resources: credits or a device count); then each LocalQueue's
ClusterQueue, every ClusterQueue (the cohort's members), the Cohorts and the ResourceFlavors are read, each once
(`Once`, which also serves the preflight's own reads), and the copy is built with the preflight's `role_demands`, as
create and why-pending build it. The arithmetic is the engine's (capacity/simulate.py); nothing here computes quota.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubectl_pd.capacity.simulate import Part
from kubectl_pd.cluster import engine_reads
from kubectl_pd.cluster.prefetch import Remembered
from kubectl_pd.create import nodes as nd
from kubectl_pd.create import preflight
from kubectl_pd.create.flags import CreateRequest, Role
from kubectl_pd.errors import PdError
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import Snapshot, local_queue
from kubectl_pd.records import dataclass, field


class Once(Remembered):
    """The run's memo (cluster/prefetch.Remembered): each object, list and raw path read once, failures too (the
    preflight, the plan and the preemption reads all go through it; Kueue's ConfigMap, which each count's
    preemption view asks for, is one request); what else the Source says of itself is the live one's."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class Capacity:
    """What the run read: the preflight's findings, each role's queues, the snapshot, the copy as Workloads,
    each role alone as Workloads, and the reads that failed (their part is unknown)."""

    report: preflight.Preflight
    profile: str
    roles: list[Role]
    local_queues: dict[str, str] = field(default_factory=dict)  # role -> LocalQueue
    cluster_queues: dict[str, str] = field(default_factory=dict)  # role -> ClusterQueue
    resources: dict[str, str] = field(default_factory=dict)  # role -> the accelerator resource weighed
    snapshot: Snapshot | None = None
    parts: list[Part] = field(default_factory=list)  # in the first order of `orders` (the roles' own when any)
    orders: dict[str, list[Part]] = field(default_factory=dict)  # pod-set order ("a,b") -> the copy so ordered
    per_role: dict[str, list[Part]] = field(default_factory=dict)
    unread: list[tuple[str, str]] = field(default_factory=list)  # (what, why)
    fit: nd.Fit | None = None  # the Nodes of the copy's flavors; None: not read (the node part unknown)


def _try(plan: Capacity, what: str, read: Callable[[], Any]) -> tuple[bool, Any]:
    try:
        return True, read()
    except PdError as e:  # a 403 (ForbiddenError) or any failed read: that part is unknown, and the run says so
        plan.unread.append((what, e.message))
    return False, None


def gather(source: Any, req: CreateRequest, roles: list[Role], profile: str) -> Capacity:
    """The preflight, then the queues and the snapshot; the copy and each role alone as Workloads."""
    report = preflight.run(source, req, roles, profile, req.namespace)
    plan = Capacity(report, profile, roles, dict(report.queues))
    for lq_name in dict.fromkeys(report.queues.values()):
        ok, lq = _try(plan, f"LocalQueue {req.namespace}/{lq_name}", _getter(source, "LocalQueue", lq_name,
                                                                               req.namespace))
        if ok and lq is not None and (cq := local_queue(lq).cluster_queue):
            for role, q in report.queues.items():
                if q == lq_name:
                    plan.cluster_queues[role] = cq
    plan.resources = {r: res for r, res in report.covered.items() if r in plan.cluster_queues}
    plan.snapshot = read_snapshot(source, sorted(set(plan.cluster_queues.values())), plan)
    if plan.snapshot is None:
        return plan
    plan.fit = read_nodes(source, plan.snapshot, plan)
    by_cq: dict[str, list[Role]] = {}
    for r in roles:
        if r.name in plan.resources:
            by_cq.setdefault(plan.cluster_queues[r.name], []).append(r)
    from kubectl_pd.gpustack.roles import PER_REPLICA

    orders = preflight.orders_to_judge(source, [r for rs in by_cq.values() for r in rs], profile == PER_REPLICA)
    for order in orders:
        plan.orders[",".join(order or ())] = [p for cq_name, cq_roles in by_cq.items() for p in parts_of(
            cq_roles, profile, plan.resources[cq_roles[0].name], cq_name, order)]
    plan.parts = next(iter(plan.orders.values()), [])
    for cq_name, cq_roles in by_cq.items():
        resource = plan.resources[cq_roles[0].name]
        for r in cq_roles:
            plan.per_role[r.name] = parts_of([r._replace(replicas=1)], profile, resource, cq_name)
    return plan


def _getter(source: Any, kind: str, name: str, namespace: str | None) -> Callable[[], Any]:
    return lambda: source.get(kind, name, namespace)


def parts_of(roles: list[Role], profile: str, resource: str, cq_name: str,
             order: tuple[str, ...] | None = None) -> list[Part]:
    """The Workloads of one copy on one ClusterQueue, as create's preflight builds them (pd-atomic: one
    Workload, a pod set per role, in ORDER, the order Kueue gives them; per-replica: one Workload per replica
    group)."""
    queue = preflight.role_demands(roles, profile, resource, cq_name, order)
    return [Part(cq_name, wl, ad.Demand(tuple(p for _, p in members))) for wl, members in queue.workloads]


def read_snapshot(source: Any, names: list[str], plan: Capacity) -> Snapshot | None:
    """The ClusterQueues of the copy, every ClusterQueue and Cohort (the cohort trees) and the flavors."""
    if not names:
        return None
    def lister(kind: str) -> list[Any] | None:  # a refused list: one of the run's unread, that part unknown
        return _try(plan, _LISTS[kind], lambda: source.list(kind))[1]  # type: ignore[no-any-return]

    got = engine_reads.read(lister, source.is_live, names)
    return got.snapshot() if got is not None else None


_LISTS = {"ClusterQueue": "ClusterQueues", "Cohort": "Cohorts", "ResourceFlavor": "ResourceFlavors"}


def read_nodes(source: Any, snap: Snapshot, plan: Capacity) -> nd.Fit | None:
    """The Nodes of each flavor of the copy's queues (flavor_nodes); a failed list is one of the run's unread."""
    return nd.flavor_nodes(source, snap, lambda what, read: _try(plan, what, read))
