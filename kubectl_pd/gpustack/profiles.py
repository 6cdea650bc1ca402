"""The ModelDeployment API shapes `create` can write, read from an installed CRD or taken offline.

The API moved (reference/gpustack-modeldeployment.md §0): the seed's `pd-atomic` era has
`spec.engine` as a string, a required `engineVersion` and `kvCache`, and roles with `kind`,
`acceleratorKey` and a `template` overlay for the image; the later `per-replica` era has
`spec.engine: {name, version}`, an optional `kvCache`, a `router`, and roles with `size` and `image`
and no `acceleratorKey`; its newest version spells enums in PascalCase (`Prefill`, `vLLM`).
Pure: a CRD object in, a frozen description out.
"""

from __future__ import annotations

from typing import Any

from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA, PROFILES
from kubectl_pd.records import dataclass, field

CRD_NAME = "modeldeployments.worker.gpustack.ai"
GROUP = "worker.gpustack.ai"


@dataclass(frozen=True)
class ApiProfile:
    """What one ModelDeployment API version can hold, and how it spells things."""

    name: str  # pd-atomic | per-replica
    api_version: str  # worker.gpustack.ai/<version> to write
    source: str  # "offline" or "CRD <name> <version>"
    engine_shape: str  # "string" (spec.engine: vllm) or "object" (spec.engine.name)
    engines: tuple[str, ...]
    engine_version_field: str | None  # "engineVersion", "engine.version", or None
    engine_version_required: bool  # by the schema, whatever the roles say
    kv_cache: bool
    kv_cache_required: bool
    router_names: tuple[str, ...] | None  # None: no spec.router field
    role_fields: frozenset[str]
    kinds: tuple[str, ...]  # enum spelling, e.g. ("server", "prefill", "decode")
    image_path: tuple[str, ...] | None  # ("image",) or ("template", "image")
    replicas_max: int | None = None
    size_max: int | None = None
    required: frozenset[str] = field(default_factory=frozenset)  # spec-level required fields

    def has(self, role_field: str) -> bool:
        return role_field in self.role_fields

    def spell_kind(self, kind: str) -> str | None:
        """The CRD's spelling of a kind typed in any case; None when the enum lacks it."""
        return _spell(kind, self.kinds)

    def spell_engine(self, engine: str) -> str | None:
        return _spell(engine, self.engines)

    def describe(self) -> str:
        return f"{self.api_version}, {self.name}"


def _spell(value: str, allowed: tuple[str, ...]) -> str | None:
    if not allowed:
        return value
    for a in allowed:
        if a.lower() == value.lower():
            return a
    return None


PD_ATOMIC_OFFLINE = ApiProfile(
    name=PD_ATOMIC,
    api_version=f"{GROUP}/v1alpha1",
    source="offline",
    engine_shape="string",
    engines=("vllm", "sglang"),
    engine_version_field="engineVersion",
    engine_version_required=True,
    kv_cache=True,
    kv_cache_required=True,
    router_names=None,
    role_fields=frozenset({"name", "kind", "replicas", "instanceType", "acceleratorKey", "resources",
                           "extraArgs", "env", "template"}),
    kinds=("server", "prefill", "decode"),
    image_path=("template", "image"),
    required=frozenset({"model", "engine", "engineVersion", "kvCache", "roles"}),
)

PER_REPLICA_OFFLINE = ApiProfile(
    name=PER_REPLICA,
    api_version=f"{GROUP}/v1alpha1",
    source="offline",
    engine_shape="object",
    engines=("vllm", "sglang"),
    engine_version_field="engine.version",
    engine_version_required=False,
    kv_cache=True,
    kv_cache_required=False,
    router_names=("llm-d-router", "vllm-router", "sglang-gateway"),
    role_fields=frozenset({"name", "kind", "replicas", "size", "instanceType", "resources", "image",
                           "imagePullPolicy", "imagePullSecrets", "privileged", "ports", "additionalVolumes",
                           "command", "extraArgs", "env"}),
    kinds=("server", "prefill", "decode"),
    image_path=("image",),
    replicas_max=1024,
    size_max=64,
    required=frozenset({"model", "engine", "roles"}),
)

