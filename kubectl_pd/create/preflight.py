"""Check a deployment against the cluster before anything is written.

Each role's InstanceType must exist, its LocalQueue (the InstanceType's `status.entrance`) must exist
in the namespace, its ClusterQueue must be active, its `acceleratorKey` must be offered by a flavor of
the pool (a pool with no flavors yet passes), and its demand must fit the pool's flavors
(through the one admission engine, exactly as why-pending would judge the same cluster). Reads go through
a Source; the arithmetic is kueue.admission's.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kubectl_pd.cluster import engine_reads
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.create import preflight_words as words
from kubectl_pd.create.flags import POD_TARGETS, CreateRequest, Role
from kubectl_pd.create.frameworks import PROFILE as LWS_GROUPS
from kubectl_pd.errors import ForbiddenError
from kubectl_pd.gpustack import names
from kubectl_pd.gpustack.roles import PER_REPLICA
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import config as kc
from kubectl_pd.kueue import resources as rs
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.config import KueueConfig
from kubectl_pd.kueue.model import ClusterQueue, Snapshot, cluster_queue, conditions_of, local_queue
from kubectl_pd.records import dataclass, field, replace

if TYPE_CHECKING:
    from kubectl_pd.create.nodes import Fit, TooSmall

ERROR = "error"
WARNING = "warning"
JOINT_CHECK = "gpustack-model-deployment-joint"
ACCEL_PREFIX = "acceleratable.feature.gpustack.ai/"


@dataclass(frozen=True)
class CheckFinding:
    """A check's finding: its id and parameters (the evidence, as data); its sentence is `say` of
    create/preflight_words.py over the params and `words` (what only the sentence needs: a server's reason, the
    engine's attempts), made when asked for (`message`)."""

    severity: str  # error | warning
    check: str  # an id of registry.CHECKS
    say: str  # a sentence id of create/preflight_words.SENTENCES
    forceable: bool = False  # --force turns it into a warning (only "can never be admitted")
    params: dict[str, Any] = field(default_factory=dict, compare=False)  # the numbers behind the message
    words: dict[str, Any] = field(default_factory=dict, compare=False)  # the sentence's other values

    @property
    def message(self) -> str:
        return words.text(self.say, {**self.params, **self.words})


@dataclass
class Preflight:
    findings: list[CheckFinding] = field(default_factory=list)
    queues: dict[str, str] = field(default_factory=dict)  # role -> LocalQueue name
    covered: dict[str, str] = field(default_factory=dict)  # role -> credits resource of its queue
    preemption: list[Any] = field(default_factory=list)  # kueue.preempt_answer.Answer per Workload

    def errors(self, force: bool = False) -> list[CheckFinding]:
        return [f for f in self.findings if f.severity == ERROR and not (force and f.forceable)]

    def warnings(self, force: bool = False) -> list[CheckFinding]:
        return [f for f in self.findings if f.severity == WARNING or (force and f.forceable)]


class _CheckReader:
    """Cached reads; a 403 becomes a 'skipped' warning instead of a failure."""

    def __init__(self, source: Source, out: Preflight) -> None:
        from kubectl_pd.cluster.prefetch import Remembered

        self.source = source
        self.out = out
        self._cache: dict[tuple[str, str, str | None], Any] = {}
        self._lists: dict[str, list[dict[str, Any]] | None] = {}
        self.node_lists = Remembered(source)  # each selector's Node list once per run (flavors sharing nodeLabels)
        self.nodes_refused = False  # a Node list was forbidden: the node part is unknown, asked no more
        self.resource: str | None = None  # --resource: what a card of the Pods requests, when given
        self.priority = 0  # the group's priority: its WorkloadPriorityClass's value (--priority-class), else 0
        self.config: KueueConfig | None = None  # Kueue's configuration, once read

    def _guard(self, what: dict[str, Any], fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except ForbiddenError as e:
            self.out.findings.append(CheckFinding(WARNING, "skipped", "skipped.read", params=what,
                                                  words={"reason": e.message}))
            return _FORBIDDEN

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any:
        key = (kind, name, namespace)
        if key not in self._cache:
            self._cache[key] = self._guard({"kind": kind, "name": name}, lambda: self.source.get(kind, name, namespace))
        return self._cache[key]

    def attempt(self, what: str, read: Callable[[], Any]) -> tuple[bool, Any]:
        """A read whose refusal makes its part unknown (a `skipped` warning saying which part): (ok, answer)."""
        try:
            return True, read()
        except ForbiddenError as e:
            self.out.findings.append(CheckFinding(WARNING, "skipped", "skipped.nodes", params={"unknown": "nodes"},
                                                  words={"what": what, "reason": e.message}))
            return False, None

    def list(self, kind: str) -> list[dict[str, Any]] | None:
        if kind not in self._lists:
            got = self._guard({"kind": kind}, lambda: self.source.list(kind))
            self._lists[kind] = None if got is _FORBIDDEN else got
        return self._lists[kind]


_FORBIDDEN = object()


def _active(obj: dict[str, Any]) -> tuple[bool | None, dict[str, str]]:
    """(True/False/None=unknown, {reason, message}) from the `Active` condition."""
    c = conditions_of(obj).get("Active")
    if c is None:
        return None, {"reason": "", "message": ""}
    return c.true, {"reason": c.reason or "", "message": c.message or ""}


def offered_keys(flavor: dict[str, Any]) -> set[str]:
    """Accelerator keys a ResourceFlavor offers: its nodeLabels `acceleratable.feature.gpustack.ai/<key>`."""
    labels = (flavor.get("spec") or {}).get("nodeLabels") or {}
    out = set()
    for k in labels if isinstance(labels, dict) else {}:
        if k.startswith(ACCEL_PREFIX):
            key = k[len(ACCEL_PREFIX):]
            if not key.endswith((".count", ".capacity")):
                out.add(key)
    return out


def is_accelerator(resource: str) -> bool:
    """A covered resource a card of a Pod may request (kueue/resources: credits or a device count)."""
    return rs.is_accelerator(resource)


def role_demands(roles: list[Role], profile_name: str, resource: str, cq_name: str,
                 order: tuple[str, ...] | None = None, priority: int = 0) -> vd.QueueDemand:
    """The request as the Workloads Kueue will see: pd-atomic (and --target pods) one Workload with a pod
    set per role, in ORDER (pod sets named by role hash, which is the role name; None: role order);
    per-replica one Workload per replica group; lws-groups (--target lws|disaggregatedset) one Workload per LWS
    group, its pod sets `leader` (1 Pod) and `worker` (size-1), or `main` for size 1, as Kueue's LWS integration
    builds them (create/frameworks.py). The acceleratorKey becomes the Pods' nodeSelector, judged (as Kueue does)
    only against flavors that declare that label."""
    queue = vd.QueueDemand()
    atomic: list[tuple[vd.RoleDemand, ad.PodSetDemand]] = []
    for r in roles:
        if r.accelerator <= 0:
            continue
        per_pod = {resource: rs.request_of(resource, r.accelerator)}
        selector = {ACCEL_PREFIX + r.accelerator_key: "true"} if r.accelerator_key else {}
        size = r.size or 1
        if profile_name == LWS_GROUPS:
            for i in range(r.replicas):
                wl = f"{r.name}-{i}"
                sets = [("leader", 1), ("worker", size - 1)] if size > 1 else [("main", 1)]
                members = []
                for ps_name, n in sets:
                    p = ad.PodSetDemand(ps_name, n, per_pod, selector, role=r.name)
                    members.append((vd.RoleDemand(r.name, wl, ps_name, n, p.total(), n), p))
                queue.workloads.append((wl, members))
        elif profile_name == PER_REPLICA:
            for i in range(r.replicas):
                wl = f"{r.name}-{i}"
                p = ad.PodSetDemand(r.name, size, per_pod, selector, role=r.name)
                queue.workloads.append((wl, [(vd.RoleDemand(r.name, wl, r.name, size, p.total(), size), p)]))
        else:
            count = r.replicas * size
            p = ad.PodSetDemand(r.name, count, per_pod, selector, role=r.name)
            atomic.append((vd.RoleDemand(r.name, cq_name, r.name, count, p.total(), size), p))
    if atomic:
        if order is not None:
            atomic.sort(key=lambda a: order.index(a[0].role) if a[0].role in order else len(order))
        queue.workloads.append((cq_name, atomic))
    if priority:
        queue.about = {wl: vd.WorkloadFacts(wl, priority) for wl, _ in queue.workloads}
    return queue


def _asks(d: vd.RoleDemand, resource: str, per_replica: bool) -> dict[str, Any]:
    """What the role asks, as the sentences say it (replicas x Pods x cards)."""
    return {"resource": resource, "asked": d.requests.get(resource), "count": d.count, "size": d.size,
            "perPod": d.requests.get(resource, Fraction(0)) / max(d.count, 1), "perReplica": per_replica}


_QUOTA = {"QuotaExceedsCapacity": (ERROR, "never-fits", "never-fits", True),
          "NoMatchingFlavor": (ERROR, "no-matching-flavor", "no-matching-flavor", True),
          "QuotaExhausted": (WARNING, "waits-for-quota", "waits-for-quota", False),
          "NeedsPreemption": (WARNING, "waits-for-quota", "waits-for-quota", False),
          "QuotaUnknown": (WARNING, "fit-unknown", "fit-unknown.quota", False)}  # code -> severity, check, say, force
_NEEDS_BEST = ("QuotaExceedsCapacity", "QuotaExhausted", "NeedsPreemption")


def quota_findings(cq_name: str, resource: str, result: vd.QueueVerdict, per_replica: bool,
                   pod_sets: bool = False) -> list[CheckFinding]:
    """The engine's verdict on the request, in the codes why-pending would give the same cluster:
    QuotaExceedsCapacity and NoMatchingFlavor refuse (forceable); QuotaExhausted and NeedsPreemption warn
    that it will wait; QuotaUnknown says so."""
    out: list[CheckFinding] = []
    seen: set[tuple[str, str]] = set()
    verdicts = list(result.verdicts.values())
    if not any(v.code for v in verdicts):  # each role fits alone but not next to the ones before it
        verdicts += vd.together_blocked(verdicts)[:1]
    for v in verdicts:
        d, b = v.demand, v.best
        if v.code is None or (v.code, d.role) in seen or v.code not in _QUOTA:
            continue
        if b is None and v.code in _NEEDS_BEST:
            continue
        seen.add((v.code, d.role))
        params: dict[str, Any] = {"role": d.role, "code": v.code, "clusterQueue": cq_name}
        if b is not None:
            params.update(flavor=b.flavor, requested=b.requested, previous=b.previous, available=b.available,
                          capacity=b.capacity, nominal=b.nominal, needed=b.needed)
        severity, check, say, force = _QUOTA[v.code]
        if pod_sets:  # an LWS group's pod set (leader, worker, main): the words name it
            params["podSet"] = d.pod_set
        values = {**_asks(d, resource, per_replica), "attempts": tuple(v.attempts),
                  "unread": b.unknown if b is not None else None}
        out.append(CheckFinding(severity, check, say, forceable=force, params=params, words=values))
    return out


def run(source: Source, req: CreateRequest, roles: list[Role], profile_name: str, namespace: str) -> Preflight:
    """Every check, in order; findings name the role, the object and the rule."""
    out = Preflight()
    rd = _CheckReader(source, out)
    rd.resource = req.resource
    if req.priority_class:
        rd.priority = _priority_of(rd, req.priority_class)
    by_lq = _local_queues(rd, req, roles)
    if by_lq:
        rd.config = _integration(rd, req.target)
    by_cq = _check_local_queues(rd, req, by_lq, namespace)
    for cq_name, cq_roles in by_cq.items():
        _check_cluster_queue(rd, source, cq_name, cq_roles, roles, profile_name)
    if profile_name == LWS_GROUPS:
        out.findings += admitted_apart(req.target, roles, out.findings, out.covered)
    return out


INTEGRATION = "integration-off"  # Kueue's configuration does not manage what the target makes: no Workload, no quota
FRAMEWORK_OF = {"modeldeployment": kc.POD, "pods": kc.POD, "lws": kc.LWS, "disaggregatedset": kc.LWS}


def _integration(rd: _CheckReader, target: str) -> KueueConfig:
    """Kueue's configuration, read once for the run; a finding when it was read and does not list the integration
    that manages what TARGET makes (a GPUStack or hand-made pod group needs `pod`, an LWS or DisaggregatedSet the LWS
    integration): Kueue would ignore the queue label, and the Pods would run outside the queue's quota. Not read
    (refused, absent): nothing is claimed about it."""
    from kubectl_pd.cluster.admitted import read_kueue_config

    cfg = read_kueue_config(rd.source)
    finding = integration_finding(cfg, target)
    if finding is not None:
        rd.out.findings.append(finding)
    return cfg


def integration_finding(cfg: KueueConfig, target: str) -> CheckFinding | None:
    """Pure: the integration-off finding for TARGET under CFG, or None (managed, or not known)."""
    framework = FRAMEWORK_OF.get(target)
    if framework is None or cfg.manages(framework) is not False:
        return None
    return CheckFinding(ERROR, INTEGRATION, INTEGRATION, forceable=True,
                        params={"framework": framework, "frameworks": list(cfg.frameworks or ()),
                                "source": cfg.source})


APART = "admitted-apart"  # each LWS group (of each role) is its own Workload: Kueue admits the roles apart
_WAITS = ("never-fits", "no-matching-flavor", "waits-for-quota", "no-node-fits")
_UNKNOWN = ("fit-unknown", "skipped")


def admitted_apart(target: str, roles: list[Role], findings: list[CheckFinding],
                   covered: dict[str, str]) -> list[CheckFinding]:
    """Pure: the verdict that Kueue admits the deployment's Workloads one by one (one per LWS group, and each role
    its own LWS), from the findings already made: the roles that fit now, those that wait (or never fit) and those
    not weighed (a queue not read, a refused read); when some fit and others wait, what the fitting ones hold
    while the deployment serves nothing. One Workload in all: nothing to say."""
    from kubectl_pd.create.frameworks import KIND, workloads_of

    counts = workloads_of(roles)
    if sum(counts.values()) < 2:
        return []
    waits = {n for f in findings if f.check in _WAITS for n in _named(f)}
    unsure = any(f.check in _UNKNOWN and not _named(f) for f in findings)
    # a role refused for its own queue (no InstanceType, LocalQueue or ClusterQueue) is not weighed either
    unknown = {n for f in findings if f.check in _UNKNOWN or (f.severity == ERROR and f.check not in _WAITS)
               for n in _named(f)}
    weighed = [r for r in roles if r.name in covered or r.accelerator <= 0]  # no cards: no quota to wait for
    fits = [r.name for r in weighed if r.name not in waits and r.name not in unknown and not unsure]
    waiting = [r.name for r in roles if r.name in waits]
    not_weighed = [r.name for r in roles if r.name not in fits and r.name not in waiting]
    held = [{"role": r.name, "resource": covered[r.name], "quantity": str(_held(r, covered[r.name]))}
            for r in roles if r.name in fits and waiting and r.accelerator > 0 and r.name in covered]
    params: dict[str, Any] = {"kind": KIND[target], "workloads": counts, "fits": fits, "waits": waiting,
                              "unknown": not_weighed, "partly": bool(fits and waiting), "held": held}
    return [CheckFinding(WARNING, APART, APART, params=params)]


def _named(f: CheckFinding) -> set[str]:
    """The roles a finding names (params role, or roles)."""
    one, many = f.params.get("role"), f.params.get("roles")
    return ({str(one)} if one else set()) | ({str(x) for x in many} if isinstance(many, list | tuple) else set())


def _held(r: Role, resource: str) -> Fraction:
    """What every group of a fitting role takes of RESOURCE once admitted: replicas x size x the Pod's request."""
    return rs.request_of(resource, r.accelerator) * r.replicas * (r.size or 1)


def _priority_of(rd: _CheckReader, name: str) -> int:
    """The value of WorkloadPriorityClass NAME, which Kueue gives a Workload labelled
    kueue.x-k8s.io/priority-class=NAME; a class that does not exist is an error (a refused read: `skipped`)."""
    obj = rd.get("WorkloadPriorityClass", name)
    if obj is None:
        rd.out.findings.append(CheckFinding(ERROR, "priority-class", "priority-class.missing",
                                            params={"priorityClass": name}))
    if not isinstance(obj, dict):
        return 0
    value = obj.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _local_queues(rd: _CheckReader, req: CreateRequest, roles: list[Role]) -> dict[str, list[Role]]:
    """Role -> LocalQueue, reading each InstanceType once (its status.entrance names the queue)."""
    out = rd.out
    by_lq: dict[str, list[Role]] = {}
    lq_of_it: dict[str, str] = {}
    for role in roles:
        if req.target in POD_TARGETS and req.local_queue:
            by_lq.setdefault(req.local_queue, []).append(role)
            continue
        if role.instance_type is None and role.accelerator_type is not None:
            out.findings.append(CheckFinding(WARNING, "accelerator-type", "accelerator-type",
                                             params={"role": role.name, "acceleratorType": role.accelerator_type}))
            continue
        it = role.instance_type or ""
        if it not in lq_of_it:
            it_obj = rd.get("InstanceType", it)
            entrance = names.local_queue_name(it)
            if it_obj is None:
                users = [r.name for r in roles if r.instance_type == it]
                out.findings.append(CheckFinding(ERROR, "instance-type", "instance-type",
                                                 params={"roles": users, "instanceType": it}))
                entrance = ""
            elif isinstance(it_obj, dict):
                if (it_obj.get("status") or {}).get("entrance"):
                    entrance = str(it_obj["status"]["entrance"])
                else:
                    out.findings.append(CheckFinding(WARNING, "local-queue", "local-queue.no-entrance",
                                                     params={"instanceType": it, "localQueue": entrance}))
            lq_of_it[it] = entrance
        if lq_of_it[it]:
            by_lq.setdefault(lq_of_it[it], []).append(role)
    return by_lq


def _check_local_queues(rd: _CheckReader, req: CreateRequest, by_lq: dict[str, list[Role]],
                        namespace: str) -> dict[str, list[Role]]:
    """Each LocalQueue exists and is active; ClusterQueue -> the roles it will admit."""
    out = rd.out
    by_cq: dict[str, list[Role]] = {}
    for lq_name, lq_roles in by_lq.items():
        for r in lq_roles:
            out.queues[r.name] = lq_name
        who = [r.name for r in lq_roles]
        its = sorted({r.instance_type for r in lq_roles if r.instance_type})
        cq_hint = its[0] if its and not (req.target in POD_TARGETS and req.local_queue) else None
        lq = rd.get("LocalQueue", lq_name, namespace)
        if lq is _FORBIDDEN:
            continue
        if lq is None:
            out.findings.append(CheckFinding(ERROR, "local-queue", "local-queue.missing", params={
                "roles": who, "localQueue": lq_name, "namespace": namespace, "instanceType": cq_hint}))
            continue
        lq_active, lq_detail = _active(lq)
        said = lq_detail["reason"] or lq_detail["message"]
        if lq_active is False and not said.startswith("ClusterQueue"):  # the queue's own check says more
            out.findings.append(CheckFinding(ERROR, "local-queue", "local-queue.inactive",
                                             params={"roles": who, "localQueue": lq_name}, words=lq_detail))
        cq_name = local_queue(lq).cluster_queue or cq_hint or ""
        by_cq.setdefault(cq_name, []).extend(lq_roles)
    return by_cq


def _check_cluster_queue(rd: _CheckReader, source: Source, cq_name: str, cq_roles: list[Role], roles: list[Role],
                         profile_name: str) -> None:
    """The ClusterQueue exists, is active and not stopped; then its flavors and quota are weighed."""
    out = rd.out
    cq = rd.get("ClusterQueue", cq_name)
    if cq is _FORBIDDEN:
        return
    who = {"roles": [r.name for r in cq_roles], "clusterQueue": cq_name}
    if cq is None:
        out.findings.append(CheckFinding(ERROR, "cluster-queue", "cluster-queue.missing", params=who))
        return
    model = cluster_queue(cq)
    active, detail = _active(cq)
    stop = model.stop_policy
    if active is False:
        out.findings.append(CheckFinding(ERROR, "cluster-queue", "cluster-queue.inactive", params=who,
                                         words=detail))
    elif stop in ("Hold", "HoldAndDrain"):
        out.findings.append(CheckFinding(ERROR, "cluster-queue", "cluster-queue.stopped",
                                         params={**who, "stopPolicy": stop}))
    elif active is None:
        out.findings.append(CheckFinding(WARNING, "cluster-queue", "cluster-queue.no-condition",
                                         params={"clusterQueue": cq_name}))
    if active is False or stop in ("Hold", "HoldAndDrain"):
        return  # fix the queue first; its flavors are weighed on the next run
    if profile_name == PER_REPLICA and len(roles) > 1 and JOINT_CHECK not in model.admission_checks:
        out.findings.append(CheckFinding(WARNING, "joint-check", "joint-check",
                                         params={"clusterQueue": cq_name, "admissionCheck": JOINT_CHECK}))
    flavor_objs, missing = _flavors(rd, model.flavor_names)
    if _keys_refused(out, cq_name, cq_roles, flavor_objs):
        return
    _weigh_quota(rd, source, cq_name, cq, model, cq_roles, profile_name, flavor_objs, missing)


def _flavors(rd: _CheckReader, flavor_names: tuple[str, ...]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """The ClusterQueue's ResourceFlavors read, and those that do not exist."""
    flavor_objs: dict[str, dict[str, Any]] = {}
    missing: set[str] = set()
    for fname in flavor_names:
        fl = rd.get("ResourceFlavor", fname)
        if isinstance(fl, dict):
            flavor_objs[fname] = fl
        elif fl is None:
            missing.add(fname)
    return flavor_objs, missing


def _keys_refused(out: Preflight, cq_name: str, cq_roles: list[Role], flavor_objs: dict[str, dict[str, Any]]) -> bool:
    """A role's acceleratorKey no flavor of the queue offers (Kueue would drop the selector): an error."""
    offered = {f: offered_keys(o) for f, o in flavor_objs.items()}
    refused = False
    for r in cq_roles:
        if r.accelerator_key and flavor_objs and not any(r.accelerator_key in keys for keys in offered.values()):
            all_keys = sorted(set().union(*offered.values()))
            out.findings.append(CheckFinding(ERROR, "accelerator-key", "accelerator-key", params={
                "role": r.name, "acceleratorKey": r.accelerator_key, "clusterQueue": cq_name, "offered": all_keys}))
            refused = True
    return refused


def _weigh_quota(rd: _CheckReader, source: Source, cq_name: str, cq: dict[str, Any], model: ClusterQueue,
                 cq_roles: list[Role], profile_name: str,
                 flavor_objs: dict[str, dict[str, Any]], missing: set[str]) -> None:
    """The admission engine's verdict on the request against the queue's accelerator quota (and its cohort): the
    resource a card of its Pods requests, in that resource's own unit (kueue/resources: GPUStack's credits, or a
    device count such as nvidia.com/gpu)."""
    resources = rs.accelerators(model.covered)
    if not resources:
        return  # the queue covers no resource a card requests: nothing of the request is weighed
    resource = resources[0]
    if rd.resource in resources:  # --resource names what the Pods request
        resource = rd.resource
    else:
        for r in cq_roles:
            if r.accelerator_key and len(resources) > 1:
                want = "credits.gpustack.ai/" + r.accelerator_key.split("-", 1)[0]
                resource = want if want in resources else resource
    if not model.flavor_names:
        for r in cq_roles:
            rd.out.covered[r.name] = resource
        return  # no flavors yet: nothing to weigh
    flavors: dict[str, dict[str, Any] | None] = {f: flavor_objs.get(f) for f in model.flavor_names
                                                 if f in flavor_objs or f in missing}
    got = engine_reads.read(rd.list, source.is_live, queues={cq_name: cq}, flavors=flavors, cohort_only=True)
    assert got is not None  # the queue was read: nothing here leaves none
    snap = got.snapshot()
    from kubectl_pd.cluster.admitted import Reading
    from kubectl_pd.kueue.preempt_answer import Answers, PreemptionView

    per_replica = profile_name in (PER_REPLICA, LWS_GROUPS)
    judged = []  # per order Kueue may give the pod sets: the findings and the preemption answers
    for order in orders_to_judge(source, cq_roles, per_replica):
        reading = Reading(source)
        reading.config = rd.config  # the configuration this run read (None: read when first needed)
        given = Answers(PreemptionView(reading))  # each assignment with who admitting it would preempt
        result = vd.evaluate(snap, cq_name, role_demands(cq_roles, profile_name, resource, cq_name, order,
                                                         rd.priority), given.assign, whole=True)
        judged.append((order, quota_findings(cq_name, resource, result, per_replica, profile_name == LWS_GROUPS),
                       given.every()))
    if all(_same(f, judged[0][1]) for _, f, _ in judged):
        rd.out.findings += judged[0][1]
        rd.out.preemption += judged[0][2]
    else:
        rd.out.findings.append(_order_unknown(cq_name, judged))
        # an order that needs preemption: that it may, never whom (nor "none" because the first order fits)
        answers = next((a for _, _, a in judged if any(x.needed for x in a)), judged[0][2])
        rd.out.preemption += [replace(a, targets=None, unknown=ORDER_UNKNOWN) if a.needed else a for a in answers]
    for r in cq_roles:
        rd.out.covered[r.name] = resource
    _weigh_nodes(rd, snap, cq_name, role_demands(cq_roles, profile_name, resource, cq_name))


NODE_CHECK = "no-node-fits"  # admitted by quota, and no Node its flavors allow could ever hold one Pod
NODE_CODE = "PodsUnschedulable"  # why-pending's code for admitted Pods kube-scheduler refuses (capacity's "never")


def _weigh_nodes(rd: _CheckReader, snap: Snapshot, cq_name: str, queue: vd.QueueDemand) -> None:
    """The Nodes of the queue's flavors (one list per flavor's nodeLabels, as capacity reads them) against one Pod
    of each role the quota would admit or keep waiting; a refused list leaves the node part unknown."""
    pod_sets = {ps.role or ps.name: ps for _, members in queue.workloads for _, ps in members}
    if rd.nodes_refused or not pod_sets:
        return
    from kubectl_pd.create.nodes import flavor_nodes

    fit = flavor_nodes(rd.node_lists, snap, rd.attempt)
    if fit is None:
        rd.nodes_refused = True
        return
    rd.out.findings = node_findings(rd.out.findings, snap, cq_name, pod_sets, fit)


def node_findings(findings: list[CheckFinding], snap: Snapshot, cq_name: str, pod_sets: dict[str, ad.PodSetDemand],
                  fit: Fit) -> list[CheckFinding]:
    """Pure: for each role of the queue one Pod of which no Node of any flavor Kueue could give it holds
    (create/nodes.Fit.never), an error in place of its "waits for quota", and beside a quota refusal (more quota
    would not run it either); every other finding kept. A flavor with no Node read is not weighed (nothing
    said)."""
    never = {role: miss for role, ps in pod_sets.items() if (miss := fit.never(snap, cq_name, ps)) is not None}
    kept = [f for f in findings if not (f.check == "waits-for-quota" and f.params.get("clusterQueue") == cq_name
                                        and f.params.get("role") in never)]
    return kept + [_node_finding(cq_name, role, miss) for role, miss in never.items()]


def _node_finding(cq_name: str, role: str, miss: TooSmall) -> CheckFinding:
    params: dict[str, Any] = {"role": role, "code": NODE_CODE, "never": True, "clusterQueue": cq_name,
                              "flavor": miss.flavor, "nodes": miss.nodes, "allowed": miss.allowed,
                              "resource": miss.resource, "requested": miss.requested, "node": miss.node,
                              "largest": miss.largest}
    return CheckFinding(ERROR, NODE_CHECK, NODE_CHECK, forceable=True, params=params)


ORDER_UNKNOWN = "pod-set-order"  # which order Kueue gives the pod sets is not knowable here (Kueue 0.20+)


def orders_to_judge(source: Source, roles: list[Role], per_replica: bool) -> list[tuple[str, ...] | None]:
    """The orders Kueue may give a pod group's pod sets (named by role hash = role name): sorted by name
    before Kueue 0.20, any order from 0.20 (kueue/versions.pod_set_orders); the version is what the cluster
    serves (discovery). One Workload per replica group has one pod set: one order."""
    from kubectl_pd.kueue import versions

    names = [r.name for r in roles if r.accelerator > 0]
    served = source.served_versions(versions.KUEUE_GROUP) if source.is_live and not per_replica and len(names) > 1 \
        else None
    if served is None:
        return [None]  # files name no Kueue version: the roles' order, as why-pending judges the same files
    orders = versions.pod_set_orders(versions.resolve(None, served), names)
    mine = tuple(names)  # where any order is possible, the roles' own first: its words are the ones shown
    return [mine, *(o for o in orders if o != mine)] if mine in orders else list(orders)


def _same(a: list[CheckFinding], b: list[CheckFinding]) -> bool:
    """The same verdict for the deployment: the same checks and codes (which role an order leaves short, and
    by how much, may differ: it never fits, or it waits, either way)."""
    def key(fs: list[CheckFinding]) -> set[tuple[str, str, Any]]:
        return {(f.severity, f.check, f.params.get("code")) for f in fs}
    return key(a) == key(b)


def _order_unknown(cq_name: str, judged: list[Any]) -> CheckFinding:
    """The verdict depends on the order of the pod sets, which Kueue 0.20 derives from a hash of each role's
    scheduling shape (kubernetes-sigs/kueue#14809): say so, with what each order gives, never one as Kueue's."""
    per_order = {",".join(o or ()): sorted({str(f.params.get("code") or f.check) for f in fs}) or ["fits"]
                 for o, fs, _ in judged}
    return CheckFinding(WARNING, "fit-unknown", "fit-unknown.order",
                        params={"clusterQueue": cq_name, "unknown": ORDER_UNKNOWN, "orders": per_order})
