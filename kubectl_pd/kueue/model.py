"""Kueue's objects as typed, frozen values, parsed once where they are read.

Every command reads ClusterQueues, Cohorts, ResourceFlavors, LocalQueues and Workloads through these
types (v1beta1 is already turned into v1beta2 by `normalize`). Parsing never raises: a field that is
absent takes Kueue's default, a field that is present but cannot be read is recorded as unknown, so the
admission engine can answer "unknown" instead of building a verdict on a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import cached_property
from typing import Any, TypeVar

from kubectl_pd.kueue.normalize import normalize
from kubectl_pd.kueue.quantity import try_parse
from kubectl_pd.records import dataclass, field, replace

_R = TypeVar("_R")

FlavorResource = tuple[str, str]  # (flavor, resource), Kueue's resources.FlavorResource

# Kueue v1beta2 defaults (apis/kueue/v1beta2/clusterqueue_types.go@v0.18.4)
MAY_STOP_SEARCH = "MayStopSearch"
TRY_NEXT_FLAVOR = "TryNextFlavor"
NEVER = "Never"


def _d(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _l(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def _s(x: Any) -> str | None:
    return x if isinstance(x, str) and x else None


def to_int(x: Any) -> int | None:
    """An integer field (an int, or a string of ASCII digits), else None."""
    return _int(x)


def _int(x: Any) -> int | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, str) and x.strip().lstrip("-").isascii() and x.strip().lstrip("-").isdigit():
        return int(x.strip())
    return None


@dataclass(frozen=True)
class Condition:
    type: str
    status: str  # True | False | Unknown
    reason: str = ""
    message: str = ""
    last_transition: str = ""

    @property
    def true(self) -> bool:
        return self.status == "True"


def conditions_of(obj: Any) -> Mapping[str, Condition]:
    """`status.conditions` by type; the one reader of conditions in the code base."""
    out: dict[str, Condition] = {}
    for c in _l(_d(_d(obj).get("status")).get("conditions")):
        c = _d(c)
        t = _s(c.get("type"))
        if t:
            out[t] = Condition(t, str(c.get("status") or "Unknown"), str(c.get("reason") or ""),
                               str(c.get("message") or ""), str(c.get("lastTransitionTime") or ""))
    return out


def is_true(conds: Mapping[str, Condition], t: str) -> bool:
    c = conds.get(t)
    return c is not None and c.true


@dataclass(frozen=True)
class ResourceQuota:
    """One resource of one flavor: None limits are absent (no limit); `unknown` names fields not readable."""

    name: str
    nominal: Fraction
    borrowing_limit: Fraction | None = None
    lending_limit: Fraction | None = None
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class FlavorQuotas:
    name: str
    resources: tuple[ResourceQuota, ...]

    def quota(self, resource: str) -> ResourceQuota | None:
        return next((r for r in self.resources if r.name == resource), None)


@dataclass(frozen=True)
class ResourceGroup:
    covered: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True)
class FlavorFungibility:
    when_can_borrow: str = MAY_STOP_SEARCH
    when_can_preempt: str = TRY_NEXT_FLAVOR
    preference: str | None = None  # BorrowingOverPreemption | PreemptionOverBorrowing


@dataclass(frozen=True)
class Preemption:
    within_cluster_queue: str = NEVER  # Never | LowerPriority | LowerOrNewerEqualPriority
    reclaim_within_cohort: str = NEVER  # Never | LowerPriority | Any
    borrow_within_cohort: str = NEVER  # Never | LowerPriority
    borrow_threshold: int | None = None  # borrowWithinCohort.maxPriorityThreshold


def _groups(spec: dict[str, Any]) -> tuple[ResourceGroup, ...]:
    out = []
    for rg in _l(spec.get("resourceGroups")):
        rg = _d(rg)
        covered = tuple(str(r) for r in _l(rg.get("coveredResources")) if isinstance(r, str))
        flavors = []
        for f in _l(rg.get("flavors")):
            f = _d(f)
            if not _s(f.get("name")):
                continue
            quotas = []
            for r in _l(f.get("resources")):
                r = _d(r)
                if not _s(r.get("name")):
                    continue
                unknown: list[str] = []
                nominal = try_parse(r.get("nominalQuota"))
                if nominal is None:
                    unknown.append("nominalQuota")
                limits: dict[str, Fraction | None] = {}
                for key in ("borrowingLimit", "lendingLimit"):
                    v = r.get(key)
                    limits[key] = try_parse(v) if v is not None else None
                    if v is not None and limits[key] is None:
                        unknown.append(key)
                quotas.append(ResourceQuota(r["name"], nominal if nominal is not None else Fraction(0),
                                            limits["borrowingLimit"], limits["lendingLimit"], tuple(unknown)))
            flavors.append(FlavorQuotas(f["name"], tuple(quotas)))
        out.append(ResourceGroup(covered, tuple(flavors)))
    return tuple(out)


EFFECTIVE = "status.effectiveQuotas"  # the unknown field named when a managed quota cannot be read


def _effective(obj: dict[str, Any]) -> dict[FlavorResource, dict[str, Fraction | None]] | None:
    """Dynamic quota orchestration (Kueue 0.20, alpha; CHANGELOG-0.20.md, Feature, DynamicQuotaOrchestration,
    #15283: "Kueue writes the resulting quotas to status.effectiveQuotas. Conflicting orchestrators report
    Distributed=False"): None when the object is not managed so (no `status.effectiveQuotas`, no `Distributed`
    condition); else the readable (flavor, resource) -> {nominalQuota, borrowingLimit, lendingLimit} entries, {}
    when there are none or the orchestrator reports Distributed=False.

    The entries are read in the shape of spec's flavors (`[{name, resources: [{name, nominalQuota, ...}]}]`);
    the 0.20 type was not at hand, so anything else is unreadable, and an unreadable quota is unknown (never the
    spec's figure)."""
    status = _d(obj.get("status"))
    dist = next((c for c in _l(status.get("conditions")) if _d(c).get("type") == "Distributed"), None)
    if "effectiveQuotas" not in status and dist is None:
        return None
    if dist is not None and _d(dist).get("status") == "False":
        return {}
    out: dict[FlavorResource, dict[str, Fraction | None]] = {}
    for f in _l(status.get("effectiveQuotas")):
        f = _d(f)
        for r in _l(f.get("resources")):
            r = _d(r)
            nominal = try_parse(r.get("nominalQuota"))
            if not _s(f.get("name")) or not _s(r.get("name")) or nominal is None:
                continue
            out[(f["name"], r["name"])] = {"nominalQuota": nominal, **{
                k: try_parse(r[k]) for k in ("borrowingLimit", "lendingLimit") if r.get(k) is not None}}
    return out


def _managed(groups: tuple[ResourceGroup, ...], eff: dict[FlavorResource, dict[str, Fraction | None]] | None,
             ) -> tuple[ResourceGroup, ...]:
    """The groups with the orchestrator's quotas in place of spec's; unknown where it wrote none readable."""
    if eff is None:
        return groups
    out = []
    for g in groups:
        flavors = []
        for f in g.flavors:
            quotas = []
            for q in f.resources:
                e = eff.get((f.name, q.name))
                if e is None or any(v is None for v in e.values()):
                    quotas.append(replace(q, nominal=Fraction(0), unknown=(EFFECTIVE, *q.unknown)))
                    continue
                quotas.append(replace(q, nominal=e["nominalQuota"] or Fraction(0),
                                      borrowing_limit=e.get("borrowingLimit", q.borrowing_limit),
                                      lending_limit=e.get("lendingLimit", q.lending_limit)))
            flavors.append(FlavorQuotas(f.name, tuple(quotas)))
        out.append(ResourceGroup(g.covered, tuple(flavors)))
    return tuple(out)


def _totals(status: dict[str, Any], key: str) -> tuple[dict[FlavorResource, Fraction], frozenset[FlavorResource]]:
    out: dict[FlavorResource, Fraction] = {}
    bad: set[FlavorResource] = set()
    for f in _l(status.get(key)):
        f = _d(f)
        for r in _l(f.get("resources")):
            r = _d(r)
            fr = (str(f.get("name")), str(r.get("name")))
            q = try_parse(r.get("total"))
            if q is None:
                bad.add(fr)
            else:
                out[fr] = q
    return out, frozenset(bad)


@dataclass(frozen=True)
class ClusterQueue:
    name: str
    cohort: str | None
    resource_groups: tuple[ResourceGroup, ...]
    fungibility: FlavorFungibility = FlavorFungibility()
    preemption: Preemption = Preemption()
    stop_policy: str | None = None
    admission_checks: tuple[str, ...] = ()
    namespace_selector: Mapping[str, Any] | None = None
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    namespace_selector_null: bool = False  # spec.namespaceSelector is present and null: it selects no namespace
    pending_workloads: int | None = None  # status.pendingWorkloads (None: not reported)
    admitted_workloads: int | None = None  # status.admittedWorkloads (None: not reported)
    reserving_workloads: int | None = None  # status.reservingWorkloads (None: not reported)
    fair_weight: Fraction = Fraction(1)  # spec.fairSharing.weight (Kueue's default 1)
    reserved: Mapping[FlavorResource, Fraction] = field(default_factory=dict)  # status.flavorsReservation
    admitted: Mapping[FlavorResource, Fraction] = field(default_factory=dict)  # status.flavorsUsage
    usage_unknown: frozenset[FlavorResource] = frozenset()
    unknown: tuple[str, ...] = ()  # fields present but unreadable (resourceGroups not a list, ...)

    def group_of(self, resource: str) -> ResourceGroup | None:
        return next((g for g in self.resource_groups if resource in g.covered), None)

    def quota(self, flavor: str, resource: str) -> ResourceQuota | None:
        for g in self.resource_groups:
            for f in g.flavors:
                if f.name == flavor:
                    return f.quota(resource)
        return None

    @property
    def flavor_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.name for g in self.resource_groups for f in g.flavors))

    @property
    def covered(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r for g in self.resource_groups for r in g.covered))


