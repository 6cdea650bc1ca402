"""Roles, not hashes: which role a pod or pod set plays, what each pod asks for, and the pod groups."""

from __future__ import annotations

from kubectl_pd import kube
from kubectl_pd.cluster.source import Obj
from kubectl_pd.kueue.model import PodSet, to_int
from kubectl_pd.pending.meta import annotation, label
from kubectl_pd.records import dataclass, field

ROLE_HASH = "kueue.x-k8s.io/role-hash"  # the seed's design: the role name, so pod sets are named by role
TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
COMPONENT = "app.kubernetes.io/component"  # the role name on every GPUStack pod


def runnable(pod: Obj) -> bool:
    """Kueue counts runnable-or-succeeded pods: not Failed, not deleting before it got a node."""
    p = kube.pod(pod)
    return p.phase != "Failed" and not (p.deleting and not p.node_name)


@dataclass
class DeploymentRole:
    name: str
    kind: str
    replicas: int | None
    size: int
    instance_type: str | None


def md_roles(md: Obj | None) -> list[DeploymentRole]:
    out = []
    spec = (md or {}).get("spec")
    listed = spec.get("roles") if isinstance(spec, dict) else None
    for r in listed if isinstance(listed, list) else []:
        if not isinstance(r, dict) or not isinstance(r.get("name"), str):
            continue
        kind = r["kind"] if isinstance(r.get("kind"), str) else "server"
        out.append(DeploymentRole(r["name"], kind.lower(), to_int(r.get("replicas", 1)), to_int(r.get("size", 1)) or 1,
                         r.get("instanceType") if isinstance(r.get("instanceType"), str) else None))
    return out


def pod_role(pod: Obj, role_names: set[str]) -> str:
    """The role of a pod: the role-hash when it is a role name (the seed's design), else the component."""
    rh = annotation(pod, ROLE_HASH)
    if rh and rh in role_names:
        return rh
    comp = label(pod, COMPONENT)
    return comp or rh or "main"


def podset_role(ps: PodSet, pods: list[Obj], role_names: set[str]) -> str:
    """A pod set's role: its name when that is a role, else the 8-hex hash through the pods' component."""
    name = ps.name or "main"
    if name in role_names:
        return name
    for p in pods:
        if annotation(p, ROLE_HASH) == name:
            comp = label(p, COMPONENT)
            if comp:
                return comp
    comp = ps.template_labels.get(COMPONENT)
    return str(comp) if comp else name


@dataclass
class Unit:
    """One pod group (or lone Workload) and what we learned about it."""

    group: str
    pods: list[Obj]
    workload: Obj | None
    read: bool  # whether the Workload was read at all
    roles: list[str] = field(default_factory=list)  # set once, by diagnose._compose
    queue: str | None = None  # set once, by diagnose._compose


def group_want(u: Unit) -> int | None:
    counts = {to_int(annotation(p, TOTAL_COUNT)) for p in u.pods}
    counts.discard(None)
    return counts.pop() if len(counts) == 1 else None


def role_order(role: str, roles: list[DeploymentRole]) -> tuple[int, str]:
    for i, r in enumerate(roles):
        if r.name == role:
            return i, role
    return len(roles), role


def role_size(role: str, roles: list[DeploymentRole]) -> int:
    return next((r.size for r in roles if r.name == role), 1)

