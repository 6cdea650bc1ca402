"""Check a deployment against the cluster before anything is written.

Each role's InstanceType must exist, its LocalQueue (the InstanceType's `status.entrance`) must exist
in the namespace, its ClusterQueue must be active, its `acceleratorKey` must be offered by a flavor of
the pool (a pool with no flavors yet passes), and its demand must fit the pool's flavors
(nominal quota plus what the cohort can lend). Reads go through a Source; the arithmetic is pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kubectl_pd.cluster.source import Source, name_of
from kubectl_pd.create.flags import CreateRequest, Role
from kubectl_pd.errors import ForbiddenError
from kubectl_pd.gpustack import names
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.kueue.quantity import CREDITS_PER_CARD, format_cards, is_credits, try_parse

ERROR = "error"
WARNING = "warning"
JOINT_CHECK = "gpustack-model-deployment-joint"
ACCEL_PREFIX = "acceleratable.feature.gpustack.ai/"
EXACT_PACKING_LIMIT = 12  # items; beyond it only the necessary conditions are checked


@dataclass(frozen=True)
class Finding:
    severity: str  # error | warning
    check: str  # instance-type | local-queue | cluster-queue | accelerator-key | feasibility | joint-check | skipped
    message: str
    forceable: bool = False  # --force turns it into a warning (only "can never be admitted")


@dataclass
class Preflight:
    findings: list[Finding] = field(default_factory=list)
    queues: dict[str, str] = field(default_factory=dict)  # role -> LocalQueue name
    covered: dict[str, str] = field(default_factory=dict)  # role -> credits resource of its queue

    def errors(self, force: bool = False) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR and not (force and f.forceable)]

    def warnings(self, force: bool = False) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING or (force and f.forceable)]


class _Reader:
    """Cached reads; a 403 becomes a 'skipped' warning instead of a failure."""

    def __init__(self, source: Source, out: Preflight) -> None:
        self.source = source
        self.out = out
        self._cache: dict[tuple[str, str, str | None], Any] = {}
        self._lists: dict[str, list[dict[str, Any]] | None] = {}
        self.forbidden = False

    def _guard(self, what: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except ForbiddenError as e:
            self.forbidden = True
            self.out.findings.append(Finding(WARNING, "skipped", f"could not check {what}: {e.message}"))
            return _FORBIDDEN

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any:
        key = (kind, name, namespace)
        if key not in self._cache:
            self._cache[key] = self._guard(f"{kind} {name!r}", lambda: self.source.get(kind, name, namespace))
        return self._cache[key]

    def list(self, kind: str) -> list[dict[str, Any]] | None:
        if kind not in self._lists:
            got = self._guard(f"{kind} objects", lambda: self.source.list(kind))
            self._lists[kind] = None if got is _FORBIDDEN else got
        return self._lists[kind]


_FORBIDDEN = object()


def _active(obj: dict[str, Any]) -> tuple[bool | None, str]:
    """(True/False/None=unknown, 'reason: message') from the `Active` condition."""
    for c in ((obj.get("status") or {}).get("conditions") or []):
        if isinstance(c, dict) and c.get("type") == "Active":
            detail = ": ".join(str(x) for x in (c.get("reason"), c.get("message")) if x)
            return (str(c.get("status")) == "True"), detail
    return None, ""


def _flavor_names(cq: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for group in ((cq.get("spec") or {}).get("resourceGroups") or []):
        for fl in (group.get("flavors") or []) if isinstance(group, dict) else []:
            if isinstance(fl, dict) and fl.get("name") and fl["name"] not in out:
                out.append(str(fl["name"]))
    return out


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


def _covered_credits(cq: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for group in ((cq.get("spec") or {}).get("resourceGroups") or []):
        for r in (group.get("coveredResources") or []) if isinstance(group, dict) else []:
            if isinstance(r, str) and is_credits(r) and r not in out:
                out.append(r)
    return out


def _quota(cq: dict[str, Any], flavor: str, resource: str) -> dict[str, Any] | None:
    for group in ((cq.get("spec") or {}).get("resourceGroups") or []):
        for fl in (group.get("flavors") or []) if isinstance(group, dict) else []:
            if isinstance(fl, dict) and fl.get("name") == flavor:
                for r in fl.get("resources") or []:
                    if isinstance(r, dict) and r.get("name") == resource:
                        return r
    return None


@dataclass(frozen=True)
class FlavorCapacity:
    flavor: str
    nominal: Fraction
    borrow: Fraction

    @property
    def total(self) -> Fraction:
        return self.nominal + self.borrow


def flavor_capacity(cq: dict[str, Any], flavor: str, resource: str,
                    cohort_peers: list[dict[str, Any]]) -> FlavorCapacity:
    """Nominal quota plus what the queue may borrow from the other queues of its cohort."""
    q = _quota(cq, flavor, resource) or {}
    nominal = try_parse(q.get("nominalQuota")) or Fraction(0)
    if not (cq.get("spec") or {}).get("cohortName"):
        return FlavorCapacity(flavor, nominal, Fraction(0))
    lendable = Fraction(0)
    for peer in cohort_peers:
        pq = _quota(peer, flavor, resource)
        if pq is None:
            continue
        limit = try_parse(pq.get("lendingLimit")) if pq.get("lendingLimit") is not None else None
        lendable += limit if limit is not None else (try_parse(pq.get("nominalQuota")) or Fraction(0))
    cap = try_parse(q.get("borrowingLimit")) if q.get("borrowingLimit") is not None else None
    return FlavorCapacity(flavor, nominal, min(cap, lendable) if cap is not None else lendable)


@dataclass(frozen=True)
class Demand:
    role: str
    amount: Fraction  # credits, for one admission unit (a role in pd-atomic, a replica otherwise)
    units: int  # how many such units
    formula: str  # "2 replicas x 3 cards x 1,600,000"
    eligible: tuple[str, ...]  # flavors that may hold it


def credits(q: Fraction) -> str:
    return f"{int(q):,}" if q.denominator == 1 else f"{float(q):,.3f}"


def role_demands(roles: list[Role], profile_name: str, eligible: dict[str, tuple[str, ...]]) -> list[Demand]:
    """pd-atomic (and --target pods): one PodSet per role, so a role's whole demand lands on one flavor.
    per-replica: each replica group is its own Workload, so one replica's demand lands on one flavor."""
    out = []
    for r in roles:
        if r.accelerator <= 0:
            continue
        if profile_name == PER_REPLICA:
            size = r.size or 1
            amount = Fraction(size * r.accelerator * CREDITS_PER_CARD)
            formula = f"{size} Pod(s) x {r.accelerator} card(s) x {CREDITS_PER_CARD:,}"
            out.append(Demand(r.name, amount, r.replicas, formula, eligible[r.name]))
        else:
            amount = Fraction(r.replicas * r.accelerator * CREDITS_PER_CARD)
            formula = f"{r.replicas} replica(s) x {r.accelerator} card(s) x {CREDITS_PER_CARD:,}"
            out.append(Demand(r.name, amount, 1, formula, eligible[r.name]))
    return out


