"""Read what a diagnosis needs through a Source, with a bounded number of requests.

One target costs about a dozen requests whatever the namespace holds: Pods by label selector,
Workloads by a direct GET of the group name (Kueue names a group's Workload after the group),
events by field selector, queues and flavors by name. Nothing here lists every Workload. Optional
reads that RBAC refuses (events, the visibility API, cluster-scoped queues) become notes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kubectl_pd.cluster import kinds
from kubectl_pd.cluster.selectors import parse_field_selector, parse_label_selector
from kubectl_pd.cluster.source import Obj, Origin, Source, labels_of, name_of, namespace_of
from kubectl_pd.errors import ApiUnavailable, ClusterError, ForbiddenError, NotFoundError, PdError
from kubectl_pd.gpustack.names import local_queue_name
from kubectl_pd.kueue.model import cluster_queue, conditions_of, is_true, resource_flavor
from kubectl_pd.pending.meta import annotation, label
from kubectl_pd.pending.pods import unschedulable

GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
INSTANCE_LABEL = "app.kubernetes.io/instance"
APP_NAME_LABEL = "app.kubernetes.io/name"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"

MAX_GROUPS = 8  # Workload GETs for one target; more groups are reported as not read
MAX_FLAVORS = 4
MAX_CHECKS = 3
MAX_EVENT_LISTS = 2

T = TypeVar("T")

TARGET_KINDS = {
    "md": "ModelDeployment", "modeldeployment": "ModelDeployment", "modeldeployments": "ModelDeployment",
    "wl": "Workload", "workload": "Workload", "workloads": "Workload",
    "pod": "Pod", "pods": "Pod", "po": "Pod",
    "podgroup": "PodGroup", "podgroups": "PodGroup", "pg": "PodGroup",
}


@dataclass(frozen=True)
class Target:
    kind: str  # ModelDeployment | Workload | PodGroup | Pod
    name: str
    namespace: str


def parse_target(text: str) -> tuple[str, str]:
    """`NAME`, `md/NAME`, `workload/NAME`, `pod/NAME`, `podgroup/NAME` -> (kind, name)."""
    if "/" not in text:
        return "ModelDeployment", text
    head, _, name = text.partition("/")
    kind = TARGET_KINDS.get(head.lower())
    if kind is None:
        k = kinds.lookup(head)
        kind = k.kind if k is not None and k.kind in ("ModelDeployment", "Workload", "Pod") else None
    if kind is None or not name:
        raise ValueError(f"unknown target {text!r}: use NAME, md/NAME, workload/NAME, pod/NAME or podgroup/NAME")
    return kind, name


@dataclass
class Facts:
    """Everything read for one target. A dict value None means "read, does not exist"; a missing key
    means "not read" (forbidden, capped or not needed)."""

    target: Target
    deployment: Obj | None = None
    pods: list[Obj] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # group names in the order found
    workloads: dict[str, Obj | None] = field(default_factory=dict)
    local_queues: dict[str, Obj | None] = field(default_factory=dict)
    cluster_queues: dict[str, Obj | None] = field(default_factory=dict)
    flavors: dict[str, Obj | None] = field(default_factory=dict)
    checks: dict[str, Obj | None] = field(default_factory=dict)
    instance_types: dict[str, Obj | None] = field(default_factory=dict)
    namespace_obj: Obj | None = None
    events: list[Obj] = field(default_factory=list)
    pending: dict[str, Obj | None] = field(default_factory=dict)  # cq -> PendingWorkloadsSummary
    peer_queues: list[Obj] | None = field(default_factory=list)  # every ClusterQueue, when a cohort needs them
    cohorts: list[Obj] | None = field(default_factory=list)  # None = could not be read
    limit_ranges: list[Obj] = field(default_factory=list)  # the namespace's, when a Workload waits
    nodes: dict[str, list[Obj] | None] = field(default_factory=dict)  # flavor -> its nodes; None = unreadable
    notes: list[str] = field(default_factory=list)
    live: bool = False


def group_of_pod(pod: Obj) -> str | None:
    """Kueue's GetPodGroupName: a non-empty annotation wins over the label."""
    return annotation(pod, GROUP_LABEL) or label(pod, GROUP_LABEL) or None


