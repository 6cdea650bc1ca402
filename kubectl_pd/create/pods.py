"""Render the seed design's pod group (`--target pods`): what the operator would create, usable on
plain Kueue. One Pod per replica per role, all in one group so Kueue composes one Workload with one
PodSet per role (reference/seed-pd-atomic-admission-pr.txt; kueue.md §6; peers.md §1.11).
"""

from __future__ import annotations

from typing import Any

from kubectl_pd.create.flags import CreateRequest, Role
from kubectl_pd.gpustack import names
from kubectl_pd.kueue.quantity import CREDITS_PER_CARD, CREDITS_PREFIX
from kubectl_pd.labels import APP_NAME_LABEL, GROUP_LABEL, INSTANCE_LABEL, QUEUE_LABEL

TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
ROLE_HASH = "kueue.x-k8s.io/role-hash"
SERVING = "kueue.x-k8s.io/pod-group-serving"
FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"  # never set: it folds every role into one PodSet
ACCELERATOR_LABEL = "acceleratable.feature.gpustack.ai/"
COMPONENT = "app.kubernetes.io/component"
PRIORITY_CLASS = "kueue.x-k8s.io/priority-class"  # Kueue's WorkloadPriorityClass of the group (kueue.md §6.3)

_MODEL_FLAG = {"vllm": "--model", "sglang": "--model-path"}


def engine_container(req: CreateRequest, role: Role, resource: str | None) -> dict[str, Any]:
    """The role's engine container: its image, the model flag its engine takes, --env, and RESOURCE's requests
    and limits (the role's cards in that resource's unit), as every target writes it."""
    container: dict[str, Any] = {"name": "engine", "image": role.image}
    flag = _MODEL_FLAG.get(req.engine.lower())
    args = ([flag, req.model] if flag else []) + list(role.args)
    if args:
        container["args"] = args
    if req.env:
        container["env"] = [{"name": k, "value": v} for k, v in req.env]
    if resource and role.accelerator:
        amount = str(role.accelerator * per_card(resource))
        container["resources"] = {"requests": {resource: amount}, "limits": {resource: amount}}
    return container


def credits_resource(role: Role, covered: str | None = None, given: str | None = None) -> str | None:
    """The resource one card of a role's Pods requests: --resource, else the one its queue covers (credits or a
    plain accelerator such as nvidia.com/gpu), else the credits of `<manufacturer>` of its accelerator key or of
    the key in its GPUStack-derived instance type's name; None: unknown."""
    if given:
        return given
    if covered:
        return covered
    key = role.accelerator_key or (names.parse_queue_name(role.instance_type or "") or {}).get("key")
    if key and "-" in key:  # GPUStack's queue of an accelerator key covers its manufacturer's credits
        return CREDITS_PREFIX + key.split("-", 1)[0]
    return None


def per_card(resource: str) -> int:
    """How much of RESOURCE one card is: GPUStack's credits per card, else one (nvidia.com/gpu: 1 per card)."""
    return CREDITS_PER_CARD if resource.startswith(CREDITS_PREFIX) else 1


def unresolved(req: CreateRequest, roles: list[Role], covered: dict[str, str] | None = None) -> list[str]:
    """The roles that ask for cards while nothing says which resource a card is (no --resource, no queue read,
    no accelerator key): their Pods would request nothing, and Kueue would admit them on no quota."""
    return [r.name for r in roles
            if r.accelerator > 0 and credits_resource(r, (covered or {}).get(r.name), req.resource) is None]


def render_pods(req: CreateRequest, roles: list[Role], queues: dict[str, str],
                covered: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Every Pod of the group. `queues` maps a role name to its LocalQueue; `covered` maps a role name
    to the credits resource its ClusterQueue covers (when known from the cluster)."""
    group = names.pod_group_name(req.namespace, req.name)
    total = sum(r.replicas for r in roles)
    pods: list[dict[str, Any]] = []
    for role in roles:
        resource = credits_resource(role, (covered or {}).get(role.name), req.resource)
        for ordinal in range(role.replicas):
            spec: dict[str, Any] = {"containers": [engine_container(req, role, resource)]}
            if role.accelerator_key:
                spec["nodeSelector"] = {ACCELERATOR_LABEL + role.accelerator_key: "true"}
            pods.append({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{req.name}-{role.name}-{ordinal}",
                    "namespace": req.namespace,
                    "labels": {
                        GROUP_LABEL: group,
                        QUEUE_LABEL: queues[role.name],
                        APP_NAME_LABEL: "model-deployment",
                        INSTANCE_LABEL: req.name if names.is_label_value(req.name) else group,
                        COMPONENT: role.name,
                        **({PRIORITY_CLASS: req.priority_class} if req.priority_class else {}),
                    },
                    "annotations": {
                        TOTAL_COUNT: str(total),
                        ROLE_HASH: role.name,
                        SERVING: "true",
                    },
                },
                "spec": spec,
            })
    return pods


def offline_queues(req: CreateRequest, roles: list[Role]) -> dict[str, str]:
    """LocalQueue per role without a cluster: `--local-queue`, else GPUStack's hashed entrance name
    (FNV-1a 64 of the ClusterQueue name, which equals the InstanceType name)."""
    return {r.name: req.local_queue or names.local_queue_name(r.instance_type or "") for r in roles}


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    """What `kubectl get -o yaml` prints for several objects."""
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}
