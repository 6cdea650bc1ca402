"""Kueue's preemption test tables, translated (pkg/scheduler/preemption/preemption_test.go@v0.18.4).

Each case: the ClusterQueues (Kueue's `defaultClusterQueues` of TestPreemption unless given), the
admitted Workloads (name, ClusterQueue, priority, usage {flavor/resource: quantity}, reservation time
offset in seconds, creation offset), the incoming Workload, the ClusterQueue it targets, the flavor
assignment Kueue's test hands in ({pod set: {resource: (flavor, mode)}}), and Kueue's expected targets
{name: reason}. Every expected target set is Kueue's own.

A case is run twice: our own assignment from the same state (with the real preemption oracle) must equal
the one Kueue's test hands in (else the case is listed in NOT_KEPT with why), then our targets must equal
Kueue's.

Counts: TestPreemption 36 (35 + "long range preemption"), TestHierarchicalPreemptions 15, TestFairPreemptions
31 = 82 cases; every target set agrees with Kueue's, and 73 also agree from our own flavor assignment
(NOT_KEPT lists the 9 others and why).

Not translated (and why):
  * TestPreemptionWhenWorkloadModifiedConcurrently, TestIssuePreemptions*: the API write path.
  * TestCandidatesOrdering: covered by the ordering key tests in tests/test_preemption_kueue.py.
  * AdmissionFairSharing (LocalQueue usage in the ordering) is not simulated; no translated case uses it.

TestHierarchicalPreemptions (preemption_hierarchical_test.go@v0.18.4) builds many queues with a flavor
that lists no resource (`MakeFlavorQuotas("default").Obj()`): a nominal quota of 0 that covers nothing.
Here such a queue lists cpu (and memory where the case uses it) at 0: the same quota for the preemptor,
and a queue our flavor assigner can place a Workload in at all.
A want reason of None: Kueue's test does not state it (a target already evicted keeps its conditions).
"""

from __future__ import annotations

from tests.kueue_cases import MakeClusterQueue as CQ
from tests.kueue_cases import MakeCohort, MakeResourceFlavor
from tests.kueue_cases import MakeFlavorQuotas as FQ

SRC = "preemption_test.go"
TAG = "v0.18.4"

FLAVORS = [MakeResourceFlavor(n).Obj() for n in ("default", "alpha", "beta")]

LP, LONEP, ANY, NEVER = "LowerPriority", "LowerOrNewerEqualPriority", "Any", "Never"


def _p(within: str, reclaim: str | None = None) -> dict:
    return {"withinClusterQueue": within, **({"reclaimWithinCohort": reclaim} if reclaim else {})}


