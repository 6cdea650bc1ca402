"""PD414-PD416: the PD frameworks Kueue admits (issue 47): LeaderWorkerSet, DisaggregatedSet, Deployments, KServe's
LLMInferenceService. Pure: the objects, their peers and the queues at hand come in through the LintContext.

- PD414 roles-admitted-apart: Kueue builds one Workload per LWS group (leaderworkerset_reconciler.go podSets
  @v0.19.2), one per Pod of a Deployment (deployment integration, ImplicitlyEnabledFrameworkNames pod), and a
  DisaggregatedSet makes one LWS per role (LWS v0.9.0 pkg/controllers/disaggregatedset/lws_manager.go Create): no
  released Kueue keeps a deployment's prefill and decode together (Kueue PR #14833, a DisaggregatedSet integration
  behind the alpha gate DisaggregatedSetIntegration, is open and in no release).
- PD415 queue-label-not-carried: a DisaggregatedSet's LWS get the labels of `spec.roles[i].metadata`, never the
  set's own (lws_manager.go Create: `mergeLabels(config.ObjectMeta.Labels, params.Labels)`@v0.9.0); KServe puts
  an LLMInferenceService's `spec.labels` on the Pod template only (kserve llmisvc propagateDeploymentMetadata,
  label_propagation_test.go: "WorkloadSpec is pod-only"), its `metadata.labels` on the Deployments or LWS it makes.
- PD416 group-never-fits: an LWS group (Kueue's pod sets `leader` 1 and `worker` size-1, or `main` size) that no
  choice of its ClusterQueue's flavors can ever hold, in the queue's own units (kueue/resources.py).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue import resources
from kubectl_pd.kueue.model import ClusterQueue, ResourceGroup, cluster_queue, pod_requests
from kubectl_pd.kueue.quantity import format_quantity
from kubectl_pd.labels import (
    APP_NAME_LABEL,
    DS_NAME_LABEL,
    DS_ROLE_LABEL,
    INSTANCE_LABEL,
    LLMD_ROLE_LABEL,
    QUEUE_LABEL,
)
from kubectl_pd.lint.findings import Finding, ObjectRef, PathT
from kubectl_pd.records import dataclass

Obj = dict[str, Any]
FRAMEWORK_KINDS = ("LeaderWorkerSet", "DisaggregatedSet", "Deployment", "LLMInferenceService")
FIXABLE = ("DisaggregatedSet", "LLMInferenceService")  # PD415: the label moved where the framework carries it
ROLE_KEYS = (LLMD_ROLE_LABEL, DS_ROLE_LABEL, "app.kubernetes.io/component", "role")
# labels that tie the objects of one deployment together, the most specific first
GROUP_KEYS = (INSTANCE_LABEL, "app.kubernetes.io/part-of", "llm-d.ai/model", APP_NAME_LABEL, "app")
MADE_BY = ("DisaggregatedSet", "LLMInferenceService")  # an owner whose own finding speaks for what it made
KSERVE_POD_ONLY = (("spec", "labels"), ("spec", "prefill", "labels"))
ATOMIC_WAY = ("one pod group holds every role in one Workload, all admitted or none (as `kubectl pd create "
              "--target pods` writes it); no released Kueue has a DisaggregatedSet integration (Kueue PR #14833, "
              "alpha gate DisaggregatedSetIntegration, is open)")


def _d(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _labels(meta: Any) -> dict[str, str]:
    return {str(k): v for k, v in _d(_d(meta).get("labels")).items() if isinstance(v, str)}


def _queue(meta: Any) -> str | None:
    q = _labels(meta).get(QUEUE_LABEL)
    return q or None


def _name_ns(obj: Obj) -> tuple[str, str]:
    meta = _d(obj.get("metadata"))
    return str(meta.get("name") or ""), str(meta.get("namespace") or "")


def made_by_owner(obj: Obj) -> bool:
    """An LWS or Deployment a DisaggregatedSet or LLMInferenceService made: its owner's finding speaks for it."""
    meta = _d(obj.get("metadata"))
    if DS_NAME_LABEL in _labels(meta):
        return True
    return any(_d(r).get("kind") in MADE_BY for r in _l(meta.get("ownerReferences")))


