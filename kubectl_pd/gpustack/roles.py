"""The rules a ModelDeployment's roles must satisfy, shared by `lint` (PD3xx) and `create`.

Pure: takes the `spec` mapping, returns problems with a path and a message that names the field,
the offending value and the rule (reference/gpustack-modeldeployment.md §1.3, §1.8, §5.2).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Literal

from kubectl_pd.lazyre import lazy
from kubectl_pd.records import dataclass

MAX_ROLES = 10
ROLE_NAME_RE = lazy(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ACCELERATOR_KEY_RE = lazy(r"^[a-z0-9]+(?:[._][a-z0-9]+)*-[a-z0-9]+(?:[-._][a-z0-9]+)*$")
KINDS = ("server", "prefill", "decode")

PD_ATOMIC = "pd-atomic"
PER_REPLICA = "per-replica"
PROFILES = (PD_ATOMIC, PER_REPLICA)


RoleRule = Literal["roles-count", "role-name", "instance-type-mismatch", "role-kind", "replicas", "accelerator-key"]
PathT = tuple[str | int, ...]


@dataclass(frozen=True)
class RoleProblem:
    rule: RoleRule
    path: PathT
    message: str


def _p(rule: RoleRule, path: tuple[str | int, ...], message: str) -> RoleProblem:
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
        base: PathT = ("spec", "roles", i)
        if not isinstance(role, dict):
            out.append(_p("role-name", base, f"spec.roles[{i}] is not a mapping"))
            continue
        out += _role_name(role.get("name"), i, names, seen)
        out += _role_kind(role.get("kind", "server"), i, kind_count)
        out += _role_replicas(role.get("replicas", 1), i)
        if "acceleratorKey" in role:
            out += _accelerator_key(role.get("acceleratorKey"), i)
    out += _mixed_kinds(roles, kind_count)
    if profile == PD_ATOMIC:
        out += _one_instance_type(roles)
    return out


def _role_name(name: Any, i: int, names: Counter[Any], seen: set[Any]) -> list[RoleProblem]:
    """role-name: present, at most 63 characters, a DNS label, and unique (`seen` holds the earlier ones)."""
    out: list[RoleProblem] = []
    path: PathT = ("spec", "roles", i, "name")
    where = f"spec.roles[{i}].name"
    if not isinstance(name, str) or not name:
        out.append(_p("role-name", path, f"{where} is required"))
    elif len(name) > 63:
        out.append(_p("role-name", path,
                      f"{where} {name!r} is {len(name)} characters: at most 63 (it names a Kueue pod set)"))
    elif not ROLE_NAME_RE.match(name):
        out.append(_p("role-name", path,
                      f"{where} {name!r} must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ "
                      f"(lowercase letters, digits and '-'; it names a Kueue pod set)"))
    if isinstance(name, str) and names[name] > 1 and name in seen:
        out.append(_p("role-name", path, f"{where} {name!r} is repeated: role names are unique"))
    seen.add(name)
    return out


def _role_kind(kind: Any, i: int, kind_count: Counter[str]) -> list[RoleProblem]:
    """role-kind: one of KINDS, and at most one prefill and one decode role (`kind_count` counts them)."""
    path: PathT = ("spec", "roles", i, "kind")
    if not isinstance(kind, str) or kind.lower() not in KINDS:
        return [_p("role-kind", path, f"spec.roles[{i}].kind {kind!r} is not one of server, prefill, decode")]
    kind_count[kind.lower()] += 1
    if kind.lower() in ("prefill", "decode") and kind_count[kind.lower()] == 2:
        return [_p("role-kind", path,
                   f"spec.roles[{i}].kind {kind!r}: a deployment has at most one {kind.lower()} role")]
    return []


def _role_replicas(replicas: Any, i: int) -> list[RoleProblem]:
    """replicas: a whole number, at least 1."""
    path: PathT = ("spec", "roles", i, "replicas")
    n = _as_int(replicas)
    if n is None:
        return [_p("replicas", path, f"spec.roles[{i}].replicas {replicas!r} is not a whole number")]
    if n < 1:
        return [_p("replicas", path, f"spec.roles[{i}].replicas is {n}: each role needs at least 1 replica")]
    return []


def _accelerator_key(key: Any, i: int) -> list[RoleProblem]:
    """accelerator-key: <manufacturer>-<model>, at most 63 characters."""
    if isinstance(key, str) and len(key) <= 63 and ACCELERATOR_KEY_RE.match(key):
        return []
    return [_p("accelerator-key", ("spec", "roles", i, "acceleratorKey"),
               f"spec.roles[{i}].acceleratorKey {key!r} must be <manufacturer>-<model> "
               f"(e.g. nvidia-h20), at most 63 characters")]


def _mixed_kinds(roles: list[Any], kind_count: Counter[str]) -> list[RoleProblem]:
    """role-kind: server roles do not mix with prefill/decode roles (reported at the first server role)."""
    if not (kind_count["server"] and (kind_count["prefill"] or kind_count["decode"])):
        return []
    idx = next(i for i, r in enumerate(roles)
               if isinstance(r, dict) and str(r.get("kind", "server")).lower() == "server")
    return [_p("role-kind", ("spec", "roles", idx, "kind"),
               "a server role cannot be mixed with prefill/decode roles: "
               "use prefill and decode roles, or server roles only")]


def _one_instance_type(roles: list[Any]) -> list[RoleProblem]:
    """instance-type-mismatch (pd-atomic): every role on the first role's instanceType."""
    out: list[RoleProblem] = []
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


# A qualified label key: an optional DNS subdomain prefix and a name (apimachinery IsQualifiedName)
LABEL_KEY_RE = lazy(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
HOSTNAME_LEVEL = "kubernetes.io/hostname"


def topology_level_problem(level: Any) -> str | None:
    """Why `roles[].topology.requiredLevel` is refused, or None: it names a configured level by its node label
    key; `kubernetes.io/hostname` is implicit and rejected as an explicit level; empty means unconstrained
    (gpustack-operator docs/modules/model-deployment/deployment.md, "Topology placement")."""
    if level is None or level == "":
        return None
    if not isinstance(level, str) or not LABEL_KEY_RE.match(level) or len(level.rpartition("/")[0]) > 253:
        return ("not a label key (an optional DNS prefix and '/', then a name of at most 63 characters)")
    if level == HOSTNAME_LEVEL:
        return (f"{HOSTNAME_LEVEL} is implicit and refused as an explicit level; omit topology for "
                "unconstrained placement")
    return None

