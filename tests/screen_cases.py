"""Small states of the "screen truth" cases (issue 37), built as the objects a snapshot holds: a pod group of two
roles on a ClusterQueue of plain `nvidia.com/gpu` quota in two flavors, with the status Kueue writes."""

from __future__ import annotations

from typing import Any

GPU = "nvidia.com/gpu"
NS = "team-a"
Obj = dict[str, Any]


def flavor(name: str) -> Obj:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {}}


def cluster_queue(name: str, quotas: list[tuple[str, int, int]], cohort: str | None = None,
                  borrowed: dict[str, int] | None = None) -> Obj:
    """QUOTAS: (flavor, nominal, used) in Kueue's flavor order; BORROWED: flavor -> what this queue borrows."""
    spec: Obj = {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                 "resourceGroups": [{"coveredResources": [GPU], "flavors": [
                     {"name": f, "resources": [{"name": GPU, "nominalQuota": str(n)}]} for f, n, _ in quotas]}],
                 "preemption": {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"}}
    if cohort:
        spec["cohortName"] = cohort
    usage = [{"name": f, "resources": [{"name": GPU, "total": str(u), "borrowed": str((borrowed or {}).get(f, 0))}]}
             for f, _, u in quotas]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec,
            "status": {"flavorsUsage": usage, "flavorsReservation": usage, "pendingWorkloads": 1,
                       "conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "ok"}]}}


def local_queue(cq: str, name: str = "main") -> Obj:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": name, "namespace": NS},
            "spec": {"clusterQueue": cq}}


def pod(group: str, role: str, i: int, total: int, cards: int, queue: str = "main", deleting: bool = False) -> Obj:
    meta: Obj = {"name": f"{group}-{role}-{i}", "namespace": NS, "uid": f"uid-{group}-{role}-{i}",
                 "creationTimestamp": "2026-11-29T09:12:12Z",
                 "labels": {"kueue.x-k8s.io/pod-group-name": group, "kueue.x-k8s.io/queue-name": queue,
                            "app.kubernetes.io/component": role},
                 "annotations": {"kueue.x-k8s.io/pod-group-total-count": str(total), "kueue.x-k8s.io/role-hash": role}}
    if deleting:
        meta["deletionTimestamp"] = "2026-11-29T09:13:00Z"
    res = {"requests": {GPU: str(cards)}, "limits": {GPU: str(cards)}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "engine", "image": "i", "resources": res}],
                     "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]},
            "status": {"phase": "Pending"}}


def workload(group: str, cq: str, pod_sets: list[tuple[str, int, int]], message: str,
             conditions: list[Obj] | None = None) -> Obj:
    """POD_SETS: (role, count, cards per pod) in spec.podSets order (Kueue's, sorted by role hash = role name)."""
    sets = [{"name": r, "count": n, "template": {"spec": {"containers": [
        {"name": "engine", "resources": {"requests": {GPU: str(c)}}}]}}} for r, n, c in pod_sets]
    conds = [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": message,
              "lastTransitionTime": "2026-11-29T09:12:40Z"}, *(conditions or [])]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": group, "namespace": NS, "creationTimestamp": "2026-11-29T09:12:36Z",
                         "labels": {"kueue.x-k8s.io/queue-name": "main"}},
            "spec": {"queueName": "main", "podSets": sets},
            "status": {"conditions": conds}}


def as_list(*objs: Obj) -> Obj:
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": list(objs)}


def charged_in_order() -> Obj:
    """W3: Kueue charges decode (4 cards) first: flavor z0 has 1 free card, z1 has 4, so decode takes z1 and
    prefill (2 cards) is 1 short in z0 and 2 short in z1. Alone, prefill would fit z1: nothing was freed."""
    msg = ("couldn't assign flavors to pod set prefill: insufficient unused quota for nvidia.com/gpu in flavor z0, "
           "1 more needed, insufficient unused quota for nvidia.com/gpu in flavor z1, 2 more needed")
    return as_list(flavor("z0"), flavor("z1"), cluster_queue("cq", [("z0", 4, 3), ("z1", 4, 0)]), local_queue("cq"),
                   workload("g", "cq", [("decode", 1, 4), ("prefill", 1, 2)], msg),
                   pod("g", "decode", 0, 2, 4), pod("g", "prefill", 0, 2, 2))


def all_deleting(replacing: bool = False) -> Obj:
    """W4: every Pod of a pending group is being deleted (or Kueue waits for replacement Pods)."""
    msg = "couldn't assign flavors to pod set decode: insufficient unused quota for nvidia.com/gpu in flavor z0, " \
          "2 more needed"
    cond = [{"type": "WaitingForReplacementPods", "status": "True", "reason": "PodsFailed",
             "message": "pods were deleted or failed"}] if replacing else []
    return as_list(flavor("z0"), cluster_queue("cq", [("z0", 4, 2)]), local_queue("cq"),
                   workload("g", "cq", [("decode", 1, 4)], msg, cond),
                   pod("g", "decode", 0, 1, 4, deleting=not replacing))


def lent_away() -> Obj:
    """W7: queue cq (nominal 10, 8 used) and queue other (nominal 0) of cohort co; other borrows 2, which are cq's
    unused 2: nothing of cq's nominal is free now, and the screen says the 2 are lent, not free."""
    msg = ("couldn't assign flavors to pod set decode: insufficient unused quota for nvidia.com/gpu in flavor z0, "
           "4 more needed")
    return as_list(flavor("z0"), cluster_queue("cq", [("z0", 10, 8)], cohort="co"),
                   cluster_queue("other", [("z0", 0, 2)], cohort="co", borrowed={"z0": 2}), local_queue("cq"),
                   workload("g", "cq", [("decode", 1, 4)], msg), pod("g", "decode", 0, 1, 4))


def over_every_flavor() -> Obj:
    """W9: decode asks 16 cards; flavor z0 can give at most 10, z1 at most 12: never admitted as configured. The
    headline, the reason, the table and `next:` name one flavor."""
    msg = ("couldn't assign flavors to pod set decode: insufficient quota for nvidia.com/gpu in flavor z0, previously "
           "considered podsets requests (0) + current podset request (16) > maximum capacity (10), insufficient quota "
           "for nvidia.com/gpu in flavor z1, previously considered podsets requests (0) + current podset request (16) "
           "> maximum capacity (12)")
    return as_list(flavor("z0"), flavor("z1"), cluster_queue("cq", [("z0", 10, 0), ("z1", 12, 0)]),
                   local_queue("cq"), workload("g", "cq", [("decode", 1, 16)], msg), pod("g", "decode", 0, 1, 16))