def made_by_set(obj: Obj) -> bool:
    """An LWS a DisaggregatedSet made (its name label, or its owner)."""
    meta = _d(obj.get("metadata"))
    return DS_NAME_LABEL in _labels(meta) or any(_d(r).get("kind") == "DisaggregatedSet"
                                                 for r in _l(meta.get("ownerReferences")))


# -- the objects' roles, for PD414 ----------------------------------------------------------------------------------

def _pod_template_labels(obj: Obj) -> dict[str, str]:
    spec = _d(obj.get("spec"))
    if obj.get("kind") == "LeaderWorkerSet":
        lwt = _d(spec.get("leaderWorkerTemplate"))
        return {**_labels(_d(lwt.get("workerTemplate")).get("metadata")),
                **_labels(_d(lwt.get("leaderTemplate")).get("metadata"))}
    return _labels(_d(spec.get("template")).get("metadata"))


def role_of(obj: Obj) -> tuple[str, str] | None:
    """(label key, role) of an LWS or Deployment, from its own labels, else its Pods'."""
    for labels in (_labels(obj.get("metadata")), _pod_template_labels(obj)):
        for key in ROLE_KEYS:
            if labels.get(key):
                return key, labels[key]
    return None


def _group_of(obj: Obj) -> tuple[str, str] | None:
    labels = {**_pod_template_labels(obj), **_labels(obj.get("metadata"))}
    return next(((k, labels[k]) for k in GROUP_KEYS if labels.get(k)), None)


def _pd_role(role: str) -> bool:
    low = role.lower()
    return "prefill" in low or "decode" in low


@dataclass(frozen=True)
class Peer:
    """One object of a deployment whose roles are separate objects."""

    kind: str
    name: str
    role: str
    queue: str | None


def peers_of(objs: Iterable[Obj]) -> dict[tuple[str, str, str], list[Peer]]:
    """(kind, namespace, name) -> every role object of its deployment (itself included), for the LWS and Deployments
    that are roles of one deployment: the same namespace and grouping label, two or more roles, one of them prefill
    or decode. What a DisaggregatedSet or LLMInferenceService made is left to its owner."""
    groups: dict[tuple[str, str, str], list[Peer]] = {}
    for obj in objs:
        if obj.get("kind") not in ("LeaderWorkerSet", "Deployment") or made_by_owner(obj):
            continue
        role, group = role_of(obj), _group_of(obj)
        if role is None or group is None:
            continue
        name, ns = _name_ns(obj)
        groups.setdefault((ns, *group), []).append(Peer(str(obj["kind"]), name, role[1],
                                                        _queue(obj.get("metadata"))))
    out: dict[tuple[str, str, str], list[Peer]] = {}
    for (ns, _k, _v), members in groups.items():
        roles = {p.role for p in members}
        if len(roles) < 2 or not any(_pd_role(r) for r in roles) or not any(p.queue for p in members):
            continue
        for p in members:
            out[(p.kind, ns, p.name)] = members
    return out


def _apart_how(kind: str) -> str:
    if kind == "Deployment":
        return "Kueue admits a Deployment Pod by Pod (one Workload per Pod)"
    return "Kueue admits an LWS group by group (one Workload per group)"