def _bwc(within: str, reclaim: str) -> dict:
    return {"withinClusterQueue": within, "reclaimWithinCohort": reclaim,
            "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 0}}


# TestPreemption's defaultClusterQueues (preemption_test.go:71@v0.18.4)
DEFAULT_CQS = [
    CQ("standalone").ResourceGroup(FQ("default").Resource("cpu", "6").Obj())
    .ResourceGroup(FQ("alpha").Resource("memory", "3Gi").Obj(), FQ("beta").Resource("memory", "3Gi").Obj())
    .Preemption({"withinClusterQueue": LP}).Obj(),
    CQ("c1").Cohort("cohort").ResourceGroup(FQ("default").Resource("cpu", "6", "6").Resource("memory", "3Gi", "3Gi")
                                            .Obj()).Preemption(_p(LP, LP)).Obj(),
    CQ("c2").Cohort("cohort").ResourceGroup(FQ("default").Resource("cpu", "6", "6").Resource("memory", "3Gi", "3Gi")
                                            .Obj()).Preemption(_p(NEVER, ANY)).Obj(),
    CQ("d1").Cohort("cohort-no-limits")
    .ResourceGroup(FQ("default").Resource("cpu", "6").Resource("memory", "3Gi").Obj())
    .Preemption(_p(LP, LP)).Obj(),
    CQ("d2").Cohort("cohort-no-limits")
    .ResourceGroup(FQ("default").Resource("cpu", "6").Resource("memory", "3Gi").Obj())
    .Preemption(_p(NEVER, ANY)).Obj(),
    CQ("l1").Cohort("legion").ResourceGroup(FQ("default").Resource("cpu", "6", "12").Resource("memory", "3Gi", "6Gi")
                                            .Obj()).Preemption(_p(LP, LP)).Obj(),
    CQ("preventStarvation").ResourceGroup(FQ("default").Resource("cpu", "6").Obj())
    .Preemption({"withinClusterQueue": LONEP}).Obj(),
    CQ("a_standard").Cohort("with_shared_cq").ResourceGroup(FQ("default").Resource("cpu", "1", "12").Obj())
    .Preemption(_bwc(NEVER, LP)).Obj(),
    CQ("b_standard").Cohort("with_shared_cq").ResourceGroup(FQ("default").Resource("cpu", "1", "12").Obj())
    .Preemption(_bwc(LP, ANY)).Obj(),
    CQ("a_best_effort").Cohort("with_shared_cq").ResourceGroup(FQ("default").Resource("cpu", "1", "12").Obj())
    .Preemption(_bwc(NEVER, LP)).Obj(),
    CQ("b_best_effort").Cohort("with_shared_cq").ResourceGroup(FQ("default").Resource("cpu", "0", "13").Obj())
    .Preemption(_bwc(NEVER, LP)).Obj(),
    CQ("shared").Cohort("with_shared_cq").ResourceGroup(FQ("default").Resource("cpu", "10").Obj()).Obj(),
    CQ("lend1").Cohort("cohort-lend").ResourceGroup(FQ("default").Resource("cpu", "6", "", "4").Obj())
    .Preemption(_p(LP, LP)).Obj(),
    CQ("lend2").Cohort("cohort-lend").ResourceGroup(FQ("default").Resource("cpu", "6", "", "2").Obj())
    .Preemption(_p(LP, LP)).Obj(),
    CQ("a").Cohort("cohort-three").ResourceGroup(FQ("default").Resource("cpu", "2").Resource("memory", "2").Obj())
    .Preemption(_p(LP, ANY)).Obj(),
    *[CQ(n).Cohort("cohort-three").ResourceGroup(FQ("default").Resource("cpu", "2").Resource("memory", "2").Obj()).Obj()
      for n in ("b", "c")],
]


def W(name: str, cq: str, prio: int = 0, t: float = 0, created: float = 0, **usage: str) -> dict:
    """An admitted Workload: usage keyed flavor__resource (e.g. default__cpu="2")."""
    return {"name": name, "cq": cq, "priority": prio, "reserved": t, "created": created,
            "usage": {tuple(k.split("__")): v for k, v in usage.items()}}


def IN(prio: int = 0, created: float = 0, pod_sets: list | None = None, **requests: str) -> dict:
    """The incoming Workload: one pod set "main" with `requests` unless `pod_sets` [(name, count, {r: q})]."""
    return {"priority": prio, "created": created, "pod_sets": pod_sets or [("main", 1, dict(requests))]}


def A(**resources: tuple[str, str]) -> dict:
    return {"main": dict(resources)}


def case(line: int, name: str, admitted: list, incoming: dict, cq: str, assignment: dict, want: dict,
         cqs: list | None = None, cohorts: list | None = None) -> dict:
    return {"id": f"{SRC}:{line}@{TAG} {name}", "cqs": cqs or DEFAULT_CQS, "cohorts": cohorts or [],
            "admitted": admitted, "incoming": incoming, "cq": cq, "assignment": assignment, "want": want}


P, F = "Preempt", "Fit"
ICQ, REC, RWB = "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"

CASES = [
    case(292, "preempt lowest priority",
         [W("low", "standalone", -1, default__cpu="2"), W("mid", "standalone", default__cpu="2"),
          W("high", "standalone", 1, default__cpu="2")],
         IN(1, cpu="2"), "standalone", A(cpu=("default", P)), {"low": ICQ}),
    case(396, "preempt multiple",
         [W("low", "standalone", -1, default__cpu="2"), W("mid", "standalone", default__cpu="2"),
          W("high", "standalone", 1, default__cpu="2")],
         IN(1, cpu="3"), "standalone", A(cpu=("default", P)), {"low": ICQ, "mid": ICQ}),
    case(515, "no preemption for low priority",
         [W("low", "standalone", -1, default__cpu="3"), W("mid", "standalone", default__cpu="3")],
         IN(-1, cpu="1"), "standalone", A(cpu=("default", P)), {}),
    case(579, "not enough low priority workloads",
         [W("low", "standalone", -1, default__cpu="3"), W("mid", "standalone", default__cpu="3")],
         IN(0, cpu="4"), "standalone", A(cpu=("default", P)), {}),
    case(642, "some free quota, preempt low priority",
         [W("low", "standalone", -1, default__cpu="1"), W("mid", "standalone", default__cpu="1"),
          W("high", "standalone", 1, default__cpu="3")],
         IN(1, cpu="2"), "standalone", A(cpu=("default", P)), {"low": ICQ}),
    case(746, "minimal set excludes low priority",
         [W("low", "standalone", -1, default__cpu="1"), W("mid", "standalone", default__cpu="2"),
          W("high", "standalone", 1, default__cpu="3")],
         IN(1, cpu="2"), "standalone", A(cpu=("default", P)), {"mid": ICQ}),
    case(850, "only preempt workloads using the chosen flavor",
         [W("low", "standalone", -1, alpha__memory="2Gi"), W("mid", "standalone", beta__memory="1Gi"),
          W("high", "standalone", 1, beta__memory="1Gi")],
         IN(1, cpu="1", memory="2Gi"), "standalone", A(cpu=("default", F), memory=("beta", P)), {"mid": ICQ}),
    case(959, "reclaim quota from borrower",
         [W("c1-low", "c1", -1, default__cpu="3"), W("c2-mid", "c2", default__cpu="3"),
          W("c2-high", "c2", 1, default__cpu="6")],
         IN(1, cpu="3"), "c1", A(cpu=("default", P)), {"c2-mid": REC}),
    case(1063, "reclaim quota if workload requests 0 resources for a resource at nominal quota",
         [W("c1-low", "c1", -1, default__cpu="3", default__memory="3Gi"), W("c2-mid", "c2", default__cpu="3"),
          W("c2-high", "c2", 1, default__cpu="6")],
         IN(1, cpu="3", memory="0"), "c1", A(cpu=("default", P), memory=("default", F)), {"c2-mid": REC}),
    case(1132, "no workloads borrowing",
         [W("c1-high", "c1", 1, default__cpu="4"), W("c2-low-1", "c2", -1, default__cpu="4")],
         IN(1, cpu="4"), "c1", A(cpu=("default", P)), {}),
    case(1198, "not enough workloads borrowing",
         [W("c1-high", "c1", 1, default__cpu="4"), W("c2-low-1", "c2", -1, default__cpu="4"),
          W("c2-low-2", "c2", -1, default__cpu="4")],
         IN(1, cpu="4"), "c1", A(cpu=("default", P)), {}),
    case(1288, "preempting locally and borrowing other resources in cohort, without cohort candidates",
         [W("c1-low", "c1", -1, default__cpu="4"), W("c2-low-1", "c2", -1, default__cpu="4"),
          W("c2-high-2", "c2", 1, default__cpu="4")],
         IN(1, cpu="4", memory="5Gi"), "c1", A(cpu=("default", P), memory=("default", P)), {"c1-low": ICQ}),
    case(1399, "preempting locally and borrowing same resource in cohort",
         [W("c1-med", "c1", 0, default__cpu="4"), W("c1-low", "c1", -1, default__cpu="4"),
          W("c2-low-1", "c2", -1, default__cpu="4")],
         IN(1, cpu="4"), "c1", A(cpu=("default", P)), {"c1-low": ICQ}),
    case(1505, "preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort",
         [W("d1-med", "d1", 0, default__cpu="4"), W("d1-low", "d1", -1, default__cpu="4"),
          W("d2-low-1", "d2", -1, default__cpu="4")],
         IN(1, cpu="4"), "d1", A(cpu=("default", P)), {"d1-low": ICQ}),
    case(1611, "preempting locally and borrowing other resources in cohort, with cohort candidates",
         [W("c1-med", "c1", 0, default__cpu="4"), W("c2-low-1", "c2", -1, default__cpu="5"),
          W("c2-low-2", "c2", -1, default__cpu="1"), W("c2-low-3", "c2", -1, default__cpu="1")],
         IN(1, cpu="2", memory="5Gi"), "c1", A(cpu=("default", P), memory=("default", P)), {"c1-med": ICQ}),
    case(1746, "preempting locally and not borrowing same resource in 1-queue cohort",
         [W("l1-med", "l1", 0, default__cpu="4"), W("l1-low", "l1", -1, default__cpu="2")],
         IN(1, cpu="4"), "l1", A(cpu=("default", P)), {"l1-med": ICQ}),
    case(1828, "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority",
         [W("c1", "c1", default__cpu="2"), W("c2-1", "c2", default__cpu="4"), W("c2-2", "c2", default__cpu="4")],
         IN(0, cpu="4"), "c1", A(cpu=("default", P)), {}),
    case(1911, "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny",
         [W("c1-1", "c1", default__cpu="4"), W("c1-2", "c1", 1, default__cpu="4"), W("c2", "c2", default__cpu="2")],
         IN(0, cpu="4"), "c2", A(cpu=("default", P)), {"c1-1": REC}),
    case(2012, "preempt from all ClusterQueues in cohort",
         [W("c1-low", "c1", -1, default__cpu="3"), W("c1-mid", "c1", default__cpu="2"),
          W("c2-low", "c2", -1, default__cpu="3"), W("c2-mid", "c2", default__cpu="4")],
         IN(0, cpu="4"), "c1", A(cpu=("default", P)), {"c1-low": ICQ, "c2-low": REC}),
    case(2152, "can't preempt workloads in ClusterQueue for withinClusterQueue=Never",
         [W("c2-low", "c2", -1, default__cpu="3")],
         IN(1, cpu="4"), "c2", A(cpu=("default", P)), {}),
    case(2194, "each podset preempts a different flavor",
         [W("low-alpha", "standalone", -1, alpha__memory="2Gi"), W("low-beta", "standalone", -1, beta__memory="2Gi")],
         IN(0, pod_sets=[("launcher", 1, {"memory": "2Gi"}), ("workers", 2, {"memory": "1Gi"})]), "standalone",
         {"launcher": {"memory": ("alpha", P)}, "workers": {"memory": ("beta", P)}},
         {"low-alpha": ICQ, "low-beta": ICQ}),
    case(2313, "preempt newer workloads with the same priority",
         [W("wl1", "preventStarvation", 2, default__cpu="2"),
          W("wl2", "preventStarvation", 1, t=1, default__cpu="2"),
          W("wl3", "preventStarvation", 1, default__cpu="2")],
         IN(1, created=-15, pod_sets=[("launcher", 1, {"cpu": "2"})]), "preventStarvation",
         {"launcher": {"cpu": ("default", P)}}, {"wl2": ICQ}),
    case(2434, "use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while "
         "borrowing",
         [W("a_best_effort_low", "a_best_effort", -1, default__cpu="10"),
          W("b_best_effort_low", "b_best_effort", -1, default__cpu="1")],
         IN(0, cpu="10"), "a_standard", A(cpu=("default", P)), {"a_best_effort_low": RWB}),
    case(2515, "use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above "
         "MaxPriorityThreshold, if borrowing is required even after the preemption",
         [W("b_standard", "b_standard", 1, default__cpu="10")],
         IN(2, cpu="10"), "a_standard", A(cpu=("default", P)), {}),
    case(2557, "use BorrowWithinCohort; allow preempting a lower-priority workload with priority above "
         "MaxPriorityThreshold, if borrowing is not required after the preemption",
         [W("b_standard", "b_standard", 1, default__cpu="13")],
         IN(2, cpu="1"), "a_standard", A(cpu=("default", P)), {"b_standard": REC}),
    case(2618, "use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same "
         "ClusterQueue",
         [W("a_standard", "a_standard", 1, default__cpu="13")],
         IN(2, cpu="1"), "a_standard", A(cpu=("default", P)), {}),
    case(2660, "use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above "
         "nominal",
         [W("a_standard_1", "a_standard", 1, default__cpu="10"), W("a_standard_2", "a_standard", 1, default__cpu="1"),
          W("b_standard_1", "b_standard", 1, default__cpu="1"), W("b_standard_2", "b_standard", 2, default__cpu="1")],
         IN(3, cpu="1"), "b_standard", A(cpu=("default", P)), {"b_standard_1": ICQ}),
    case(2790, "use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold",
         [W("b_standard_high", "b_standard", 2, default__cpu="10"),
          W("b_standard_mid", "b_standard", 1, default__cpu="1"),
          W("a_best_effort_low", "a_best_effort", -1, default__cpu="1"),
          W("a_best_effort_lower", "a_best_effort", -2, default__cpu="1")],
         IN(2, cpu="2"), "b_standard", A(cpu=("default", P)), {"a_best_effort_lower": RWB, "b_standard_mid": ICQ}),
    case(2935, "reclaim quota from lender",
         [W("lend1-low", "lend1", -1, default__cpu="3"), W("lend2-mid", "lend2", default__cpu="3"),
          W("lend2-high", "lend2", 1, default__cpu="4")],
         IN(1, cpu="3"), "lend1", A(cpu=("default", P)), {"lend2-mid": REC}),
    case(3039, "preempt from all ClusterQueues in cohort-lend",
         [W("lend1-low", "lend1", -1, default__cpu="3"), W("lend1-mid", "lend1", default__cpu="2"),
          W("lend2-low", "lend2", -1, default__cpu="3"), W("lend2-mid", "lend2", default__cpu="4")],
         IN(0, cpu="4"), "lend1", A(cpu=("default", P)), {"lend1-low": ICQ, "lend2-low": REC}),
    case(3179, "cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit",
         [W("lend2-low", "lend2", -1, default__cpu="10")],
         IN(0, cpu="9"), "lend1", A(cpu=("default", P)), {}),
    case(3220, "preemptions from cq when target queue is exhausted for the single requested resource",
         [W("a1", "a", -2, default__cpu="1"), W("a2", "a", -2, default__cpu="1"), W("a3", "a", -1, default__cpu="1"),
          W("b1", "b", 0, default__cpu="1"), W("b2", "b", 0, default__cpu="1"), W("b3", "b", 0, default__cpu="1")],
         IN(0, cpu="2"), "a", A(cpu=("default", P)), {"a1": ICQ, "a2": ICQ}),
    case(3413, "preemptions from cq when target queue is exhausted for two requested resources",
         [W(n, q, p, default__cpu="1", default__memory="1") for n, q, p in
          (("a1", "a", -2), ("a2", "a", -2), ("a3", "a", -1), ("b1", "b", 0), ("b2", "b", 0), ("b3", "b", 0))],
         IN(0, cpu="2", memory="2"), "a", A(cpu=("default", P), memory=("default", P)), {"a1": ICQ, "a2": ICQ}),
    case(3635, "preemptions from cq when target queue is exhausted for one requested resource, but not the other",
         [W("a1", "a", -2, default__cpu="1"), W("a2", "a", -2, default__cpu="1"), W("a3", "a", -1, default__cpu="1"),
          W("b1", "b", 0, default__cpu="1"), W("b2", "b", 0, default__cpu="1"), W("b3", "b", 0, default__cpu="1")],
         IN(0, cpu="2", memory="2"), "a", A(cpu=("default", P), memory=("default", P)), {"a1": ICQ, "a2": ICQ}),
    case(3833, "allow preemption from other cluster queues if target cq is not exhausted for the requested resource",
         [W("a1", "a", -1, default__cpu="1"), W("b1", "b", 0, default__cpu="1"), W("b2", "b", 0, default__cpu="1"),
          W("b3", "b", 0, default__cpu="1"), W("b4", "b", 0, default__cpu="1"), W("b5", "b", -1, default__cpu="1")],
         IN(0, cpu="2"), "a", A(cpu=("default", P)), {"a1": ICQ, "b5": REC}),
]

# Cases whose handed-in assignment our own flavor assigner does not reproduce from the same state (id
# prefix -> why). Kueue's test gives the preemptor an assignment directly, without running its flavor
# assigner; from the admitted Workloads alone the assigner decides otherwise. Their targets are still
# checked with Kueue's assignment (every one agrees); they do not count as "agree from our own assignment".
NOT_KEPT: dict[str, str] = {
    f"{SRC}:850@": "alpha also needs preemption (low, priority -1, holds 2Gi of it) and is tried first; with "
                   "whenCanPreempt=TryNextFlavor beta is also Preempt at the same borrowing, so the first one "
                   "stays best: the assigner picks alpha, the test hands in beta to check flavor filtering",
    f"{SRC}:1132@": "c1 uses 4 of 6 and c2 lends its unused 2: the 4 CPUs fit by borrowing (mode Fit)",
    f"{SRC}:1288@": "memory is unused in the cohort (c1 3Gi + c2 3Gi, borrowing limit 3Gi): 5Gi fits by borrowing",
    f"{SRC}:1611@": "as 1288: memory 5Gi fits by borrowing; only cpu needs preemption",
    f"{SRC}:2152@": "c2 uses 3 of 6 and c1 lends 6: 4 CPUs fit by borrowing",
    f"{SRC}:3179@": "lend1 can reach at most 6 + 2 (lend2's lendingLimit) = 8 < 9: the assigner says NoFit "
                    "(exceeds capacity), the test hands in Preempt and expects no targets",
    f"{SRC}:3635@": "no memory is used in cohort-three: memory fits within a's nominal quota (mode Fit)",
    "preemption_hierarchical_test.go:1177@": "no subtree below the root can hold 2 more CPUs and q has no "
                                             "borrowWithinCohort: the flavor assigner says NoFit without asking the "
                                             "preemptor (FindHeightOfLowestSubtreeThatFits reaches the root)",
    "preemption_hierarchical_test.go:1278@": "cohort c has 3 of its 4 CPUs unused: cpu fits (mode Fit), only memory "
                                             "needs preemption",
}


# ------------------------------------------------------------------------- TestHierarchicalPreemptions
HSRC = "preemption_hierarchical_test.go"


def _hq(name: str, cohort: str, cpu: str = "0", *, within: str = LP, reclaim: str = ANY, bwc: bool = False,
        memory: str | None = None, lending: str = "") -> dict:
    fq = FQ("default").Resource("cpu", cpu, "", lending)
    if memory is not None:
        fq = fq.Resource("memory", memory)
    return CQ(name).Cohort(cohort).ResourceGroup(fq.Obj()).Preemption(
        _bwc(within, reclaim) if bwc else _p(within, reclaim)).Obj()


def _co(name: str, parent: str | None = None, cpu: str | None = None, memory: str | None = None) -> dict:
    c = MakeCohort(name)
    if parent:
        c = c.Parent(parent)
    if cpu is not None:
        fq = FQ("default").Resource("cpu", cpu)
        if memory is not None:
            fq = fq.Resource("memory", memory)
        c = c.ResourceGroup(fq.Obj())
    return c.Obj()


def hcase(line: int, name: str, cohorts: list, cqs: list, admitted: list, incoming: dict, cq: str,
          assignment: dict, want: dict) -> dict:
    c = case(line, name, admitted, incoming, cq, assignment, want, cqs=cqs, cohorts=cohorts)
    c["id"] = f"{HSRC}:{line}@{TAG} {name}"
    return c


_RC = [_co("r"), _co("c", "r", "2")]
CASES += [
    case(4025, "long range preemption",
         [W("to-be-preempted", "cq-right", default__cpu="5")], IN(0, cpu="8"), "cq-left", A(cpu=("default", P)),
         {"to-be-preempted": REC},
         cqs=[CQ("cq-left").Cohort("cohort-left").Preemption({"reclaimWithinCohort": ANY})
              .ResourceGroup(FQ("default").Resource("cpu", "10").Obj()).Obj(),
              CQ("cq-right").Cohort("cohort-right").ResourceGroup(FQ("default").Resource("cpu", "0").Obj()).Obj()],
         cohorts=[_co("cohort-left", "root"), _co("cohort-right", "root"), _co("root")]),
    hcase(67, "preempt with hierarchical advantage", _RC, [_hq("q", "c"), _hq("q_borrowing", "r")],
          [W("admitted2", "q_borrowing", 0, default__cpu="2")], IN(0, cpu="2"), "q", A(cpu=("default", P)),
          {"admitted2": REC}),
    hcase(144, "avoid queues within nominal quota", _RC,
          [_hq("q_nominal", "r", "2"), _hq("q", "c"), _hq("q_borrowing", "r")],
          [W("admitted1", "q_nominal", -10, default__cpu="2"), W("admitted2", "q_borrowing", 0, default__cpu="2")],
          IN(0, cpu="2"), "q", A(cpu=("default", P)), {"admitted2": REC}),
    hcase(243, "preempt multiple with hierarchical advantage", _RC, [_hq("q", "c"), _hq("q_borrowing", "r")],
          [W("admitted1", "q_borrowing", 1, default__cpu="1"), W("admitted2", "q_borrowing", 2, default__cpu="1")],
          IN(0, cpu="2"), "q", A(cpu=("default", P)), {"admitted1": REC, "admitted2": REC}),
    hcase(349, "preempt in cohort and own CQ", [_co("r"), _co("c", "r", "3")],
          [_hq("q", "c", bwc=True), _hq("q_same_cohort", "c")],
          [W("admitted_not_preemptible", "q_same_cohort", 1, default__cpu="1"),
           W("admitted_preemptible", "q_same_cohort", 0, default__cpu="2"),
           W("admitted_own_queue", "q", -1, default__cpu="1")],
          IN(1, cpu="2"), "q", A(cpu=("default", P)),
          {"admitted_own_queue": ICQ, "admitted_preemptible": RWB}),
    hcase(473, "prefer to preempt hierarchical candidate", _RC, [_hq("q", "c"), _hq("q_borrowing", "r")],
          [W("admitted_borrowing", "q_borrowing", 1, default__cpu="1"),
           W("admitted_same_queue", "q", -2, default__cpu="1")],
          IN(0, cpu="1"), "q", A(cpu=("default", P)), {"admitted_borrowing": REC}),
    hcase(564, "forced to preempt priority candidate", _RC,
          [_hq("q", "c", bwc=True), _hq("q_nominal", "r", "2"), _hq("q_same_cohort", "c")],
          [W("admitted_nominal", "q_nominal", -10, default__cpu="2"),
           W("admitted_same_cohort", "q_same_cohort", -1, default__cpu="2")],
          IN(0, cpu="2"), "q", A(cpu=("default", P)), {"admitted_same_cohort": RWB}),
    hcase(669, "incoming workload fits in CQ nominal quota", _RC,
          [_hq("q", "c", "4"), _hq("q_borrowing", "r"), _hq("q_same_cohort", "c")],
          [W("admitted_borrowing", "q_borrowing", 10, default__cpu="3"),
           W("admitted_same_cohort", "q_same_cohort", 10, default__cpu="3")],
          IN(0, cpu="4"), "q", A(cpu=("default", P)), {"admitted_borrowing": REC, "admitted_same_cohort": REC}),
    hcase(783, "preempt hierarchical and priority candidates", [_co("r", None, "1"), _co("c", "r", "4")],
          [_hq("q", "c", reclaim=LP, bwc=True), _hq("q_borrowing", "r"), _hq("q_same_cohort", "c")],
          [W("admitted_borrowing", "q_borrowing", -1, default__cpu="2"),
           W("admitted_same_cohort_preemptible", "q_same_cohort", -1, default__cpu="1"),
           W("admitted_borrowing_not_preemptible", "q_borrowing", 1, default__cpu="2")],
          IN(0, cpu="3"), "q", A(cpu=("default", P)),
          {"admitted_borrowing": REC, "admitted_same_cohort_preemptible": RWB}),
    hcase(917, "preempt hierarchical candidates and inside CQ", [_co("r", None, "1"), _co("c", "r", "4")],
          [_hq("q", "c", reclaim=LP, bwc=True), _hq("q_borrowing", "r"), _hq("q_same_cohort", "c")],
          [W("admitted_borrowing", "q_borrowing", -1, default__cpu="2"),
           W("admitted_same_queue_preemptible", "q", -1, default__cpu="1"),
           W("admitted_borrowing_not_preemptible", "q_borrowing", 1, default__cpu="2")],
          IN(0, cpu="3"), "q", A(cpu=("default", P)),
          {"admitted_borrowing": REC, "admitted_same_queue_preemptible": ICQ}),
    hcase(1050, "reclaim nominal quota from lowest priority workload, excluding non-borrowing",
          [_co("r"), _co("c", "r", "3")], [_hq("q", "c"), _hq("q_borrowing", "r"), _hq("q_nominal", "r", "2")],
          [W("admitted_borrowing_prio_8", "q_borrowing", 8, default__cpu="1"),
           W("admitted_borrowing_prio_9", "q_borrowing", 9, default__cpu="1"),
           W("admitted_borrowing_prio_10", "q_borrowing", 9, default__cpu="1"),
           W("admitted_nominal", "q_nominal", -2, default__cpu="2")],
          IN(0, cpu="1"), "q", A(cpu=("default", P)), {"admitted_borrowing_prio_8": REC}),
    hcase(1177, "infeasible preemption all available workloads in pruned subtrees",
          [_co("r"), _co("c", "r", "2"), _co("c_other", "r", "2")],
          [_hq("q_other", "c_other"), _hq("q", "c"), _hq("q_same_cohort", "c")],
          [W("admitted_other_1", "q_other", -10, default__cpu="1"),
           W("admitted_other_2", "q_other", -10, default__cpu="1"),
           W("admitted_same_cohort", "q_same_cohort", 0, default__cpu="2")],
          IN(0, cpu="2"), "q", A(cpu=("default", P)), {}),
    hcase(1278, "hiearchical preemption with multiple resources",
          [_co("r", None, "3"), _co("c", "r", "4", "4Gi")],
          [_hq("q", "c", memory="0"), _hq("q_borrowing", "r", memory="0"), _hq("q_same_cohort", "c", memory="0")],
          [W("admitted_borrowing", "q_borrowing", 0, default__cpu="3", default__memory="1Gi"),
           W("admitted_same_cohort", "q_same_cohort", -2, default__cpu="1", default__memory="3Gi")],
          IN(-2, cpu="2", memory="1Gi"), "q", A(cpu=("default", P), memory=("default", P)),
          {"admitted_borrowing": REC}),
    hcase(1394, "prefer to preempt evicted workloads", _RC,
          [_hq("q", "c", bwc=True), _hq("q_borrowing", "r"), _hq("q_same_cohort", "c")],
          [W("admitted_borrowing", "q_borrowing", -10, default__cpu="1"),
           {**W("evicted_same_cohort", "q_same_cohort", -1, default__cpu="1"), "evicted": True}],
          IN(0, cpu="1"), "q", A(cpu=("default", P)), {"evicted_same_cohort": None}),
    hcase(1492, "respect lending limits", _RC, [_hq("q", "c", "3", lending="2"), _hq("q_borrowing", "r")],
          [W("admitted_borrowing", "q_borrowing", 0, default__cpu="4")],
          IN(-2, cpu="5"), "q", A(cpu=("default", P)), {"admitted_borrowing": REC}),
    hcase(1576, "reclaim in complex hierarchy",
          [_co("r"), _co("c11", "r", "4"), _co("c12", "r", "4"), _co("c21", "c11", "4"), _co("c22", "c11", "4"),
           _co("c23", "c11", "4"), _co("c31", "c21", "4"), _co("c32", "c21", "4")],
          [_hq("q1", "c12"), _hq("q2", "c23"), _hq("q3", "c22"), _hq("q4", "c32"), _hq("q5", "c31")],
          [W(f"admitted_borrowing_{i}", q, p, default__cpu=c) for i, q, p, c in
           ((1, "q1", -6, "4"), (2, "q1", -5, "4"), (3, "q2", -9, "4"), (4, "q2", -10, "4"), (5, "q3", -4, "4"),
            (6, "q3", -3, "3"), (7, "q4", 4, "2"), (8, "q4", 2, "3"))],
          IN(-2, cpu="7"), "q5", A(cpu=("default", P)), {"admitted_borrowing_1": REC, "admitted_borrowing_4": REC}),
]

# ------------------------------------------------------------------------------- TestFairPreemptions
# preemption_fair_test.go@v0.18.4: fair sharing on, strategies as given (Kueue's default pair when not),
# the assignment always cpu -> (assignmentFlavor or default, Preempt); reservation times equal, so ties go
# by UID = name, as the test sets them. Fair weights are spec.fairSharing.weight on queues and Cohorts.
FSRC = "preemption_fair_test.go"
FS = "InCohortFairSharing"


def _fw(obj: dict, weight: str) -> dict:
    obj["spec"]["fairSharing"] = {"weight": weight}
    return obj


def _fq(name: str, cohort: str | None, cpu: str | None = "3", *, within: str | None = LP, reclaim: str | None = ANY,
        weight: str | None = None, bwc: int | None = None) -> dict:
    q = CQ(name)
    if cohort:
        q = q.Cohort(cohort)
    if cpu is not None:
        q = q.ResourceGroup(FQ("default").Resource("cpu", cpu).Obj())
    p: dict = {}
    if within:
        p["withinClusterQueue"] = within
    if reclaim:
        p["reclaimWithinCohort"] = reclaim
    if bwc is not None:
        p["borrowWithinCohort"] = {"policy": "LowerPriority", "maxPriorityThreshold": bwc}
    if p:
        q = q.Preemption(p)
    o = q.Obj()
    return _fw(o, weight) if weight is not None else o


def _fco(name: str, parent: str | None = None, cpu: str | None = None, weight: str | None = None) -> dict:
    o = _co(name, parent, cpu)
    return _fw(o, weight) if weight is not None else o


FAIR_BASE = [_fq(n, "all", bwc=-3) for n in ("a", "b", "c")] + [_fq("preemptible", "all", "0", within=None,
                                                                   reclaim=None)]


def U(name: str, cq: str, prio: int = 0, cpu: str = "1", flavor: str = "default") -> dict:
    return W(name, cq, prio, **{f"{flavor}__cpu": cpu})


def fcase(line: int, name: str, admitted: list, incoming: dict, cq: str, want: dict, cqs: list | None = None,
          cohorts: list | None = None, strategies: tuple | None = None, flavor: str = "default",
          flavors: list | None = None) -> dict:
    c = case(line, name, admitted, incoming, cq, A(cpu=(flavor, P)), want, cqs=cqs or FAIR_BASE, cohorts=cohorts)
    c["id"] = f"{FSRC}:{line}@{TAG} {name}"
    c["fair"] = {"strategies": strategies}
    if flavors:
        c["flavors"] = flavors
    return c


def _us(cq: str, *names: str, prio: int = 0) -> list:
    return [U(n, cq, prio) for n in names]


FAIR_CASES = [
    fcase(106, "reclaim nominal from user using the most",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3", "b4", "b5") + _us("c", "c1"),
          IN(0, cpu="1"), "c", {"b1": REC}),
    fcase(123, "can reclaim from queue using less, if taking the latest workload from user using the most isn't "
          "enough", [U("a1", "a", cpu="3"), U("a2", "a"), U("b1", "b", cpu="2"), U("b2", "b", cpu="3")],
          IN(0, cpu="3"), "c", {"a1": REC}),
    fcase(135, "reclaim borrowable quota from user using the most",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3", "b4", "b5") + _us("c", "c1"),
          IN(0, cpu="1"), "a", {"b1": FS}),
    fcase(152, "preempt one from each CQ borrowing",
          [U("a1", "a", cpu="0.5"), U("a2", "a", cpu="0.5"), U("a3", "a", cpu="3"), U("b1", "b", cpu="0.5"),
           U("b2", "b", cpu="0.5"), U("b3", "b", cpu="3")],
          IN(0, cpu="2"), "c", {"a1": REC, "b1": REC}),
    fcase(169, "can't preempt when everyone under nominal",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3") + _us("c", "c1", "c2", "c3"),
          IN(0, cpu="1"), "c", {}),
    fcase(185, "can't preempt when it would switch the imbalance",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3", "b4", "b5"), IN(0, cpu="2"), "a", {}),
    fcase(200, "can preempt lower priority workloads from same CQ",
          _us("a", "a1_low", "a2_low", prio=-1) + _us("a", "a3", "a4") + _us("b", "b1", "b2", "b3", "b4", "b5"),
          IN(0, cpu="2"), "a", {"a1_low": ICQ, "a2_low": ICQ}),
    fcase(220, "can preempt a combination of same CQ and highest user",
          _us("a", "a_low", prio=-1) + _us("a", "a2", "a3") + _us("b", "b1", "b2", "b3", "b4", "b5", "b6"),
          IN(0, cpu="2"), "a", {"a_low": ICQ, "b1": FS}),
    fcase(240, "preempt huge workload if there is no other option, as long as the target CQ gets a lower share",
          [U("b1", "b", cpu="9")], IN(0, cpu="2"), "a", {"b1": REC}),
    fcase(249, "can't preempt huge workload if the incoming is also huge",
          [U("a1", "a", cpu="2"), U("b1", "b", cpu="7")], IN(0, cpu="5"), "a", {}),
    fcase(258, "can't preempt 2 smaller workloads if the incoming is huge",
          [U("b1", "b", cpu="2"), U("b2", "b", cpu="2"), U("b3", "b", cpu="3")], IN(0, cpu="6"), "a", {}),
    fcase(268, "preempt from target and others even if over nominal",
          [U("a1_low", "a", -1, "2"), U("a2_low", "a", -1, "1"), U("b1", "b", cpu="3"), U("b2", "b", cpu="3")],
          IN(0, cpu="4"), "a", {"a1_low": ICQ, "b1": FS}),
    fcase(283, "prefer to preempt workloads that don't make the target CQ have the biggest share",
          [U("b1", "b", cpu="2"), U("b2", "b", cpu="1"), U("b3", "b", cpu="2"), U("c1", "c", cpu="1")],
          IN(0, cpu="3.5"), "a", {"b2": FS}),
    fcase(296, "preempt from different cluster queues if the end result has a smaller max share",
          [U("b1", "b", cpu="2"), U("b2", "b", cpu="2.5"), U("c1", "c", cpu="2"), U("c2", "c", cpu="2.5")],
          IN(0, cpu="3.5"), "a", {"b1": FS, "c1": FS}),
    fcase(311, "scenario above does not flap",
          [U("a1", "a", cpu="3.5"), U("b2", "b", cpu="2.5"), U("c2", "c", cpu="2.5")], IN(0, cpu="2"), "b", {}),
    fcase(321, "cannot preempt if it would make the candidate CQ go under nominal after preempting one element",
          [U("b1", "b", cpu="3"), U("b2", "b", cpu="3"), U("c1", "c", cpu="3")], IN(0, cpu="4"), "a", {}),
    fcase(336, "workloads under priority threshold not capriciously preempted",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3")
          + _us("preemptible", "preemptible1", "preemptible2", "preemptible3", prio=-3),
          IN(0, cpu="2"), "a", {}),
    fcase(353, "preempt lower priority first, even if big",
          [U("a1", "a", cpu="3"), U("b_low", "b", 0, "5"), U("b_high", "b", 1, "1")], IN(0, cpu="1"), "a",
          {"b_low": FS}, strategies=("LessThanInitialShare",)),
    fcase(365, "preempt workload that doesn't transfer the imbalance, even if high priority",
          [U("a1", "a", cpu="3"), U("b_low", "b", 0, "5"), U("b_high", "b", 1, "1")], IN(0, cpu="1"), "a",
          {"b_high": FS}, strategies=("LessThanOrEqualToFinalShare",)),
    fcase(377, "CQ with higher weight can preempt more",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3", "b4", "b5", "b6"), IN(0, cpu="2"), "a",
          {"b1": FS, "b2": FS}, cqs=[_fq("a", "all", weight="2"), _fq("b", "all"), _fq("c", "all")]),
    fcase(426, "can preempt anything borrowing from CQ with 0 weight",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3", "b4", "b5", "b6"), IN(0, cpu="3"), "a",
          {"b1": FS, "b2": FS, "b3": FS}, cqs=[_fq("a", "all"), _fq("b", "all", weight="0"), _fq("c", "all")]),
    fcase(476, "can't preempt nominal from CQ with 0 weight",
          _us("a", "a1", "a2", "a3") + _us("b", "b1", "b2", "b3"), IN(0, cpu="1"), "a", {},
          cqs=[_fq("a", "all"), _fq("b", "all", weight="0")]),
    fcase(509, "can't preempt nominal from Cohort with 0 weight", _us("right-cq", "right-1"), IN(0, cpu="1"),
          "left-cq", {},
          cqs=[_fq("left-cq", "root", "0", within=None), _fq("right-cq", "right-cohort", "0", within=None, weight="0")],
          cohorts=[_fco("right-cohort", "root", "1", "0"), _co("root")]),
    fcase(543, "can preempt within cluster queue when no cohort", _us("a", "a1"), IN(1000, cpu="1"), "a",
          {"a1": ICQ}, cqs=[_fq("a", None, "1", reclaim=None)]),
    fcase(579, "hierarchical preemption",
          [U(f"{q}{i}", q, i) for q in "bcde" for i in range(1, 6)], IN(0, cpu="5"), "a",
          {"b1": FS, "b2": FS, "c1": FS, "c2": FS, "e1": FS},
          cqs=[_fq("a", "LEFT", "1", within=None, weight="2"), _fq("b", "LEFT", "1", within=None, reclaim=None),
               _fq("c", "ROOT", "1", within=None, reclaim=None), _fq("d", "RIGHT", "1", within=None, reclaim=None),
               _fq("e", "RIGHT", "1", within=None, reclaim=None, weight="0.99")],
          cohorts=[_fco("ROOT", None, "5"), _fco("LEFT", "ROOT", "5", "2"), _fco("RIGHT", "ROOT", "5")]),
    fcase(673, "borrowing cq in non-borrowing cohort is protected",
          _us("a", "a1", "a2", "a3", prio=-1) + _us("b", "b1", prio=-1), IN(0, cpu="5"), "a",
          {"a1": ICQ, "a2": ICQ, "a3": ICQ},
          cqs=[_fq("a", "ROOT", "5", weight="10"), _fq("b", "RIGHT", None, within=None, reclaim=None, weight="0.1")],
          cohorts=[_co("ROOT"), _fco("RIGHT", "ROOT", "1", "0.1")]),
    fcase(721, "forced to preempt within clusterqueue because borrowing workload too important",
          _us("a", "a1", "a2", "a3", prio=-1) + [U("b1", "b", 100, "4")], IN(0, cpu="4"), "a",
          {"a1": ICQ, "a2": ICQ, "a3": ICQ},
          cqs=[_fq("a", "ROOT", "5", reclaim=LP, weight="10"),
               _fq("b", "RIGHT", None, within=None, reclaim=None, weight="0.1")],
          cohorts=[_co("ROOT"), _fco("RIGHT", "ROOT", "3", "0.1")]),
    fcase(774, "deep preemption", _us("b", "b1"), IN(0, cpu="1"), "a", {"b1": FS},
          cqs=[_fq("a", "AAA", "0", within=None), _fq("b", "BBB", "0", within=None, reclaim=None)],
          cohorts=[_co("ROOT"), _fco("A", "ROOT", None, "1.01"), _co("AA", "A"), _co("AAA", "AA"),
                   _fco("B", "ROOT", None, "0.99"), _co("BB", "B"), _co("BBB", "BB"), _co("C", "ROOT"),
                   _co("CC", "C"), _co("CCC", "CC"), _co("CCCC", "CCC", "1")]),
    fcase(830, "cq with zero weight can reclaim nominal quota", _us("b", "b1"), IN(0, cpu="1"), "a", {"b1": REC},
          cqs=[_fq("a", "ROOT", "1", within=None, weight="0.0"),
               _fq("b", "ROOT", "0", within=None, reclaim=None, weight="1.0")]),
    fcase(857, "cohort with zero weight can reclaim nominal quota", _us("b", "b1"), IN(0, cpu="1"), "a", {"b1": FS},
          cqs=[_fq("a", "A", "0", within=None, weight="0.0"),
               _fq("b", "ROOT", "0", within=None, reclaim=None, weight="1.0")],
          cohorts=[_fco("A", "ROOT", "1", "0.0"), _co("ROOT")]),
]
_NF = (CQ("a").Cohort("all").ResourceGroup(FQ("premium").Resource("cpu", "3").Obj(), FQ("cheap").Resource("cpu", "0")
                                           .Obj()).Preemption({"reclaimWithinCohort": ANY})
       .FlavorFungibility({"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"}).Obj(),
       CQ("b").Cohort("all").ResourceGroup(FQ("premium").Resource("cpu", "0").Obj(), FQ("cheap").Resource("cpu", "6")
                                           .Obj()).Obj())
FAIR_CASES.append(fcase(
    901, "nominal first: workload fitting within nominal can preempt despite high aggregate DRS",
    [U("a_prem1", "a", flavor="premium"), U("a_prem2", "a", flavor="premium")]
    + [U(f"a_cheap{i}", "a", flavor="cheap") for i in range(1, 6)] + [U("b_prem1", "b", flavor="premium")],
    IN(0, cpu="1"), "a", {"b_prem1": REC}, cqs=list(_NF), flavor="premium",
    flavors=[MakeResourceFlavor("premium").Obj(), MakeResourceFlavor("cheap").Obj()]))
