"""Properties of the preemptor over generated cohorts and admitted Workloads: whatever Kueue's heuristic
picks, the Workload fits once its targets are gone, every target is needed (putting any one back makes it
not fit: the minimal set), and every target is allowed by the queue's policies."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kubectl_pd.kueue import model as kmodel
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
    ctx = pre.Ctx(state, snap.cluster_queues[me.cluster_queue], me, frozenset(me.usage), pre.Settings())
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


# ---------------------------------------------------------------------------------------- create = why-pending

CARD = 1_600_000
RES = "credits.gpustack.ai/nvidia"
NS = "team-a"
KUEUE = "kueue.x-k8s.io/v1beta2"


def _holder(name: str, cq: str, flavor: str, priority: int, cards: int, hour: int) -> dict[str, Any]:
    from tests.test_preemption_live import admitted

    w = admitted(name, priority, str(cards * CARD), f"2026-11-28T{hour:02d}:00:00Z")
    w["status"]["admission"]["clusterQueue"] = cq
    w["status"]["admission"]["podSetAssignments"][0]["flavors"] = {RES: flavor}
    return w


@st.composite
def preempting_clusters(draw: Any) -> tuple[list[dict[str, Any]], list[tuple[int, int]]]:
    """A queue (and maybe cohort peers) with admitted Workloads of several priorities that account for the
    queues' reported usage, and a request of a few roles."""
    from tests.builders import cluster_queue, resource_flavor

    flavors = [f"f{i}" for i in range(draw(st.integers(1, 2)))]
    cohort = "pool" if draw(st.booleans()) else None
    queues = ["cq"] + ([f"peer{i}" for i in range(draw(st.integers(0, 2)))] if cohort else [])
    objs: list[dict[str, Any]] = [resource_flavor(f) for f in flavors]
    hour = 0
    for q in queues:
        nominal = {f: draw(st.integers(0 if q != "cq" else 2, 8)) for f in flavors}
        used: dict[str, int] = {}
        for j in range(draw(st.integers(1 if q == "cq" else 0, 4))):
            f = draw(st.sampled_from(flavors))
            cards = draw(st.integers(1, 4))
            used[f] = used.get(f, 0) + cards
            hour += 1
            objs.append(_holder(f"{q}-w{j}", q, f, draw(st.integers(-2, 0)), cards, hour))
        policy = {"withinClusterQueue": draw(POLICIES), "reclaimWithinCohort": draw(RECLAIM)} if q == "cq" else \
            {"withinClusterQueue": "Never"}
        objs.append(cluster_queue(q, {f: str(n * CARD) for f, n in nominal.items()}, resource=RES, cohort=cohort,
                                  preemption=policy, active=True,
                                  used={f: str(u * CARD) for f, u in used.items()}))
    return objs, draw(st.lists(st.tuples(st.integers(1, 2), st.integers(2, 4)), min_size=1, max_size=2))


def _targets(answers: Any) -> tuple[set[tuple[str, str, str]] | None, ...]:
    out = []
    for a in answers:
        if a.needed:
            out.append(None if a.targets is None else {(t.namespace, t.name, t.reason) for t in a.targets})
    return tuple(out)


def _create_answers(objs: list[dict[str, Any]], roles: list[Any]) -> tuple:
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.create import flags, preflight
    from kubectl_pd.gpustack.roles import PD_ATOMIC

    extra = [{"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "InstanceType", "metadata": {"name": "cq"},
              "status": {"entrance": "lq"}},
             {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": NS},
              "spec": {"clusterQueue": "cq"},
              "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Ready"}]}}]
    report = preflight.run(SnapshotSource.from_objects(objs + extra), flags.CreateRequest("m", NS, "model"), roles,
                           PD_ATOMIC, NS)
    return _targets(report.preemption)


def _why_pending_answers(objs: list[dict[str, Any]], roles: list[Any]) -> tuple:
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.kueue.preempt_answer import Context
    from kubectl_pd.pending.diagnose import diagnose
    from kubectl_pd.pending.gather import Facts, gather_preemption
    from kubectl_pd.pending.target import Target

    wl = {"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": "grp", "namespace": NS},
          "spec": {"queueName": "lq", "priority": 0, "podSets": [
              {"name": r.name, "count": r.replicas, "template": {"spec": {"containers": [
                  {"name": "c", "resources": {"requests": {RES: str(r.accelerator * CARD)}}}]}}} for r in roles]}}
    facts = Facts(Target("Workload", "grp", NS), workloads={"grp": kmodel.workload(wl)}, groups=["grp"])
    facts.local_queues["lq"] = kmodel.local_queue({"apiVersion": KUEUE, "kind": "LocalQueue",
                                                   "metadata": {"name": "lq", "namespace": NS},
                                                   "spec": {"clusterQueue": "cq"}})
    cqs = [o for o in objs if o["kind"] == "ClusterQueue"]
    facts.cluster_queues["cq"] = kmodel.cluster_queue(cqs[-1] if cqs[-1]["metadata"]["name"] == "cq" else
                                                      next(o for o in cqs if o["metadata"]["name"] == "cq"))
    facts.peer_queues = [kmodel.cluster_queue(o) for o in cqs]
    facts.cohorts = []
    facts.flavors = {o["metadata"]["name"]: kmodel.resource_flavor(o) for o in objs if o["kind"] == "ResourceFlavor"}
    ctx = Context()  # why-pending's: the preemption reads gathered before the diagnosis
    gather_preemption(SnapshotSource.from_objects(objs), [facts], ctx)
    return _targets(diagnose(facts, preempt=ctx).preemption)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preempting_clusters())  # about 1 in 15 examples names targets, 1 in 5 needs preemption with none
def test_create_and_why_pending_name_the_same_targets(cluster: tuple) -> None:
    """Issue 19: create's answer (before it writes) and why-pending's (for the same request once it is a
    pending Workload) name the same Workloads for the same state, or both say unknown, or both nothing."""
    from kubectl_pd.create import flags

    objs, rows = cluster
    roles = [flags.Role(f"r{i}", "server", replicas, "cq", cards, None, None, None, (), f"--role name=r{i}")
             for i, (replicas, cards) in enumerate(rows)]
    assert _create_answers(objs, roles) == _why_pending_answers(objs, roles)


def test_the_property_sees_targets() -> None:
    """Not vacuous: a full queue with lower-priority holders makes both commands name the same two."""
    from kubectl_pd.create import flags
    from tests.builders import cluster_queue, resource_flavor

    objs = [resource_flavor("f0"), _holder("low-a", "cq", "f0", -1, 2, 1), _holder("low-b", "cq", "f0", -1, 2, 2),
            cluster_queue("cq", {"f0": str(4 * CARD)}, resource=RES, preemption={"withinClusterQueue": "LowerPriority"},
                          active=True, used={"f0": str(4 * CARD)})]
    roles = [flags.Role("r0", "server", 1, "cq", 3, None, None, None, (), "--role name=r0")]
    want = ({("team-b", "low-a", "InClusterQueue"), ("team-b", "low-b", "InClusterQueue")},)
    assert _create_answers(objs, roles) == _why_pending_answers(objs, roles) == want