def check_apart(obj: Obj, ref: ObjectRef, peers: Mapping[tuple[str, str, str], list[Peer]]) -> list[Finding]:
    """PD414 on one object."""
    kind = ref.kind
    if kind == "DisaggregatedSet":
        roles = [str(_d(r).get("name") or "?") for r in _l(_d(obj.get("spec")).get("roles"))]
        queued = [i for i, r in enumerate(_l(_d(obj.get("spec")).get("roles"))) if _queue(_d(r).get("metadata"))]
        if len(roles) < 2 or not queued:
            return []
        return [Finding("PD414", ref, ("spec", "roles"),
                        f"roles {', '.join(roles)} become one LeaderWorkerSet each, and Kueue admits each LWS group by "
                        f"group: one Workload per role per group, so one role can hold its quota while another "
                        f"waits and the deployment serves nothing; {ATOMIC_WAY}",
                        extra={"roles": roles, "framework": kind, "workloads": "per role per group"})]
    if kind == "LLMInferenceService":
        spec = _d(obj.get("spec"))
        if "prefill" not in spec or _queue(obj.get("metadata")) is None:
            return []
        made = "LeaderWorkerSets" if "worker" in spec else "Deployments"
        name = ref.name
        parts = ([f"{name}-kserve-mn", f"{name}-kserve-mn-prefill"] if made == "LeaderWorkerSets"
                 else [f"{name}-kserve", f"{name}-kserve-prefill"])
        return [Finding("PD414", ref, ("spec", "prefill"),
                        f"KServe makes the decode and prefill roles two {made} ({', '.join(parts)}), which Kueue "
                        f"admits apart (one Workload per {'group' if made == 'LeaderWorkerSets' else 'Pod'}): "
                        f"one role can hold its quota while the other waits; {ATOMIC_WAY}",
                        extra={"roles": ["decode", "prefill"], "framework": kind, "made": parts})]
    members = peers.get((kind, ref.namespace or "", ref.name))
    if not members:
        return []
    others = [p for p in members if (p.kind, p.name) != (kind, ref.name)]
    me = next(p for p in members if (p.kind, p.name) == (kind, ref.name))
    key = (role_of(obj) or ("", ""))[0]
    where: PathT = ("metadata", "labels", key) if key in _labels(obj.get("metadata")) else ("metadata", "name")
    said = ", ".join(f"{p.kind}/{p.name} ({p.role})" for p in others)
    return [Finding("PD414", ref, where,
                    f"role {me.role!r} of a deployment whose other roles are {said}: {_apart_how(kind)}, and each "
                    f"object is admitted on its own, so one role can hold its quota while another waits and the "
                    f"deployment serves nothing; {ATOMIC_WAY}",
                    extra={"role": me.role, "peers": [{"kind": p.kind, "name": p.name, "role": p.role}
                                                      for p in others], "framework": kind})]


# -- PD415: a queue label the framework does not carry down -----------------------------------------------------------

def check_queue_label(obj: Obj, ref: ObjectRef) -> list[Finding]:
    kind = ref.kind
    meta = obj.get("metadata")
    if kind == "DisaggregatedSet":
        q = _queue(meta)
        if q is None:
            return []
        roles = _l(_d(obj.get("spec")).get("roles"))
        missing = [str(_d(r).get("name") or i) for i, r in enumerate(roles) if _queue(_d(r).get("metadata")) is None]
        if not missing:
            return []
        return [Finding("PD415", ref, ("metadata", "labels", QUEUE_LABEL),
                        f"{QUEUE_LABEL}={q} on the DisaggregatedSet itself: each role's LeaderWorkerSet gets the "
                        f"labels of spec.roles[].metadata only, so the LeaderWorkerSets of role(s) "
                        f"{', '.join(missing)} name no queue and Kueue does not admit them through {q}; put the "
                        f"label in each role's metadata.labels",
                        extra={"queue": q, "roles": missing, "to": "spec.roles[].metadata.labels"})]
    if kind == "LLMInferenceService":
        out = []
        for path in KSERVE_POD_ONLY:
            holder: Any = obj
            for step in path:
                holder = _d(holder).get(step)
            q = _d(holder).get(QUEUE_LABEL)
            if not isinstance(q, str) or not q:
                continue
            at = ".".join(path)
            out.append(Finding("PD415", ref, (*path, QUEUE_LABEL),
                               f"{QUEUE_LABEL}={q} in {at}: KServe puts {at} on the Pods only, never on the "
                               f"Deployments or LeaderWorkerSets it makes, so Kueue's deployment and LWS integrations "
                               f"do not manage them (Kueue's pod webhook may take the Pods one by one instead); put "
                               f"the label in the LLMInferenceService's metadata.labels, which KServe copies to them",
                               extra={"queue": q, "from": at, "to": "metadata.labels"}))
        return out
    return []