def cluster_queue(obj: Any) -> ClusterQueue:
    obj = normalize(_d(obj))
    spec, status = _d(obj.get("spec")), _d(obj.get("status"))
    unknown = tuple(k for k in ("resourceGroups",) if k in spec and not isinstance(spec[k], list))
    ff = _d(spec.get("flavorFungibility"))
    pre = _d(spec.get("preemption"))
    bwc = _d(pre.get("borrowWithinCohort"))
    checks = [_s(_d(c).get("name")) for c in _l(_d(spec.get("admissionChecksStrategy")).get("admissionChecks"))]
    reserved, bad_r = _totals(status, "flavorsReservation")
    admitted, _ = _totals(status, "flavorsUsage")
    return ClusterQueue(
        name=str(_d(obj.get("metadata")).get("name") or ""),
        cohort=_s(spec.get("cohortName")),
        resource_groups=_managed(_groups(spec), _effective(obj)),
        fungibility=FlavorFungibility(_s(ff.get("whenCanBorrow")) or MAY_STOP_SEARCH,
                                      _s(ff.get("whenCanPreempt")) or TRY_NEXT_FLAVOR, _s(ff.get("preference"))),
        preemption=Preemption(_s(pre.get("withinClusterQueue")) or NEVER, _s(pre.get("reclaimWithinCohort")) or NEVER,
                              _s(bwc.get("policy")) or NEVER, _int(bwc.get("maxPriorityThreshold"))),
        stop_policy=_s(spec.get("stopPolicy")),
        admission_checks=tuple(c for c in checks if c),
        namespace_selector=spec.get("namespaceSelector") if isinstance(spec.get("namespaceSelector"), dict) else None,
        conditions=conditions_of(obj),
        reserved=reserved, admitted=admitted, usage_unknown=bad_r, unknown=unknown,
        namespace_selector_null="namespaceSelector" in spec and spec["namespaceSelector"] is None,
        pending_workloads=_int(status.get("pendingWorkloads")),
        admitted_workloads=_int(status.get("admittedWorkloads")),
        reserving_workloads=_int(status.get("reservingWorkloads")),
        fair_weight=fair_weight(spec),
    )