def _packs(items: list[tuple[Fraction, tuple[str, ...]]], caps: dict[str, Fraction]) -> bool:
    """Is there an assignment of every item to one eligible flavor within capacity? (small inputs)"""
    items = sorted(items, key=lambda t: -t[0])
    names_ = list(caps)
    seen: set[tuple[int, tuple[Fraction, ...]]] = set()

    def go(i: int, remaining: tuple[Fraction, ...]) -> bool:
        if i == len(items):
            return True
        if (i, remaining) in seen:
            return False
        seen.add((i, remaining))
        amount, eligible = items[i]
        for j, n in enumerate(names_):
            if n in eligible and remaining[j] >= amount:
                nxt = remaining[:j] + (remaining[j] - amount,) + remaining[j + 1:]
                if go(i + 1, nxt):
                    return True
        return False

    return go(0, tuple(caps[n] for n in names_))


def feasibility(cq_name: str, resource: str, demands: list[Demand],
                capacities: list[FlavorCapacity]) -> list[Finding]:
    """Refuse a demand no flavor can ever hold (forceable), with the numbers."""
    caps = {c.flavor: c for c in capacities}
    out: list[Finding] = []

    def cap_text(c: FlavorCapacity) -> str:
        extra = f" + borrowing {credits(c.borrow)}" if c.borrow else ""
        return f"{c.flavor}: nominal {credits(c.nominal)}{extra} = {format_cards(c.total)}"

    for d in demands:
        eligible = [caps[f] for f in d.eligible if f in caps]
        best = max(eligible, key=lambda c: c.total, default=None)
        if best is None or best.total < d.amount:
            unit = "each replica of role" if d.units > 1 or "Pod(s)" in d.formula else "role"
            held = cap_text(best) if best else "no flavor of the queue offers its accelerator"
            out.append(Finding(ERROR, "feasibility", (
                f"{unit} {d.role!r} needs {credits(d.amount)} {resource} ({d.formula} = {format_cards(d.amount)}) "
                f"in one flavor, but the largest flavor of ClusterQueue {cq_name!r} holds {held}: it can never "
                f"be admitted (use another instanceType, fewer replicas or cards; --force writes it anyway)"),
                forceable=True))
    if out:
        return out
    items = [(d.amount, d.eligible) for d in demands for _ in range(d.units)]
    if not items:
        return out
    total = sum((a for a, _ in items), Fraction(0))
    pool = {f for d in demands for f in d.eligible if f in caps}
    room = sum((caps[f].total for f in pool), Fraction(0))
    fits = total <= room
    if fits and len(items) <= EXACT_PACKING_LIMIT and len(pool) <= 16:
        fits = _packs(items, {f: caps[f].total for f in caps if f in pool})
    if not fits:
        parts = ", ".join(f"{d.role} {credits(d.amount * d.units)}" for d in demands)
        borrowed = ", borrowing included" if any(caps[f].borrow for f in pool) else ""
        why = (f"its flavors hold {credits(room)} ({format_cards(room)}{borrowed}) in all" if total > room else
               "no assignment of the roles to its flavors fits, although the total does")
        out.append(Finding(ERROR, "feasibility", (
            f"the deployment needs {credits(total)} {resource} ({format_cards(total)}: {parts}) at once on "
            f"ClusterQueue {cq_name!r}, but {why}: it can never be admitted (--force writes it anyway)"),
            forceable=True))
    return out


