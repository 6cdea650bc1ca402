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


# -- resource groups as lint reads them: several groups, any resources, any quota --------------------

GPUSTACK_QUEUE_LABELS = {"resource.gpustack.ai/type": "instancetypes",
                         "acceleratable.feature.gpustack.ai/nvidia-h20": "true"}


def flavor_quotas(name: str, resources: list[str], quota: Any = "1") -> Obj:
    """One `flavors[]` entry: every resource at nominalQuota `quota` (any value, to test refusals)."""
    return {"name": name, "resources": [{"name": r, "nominalQuota": quota} for r in resources]}


def resource_group(covered: list[str], flavors: list[str] | list[Obj], quota: Any = "1") -> Obj:
    """One `resourceGroups[]` entry; flavors given by name get `flavor_quotas(name, covered, quota)`."""
    fl = [f if isinstance(f, dict) else flavor_quotas(f, covered, quota) for f in flavors]
    return {"coveredResources": list(covered), "flavors": fl}


def queue_of_groups(name: str = "q", groups: list[Obj] | None = None, *, labels: dict[str, str] | None = None,
                    api: str = "v1beta2", kind: str = "ClusterQueue", annotations: dict[str, str] | None = None,
                    **spec: Any) -> Obj:
    """A ClusterQueue (or, with `kind`, a Cohort) of these resource groups and any other spec fields."""
    meta: Obj = {"name": name}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": f"kueue.x-k8s.io/{api}", "kind": kind, "metadata": meta,
            "spec": {**spec, "resourceGroups": groups if groups is not None else []}}


def gpustack_queue(flavors: int, per_group: int = 16, quota: str = "1600k",
                   name: str = "gpustack--nvidia-h20") -> Obj:
    """A GPUStack instance-type queue of `flavors` flavors, split every `per_group` as the old
    buildResourceGroups did (per_group >= flavors: one group)."""
    names = [f"gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-{i}d" for i in range(flavors)]
    groups = [resource_group([CREDITS], names[i:i + per_group], quota) for i in range(0, flavors, per_group)]
    return queue_of_groups(name, groups, labels=dict(GPUSTACK_QUEUE_LABELS))


def pd_deployment(roles: list[Obj], name: str = "pd", namespace: str = "team-a") -> Obj:
    """A vLLM ModelDeployment of these roles."""
    return model_deployment(name, namespace, {"model": {"name": "m"}, "engine": "vllm", "roles": roles})


def deployment_role(name: str, kind: str = "prefill", itype: str = "gpustack--nvidia-h20", **kw: Any) -> Obj:
    """One `spec.roles[]` entry of a ModelDeployment, one replica."""
    return {"name": name, "kind": kind, "replicas": 1, "instanceType": itype, **kw}

