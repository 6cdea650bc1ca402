"""Render a ModelDeployment for one API profile: pure, validated roles in, a plain dict out."""

from __future__ import annotations

from typing import Any

from kubectl_pd.create.flags import CreateRequest, Role
from kubectl_pd.gpustack.profiles import ApiProfile


def _env(pairs: tuple[tuple[str, str], ...]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in pairs]


def _set(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for step in path[:-1]:
        obj = obj.setdefault(step, {})
    obj[path[-1]] = value


def render_role(role: Role, req: CreateRequest, profile: ApiProfile) -> dict[str, Any]:
    """One `spec.roles[]` entry, holding only fields the profile's schema has."""
    out: dict[str, Any] = {"name": role.name}
    if profile.has("kind"):
        out["kind"] = profile.spell_kind(role.kind) or role.kind
    out["replicas"] = role.replicas
    if profile.has("size") and role.size is not None:
        out["size"] = role.size
    if role.instance_type is not None or role.accelerator_type is None:
        out["instanceType"] = role.instance_type
    if role.accelerator_type is not None:
        out["acceleratorType"] = role.accelerator_type
    if role.accelerator_key is not None:
        out["acceleratorKey"] = role.accelerator_key
    if profile.has("resources"):
        out["resources"] = {"accelerator": role.accelerator}
    if role.image is not None and profile.image_path is not None:
        _set(out, profile.image_path, role.image)
    if role.topology is not None:
        out["topology"] = {"requiredLevel": role.topology}
    if role.args:
        out["extraArgs"] = list(role.args)
    if req.env:
        out["env"] = _env(req.env)
    return out


def render_model_deployment(req: CreateRequest, roles: list[Role], profile: ApiProfile) -> dict[str, Any]:
    """The manifest `create` writes (or prints with --dry-run=client)."""
    spec: dict[str, Any] = {"model": {"name": req.model}}
    engine = profile.spell_engine(req.engine) or req.engine
    if profile.engine_shape == "string":
        spec["engine"] = engine
        if req.engine_version is not None and profile.engine_version_field == "engineVersion":
            spec["engineVersion"] = req.engine_version
    else:
        spec["engine"] = {"name": engine}
        if req.engine_version is not None:
            spec["engine"]["version"] = req.engine_version
        if req.engine_image is not None:
            spec["engine"]["image"] = req.engine_image
    if req.kv_cache_pool is not None:
        spec["kvCache"] = {"poolRef": {"name": req.kv_cache_pool}}
    if req.router is not None:
        spec["router"] = {"name": req.router}
    spec["roles"] = [render_role(r, req, profile) for r in roles]
    return {
        "apiVersion": profile.api_version,
        "kind": "ModelDeployment",
        "metadata": {"name": req.name, "namespace": req.namespace},
        "spec": spec,
    }
