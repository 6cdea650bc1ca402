"""Properties of the preemptor over generated cohorts and admitted Workloads: whatever Kueue's heuristic
picks, the Workload fits once its targets are gone, every target is needed (putting any one back makes it
not fit: the minimal set), and every target is allowed by the queue's policies."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue.model import Snapshot
from tests.kueue_cases import MakeClusterQueue, MakeCohort, MakeFlavorQuotas

POLICIES = st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])
RECLAIM = st.sampled_from(["Never", "LowerPriority", "Any"])


@st.composite
def scenarios(draw: Any) -> tuple[Snapshot, list[pre.Admitted], pre.Preemptor, Any]:
    n = draw(st.integers(1, 4))
    cohort = draw(st.booleans())
    objs: list[dict[str, Any]] = [MakeCohort("co").Obj()] if cohort else []
    for i in range(n if cohort else 1):
        q = MakeClusterQueue(f"q{i}")
        if cohort:
            q = q.Cohort("co")
        q = q.ResourceGroup(MakeFlavorQuotas("f").Resource("cpu", str(draw(st.integers(0, 8)))).Obj())
        p = {"withinClusterQueue": draw(POLICIES), "reclaimWithinCohort": draw(RECLAIM)}
        if p["reclaimWithinCohort"] != "Never" and draw(st.booleans()):
            p["borrowWithinCohort"] = {"policy": "LowerPriority", "maxPriorityThreshold": draw(st.integers(-2, 2))}
        objs.append(q.Preemption(p).Obj())
    snap = Snapshot.of(objs)
    wls = [pre.Admitted("ns", f"w{j}", f"q{draw(st.integers(0, (n if cohort else 1) - 1))}",
                        draw(st.integers(-2, 2)), {("f", "cpu"): Fraction(draw(st.integers(1, 4)))},
                        created=float(draw(st.integers(0, 5))), reserved_at=float(draw(st.integers(0, 5))),
                        uid=f"w{j}") for j in range(draw(st.integers(0, 10)))]
    me = pre.Preemptor("q0", draw(st.integers(-2, 2)), {("f", "cpu"): Fraction(draw(st.integers(1, 6)))},
                       float(draw(st.integers(0, 5))))
    return snap, wls, me, draw(st.booleans())


def _fits(snap: Snapshot, wls: list[pre.Admitted], me: pre.Preemptor, gone: set[str], borrowing: bool = True
          ) -> bool:
    state = pre.State(snap, [w for w in wls if w.name not in gone])
    ctx = pre._Ctx(state, snap.cluster_queues[me.cluster_queue], me, frozenset(me.usage), pre.Settings())
    return ctx.fits(borrowing)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_targets_fit_are_needed_and_allowed(s: tuple) -> None:
    snap, wls, me, fair = s
    assume(not _fits(snap, wls, me, set()))  # Kueue asks for targets only when the Workload does not fit
    settings_ = pre.Settings(fair_sharing=fair)
    found = pre.targets(snap, wls, me, frozenset(me.usage), settings_)
    names = {t.workload.name for t in found}
    assert len(names) == len(found)
    if not found:
        return
    # fits without them, and each is needed, under the same borrowing rule (Kueue tries with and without)
    assert any(_fits(snap, wls, me, names, b) and all(not _fits(snap, wls, me, names - {t.workload.name}, b)
                                                      for t in found) for b in (True, False))
    for t in found:
        cq = snap.cluster_queues[me.cluster_queue].preemption
        if t.reason == pre.IN_CLUSTER_QUEUE:
            assert t.workload.cluster_queue == me.cluster_queue
            assert pre.satisfies(cq.within_cluster_queue, me, t.workload)
        elif t.reason == pre.IN_COHORT_RECLAIM_WHILE_BORROWING:
            assert cq.borrow_within_cohort != "Never" and t.workload.priority < me.priority
        if t.workload.cluster_queue != me.cluster_queue:
            assert cq.reclaim_within_cohort != "Never"
            assert pre.satisfies(cq.reclaim_within_cohort, me, t.workload)