@dataclass(frozen=True)
class Cohort:
    name: str
    parent: str | None
    resource_groups: tuple[ResourceGroup, ...] = ()
    fair_weight: Fraction = Fraction(1)  # spec.fairSharing.weight (Kueue's default 1)


def cohort_cycle(parents: Mapping[str, str | None], start: str | None) -> tuple[str, ...] | None:
    """The Cohorts from START up its parent chain until one repeats, when it does (Kueue's hierarchy.HasCycle:
    a Cohort whose chain loops, or leads into a loop, has a cycle, and Kueue keeps every ClusterQueue under it
    inactive: "cohort has a cycle"; pkg/cache/hierarchy/cycle.go:31-44, pkg/cache/scheduler/cache.go:52@v0.19.2).
    None: no cycle (the chain ends at a root, or at a Cohort no object names a parent of)."""
    seen: list[str] = []
    name = start
    while name is not None:
        if name in seen:
            return (*seen, name)
        seen.append(name)
        name = parents.get(name)
    return None


def fair_weight(spec: dict[str, Any]) -> Fraction:
    """spec.fairSharing.weight of a ClusterQueue or Cohort: Kueue's default 1 when absent (an unreadable
    weight is refused by the webhook, lint's PD406, and read as the default here)."""
    w = try_parse(_d(spec.get("fairSharing")).get("weight"))
    return Fraction(1) if w is None or w < 0 else w


def cohort(obj: Any) -> Cohort:
    obj = _d(obj)
    spec = _d(obj.get("spec"))
    return Cohort(str(_d(obj.get("metadata")).get("name") or ""), _s(spec.get("parentName")),
                  _managed(_groups(spec), _effective(obj)), fair_weight(spec))


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class Toleration:
    key: str
    operator: str  # Equal | Exists
    value: str
    effect: str  # "" = every effect


def _taints(x: Any) -> tuple[Taint, ...]:
    return tuple(Taint(str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or ""))
                 for t in map(_d, _l(x)) if t)


def tolerations(x: Any) -> tuple[Toleration, ...]:
    return tuple(Toleration(str(t.get("key") or ""), str(t.get("operator") or "Equal"), str(t.get("value") or ""),
                            str(t.get("effect") or "")) for t in map(_d, _l(x)) if t)


@dataclass(frozen=True)
class ResourceFlavor:
    name: str
    node_labels: Mapping[str, str] = field(default_factory=dict)
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    topology: str | None = None


def resource_flavor(obj: Any) -> ResourceFlavor:
    obj = _d(obj)
    spec = _d(obj.get("spec"))
    labels = {str(k): str(v) for k, v in _d(spec.get("nodeLabels")).items()}
    return ResourceFlavor(str(_d(obj.get("metadata")).get("name") or ""), labels, _taints(spec.get("nodeTaints")),
                          tolerations(spec.get("tolerations")), _s(spec.get("topologyName")))


