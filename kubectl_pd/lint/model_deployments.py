"""PD301-PD306: a ModelDeployment's roles, through the shared `validate_roles`
(gpustack-modeldeployment.md §1.3, §1.8), plus the live acceleratorKey check against the pool's flavors."""

from __future__ import annotations

from typing import Any

from kubectl_pd.gpustack.roles import ACCELERATOR_KEY_RE, validate_roles
from kubectl_pd.lint.context import ACCEL_LABEL_PREFIX, LintContext
from kubectl_pd.lint.findings import Finding, ObjectRef
from kubectl_pd.lint.pd_routing import check_owned_keys, check_pd_routing
from kubectl_pd.lint.rules import ROLE_RULES

Obj = dict[str, Any]


def check_model_deployment(obj: Obj, ref: ObjectRef, ctx: LintContext) -> list[Finding]:
    spec = obj.get("spec")
    out = [Finding(ROLE_RULES[p.rule], ref, p.path, p.message) for p in validate_roles(spec, ctx.profile)]
    out.extend(check_pd_routing(spec, ref, ctx.profile))
    out.extend(check_owned_keys(spec, ref))
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
