"""The deployment shape capacity weighs, from create's flags or from a ModelDeployment, as create's typed roles
(create/flags.check_request: the same rules, the same `Role`s the preflight takes)."""

from __future__ import annotations

from typing import Any

from kubectl_pd.create import flags
from kubectl_pd.create.flags import CreateRequest, Role, RoleSpec
from kubectl_pd.errors import PdError
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.labels import QUEUE_LABEL

KIND_REQUEST = "Request"
PLACEHOLDER = "capacity"  # the name and model a request by flags is checked under (nothing is written)


def _checked(req: CreateRequest) -> list[Role]:
    checked = flags.check_request(req)
    if checked.problems:
        raise PdError("; ".join(checked.problems))
    return checked.roles


def from_flags(namespace: str, roles: tuple[RoleSpec, ...], prefill: str | None, decode: str | None,
               instance_type: str | None, target: str, local_queue: str | None, profile: str,
               ) -> tuple[CreateRequest, list[Role], str]:
    specs = flags.all_role_specs(roles, prefill, decode)
    if target == "pods":  # the image only names what the Pods run: capacity weighs what they request
        specs = tuple(r if r.image else r._replace(image=PLACEHOLDER) for r in specs)
    req = CreateRequest(name=PLACEHOLDER, namespace=namespace, model=PLACEHOLDER, roles=specs,
                        instance_type=instance_type, target=target, local_queue=local_queue)
    role_list = _checked(req)
    if target == "pods":
        problems = flags.check_pods(req, role_list)
        if problems:
            raise PdError("; ".join(problems))
        profile = PD_ATOMIC
    return req, role_list, profile


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _text(v: Any) -> str | None:
    if isinstance(v, bool) or v is None:
        return None
    return str(v)


def spec_of(r: dict[str, Any], i: int) -> RoleSpec:
    """A `spec.roles[]` entry as the RoleSpec create's `--role` would give."""
    res = _dict(r.get("resources"))
    return RoleSpec(name=_text(r.get("name")), kind=_text(r.get("kind")), replicas=_text(r.get("replicas")),
                    instance_type=_text(r.get("instanceType")), accelerator=_text(res.get("accelerator")),
                    accelerator_key=_text(r.get("acceleratorKey")), size=_text(r.get("size")),
                    flag=f"spec.roles[{i}]", accelerator_type=_text(r.get("acceleratorType")))


def profile_of(obj: dict[str, Any]) -> str:
    """pd-atomic for the seed's v1alpha1 (roles carry acceleratorKey), per-replica for GPUStack's v1."""
    api = str(obj.get("apiVersion") or "")
    return PD_ATOMIC if api.endswith("/v1alpha1") else PER_REPLICA


def from_model_deployment(obj: dict[str, Any], namespace: str, profile: str | None,
                          ) -> tuple[CreateRequest, list[Role], str]:
    meta, spec = _dict(obj.get("metadata")), _dict(obj.get("spec"))
    raw = spec["roles"] if isinstance(spec.get("roles"), list) else []
    specs = tuple(spec_of(r, i) for i, r in enumerate(raw) if isinstance(r, dict))
    name = str(meta.get("name") or PLACEHOLDER)
    req = CreateRequest(name=name, namespace=str(meta.get("namespace") or namespace), model=PLACEHOLDER,
                        roles=specs)
    return req, _checked(req), profile or profile_of(obj)


def from_pod_group(pods: list[dict[str, Any]], name: str, namespace: str) -> tuple[CreateRequest, list[Role], str]:
    """A pod group's Pods (the seed design's, as `create --target pods` renders them) as the request that made
    them: a role per `kueue.x-k8s.io/role-hash`, its replicas the Pods of that role, its cards what each Pod
    requests (kueue/resources: credits or a device count), its LocalQueue the group's `kueue.x-k8s.io/queue-name`."""
    from kubectl_pd.create import pods as pd
    from kubectl_pd.kueue import resources as rs

    by_role: dict[str, list[dict[str, Any]]] = {}
    queues: set[str] = set()
    for p in pods:
        labels = _dict(_dict(p.get("metadata")).get("labels"))
        notes = _dict(_dict(p.get("metadata")).get("annotations"))  # Kueue's webhook writes the role hash there
        role = notes.get(pd.ROLE_HASH) or labels.get(pd.ROLE_HASH) or labels.get(pd.COMPONENT) or "main"
        by_role.setdefault(str(role), []).append(p)
        if labels.get(QUEUE_LABEL):
            queues.add(str(labels[QUEUE_LABEL]))
    if not by_role:
        from kubectl_pd.errors import NotFoundError

        raise NotFoundError(f"no Pod of pod group {name!r} in namespace {namespace}")
    if len(queues) != 1:
        raise PdError(f"pod group {name!r}: its Pods name {len(queues)} LocalQueues ({', '.join(sorted(queues))})")
    specs = []
    asked: set[str] = set()
    for role, members in by_role.items():
        spec = _dict(members[0].get("spec"))
        container = _dict((spec.get("containers") or [{}])[0])
        requests = _dict(_dict(container.get("resources")).get("requests"))
        resource, cards = rs.pod_cards(requests)  # in the unit of what they request: credits or a device count
        if resource is not None:
            asked.add(resource)
        keys = [k[len(pd.ACCELERATOR_LABEL):] for k in _dict(spec.get("nodeSelector"))
                if k.startswith(pd.ACCELERATOR_LABEL)]
        specs.append(RoleSpec(name=role, replicas=str(len(members)),
            accelerator=str(int(cards)), accelerator_key=keys[0] if keys else None,
            image=_text(container.get("image")) or "unknown", flag=f"pod group role {role}"))
    req = CreateRequest(name=name, namespace=namespace, model=PLACEHOLDER, roles=tuple(specs), target="pods",
                        local_queue=queues.pop(), resource=asked.pop() if len(asked) == 1 else None)
    return req, _checked(req), PD_ATOMIC
