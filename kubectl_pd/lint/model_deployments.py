"""PD301-PD306: a ModelDeployment's roles, through the shared `validate_roles`
(gpustack-modeldeployment.md §1.3, §1.8), plus the live acceleratorKey check against the pool's flavors;
PD314-PD321: what GPUStack's admission refuses in its published API (worker.gpustack.ai/v1)."""

from __future__ import annotations

import re
from typing import Any

from kubectl_pd.gpustack.roles import ACCELERATOR_KEY_RE, PER_REPLICA, topology_level_problem, validate_roles
from kubectl_pd.lint.context import ACCEL_LABEL_PREFIX, LintContext
from kubectl_pd.lint.findings import Finding, ObjectRef
from kubectl_pd.lint.pd_routing import check_owned_keys, check_pd_routing
from kubectl_pd.lint.rules import ROLE_RULES

Obj = dict[str, Any]


def check_model_deployment(obj: Obj, ref: ObjectRef, ctx: LintContext) -> list[Finding]:
    spec = obj.get("spec")
    # worker.gpustack.ai/v1 is GPUStack's published API, which is per-replica whatever the run's profile
    profile = PER_REPLICA if is_v1(obj) else ctx.profile
    out = [Finding(ROLE_RULES[p.rule], ref, p.path, p.message) for p in validate_roles(spec, profile)]
    out.extend(check_pd_routing(spec, ref, profile))
    out.extend(check_owned_keys(spec, ref))
    if is_v1(obj):
        out.extend(check_v1_admission(obj, ref))
        if ctx.schemas is None or ctx.schemas.schema_for(obj) is None:  # with the CRD, PD501 says it
            out.extend(check_v1_spelling(obj, ref))
    roles = spec.get("roles") if isinstance(spec, dict) else None
    for i, role in enumerate(roles if isinstance(roles, list) else []):
        if not isinstance(role, dict):
            continue
        key, itype = role.get("acceleratorKey"), role.get("instanceType")
        if not isinstance(key, str) or not ACCELERATOR_KEY_RE.match(key) or len(key) > 63:
            continue  # absent, or already reported by validate_roles
        if not isinstance(itype, str) or not itype:
            continue
        offered = ctx.pool_accelerator_keys(itype)
        if not offered or key in offered:
            continue  # unknown pool, a pool with no flavors yet, or offered
        out.append(Finding(
            "PD306", ref, ("spec", "roles", i, "acceleratorKey"),
            f"spec.roles[{i}].acceleratorKey {key!r} is offered by no flavor of pool {itype!r} "
            f"(its flavors carry {', '.join(ACCEL_LABEL_PREFIX + k for k in sorted(offered))}): Kueue would "
            f"drop the nodeSelector and place the role on any of them; use one of "
            f"{', '.join(sorted(offered))}"))
    return out


# -- PD314-PD320: what GPUStack's admission refuses in its published API, worker.gpustack.ai/v1 -------------
# gpustack-operator docs/modules/model-deployment/deployment.md, "What admission refuses" (the rules answered
# from the submitted object alone; the ones that read an InstanceType or a Binding need the cluster)
V1_REPLICAS_MAX, V1_SIZE_MAX = 1024, 64
_DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_SLICES = ("acceleratorSlicedMemoryPercentage", "acceleratorSlicedCoresPercentage")


def is_v1(obj: Obj) -> bool:
    return str(obj.get("apiVersion") or "") == "worker.gpustack.ai/v1"


def check_v1_admission(obj: Obj, ref: ObjectRef) -> list[Finding]:
    """Each role of a v1 ModelDeployment, then the deployment-wide refusals."""
    spec = _d(obj.get("spec"))
    name = str(_d(obj.get("metadata")).get("name") or "")
    out: list[Finding] = []
    roles: list[Any] = spec["roles"] if isinstance(spec.get("roles"), list) else []
    for i, role in enumerate(roles):
        if isinstance(role, dict):
            out += _v1_role(ref, i, role, name)
    out += _engine_version(ref, spec, roles)
    out += _pool_ref(ref, spec)
    return out


def _v1_role(ref: ObjectRef, i: int, role: Obj, name: str) -> list[Finding]:
    base = ("spec", "roles", i)
    out = _role_pool(ref, i, role) + _role_bounds(ref, i, role)
    for gone in ("template", "acceleratorKey"):
        if gone in role:
            out.append(Finding("PD316", ref, (*base, gone),
                               f"spec.roles[{i}].{gone}: unknown field in worker.gpustack.ai/v1 (the "
                               f"{'template block is gone' if gone == 'template' else 'acceleratorKey was withdrawn'}"
                               f"; strict decoding refuses it)", extra={"field": gone}))
    why = topology_level_problem(_d(role.get("topology")).get("requiredLevel"))
    if why is not None:
        out.append(Finding("PD317", ref, (*base, "topology", "requiredLevel"),
                           f"spec.roles[{i}].topology.requiredLevel: {why}",
                           extra={"level": _d(role.get("topology")).get("requiredLevel")}))
    rname = role.get("name")
    svc = f"{name}-{rname}"
    if name and isinstance(rname, str) and rname and (len(svc) > 63 or not _DNS_1035.match(svc)):
        out.append(Finding("PD318", ref, (*base, "name"),
                           f"the role Service name {svc!r} (<deployment>-<role>) is not a DNS-1035 label: at most 63 "
                           f"characters, a letter first, no dot", extra={"service": svc}))
    res = _d(role.get("resources"))
    if res.get("acceleratorPartitionedProfile") and any(res.get(k) not in (None, 0) for k in _SLICES):
        out.append(Finding("PD319", ref, (*base, "resources", "acceleratorPartitionedProfile"),
                           f"spec.roles[{i}].resources: a partition profile together with a slice percentage; one "
                           f"accelerator cannot serve both", extra={}))
    return out