def queue_label_fix(obj: Obj) -> tuple[Obj, list[str]] | None:
    """The object with its queue label where the framework carries it, and what moved; None: nothing to move, or
    two different queues named (a decision, not a rewrite)."""
    kind = obj.get("kind")
    out = copy.deepcopy(obj)
    changes: list[str] = []
    if kind == "DisaggregatedSet":
        q = _queue(obj.get("metadata"))
        if q is None:
            return None
        for i, r in enumerate(_l(_d(out.get("spec")).get("roles"))):
            if not isinstance(r, dict) or _queue(r.get("metadata")) is not None:
                continue
            meta = r.setdefault("metadata", {}) if isinstance(r.get("metadata", {}), dict) else None
            if meta is None or not isinstance(meta.setdefault("labels", {}), dict):
                return None
            meta["labels"][QUEUE_LABEL] = q
            changes.append(f"added {QUEUE_LABEL}={q} to spec.roles[{i}].metadata.labels")
        return (out, changes) if changes else None
    if kind == "LLMInferenceService":
        spec = _d(out.get("spec"))
        found: dict[str, str] = {}
        for holder, at in ((spec, "spec.labels"), (_d(spec.get("prefill")), "spec.prefill.labels")):
            labels = holder.get("labels")
            if isinstance(labels, dict) and isinstance(labels.get(QUEUE_LABEL), str) and labels[QUEUE_LABEL]:
                found[at] = labels.pop(QUEUE_LABEL)
                if not labels:
                    del holder["labels"]
        if not found:
            return None
        meta = out.setdefault("metadata", {})
        if not isinstance(meta, dict):
            return None
        have = _queue(meta)
        if len(set(found.values()) | ({have} if have else set())) != 1:
            return None
        q = next(iter(found.values()))
        if have is None:
            labels = meta.setdefault("labels", {})
            if not isinstance(labels, dict):
                return None
            labels[QUEUE_LABEL] = q
        changes.append(f"moved {QUEUE_LABEL}={q} from {' and '.join(found)} to metadata.labels")
        return out, changes
    return None


# -- PD416: an LWS group no flavor of its queue can ever hold -------------------------------------------------------

@dataclass(frozen=True)
class PodSetNeed:
    name: str
    count: int
    requests: Mapping[str, Fraction]  # per Pod


def lws_pod_sets(spec: Any) -> list[PodSetNeed]:
    """Kueue's pod sets of one LWS group (leaderworkerset_reconciler.go podSets@v0.19.2)."""
    lwt = _d(_d(spec).get("leaderWorkerTemplate"))
    size = lwt.get("size", 1)
    size = size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else 1
    worker = pod_requests(_d(_d(lwt.get("workerTemplate")).get("spec")))
    if isinstance(lwt.get("leaderTemplate"), dict):
        leader = pod_requests(_d(lwt["leaderTemplate"].get("spec")))
        return [PodSetNeed("leader", 1, leader), PodSetNeed("worker", size - 1, worker)]
    return [PodSetNeed("main", size, worker)]


def _ceiling(cq: ClusterQueue, flavor: str, resource: str) -> Fraction | None:
    """The most FLAVOR can ever hold of RESOURCE for this queue: its nominal quota, plus its borrowing limit in a
    cohort; None when it is unbounded or unknown (a cohort without a borrowing limit, an unreadable quota)."""
    q = cq.quota(flavor, resource)
    if q is None:
        return Fraction(0)
    if q.unknown:
        return None
    if cq.cohort is None:
        return q.nominal
    return None if q.borrowing_limit is None else q.nominal + q.borrowing_limit


@dataclass(frozen=True)
class NeverFits:
    resource: str
    need: Fraction  # the whole group
    most: Fraction  # the most one flavor can hold
    flavor: str