@dataclass(frozen=True)
class LocalQueue:
    name: str
    namespace: str
    cluster_queue: str | None
    stop_policy: str | None = None
    conditions: Mapping[str, Condition] = field(default_factory=dict)


def local_queue(obj: Any) -> LocalQueue:
    obj = _d(obj)
    meta, spec = _d(obj.get("metadata")), _d(obj.get("spec"))
    return LocalQueue(str(meta.get("name") or ""), str(meta.get("namespace") or ""), _s(spec.get("clusterQueue")),
                      _s(spec.get("stopPolicy")), conditions_of(obj))


@dataclass(frozen=True)
class Requirement:
    """A node selector requirement (matchExpressions entry)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


TAS_REQUIRED = "kueue.x-k8s.io/podset-required-topology"
TAS_PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
TAS_UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
TAS_SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
TAS_SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"


@dataclass(frozen=True)
class TopologyRequest:
    """A pod set's topology request: `topologyRequest` (v1beta2) or its template's podset-*-topology
    annotations. mode: required | preferred | unconstrained | None (none asked)."""

    mode: str | None = None
    level: str | None = None
    slice_level: str | None = None
    slice_size: int | None = None


_NO_TOPOLOGY = TopologyRequest()


def topology_request(ps: Any) -> TopologyRequest:
    ps = _d(ps)
    tr = _d(ps.get("topologyRequest"))
    ann = _d(_d(_d(ps.get("template")).get("metadata")).get("annotations"))
    if not tr and not ann:  # nothing asked (most pod sets): what the reads below would make of two empty dicts
        return _NO_TOPOLOGY
    mode = level = None
    for m, key, annotation in (("required", "required", TAS_REQUIRED), ("preferred", "preferred", TAS_PREFERRED)):
        level = _s(tr.get(key)) or _s(ann.get(annotation))
        if level:
            mode = m
            break
    if mode is None and (tr.get("unconstrained") is True or ann.get(TAS_UNCONSTRAINED) == "true"):
        mode = "unconstrained"
    slice_level = _s(tr.get("podSetSliceRequiredTopology")) or _s(ann.get(TAS_SLICE_REQUIRED))
    size = (_int(tr.get("podSetSliceSize")) or _int(ann.get(TAS_SLICE_SIZE))) if slice_level else None
    return TopologyRequest(mode, level, slice_level, size)


@dataclass(frozen=True)
class PodSet:
    name: str
    count: int
    requests: Mapping[str, Fraction]  # per pod, effective (containers, init containers, overhead)
    limits: Mapping[str, Mapping[str, tuple[Fraction, Fraction]]] = field(default_factory=dict)  # container ->
    # resource -> (request, limit) where the request is above the limit
    containers: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)  # container -> requests
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: tuple[tuple[Requirement, ...], ...] | None = None  # required nodeSelectorTerms; None = none
    tolerations: tuple[Toleration, ...] = ()
    group: str | None = None  # topologyRequest.podSetGroupName
    unknown: tuple[str, ...] = ()  # resources whose request could not be read
    template_labels: Mapping[str, str] = field(default_factory=dict)
    has_template: bool = True  # false when Kueue trimmed the template (no containers)
    topology: TopologyRequest = TopologyRequest()


def _container_requests(c: dict[str, Any], bad: list[str]) -> dict[str, Fraction]:
    res = _d(c.get("resources"))
    src = dict(_d(res.get("limits")))  # the API server defaults a missing request to the limit
    src.update(_d(res.get("requests")))
    out = {}
    for k, v in src.items():
        q = try_parse(v)
        if q is None:
            bad.append(str(k))
        else:
            out[str(k)] = q
    return out


def pod_requests(spec: Any, bad: list[str] | None = None) -> dict[str, Fraction]:
    """Effective per-pod requests as Kueue counts them: containers summed, each init container (and
    restartable sidecars, which run beside the containers) as a floor, pod-level resources, overhead."""
    spec = _d(spec)
    bad = [] if bad is None else bad
    pod_level = _d(_d(spec.get("resources")).get("requests"))
    total: dict[str, Fraction] = {}
    if pod_level:
        total = _container_requests({"resources": {"requests": pod_level}}, bad)
    else:
        for c in _l(spec.get("containers")):
            for k, q in _container_requests(_d(c), bad).items():
                total[k] = total.get(k, Fraction(0)) + q
        sidecars: dict[str, Fraction] = {}
        for c in _l(spec.get("initContainers")):
            reqs = _container_requests(_d(c), bad)
            if _d(c).get("restartPolicy") == "Always":
                for k, q in reqs.items():
                    sidecars[k] = sidecars.get(k, Fraction(0)) + q
                    total[k] = total.get(k, Fraction(0)) + q
                continue
            for k, q in reqs.items():
                total[k] = max(total.get(k, Fraction(0)), q + sidecars.get(k, Fraction(0)))
    for k, v in _d(spec.get("overhead")).items():
        extra = try_parse(v)
        if extra is None:
            bad.append(str(k))
        else:
            total[str(k)] = total.get(str(k), Fraction(0)) + extra
    return total


def _limits_below_requests(spec: dict[str, Any]) -> dict[str, dict[str, tuple[Fraction, Fraction]]]:
    out: dict[str, dict[str, tuple[Fraction, Fraction]]] = {}
    for c in _l(spec.get("containers")) + _l(spec.get("initContainers")):
        c = _d(c)
        res = _d(c.get("resources"))
        for k, v in _d(res.get("requests")).items():
            lim = try_parse(_d(res.get("limits")).get(k)) if k in _d(res.get("limits")) else None
            req = try_parse(v)
            if lim is not None and req is not None and req > lim:
                out.setdefault(str(c.get("name") or "?"), {})[str(k)] = (req, lim)
    return out


def _container_table(spec: dict[str, Any]) -> dict[str, dict[str, Fraction]]:
    return {str(_d(c).get("name") or "?"): _container_requests(_d(c), [])
            for c in _l(spec.get("containers")) + _l(spec.get("initContainers"))}


def affinity_of(spec: Any) -> tuple[tuple[Requirement, ...], ...] | None:
    na = _d(_d(_d(spec).get("affinity")).get("nodeAffinity"))
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(req, dict):
        return None
    return tuple(tuple(Requirement(str(e.get("key") or ""), str(e.get("operator") or ""),
                                   tuple(str(v) for v in _l(e.get("values"))))
                       for e in map(_d, _l(_d(t).get("matchExpressions"))) if e)
                 for t in _l(req.get("nodeSelectorTerms")))


# a run's memo of what pod_set_of_spec reads of a spec (SpecMemo): the read fields' repr -> (those fields, what
# they make); a hit needs the repr and the fields equal (`==` alone takes 1 for 1.0 and True, which str() tells
# apart), so equal reads make the same records. Pods of one template share them (records are never mutated).
SpecMemo = dict[str, tuple[Any, tuple[Any, ...]]]
_CONTAINER_READS = ("name", "resources", "restartPolicy")


def _spec_reads(spec: dict[str, Any]) -> tuple[Any, ...]:
    """Every field of a pod spec that _spec_parts reads (a container that is not a mapping reads as nothing)."""
    return (tuple(tuple(c.get(f) for f in _CONTAINER_READS) if isinstance(c, dict) else None
                  for c in _l(spec.get("containers"))),
            tuple(tuple(c.get(f) for f in _CONTAINER_READS) if isinstance(c, dict) else None
                  for c in _l(spec.get("initContainers"))),
            "containers" in spec, spec.get("resources"), spec.get("overhead"), spec.get("nodeSelector"),
            spec.get("affinity"), spec.get("tolerations"))


def _spec_parts(spec: dict[str, Any]) -> tuple[Any, ...]:
    bad: list[str] = []
    reqs = pod_requests(spec, bad)
    return (reqs, _limits_below_requests(spec), _container_table(spec),
            {str(k): str(v) for k, v in _d(spec.get("nodeSelector")).items()}, affinity_of(spec),
            tolerations(spec.get("tolerations")), tuple(dict.fromkeys(bad)), bool(_l(spec.get("containers"))))


def _memo_parts(spec: dict[str, Any], memo: SpecMemo) -> tuple[Any, ...]:
    reads = _spec_reads(spec)
    text = repr(reads)
    hit = memo.get(text)
    if hit is not None and hit[0] == reads:
        return hit[1]
    parts = _spec_parts(spec)
    memo[text] = (reads, parts)
    return parts


@dataclass(frozen=True)
class TemplateMeta:
    """What a Workload's pod set says beside its template's spec: its podSetGroupName, its template's labels, its
    topology request."""

    group: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    topology: TopologyRequest | None = None


_NO_META = TemplateMeta()


def pod_set_of_spec(name: str, count: int, spec: Any, meta: TemplateMeta = _NO_META,
                    memo: SpecMemo | None = None) -> PodSet:
    """A pod set from a pod spec: what a Workload's template or a Pod of a not-yet-composed group asks;
    `memo`: the run's SpecMemo (equal specs are read once)."""
    spec = _d(spec)
    reqs, limits, containers, selector, affinity, tols, bad, has_template = (
        _spec_parts(spec) if memo is None else _memo_parts(spec, memo))
    return PodSet(name, count, reqs, limits, containers, selector, affinity, tols, meta.group, bad,
                  dict(meta.labels or {}), has_template, meta.topology or _NO_TOPOLOGY)


