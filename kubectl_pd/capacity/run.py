"""One capacity run: gather (reads, once), count now (pure), count by preemption (the engine's Context),
each role alone (pure), and the document."""

from __future__ import annotations

from typing import Any

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.answer import document
from kubectl_pd.capacity.gather import Once, Plan, gather
from kubectl_pd.create.flags import CreateRequest, Role


def run(source: Any, req: CreateRequest, roles: list[Role], profile: str, target: dict[str, Any], *,
        limit: int = sim.DEFAULT_LIMIT, preempt_limit: int = pe.DEFAULT_LIMIT, priority: int = 0,
        ) -> tuple[dict[str, Any], Plan]:
    """The answer for one deployment shape: (the document, the plan it rests on)."""
    once = Once(source)
    plan = gather(once, req, roles, profile)
    snap = plan.snapshot
    copies = preempting = None
    per_role: dict[str, sim.Count] = {}
    by_order: dict[str, int] = {}
    judged = plan.parts and len(plan.resources) == len([r for r in roles if r.accelerator > 0])
    if snap is not None and judged:
        # Kueue 0.20+ may give the pod sets any order (create/preflight._orders): each is counted, the least
        # is the answer, and the counts are shown when they differ
        counted = [(order, parts, sim.count(snap, parts, limit=limit)) for order, parts in plan.orders.items()]
        by_order = {order: c.now for order, _, c in counted}
        _, parts, copies = min(counted, key=lambda x: x[2].now)
        if preempt_limit and not copies.capped and copies.stop is not None and not copies.stop.never:
            preempting = _preempting(once, snap, parts, copies, priority, preempt_limit)
        for name, alone in plan.per_role.items():
            per_role[name] = sim.count(snap, alone, limit=limit)
    doc = document(target, plan, copies, preempting, per_role)
    if len(set(by_order.values())) > 1:
        doc["byPodSetOrder"] = by_order
    return doc, plan


def _preempting(source: Any, snap: Any, parts: list[Any], copies: sim.Count, priority: int, limit: int,
                ) -> pe.PreemptCount:
    from kubectl_pd.kueue.preempt_answer import Context

    if not pe.may_preempt(snap, parts):
        return pe.PreemptCount((), None, reason=pe.NOT_ALLOWED)
    ctx = Context(source)
    pe.prepare(ctx, snap, parts, copies.placed, priority)
    return pe.count(ctx, copies.snapshot, parts, start=copies.now, priority=priority, limit=limit)
