"""Builders of the Kubernetes and Kueue objects tests feed the tool, shared instead of copied per file.

Each returns a plain dict as `kubectl get -o json` would show it, with only the fields a test names, so
a test reads as the cluster it sets up. Quantities are passed as written (strings); GPUStack cards are
`cards(n)` credits.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

KUEUE = "kueue.x-k8s.io/v1beta2"
GPUSTACK = "worker.gpustack.ai/v1alpha1"
CREDITS = "credits.gpustack.ai/nvidia"
CARD = 1_600_000  # GPUStack credits per card


def cards(n: int) -> str:
    """`n` cards as a credits quantity (plain integer text, as GPUStack writes it)."""
    return str(n * CARD)


def cluster_queue(name: str, quotas: dict[str, str], *, resource: str = "cpu", cohort: str | None = None,
                  used: dict[str, str] | None = None, preemption: Obj | None = None,
                  limits: dict[str, Obj] | None = None, active: bool | None = None,
                  reserved_status: bool = True) -> Obj:
    """A ClusterQueue of one resource group covering `resource`: `quotas` maps flavor -> nominalQuota.

    `limits` adds fields per flavor (borrowingLimit, lendingLimit); `used` fills
    status.flavorsReservation; `active` adds the Active condition; without `reserved_status` the
    status has no flavorsReservation (an empty `used` then gives no status at all).
    """
    spec: Obj = {"resourceGroups": [{"coveredResources": [resource], "flavors": [
        {"name": f, "resources": [{"name": resource, "nominalQuota": q, **(limits or {}).get(f, {})}]}
        for f, q in quotas.items()]}]}
    if cohort:
        spec["cohortName"] = cohort
    if preemption:
        spec["preemption"] = preemption
    status: Obj = {}
    if active is not None:
        status["conditions"] = [{"type": "Active", "status": "True" if active else "False",
                                 "reason": "Ready" if active else "Inactive", "message": ""}]
    if reserved_status or used:
        status["flavorsReservation"] = [{"name": f, "resources": [{"name": resource, "total": u}]}
                                        for f, u in (used or {}).items()]
    obj: Obj = {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}
    if status:
        obj["status"] = status
    return obj


def cohort(name: str, parent: str | None = None, quota: dict[str, str] | None = None,
           resource: str = "cpu") -> Obj:
    """A Cohort object, with a parent and its own quota (flavor -> nominalQuota) when given."""
    spec: Obj = {}
    if parent:
        spec["parentName"] = parent
    if quota:
        spec["resourceGroups"] = [{"coveredResources": [resource], "flavors": [
            {"name": f, "resources": [{"name": resource, "nominalQuota": q}]} for f, q in quota.items()]}]
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def resource_flavor(name: str, labels: dict[str, str] | None = None) -> Obj:
    """A ResourceFlavor; `labels` are its nodeLabels (None: a spec with no nodeLabels at all)."""
    spec: Obj = {} if labels is None else {"nodeLabels": dict(labels)}
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def workload(name: str, namespace: str, *, queue: str = "q", labels: dict[str, str] | None = None) -> Obj:
    """A bare Workload in `queue` (no pod sets): enough for reads, lists and selectors."""
    return {"apiVersion": KUEUE, "kind": "Workload",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {}}, "spec": {"queueName": queue}}


def pod(name: str, namespace: str | None, *, labels: dict[str, str] | None = None, uid: str | None = None,
        resources: dict[str, str] | None = None, image: str = "vllm/vllm-openai:v0.8.5",
        gates: list[str] | None = None, ready: bool = False, phase: str = "Pending") -> Obj:
    """A Pod with one `engine` container (`resources` as both requests and limits), its scheduling
    gates (None: no schedulingGates field) and a Ready condition."""
    meta: Obj = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if uid is not None:
        meta["uid"] = uid
    meta["labels"] = dict(labels or {})
    container: Obj = {"name": "engine", "image": image}
    if resources is not None:
        container["resources"] = {"requests": resources, "limits": resources}
    spec: Obj = {"containers": [container]}
    if gates is not None:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def model_deployment(name: str, namespace: str, spec: Obj | None = None) -> Obj:
    """A GPUStack ModelDeployment (empty spec unless given)."""
    return {"apiVersion": GPUSTACK, "kind": "ModelDeployment",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec or {}}


def namespace(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