@dataclass(frozen=True)
class PodSetAdmission:
    name: str
    flavors: Mapping[str, str]
    count: int | None
    # resourceUsage (what Kueue charged), by resource; None when a value is not a quantity or names a resource
    # with no flavor (the preemptor then cannot count this Workload's usage)
    usage: Mapping[str, Fraction] | None = field(default_factory=dict)


@dataclass(frozen=True)
class AdmissionCheckState:
    """status.admissionChecks[] (apis/kueue/v1beta2/workload_types.go:796@v0.18.4)."""

    name: str
    state: str  # Pending | Ready | Retry | Rejected ("" when absent)
    message: str = ""
    retry_count: int = 0  # retryCount; 0 when absent or unreadable


@dataclass(frozen=True)
class RequeueState:
    """status.requeueState (workload_types.go:774@v0.18.4): how often requeued, and when next."""

    count: int | None = None
    requeue_at: str | None = None


@dataclass(frozen=True)
class Eviction:
    """status.schedulingStats.evictions[] (workload_types.go:746@v0.18.4)."""

    reason: str
    underlying_cause: str = ""
    count: int = 0


def _checks(status: dict[str, Any]) -> tuple[AdmissionCheckState, ...]:
    return tuple(AdmissionCheckState(str(c.get("name") or "?"), _s(c.get("state")) or "",
                                     str(c.get("message") or ""), _int(c.get("retryCount")) or 0)
                 for c in map(_d, _l(status.get("admissionChecks"))) if c)


