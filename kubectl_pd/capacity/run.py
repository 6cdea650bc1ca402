"""One capacity run: gather (reads, once), count now (pure), count by preemption (the engine's Context),
each role alone (pure), and the document."""

from __future__ import annotations

from typing import Any

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.answer import document
from kubectl_pd.capacity.gather import Capacity, Once, gather
from kubectl_pd.create.flags import CreateRequest, Role


def run(source: Any, req: CreateRequest, roles: list[Role], profile: str, target: dict[str, Any], *,
        limit: int = sim.DEFAULT_LIMIT, preempt_limit: int = pe.DEFAULT_LIMIT, priority: int = 0,
        ) -> tuple[dict[str, Any], Capacity]:
    """The answer for one deployment shape: (the document, the plan it rests on)."""
    once = Once(source)
    plan = gather(once, req, roles, profile)
    snap = plan.snapshot
    copies = preempting = None
    per_role: dict[str, sim.Count] = {}
    by_order: dict[str, int] = {}
    judged = plan.parts and len(plan.resources) == len([r for r in roles if r.accelerator > 0])
    if snap is not None and judged:
        # Kueue 0.20+ may give the pod sets any order (create/preflight.orders_to_judge): each is counted, the least
        # is the answer, and the counts are shown when they differ
        counted = [(order, *_count(once, plan, parts, priority, limit, preempt_limit))
                   for order, parts in plan.orders.items()]
        by_order = {order: c.now for order, c, _ in counted}
        _, copies, preempting = min(counted, key=lambda x: x[1].now)
        for name, alone in plan.per_role.items():
            per_role[name] = _count(once, plan, alone, priority, limit, 0)[0]
    doc = document(target, plan, copies, preempting, per_role)
    if len(set(by_order.values())) > 1:
        doc["byPodSetOrder"] = by_order
    return doc, plan


def _count(source: Any, plan: Capacity, parts: list[Any], priority: int, limit: int, preempt_limit: int,
           ) -> tuple[sim.Count, pe.PreemptCount | None]:
    """Where the queues may preempt, through the engine's Context (its reads are the run's, read once); else
    the policy pass is Kueue's and nothing is read. Either way each copy's Pods are weighed against the Nodes
    read (plan.fit)."""
    snap = plan.snapshot
    assert snap is not None
    if not pe.may_preempt(snap, parts):
        return sim.count(snap, parts, limit=limit, fit=plan.fit), pe.PreemptCount((), None, reason=pe.NOT_ALLOWED)
    from kubectl_pd.admitted_reads import Reading
    from kubectl_pd.kueue.preempt_answer import Context

    now, preempting = pe.count_all(Context(Reading(source)), snap, parts, priority=priority, limit=limit,
                                   preempt_limit=preempt_limit, fit=plan.fit)
    return now, preempting if preempt_limit else None
