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
from kubectl_pd.records import dataclass, field, replace

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
    engine_image_field: str | None = None  # "engine.image" (the v1 docs of GPUStack v0.9.2 to v0.11.2), or None
    engine_image_required: bool = False

    def has(self, role_field: str) -> bool:
        return role_field in self.role_fields

    @property
    def version(self) -> str:
        """The API version alone: v1alpha1 or v1."""
        return self.api_version.rpartition("/")[2]

    @property
    def instance_type_required(self) -> bool:
        """Every role must name an instanceType: true unless the schema also offers acceleratorType."""
        return not self.has("acceleratorType")

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

# GPUStack's published API (gpustack-operator docs/modules/model-deployment/deployment.md): PascalCase kinds
# (Server|Prefill|Decode) and engines (vLLM|SGLang), the engine object, `size`, `topology.requiredLevel`,
# `resources.interface`; a role names its pool by `instanceType` or (from v0.11.2) `acceleratorType`: a string,
# the name of an AcceleratorType (the v0.11.2 docs' minimal deployment writes
# `acceleratorType: gpustack--nvidia-a10g-linux-amd64` and no instanceType; "AcceleratorType selects accelerated
# pools for serving and prefetch; InstanceType sizes interactive workspaces. Both share the canonical pool
# ClusterQueue": docs.gpustack.ai/gpustack-operator/v0.11.2/docs/modules/model-deployment/configuration/ and
# .../v0.11.2/docs/modules/devices/). What the docs read here do not say: whether admission refuses a role naming
# both; create refuses it on its own account (a role has one pool), lint does not claim the webhook does.
# The engine: the v0.9.2 to v0.11.2 docs' minimal deployment writes `engine: {name, image}` with the runner image
# required and no engine version (docs.gpustack.ai/gpustack-operator/v0.11.2/docs/modules/model-deployment/
# configuration/, "Minimal deployment"; the same on main); an earlier docs commit wrote `{name, version}`. Offline, the
# newest release's shape is written; a CRD read from the cluster says which its version has (from_crd).
V1_OFFLINE = replace(
    PER_REPLICA_OFFLINE,
    api_version=f"{GROUP}/v1",
    engines=("vLLM", "SGLang"),
    engine_version_field=None,
    engine_version_required=False,
    engine_image_field="engine.image",
    engine_image_required=True,
    role_fields=PER_REPLICA_OFFLINE.role_fields | {"acceleratorType", "topology", "shmSize",
                                                   "terminationGracePeriodSeconds"},
    kinds=("Server", "Prefill", "Decode"),
)

OFFLINE = {PD_ATOMIC: PD_ATOMIC_OFFLINE, PER_REPLICA: PER_REPLICA_OFFLINE}
API_VERSIONS = ("v1alpha1", "v1")


def offline(name: str, version: str | None = None) -> ApiProfile:
    """The built-in profile for `--api-profile pd-atomic|per-replica` (and `--api-version v1alpha1|v1`) with
    no CRD to read. `v1` is GPUStack's published API, which is per-replica only."""
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}")
    if version == "v1":
        if name != PER_REPLICA:
            raise ProfileError("worker.gpustack.ai/v1 is the per-replica API: --api-version v1 takes "
                               "--api-profile per-replica (or auto)")
        return V1_OFFLINE
    if version not in (None, "v1alpha1"):
        raise ProfileError(f"--api-version {version!r} is not one of {', '.join(API_VERSIONS)}")
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


def from_crd(crd: dict[str, Any], prefer: str | None = None, what: str | None = None) -> ApiProfile:
    """Read the served version's schema: which fields exist, their enums and bounds. WHAT names where the schema
    came from in an error (default: the CRD and its version)."""
    version = choose_version(crd, prefer)
    vname = str(version.get("name") or "")
    root = ((version.get("schema") or {}).get("openAPIV3Schema")) or {}
    spec = _props(root).get("spec") or {}
    spec_props = _props(spec)
    if "roles" not in spec_props:
        raise ProfileError(f"{what or f'the CRD {CRD_NAME} version {vname}'} has no spec.roles in its schema")
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
        ei_field: str | None = "engine.image" if "image" in eprops else None
        ei_required = "image" in (engine.get("required") or [])
    else:
        ei_field, ei_required = None, False
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
        engine_image_field=ei_field,
        engine_image_required=ei_required,
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


def openapi_path(version: str) -> str:
    """Where an aggregated API server publishes the group-version's OpenAPI v3 document."""
    return f"/openapi/v3/apis/{GROUP}/{version}"


NODE_BUDGET = 200_000  # schema nodes walked to resolve one document: far past any ModelDeployment's (a few thousand)
MAX_DEPTH = 64  # nesting of resolved schemas; deeper is unknown (an empty schema): from_crd reads five levels


class SchemaTooLarge(ProfileError):
    """Resolving the document's references walks more than NODE_BUDGET nodes: its schema is unknown."""