def _evictions(status: dict[str, Any]) -> tuple[Eviction, ...]:
    stats = _d(status.get("schedulingStats"))
    return tuple(Eviction(str(e.get("reason") or ""), str(e.get("underlyingCause") or ""), _int(e.get("count")) or 0)
                 for e in map(_d, _l(stats.get("evictions"))) if e)


def _requeue(status: dict[str, Any]) -> RequeueState | None:
    rs = status.get("requeueState")
    if not isinstance(rs, dict):
        return None
    return RequeueState(_int(rs.get("count")), _s(rs.get("requeueAt")))


@dataclass(frozen=True)
class Workload:
    name: str
    namespace: str
    queue_name: str | None
    priority: int
    active: bool
    pod_sets: tuple[PodSet, ...]
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    cluster_queue: str | None = None  # status.admission.clusterQueue
    admission: tuple[PodSetAdmission, ...] = ()
    totals: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)  # status.resourceRequests
    reclaimable: Mapping[str, int] = field(default_factory=dict)  # status.reclaimablePods: pod set -> count
    unknown: tuple[str, ...] = ()
    uid: str | None = None
    admission_checks: tuple[AdmissionCheckState, ...] = ()
    requeue_state: RequeueState | None = None  # None = absent
    evictions: tuple[Eviction, ...] = ()  # status.schedulingStats.evictions
    owners: tuple[tuple[str, str, str], ...] = ()  # metadata.ownerReferences (kind, name, uid)
    created: str | None = None  # metadata.creationTimestamp (Kueue's queue order), as written
    labels: Mapping[str, str] = field(default_factory=dict)  # metadata.labels (the text ones)
    cluster_name: str | None = None  # status.clusterName: the MultiKueue worker that admitted it
    nominated: tuple[str, ...] = ()  # status.nominatedClusterNames: the MultiKueue workers holding a copy

    @cached_property
    def reserved(self) -> bool:
        return is_true(self.conditions, "QuotaReserved")

    @cached_property
    def admitted(self) -> bool:
        return is_true(self.conditions, "Admitted")

    @cached_property
    def finished(self) -> bool:
        return is_true(self.conditions, "Finished")

    def condition(self, t: str) -> Condition | None:
        return self.conditions.get(t)

    def evictions_by(self, reason: str) -> int:
        return sum(e.count for e in self.evictions if e.reason == reason)

    def check(self, name: str) -> AdmissionCheckState | None:
        return next((c for c in self.admission_checks if c.name == name), None)


def workload(obj: Any, specs: SpecMemo | None = None) -> Workload:
    """`specs`: the run's SpecMemo (pod_set_of_spec)."""
    obj = normalize(_d(obj))
    meta, spec, status = _d(obj.get("metadata")), _d(obj.get("spec")), _d(obj.get("status"))
    unknown = [k for k in ("spec", "status") if k in obj and not isinstance(obj[k], dict)]
    if "podSets" in spec and not isinstance(spec["podSets"], list):
        unknown.append("spec.podSets")
    pod_sets = []
    for ps in map(_d, _l(spec.get("podSets"))):
        count = _int(ps.get("count"))
        tpl = _d(ps.get("template"))
        group = _s(_d(ps.get("topologyRequest")).get("podSetGroupName"))
        said = TemplateMeta(group, _d(_d(tpl.get("metadata")).get("labels")), topology_request(ps))
        pod_sets.append(pod_set_of_spec(str(ps.get("name") or "main"), 1 if count is None else count,
                                        tpl.get("spec"), said, specs))
    adm = _d(status.get("admission"))
    admission = tuple(_pod_set_admission(a) for a in map(_d, _l(adm.get("podSetAssignments"))))
    totals = {}
    for rr in map(_d, _l(status.get("resourceRequests"))):
        resources = _d(rr.get("resources"))
        totals[str(rr.get("name") or "main")] = {str(k): q for k, v in resources.items()
                                                 if (q := try_parse(v)) is not None}
        if len(totals[str(rr.get("name") or "main")]) < len(resources):
            unknown.append("status.resourceRequests")
    reclaim = {str(r.get("name")): c for r in map(_d, _l(status.get("reclaimablePods")))
               if (c := _int(r.get("count"))) is not None}
    priority = _int(spec.get("priority"))
    return Workload(
        name=str(meta.get("name") or ""), namespace=str(meta.get("namespace") or ""),
        queue_name=_s(spec.get("queueName")), priority=priority or 0, active=spec.get("active") is not False,
        pod_sets=tuple(pod_sets), conditions=conditions_of(obj), cluster_queue=_s(adm.get("clusterQueue")),
        admission=admission, totals=totals, reclaimable=reclaim, unknown=tuple(unknown),
        uid=_s(meta.get("uid")), admission_checks=_checks(status), requeue_state=_requeue(status),
        evictions=_evictions(status), owners=_owners(meta), created=_s(meta.get("creationTimestamp")),
        labels={str(k): v for k, v in _d(meta.get("labels")).items() if isinstance(v, str)},
        cluster_name=_s(status.get("clusterName")),
        nominated=tuple(n for n in _l(status.get("nominatedClusterNames")) if isinstance(n, str) and n))