def _role_pool(ref: ObjectRef, i: int, role: Obj) -> list[Finding]:
    """PD314: a role names its pool by instanceType, or (from GPUStack v0.11.2) by acceleratorType."""
    it, at = role.get("instanceType"), role.get("acceleratorType")
    if (isinstance(it, str) and it) or (isinstance(at, str) and at):
        return []
    return [Finding("PD314", ref, ("spec", "roles", i, "instanceType"),
                    f"spec.roles[{i}] names no pool: set instanceType (or acceleratorType where the API has it)",
                    extra={})]


def _role_bounds(ref: ObjectRef, i: int, role: Obj) -> list[Finding]:
    """PD315: replicas at most 1024 and size 1 to 64, refused by the schema (the operator's own ceiling)."""
    out = []
    for fld, top, low in (("replicas", V1_REPLICAS_MAX, None), ("size", V1_SIZE_MAX, 1)):
        n = _as_int(role.get(fld)) if fld in role else None
        if n is None:
            continue
        if n > top or (low is not None and n < low):
            out.append(Finding("PD315", ref, ("spec", "roles", i, fld),
                               f"spec.roles[{i}].{fld} is {n}: "
                               f"{'at most' if low is None else f'{low} to'} {top} in worker.gpustack.ai/v1",
                               extra={"field": fld, "value": n, "maximum": top}))
    return out


def _engine_version(ref: ObjectRef, spec: Obj, roles: list[Any]) -> list[Finding]:
    """PD320: engine.version is required when a role sets no image (the image is assembled from it), unless the
    engine names its runner image itself (`engine.image`, which the v1 docs of v0.9.2 to v0.11.2 write instead)."""
    engine = _d(spec.get("engine"))
    if engine.get("version") or engine.get("image"):
        return []
    imageless = [str(r.get("name")) for r in roles if isinstance(r, dict) and not r.get("image")]
    if not imageless:
        return []
    return [Finding("PD320", ref, ("spec", "engine", "version"),
                    f"spec.engine.version is required: role(s) {', '.join(imageless)} set no image, so the operator "
                    f"assembles one from the engine, its version and the role's pool", extra={"roles": imageless})]


def _pool_ref(ref: ObjectRef, spec: Obj) -> list[Finding]:
    """PD320's sibling in the docs' table: an empty kvCache.poolRef.name names no Binding (PD321)."""
    kv = spec.get("kvCache")
    if not isinstance(kv, dict) or "poolRef" not in kv or _d(kv.get("poolRef")).get("name"):
        return []
    return [Finding("PD321", ref, ("spec", "kvCache", "poolRef", "name"),
                    "spec.kvCache.poolRef.name is empty: the KVCachePoolBinding is the authorization point, and an "
                    "empty reference names none", extra={})]


V1_KINDS = ("Server", "Prefill", "Decode")
V1_ENGINES = ("vLLM", "SGLang")


def check_v1_spelling(obj: Obj, ref: ObjectRef) -> list[Finding]:
    """PD304 and PD322: v1's closed enums are PascalCase (`kind: Prefill`, `engine.name: vLLM`); `prefill` or
    `vllm` is refused by the schema ("Unsupported value") though the seed's v1alpha1 took it."""
    out: list[Finding] = []
    spec = _d(obj.get("spec"))
    roles: list[Any] = spec["roles"] if isinstance(spec.get("roles"), list) else []
    for i, role in enumerate(roles):
        kind = _d(role).get("kind")
        if isinstance(kind, str) and kind not in V1_KINDS and kind.lower() in ("server", "prefill", "decode"):
            out.append(Finding("PD304", ref, ("spec", "roles", i, "kind"),
                               f"spec.roles[{i}].kind {kind!r}: worker.gpustack.ai/v1 spells it "
                               f"{kind.capitalize()!r} (one of {', '.join(V1_KINDS)})",
                               extra={"kind": kind, "want": kind.capitalize()}))
    name = _d(spec.get("engine")).get("name")
    if isinstance(name, str) and name not in V1_ENGINES:
        want = next((e for e in V1_ENGINES if e.lower() == name.lower()), None)
        out.append(Finding("PD322", ref, ("spec", "engine", "name"),
                           f"spec.engine.name {name!r} is not one of {', '.join(V1_ENGINES)} in worker.gpustack.ai/v1"
                           + (f": write {want!r}" if want else ""), extra={"engine": name, "want": want}))
    return out


def _d(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _as_int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None