def never_fits(cq: ClusterQueue, pod_sets: list[PodSetNeed]) -> NeverFits | None:
    """The first resource group of CQ that no choice of flavors (one per pod set, as Kueue assigns them) holds; None
    when some choice may hold it, or a ceiling is unknown. Resources the queue does not cover are not judged here."""
    for group in cq.resource_groups:
        asked = [{r: q * ps.count for r, q in ps.requests.items() if r in group.covered and q > 0}
                 for ps in pod_sets]
        if not any(asked) or not group.flavors:
            continue
        verdict = _group_never_fits(cq, group, [a for a in asked if a])
        if verdict is not None:
            return verdict
    return None


def _group_never_fits(cq: ClusterQueue, group: ResourceGroup, asked: list[dict[str, Fraction]]) -> NeverFits | None:
    names = [f.name for f in group.flavors]
    ceilings = {(f, r): _ceiling(cq, f, r) for f in names for r in group.covered}
    if any(c is None for c in ceilings.values()):
        return None
    for choice in itertools.product(names, repeat=len(asked)):
        used: dict[tuple[str, str], Fraction] = {}
        for flavor, need in zip(choice, asked, strict=True):
            for r, q in need.items():
                used[(flavor, r)] = used.get((flavor, r), Fraction(0)) + q
        if all(q <= (ceilings[k] or Fraction(0)) for k, q in used.items()):
            return None
    total: dict[str, Fraction] = {}
    for need in asked:
        for r, q in need.items():
            total[r] = total.get(r, Fraction(0)) + q
    # the resource to name: the one that most outgrows the largest flavor
    def over(r: str) -> Fraction:
        most = max((ceilings[(f, r)] or Fraction(0)) for f in names)
        return total[r] / most if most else Fraction(10**18)
    r = max(sorted(total), key=over)
    flavor = max(names, key=lambda f: ceilings[(f, r)] or Fraction(0))
    return NeverFits(r, total[r], ceilings[(flavor, r)] or Fraction(0), flavor)


def amount(resource: str, q: Fraction) -> str:
    """A quantity in its resource's own unit: cards for a device count, credits (and cards) for GPUStack's keys."""
    unit = resources.unit(resource)
    if unit == resources.CARD:
        n = str(q.numerator) if q.denominator == 1 else f"{float(q):g}"
        return f"{n} {resource} ({n} card{'' if q == 1 else 's'})"
    if unit == resources.CREDIT:
        cards = resources.cards_of(resource, q) or Fraction(0)
        c = str(cards.numerator) if cards.denominator == 1 else f"{float(cards):.3g}"
        return f"{format_quantity(q, resource)} {resource} ({c} card{'' if cards == 1 else 's'} of credits)"
    return f"{format_quantity(q, resource)} {resource}"


@dataclass(frozen=True)
class QueueRead:
    """What lint knows of the queue an LWS names: the ClusterQueue (parsed), or why it is unknown (`why`)."""

    cq: ClusterQueue | None
    local_queue: str
    why: str | None = None


def check_lws_fit(ref: ObjectRef, path: PathT, spec: Any, queue: QueueRead, role: str | None = None) -> list[Finding]:
    """PD416 for one LWS (or a DisaggregatedSet's role) whose ClusterQueue was read."""
    if queue.cq is None:
        return []
    sets = lws_pod_sets(spec)
    verdict = never_fits(queue.cq, sets)
    if verdict is None:
        return []
    size = sum(ps.count for ps in sets)
    shape = " + ".join(f"{ps.count} {ps.name}" for ps in sets if ps.count)
    who = f"role {role!r}: one group" if role else "one group"
    return [Finding("PD416", ref, path,
                    f"{who} ({shape} Pods) asks {amount(verdict.resource, verdict.need)}, and the most any flavor of "
                    f"ClusterQueue {queue.cq.name} (LocalQueue {queue.local_queue}) can ever hold is "
                    f"{amount(verdict.resource, verdict.most)} (flavor {verdict.flavor}), however Kueue places its "
                    f"pod sets: Kueue never admits it; use a smaller group (size, per-Pod requests) or a larger queue",
                    extra={"resource": verdict.resource, "unit": resources.unit(verdict.resource),
                           "need": str(verdict.need), "most": str(verdict.most), "flavor": verdict.flavor,
                           "clusterQueue": queue.cq.name, "localQueue": queue.local_queue, "size": size,
                           **({"role": role} if role else {})})]


