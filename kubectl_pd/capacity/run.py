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
    judged = snap is not None and plan.parts and len(plan.resources) == len([r for r in roles if r.accelerator > 0])
    if snap is not None and judged:
        copies = sim.count(snap, plan.parts, limit=limit)
        if not copies.capped and copies.stop is not None and not copies.stop.never:
            preempting = _preempting(once, snap, plan, copies, priority, preempt_limit)
        for name, parts in plan.per_role.items():
            per_role[name] = sim.count(snap, parts, limit=limit)
    return document(target, plan, copies, preempting, per_role), plan


def _preempting(source: Any, snap: Any, plan: Plan, copies: sim.Count, priority: int, limit: int,
                ) -> pe.PreemptCount:
    from kubectl_pd.kueue.preempt_answer import Context

    if not pe.may_preempt(snap, plan.parts):
        return pe.PreemptCount((), None, reason=pe.NOT_ALLOWED)
    ctx = Context(source)
    pe.prepare(ctx, snap, plan.parts, copies.placed, priority)
    return pe.count(ctx, copies.snapshot, plan.parts, start=copies.now, priority=priority, limit=limit)