class _Reader:
    """Wraps a Source: turns optional-read failures into notes and remembers what it read."""

    def __init__(self, source: Source, facts: Facts) -> None:
        self.source = source
        self.facts = facts

    def optional(self, what: str, fn: Callable[[], T], default: T) -> tuple[T, bool]:
        try:
            return fn(), True
        except ForbiddenError as e:
            self.facts.notes.append(f"could not read {what}: {e.message.split(': ask for')[0]}")
        except ApiUnavailable as e:
            self.facts.notes.append(f"could not read {what}: {e.message}")
        except NotFoundError:
            return default, True
        except ClusterError as e:
            self.facts.notes.append(f"could not read {what}: {e.message}")
        return default, False

    def get_into(self, table: dict[str, Obj | None], kind: str, name: str, namespace: str | None,
                 what: str) -> Obj | None:
        if name in table:
            return table[name]
        obj, ok = self.optional(what, lambda: self.source.get(kind, name, namespace), None)
        if ok:
            table[name] = obj
        return obj


def _owned_by_md(pod: Obj, md_name: str) -> bool:
    refs = (pod.get("metadata") or {}).get("ownerReferences") or []
    ctrl = [r for r in refs if isinstance(r, dict) and r.get("controller")]
    if not ctrl:
        return True
    return any(r.get("kind") == "ModelDeployment" and r.get("name") == md_name for r in ctrl)


def gather(source: Source, target: Target) -> Facts:
    """Read the target and what explains it; raise NotFoundError when the target does not exist."""
    facts = Facts(target, live=bool(getattr(source, "is_live", False)))
    rd = _Reader(source, facts)
    ns = target.namespace
    if target.kind == "ModelDeployment":
        md = source.get("ModelDeployment", target.name, ns)
        if md is None:
            raise NotFoundError(f'modeldeployment "{target.name}" not found in namespace "{ns}"')
        facts.deployment = md
        pods = source.list("Pod", ns, label_selector=f"{INSTANCE_LABEL}={target.name}")
        facts.pods = [p for p in pods if _owned_by_md(p, target.name)]
    elif target.kind in ("Workload", "PodGroup", "Pod"):
        group = target.name
        if target.kind == "Pod":
            pod = source.get("Pod", target.name, ns)
            if pod is None:
                raise NotFoundError(f'pod "{target.name}" not found in namespace "{ns}"')
            group = group_of_pod(pod) or ""
            if not group:
                facts.pods = [pod]
                _single_pod_workload(rd, pod, ns)
        if group:
            if target.kind == "Workload":
                wl = source.get("Workload", group, ns)
                if wl is None:
                    raise NotFoundError(f'workload "{target.name}" not found in namespace "{ns}"')
                facts.workloads[group] = wl
            facts.pods = source.list("Pod", ns, label_selector=f"{GROUP_LABEL}={group}")
            if target.kind == "Workload" and not facts.pods:
                facts.pods = _pods_by_owner(rd, facts.workloads[group] or {}, ns)
            if target.kind == "PodGroup":
                rd.get_into(facts.workloads, "Workload", group, ns, f'workload "{group}"')
                if not facts.pods and facts.workloads.get(group) is None:
                    raise NotFoundError(f'pod group "{group}" not found in namespace "{ns}" '
                                        f"(no pods labelled {GROUP_LABEL}={group}, no Workload)")
            if group not in facts.groups:
                facts.groups.append(group)
        md_name = next((label(p, INSTANCE_LABEL) for p in facts.pods
                        if label(p, APP_NAME_LABEL) == "model-deployment"), None)
        if md_name:
            md, _ = rd.optional(f'modeldeployment "{md_name}"', lambda: source.get("ModelDeployment", md_name, ns),
                                None)
            facts.deployment = md
    else:
        raise PdError(f"cannot diagnose a {target.kind}")
    _read_rest(rd, ns)
    return facts


def _single_pod_workload(rd: _Reader, pod: Obj, ns: str) -> None:
    uid = (pod.get("metadata") or {}).get("uid")
    if not uid:
        return
    found, _ = rd.optional("the pod's Workload",
                           lambda: rd.source.list("Workload", ns, label_selector=f"{JOB_UID_LABEL}={uid}"), [])
    for wl in found[:1]:
        rd.facts.workloads[name_of(wl)] = wl
        rd.facts.groups.append(name_of(wl))


