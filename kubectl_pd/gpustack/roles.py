"""The rules a ModelDeployment's roles must satisfy, shared by `lint` (PD3xx) and `create`.

Pure: takes the `spec` mapping, returns problems with a path and a message that names the field,
the offending value and the rule (reference/gpustack-modeldeployment.md §1.3, §1.8, §5.2).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kubectl_pd.lazyre import lazy
from kubectl_pd.records import dataclass

MAX_ROLES = 10
ROLE_NAME_RE = lazy(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ACCELERATOR_KEY_RE = lazy(r"^[a-z0-9]+(?:[._][a-z0-9]+)*-[a-z0-9]+(?:[-._][a-z0-9]+)*$")
KINDS = ("server", "prefill", "decode")

PD_ATOMIC = "pd-atomic"
PER_REPLICA = "per-replica"
PROFILES = (PD_ATOMIC, PER_REPLICA)


@dataclass(frozen=True)
class RoleProblem:
    rule: str  # roles-count | role-name | instance-type-mismatch | role-kind | replicas | accelerator-key
    path: tuple[str | int, ...]
    message: str


def _p(rule: str, path: tuple[str | int, ...], message: str) -> RoleProblem:
    return RoleProblem(rule, path, message)


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and re.fullmatch(r"-?\d+", v.strip()):
        return int(v)
    return None


def validate_roles(spec: Any, profile: str = PD_ATOMIC) -> list[RoleProblem]:
    """Every role-level problem in a ModelDeployment spec, in field order."""
    roles = spec.get("roles") if isinstance(spec, dict) else None
    if not isinstance(roles, list):
        return [_p("roles-count", ("spec", "roles"), "spec.roles must be a list of 1 to 10 roles")]
    out: list[RoleProblem] = []
    if not 1 <= len(roles) <= MAX_ROLES:
        out.append(_p("roles-count", ("spec", "roles"),
                      f"spec.roles has {len(roles)} roles: a deployment has 1 to {MAX_ROLES} roles"))
    names = Counter(r.get("name") for r in roles if isinstance(r, dict))
    seen: set[Any] = set()
    kind_count: Counter[str] = Counter()
    for i, role in enumerate(roles):
        base: tuple[str | int, ...] = ("spec", "roles", i)
        if not isinstance(role, dict):
            out.append(_p("role-name", base, f"spec.roles[{i}] is not a mapping"))
            continue
        name = role.get("name")
        where = f"spec.roles[{i}].name"
        if not isinstance(name, str) or not name:
            out.append(_p("role-name", (*base, "name"), f"{where} is required"))
        elif len(name) > 63:
            out.append(_p("role-name", (*base, "name"),
                          f"{where} {name!r} is {len(name)} characters: at most 63 (it names a Kueue pod set)"))
        elif not ROLE_NAME_RE.match(name):
            out.append(_p("role-name", (*base, "name"),
                          f"{where} {name!r} must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ "
                          f"(lowercase letters, digits and '-'; it names a Kueue pod set)"))
        if isinstance(name, str) and names[name] > 1 and name in seen:
            out.append(_p("role-name", (*base, "name"), f"{where} {name!r} is repeated: role names are unique"))
        seen.add(name)

        kind = role.get("kind", "server")
        kpath = (*base, "kind")
        if not isinstance(kind, str) or kind.lower() not in KINDS:
            out.append(_p("role-kind", kpath,
                          f"spec.roles[{i}].kind {kind!r} is not one of server, prefill, decode"))
        else:
            kind_count[kind.lower()] += 1
            if kind.lower() in ("prefill", "decode") and kind_count[kind.lower()] == 2:
                out.append(_p("role-kind", kpath,
                              f"spec.roles[{i}].kind {kind!r}: a deployment has at most one {kind.lower()} role"))

        replicas = role.get("replicas", 1)
        n = _as_int(replicas)
        if n is None:
            out.append(_p("replicas", (*base, "replicas"),
                          f"spec.roles[{i}].replicas {replicas!r} is not a whole number"))
        elif n < 1:
            out.append(_p("replicas", (*base, "replicas"),
                          f"spec.roles[{i}].replicas is {n}: each role needs at least 1 replica"))

        if "acceleratorKey" in role:
            key = role.get("acceleratorKey")
            if not isinstance(key, str) or len(key) > 63 or not ACCELERATOR_KEY_RE.match(key):
                out.append(_p("accelerator-key", (*base, "acceleratorKey"),
                              f"spec.roles[{i}].acceleratorKey {key!r} must be <manufacturer>-<model> "
                              f"(e.g. nvidia-h20), at most 63 characters"))

    if kind_count["server"] and (kind_count["prefill"] or kind_count["decode"]):
        idx = next(i for i, r in enumerate(roles)
                   if isinstance(r, dict) and str(r.get("kind", "server")).lower() == "server")
        out.append(_p("role-kind", ("spec", "roles", idx, "kind"),
                      "a server role cannot be mixed with prefill/decode roles: "
                      "use prefill and decode roles, or server roles only"))

    if profile == PD_ATOMIC:
        types = [(i, r.get("instanceType")) for i, r in enumerate(roles) if isinstance(r, dict)]
        first = next((t for _, t in types if t), None)
        for i, t in types:
            if t and t != first:
                out.append(_p(
                    "instance-type-mismatch", ("spec", "roles", i, "instanceType"),
                    f"spec.roles[{i}].instanceType {t!r} differs from {first!r}: a Workload carries one "
                    f"queueName, so roles on two instanceTypes (two queues) cannot be admitted atomically; "
                    f"keep every role on one instanceType and choose hardware inside that pool with "
                    f"acceleratorKey",
                ))
    return out