def run(source: Source, req: CreateRequest, roles: list[Role], profile_name: str, namespace: str) -> Preflight:
    """Every check, in order; findings name the role, the object and the rule."""
    out = Preflight()
    rd = _Reader(source, out)
    by_cq: dict[str, list[Role]] = {}

    # role -> LocalQueue, reading each InstanceType once
    by_lq: dict[str, list[Role]] = {}
    lq_of_it: dict[str, str] = {}
    for role in roles:
        if req.target == "pods" and req.local_queue:
            by_lq.setdefault(req.local_queue, []).append(role)
            continue
        it = role.instance_type or ""
        if it not in lq_of_it:
            it_obj = rd.get("InstanceType", it)
            entrance = names.local_queue_name(it)
            if it_obj is None:
                users = ", ".join(repr(r.name) for r in roles if r.instance_type == it)
                out.findings.append(Finding(ERROR, "instance-type", (
                    f"role(s) {users}: InstanceType {it!r} does not exist (spec.roles[].instanceType): "
                    f"see `kubectl get instancetypes`")))
                entrance = ""
            elif isinstance(it_obj, dict):
                if (it_obj.get("status") or {}).get("entrance"):
                    entrance = str(it_obj["status"]["entrance"])
                else:
                    out.findings.append(Finding(WARNING, "local-queue", (
                        f"InstanceType {it!r} has no status.entrance yet: assuming LocalQueue {entrance!r}")))
            lq_of_it[it] = entrance
        if lq_of_it[it]:
            by_lq.setdefault(lq_of_it[it], []).append(role)

    for lq_name, lq_roles in by_lq.items():
        for r in lq_roles:
            out.queues[r.name] = lq_name
        who = ", ".join(repr(r.name) for r in lq_roles)
        its = sorted({r.instance_type for r in lq_roles if r.instance_type})
        cq_hint = its[0] if its and not (req.target == "pods" and req.local_queue) else None
        lq = rd.get("LocalQueue", lq_name, namespace)
        if lq is _FORBIDDEN:
            continue
        if lq is None:
            of = f" (the entrance of InstanceType {cq_hint!r})" if cq_hint else ""
            out.findings.append(Finding(ERROR, "local-queue", (
                f"role(s) {who}: LocalQueue {lq_name!r}{of} does not exist in namespace {namespace!r}: "
                f"GPUStack creates it in every non-system namespace; reserved namespaces have none")))
            continue
        lq_active, lq_detail = _active(lq)
        if lq_active is False and not lq_detail.startswith("ClusterQueue"):  # the queue's own check says more
            out.findings.append(Finding(ERROR, "local-queue", (
                f"role(s) {who}: LocalQueue {lq_name!r} is not active ({lq_detail})")))
        cq_name = str((lq.get("spec") or {}).get("clusterQueue") or cq_hint or "")
        by_cq.setdefault(cq_name, []).extend(lq_roles)

    for cq_name, cq_roles in by_cq.items():
        cq = rd.get("ClusterQueue", cq_name)
        if cq is _FORBIDDEN:
            continue
        who = ", ".join(repr(r.name) for r in cq_roles)
        if cq is None:
            out.findings.append(Finding(ERROR, "cluster-queue", (
                f"role(s) {who}: ClusterQueue {cq_name!r} does not exist")))
            continue
        active, detail = _active(cq)
        stop = (cq.get("spec") or {}).get("stopPolicy")
        if active is False:
            out.findings.append(Finding(ERROR, "cluster-queue", (
                f"role(s) {who}: ClusterQueue {cq_name!r} is not active ({detail})")))
        elif stop in ("Hold", "HoldAndDrain"):
            out.findings.append(Finding(ERROR, "cluster-queue", (
                f"role(s) {who}: ClusterQueue {cq_name!r} is stopped (spec.stopPolicy {stop})")))
        elif active is None:
            out.findings.append(Finding(WARNING, "cluster-queue", (
                f"ClusterQueue {cq_name!r} has not reported an Active condition yet")))
        if active is False or stop in ("Hold", "HoldAndDrain"):
            continue  # fix the queue first; its flavors are weighed on the next run
        if profile_name == PER_REPLICA and len(roles) > 1:
            checks = [c.get("name") for c in (((cq.get("spec") or {}).get("admissionChecksStrategy") or {})
                                              .get("admissionChecks") or []) if isinstance(c, dict)]
            if JOINT_CHECK not in checks:
                out.findings.append(Finding(WARNING, "joint-check", (
                    f"ClusterQueue {cq_name!r} does not reference the AdmissionCheck {JOINT_CHECK!r}: its "
                    f"replica groups are admitted one by one, not together with the other roles")))

        flavor_objs: dict[str, dict[str, Any]] = {}
        for fname in _flavor_names(cq):
            fl = rd.get("ResourceFlavor", fname)
            if isinstance(fl, dict):
                flavor_objs[fname] = fl
        offered = {f: offered_keys(o) for f, o in flavor_objs.items()}
        eligible: dict[str, tuple[str, ...]] = {}
        key_refused = False
        for r in cq_roles:
            if r.accelerator_key and flavor_objs:
                fits = tuple(f for f, keys in offered.items() if r.accelerator_key in keys)
                if not fits:
                    all_keys = sorted(set().union(*offered.values()))
                    out.findings.append(Finding(ERROR, "accelerator-key", (
                        f"role {r.name!r}: acceleratorKey {r.accelerator_key!r} is not offered by any flavor of "
                        f"ClusterQueue {cq_name!r} (offered: {', '.join(all_keys) or 'none'}); Kueue would drop "
                        f"the selector, admit, and the Pod would hang at the scheduler")))
                    key_refused = True
                eligible[r.name] = fits
            else:
                eligible[r.name] = tuple(flavor_objs) or tuple(_flavor_names(cq))
        if key_refused:
            continue
        resources = _covered_credits(cq)
        if not resources or not _flavor_names(cq):
            continue  # a CPU pool, or no flavors yet: nothing to weigh
        resource = resources[0]
        for r in cq_roles:
            if r.accelerator_key and len(resources) > 1:
                want = "credits.gpustack.ai/" + r.accelerator_key.split("-", 1)[0]
                resource = want if want in resources else resource
        peers: list[dict[str, Any]] = []
        cohort = (cq.get("spec") or {}).get("cohortName")
        if cohort:
            every = rd.list("ClusterQueue") or []
            peers = [q for q in every if (q.get("spec") or {}).get("cohortName") == cohort and name_of(q) != cq_name]
        capacities = [flavor_capacity(cq, f, resource, peers) for f in _flavor_names(cq)]
        unit = PD_ATOMIC if profile_name != PER_REPLICA else PER_REPLICA
        out.findings += feasibility(cq_name, resource, role_demands(cq_roles, unit, eligible), capacities)
        for r in cq_roles:
            out.covered[r.name] = resource
    return out
