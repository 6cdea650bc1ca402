"""The PD frameworks' objects as why-pending's targets (issue 47): a LeaderWorkerSet, a DisaggregatedSet, a
Deployment, a StatefulSet, a KServe LLMInferenceService. Kueue admits none of them as one: it builds Workloads
for what they make, and this module finds those Workloads as Kueue links them, and their Pods, in waves:

1. the object (an LLMInferenceService: with the Deployments and LWS KServe names after it; a DisaggregatedSet:
   with its per-role LWS, by `disaggregatedset.x-k8s.io/name`);
2. the Workloads of each LWS and StatefulSet by `kueue.x-k8s.io/job-uid=<its uid>` (Kueue's own link:
   leaderworkerset_reconciler.go constructWorkload, statefulset_reconciler.go@v0.19.2), with their Pods by the
   object's own labels (LWS's name label; a StatefulSet's or Deployment's selector);
3. a Deployment's Workloads: one per Pod (`pod-<pod>-<hash>`, `job-uid=<Pod uid>`), all in one list by
   `job-uid in (...)`; an LWS or StatefulSet with no Workload by its uid: the namespace's Workloads, kept by
   ownerReferences (kueuectl's fallback), once.

What is read goes into the Facts as a pod group target's does: groups are the Workloads' names, a Pod's group its
Kueue group name (annotation or label) or, for a Deployment's Pod, its own Workload (`Facts.members`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_pd.cluster.prefetch import together
from kubectl_pd.cluster.source import Obj, name_of
from kubectl_pd.errors import ApiUnavailable, NotFoundError
from kubectl_pd.labels import DS_NAME_LABEL, JOB_UID_LABEL, LWS_GROUP_INDEX, LWS_NAME_LABEL
from kubectl_pd.pending.say import Read

if TYPE_CHECKING:
    from kubectl_pd import kube
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.kueue.model import Workload
    from kubectl_pd.pending.facts import Call, Facts
    from kubectl_pd.pending.model import Diagnosis
    from kubectl_pd.pending.reader import FactReader
    from kubectl_pd.pending.target import Target

POD_TEMPLATE_HASH = "pod-template-hash"  # the Deployment controller's label on each Pod (and its ReplicaSet)
UIDS_PER_LIST = 50  # a Deployment's Pods' uids named in one `job-uid in (...)` selector


def kserve_parts(name: str) -> list[tuple[str, str]]:
    """What KServe makes for an LLMInferenceService NAME (kserve pkg/controller/v1alpha2/llmisvc
    workload_single_node.go, workload_multi_node.go): its Deployments, or its LWS (multi-node)."""
    return [("Deployment", f"{name}-kserve"), ("Deployment", f"{name}-kserve-prefill"),
            ("LeaderWorkerSet", f"{name}-kserve-mn"), ("LeaderWorkerSet", f"{name}-kserve-mn-prefill")]


def probe(source: Source, name: str, namespace: str) -> tuple[list[str], list[str]]:
    """A bare NAME that names none of today's forms: a GET of each framework kind (OWNER_KINDS, in order), all in
    one wave. Returns (the kinds that hold NAME; the kinds served that do not), in order; a kind whose API is not
    served is in neither. Any other failure (RBAC) is raised: whether NAME is one of them is unknown."""
    from kubectl_pd.pending.target import OWNER_KINDS

    got = together([_getter(source, k, name, namespace) for k in OWNER_KINDS], source.is_live and source.parallel)
    found: list[str] = []
    absent: list[str] = []
    for kind, (ok, obj) in zip(OWNER_KINDS, got, strict=True):
        if ok:
            (found if obj is not None else absent).append(kind)
        elif isinstance(obj, NotFoundError):
            absent.append(kind)
        elif not isinstance(obj, ApiUnavailable):
            raise obj
    return found, absent


def read(rd: FactReader, target: Target) -> None:
    """The target and everything Kueue admits for it, into rd.facts; NotFoundError when the target is missing."""
    source, ns = rd.source, target.namespace
    runners = _runners(rd, target)
    facts = rd.facts
    # wave 2: each runner's Workloads (by job-uid) and Pods (by its own labels), together
    calls: list[tuple[str, Obj, str, Callable[[], list[Obj]]]] = []
    for kind, obj in runners:
        uid = _uid(obj)
        if kind in ("LeaderWorkerSet", "StatefulSet") and uid:
            calls.append(("workloads", obj, kind, _lister(source, "Workload", ns, f"{JOB_UID_LABEL}={uid}")))
        selector = _pod_selector(kind, obj) if target.kind != "DisaggregatedSet" else None
        if selector:
            calls.append(("pods", obj, kind, _lister(source, "Pod", ns, selector)))
    if target.kind == "DisaggregatedSet" and runners:  # every role's Pods carry the set's name label: one list
        calls.append(("pods", runners[0][1], "DisaggregatedSet",
                      _lister(source, "Pod", ns, f"{DS_NAME_LABEL}={target.name}")))
    results = together([c[3] for c in calls], facts.live and source.parallel)
    wls: dict[str, Obj] = {}
    pods: dict[str, Obj] = {}
    per_pod: dict[str, Obj] = {}  # a Deployment's Pods: one Workload each
    orphans: list[Obj] = []  # runners whose Workloads Kueue did not label with their uid
    for (what, obj, kind, _call), (ok, value) in zip(calls, results, strict=True):
        if not ok:
            rd._settle(Read("Workload" if what == "workloads" else "Pod", namespace=ns, purpose="list"),
                       (ok, value), [], what == "workloads")
            continue
        if what == "workloads":
            wls.update((name_of(w), w) for w in value)
            if not value:
                orphans.append(obj)
        else:
            pods.update((name_of(p), p) for p in value)
            if kind == "Deployment":
                per_pod.update((name_of(p), p) for p in value)
    if orphans:
        wls.update(_by_owner_references(rd, ns, orphans))
    if per_pod:
        wls.update(_pod_workloads(rd, ns, list(per_pod.values())))  # every Pod a Deployment's selector lists
    _into(facts, wls, pods)


def _runners(rd: FactReader, target: Target) -> list[tuple[str, Obj]]:
    """Wave 1: the target, and the objects Kueue builds Workloads for (LWS, StatefulSet) or whose Pods it admits
    one by one (Deployment)."""
    source, ns, name, kind = rd.source, target.namespace, target.name, target.kind
    live = rd.facts.live and source.parallel
    if kind == "LLMInferenceService":
        parts = kserve_parts(name)
        got = together([_getter(source, kind, name, ns)] + [_getter(source, k, n, ns) for k, n in parts], live)
        ok, own = got[0]
        if not ok and not isinstance(own, ApiUnavailable):
            raise own
        runners = [(k, obj) for (k, _n), (ok2, obj) in zip(parts, got[1:], strict=True) if ok2 and obj is not None]
        if (not ok or own is None) and not runners:
            raise NotFoundError(f'llminferenceservice "{name}" not found in namespace "{ns}"')
        return runners
    if kind == "DisaggregatedSet":
        (ok, obj), (lok, lws) = together([_getter(source, kind, name, ns),
                                          _lister(source, "LeaderWorkerSet", ns, f"{DS_NAME_LABEL}={name}")], live)
        if not ok:
            raise obj
        if obj is None:
            raise NotFoundError(f'disaggregatedset "{name}" not found in namespace "{ns}"')
        if not lok:
            rd._settle(Read("LeaderWorkerSet", namespace=ns, purpose="list"), (lok, lws), [], True)
            return []
        return [("LeaderWorkerSet", o) for o in sorted(lws, key=name_of)]
    obj = source.get(kind, name, ns)
    if obj is None:
        raise NotFoundError(f'{kind.lower()} "{name}" not found in namespace "{ns}"')
    return [(kind, obj)]


def _pod_selector(kind: str, obj: Obj) -> str | None:
    """The Pods of a runner, by its own labels: an LWS's name label, a Deployment's or StatefulSet's selector
    (its matchLabels; None: none to select by)."""
    if kind == "LeaderWorkerSet":
        return f"{LWS_NAME_LABEL}={name_of(obj)}"
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    sel = spec.get("selector") if isinstance(spec, dict) else None
    match = sel.get("matchLabels") if isinstance(sel, dict) else None
    if isinstance(match, dict) and match:
        return ",".join(f"{k}={v}" for k, v in sorted(match.items()) if isinstance(v, str))
    return None


def _uid(obj: Obj) -> str | None:
    meta = obj.get("metadata")
    uid = meta.get("uid") if isinstance(meta, dict) else None
    return uid if isinstance(uid, str) and uid else None


def _pod_workloads(rd: FactReader, ns: str, pods: list[Obj]) -> dict[str, Obj]:
    """A Deployment's Pods' Workloads (one each, `job-uid=<Pod uid>`): one list per UIDS_PER_LIST Pods."""
    uids = sorted({u for p in pods if (u := _uid(p))})
    chunks = [uids[i:i + UIDS_PER_LIST] for i in range(0, len(uids), UIDS_PER_LIST)]
    source = rd.source
    calls: list[Call] = [(Read("Workload", namespace=ns, purpose="list"),
              _lister(source, "Workload", ns, f"{JOB_UID_LABEL} in ({','.join(c)})"), [], True) for c in chunks]
    out: dict[str, Obj] = {}
    for found, _ok in rd.many(calls):
        out.update((name_of(w), w) for w in found)
    return out


def _by_owner_references(rd: FactReader, ns: str, owners: list[Obj]) -> dict[str, Obj]:
    """Workloads not labelled with their owner's uid (an older Kueue): the namespace's Workloads, once, kept by
    ownerReferences (kueuectl list workload --for does the same)."""
    uids = {u for o in owners if (u := _uid(o))}
    nothing: list[Obj] = []
    found, _ok = rd.optional(Read("Workload", namespace=ns, purpose="list"),
                             lambda: rd.source.list("Workload", ns), nothing, dependent=True)
    out: dict[str, Obj] = {}
    for w in found:
        meta = w.get("metadata") if isinstance(w.get("metadata"), dict) else {}
        refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
        if any(isinstance(r, dict) and r.get("uid") in uids for r in refs or ()):
            out[name_of(w)] = w
    return out


def _into(facts: Facts, wls: dict[str, Obj], pods: dict[str, Obj]) -> None:
    """The Workloads and Pods read, as the Facts of a target of many groups (pod groups' shape)."""
    from kubectl_pd.kueue.model import workload

    run = facts.run
    typed = {n: run.parse("Workload", w, workload) for n, w in sorted(wls.items())}
    facts.pods = run.pods([pods[n] for n in sorted(pods)])
    by_uid = {uid: n for n, wl in typed.items() for kind, _name, uid in wl.owners if kind == "Pod" and uid}
    for p in facts.pods:
        if p.uid and p.uid in by_uid:
            facts.members[p.name] = by_uid[p.uid]
    for n, wl in typed.items():
        facts.workloads[n] = wl
        facts.groups.append(n)


def _getter(source: Source, kind: str, name: str, ns: str) -> Callable[[], Any]:
    return lambda: source.get(kind, name, ns)


def _lister(source: Source, kind: str, ns: str, selector: str) -> Callable[[], list[Obj]]:
    return lambda: source.list(kind, ns, label_selector=selector)


# ------------------------------------------------------------------------------------------------ for other commands

def discover(source: Source, target: Target) -> Facts:
    """The target's Workloads and Pods read as why-pending reads them (`read`, its waves), for a command that
    weighs them itself (capacity): the Facts' `workloads`, `pods`, `members` and `incomplete`; nothing else is
    read. NotFoundError when the target is missing."""
    from kubectl_pd.pending.facts import Facts
    from kubectl_pd.pending.reader import FactReader

    facts = Facts(target, live=source.is_live)
    read(FactReader(source, facts), target)
    return facts


def pods_by_workload(facts: Facts) -> dict[str, list[kube.Pod]]:
    """Each Workload's Pods among those read: a Pod's Kueue group (annotation or label) or its own Workload."""
    out: dict[str, list[kube.Pod]] = {}
    for p in facts.pods:
        g = facts.group_of(p)
        if g:
            out.setdefault(g, []).append(p)
    return out


def deployment_of(pod: kube.Pod) -> str | None:
    """The Deployment a Pod belongs to: its controlling ReplicaSet's name less the `-<pod-template-hash>` the
    Deployment controller appends (both written by it on every Pod of a Deployment); None: not a Deployment's."""
    rs = next((o.name for o in pod.owners if o.kind == "ReplicaSet"), None)
    pth = pod.labels.get(POD_TEMPLATE_HASH)
    if rs and pth and rs.endswith("-" + pth):
        return rs[:-len(pth) - 1]
    return None


def runner_of(wl: Workload, pods: list[kube.Pod]) -> tuple[str, str] | None:
    """(kind, name) of the object Kueue built WL for: its LeaderWorkerSet or StatefulSet owner, or for a Pod's
    own Workload that Pod's Deployment. None: none of the frameworks' objects."""
    for kind, name, _uid in wl.owners:
        if kind in ("LeaderWorkerSet", "StatefulSet"):
            return kind, name
    own = [uid for kind, _name, uid in wl.owners if kind == "Pod"]
    if len(own) == 1:  # a Pod's own Workload (a pod group's has every member Pod as an owner)
        dep = next((d for p in pods if p.uid == own[0] and (d := deployment_of(p))), None)
        if dep:
            return "Deployment", dep
    return None


def owner_of(wl: Workload, pods: list[kube.Pod]) -> tuple[str, str] | None:
    """(kind, name) of the deployment a user made that WL belongs to: a DisaggregatedSet when its pod templates
    or Pods carry the set's name label (the set's controller writes it on each role's LWS and Pods), else
    runner_of. None: none of the frameworks' objects."""
    runner = runner_of(wl, pods)
    if runner is None:
        return None
    labels = [ps.template_labels for ps in wl.pod_sets] + [p.labels for p in pods]
    ds = next((v for ls in labels if isinstance(v := ls.get(DS_NAME_LABEL), str) and v), None)
    return ("DisaggregatedSet", ds) if ds else runner


def role_of(wl: Workload, pods: list[kube.Pod]) -> str:
    """The role WL plays in its deployment: a framework's role label on its pod templates or Pods
    (roles.labelled_role: the DisaggregatedSet's, llm-d's, the component), else the name of the object Kueue
    built it for (runner_of), else its first pod set's name."""
    from kubectl_pd.pending.roles import labelled_role

    for labels in [ps.template_labels for ps in wl.pod_sets] + [p.labels for p in pods]:
        if (role := labelled_role(labels)) is not None:
            return role
    runner = runner_of(wl, pods)
    if runner is not None:
        return runner[1]
    return wl.pod_sets[0].name if wl.pod_sets else "main"


def group_of(wl: Workload, pods: list[kube.Pod]) -> str | None:
    """Which group of its deployment WL is: the LWS group index its Pods carry; a Pod's own Workload, that Pod's
    name; None: not known."""
    idx = next((v for p in pods if (v := p.labels.get(LWS_GROUP_INDEX))), None)
    if idx is not None:
        return idx
    own = [name for kind, name, _uid in wl.owners if kind == "Pod"]
    return own[0] if len(own) == 1 else None


def as_owner(d: Diagnosis, facts: Facts) -> Diagnosis:
    """One row of the list with no TARGET (`why-pending -A`, its --watch, snapshot): a pod group or Workload that
    a PD framework's object made (an LWS's group, a DisaggregatedSet role's group, a Deployment's Pod) is shown
    as a row of that object: the target its kind and name (owner_of), `workloads` the one Workload with its role
    (role_of, as capacity names it) and group (group_of). D itself otherwise."""
    from kubectl_pd.pending.model import WorkloadRow
    from kubectl_pd.pending.target import Target

    if d.target.kind not in ("PodGroup", "Workload") or len(facts.workloads) != 1:
        return d
    wl = next(iter(facts.workloads.values()))
    if wl is None:
        return d
    owner = owner_of(wl, facts.pods)
    if owner is None:
        return d
    row = WorkloadRow(wl.name, role_of(wl, facts.pods), group_of(wl, facts.pods), wl.admitted)
    from kubectl_pd.records import replace

    return replace(d, target=Target(owner[0], owner[1], d.target.namespace), workloads=[row])