class _Resolver:
    """Every `$ref` (and a lone `allOf: [{$ref}]`) into components.schemas resolved ONCE per component and shared
    (the result is a DAG, never copied per use: a reference used 2^40 times costs one resolution), a reference
    still being resolved (a cycle) an empty schema, every node walked counted against NODE_BUDGET, nesting past
    MAX_DEPTH (references included) an empty schema. Read-only results: nothing mutates them."""

    def __init__(self, schemas: dict[str, Any], budget: int = NODE_BUDGET) -> None:
        self.schemas = schemas
        self.budget = budget
        self.nodes = 0
        self.done: dict[str, Any] = {}
        self.active: set[str] = set()

    def ref(self, name: str, depth: int) -> Any:
        if name in self.done:
            return self.done[name]
        if name in self.active:  # a cycle: unknown below this point
            return {}
        self.active.add(name)
        try:
            target = self.schemas.get(name)
            value = self.walk(target, depth) if isinstance(target, dict) else {}
        finally:
            self.active.discard(name)
        self.done[name] = value
        return value

    def walk(self, schema: Any, depth: int) -> Any:
        if not isinstance(schema, dict):
            return schema
        self.nodes += 1
        if self.nodes > self.budget:
            raise SchemaTooLarge(f"the OpenAPI v3 document's schemas reference each other past {self.budget} nodes: "
                                 f"not read")
        if depth > MAX_DEPTH:
            return {}
        ref = schema.get("$ref")
        if ref is None and isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            ref = (schema["allOf"][0] or {}).get("$ref") if isinstance(schema["allOf"][0], dict) else None
        if isinstance(ref, str):
            target = self.ref(ref.rpartition("/")[2], depth + 1)
            rest = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
            if not rest:
                return target  # shared
            return {**(target if isinstance(target, dict) else {}), **self.walk(rest, depth + 1)}
        out = dict(schema)
        if isinstance(schema.get("properties"), dict):
            out["properties"] = {k: self.walk(v, depth + 1) for k, v in schema["properties"].items()}
        if "items" in schema:
            out["items"] = self.walk(schema["items"], depth + 1)
        return out


def _deref(schema: Any, schemas: dict[str, Any], budget: int = NODE_BUDGET) -> Any:
    """`schema` with every `$ref` into components.schemas resolved (_Resolver: once per component, bounded); past
    the budget SchemaTooLarge."""
    return _Resolver(schemas, budget).walk(schema, 0)


def _is_md_schema(schema: Any, version: str) -> bool:
    gvks = schema.get("x-kubernetes-group-version-kind") if isinstance(schema, dict) else None
    return isinstance(gvks, list) and any(
        isinstance(g, dict) and g.get("group") == GROUP and g.get("version") == version
        and g.get("kind") == "ModelDeployment" for g in gvks)


def from_openapi(doc: Any, version: str) -> ApiProfile:
    """The profile of a ModelDeployment served by an aggregated API server (no CRD): its OpenAPI v3
    document (`openapi_path(version)`), the schema whose x-kubernetes-group-version-kind names it."""
    schemas = ((doc or {}).get("components") or {}).get("schemas") if isinstance(doc, dict) else None
    if not isinstance(schemas, dict):
        raise ProfileError(f"the OpenAPI v3 document of {GROUP}/{version} has no components.schemas")
    found = next((s for s in schemas.values() if _is_md_schema(s, version)), None)
    if found is None:
        raise ProfileError(f"the OpenAPI v3 document of {GROUP}/{version} describes no ModelDeployment")
    try:
        resolved = _deref(found, schemas)
    except (MemoryError, RecursionError) as e:  # never an "internal error": this document's schema is unknown
        raise SchemaTooLarge(f"the OpenAPI v3 document of {GROUP}/{version} cannot be resolved "
                             f"({type(e).__name__}): not read") from None
    crd = {"spec": {"versions": [{"name": version, "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": resolved}}]}}
    profile = from_crd(crd, version, f"the OpenAPI v3 document of {GROUP}/{version}")  # no CRD to speak of
    return ApiProfile(**{**_fields(profile), "source": f"OpenAPI v3 {GROUP}/{version} (aggregated API)"})


def _fields(p: ApiProfile) -> dict[str, Any]:
    return {k: getattr(p, k) for k in ("name", "api_version", "source", "engine_shape", "engines",
                                       "engine_version_field", "engine_version_required", "engine_image_field",
                                       "engine_image_required", "kv_cache",
                                       "kv_cache_required", "router_names", "role_fields", "kinds", "image_path",
                                       "replicas_max", "size_max", "required")}


def crd_serves(crd: dict[str, Any], version: str) -> bool:
    """The CRD itself serves `version` (a version served by an aggregated APIService is not in it)."""
    return any(isinstance(v, dict) and v.get("name") == version and v.get("served", True)
               for v in ((crd.get("spec") or {}).get("versions") or []))


def redeclared(crd: dict[str, Any], version: str = "v1") -> ApiProfile:
    """GPUStack's operator source serves `worker.gpustack.ai/v1` from an aggregated API server as the v1alpha1 struct
    re-declared and converted field for field (api/worker/v1/model_deployment.go@a916db4e,
    zz_generated.conversion.go@83017f7f): when that server publishes no OpenAPI document, the v1alpha1 CRD's schema is
    the v1 schema. The profile keeps every fact of the CRD's and names `version` as the one to write."""
    base = from_crd(crd, "v1alpha1")
    return replace(base, api_version=f"{GROUP}/{version}",
                   source=f"CRD {CRD_NAME} v1alpha1, the struct {GROUP}/{version} re-declares (aggregated API)")