def _pods_by_owner(rd: _Reader, wl: Obj, ns: str) -> list[Obj]:
    out = []
    refs = [r for r in (wl.get("metadata") or {}).get("ownerReferences") or []
            if isinstance(r, dict) and r.get("kind") == "Pod" and r.get("name")]
    for r in refs[:4]:
        pod, _ = rd.optional(f'pod "{r["name"]}"', lambda r=r: rd.source.get("Pod", r["name"], ns), None)
        if pod is not None:
            out.append(pod)
    return out


def _read_rest(rd: _Reader, ns: str) -> None:
    facts, source = rd.facts, rd.source
    # groups from the pods, in the order first seen (sorted by name for stable output)
    for g in sorted({g for g in (group_of_pod(p) for p in facts.pods) if g}):
        if g not in facts.groups:
            facts.groups.append(g)
    for i, g in enumerate(facts.groups):
        if g in facts.workloads:
            continue
        if i >= MAX_GROUPS:
            facts.notes.append(f"{len(facts.groups) - MAX_GROUPS} more pod groups were not read "
                               f"(at most {MAX_GROUPS} Workloads per target)")
            break
        rd.get_into(facts.workloads, "Workload", g, ns, f'workload "{g}"')

    # queues: from Workloads, pods, then the roles' InstanceTypes
    lq_names: list[str] = []
    cq_names: list[str] = []

    def add(lst: list[str], name: object) -> None:
        if isinstance(name, str) and name and name not in lst:
            lst.append(name)

    for wl in facts.workloads.values():
        if wl:
            add(lq_names, (wl.get("spec") or {}).get("queueName"))
            add(cq_names, ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue"))
    for p in facts.pods:
        add(lq_names, label(p, QUEUE_LABEL))
    md = facts.deployment
    roles = ((md or {}).get("spec") or {}).get("roles") or []
    role_types = [r.get("instanceType") for r in roles if isinstance(r, dict)]
    if md is not None and not facts.pods:
        for it in dict.fromkeys(t for t in role_types if isinstance(t, str) and t):
            obj = rd.get_into(facts.instance_types, "InstanceType", it, None, f'instancetype "{it}"')
            entrance = ((obj or {}).get("status") or {}).get("entrance")
            add(lq_names, entrance if isinstance(entrance, str) and entrance else local_queue_name(it))
            add(cq_names, it)
    for lq in lq_names[:3]:
        obj = rd.get_into(facts.local_queues, "LocalQueue", lq, ns, f'localqueue "{lq}" in "{ns}"')
        if obj is not None:
            add(cq_names, (obj.get("spec") or {}).get("clusterQueue"))
        else:
            for t in role_types:  # GPUStack: the InstanceType names the ClusterQueue
                if isinstance(t, str) and local_queue_name(t) == lq:
                    add(cq_names, t)
    needs_explaining = _needs_explaining(facts)
    for cq in cq_names[:3]:
        obj = rd.get_into(facts.cluster_queues, "ClusterQueue", cq, None, f'clusterqueue "{cq}"')
        if obj is None or not needs_explaining:
            continue
        model = cluster_queue(obj)
        for f in model.flavor_names[:MAX_FLAVORS]:
            rd.get_into(facts.flavors, "ResourceFlavor", f, None, f'resourceflavor "{f}"')
        if not _cq_active(obj):
            for c in model.admission_checks[:MAX_CHECKS]:
                rd.get_into(facts.checks, "AdmissionCheck", c, None, f'admissioncheck "{c}"')
        sel = model.namespace_selector
        if sel is not None and (sel.get("matchLabels") or sel.get("matchExpressions")) \
                and facts.namespace_obj is None:
            facts.namespace_obj, _ = rd.optional(f'namespace "{ns}"', lambda: source.get("Namespace", ns, None), None)
    _read_nodes(rd)
    if needs_explaining:
        _read_cohorts(rd)
        facts.limit_ranges, _ = rd.optional(f'limitranges in "{ns}"', lambda: source.list("LimitRange", ns), [])
        _read_events(rd, ns)
        _read_visibility(rd, ns, cq_names)


def _read_nodes(rd: _Reader) -> None:
    """Admitted, yet the scheduler refuses the Pods: the assigned flavors' nodes, one label-selected list per
    flavor (at most MAX_FLAVORS), never all nodes; a flavor without nodeLabels is not listed."""
    facts = rd.facts
    if not any(_admitted(wl) for wl in facts.workloads.values() if wl is not None):
        return
    if not any(unschedulable(p) is not None for p in facts.pods):
        return
    assigned: list[str] = []
    for wl in facts.workloads.values():
        for psa in ((((wl or {}).get("status") or {}).get("admission") or {}).get("podSetAssignments") or []):
            for f in ((psa or {}).get("flavors") or {}).values() if isinstance(psa, dict) else []:
                if isinstance(f, str) and f not in assigned:
                    assigned.append(f)
    for f in assigned[:MAX_FLAVORS]:
        flavor = rd.get_into(facts.flavors, "ResourceFlavor", f, None, f'resourceflavor "{f}"')
        labels = resource_flavor(flavor).node_labels if flavor is not None else {}
        if not labels:
            continue
        selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
        nodes, ok = rd.optional(f"the nodes of flavor {f}", lambda s=selector: rd.source.list("Node", None,
                                                                                           label_selector=s), [])
        facts.nodes[f] = nodes if ok else None


def _read_cohorts(rd: _Reader) -> None:
    """A queue in a cohort borrows from its peers: two cluster-scoped lists (ClusterQueues and Cohorts are
    few), whatever the number of Workloads. Unreadable = None, and the verdict says unknown."""
    facts = rd.facts
    if not any(((o or {}).get("spec") or {}).get("cohortName") or ((o or {}).get("spec") or {}).get("cohort")
               for o in facts.cluster_queues.values() if isinstance(o, dict)):
        return
    peers, ok = rd.optional("clusterqueues (the cohort's peers)", lambda: rd.source.list("ClusterQueue"), [])
    facts.peer_queues = peers if ok else None
    cohorts, ok = rd.optional("cohorts", lambda: rd.source.list("Cohort"), [])
    facts.cohorts = cohorts if ok else None


def _cq_active(cq: Obj) -> bool:
    return is_true(conditions_of(cq), "Active")


def _admitted(wl: Obj) -> bool:
    conds = conditions_of(wl)
    return is_true(conds, "Admitted") or is_true(conds, "Finished")


def _needs_explaining(facts: Facts) -> bool:
    if not facts.workloads and not facts.pods:
        return facts.deployment is not None
    if any(g not in facts.workloads or facts.workloads[g] is None for g in facts.groups):
        return True
    return any(wl is not None and (not _admitted(wl) or (wl.get("spec") or {}).get("active") is False)
               for wl in facts.workloads.values())


def _read_events(rd: _Reader, ns: str) -> None:
    facts = rd.facts
    names: list[str] = []
    for g in facts.groups:
        wl = facts.workloads.get(g)
        if wl is None:
            members = sorted((p for p in facts.pods if group_of_pod(p) == g),
                             key=lambda p: (str((p.get("metadata") or {}).get("creationTimestamp") or ""),
                                            name_of(p)))
            if members:
                names.append(name_of(members[0]))
        elif not _admitted(wl):
            names.append(g)
    seen: set[str] = set()
    for n in names:
        if n in seen:
            continue
        if len(seen) >= MAX_EVENT_LISTS:
            break
        seen.add(n)
        evs, ok = rd.optional(f'events in namespace "{ns}"',
                              lambda n=n: rd.source.list("Event", ns, field_selector=f"involvedObject.name={n}"), [])
        facts.events.extend(evs)
        if not ok:
            break


def _read_visibility(rd: _Reader, ns: str, cq_names: list[str]) -> None:
    facts, source = rd.facts, rd.source
    waiting = [wl for wl in facts.workloads.values() if wl is not None and not _admitted(wl)
               and not is_true(conditions_of(wl), "QuotaReserved")]
    if not waiting:
        return
    for cq in cq_names[:2]:
        if facts.cluster_queues.get(cq) is None:
            continue
        if facts.live and hasattr(source, "get_raw"):
            path = f"/apis/{kinds.VISIBILITY_GROUP}/v1beta2/clusterqueues/{cq}/pendingworkloads"
            doc, ok = rd.optional(f'the pending workloads of clusterqueue "{cq}" (visibility API)',
                                  lambda path=path: source.get_raw(path, resource="clusterqueues/pendingworkloads"),
                                  None)
            if ok:
                if doc is None:
                    facts.notes.append("the Kueue visibility API is not served: queue positions are not known")
                facts.pending[cq] = doc if isinstance(doc, dict) else None
        else:
            for doc in _snapshot_summaries(source):
                facts.pending.setdefault(cq, doc)


def _snapshot_summaries(source: Source) -> list[Obj]:
    try:
        return source.list("PendingWorkloadsSummary")
    except PdError:
        return []


# -- a Source that answers from lists read once (no-target mode) ---------------------------------------

class PrefetchedSource:
    """Answers kinds listed up front from memory; everything else once, through `inner`, then cached."""

    def __init__(self, inner: Source, prefetched: dict[str, list[Obj]]) -> None:
        self.inner = inner
        self.is_live = inner.is_live
        self.prefetched = prefetched
        self._gets: dict[tuple[str, str, str | None], Obj | None] = {}
        self._lists: dict[tuple[str, str | None, str | None, str | None], list[Obj]] = {}
        if hasattr(inner, "get_raw"):
            self.get_raw = self._get_raw  # type: ignore[method-assign]
        self._raw: dict[str, Any] = {}

    def _kind(self, kind: str) -> str:
        k = kinds.lookup(kind)
        return k.kind if k else kind

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        k = self._kind(kind)
        if k in self.prefetched:
            for o in self.prefetched[k]:
                if name_of(o) == name and (namespace is None or namespace_of(o) in (None, namespace)):
                    return o
            return None
        key = (k, name, namespace)
        if key not in self._gets:
            self._gets[key] = self.inner.get(kind, name, namespace)
        return self._gets[key]

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None) -> list[Obj]:
        k = self._kind(kind)
        if k in self.prefetched:
            lab, fld = parse_label_selector(label_selector), parse_field_selector(field_selector)
            return [o for o in self.prefetched[k]
                    if (namespace is None or namespace_of(o) in (None, namespace))
                    and lab(labels_of(o)) and fld(o)]
        key = (k, namespace, label_selector, field_selector)
        if key not in self._lists:
            self._lists[key] = self.inner.list(kind, namespace, label_selector, field_selector)
        return self._lists[key]

    def _get_raw(self, path: str, query: dict[str, Any] | None = None, **kw: Any) -> Any:
        if path not in self._raw:
            self._raw[path] = self.inner.get_raw(path, query, **kw)  # type: ignore[attr-defined]
        return self._raw[path]

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)


