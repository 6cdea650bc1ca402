"""Roles, not hashes: which role a pod or pod set plays, what each pod asks for, and the pod groups."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kubectl_pd import kube
from kubectl_pd.gpustack.model import ModelDeployment
from kubectl_pd.kueue.model import PodSet, Workload, to_int
from kubectl_pd.records import dataclass, field

ROLE_HASH = "kueue.x-k8s.io/role-hash"  # the seed's design: the role name, so pod sets are named by role
TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
COMPONENT = "app.kubernetes.io/component"  # the role name on every GPUStack pod
# the role as the PD frameworks name it, before the component (issue 47): a DisaggregatedSet's role (LWS v0.9.0
# api/disaggregatedset/v1), llm-d's (KServe's LLMInferenceService and llm-d's charts write it)
ROLE_LABELS = ("disaggregatedset.x-k8s.io/role", "llm-d.ai/role")
_ROLE_KEYS = (*ROLE_LABELS, COMPONENT)
Mark = tuple[str | None, str | None]  # what a Pod's role is read from: its role-hash annotation, its labelled role


def labelled_role(labels: Mapping[str, object]) -> str | None:
    """The role a framework's label names (ROLE_LABELS, then the component), None: none does."""
    for key in _ROLE_KEYS:
        v = labels.get(key)
        if isinstance(v, str) and v:
            return v
    return None


def runnable(p: kube.Pod) -> bool:
    """Kueue counts runnable-or-succeeded pods: not Failed, not deleting before it got a node."""
    return p.phase != "Failed" and not (p.deleting and not p.node_name)


@dataclass
class DeploymentRole:
    name: str
    kind: str
    replicas: int | None
    size: int
    instance_type: str | None


def md_roles(md: ModelDeployment | None) -> list[DeploymentRole]:
    out = []
    for r in md.roles if md is not None else ():
        if r.name is None:
            continue
        kind = r.kind if r.kind is not None else "server"
        out.append(DeploymentRole(r.name, kind.lower(), r.replicas, r.size or 1, r.instance_type))
    return out


def mark(pod: kube.Pod) -> Mark:
    return pod.annotations.get(ROLE_HASH), labelled_role(pod.labels)


def role_of_mark(m: Mark, role_names: set[str]) -> str:
    """The role of a pod: the role-hash when it is a role name (the seed's design), else the component."""
    rh, labelled = m
    if rh and rh in role_names:
        return rh
    return labelled or rh or "main"


def pod_role(pod: kube.Pod, role_names: set[str]) -> str:
    return role_of_mark(mark(pod), role_names)


def podset_role_of(ps: PodSet, marks: Iterable[Mark], role_names: set[str]) -> str:
    """A pod set's role: its name when that is a role, else the 8-hex hash through the pods' component."""
    name = ps.name or "main"
    if name in role_names:
        return name
    for rh, comp in marks:
        if rh == name and comp:
            return comp
    return labelled_role(ps.template_labels) or name


def podset_role(ps: PodSet, pods: list[kube.Pod], role_names: set[str]) -> str:
    return podset_role_of(ps, map(mark, pods), role_names)


@dataclass
class Unit:
    """One pod group (or lone Workload) and what we learned about it."""

    group: str
    pods: list[kube.Pod]
    workload: Workload | None
    read: bool  # whether the Workload was read at all
    roles: list[str] = field(default_factory=list)  # set once, by diagnose._compose
    queue: str | None = None  # set once, by diagnose._compose
    reads: RoleReads | None = field(default=None, repr=False, compare=False)  # made on the first question

    def _reads(self) -> RoleReads:
        reads = self.reads
        if reads is None:
            reads = self.reads = RoleReads(self.pods)
        return reads

    def mark(self, pod: kube.Pod) -> Mark:
        """The Pod's role reads (roles.mark), made once per unit."""
        hit = self._reads().pods.get(id(pod))
        return hit[1] if hit is not None else mark(pod)

    def role_of(self, pod: kube.Pod, role_names: set[str]) -> str:
        """pod_role, from the Pod's mark."""
        hit = self._reads().pods.get(id(pod))
        return role_of_mark(hit[1] if hit is not None else mark(pod), role_names)

    def podset_role(self, ps: PodSet, role_names: set[str]) -> str:
        """podset_role over the unit's Pods, from what they were read to say."""
        name = ps.name or "main"
        if name in role_names:
            return name
        reads = self._reads()
        return reads.by_hash.get(name) or reads.template_role(ps) or name


class RoleReads:
    """What a unit's roles are read from, read once: each Pod's mark, the role each role-hash names (the first of
    its Pods with a labelled role says it: podset_role's order) and each pod set's template label. A diagnosis's
    rows asked each Pod's labels 23 times (46,000 reads at 2,000 groups). Keyed by identity, the object held beside
    what was read of it, so its id is no other object's while this lives."""

    def __init__(self, pods: list[kube.Pod]) -> None:
        self.pods: dict[int, tuple[kube.Pod, Mark]] = {id(p): (p, mark(p)) for p in pods}
        self.by_hash: dict[str, str] = {}
        for _p, (rh, comp) in self.pods.values():
            if rh is not None and comp:
                self.by_hash.setdefault(rh, comp)
        self.templates: dict[int, tuple[PodSet, str | None]] = {}

    def template_role(self, ps: PodSet) -> str | None:
        hit = self.templates.get(id(ps))
        if hit is None:
            hit = self.templates[id(ps)] = (ps, labelled_role(ps.template_labels))
        return hit[1]


def group_want(u: Unit) -> int | None:
    counts = {to_int(p.annotations.get(TOTAL_COUNT)) for p in u.pods}
    counts.discard(None)
    return counts.pop() if len(counts) == 1 else None


def role_order(role: str, roles: list[DeploymentRole]) -> tuple[int, str]:
    for i, r in enumerate(roles):
        if r.name == role:
            return i, role
    return len(roles), role


def role_size(role: str, roles: list[DeploymentRole]) -> int:
    return next((r.size for r in roles if r.name == role), 1)

