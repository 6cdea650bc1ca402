"""One capacity run: gather (reads, once), count now (pure), count by preemption (the engine's Context),
each role alone (pure), and the one record (capacity/answer.py) the printer is handed."""

from __future__ import annotations

import sys
from typing import Any

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.answer import Answer, ModeledOn, Target, answer
from kubectl_pd.capacity.gather import Capacity, Once, gather
from kubectl_pd.create.flags import CreateRequest, Role


def run(source: Any, req: CreateRequest, roles: list[Role], profile: str, target: Target, *,
        limit: int = sim.DEFAULT_LIMIT, preempt_limit: int = pe.DEFAULT_LIMIT, priority: int = 0,
        deadline_s: float = sim.DEFAULT_DEADLINE_S) -> tuple[Answer, Capacity]:
    """The answer for one deployment shape: (the record, the plan it rests on). Its counts together end by
    `deadline_s` (then "at least"), with a progress line on a terminal."""
    import time

    bound = Bound(time.monotonic() + deadline_s, _progress())
    try:
        return _run(source, req, roles, profile, target, limit, preempt_limit, priority, bound)
    finally:
        bound.done()


class Bound:
    """The run's deadline and its progress line (stderr on a terminal only)."""

    def __init__(self, deadline: float, progress: sim.Progress | None) -> None:
        self.deadline, self.progress, self.drawn = deadline, progress, False

    def tell(self, n: int) -> None:
        if self.progress is not None and n % 10 == 0:
            self.progress(n)
            self.drawn = True

    def done(self) -> None:
        if self.drawn:
            from kubectl_pd.termsafe import csi

            sys.stderr.write("\r" + csi("2K"))
            sys.stderr.flush()


def _progress() -> sim.Progress | None:
    if not sys.stderr.isatty():
        return None
    from kubectl_pd.capacity.words import counting
    from kubectl_pd.termsafe import csi

    def show(n: int) -> None:
        sys.stderr.write("\r" + csi("2K") + counting(n))
        sys.stderr.flush()

    return show


def run_owner(source: Any, kind: str, name: str, namespace: str, *, limit: int = sim.DEFAULT_LIMIT,
              preempt_limit: int = pe.DEFAULT_LIMIT, priority: int | None = None,
              deadline_s: float = sim.DEFAULT_DEADLINE_S) -> tuple[Answer, Capacity]:
    """The answer for one more group of what a PD framework made (capacity/owner.py): its roles' Workloads as Kueue
    built them are the copy; PRIORITY None: theirs (the copy's newest Workload's)."""
    import time

    from kubectl_pd.capacity import owner

    once = Once(source)
    plan, modeled = owner.gather_owner(once, kind, name, namespace)
    if not modeled and not plan.unread:
        from kubectl_pd.capacity.words import no_workloads
        from kubectl_pd.errors import PdError

        raise PdError(no_workloads(kind, name, namespace))
    if priority is None:
        priority = max((m.workload.priority for m in modeled), default=0)
    target = Target(kind, name, namespace, owner.PROFILE,
                    tuple(ModeledOn(m.role, m.workload.name, m.groups) for m in modeled))
    bound = Bound(time.monotonic() + deadline_s, _progress())
    try:
        return _counted(once, plan, target, bool(plan.parts), limit, preempt_limit, priority, bound), plan
    finally:
        bound.done()


def _run(source: Any, req: CreateRequest, roles: list[Role], profile: str, target: Target, limit: int,
         preempt_limit: int, priority: int, bound: Bound) -> tuple[Answer, Capacity]:
    once = Once(source)
    plan = gather(once, req, roles, profile)
    judged = bool(plan.parts) and len(plan.resources) == len([r for r in roles if r.accelerator > 0])
    return _counted(once, plan, target, judged, limit, preempt_limit, priority, bound), plan


def _counted(once: Once, plan: Capacity, target: Target, judged: bool, limit: int, preempt_limit: int,
             priority: int, bound: Bound) -> Answer:
    """The counts of a gathered plan (none when not JUDGED or its snapshot is unread), as the one record."""
    snap = plan.snapshot
    copies = preempting = None
    per_role: dict[str, sim.Count] = {}
    by_order: dict[str, int] = {}
    if snap is not None and judged:
        # Kueue 0.20+ may give the pod sets any order (create/preflight.orders_to_judge): each is counted, the least
        # is the answer, and the counts are shown when they differ
        counted = [(order, *_count(once, plan, parts, priority, limit, preempt_limit, bound))
                   for order, parts in plan.orders.items()]
        by_order = {order: c.now for order, c, _ in counted}
        _, copies, preempting = min(counted, key=lambda x: x[1].now)
        for name, alone in plan.per_role.items():
            per_role[name] = _count(once, plan, alone, priority, limit, 0, bound)[0]
    return answer(target, plan, copies, preempting, per_role, by_order)


def _count(source: Any, plan: Capacity, parts: list[Any], priority: int, limit: int, preempt_limit: int,
           bound: Bound | None = None) -> tuple[sim.Count, pe.PreemptCount | None]:
    """Where the queues may preempt, through the engine's Context (its reads are the run's, read once); else
    the policy pass is Kueue's and nothing is read. Either way each copy's Pods are weighed against the Nodes
    read (plan.fit)."""
    snap = plan.snapshot
    assert snap is not None
    if not pe.may_preempt(snap, parts):
        return (sim.count(snap, parts, limit=limit, fit=plan.fit, deadline=bound.deadline if bound else None,
                          progress=bound.tell if bound else None),
                pe.PreemptCount((), None, reason=pe.NOT_ALLOWED))
    from kubectl_pd.cluster.admitted import Reading
    from kubectl_pd.kueue.preempt_answer import Context

    now, preempting = pe.count_all(Context(Reading(source)), snap, parts, priority=priority, limit=limit,
                                   preempt_limit=preempt_limit, fit=plan.fit)
    return now, preempting if preempt_limit else None