def _admitted_or_finished(wl: Obj) -> bool:
    return _admitted(wl) and (wl.get("spec") or {}).get("active") is not False


def gather_all(source: Source, namespace: str | None) -> tuple[list[Facts], list[str]]:
    """No TARGET: every deployment, pod group and Workload of a namespace (None = all), read once."""
    notes: list[str] = []

    def listed(kind: str, **kw: Any) -> list[Obj]:
        try:
            return source.list(kind, namespace, **kw)
        except ApiUnavailable:
            return []
        except ForbiddenError as e:
            notes.append(f"could not list {kind}s: {e.message.split(': ask for')[0]}")
            return []

    mds = listed("ModelDeployment")
    wls = listed("Workload")
    pods: dict[tuple[str | None, str], Obj] = {}
    for sel in (GROUP_LABEL, f"{APP_NAME_LABEL}=model-deployment"):
        for p in listed("Pod", label_selector=sel):
            pods[(namespace_of(p), name_of(p))] = p
    pre = PrefetchedSource(source, {"ModelDeployment": mds, "Workload": wls, "Pod": list(pods.values()),
                                    "Event": []})
    targets: list[Target] = []
    claimed: set[tuple[str | None, str]] = set()
    for md in mds:
        ns = namespace_of(md) or namespace or "default"
        targets.append(Target("ModelDeployment", name_of(md), ns))
        for p in pods.values():
            if namespace_of(p) == ns and label(p, INSTANCE_LABEL) == name_of(md):
                g = group_of_pod(p)
                if g:
                    claimed.add((ns, g))
    for p in pods.values():
        g = group_of_pod(p)
        ns = namespace_of(p) or namespace or "default"
        if g and (ns, g) not in claimed:
            claimed.add((ns, g))
            targets.append(Target("PodGroup", g, ns))
    for wl in wls:
        ns = namespace_of(wl) or namespace or "default"
        if (ns, name_of(wl)) in claimed or _admitted_or_finished(wl):
            continue
        targets.append(Target("Workload", name_of(wl), ns))
    out = []
    for t in dict.fromkeys(targets):  # a snapshot may hold the same object twice: one row each
        try:
            out.append(gather(pre, t))
        except NotFoundError:
            continue
    return out, notes
