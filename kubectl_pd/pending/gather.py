"""Read what a diagnosis needs through a Source, with a bounded number of requests.

One target costs about a dozen requests whatever the namespace holds: Pods by label selector,
Workloads by a direct GET of the group name (Kueue names a group's Workload after the group),
events by field selector, queues and flavors by name. Nothing here lists every Workload. Optional
reads that RBAC refuses (events, the visibility API, cluster-scoped queues) become notes.

Reads that do not depend on each other go out together (at most cluster/prefetch.PARALLEL at a time) on a live
cluster; results are merged in a fixed order, so the output never depends on which answer came first.
A failed read that the verdict depends on (a pod group's Workload) is recorded in `Facts.incomplete`:
it is never evidence that the group is admitted or missing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_pd import kube, memo
from kubectl_pd.cluster import kinds
from kubectl_pd.cluster.admitted import read_admitted
from kubectl_pd.cluster.engine_reads import Inputs
from kubectl_pd.cluster.prefetch import INVOLVED_NAME, PrefetchedSource, together
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.slim import slimmer
from kubectl_pd.cluster.source import Obj, annotations_of, name_of, namespace_of
from kubectl_pd.errors import (
    ApiUnavailable,
    ForbiddenError,
    NotFoundError,
    PdError,
)
from kubectl_pd.gpustack.model import ModelDeployment
from kubectl_pd.gpustack.names import local_queue_name
from kubectl_pd.kueue import preempt_reads as pr
from kubectl_pd.kueue.model import (
    Snapshot,
    Workload,
    is_true,
    local_queue,
    workload,
)
from kubectl_pd.labels import (
    APP_NAME_LABEL,
    COMPONENT_INDEX,
    GROUP_LABEL,
    INSTANCE_LABEL,
    JOB_OWNER_GVK,
    JOB_OWNER_NAME,
    JOB_UID_LABEL,
    LWS_GROUP_INDEX,
    LWS_NAME_LABEL,
    MANAGED_LABEL,
    QUEUE_LABEL,
)
from kubectl_pd.pending import plan
from kubectl_pd.pending.facts import PARSE as PARSE
from kubectl_pd.pending.facts import Call as Call
from kubectl_pd.pending.facts import Facts as Facts
from kubectl_pd.pending.facts import Settled as Settled
from kubectl_pd.pending.facts import Typed as Typed
from kubectl_pd.pending.facts import group_of_pod as group_of_pod
from kubectl_pd.pending.meta import annotation, label
from kubectl_pd.pending.pods import unschedulable
from kubectl_pd.pending.reader import FactReader as _FactReader
from kubectl_pd.pending.reader import cause as _cause
from kubectl_pd.pending.reader import getter as _getter
from kubectl_pd.pending.reader import parallel as _parallel
from kubectl_pd.pending.say import Read, Say, say
from kubectl_pd.pending.target import OWNER_KINDS, IncompleteError, Target

MAX_GROUPS = 8  # Workload GETs for one target; more groups are reported as not read
MAX_FLAVORS = 4
MAX_CHECKS = 3
MAX_EVENT_LISTS = 2

if TYPE_CHECKING:
    from kubectl_pd.kueue.preempt_answer import PreemptionView

def _group_of_raw(pod: Obj) -> str | None:
    """group_of_pod of a Pod as listed, before the run parses it (gather_all's targets)."""
    return annotation(pod, GROUP_LABEL) or label(pod, GROUP_LABEL) or None


def _owned_by_md(pod: kube.Pod, md_name: str) -> bool:
    ctrl = [r for r in pod.owners if r.controller]
    if not ctrl:
        return True
    return any(r.kind == "ModelDeployment" and r.name == md_name for r in ctrl)


def gather(source: Source, target: Target, *, strict: bool = True, run: Typed | None = None,
           preempt: PreemptionView | None = None, first: Callable[[Facts], None] | None = None) -> Facts:
    """Read the target and what explains it; raise NotFoundError when the target does not exist.

    `strict`: raise IncompleteError when a read the verdict depends on failed (callers that render a
    diagnosis without looking at `Facts.incomplete`); why-pending passes False and decides itself.
    `preempt`: the run's preemption view; what its answers may read is read here too (`gather_preemption`;
    a queue in no cohort with the queue's other reads), so the diagnosis after it reads nothing.
    `first`: called once the target's Workloads and their queues are read, before what explains them: reads
    that depend only on those (MultiKueue's workers, issue 49) start then, beside this gather's next round.
    """
    facts = Facts(target, live=source.is_live)
    if run is not None:  # a run's targets share the objects they read, and so their typed records
        facts.run = run
    rd = _FactReader(source, facts, preempt)
    rd.first = first
    ns = target.namespace
    if target.kind == "ModelDeployment":
        _read_deployment(rd, target)
    elif target.kind in ("Workload", "PodGroup", "Pod"):
        _read_group(rd, target)
        _read_rest(rd, ns)
    elif target.kind in OWNER_KINDS:  # what the PD frameworks make: its Workloads as Kueue links them
        from kubectl_pd.pending import owners

        owners.read(rd, target)
        _read_rest(rd, ns)
    else:
        raise PdError(f"cannot diagnose a {target.kind}")
    if target.kind == "ModelDeployment":
        _read_rest(rd, ns)
    if preempt is not None:
        gather_preemption(source, [facts], preempt)
    if strict and facts.incomplete:
        raise IncompleteError(target, facts.incomplete)
    return facts


def _read_deployment(rd: _FactReader, target: Target) -> None:
    """The deployment and its Pods together: both are needed, and the Pods' list is cheap when it is gone."""
    source, facts, ns = rd.source, rd.facts, target.namespace
    (md_ok, md), (pods_ok, pods) = together([plan.call(source, k) for k in plan.target_reads(target.kind, target.name,
                                                                                            ns)],
                                            facts.live and _parallel(source))
    if not md_ok:
        raise md
    if md is None:
        raise NotFoundError(f'modeldeployment "{target.name}" not found in namespace "{ns}"')
    if not pods_ok:
        raise pods
    facts.deployment = facts.run.typed("ModelDeployment", md)
    facts.pods = [p for p in facts.run.pods(pods) if _owned_by_md(p, target.name)]


def _read_group(rd: _FactReader, target: Target) -> None:
    """A Workload, pod group or Pod: its group's Workload and Pods, then the deployment they belong to."""
    source, facts, ns = rd.source, rd.facts, target.namespace
    group = target.name
    if target.kind == "Pod":
        group = _read_pod(rd, target)
    if group:
        _read_group_members(rd, target, group)
    md_name = next((p.labels.get(INSTANCE_LABEL) for p in facts.pods
                    if p.labels.get(APP_NAME_LABEL) == "model-deployment"), None)
    if md_name:  # read with the group's LocalQueues (_queue_names): neither waits for the other
        rd.deployment = (Read("ModelDeployment", md_name), _getter(source, "ModelDeployment", md_name, ns), None,
                         False)


def _read_pod(rd: _FactReader, target: Target) -> str:
    """The target Pod; its group's name, or "" for a Pod of no group (its own Workload is read then)."""
    ns = target.namespace
    obj = rd.source.get("Pod", target.name, ns)
    if obj is None:
        raise NotFoundError(f'pod "{target.name}" not found in namespace "{ns}"')
    pod = rd.facts.run.parse("Pod", obj, kube.pod)
    group = group_of_pod(pod) or ""
    if not group:
        rd.facts.pods = [pod]
        _single_pod_workload(rd, pod, ns)
    return group


def _read_group_members(rd: _FactReader, target: Target, group: str) -> None:
    """The group's Workload (Kueue names it after the group) and its Pods, both at once."""
    source, facts, ns = rd.source, rd.facts, target.namespace
    (wl_ok, wl), (pods_ok, pods) = together([plan.call(source, k) for k in plan.target_reads("PodGroup", group, ns)],
                                            facts.live and _parallel(source))
    if target.kind == "Workload":
        if not wl_ok:
            raise wl
        if wl is None:
            raise NotFoundError(f'workload "{target.name}" not found in namespace "{ns}"')
        facts.workloads[group] = facts.run.parse("Workload", wl, workload)
    if not pods_ok:
        raise pods
    facts.pods = facts.run.pods(pods)
    if not facts.pods and wl_ok and isinstance(wl, dict) and not _of_one_pod(wl):  # Kueue 0.18+: named by
        facts.pods = _annotated_members(rd, wl, group, ns)  # annotation only
    if target.kind == "Workload" and not facts.pods:
        facts.pods = _pods_by_owner(rd, facts.workloads[group], ns)
    if target.kind == "PodGroup":
        obj, ok = rd._settle(Read("Workload", group), (wl_ok, wl), None, True)
        if ok:
            facts.workloads[group] = facts.run.parse("Workload", obj, workload) if obj is not None else None
        if group not in facts.workloads and not facts.pods:
            raise IncompleteError(target, facts.incomplete)
        if not facts.pods and facts.workloads.get(group) is None:
            raise NotFoundError(f'pod group "{group}" not found in namespace "{ns}" '
                                f"(no pods labelled {GROUP_LABEL}={group}, no Workload)")
    if group not in facts.groups:
        facts.groups.append(group)


def member_selector(wl: Obj) -> str:
    """A label selector that bounds the Pods of a group Kueue built itself, whose Pods carry the group's name as an
    annotation only (Kueue 0.18+, gate WorkloadIdentifierAnnotations: pod_controller.go SetPodGroupName@v0.19.2):
    an LWS group by LeaderWorkerSet's own labels (name, group index: leaderworkerset_reconciler.go setDefault@v0.19.2),
    else the labels every pod set's template carries (a StatefulSet's selector is among them), else the namespace's
    Pods Kueue manages (`kueue.x-k8s.io/managed`, on every Pod Kueue's webhooks take)."""
    ann = annotations_of(wl)
    owner, gvk = ann.get(JOB_OWNER_NAME), ann.get(JOB_OWNER_GVK)
    if isinstance(owner, str) and owner and isinstance(gvk, str) and gvk.endswith("Kind=LeaderWorkerSet"):
        index = ann.get(COMPONENT_INDEX)
        return f"{LWS_NAME_LABEL}={owner}" + (f",{LWS_GROUP_INDEX}={index}" if isinstance(index, str) and index else "")
    common: dict[str, str] | None = None
    for ps in (spec.get("podSets") if isinstance(spec := wl.get("spec"), dict) else None) or []:
        tpl = ps.get("template") if isinstance(ps, dict) else None
        meta = tpl.get("metadata") if isinstance(tpl, dict) else None
        lbls = meta.get("labels") if isinstance(meta, dict) else None
        mine = {k: v for k, v in (lbls or {}).items() if isinstance(k, str) and isinstance(v, str)
                and not k.startswith("kueue.x-k8s.io/") and _plain(v)} if isinstance(lbls, dict) else {}
        common = mine if common is None else {k: v for k, v in common.items() if mine.get(k) == v}
    if common:
        return ",".join(f"{k}={v}" for k, v in sorted(common.items()))
    return f"{MANAGED_LABEL}=true"


def _of_one_pod(wl: Obj) -> bool:
    """A Workload Kueue built for one Pod (owned by the Pod, not a group's: a group's carries
    `kueue.x-k8s.io/is-group-workload`, pod_controller.go NewGroupWorkload@v0.19.2): no group to look for."""
    meta = wl.get("metadata")
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
    return annotations_of(wl).get(IS_GROUP_WORKLOAD) != "true" and any(
        isinstance(r, dict) and r.get("kind") == "Pod" and r.get("apiVersion") == "v1" for r in refs or ())


IS_GROUP_WORKLOAD = "kueue.x-k8s.io/is-group-workload"


def _plain(value: str) -> bool:
    """A label value a selector can name as written."""
    return all(c.isalnum() or c in "-_." for c in value)


def _annotated_members(rd: _FactReader, wl: Obj, group: str, ns: str) -> list[kube.Pod]:
    """The Pods of a group no Pod labels: listed by `member_selector`, kept where Kueue's own rule names the group
    (a non-empty annotation wins over the label: group_of_pod). A refused list is a note; the Pods are unknown."""
    selector = member_selector(wl)
    nothing: list[Obj] = []
    found, _ = rd.optional(Read("Pod", namespace=ns, purpose="list"),
                           lambda: rd.source.list("Pod", ns, label_selector=selector), nothing)
    return [p for p in rd.facts.run.pods(found) if group_of_pod(p) == group]


def _single_pod_workload(rd: _FactReader, pod: kube.Pod, ns: str) -> None:
    uid = pod.uid
    if not uid:
        return
    nothing: list[Obj] = []
    found, _ = rd.optional(Read("Workload", purpose="pod-workload"),
                           lambda: rd.source.list("Workload", ns, label_selector=f"{JOB_UID_LABEL}={uid}"), nothing,
                           dependent=True)
    for wl in rd.facts.run.workloads(found[:1]):
        rd.facts.workloads[wl.name] = wl
        rd.facts.groups.append(wl.name)


def _pods_by_owner(rd: _FactReader, wl: Workload | None, ns: str) -> list[kube.Pod]:
    names = [name for kind, name, _uid in (wl.owners if wl is not None else ()) if kind == "Pod" and name]
    calls: list[Call] = [(Read("Pod", n), _getter(rd.source, "Pod", n, ns), None, False) for n in names[:4]]
    return rd.facts.run.pods([pod for pod, _ in rd.many(calls) if pod is not None])




def _read_rest(rd: _FactReader, ns: str) -> None:
    """After the target: its groups' Workloads, their queues, and (when something waits) what explains it."""
    facts = rd.facts
    _groups_from_pods(facts)
    rd.get_many(facts.workloads, "Workload", facts.groups[:MAX_GROUPS], ns, lambda g: Read("Workload", g),
                dependent=True)
    lq_names, cq_names = _queue_names(rd, ns)
    needs_explaining = _needs_explaining(facts)
    if not needs_explaining:
        _read_deferred_deployment(rd, [])
    rd.get_many(facts.cluster_queues, "ClusterQueue", cq_names[:3], None, lambda cq: Read("ClusterQueue", cq))
    if rd.first is not None:
        rd.first(facts)
    _read_nodes(rd)
    if not needs_explaining:
        _read_cohort_of_admitted(rd)
        return
    _read_explanations(rd, ns, cq_names)
    _snapshot_visibility(rd, cq_names)
    _read_retry_nodes(rd)
    _read_quota_nodes(rd)
    _read_ahead(rd)


def _read_cohort_of_admitted(rd: _FactReader) -> None:
    """An admitted group's quota bars show its cohort's figures as `queues` does (issue 46, finding 5: never the
    peers' default, which read as "none"): the peers and the Cohorts, when its queue is in a cohort."""
    calls, apply = _cohort_reads(rd)
    if calls:
        apply(rd.many(calls))


def _groups_from_pods(facts: Facts) -> None:
    """Groups from the pods, in the order first seen (sorted by name for stable output)."""
    for g in sorted({g for g in (facts.group_of(p) for p in facts.pods) if g}):
        if g not in facts.groups:
            facts.groups.append(g)
    unread = [g for g in facts.groups[MAX_GROUPS:] if g not in facts.workloads]
    if unread:
        facts.notes.append(say("note.groups-not-read", more=len(facts.groups) - MAX_GROUPS, most=MAX_GROUPS))


def _add(names: list[str], name: object) -> None:
    if isinstance(name, str) and name and name not in names:
        names.append(name)


def _role_instance_types(md: ModelDeployment | None) -> list[str | None]:
    """The deployment's roles' instanceType fields (GPUStack: an InstanceType names the ClusterQueue)."""
    return [r.instance_type for r in (md.roles if md is not None else ())]


def _queue_names(rd: _FactReader, ns: str) -> tuple[list[str], list[str]]:
    """LocalQueue and ClusterQueue names: from the Workloads, the pods, then the roles' InstanceTypes; the
    LocalQueues are read here (they name their ClusterQueue)."""
    facts = rd.facts
    lq_names: list[str] = []
    cq_names: list[str] = []
    for wl in facts.workloads.values():
        if wl is not None:
            _add(lq_names, wl.queue_name)
            _add(cq_names, wl.cluster_queue)
    for p in facts.pods:
        _add(lq_names, p.labels.get(QUEUE_LABEL))
    role_types = _role_instance_types(facts.deployment)
    if facts.deployment is not None and not facts.pods:
        _queues_of_instance_types(rd, role_types, lq_names, cq_names)
    _read_local_queues(rd, lq_names[:3], ns)
    role_types = _role_instance_types(facts.deployment)
    for lq in lq_names[:3]:
        obj = facts.local_queues.get(lq)
        if obj is not None:
            _add(cq_names, obj.cluster_queue)
            continue
        for t in role_types:  # GPUStack: the InstanceType names the ClusterQueue
            if isinstance(t, str) and local_queue_name(t) == lq:
                _add(cq_names, t)
    return lq_names, cq_names


def _read_local_queues(rd: _FactReader, names: list[str], ns: str) -> None:
    """The LocalQueues not read yet and the deployment of a group's Pods (when one waits to be read), together;
    the deployment's failure is a note before theirs, as when it was read first."""
    facts = rd.facts
    todo = [n for n in dict.fromkeys(names) if n not in facts.local_queues]
    if rd.deployment is not None and _held(rd.source, "LocalQueue", ns) and _held(rd.source, "ClusterQueue", None):
        # the queues come from the first round's sets (no request, no note): when they name their ClusterQueues,
        # the deployment is not needed to find them, and is read with what explains the target (issue 49: a
        # round less); else now, as below
        _settle_local_queues(rd, todo, rd.many([_local_queue_call(rd, n, ns) for n in todo]))
        if all(facts.local_queues.get(n) is not None for n in names):
            rd.deferred = True
            return
        _read_deferred_deployment(rd, [])
        return
    first = [rd.deployment] if rd.deployment is not None else []
    rd.deployment = None
    results = rd.many(first + [_local_queue_call(rd, n, ns) for n in todo])
    if first:
        _set_deployment(rd, results.pop(0))
    _settle_local_queues(rd, todo, results)


def _local_queue_call(rd: _FactReader, name: str, ns: str) -> Call:
    return (Read("LocalQueue", name, ns), _getter(rd.source, "LocalQueue", name, ns), None, False)


def _settle_local_queues(rd: _FactReader, todo: list[str], results: Settled) -> None:
    for n, (obj, ok) in zip(todo, results, strict=True):
        if ok:
            rd.facts.local_queues[n] = rd.facts.run.typed("LocalQueue", obj) if obj is not None else None


def _set_deployment(rd: _FactReader, result: tuple[Any, bool]) -> None:
    md, _ok = result
    rd.facts.deployment = rd.facts.run.typed("ModelDeployment", md) if md is not None else None


def _held(source: Source, kind: str, namespace: str | None) -> bool:
    """Whether reads of `kind` by name are answered from a set the first round read (pending/lookahead.py)."""
    from kubectl_pd.pending.lookahead import Lookahead

    return isinstance(source, Lookahead) and source.holds(kind, namespace)


def _read_deferred_deployment(rd: _FactReader, more: list[Call]) -> Settled:
    """The deployment of a group's Pods, when its read was deferred (`_read_local_queues`), first, with `more`."""
    if rd.deployment is None or not rd.deferred:
        return rd.many(more) if more else []
    first, rd.deployment, rd.deferred = rd.deployment, None, False
    results = rd.many([first, *more])
    _set_deployment(rd, results.pop(0))
    return results


def _queues_of_instance_types(rd: _FactReader, role_types: list[str | None], lq_names: list[str],
                              cq_names: list[str]) -> None:
    """No pods yet: each role's InstanceType gives its LocalQueue (status.entrance) and ClusterQueue."""
    facts = rd.facts
    types = list(dict.fromkeys(t for t in role_types if isinstance(t, str) and t))
    rd.get_many(facts.instance_types, "InstanceType", types, None, lambda it: Read("InstanceType", it))
    for it in types:
        obj = facts.instance_types.get(it)
        entrance = obj.entrance if obj is not None else None
        _add(lq_names, entrance or local_queue_name(it))
        _add(cq_names, it)


def _read_explanations(rd: _FactReader, ns: str, cq_names: list[str]) -> None:
    """What explains a queue (flavors, checks, the namespace), the cohort, LimitRanges, events and queue
    positions: all read together, each part settled in the order it was asked."""
    parts = [_queue_object_reads(rd, ns, cq_names), _cohort_reads(rd), _limit_range_reads(rd, ns),
             _event_reads(rd, ns), _visibility_reads(rd, cq_names), _lone_queue_preemption_reads(rd),
             _ahead_page_reads(rd, ns, cq_names)]
    results = _read_deferred_deployment(rd, [c for calls, _apply in parts for c in calls])
    at = 0
    for calls, apply in parts:
        apply(results[at:at + len(calls)])
        at += len(calls)


Part = tuple[list[Call], Callable[[Settled], None]]


def _lone_queue_preemption_reads(rd: _FactReader) -> Part:
    """What the preemption answers may read of a queue in no cohort (kueue/preempt_reads.alone: the queue
    alone decides), sent with the queue's other reads; a queue in a cohort waits for its peers
    (gather_preemption, after). Failures are the record's (a queue's code), never a note here."""
    ctx, facts = rd.preempt, rd.facts
    if ctx is None or not _assigns(facts):
        return [], lambda _r: None
    plan = pr.Plan()
    for cq in facts.cluster_queues.values():
        lone = pr.alone(cq, holders=ctx.want_holders) if cq is not None else None
        plan = plan | lone if lone is not None else plan
    config = plan.config and not ctx.has_config and ctx.known.config is None
    queues = [q for q in plan.queues if not ctx.known.has(q)]
    if not queues and not config:
        return [], lambda _r: None
    read = functools.partial(read_admitted, rd.source, queues, ctx.known, config=config, parse=facts.run.workloads)
    return [(Read("Workload", purpose="list"), read, None, False)], lambda _r: None


def _queue_object_reads(rd: _FactReader, ns: str, cq_names: list[str]) -> Part:
    facts, source = rd.facts, rd.source
    flavors: list[str] = []
    checks: list[str] = []
    wants_namespace = False
    for cq in cq_names[:3]:
        model = facts.cluster_queues.get(cq)
        if model is None:
            continue
        flavors.extend(f for f in model.flavor_names[:MAX_FLAVORS] if f not in flavors)
        if not is_true(model.conditions, "Active"):
            checks.extend(c for c in model.admission_checks[:MAX_CHECKS] if c not in checks)
        sel = model.namespace_selector
        if sel is not None and (sel.get("matchLabels") or sel.get("matchExpressions")):
            wants_namespace = True
    flavors = [f for f in flavors if f not in facts.flavors]
    checks = [c for c in checks if c not in facts.checks]
    wants_namespace = wants_namespace and facts.namespace_obj is None
    calls: list[Call] = [(Read("ResourceFlavor", f), _getter(source, "ResourceFlavor", f, None), None, False)
                         for f in flavors]
    calls += [(Read("AdmissionCheck", c), _getter(source, "AdmissionCheck", c, None), None, False) for c in checks]
    if wants_namespace:
        calls.append((Read("Namespace", ns), _getter(source, "Namespace", ns, None), None, False))

    def apply(results: Settled) -> None:
        it = iter(results)
        for name in flavors:
            obj, ok = next(it)
            if ok:
                facts.flavors[name] = facts.run.typed("ResourceFlavor", obj) if obj is not None else None
        for name in checks:
            obj, ok = next(it)
            if ok:
                facts.checks[name] = facts.run.typed("AdmissionCheck", obj) if obj is not None else None
        if wants_namespace:
            obj, _ = next(it)
            facts.namespace_obj = facts.run.typed("Namespace", obj) if obj is not None else None

    return calls, apply


def _cohort_reads(rd: _FactReader) -> Part:
    """A queue in a cohort borrows from its peers: two cluster-scoped lists, few objects; unreadable = None
    (the verdict says unknown)."""
    facts, source = rd.facts, rd.source
    if not _in_a_cohort(facts):
        return [], lambda _r: None
    calls: list[Call] = [(Read("ClusterQueue", purpose="cohort-peers"), lambda: source.list("ClusterQueue"), [], False),
                         (Read("Cohort", purpose="list"), lambda: source.list("Cohort"), [], False)]

    def apply(results: Settled) -> None:
        (peers, ok1), (cohorts, ok2) = results
        facts.peer_queues = facts.run.all("ClusterQueue", peers) if ok1 else None
        facts.cohorts = facts.run.all("Cohort", cohorts) if ok2 else None

    return calls, apply


def _limit_range_reads(rd: _FactReader, ns: str) -> Part:
    facts, source = rd.facts, rd.source

    def apply(results: Settled) -> None:
        facts.limit_ranges = [item for lr in results[0][0] for item in facts.run.typed("LimitRange", lr)]

    return [(Read("LimitRange", namespace=ns, purpose="list"), lambda: source.list("LimitRange", ns), [], False)], apply


def _event_reads(rd: _FactReader, ns: str) -> Part:
    """The events of the objects that explain the target; after a list that failed, no more are kept."""
    facts, source = rd.facts, rd.source
    calls: list[Call] = [(Read("Event", namespace=ns, purpose="events"), _event_lister(source, ns, n), [], False)
                         for n in _event_names(facts)]

    def apply(results: Settled) -> None:
        for evs, ok in results:
            facts.events.extend(facts.run.events(evs))
            if not ok:
                return

    return calls, apply


def _event_lister(source: Source, ns: str, name: str) -> Callable[[], list[Obj]]:
    return lambda: source.list("Event", ns, field_selector=f"{INVOLVED_NAME}={name}")


def _visibility_reads(rd: _FactReader, cq_names: list[str]) -> Part:
    facts = rd.facts
    vis = _visibility_calls(rd, cq_names)

    def apply(results: Settled) -> None:
        for (cq, _call), (doc, ok) in zip(vis, results, strict=True):
            if not ok:
                continue
            if doc is None:
                facts.notes.append(say("note.no-visibility"))
            facts.pending[cq] = facts.run.typed("PendingWorkloadsSummary", doc, cq) if isinstance(doc, dict) else None

    return [c for _cq, c in vis], apply


def _ahead_page_reads(rd: _FactReader, ns: str, cq_names: list[str]) -> Part:
    """Beside the visibility listing, one page of the namespace's Workloads (plan.ahead_within: the queue says it
    holds few), so the Workloads the listing puts ahead of ours are answered from it (`_read_ahead`), not read by
    name after the listing (issue 49: a third round). Only through the head start's Source over a live cluster
    (lookahead.Lookahead.within); a page that does not hold them all, or fails, is no note and answers nothing:
    the reads by name follow, as before, and say what fails."""
    from kubectl_pd.pending.lookahead import Lookahead

    source = rd.source
    if not isinstance(source, Lookahead) or not _visibility_calls(rd, cq_names) or not any(
            (cq := rd.facts.cluster_queues.get(n)) is not None and plan.ahead_within(cq.pending_workloads)
            for n in cq_names[:2]):
        return [], lambda _r: None

    def read() -> list[Obj] | None:
        try:
            return source.within("Workload", ns, plan.MOST)
        except PdError:
            return None

    def apply(results: Settled) -> None:
        objs, ok = results[0]
        if ok and isinstance(objs, list):
            rd.ahead_page = (ns, {name_of(o): o for o in objs})

    return [(Read("Workload", namespace=ns, purpose="ahead"), read, None, False)], apply


def _in_a_cohort(facts: Facts) -> bool:
    """Whether a queue read is in a cohort (then its peers and the Cohorts are read: it may borrow)."""
    return any(o.cohort for o in facts.cluster_queues.values() if o is not None)


def _assigned_flavors(wls: list[Workload]) -> list[str]:
    """The flavors of these Workloads' admissions, in order of first appearance."""
    return list(dict.fromkeys(f for wl in wls for psa in wl.admission for f in psa.flavors.values()))


def _read_flavor_nodes(rd: _FactReader, names: list[str]) -> None:
    """The nodes of each flavor (at most MAX_FLAVORS, not read before): one list selected by the flavor's
    nodeLabels, together; never all nodes, so a flavor without nodeLabels is not listed."""
    facts = rd.facts
    todo: list[tuple[str, str]] = []
    for f in names[:MAX_FLAVORS]:
        flavor = facts.flavors.get(f)
        labels = flavor.node_labels if flavor is not None else {}
        if f not in facts.nodes and labels:
            todo.append((f, ",".join(f"{k}={v}" for k, v in sorted(labels.items()))))
    calls: list[Call] = [(Read("Node", f, purpose="flavor-nodes"), _node_lister(rd.source, sel), [], False)
                         for f, sel in todo]
    for (f, _sel), (nodes, ok) in zip(todo, rd.many(calls), strict=True):
        facts.nodes[f] = facts.run.all("Node", nodes) if ok else None


def _read_nodes(rd: _FactReader) -> None:
    """Admitted, yet the scheduler refuses the Pods: the assigned flavors' nodes."""
    facts = rd.facts
    admitted = [wl for wl in facts.workloads.values() if wl is not None and _admitted(wl)]
    if not admitted or not any(unschedulable(p) is not None for p in facts.pods):
        return
    names = _assigned_flavors(admitted)[:MAX_FLAVORS]
    rd.get_many(facts.flavors, "ResourceFlavor", names, None, lambda f: Read("ResourceFlavor", f))
    _read_flavor_nodes(rd, names)


NODE_DEVICES = "gpustack-node-devices"
RETRIES_FOR_NODES = 2  # a node-devices check retried this often: its nodes' fit labels explain the loop


def _retrying(wl: Workload) -> bool:
    """GPUStack's node-devices check has answered Retry repeatedly (retryCount, or evictions by a check)."""
    checks = [c for c in wl.admission_checks if c.name == NODE_DEVICES]
    if not checks:
        return False
    retries = max((c.retry_count for c in checks), default=0)
    return max(retries, wl.evictions_by("AdmissionCheck")) >= RETRIES_FOR_NODES


def _read_retry_nodes(rd: _FactReader) -> None:
    """A node-devices retry loop: the flavors' nodes (one label-selected list each, at most MAX_FLAVORS), for
    GPUStack's per-card fit labels; the assigned flavors when quota is reserved, else the queue's."""
    facts = rd.facts
    looping = [wl for wl in facts.workloads.values() if wl is not None and not _admitted(wl) and _retrying(wl)]
    if not looping:
        return
    names = _assigned_flavors(looping) or [f for f, o in facts.flavors.items() if o is not None]
    _read_flavor_nodes(rd, names)


def _read_quota_nodes(rd: _FactReader) -> None:
    """Kueue says a pod set exceeds a flavor's maximum capacity: that flavor's Nodes (label-selected, as above), so
    the advice to raise its quota is given only where a Node could hold one Pod (issue 46, finding 8)."""
    from kubectl_pd.kueue import messages as km

    names: list[str] = []
    for wl in rd.facts.workloads.values():
        qr = wl.condition("QuotaReserved") if wl is not None and not _admitted(wl) else None
        if qr is None or qr.status != "False" or "maximum capacity" not in qr.message:
            continue
        names.extend(r.flavor for ps in km.parse_message(qr.message).pod_sets for r in ps.reasons
                     if r.kind == km.INSUFFICIENT_QUOTA and r.flavor)
    if names:
        _read_flavor_nodes(rd, list(dict.fromkeys(names)))


MAX_AHEAD = 5  # Workloads ahead of ours whose requests are read (GET each, by name)


def ahead_of_ours(facts: Facts, most: int) -> list[tuple[str, str]]:
    """(namespace, name) of the first `most` Workloads the visibility API puts before the first of ours, per
    queue, in queue order, not read yet."""
    ns = facts.target.namespace
    wanted: list[tuple[str, str]] = []
    for view in facts.pending.values():
        if view is None:
            continue
        ours = [i.position for g in dict.fromkeys(facts.groups) for i in view.by_name.get(g, ())
                if (i.namespace or ns) == ns and i.position is not None]
        if not ours:
            continue
        first = min(ours)
        for i in view.in_order:  # the queue's head first; stops at ours
            if i.position is None:
                continue
            if i.position >= first or len(wanted) >= most:
                break
            key = (i.namespace or ns, i.name or "")
            if key[1] and key not in wanted and key not in facts.ahead:
                wanted.append(key)
    return wanted


def _read_ahead(rd: _FactReader) -> None:
    """The Workloads the visibility API puts before ours: the first MAX_AHEAD, for their requests, from the page of
    the namespace's Workloads read beside the listing when it holds them (one absent from it does not exist, as
    its GET would say), else a GET of each; a refused read leaves that Workload's requests unknown (a note)."""
    facts = rd.facts
    wanted = ahead_of_ours(facts, MAX_AHEAD)
    if rd.ahead_page is not None:
        page_ns, page = rd.ahead_page
        for key in [k for k in wanted if k[0] == page_ns]:
            obj = page.get(key[1])
            facts.ahead[key] = facts.run.parse("Workload", obj, workload) if obj is not None else None
        wanted = [k for k in wanted if k[0] != page_ns]
    calls: list[Call] = [(Read("Workload", n, w, purpose="ahead"), _getter(rd.source, "Workload", n, w), None, False)
                         for w, n in wanted]
    for key, (obj, ok) in zip(wanted, rd.many(calls), strict=True):
        if ok:
            facts.ahead[key] = facts.run.parse("Workload", obj, workload) if obj is not None else None


def _admitted(wl: Workload) -> bool:
    return wl.admitted or wl.finished


def _needs_explaining(facts: Facts) -> bool:
    if not facts.workloads and not facts.pods:
        return facts.deployment is not None
    if any(g not in facts.workloads or facts.workloads[g] is None for g in facts.groups):
        return True
    return any(wl is not None and (not _admitted(wl) or not wl.active) for wl in facts.workloads.values())


def _event_names(facts: Facts) -> list[str]:
    """Objects whose events explain the target: the Workload, else the group's first Pod (bounded)."""
    names: list[str] = []
    for g in facts.groups:
        wl = facts.workloads.get(g)
        if wl is None:
            members = sorted((p for p in facts.pods if facts.group_of(p) == g), key=lambda p: (p.created, p.name))
            if members:
                names.append(members[0].name)
        elif not _admitted(wl):
            names.append(g)
    return list(dict.fromkeys(names))[:MAX_EVENT_LISTS]


def _waiting(facts: Facts) -> bool:
    return any(wl is not None and not _admitted(wl) and not wl.reserved for wl in facts.workloads.values())


def _node_lister(source: Source, selector: str) -> Callable[[], list[Obj]]:
    return lambda: source.list("Node", None, label_selector=selector)


def _raw_getter(source: Source, path: str) -> Callable[[], Any]:
    return lambda: source.get_raw(path, resource="clusterqueues/pendingworkloads")


def _visibility_calls(rd: _FactReader, cq_names: list[str]) -> list[tuple[str, Call]]:
    """The visibility API's pending workloads of each ClusterQueue, on a live cluster."""
    facts, source = rd.facts, rd.source
    if not _waiting(facts) or not facts.live:
        return []
    out: list[tuple[str, Call]] = []
    for cq in cq_names[:2]:
        if facts.cluster_queues.get(cq) is None:
            continue
        path = f"/apis/{kinds.VISIBILITY_GROUP}/v1beta2/clusterqueues/{cq}/pendingworkloads"
        out.append((cq, (Read("ClusterQueue", cq, purpose="pending-workloads"), _raw_getter(source, path), None,
                         False)))
    return out


def _snapshot_visibility(rd: _FactReader, cq_names: list[str]) -> None:
    facts = rd.facts
    if not _waiting(facts) or facts.live:
        return
    replay = _replay_of(rd.source)
    for cq in cq_names[:2]:
        if facts.cluster_queues.get(cq) is None:
            continue
        if replay is not None:
            _replayed_visibility(rd, replay, cq)
            continue
        for doc in _snapshot_summaries(rd.source):
            if cq not in facts.pending:
                facts.pending[cq] = facts.run.typed("PendingWorkloadsSummary", doc, cq)


def _replay_of(source: Source) -> Any:
    """The record of a `kubectl pd snapshot` (cluster/snapshot.Replay), when the snapshot is one."""
    replay = source.replay
    return replay if replay is not None and (replay.rows or replay.not_served) else None


def _replayed_visibility(rd: _FactReader, replay: Any, cq: str) -> None:
    """The visibility API as the snapshot read it: the summary of that queue, not served, or refused."""
    facts = rd.facts
    path = f"/apis/{kinds.VISIBILITY_GROUP}/v1beta2/clusterqueues/{cq}/pendingworkloads"

    def read() -> Obj | None:
        replay.check({"verb": "get", "path": path})
        if not replay.served(path):
            return None
        return next((d for d in _snapshot_summaries(rd.source) if name_of(d) == cq), None)

    doc, ok = rd.optional(Read("ClusterQueue", cq, purpose="pending-workloads"), read, None)
    if not ok:
        return
    if doc is None and not replay.served(path):
        facts.notes.append(say("note.no-visibility"))
        facts.pending[cq] = None
    elif doc is not None:
        facts.pending[cq] = facts.run.typed("PendingWorkloadsSummary", doc, cq)


def _snapshot_summaries(source: Source) -> list[Obj]:
    try:
        return source.list("PendingWorkloadsSummary")
    except PdError:
        return []


def _admitted_or_finished(wl: Obj, run: Typed) -> bool:
    """Typed into the run's shared records, so the target's diagnosis parses it once."""
    w = run.parse("Workload", wl, workload)
    return _admitted(w) and w.active


def gather_all(source: Source, namespace: str | None) -> tuple[list[Facts], list[Say]]:
    """No TARGET: every deployment, pod group and Workload of a namespace (None = all), read once; the
    per-namespace and per-queue reads of their diagnoses are shared (PrefetchedSource)."""
    mds, wls, pod_lists, notes, sets = _run_lists(source, namespace)
    pods: dict[tuple[str | None, str], Obj] = {}
    for listed in pod_lists:
        for p in listed:
            pods[(namespace_of(p), name_of(p))] = p
    pre = PrefetchedSource(source, {"ModelDeployment": mds, "Workload": wls, "Pod": list(pods.values())})
    for key, (ok, objs) in sets.items():  # the bounded sets read with the run's lists (issue 49): from memory now
        if ok and isinstance(objs, list):
            pre.prefetched[key[1]] = objs
    out = []
    run = Typed()  # the run's one memo: created here, held by each target's Facts, gone with them
    if namespace is None and source.is_live and not any(n.id == "note.unlisted" and n.args.get("kind") == "Workload"
                                                        for n in notes):
        run.every_workload = wls  # every Workload of the cluster: each queue's admitted ones among them
    targets = _targets(mds, wls, list(pods.values()), namespace, run)
    pre.warm(list(dict.fromkeys(namespace_of(w) or namespace or "default" for w in wls
                                if not _admitted_or_finished(w, run))), _visibility_paths(pre, wls, namespace, run))
    for t in dict.fromkeys(targets):  # a snapshot may hold the same object twice: one row each
        try:
            out.append(gather(pre, t, run=run))
        except NotFoundError:
            continue
    notes.extend(_unread_note(Read(f.kind, f.name, purpose=f.purpose), f.namespace, e) for f, e in pre.failed.items())
    return out, notes


EVERY_SETS = ("LocalQueue", "ClusterQueue", "ResourceFlavor")  # what nearly every waiting target reads by name;
# the LimitRanges and Events are read per namespace (PrefetchedSource.warm), the rest as a target needs them (the
# run's five lists and these three: one wave of cluster/prefetch.PARALLEL)


def _run_lists(source: Source, namespace: str | None) -> tuple[list[Obj], list[Obj], list[list[Obj]], list[Say],
                                                               dict[plan.Key, tuple[bool, Any]]]:
    """The run's five lists (ModelDeployments, Workloads, and Pods by three disjoint label selectors: a group's label,
    GPUStack's Pods and the Pods Kueue manages without it, whose groups Kueue 0.18+ names by annotation), sent together
    on a live cluster: the small ones come back while the Workloads' pages are read. A list that fails
    otherwise than listed in `_listed` fails the run, the first in this order. With them, from a live cluster
    that reads a set in one page (plan.pages), the bounded sets of pending/plan.py (the namespace's, or every
    namespace's, LocalQueues, the ClusterQueues and flavors, EVERY_SETS): their results by key, a failure or a set
    past one page (None) left to the reads by name."""
    asks: list[tuple[str, dict[str, Any]]] = [
        ("ModelDeployment", {}), ("Workload", {}), ("Pod", {"label_selector": GROUP_LABEL}),
        # the other two without the group's label: the first list holds those Pods (a Kueue-managed group's Pods
        # carry both labels: each Pod is sent and decoded once, not twice)
        ("Pod", {"label_selector": f"{APP_NAME_LABEL}=model-deployment,!{GROUP_LABEL}"}),
        ("Pod", {"label_selector": f"{MANAGED_LABEL}=true,!{GROUP_LABEL}"})]  # groups Kueue names by annotation (0.18+)
    notes: list[list[Say]] = [[] for _ in asks]
    keys = [k for k in plan.set_reads(namespace) if k[1] in EVERY_SETS] if source.is_live and plan.pages(source) \
        else []
    results = together([functools.partial(_listed, source, kind, namespace, notes[i], **kw)
                        for i, (kind, kw) in enumerate(asks)] + [plan.call(source, k) for k in keys], source.is_live)
    sets = dict(zip(keys, results[len(asks):], strict=True))
    results = results[:len(asks)]
    for ok, value in results:
        if not ok:
            raise value
    got = [value for _ok, value in results]
    return got[0], got[1], got[2:], [n for each in notes for n in each], sets


def _visibility_paths(pre: PrefetchedSource, wls: list[Obj], namespace: str | None, run: Typed) -> list[str]:
    """The visibility API's listing of each ClusterQueue a waiting Workload's LocalQueue names, when the sets
    hold both (read beside the Events: the targets' diagnoses ask for them, one after another)."""
    if not pre.is_live or "LocalQueue" not in pre.prefetched or "ClusterQueue" not in pre.prefetched:
        return []
    cqs: list[str] = []
    for obj in wls:
        wl = run.parse("Workload", obj, workload)
        if wl.reserved or wl.admitted or wl.finished or not wl.queue_name:
            continue
        lq = pre.get("LocalQueue", wl.queue_name, namespace_of(obj) or namespace or "default")
        cq = local_queue(lq).cluster_queue if lq is not None else None
        if cq and cq not in cqs and pre.get("ClusterQueue", cq) is not None:
            cqs.append(cq)
    return [f"/apis/{kinds.VISIBILITY_GROUP}/v1beta2/clusterqueues/{cq}/pendingworkloads" for cq in cqs]


def _unread_note(what: Read, ns: str | None, e: PdError) -> Say:
    """What a run could not read, said once for every diagnosis that needed it."""
    return say("note.run-unread", what=what, ns=ns, message=_cause(e))


def _listed(source: Source, kind: str, namespace: str | None, notes: list[Say], **kw: Any) -> list[Obj]:
    """The run's list of `kind`; from a live cluster each object is slimmed as its page arrives."""
    try:
        return source.list(kind, namespace, reduce=slimmer(source), **kw)
    except ApiUnavailable:
        return []
    except ForbiddenError as e:
        notes.append(say("note.unlisted", kind=kind, message=e.refusal))
        return []


def _targets(mds: list[Obj], wls: list[Obj], pods: list[Obj], namespace: str | None, run: Typed) -> list[Target]:
    """Deployments, then pod groups no deployment claims, then Workloads neither claims that wait."""
    targets: list[Target] = []
    claimed: set[tuple[str | None, str]] = set()
    for md in mds:
        ns = namespace_of(md) or namespace or "default"
        targets.append(Target("ModelDeployment", name_of(md), ns))
        claimed.update((ns, g) for p in pods if namespace_of(p) == ns and label(p, INSTANCE_LABEL) == name_of(md)
                       and (g := _group_of_raw(p)))
    for p in pods:
        g = _group_of_raw(p)
        ns = namespace_of(p) or namespace or "default"
        if g and (ns, g) not in claimed:
            claimed.add((ns, g))
            targets.append(Target("PodGroup", g, ns))
    for wl in wls:
        ns = namespace_of(wl) or namespace or "default"
        if (ns, name_of(wl)) not in claimed and not _admitted_or_finished(wl, run):
            targets.append(Target("Workload", name_of(wl), ns))
    return targets


# ---------------------------------------------------------------------------------------- the engine's view


def engine_snapshot(facts: Facts) -> Snapshot:
    """The admission engine's Snapshot of what was read (Snapshot.read), once per set of records: the targets of
    one run (-A) share the records they read (facts.run is the run's), so 2,000 Workloads on one queue parse that
    queue once, not 2,000 times. Found by value (memo.matched): the key is the names read, the entry keeps the
    records it was made of and a hit must hold equal ones. The preemption plan below and the diagnosis
    (pending/diagnose.snapshot_of) share it."""
    cqs, fls, peers, cohorts = facts.cluster_queues, facts.flavors, facts.peer_queues, facts.cohorts
    whole = (tuple(cqs.items()), tuple(fls.items()), None if peers is None else tuple(peers),
             None if cohorts is None else tuple(cohorts), facts.live)
    key = (tuple(cqs), tuple(fls), None if peers is None else len(peers), None if cohorts is None else len(cohorts),
           facts.live)
    return memo.matched(facts.run.snapshots, key, whole,  # read in the gather step's waves: nothing listed here
                        lambda: Inputs(cqs, fls, peers, cohorts, facts.live).snapshot(), _SNAPSHOTS)


_SNAPSHOTS = 4096  # a run's distinct engine snapshots (one past it empties the table)


# ---------------------------------------------------------------------------------------- preemption's reads


def _assigns(facts: Facts) -> bool:
    """Whether the diagnosis may work out an assignment for some Workload of the target (one not holding a
    quota reservation, or a group with none read): only then may its preemption answer read anything."""
    if not facts.groups:
        return facts.deployment is not None or bool(facts.workloads)
    return any((wl := facts.workloads.get(g)) is None or not (wl.reserved or wl.finished) for g in facts.groups) \
        or any(wl is not None and not (wl.reserved or wl.finished) for wl in facts.workloads.values())


def preemption_plan(all_facts: list[Facts], *, holders: bool) -> pr.Plan:
    """Every read the preemption answers of these targets may make (kueue/preempt_reads.plan, per ClusterQueue
    read, once per engine snapshot), and the queues named by Preempted conditions: pure, before any answer."""
    out = pr.Plan()
    seen: dict[str, list[Snapshot]] = {}  # queue -> the snapshots it was planned in (equal ones: once)
    for facts in all_facts:
        for wl in facts.workloads.values():
            named = pr.preemptor_queue(wl.conditions) if wl is not None else None
            if named is not None and named[1] is not None:
                out = out | pr.Plan((named[1],))
        if not _assigns(facts) or not any(o is not None for o in facts.cluster_queues.values()):
            continue
        snap = engine_snapshot(facts)
        for cq in facts.cluster_queues:
            if facts.cluster_queues[cq] is not None and snap not in (planned := seen.setdefault(cq, [])):
                planned.append(snap)
                out = out | pr.plan(snap, cq, holders=holders)
    return out


def gather_preemption(source: Source, all_facts: list[Facts], ctx: PreemptionView) -> None:
    """The reads the preemption answers of these targets may make (`preemption_plan`), performed now, into the
    run's closed record (`ctx.known`): the admitted Workloads of each queue not read yet and, unless
    `--kueue-config` gave it, Kueue's configuration. After this the answers read nothing."""
    plan = preemption_plan(all_facts, holders=ctx.want_holders)
    config = plan.config and not ctx.has_config and ctx.known.config is None
    queues = [q for q in plan.queues if not ctx.known.has(q)]
    run = all_facts[0].run if all_facts else None
    if run is not None and run.every_workload is not None and queues:  # -A listed every Workload already: each
        # queue's admitted ones are those the field selector would return (cluster/admitted.py: the same filter), read
        # with the run's lists, not in a round after its diagnoses' reads (issue 49)
        admitted = [a for a in map(pr.admitted_of, run.workloads(run.every_workload)) if a is not None]
        for q in queues:
            ctx.known.workloads[q] = [a for a in admitted if a.cluster_queue == q]
        queues = []
    read_admitted(source, queues, ctx.known, config=config, parse=run.workloads if run is not None else None)
