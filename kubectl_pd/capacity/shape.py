"""The deployment shape capacity weighs, from create's flags or from a ModelDeployment, as create's typed roles
(create/flags.check_request: the same rules, the same `Role`s the preflight takes)."""

from __future__ import annotations

from typing import Any

from kubectl_pd.create import flags
from kubectl_pd.create.flags import CreateRequest, Role, RoleSpec
from kubectl_pd.errors import PdError
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA

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
    req = CreateRequest(name=PLACEHOLDER, namespace=namespace, model=PLACEHOLDER,
                        roles=flags.all_role_specs(roles, prefill, decode), instance_type=instance_type,
                        target=target, local_queue=local_queue)
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
