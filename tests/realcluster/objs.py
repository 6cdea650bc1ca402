"""Objects for the real control plane, in the shapes Kueue's webhooks accept (kueue.x-k8s.io/v1beta2)."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"
KV = "kueue.x-k8s.io/v1beta2"


def flavor(name: str, node_labels: dict[str, str] | None = None) -> Obj:
    spec: Obj = {"nodeLabels": node_labels} if node_labels else {}
    return {"apiVersion": KV, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def quota(name: str, nominal: str, borrowing: str | None = None, lending: str | None = None) -> Obj:
    q: Obj = {"name": name, "nominalQuota": nominal}
    if borrowing is not None:
        q["borrowingLimit"] = borrowing
    if lending is not None:
        q["lendingLimit"] = lending
    return q


def cluster_queue(name: str, flavors: list[tuple[str, list[Obj]]], *, cohort: str | None = None,
                  covered: list[str] | None = None, preemption: Obj | None = None,
                  fungibility: Obj | None = None, stop: str | None = None, weight: str | None = None,
                  checks: list[str] | None = None) -> Obj:
    """FLAVORS: (flavor name, its quotas) in order, one resource group covering COVERED (default the GPU)."""
    covered = covered or [GPU]
    spec: Obj = {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                 "resourceGroups": [{"coveredResources": covered,
                                     "flavors": [{"name": f, "resources": rs} for f, rs in flavors]}]}
    if cohort:
        spec["cohortName"] = cohort
    if preemption:
        spec["preemption"] = preemption
    if fungibility:
        spec["flavorFungibility"] = fungibility
    if stop:
        spec["stopPolicy"] = stop
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in checks]}
    return {"apiVersion": KV, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def local_queue(namespace: str, name: str, cq: str) -> Obj:
    return {"apiVersion": KV, "kind": "LocalQueue", "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterQueue": cq}}


def priority_class(name: str, value: int) -> Obj:
    return {"apiVersion": KV, "kind": "WorkloadPriorityClass", "metadata": {"name": name}, "value": value}


def workload(namespace: str, name: str, queue: str, podsets: list[tuple[str, int, dict[str, str]]], *,
             priority: tuple[str, int] | None = None, active: bool = True) -> Obj:
    """A Workload of our own (no owner): PODSETS are (name, count, per-pod requests)."""
    spec: Obj = {"queueName": queue, "active": active, "podSets": [
        {"name": ps, "count": n, "template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "pause", "resources": {"requests": req}}]}}} for ps, n, req in podsets]}
    if priority:  # as Kueue's job reconcilers write it: the class and its value
        spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                    "name": priority[0]}
        spec["priority"] = priority[1]
    return {"apiVersion": KV, "kind": "Workload", "metadata": {"name": name, "namespace": namespace},
            "spec": spec}


def group_pod(namespace: str, name: str, group: str, total: int, queue: str, role: str,
              requests: dict[str, str], *, labels: dict[str, str] | None = None,
              owner: Obj | None = None, priority_class: str | None = None) -> Obj:
    """A pod of a Kueue pod group (the labels and annotation Kueue's pod integration reads)."""
    meta: Obj = {"name": name, "namespace": namespace,
                 "labels": {"kueue.x-k8s.io/queue-name": queue, "kueue.x-k8s.io/pod-group-name": group,
                            "pd.test/role": role, **(labels or {})},
                 "annotations": {"kueue.x-k8s.io/pod-group-total-count": str(total)}}
    if priority_class:
        meta["labels"]["kueue.x-k8s.io/priority-class"] = priority_class
    if owner:
        meta["ownerReferences"] = [owner]
    limits = {k: v for k, v in requests.items() if "/" in k}  # extended resources need limits == requests
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": role, "image": "registry.invalid/engine:pd",
                                     "resources": {"requests": requests, "limits": limits}}]}}