# -- one object, in its context -------------------------------------------------------------------------------------

def _lws_targets(obj: Obj) -> list[tuple[PathT, Any, str | None, str | None]]:
    """(path, LWS spec, role, LocalQueue name) of what PD416 judges: an LWS, or each role of a DisaggregatedSet
    (the queue its role's metadata carries down)."""
    if obj.get("kind") == "LeaderWorkerSet":
        if made_by_set(obj):
            return []  # judged on its DisaggregatedSet, role by role
        return [(("spec", "leaderWorkerTemplate"), _d(obj.get("spec")), None, _queue(obj.get("metadata")))]
    if obj.get("kind") == "DisaggregatedSet":
        return [(("spec", "roles", i, "spec", "leaderWorkerTemplate"), _d(_d(r).get("spec")),
                 str(_d(r).get("name") or i), _queue(_d(r).get("metadata")))
                for i, r in enumerate(_l(_d(obj.get("spec")).get("roles")))]
    return []


def queue_of(ctx: FrameworkFacts, namespace: str, local_queue: str) -> QueueRead:
    """The ClusterQueue behind NAMESPACE/LOCAL_QUEUE, as far as what was read tells."""
    lq_name = f"{namespace}/{local_queue}"
    if ctx.local_queues is None:
        return QueueRead(None, lq_name, ctx.local_queues_why or "no LocalQueue was read")
    lq = ctx.local_queues.get((namespace, local_queue))
    if lq is None:
        where = "does not exist" if ctx.live else "is not among the inputs"
        return QueueRead(None, lq_name, f"its LocalQueue {lq_name} {where}")
    cq_name = _d(lq.get("spec")).get("clusterQueue")
    if not isinstance(cq_name, str) or not cq_name:
        return QueueRead(None, lq_name, f"its LocalQueue {lq_name} names no ClusterQueue")
    cq = ctx.cluster_queues.get(cq_name)
    if cq is None:
        where = "does not exist" if ctx.live else "is not among the inputs"
        return QueueRead(None, lq_name, f"ClusterQueue {cq_name} (of LocalQueue {lq_name}) {where}")
    return QueueRead(cluster_queue(cq), lq_name)


@dataclass
class FrameworkFacts:
    """What the framework rules read beside the object: LocalQueues ((namespace, name) -> object; None when none
    was read, with `local_queues_why`), ClusterQueues by name, and the role objects of each deployment."""

    cluster_queues: Mapping[str, Obj]
    local_queues: Mapping[tuple[str, str], Obj] | None
    peers: Mapping[tuple[str, str, str], list[Peer]]
    live: bool = False
    local_queues_why: str | None = None


def check_framework(obj: Obj, ref: ObjectRef, facts: FrameworkFacts) -> list[Finding]:
    """Every PD414-PD416 finding of one LWS, DisaggregatedSet, Deployment or LLMInferenceService."""
    out = check_queue_label(obj, ref)
    out += check_apart(obj, ref, facts.peers)
    for path, spec, role, lq in _lws_targets(obj):
        if lq is not None:
            out += check_lws_fit(ref, path, spec, queue_of(facts, ref.namespace or "", lq), role)
    return out


def fit_unknown(obj: Obj, ref: ObjectRef, facts: FrameworkFacts) -> list[str]:
    """PD416 not judged for want of the queue: one line per LWS (or role) whose queue was not read."""
    out = []
    for _path, _spec, role, lq in _lws_targets(obj):
        if lq is None:
            continue
        read = queue_of(facts, ref.namespace or "", lq)
        if read.cq is None:
            out.append(f"PD416 group-never-fits{f' (role {role})' if role else ''}: {read.why}")
    return out


def needs_queue(obj: Obj) -> bool:
    """Does PD416 need a LocalQueue for this object (an LWS or a DisaggregatedSet role naming one)?"""
    return any(lq is not None for _p, _s, _r, lq in _lws_targets(obj))
