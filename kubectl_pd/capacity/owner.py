"""capacity of what a PD framework made (issue 47): `lws/NAME`, `ds/NAME`, `deploy/NAME`, `sts/NAME`, `llmisvc/NAME`.

Kueue admits none of them as one: it builds Workloads for what they make (pending/owners.py finds them, as
why-pending does: `kueue.x-k8s.io/job-uid`, else ownerReferences; a Deployment's through its Pods). One more copy is
one more group of the deployment: a Workload of each role as Kueue built it (an LWS: one group, its leader and
workers with their requests; a DisaggregatedSet: one group of every role, each its own Workload; a Deployment: one
replica, one Pod's Workload; a StatefulSet: its Workload). The copy is modeled on the Workloads read (each role's
newest), its pod sets and per-Pod requests as Kueue wrote them, in each resource's own unit (kueue/resources.py),
on the ClusterQueue its LocalQueue names today; the counting is capacity's own (capacity/run.py). Reads: the
target's (owners.discover), then the LocalQueues, the snapshot and the Nodes (capacity/gather.py), each once.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kubectl_pd.capacity.gather import Capacity, _try, read_nodes, read_snapshot
from kubectl_pd.capacity.simulate import Part
from kubectl_pd.create.flags import Role
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import Workload, local_queue
from kubectl_pd.records import dataclass

PROFILE = "per-replica"  # gpustack.roles.PER_REPLICA: each group (a role's; a Deployment's Pod) its own Workload


@dataclass(frozen=True)
class Modeled:
    """One role of the copy: the Workload it is modeled on, the Workloads of that role read, and its shape."""

    role: str
    workload: Workload
    groups: int  # the role's Workloads read (its groups; a Deployment's Pods)
    pods: int  # Pods of one group (the pod sets' counts)
    resource: str | None  # the accelerator resource its Pods request (credits or a device count); None: none
    cards: Fraction  # the most any of its Pods requests of `resource`, in cards


def model(workloads: list[Workload], role_of: Callable[[Workload], str]) -> list[Modeled]:
    """Each role's newest Workload (creationTimestamp, then name: the current template), in role order. Pure."""
    from kubectl_pd.kueue import resources as rs

    by_role: dict[str, list[Workload]] = {}
    for wl in workloads:
        if not wl.finished and wl.pod_sets:
            by_role.setdefault(role_of(wl), []).append(wl)
    out = []
    for role in sorted(by_role):
        wls = by_role[role]
        newest = max(wls, key=lambda w: (w.created or "", w.name))
        asked = [(r, q) for ps in newest.pod_sets for r, q in ps.requests.items() if rs.is_accelerator(r) and q > 0]
        found = sorted({r for r, _ in asked}, key=lambda r: (not rs.is_credits(r), r))  # credits first (pod_cards)
        resource = found[0] if found else None
        cards = max((rs.cards_of(r, q) or Fraction(0) for r, q in asked if r == resource), default=Fraction(0))
        out.append(Modeled(role, newest, len(wls), sum(ps.count for ps in newest.pod_sets), resource, cards))
    return out


def role_record(m: Modeled) -> Role:
    """A modeled role as create's typed Role (what the document's roles[] and each role's count print)."""
    return Role(name=m.role, kind=m.role, replicas=m.groups, instance_type=None, accelerator=int(m.cards),
                accelerator_key=None, size=m.pods, image=None, args=(), flag=f"workload {m.workload.name}")


def parts_of(m: Modeled, cq_name: str) -> Part:
    """The role's Workload of one more copy: its pod sets as Kueue built them, each named for the role."""
    return Part(cq_name, m.role, ad.Demand(tuple(ad.demand_of_pod_set(ps, m.role) for ps in m.workload.pod_sets)))


def gather_owner(source: Any, kind: str, name: str, namespace: str) -> tuple[Capacity, list[Modeled]]:
    """The target's Workloads (owners.discover), each role's LocalQueue and ClusterQueue, the snapshot and the
    Nodes; the copy (one Workload of each role) and each role alone. A read that failed is one of `unread`."""
    from kubectl_pd.capacity import words
    from kubectl_pd.create import preflight
    from kubectl_pd.pending import owners
    from kubectl_pd.pending.target import Target

    facts = _discovered(source, Target(kind, name, namespace))
    pods = owners.pods_by_workload(facts)
    wls = [w for w in facts.workloads.values() if w is not None]
    modeled = model(wls, lambda w: owners.role_of(w, pods.get(w.name, [])))
    plan = Capacity(preflight.Preflight(), PROFILE, [role_record(m) for m in modeled])
    plan.unread.extend(words.unread_reads(facts.incomplete))
    for m in modeled:
        if m.workload.queue_name:
            plan.local_queues[m.role] = m.workload.queue_name
        else:
            plan.unread.append(words.no_queue(m.role, m.workload.name))
    for lq_name in dict.fromkeys(plan.local_queues.values()):
        ok, lq = _try(plan, words.local_queue_read(namespace, lq_name),
                      lambda n=lq_name: source.get("LocalQueue", n, namespace))  # type: ignore[misc]
        if ok and lq is not None and (cq := local_queue(lq).cluster_queue):
            for role, q in plan.local_queues.items():
                if q == lq_name:
                    plan.cluster_queues[role] = cq
    plan.resources = {m.role: m.resource for m in modeled if m.resource and m.role in plan.cluster_queues}
    placed = [m for m in modeled if m.role in plan.cluster_queues]
    if len(placed) < len(modeled):  # a role whose queue is unknown: the copy cannot be judged
        return plan, modeled
    plan.snapshot = read_snapshot(source, sorted(set(plan.cluster_queues.values())), plan)
    if plan.snapshot is None:
        return plan, modeled
    plan.fit = read_nodes(source, plan.snapshot, plan)
    plan.parts = [parts_of(m, plan.cluster_queues[m.role]) for m in modeled]
    plan.orders = {"": plan.parts}
    if len(modeled) > 1:
        plan.per_role = {m.role: [parts_of(m, plan.cluster_queues[m.role])] for m in modeled}
    return plan, modeled


QUEUE_LISTS = ("ClusterQueue", "Cohort", "ResourceFlavor")  # read_snapshot's lists: they need nothing of the target


def _discovered(source: Any, target: Any) -> Any:
    """owners.discover, and beside it (live: concurrently) the lists read_snapshot reads later, into the run's Once
    (each list is sent once; a failure there is read_snapshot's to say, as it would be without this)."""
    from kubectl_pd.cluster.prefetch import together
    from kubectl_pd.pending import owners

    def warm(kind: str) -> Callable[[], Any]:
        return lambda: source.list(kind)

    got = together([lambda: owners.discover(source, target), *(warm(k) for k in QUEUE_LISTS)],
                   bool(source.is_live and source.parallel))
    ok, facts = got[0]
    if not ok:
        raise facts
    return facts