def _pod_set_admission(a: dict[str, Any]) -> PodSetAdmission:
    flavors = _d(a.get("flavors"))
    usage: dict[str, Fraction] | None = {}
    for r, v in _d(a.get("resourceUsage")).items():
        q = try_parse(v)
        if q is None or not isinstance(flavors.get(r), str) or usage is None:
            usage = None
            continue
        usage[str(r)] = q
    return PodSetAdmission(str(a.get("name") or ""), {str(k): str(v) for k, v in flavors.items()},
                           _int(a.get("count")), usage)


def _owners(meta: dict[str, Any]) -> tuple[tuple[str, str, str], ...]:
    return tuple((str(r.get("kind") or ""), str(r.get("name") or ""), str(r.get("uid") or ""))
                 for r in map(_d, _l(meta.get("ownerReferences"))) if r)


@dataclass(frozen=True)
class PendingWorkload:
    """One item of the visibility API's PendingWorkloadsSummary (positions are 0-based, as served)."""

    name: str | None
    namespace: str | None  # None: not said (the reader's namespace)
    position: int | None  # positionInClusterQueue
    local_position: int | None  # positionInLocalQueue
    priority: int | None
    local_queue: str | None


def pending_workloads(doc: Any) -> tuple[PendingWorkload, ...]:
    """The items of a PendingWorkloadsSummary, in the order served; () when `doc` holds none."""
    out = []
    for i in map(_d, _l(_d(doc).get("items"))):
        meta = _d(i.get("metadata"))
        name, ns, lq = meta.get("name"), meta.get("namespace"), i.get("localQueueName")
        out.append(PendingWorkload(name if isinstance(name, str) else None, ns if isinstance(ns, str) and ns else None,
                                   _int(i.get("positionInClusterQueue")), _int(i.get("positionInLocalQueue")),
                                   _int(i.get("priority")), lq if isinstance(lq, str) else None))
    return tuple(out)


@dataclass(frozen=True)
class PendingView:
    """A PendingWorkloadsSummary read for lookups: its items as served, by name, and in queue order."""

    items: tuple[PendingWorkload, ...]
    by_name: Mapping[str | None, tuple[PendingWorkload, ...]]
    in_order: tuple[PendingWorkload, ...]  # by position (an item without one first), stable


def pending_view(doc: Any) -> PendingView:
    """`pending_workloads(doc)` with its lookups. The thousands of diagnoses of one run share the summary
    their queue's read returned (up to 1,000 items): the run makes the view once per summary object
    (pending/gather.Typed, where gather receives it)."""
    items = pending_workloads(doc)
    by_name: dict[str | None, list[PendingWorkload]] = {}
    for i in items:
        by_name.setdefault(i.name, []).append(i)
    return PendingView(items, {k: tuple(v) for k, v in by_name.items()},
                       tuple(sorted(items, key=lambda i: i.position or 0)))


MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"  # kueue.MultiKueueControllerName (apis/kueue/v1beta2@v0.19.2)


@dataclass(frozen=True)
class AdmissionCheck:
    """An AdmissionCheck, the one model every command reads (why-pending, MultiKueue): its conditions (Active says
    why a queue is inactive), its controller, and the MultiKueueConfig its parameters name
    (apis/kueue/v1beta2/admissioncheck_types.go@v0.19.2: spec.controllerName, spec.parameters)."""

    name: str
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    controller: str = ""
    config: str | None = None  # spec.parameters.name when its kind is MultiKueueConfig

    @property
    def active(self) -> Condition | None:
        return self.conditions.get("Active")

    @property
    def multikueue(self) -> bool:
        return self.controller == MULTIKUEUE_CONTROLLER


def admission_check(obj: Any) -> AdmissionCheck:
    obj = _d(obj)
    spec = _d(obj.get("spec"))
    params = _d(spec.get("parameters"))
    config = str(params["name"]) if params.get("kind") == "MultiKueueConfig" and params.get("name") else None
    return AdmissionCheck(str(_d(obj.get("metadata")).get("name") or ""), conditions_of(obj),
                          str(spec.get("controllerName") or ""), config)