OFFLINE = {PD_ATOMIC: PD_ATOMIC_OFFLINE, PER_REPLICA: PER_REPLICA_OFFLINE}


def offline(name: str) -> ApiProfile:
    """The built-in profile for `--api-profile pd-atomic|per-replica` with no CRD to read."""
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}")
    return OFFLINE[name]


class ProfileError(ValueError):
    """The CRD does not describe a ModelDeployment API this tool can write."""


def choose_version(crd: dict[str, Any], prefer: str | None = None) -> dict[str, Any]:
    """The version to write: `prefer` (the one requests will go to) when served, else the storage
    version when served, else the first served one."""
    versions = [v for v in ((crd.get("spec") or {}).get("versions") or []) if isinstance(v, dict)]
    served = [v for v in versions if v.get("served", True)]
    if not served:
        raise ProfileError(f"the CRD {CRD_NAME} serves no version")
    for v in served:
        if prefer and v.get("name") == prefer:
            return v
    for v in served:
        if v.get("storage"):
            return v
    return served[0]


def _props(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def _enum(schema: Any) -> tuple[str, ...]:
    if isinstance(schema, dict) and isinstance(schema.get("enum"), list):
        return tuple(str(v) for v in schema["enum"])
    return ()


def _int(schema: Any, key: str) -> int | None:
    v = schema.get(key) if isinstance(schema, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def from_crd(crd: dict[str, Any], prefer: str | None = None) -> ApiProfile:
    """Read the served version's schema: which fields exist, their enums and bounds."""
    version = choose_version(crd, prefer)
    vname = str(version.get("name") or "")
    root = ((version.get("schema") or {}).get("openAPIV3Schema")) or {}
    spec = _props(root).get("spec") or {}
    spec_props = _props(spec)
    if "roles" not in spec_props:
        raise ProfileError(f"the CRD {CRD_NAME} version {vname} has no spec.roles in its schema")
    role_schema = (spec_props["roles"] or {}).get("items") or {}
    role_props = _props(role_schema)
    role_fields = frozenset(role_props)

    engine = spec_props.get("engine") or {}
    if isinstance(engine, dict) and (engine.get("type") == "object" or "properties" in engine):
        shape = "object"
        eprops = _props(engine)
        engines = _enum(eprops.get("name"))
        ev_field: str | None = "engine.version" if "version" in eprops else None
        ev_required = "version" in (engine.get("required") or [])
    else:
        shape = "string"
        engines = _enum(engine)
        ev_field = "engineVersion" if "engineVersion" in spec_props else None
        ev_required = "engineVersion" in (spec.get("required") or [])

    kv = spec_props.get("kvCache")
    router = spec_props.get("router")
    router_names = _enum(_props(router).get("name")) if isinstance(router, dict) else None
    image_path: tuple[str, ...] | None = None
    if "image" in role_props:
        image_path = ("image",)
    elif "image" in _props(role_props.get("template")):
        image_path = ("template", "image")

    required = frozenset(str(r) for r in (spec.get("required") or []) if isinstance(spec, dict))
    name = PD_ATOMIC if "acceleratorKey" in role_fields else PER_REPLICA
    return ApiProfile(
        name=name,
        api_version=f"{GROUP}/{vname}",
        source=f"CRD {CRD_NAME} {vname}",
        engine_shape=shape,
        engines=engines,
        engine_version_field=ev_field,
        engine_version_required=ev_required,
        kv_cache=isinstance(kv, dict),
        kv_cache_required="kvCache" in required,
        router_names=router_names,  # () = a router field with no enum: any name
        role_fields=role_fields,
        kinds=_enum(role_props.get("kind")),
        image_path=image_path,
        replicas_max=_int(role_props.get("replicas"), "maximum"),
        size_max=_int(role_props.get("size"), "maximum"),
        required=required,
    )
