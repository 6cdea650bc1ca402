"""The preemption plan (issue 38): pure, from the queues alone, a superset of what the answers consult; and the
admitted Workloads made by the one Workload parser (kueue/model.workload), never a second one."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.kueue import model
from kubectl_pd.kueue import preempt_reads as pr
from kubectl_pd.kueue.model import Snapshot
from tests.builders import cluster_queue, resource_flavor

LOWER = {"withinClusterQueue": "LowerPriority"}
RECLAIM = {"withinClusterQueue": "Never", "reclaimWithinCohort": "Any"}
NEVER = {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"}


def _snap(*queues: dict[str, Any]) -> Snapshot:
    return Snapshot.of([resource_flavor("f"), *queues])


@pytest.mark.parametrize(("queues", "holders", "want"), [
    ([cluster_queue("q", {"f": "4"}, preemption=LOWER)], False, pr.Plan(("q",), True)),
    ([cluster_queue("q", {"f": "4"}, preemption=NEVER)], False, pr.Plan()),
    ([cluster_queue("q", {"f": "4"}, preemption=NEVER)], True, pr.Plan(("q",))),
    ([cluster_queue("q", {"f": "4"}, preemption=LOWER, active=False)], True, pr.Plan()),  # admits nothing
    # in a cohort: the peers that borrow in a flavor/resource of the queue, not the ones within nominal
    ([cluster_queue("q", {"f": "4"}, preemption=RECLAIM, cohort="c"),
      cluster_queue("borrows", {"f": "1"}, cohort="c", used={"f": "3"}),
      cluster_queue("within", {"f": "4"}, cohort="c", used={"f": "1"})], False, pr.Plan(("borrows",), True)),
    ([cluster_queue("q", {"f": "4"}, preemption={**LOWER, "reclaimWithinCohort": "Any"}, cohort="c"),
      cluster_queue("borrows", {"f": "1"}, cohort="c", used={"f": "3"})], True, pr.Plan(("q", "borrows"), True)),
])
def test_plan(queues: list[dict[str, Any]], holders: bool, want: pr.Plan) -> None:
    assert pr.plan(_snap(*queues), "q", holders=holders) == want


def test_a_lone_queue_is_planned_from_itself_as_from_the_snapshot() -> None:
    for pol in (LOWER, NEVER, RECLAIM):
        for holders in (False, True):
            q = cluster_queue("q", {"f": "4"}, preemption=pol)
            assert pr.alone(model.cluster_queue(q), holders=holders) == pr.plan(_snap(q), "q", holders=holders)
    assert pr.alone(model.cluster_queue(cluster_queue("q", {"f": "4"}, cohort="c")), holders=True) is None


def _workload(status: dict[str, Any], **meta: Any) -> model.Workload:
    return model.workload({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                           "metadata": {"name": "w", "namespace": "ns", "uid": "u1",
                                        "creationTimestamp": "2026-01-01T00:00:00Z", **meta},
                           "spec": {"queueName": "lq", "priority": 3, "podSets": [{"name": "a", "count": 1}]},
                           "status": status})


RESERVED = [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": "2026-01-01T01:00:00Z"}]


def _admission(*usages: dict[str, str]) -> dict[str, Any]:
    return {"clusterQueue": "cq", "podSetAssignments": [
        {"name": f"p{i}", "flavors": {r: "f" for r in u}, "resourceUsage": u, "count": 1}
        for i, u in enumerate(usages)]}


def test_admitted_of_the_one_model() -> None:
    a = pr.admitted_of(_workload({"admission": _admission({"cpu": "1"}, {"cpu": "500m", "memory": "1Gi"}),
                                  "conditions": RESERVED}))
    assert a is not None
    assert (a.namespace, a.name, a.cluster_queue, a.priority, a.uid, a.queue_name) == ("ns", "w", "cq", 3, "u1", "lq")
    assert {fr: str(v) for fr, v in a.usage.items()} == {("f", "cpu"): "3/2", ("f", "memory"): "1073741824"}
    assert (a.created, a.reserved_at, a.evicted) == (1767225600.0, 1767229200.0, False)


@pytest.mark.parametrize("status", [
    {"admission": _admission({"cpu": "1"})},  # no quota reservation
    {"admission": _admission({"cpu": "lots"}), "conditions": RESERVED},  # usage not a quantity
    {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "p", "flavors": {}, "resourceUsage": {"cpu": "1"}}]}, "conditions": RESERVED},  # no flavor for it
    {"conditions": RESERVED},  # no admission
])
def test_an_unreadable_admission_is_no_candidate(status: dict[str, Any]) -> None:
    assert pr.admitted_of(_workload(status)) is None