@dataclass(frozen=True)
class LimitRangeItem:
    type: str  # Container | Pod
    max: Mapping[str, Fraction]


def limit_range(obj: Any) -> tuple[LimitRangeItem, ...]:
    spec = _d(_d(obj).get("spec"))
    return tuple(LimitRangeItem(str(i.get("type") or ""), {str(k): q for k, v in _d(i.get("max")).items()
                                                            if (q := try_parse(v)) is not None})
                 for i in map(_d, _l(spec.get("limits"))))


@dataclass(frozen=True)
class Snapshot:
    """The cluster-scoped Kueue objects admission depends on. A flavor in `missing_flavors` was looked
    up and does not exist; one in neither map was not read (does not exist when `flavors_complete`).
    Cohort peers are every ClusterQueue of the map; `peers_complete` says whether that is all of them."""

    cluster_queues: Mapping[str, ClusterQueue] = field(default_factory=dict)
    cohorts: Mapping[str, Cohort] = field(default_factory=dict)
    flavors: Mapping[str, ResourceFlavor] = field(default_factory=dict)
    flavors_complete: bool = True
    peers_complete: bool = True
    missing_flavors: frozenset[str] = frozenset()
    lone: tuple[tuple[str, str], ...] = ()  # (queue, cohort) a file named without the cohort's other members

    def cycle_of(self, cohort_name: str | None) -> tuple[str, ...] | None:
        """The Cohort cycle above COHORT_NAME (cohort_cycle), among the Cohorts read."""
        return cohort_cycle({n: c.parent for n, c in self.cohorts.items()}, cohort_name)

    def flavor_state(self, name: str) -> ResourceFlavor | bool | None:
        """The flavor; False when it does not exist; None when it was not read."""
        if name in self.flavors:
            return self.flavors[name]
        if name in self.missing_flavors or self.flavors_complete:
            return False
        return None

    @staticmethod
    def of(objects: Iterable[Any], *, flavors_complete: bool = True, peers_complete: bool = True) -> Snapshot:
        cqs: dict[str, ClusterQueue] = {}
        cohorts: dict[str, Cohort] = {}
        flavors: dict[str, ResourceFlavor] = {}
        for o in objects:
            kind = _d(o).get("kind")
            if kind == "ClusterQueue":
                q = cluster_queue(o)
                cqs[q.name] = q
            elif kind == "Cohort":
                c = cohort(o)
                cohorts[c.name] = c
            elif kind == "ResourceFlavor":
                f = resource_flavor(o)
                flavors[f.name] = f
        return Snapshot(cqs, cohorts, flavors, flavors_complete, peers_complete)

    @staticmethod
    def read(cluster_queues: Mapping[str, Any], flavors: Mapping[str, Any], peers: Iterable[Any] | None = (),
             cohorts: Iterable[Any] | None = (), *, from_file: bool = False) -> Snapshot:
        """From what a command read: name -> record (or the object, which is parsed here: create's preflight
        and tests hand dicts), None = read and does not exist, absent = not read;
        `peers`/`cohorts` None = could not be read. `from_file`: a file holding only the queues asked for,
        one of which names a cohort but no other member of it (nor the Cohort), did not carry the cohort, so
        its peers are unknown; a file that holds other ClusterQueues as well is the list of the cluster's
        queues (`kubectl get clusterqueues`), and a cohort none of them joins has only that member, as
        Kueue's 1-queue cohorts (preemption_test.go:1746@v0.18.4)."""
        cqs = {n: _typed(o, ClusterQueue, cluster_queue) for n, o in cluster_queues.items() if o is not None}
        own = list(cqs)
        peer_list = None if peers is None else list(peers)
        for o in peer_list or ():
            q = _typed(o, ClusterQueue, cluster_queue)
            cqs.setdefault(q.name, q)
        # A list of ClusterQueues that was read holds these queues too: an empty one beside a queue that names a
        # cohort was never read (issue 46: an admitted group's cohort figures came from no peers at all), so the
        # cohort is unknown, not a cohort of one.
        if peer_list == [] and any(q.cohort for q in cqs.values()):
            peer_list = None
        cos = {c.name: c for c in (_typed(o, Cohort, cohort) for o in cohorts or ())}
        fls = {n: _typed(o, ResourceFlavor, resource_flavor) for n, o in flavors.items() if o is not None}
        missing = frozenset(n for n, o in flavors.items() if o is None)
        complete = peer_list is not None and cohorts is not None
        lone: tuple[tuple[str, str], ...] = ()
        if complete and from_file and len(cqs) == len(own):
            lone = tuple((n, c) for n in own if (c := cqs[n].cohort) and c not in cos
                         and not any(q.cohort == c and q.name != n for q in cqs.values()))
        return Snapshot(cqs, cos, fls, False, complete and not lone, missing, lone)


def _typed(o: Any, kind: type[_R], parse: Callable[[Any], _R]) -> _R:
    """A record as it is; an API object parsed (Snapshot.read's callers with dicts)."""
    return o if isinstance(o, kind) else parse(o)
