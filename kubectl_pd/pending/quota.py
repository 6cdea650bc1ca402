"""Admission arithmetic of our own: each pod set against a ClusterQueue, flavor by flavor in queue order.

A small, pure cousin of Kueue's flavor assigner. It answers for Workloads no scheduler has touched
yet, gives the numbers behind Kueue's one-line messages ("needs 4 more cards"), and lets the report
say so when Kueue's last attempt and the queue's current state disagree. Demands are considered in
order and accumulate, because the roles of one deployment are admitted together: a later role must
fit next to the earlier ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue.quantity import try_parse

FITS = "fits"
BLOCKED = "blocked"
ADMITTED = "admitted"
UNKNOWN = "unknown"

# per-flavor outcomes
OK = "fits"
EXHAUSTED = "exhausted"  # fits the queue, not its free quota now
EXCEEDS = "exceeds"  # larger than the queue can ever give
AFFINITY = "node-affinity"
TAINT = "untolerated-taint"
NOT_FOUND = "flavor-not-found"


@dataclass
class Demand:
    """One pod set of one Workload (or of a pod group Kueue has not composed yet)."""

    role: str
    workload: str
    pod_set: str
    count: int
    requests: dict[str, Fraction]  # total for the pod set (per pod x count)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity_terms: list[list[dict[str, Any]]] = field(default_factory=list)  # required nodeSelectorTerms
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    reserved: bool = False  # already holds quota (counted in the queue's status)
    size: int = 1  # pods per replica (GPUStack `size`), to turn pods into replicas in hints


@dataclass
class FlavorCheck:
    flavor: str
    outcome: str
    resource: str | None = None
    requested: Fraction | None = None
    previous: Fraction = Fraction(0)
    used: Fraction = Fraction(0)
    nominal: Fraction | None = None
    capacity: Fraction | None = None  # nominal + borrowingLimit; None = unknown (cohort without limit)
    available: Fraction | None = None  # what is left for this pod set after the earlier ones
    needed: Fraction | None = None
    detail: str = ""
    free: Fraction | None = None  # unused quota of the flavor now (limit - reserved), before this workload


@dataclass
class PodSetVerdict:
    demand: Demand
    verdict: str
    flavor: str | None = None  # the flavor it fits in (first in queue order)
    code: str | None = None  # QuotaExhausted | QuotaExceedsCapacity | NoMatchingFlavor | ResourceNotCovered
    checks: list[FlavorCheck] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)
    max_pods: int | None = None  # the most pods of this pod set the flavor could take now / ever

    @property
    def best(self) -> FlavorCheck | None:
        """The check that explains a block best: the smallest shortfall, else the first quota check."""
        quota = [c for c in self.checks if c.outcome == EXHAUSTED]
        if quota:
            return min(quota, key=lambda c: c.needed or Fraction(0))
        exceeds = [c for c in self.checks if c.outcome == EXCEEDS]
        if exceeds:
            return exceeds[0]
        return self.checks[0] if self.checks else None


@dataclass
class FlavorBar:
    flavor: str
    resource: str
    nominal: Fraction
    used: Fraction  # admitted (flavorsUsage)
    reserved: Fraction  # reserved but not admitted (flavorsReservation - flavorsUsage)
    needed: Fraction  # what the pending demands ask of this flavor


@dataclass
class QuotaResult:
    verdicts: list[PodSetVerdict]
    bars: list[FlavorBar]
    cohort: str | None = None


@dataclass
class _Quota:
    nominal: Fraction
    borrowing: Fraction | None


def _resource_groups(cq: dict[str, Any]) -> list[tuple[list[str], list[tuple[str, dict[str, _Quota]]]]]:
    spec = cq.get("spec") if isinstance(cq.get("spec"), dict) else {}
    out = []
    for rg in spec.get("resourceGroups") or []:
        if not isinstance(rg, dict):
            continue
        covered = [str(r) for r in rg.get("coveredResources") or [] if isinstance(r, str)]
        flavors = []
        for f in rg.get("flavors") or []:
            if not isinstance(f, dict) or not isinstance(f.get("name"), str):
                continue
            quotas: dict[str, _Quota] = {}
            for r in f.get("resources") or []:
                if not isinstance(r, dict) or not isinstance(r.get("name"), str):
                    continue
                nominal = try_parse(r.get("nominalQuota"))
                if nominal is None:
                    continue
                quotas[r["name"]] = _Quota(nominal, try_parse(r.get("borrowingLimit")))
            flavors.append((f["name"], quotas))
        out.append((covered, flavors))
    return out


def status_totals(cq: dict[str, Any], key: str) -> dict[tuple[str, str], Fraction]:
    """`status.flavorsReservation` / `status.flavorsUsage` as {(flavor, resource): total}."""
    status = cq.get("status") if isinstance(cq.get("status"), dict) else {}
    out: dict[tuple[str, str], Fraction] = {}
    for f in status.get(key) or []:
        if not isinstance(f, dict):
            continue
        for r in f.get("resources") or []:
            if isinstance(r, dict):
                q = try_parse(r.get("total"))
                if q is not None:
                    out[(str(f.get("name")), str(r.get("name")))] = q
    return out


def covered_resources(cq: dict[str, Any]) -> list[str]:
    return [r for covered, _ in _resource_groups(cq) for r in covered]


def _match_expr(expr: dict[str, Any], labels: dict[str, str], keys: set[str]) -> bool | None:
    """One matchExpression against a flavor's nodeLabels; None when no flavor of the group declares the key
    (Kueue judges only the label keys its resource group's flavors declare)."""
    key, op = expr.get("key"), expr.get("operator")
    values = [str(v) for v in expr.get("values") or []]
    if key not in keys:
        return None
    v = labels.get(str(key))
    if op == "In":
        return v in values
    if op == "NotIn":
        return v not in values
    if op == "Exists":
        return v is not None
    if op == "DoesNotExist":
        return v is None
    return None


def _affinity_ok(demand: Demand, labels: dict[str, str], keys: set[str]) -> bool:
    for k, v in demand.node_selector.items():
        if k in keys and labels.get(k) != str(v):
            return False
    if not demand.affinity_terms:
        return True
    for term in demand.affinity_terms:
        results = [_match_expr(e, labels, keys) for e in term if isinstance(e, dict)]
        if all(r is not False for r in results):
            return True
    return False


def _tolerates(tol: dict[str, Any], taint: dict[str, Any]) -> bool:
    if tol.get("effect") and tol.get("effect") != taint.get("effect"):
        return False
    if tol.get("operator") == "Exists":
        return not tol.get("key") or tol.get("key") == taint.get("key")
    return tol.get("key") == taint.get("key") and str(tol.get("value") or "") == str(taint.get("value") or "")


def _untolerated(demand: Demand, flavor: dict[str, Any]) -> dict[str, Any] | None:
    spec = flavor.get("spec") if isinstance(flavor.get("spec"), dict) else {}
    tols = [t for t in (spec.get("tolerations") or []) + demand.tolerations if isinstance(t, dict)]
    for taint in spec.get("nodeTaints") or []:
        if not isinstance(taint, dict) or taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not any(_tolerates(t, taint) for t in tols):
            return taint
    return None


def taint_text(taint: dict[str, Any]) -> str:
    """A taint as Kueue prints it (Go `%s` of a v1.Taint): `{key value Effect <nil>}`."""
    return f"{{{taint.get('key', '')} {taint.get('value', '')} {taint.get('effect', '')} <nil>}}"


def assign(
    cq: dict[str, Any],
    demands: list[Demand],
    flavors: dict[str, dict[str, Any] | None] | None = None,
) -> QuotaResult:
    """Place each pending demand in the first flavor that fits, in order; reserved demands are already
    counted in the queue's status. `flavors` maps names to ResourceFlavors (None = does not exist;
    absent = not read, so selectors and taints are not judged)."""
    flavors = flavors or {}
    groups = _resource_groups(cq)
    spec = cq.get("spec") if isinstance(cq.get("spec"), dict) else {}
    cohort = spec.get("cohortName") if isinstance(spec.get("cohortName"), str) and spec.get("cohortName") else None
    reserved_q = status_totals(cq, "flavorsReservation")
    usage_q = status_totals(cq, "flavorsUsage")
    taken: dict[tuple[str, str], Fraction] = {}  # tentative placements of earlier pending demands
    wanted: dict[tuple[str, str], Fraction] = {}  # everything the pending demands ask, per flavor
    verdicts: list[PodSetVerdict] = []
    for d in demands:
        if d.reserved:
            verdicts.append(PodSetVerdict(d, ADMITTED))
            continue
        v = PodSetVerdict(d, FITS)
        placements: list[tuple[str, str, Fraction]] = []
        touched = False
        for covered, fl in groups:
            res = {r: q for r, q in d.requests.items() if r in covered and q > 0}
            if not res:
                continue
            touched = True
            chosen, checks = _place(d, res, fl, flavors, cohort, reserved_q, taken)
            v.checks.extend(checks)
            if chosen is None:
                v.verdict = BLOCKED
                v.code = _code(checks)
                best = v.best
                if best is not None and best.resource is not None:
                    key = (best.flavor, best.resource)
                    wanted[key] = wanted.get(key, Fraction(0)) + res.get(best.resource, Fraction(0))
                    v.max_pods = _max_pods(best, d)
                    if best.outcome == EXHAUSTED:
                        # admitted together or not at all: later demands queue behind this shortfall
                        taken[key] = taken.get(key, Fraction(0)) + res.get(best.resource, Fraction(0))
            else:
                v.flavor = v.flavor or chosen
                placements.extend((chosen, r, q) for r, q in res.items())
        v.uncovered = sorted(r for r, q in d.requests.items()
                             if q > 0 and not any(r in covered for covered, _ in groups))
        if v.uncovered:
            v.verdict, v.code = BLOCKED, "ResourceNotCovered"
        if not touched and not v.uncovered and not d.requests:
            v.verdict = FITS  # asks nothing the queue counts
        if v.verdict == FITS:
            for f, r, q in placements:
                taken[(f, r)] = taken.get((f, r), Fraction(0)) + q
                wanted[(f, r)] = wanted.get((f, r), Fraction(0)) + q
        verdicts.append(v)
    bars = []
    for _covered, fl in groups:
        for fname, quotas in fl:
            for r, q in quotas.items():
                key = (fname, r)
                used = usage_q.get(key, Fraction(0))
                reserved = max(Fraction(0), reserved_q.get(key, Fraction(0)) - used)
                need = wanted.get(key, Fraction(0))
                if need or used or reserved:
                    bars.append(FlavorBar(fname, r, q.nominal, used, reserved, need))
    return QuotaResult(verdicts, bars, cohort)


def _place(
    d: Demand,
    res: dict[str, Fraction],
    fl: list[tuple[str, dict[str, _Quota]]],
    flavors: dict[str, dict[str, Any] | None],
    cohort: str | None,
    reserved_q: dict[tuple[str, str], Fraction],
    taken: dict[tuple[str, str], Fraction],
) -> tuple[str | None, list[FlavorCheck]]:
    checks: list[FlavorCheck] = []
    keys = {str(k) for fname, _ in fl for k in _node_labels(flavors.get(fname))}
    for fname, quotas in fl:
        if fname in flavors:
            fobj = flavors[fname]
            if fobj is None:
                checks.append(FlavorCheck(fname, NOT_FOUND, detail=f"flavor {fname} not found"))
                continue
            taint = _untolerated(d, fobj)
            if taint is not None:
                checks.append(FlavorCheck(fname, TAINT,
                                          detail=f"untolerated taint {taint_text(taint)} in flavor {fname}"))
                continue
            if not _affinity_ok(d, _node_labels(fobj), keys):
                checks.append(FlavorCheck(fname, AFFINITY, detail=f"flavor {fname} doesn't match node affinity"))
                continue
        worst: FlavorCheck | None = None
        for r, q in res.items():
            quota = quotas.get(r)
            if quota is None:
                worst = FlavorCheck(fname, EXCEEDS, r, q, capacity=Fraction(0), nominal=Fraction(0),
                                    available=Fraction(0), needed=q, detail=f"flavor {fname} has no quota for {r}")
                break
            prev = taken.get((fname, r), Fraction(0))
            used = reserved_q.get((fname, r), Fraction(0))
            if cohort is None:
                capacity: Fraction | None = quota.nominal
            elif quota.borrowing is not None:
                capacity = quota.nominal + quota.borrowing
            else:
                capacity = None
            limit = quota.nominal if cohort is None or quota.borrowing is None else quota.nominal + quota.borrowing
            available = max(Fraction(0), limit - used - prev)
            c = FlavorCheck(fname, OK, r, q, prev, used, quota.nominal, capacity, available,
                            free=max(Fraction(0), limit - used))
            if capacity is not None and prev + q > capacity:
                c.outcome, c.needed = EXCEEDS, prev + q - capacity
            elif used + prev + q > limit:
                c.outcome, c.needed = EXHAUSTED, used + prev + q - limit
            if c.outcome != OK and (worst is None or worst.outcome == EXHAUSTED):
                worst = c
        if worst is None:
            checks.append(FlavorCheck(fname, OK))
            return fname, checks
        checks.append(worst)
    return None, checks


def _node_labels(flavor: dict[str, Any] | None) -> dict[str, str]:
    spec = flavor.get("spec") if isinstance(flavor, dict) and isinstance(flavor.get("spec"), dict) else {}
    labels = spec.get("nodeLabels") if isinstance(spec.get("nodeLabels"), dict) else {}
    return {str(k): str(v) for k, v in labels.items()}


def by_role(verdicts: list[PodSetVerdict]) -> list[PodSetVerdict]:
    """Replicas of one role (one Workload each, the per-replica shape) blocked on the same flavor, as one
    verdict with the role's totals, in the same positions: the role needs N more, not each replica."""
    groups: dict[tuple[str, str, str], list[PodSetVerdict]] = {}
    for v in verdicts:
        b = v.best
        if v.verdict == BLOCKED and b is not None and b.outcome in (EXHAUSTED, EXCEEDS) and b.resource:
            groups.setdefault((v.demand.role, b.flavor, b.resource), []).append(v)
    out = list(verdicts)
    for (role, _flavor, res), vs in groups.items():
        if len(vs) < 2:
            continue
        first = vs[0].best
        assert first is not None
        requested = sum((v.best.requested or Fraction(0) for v in vs if v.best is not None), Fraction(0))
        d0 = vs[0].demand
        demand = Demand(role, d0.workload, d0.pod_set, sum(v.demand.count for v in vs), {res: requested},
                        size=d0.size)
        check = replace(first, requested=requested)
        if first.capacity is not None and first.previous + requested > first.capacity:
            check.outcome, check.needed = EXCEEDS, first.previous + requested - first.capacity
        else:
            check.outcome = EXHAUSTED
            check.needed = first.previous + requested - (first.free or Fraction(0))
        merged = PodSetVerdict(demand, BLOCKED, None, _code([check]), [check], [], None)
        merged.max_pods = _max_pods(check, demand)
        for v in vs:
            out[out.index(v)] = merged
    return out


def _code(checks: list[FlavorCheck]) -> str:
    outcomes = {c.outcome for c in checks}
    if EXHAUSTED in outcomes:
        return "QuotaExhausted"
    if EXCEEDS in outcomes:
        return "QuotaExceedsCapacity"
    return "NoMatchingFlavor"


def _max_pods(c: FlavorCheck, d: Demand) -> int | None:
    if c.requested is None or d.count <= 0 or c.requested <= 0:
        return None
    per_pod = c.requested / d.count
    if c.outcome == EXCEEDS:
        if c.capacity is None:
            return None
        room = c.capacity - c.previous
    else:
        room = c.available if c.available is not None else Fraction(0)
    return max(0, int(room // per_pod))
