"""Pure diagnosis: from the Facts read for one target to a Diagnosis (reasons, roles, queue).

Kueue's conditions and messages are read first (both the 0.18 `Pending`/`Inadmissible` free text and
the 0.19 reason tokens); our own quota arithmetic (quota.py) then gives every role a verdict and the
numbers, and still answers when Kueue has said nothing yet. Pod sets are named by role, never by hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from kubectl_pd import kube
from kubectl_pd.gpustack.model import ModelDeployment
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import messages as km
from kubectl_pd.kueue import preempt_answer as pa
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue import versions
from kubectl_pd.kueue.model import (
    PendingView,
    PendingWorkload,
    PodSet,
    Snapshot,
    Workload,
    pending_view,
)
from kubectl_pd.kueue.quantity import format_quantity
from kubectl_pd.labels import LWS_GROUP_INDEX, QUEUE_LABEL
from kubectl_pd.pending import md_v1, operator
from kubectl_pd.pending import suggest as sg
from kubectl_pd.pending.compose import Findings, PairEffect, QueueStanding, compose
from kubectl_pd.pending.gather import MAX_AHEAD, Facts
from kubectl_pd.pending.model import (
    CODES,
    Ahead,
    Diagnosis,
    Held,
    PartlyAdmitted,
    Placement,
    Reason,
    RoleRow,
    Say,
    WorkloadRow,
    more,
    read_only,
    say,
    short,
)
from kubectl_pd.pending.pods import KUEUE_GATE, KUEUE_GATES
from kubectl_pd.pending.pods import gates as pod_gates
from kubectl_pd.pending.pods import ignored_selector as pod_ignored_selector
from kubectl_pd.pending.pods import node_fits as pod_node_fits
from kubectl_pd.pending.pods import unschedulable as pod_unschedulable
from kubectl_pd.pending.pods import waiting as pod_waiting
from kubectl_pd.pending.queues import STRUCTURAL, cq_of_queue, structural
from kubectl_pd.pending.roles import (
    COMPONENT,
    FAST_ADMISSION,
    TOTAL_COUNT,
    DeploymentRole,
    Unit,
    group_want,
    md_roles,
    role_order,
    role_size,
    runnable,
)
from kubectl_pd.pending.say import OnFlavor
from kubectl_pd.pending.target import OWNER_KINDS, Target
from kubectl_pd.pending.workload import verdict_reasons, workload_reasons
from kubectl_pd.records import dataclass, replace
from kubectl_pd.registry import reason_priority

Verdicts = dict[tuple[str, str], vd.PodSetVerdict]  # (workload, pod set) -> our arithmetic's verdict
MAX_ROLES_018 = versions.MAX_ROLES[(0, 18)]  # kueue/versions.py, the one place
MAX_ROLES_019 = versions.MAX_ROLES[(0, 19)]


def diagnose(facts: Facts, now: datetime | None = None, what_if: dict[str, int] | None = None,
             preempt: pa.Judge = pa.POLICY_ONLY, order: tuple[str, ...] | None = None,
             decided: Mapping[str, Reason | None] | None = None) -> Diagnosis:
    """Explain the target. Never raises on odd input: what it cannot read it calls Unknown. `what_if`
    (role -> replicas) re-diagnoses a changed demand against the same cluster, writing nothing. `preempt`
    judges each Workload: its one assignment with its preemption answer (kueue/preempt_answer.PreemptionView.judge:
    the real preemption oracle when the admitted Workloads were read; by default the policy-only oracle, which
    reads nothing); the answers are the Diagnosis's `preemption`. `order` runs the
    independent steps over the whole target (LATE_STEPS) in another order: the Diagnosis is the same. `decided`: what
    another part of the answer decided of an admission check, by name, from its own reads (pending/run.Alongside:
    MultiKueue's workers): a reason stands for the check's wait, so the headline comes from it; None keeps the wait,
    and either way the wait's `next:` is that part's own (its steps), not a generic one."""
    md = facts.deployment
    notes = list(facts.notes)
    units = _units(facts)
    all_roles = md_roles(md) or _roles_seen(facts, units)
    role_names = {r.name for r in all_roles}
    shape = _shape(facts, units, role_names, facts.pods)
    _compose(facts, units, all_roles, role_names)  # 1. pod groups: their roles and queue
    checks = {u.group: _group_checks(u, facts, all_roles, role_names, shape) for u in units}  # complete, composed?
    ctx = Context(facts=facts, units=units, roles=_own_roles(facts, units, all_roles), role_names=role_names,
                  shape=shape, what_if=dict(what_if or {}), now=now or datetime.now(UTC), answers=pa.Answers(preempt))
    of_md = md if md is not None and facts.target.kind == "ModelDeployment" else None
    reasons = _missing_groups(ctx, of_md) if of_md is not None else []
    if of_md is not None:
        notes.extend(_operator_condition(of_md))
        notes.extend(operator.notes(of_md))  # phase, ready summary, the operator's other conditions (v1alpha1 and v1)
    # 2. quota arithmetic per ClusterQueue, all pending demands together (atomic admission)
    verdicts, bars_by_cq, joint, suggestions = _arithmetic(ctx)
    notes.extend(n for n in facts.notes if n not in notes)  # what the engine's snapshot could not know
    going = [u for u in units if u.group and _is_going(u)]
    by_unit = _by_unit(ctx, checks, _stories(ctx, verdicts, notes), going)  # 3. each Workload's own
    reasons.extend(r for u in units for r in by_unit[u.group])
    reasons.extend(_queue_reasons_without_workload(ctx))
    reasons.extend(_once_composed(reasons, verdicts, units))
    if of_md is not None:
        reasons = operator.judge(of_md, reasons)  # the operator's verdict over the whole set, its weights first
    partly = partly_admitted(units)
    reasons.extend(_partly_reason(partly, facts.target, [u for u in units if u not in going]))
    reasons, by_part = _decided_checks(reasons, decided or {})
    reasons, pending = _settle(reasons, units, md)
    found = _late_steps(ctx, verdicts, by_unit, order)  # 4. the steps over the whole target, in any order
    gone = bool(units) and len(going) == len(units)  # the whole target is going away: no quota story at all
    return _diagnosis(ctx, _Said(_with_findings(reasons, found), pending, notes, gone, partly, by_part), found,
                      (bars_by_cq, joint, suggestions))


def _decided_checks(reasons: list[Reason], checks: Mapping[str, Reason | None]) -> tuple[list[Reason], bool]:
    """The reasons with each wait on an admission check another part answers (CHECKS, by check name) replaced by
    that part's reason (the same Workload's), else kept without a `next:` of its own (the part's steps say what to
    do); whether any was."""
    out: list[Reason] = []
    decided = False
    for r in reasons:
        check = r.message.args.get("check", "") if r.code == "AdmissionCheckPending" else None
        if check is None or check not in checks:
            out.append(r)
            continue
        d = checks[check]
        out.append(d if d is not None and d.workload == r.workload else replace(r, hint=None))
        decided = True
    return out, decided


@dataclass(frozen=True)
class _Said:
    """What the steps concluded: the reasons, whether pending, the notes, and whether the whole target is going."""

    reasons: list[Reason]
    pending: bool
    notes: list[Any]
    gone: bool
    partly: PartlyAdmitted | None = None
    decided: bool = False  # a check's wait decided by another part (its next steps are that part's own)


def _by_unit(ctx: Context, checks: dict[str, list[Reason]], stories: dict[str, Any], going: list[Any]
             ) -> dict[str, list[Reason]]:
    """Each pod group's reasons: its own checks, then its Workload's story (none for a group going away)."""
    return {u.group: [*checks[u.group], *(stories.get(u.group, ()) if u not in going else ())] for u in ctx.units}


def _with_findings(reasons: list[Reason], found: Any) -> list[Reason]:
    """Each reason with what applies to it: the queue's standing, and a preempted group's pair."""
    queue = found.queue
    on_queue = Findings(standing=queue.standing)
    return [compose(r, on_queue if (pair := found.pairs.get(r.workload or "")) is None
                    else Findings(pair=pair, standing=queue.standing)) for r in reasons]


def _diagnosis(ctx: Context, said: _Said, found: Any, quota: tuple[Any, Any, Any]) -> Diagnosis:
    """The one record every screen of the target is printed from."""
    facts, units, queue = ctx.facts, ctx.units, found.queue
    reasons, pending, notes, gone = said.reasons, said.pending, said.notes, said.gone
    bars_by_cq, joint, suggestions = quota
    rows = [replace(row, verdict=DELETING) for row in found.rows] if gone else found.rows
    hints = _hints(reasons)
    if pending and not hints and not said.decided:  # a decided check's steps are said by its part (MultiKueue's)
        hints.append(say("next.describe-workload", ns=facts.target.namespace,
                         name=units[0].group if units else facts.target.name))
    return Diagnosis(target=facts.target, pending=pending, reasons=reasons, roles=rows,
                     local_queue=queue.local_queue, cluster_queue=queue.cluster_queue, position=queue.position,
                     position_in_local_queue=queue.position_in_local_queue, bars=_bars(bars_by_cq, queue.cluster_queue),
                     notes=notes, hints=hints, joint={} if gone else dict(joint), shape=ctx.shape,
                     suggestions=suggestions if pending and not gone else [], what_if=dict(ctx.what_if),
                     ahead=queue.ahead,
                     visibility=queue.standing.visibility, cq_pending=queue.standing.cq_pending,
                     deployment=md_v1.with_status(facts.deployment) if facts.target.kind == "ModelDeployment"
                     else None, placements=_placements(facts), workloads=workload_rows(facts.target, units),
                     partly=said.partly, preemption=ctx.answers.of_facts(facts))


def workload_rows(target: Target, units: list[Unit]) -> list[WorkloadRow]:
    """One row per Workload of a deployment of many (what a PD framework makes, or more than one Workload read):
    its roles, its group (an LWS group's index, a GPUStack replica's ordinal) and whether Kueue admitted it."""
    with_wl = [u for u in units if u.workload is not None]
    if target.kind not in OWNER_KINDS and len(with_wl) < 2:
        return []
    return [WorkloadRow(u.workload.name or u.group, ",".join(u.roles) or None, _group_index(u), u.workload.admitted)
            for u in with_wl if u.workload is not None]


GROUP_INDEX_LABELS = (LWS_GROUP_INDEX, "modeldeployment.gpustack.ai/pod-ordinal")  # an LWS group's, a replica's


def _group_index(u: Unit) -> str | None:
    """The group the unit's Pods name (LWS's group index, GPUStack's replica ordinal); None: none does."""
    return next((v for p in u.pods for key in GROUP_INDEX_LABELS if (v := p.labels.get(key))), None)


def partly_admitted(units: list[Unit]) -> PartlyAdmitted | None:
    """Some of the target's Workloads admitted, others waiting (none finished): which roles run (any of their
    Workloads admitted), which wait (any waiting: a role's verdict is taken from all its Workloads), and what the
    admitted hold per flavor and resource (status.admission's resourceUsage). None: not such a target."""
    live = [u for u in units if u.workload is not None and not u.workload.finished]
    admitted = [u for u in live if u.workload is not None and u.workload.admitted]
    waiting = [u for u in live if u not in admitted]
    if not admitted or not waiting:
        return None
    held: dict[tuple[str, str], Fraction] = {}
    for u in admitted:
        for psa in u.workload.admission if u.workload is not None else ():
            for res, q in (psa.usage or {}).items():
                key = (psa.flavors.get(res) or "?", res)
                held[key] = held.get(key, Fraction(0)) + q
    return PartlyAdmitted(
        admitted_roles=tuple(dict.fromkeys(r for u in admitted for r in u.roles)),
        waiting_roles=tuple(dict.fromkeys(r for u in waiting for r in u.roles)),
        waiting_workloads=tuple(u.group for u in waiting),
        held=tuple(Held(f, res, q) for (f, res), q in sorted(held.items())),
        admitted_workloads=tuple(u.group for u in admitted))


def _partly_reason(p: PartlyAdmitted | None, target: Target, units: list[Unit]) -> list[Reason]:
    """PartlyAdmitted, for what a PD framework makes (a GPUStack deployment says it through its operator's
    verdict and the preempted pair): the roles, the Workloads that wait, the quota held."""
    if p is None or target.kind not in OWNER_KINDS or not any(u.group in p.waiting_workloads for u in units):
        return []
    held = [{"flavor": h.flavor, "resource": h.resource, "quantity": format_quantity(h.quantity, h.resource)}
            for h in p.held]
    params = {"admittedRoles": list(p.admitted_roles), "waitingRoles": list(p.waiting_roles),
              "lackingRoles": list(p.lacking), "admittedWorkloads": list(p.admitted_workloads),
              "waitingWorkloads": list(p.waiting_workloads), "held": held}
    msg = say("partly.admitted", admitted=list(p.admitted_roles), lacking=list(p.lacking),
              counts=(len(p.admitted_workloads), len(p.waiting_workloads)), held=held)
    hint = say("next.atomic", kind=target.kind) if p.lacking else None  # roles admitted apart: together, or none
    return [Reason("PartlyAdmitted", msg, params=read_only(params), hint=hint)]


def _placements(facts: Facts) -> list[Placement]:
    """The target's Workloads a MultiKueue worker admitted or holds a copy of (the manager's own words)."""
    return [Placement(wl.name, wl.cluster_name, wl.nominated) for wl in facts.workloads.values()
            if wl is not None and (wl.cluster_name or wl.nominated)]


@dataclass(frozen=True)
class Context:
    """What the steps share about one target: its facts, its pod groups, its roles (the target's own, and
    every role's name), its shape, the --what-if sizes assumed, the time and the preemption answers its
    assignments return (kueue/preempt_answer.Answers: one diagnosis's)."""

    facts: Facts
    units: list[Unit]
    roles: list[DeploymentRole]
    role_names: set[str]
    shape: str
    what_if: dict[str, int]
    now: datetime
    answers: pa.Answers


@dataclass(frozen=True)
class QueuePlace:
    """The queue step's finding: the target's queues, its place in the ClusterQueue, the Workloads ahead."""

    local_queue: str | None
    cluster_queue: str | None
    position: int | None
    position_in_local_queue: int | None
    ahead: list[Ahead] | None
    standing: QueueStanding


@dataclass(frozen=True)
class Late:
    """What the steps over the whole target found, each independent of the others."""

    queue: QueuePlace
    pairs: dict[str, PairEffect]
    rows: list[RoleRow]


def _queue_step(ctx: Context, verdicts: Verdicts, by_unit: dict[str, list[Reason]]) -> QueuePlace:
    facts, units, ns = ctx.facts, ctx.units, ctx.facts.target.namespace
    lq, cq = _queue_names(facts, units)
    position, lq_position = _position(facts, units, cq, ns)
    ahead = _ahead(facts, units, cq, ns)
    return QueuePlace(local_queue=lq, cluster_queue=cq, position=position, position_in_local_queue=lq_position,
                      ahead=ahead, standing=_standing(facts, cq, position, ahead, bool(ctx.what_if)))


def _pairs_step(ctx: Context, verdicts: Verdicts, by_unit: dict[str, list[Reason]]) -> dict[str, PairEffect]:
    return _pair_effects(ctx.units, ctx.facts, by_unit)


def _rows_step(ctx: Context, verdicts: Verdicts, by_unit: dict[str, list[Reason]]) -> list[RoleRow]:
    return _role_rows(ctx, verdicts)


LATE_STEPS = {"queue": _queue_step, "pairs": _pairs_step, "rows": _rows_step}  # name -> step; Late's fields


def _late_steps(ctx: Context, verdicts: Verdicts, by_unit: dict[str, list[Reason]],
                order: tuple[str, ...] | None) -> Late:
    """Each step over the whole target, in `order` (by default as listed): none reads what another found."""
    if order is None:
        return Late(queue=_queue_step(ctx, verdicts, by_unit), pairs=_pairs_step(ctx, verdicts, by_unit),
                    rows=_rows_step(ctx, verdicts, by_unit))
    found: dict[str, Any] = {}
    for name in order:
        found[name] = LATE_STEPS[name](ctx, verdicts, by_unit)
    return Late(queue=found["queue"], pairs=found["pairs"], rows=found["rows"])


def _units(facts: Facts) -> list[Unit]:
    """One unit per pod group (its pods and Workload); the lone pods of a target without a group."""
    units = [Unit(g, [p for p in facts.pods if facts.group_of(p) == g], facts.workloads.get(g), g in facts.workloads)
             for g in facts.groups]
    loose = [p for p in facts.pods if not facts.group_of(p)]
    if loose and not units:
        units.append(Unit("", loose, None, False))
    return units


def _roles_seen(facts: Facts, units: list[Unit]) -> list[DeploymentRole]:
    """Roles seen without a deployment: from pods and pod sets."""
    seen: dict[str, None] = {}
    for u in units:
        for ps in _pod_sets(facts, u):
            seen.setdefault(u.podset_role(ps, set()), None)
        for p in u.pods:
            seen.setdefault(u.role_of(p, set()), None)
    return [DeploymentRole(n, _kind_of(n, facts.pods), None, 1, None) for n in seen]


def _compose(facts: Facts, units: list[Unit], roles: list[DeploymentRole], role_names: set[str]) -> None:
    """Each group's roles and queue (what keeps Kueue from composing it is _group_checks')."""
    for u in units:
        u.roles = sorted({u.role_of(p, role_names) for p in u.pods}, key=lambda r: role_order(r, roles))
        if u.workload is not None:
            for ps in _pod_sets(facts, u):
                r = u.podset_role(ps, role_names)
                if r not in u.roles:
                    u.roles.append(r)
            u.queue = u.workload.queue_name
        if u.pods and not u.queue:
            u.queue = u.pods[0].labels.get(QUEUE_LABEL)


def _own_roles(facts: Facts, units: list[Unit], roles: list[DeploymentRole]) -> list[DeploymentRole]:
    """A group or Workload target shows only its own roles."""
    if facts.target.kind == "ModelDeployment":
        return roles
    mine = {r for u in units for r in u.roles}
    if mine and any(r.name in mine for r in roles):
        return [r for r in roles if r.name in mine]
    return roles


def _stories(ctx: Context, verdicts: Verdicts, notes: list[Say]) -> dict[str, list[Reason]]:
    """Each Workload's own story; admitted is not running: then the Pods say what holds them."""
    facts, hypothetical = ctx.facts, bool(ctx.what_if)
    out: dict[str, list[Reason]] = {}
    for u in ctx.units:
        if u.workload is None:
            continue
        one_role = u.roles[0] if len(u.roles) == 1 and ctx.shape == "per-replica" else None
        found = Findings(role=one_role)
        story = [compose(r, found) if one_role is not None else r
                 for r in workload_reasons(u, facts, verdicts, ctx.now, notes, hypothetical=hypothetical)]
        after = _after_admission(u, facts, ctx.role_names) if u.workload.admitted else []
        out[u.group] = [r for r in story if r.code != "NotPending"] + after if after else story
    return out


def _once_composed(reasons: list[Reason], verdicts: dict[tuple[str, str], vd.PodSetVerdict],
                   units: list[Unit]) -> list[Reason]:
    """Secondary: even a not-yet-composed group gets the arithmetic's verdict."""
    if not any(r.code in ("PodGroupIncomplete", "WorkloadMissing") for r in reasons):
        return []
    out = []
    for (wl, _ps), v in verdicts.items():
        unit = next((u for u in units if u.group == wl), None)
        if unit is not None and unit.workload is None and v.verdict == vd.BLOCKED:
            out.extend(verdict_reasons(v, None, wl, prefix="once composed, "))
    return out


DELETING = "deleting"  # a role's verdict while its group is going away (as `kubectl pd tree` says it)


def _settle(reasons: list[Reason], units: list[Unit], md: ModelDeployment | None) -> tuple[list[Reason], bool]:
    """One reason per thing, most important first; whether the target is pending at all."""
    reasons = _dedupe(reasons)
    pending_reasons = [r for r in reasons if r.code != "NotPending"]
    pending = bool(pending_reasons) or not units and md is None
    if not reasons:
        if not units:
            reasons.append(Reason("Unknown", say("target.nothing-found")))
        else:
            reasons.append(Reason("NotPending", say("target.all-admitted")))
    elif pending_reasons:
        reasons = sorted(pending_reasons, key=_priority)
    return reasons, pending


def _hints(reasons: list[Reason]) -> list[Say]:
    """Each reason's next step once, in order."""
    out: dict[tuple[str, str], Say] = {}
    for r in reasons:
        h = r.hint
        if h is not None:
            # "free N in flavor F" is one step whether a role or the roles together need it: said once
            key = repr((h.args.get("amount"), h.args.get("resource"), h.args.get("flavor"))) \
                if h.id == "next.free" else repr(h.args)
            out.setdefault((h.id, key), h)
    return list(out.values())


def _queue_knowledge(facts: Facts, cq: str | None, position: int | None) -> tuple[str, int | None]:
    """Whether the ClusterQueue's pending Workloads were read (and ours among them), and its own count."""
    obj = facts.cluster_queues.get(cq or "")
    cq_pending = obj.pending_workloads if obj is not None else None
    if cq not in facts.pending:
        return "not-read", cq_pending
    if facts.pending[cq] is None:
        return "not-served", cq_pending
    return ("listed" if position is not None else "not-listed"), cq_pending


def _standing(facts: Facts, cq: str | None, position: int | None, ahead: list[Ahead] | None,
              hypothetical: bool) -> QueueStanding:
    """What was read of the target's place in its ClusterQueue, for compose: the position, what the
    Workloads ahead ask together, whether the queue was listed, its own pending count."""
    visibility, cq_pending = _queue_knowledge(facts, cq, position)
    return QueueStanding(cq=cq, position=position, visibility=visibility, cq_pending=cq_pending,
                         ahead_requests=_ahead_requests(ahead, position), hypothetical=hypothetical)


def _ahead_requests(ahead: list[Ahead] | None, position: int | None) -> dict[str, Fraction] | None:
    """What the Workloads ahead ask together: only when every one of them is listed and was read."""
    if not ahead or position is None or len(ahead) != position - 1 or not all(a.requests is not None for a in ahead):
        return None
    before: dict[str, Fraction] = {}
    for a in ahead:
        for res, q in (a.requests or {}).items():
            before[res] = before.get(res, Fraction(0)) + q
    return before


def _pod_sets(facts: Facts, u: Unit) -> tuple[PodSet, ...]:
    return u.workload.pod_sets if u.workload is not None else ()


def _missing_groups(ctx: Context, md: ModelDeployment) -> list[Reason]:
    roles, units, shape, ns = ctx.roles, ctx.units, ctx.shape, ctx.facts.target.namespace
    out = []
    hint_of = {r.name: say("next.operator", role=r.name, md=md.name, ns=ns) for r in roles}
    for r in roles:
        want = (r.replicas or 0) * r.size
        groups = [u for u in units if r.name in u.roles]
        if not groups and want:
            out.append(Reason("PodGroupIncomplete", say("role.no-group", role=r.name, want=want), role=r.name,
                              hint=hint_of[r.name]))
        elif shape == "per-replica" and r.replicas and len(groups) < r.replicas and all(
                u.roles == [r.name] for u in groups):
            out.append(Reason("PodGroupIncomplete", say("role.replica-groups", role=r.name, have=len(groups),
                                                        want=r.replicas), role=r.name, hint=hint_of[r.name]))
    return out


def _operator_condition(md: ModelDeployment) -> list[Say]:
    """GPUStack's own QuotaReserved verdict over all of the deployment's Workloads, as a note."""
    c = md.conditions.get("QuotaReserved")
    if c is None or c.true:
        return []
    return [say("note.operator", status=c.status, reason=c.reason, message=c.message)]


def _kind_of(role: str, pods: list[kube.Pod]) -> str:
    for p in pods:
        if p.labels.get(COMPONENT) == role:
            k = p.labels.get("modeldeployment.gpustack.ai/role-kind")
            if k:
                return k.lower()
    return role if role in ("prefill", "decode") else "-"


def _shape(facts: Facts, units: list[Unit], role_names: set[str], pods: list[kube.Pod]) -> str:
    multi = any(len({u.role_of(p, role_names) for p in u.pods}) > 1
                or len({u.podset_role(ps, role_names) for ps in _pod_sets(facts, u)}) > 1 for u in units)
    if multi:
        return "pd-atomic"
    if len([u for u in units if u.group]) > 1 or any(
            "modeldeployment.gpustack.ai/pod-ordinal" in p.label_keys for p in pods):
        return "per-replica"
    return "single"


def _compose_events(facts: Facts, u: Unit) -> list[km.ComposeError]:
    names = {p.name for p in u.pods} | {u.group}
    out = []
    for e in facts.events:
        if e.involved_name in names and e.reason in ("ErrWorkloadCompose", "WorkloadNameConflict"):
            out.append(km.parse_compose_error(e.message))
    return out


def _group_checks(u: Unit, facts: Facts, roles: list[DeploymentRole], role_names: set[str], shape: str) -> list[Reason]:
    """A group Kueue refuses to compose (PodGroupInvalid), else one not composed yet (incomplete, missing)."""
    if not u.group:
        return []
    if _is_going(u):  # no compose or quota verdict applies to Pods being deleted; a deployment's operator says it
        return _terminating(u, facts) if facts.target.kind != "ModelDeployment" else []
    composes = _compose_events(facts, u)
    out = _disagreements(u, composes) + _fast_admission(u, facts) + _too_many_roles(u, composes, role_names)
    out += _compose_conflicts(u, composes, out)
    if out or u.workload is not None or not u.read:
        return out
    return _not_composed(u, facts, roles, role_names, shape, composes)


def _is_going(u: Unit) -> bool:
    """Every Pod of the group is being deleted, or Kueue waits for replacement Pods; not a group Kueue evicted
    (its Pods go because Kueue stopped them, and its Workload waits to be admitted again: issue 46 item 10)."""
    if u.workload is not None and (u.workload.admitted or _evicted(u.workload)):
        return False  # Kueue still holds its quota: admitted, not pending, whatever its Pods do
    cond = u.workload.condition("WaitingForReplacementPods") if u.workload is not None else None
    return (cond is not None and cond.status == "True") or (bool(u.pods) and all(p.deleting for p in u.pods))


def _evicted(wl: Workload) -> bool:
    """Kueue evicted (or preempted) the Workload and has not admitted it again: it stops the group by deleting its
    Pods and, for a pod group, waits for replacements under the eviction's reason (pod_controller.go
    waitingForReplacementPodsCondition@v0.19.2)."""
    return any((c := wl.condition(t)) is not None and c.true for t in ("Evicted", "Preempted"))


def _terminating(u: Unit, facts: Facts) -> list[Reason]:
    """Every Pod of the group has a deletionTimestamp, or Kueue says the Workload waits for replacement Pods
    (`WaitingForReplacementPods=True`): the group is going away or being replaced, before any quota verdict."""
    cond = u.workload.condition("WaitingForReplacementPods") if u.workload is not None else None
    replacing = cond is not None and cond.status == "True"
    deleting = sum(1 for p in u.pods if p.deleting)
    ns = facts.target.namespace
    held = _held_by_finalizers(u.pods)
    hint = (say("next.finalizers", g=u.group, ns=ns, held=held,
                pods=[p.name for p in u.pods if p.deleting and p.finalizers])
            if held else say("next.wait-terminating", g=u.group, ns=ns))
    return [Reason("AllReplicasTerminating",
                   say("group.terminating", g=u.group, deleting=deleting, pods=len(u.pods), replacing=replacing,
                       held=held),
                   workload=u.group, kueue_message=cond.message if replacing and cond is not None else None,
                   params=read_only({"deleting": deleting, "pods": len(u.pods),
                                     "waitingForReplacementPods": replacing, "heldByFinalizers": held}),
                   hint=hint)]


def _held_by_finalizers(pods: list[kube.Pod]) -> dict[str, int]:
    """Finalizer -> how many of the Pods being deleted it alone still holds: nothing runs of them any more (their
    phase is Succeeded or Failed, or they never reached a Node), so a deleted Pod goes only once every finalizer
    is off (Kueue's `kueue.x-k8s.io/managed` on its pod groups, or another controller's). A Pod still shutting
    down on its Node is not counted: it may go by itself."""
    out: dict[str, int] = {}
    for p in pods:
        if p.deleting and (p.phase in ("Succeeded", "Failed") or p.node_name is None):
            for f in dict.fromkeys(p.finalizers):
                out[f] = out.get(f, 0) + 1
    return dict(sorted(out.items()))


def _disagreements(u: Unit, composes: list[km.ComposeError]) -> list[Reason]:
    """Pods of one group that disagree on the queue or the total count."""
    g = u.group
    kmsg = next((c.text for c in composes if c.kind != "fewer-pods"), None)
    queues = {p.labels.get(QUEUE_LABEL) for p in u.pods}
    counts = {p.annotations.get(TOTAL_COUNT) for p in u.pods}
    out = []
    if len(queues) > 1:
        out.append(Reason("PodGroupInvalid", say("group.queues-differ", g=g, values=sorted(str(q) for q in queues)),
                          workload=g, kueue_message=kmsg,
                          hint=say("next.one-queue", g=g)))
    if len(counts) > 1:
        out.append(Reason("PodGroupInvalid", say("group.counts-differ", g=g, values=sorted(str(c) for c in counts)),
                          workload=g, kueue_message=kmsg,
                          hint=say("next.one-count", g=g)))
    return out


def _fast_admission(u: Unit, facts: Facts) -> list[Reason]:
    fast = [p for p in u.pods if p.annotations.get(FAST_ADMISSION) == "true"]
    if not fast or (u.workload is not None and u.workload.admitted):
        return []
    if len(set(u.roles)) < 2:  # one role collapses into nothing: Kueue's StatefulSet integration sets it on its own
        return []  # Pods (statefulset_pod_reconciler.go:165@v0.19.2), a group of one role, composed as asked
    return [Reason("PodGroupInvalid", say("group.fast-admission", g=u.group, roles=list(u.roles)), workload=u.group,
                   hint=say("next.no-fast-admission"))]


def _too_many_roles(u: Unit, composes: list[km.ComposeError], role_names: set[str]) -> list[Reason]:
    hashes = {u.mark(p)[0] or u.role_of(p, role_names) for p in u.pods if runnable(p)}
    too_many = next((c for c in composes if c.kind == "too-many-roles"), None)
    if too_many is None and len(hashes) <= MAX_ROLES_018:
        return []
    limits = None if too_many else (MAX_ROLES_018, MAX_ROLES_019)
    return [Reason("PodGroupInvalid", say("group.too-many-roles", g=u.group, roles=len(hashes), limits=limits),
                   workload=u.group, kueue_message=too_many.text if too_many else None,
                   hint=say("next.split"))]


def _compose_conflicts(u: Unit, composes: list[km.ComposeError], said: list[Reason]) -> list[Reason]:
    out: list[Reason] = []
    for c in composes:
        if c.kind in ("name-conflict", "label-conflict", "queue-mismatch", "count-mismatch") and not any(
                r.kueue_message == c.text for r in said + out):
            out.append(Reason("PodGroupInvalid", say("group.not-composable", g=u.group), workload=u.group,
                              kueue_message=c.text,
                              hint=say("next.delete-conflict", g=u.group) if c.kind == "name-conflict" else None))
    return out


def _not_composed(u: Unit, facts: Facts, roles: list[DeploymentRole], role_names: set[str], shape: str,
                  composes: list[km.ComposeError]) -> list[Reason]:
    """No Workload: the group is incomplete (which roles lack pods), or complete and not composed yet."""
    g, ns = u.group, facts.target.namespace
    want = group_want(u)
    have = sum(1 for p in u.pods if runnable(p))
    fewer = next((c for c in composes if c.kind == "fewer-pods"), None)
    kmsg = fewer.text if fewer else None
    if want is not None and have < want:
        per_role = _per_role_have_want(u, facts, roles, role_names, shape)
        if per_role and all(w is None for _r, _h, w in per_role):  # what roles the missing Pods have is not known:
            seen = {r: h for r, h, _w in per_role}  # none is invented (issue 46, finding 8)
            return [Reason("PodGroupIncomplete", say("group.incomplete", g=g, have=have, want=want, roles=None),
                           workload=g, kueue_message=kmsg,
                           params=read_only({"have": have, "want": want, "rolesSeen": seen, "missingRoles": None}),
                           hint=say("next.create-pods", role=None, ns=ns, g=g, missing=want - have))]
        short_of = [(r, h, w) for r, h, w in per_role if w is None or h < w]
        out = [Reason("PodGroupIncomplete", say("group.incomplete", g=g, have=have, want=want, roles=short_of), role=r,
                      workload=g, kueue_message=kmsg,
                      hint=say("next.create-pods", role=r, ns=ns, g=g))
               for r, h, w in per_role if w is None or h < w]
        if not per_role:
            out.append(Reason("PodGroupIncomplete", say("group.incomplete", g=g, have=have, want=want, roles=None),
                              workload=g, kueue_message=kmsg))
        return out
    return [Reason("WorkloadMissing", say("group.not-composed", g=g, have=have, stale=kmsg), workload=g,
                   kueue_message=kmsg,
                   hint=say("next.check-kueue", ns=ns, name=u.pods[0].name if u.pods else g))]


def _per_role_have_want(u: Unit, facts: Facts, roles: list[DeploymentRole], role_names: set[str],
                        shape: str) -> list[tuple[str, int, int | None]]:
    have: dict[str, int] = {}
    for p in u.pods:
        if runnable(p):
            name = u.role_of(p, role_names)
            have[name] = have.get(name, 0) + 1
    out: list[tuple[str, int, int | None]] = []
    want_total = group_want(u)
    for r in roles:
        if shape == "pd-atomic" or len(u.roles) > 1:
            if r.replicas is None:
                if r.name in have:
                    out.append((r.name, have[r.name], None))
                continue
            out.append((r.name, have.get(r.name, 0), r.replicas * r.size))
        elif r.name in u.roles:  # the group's total is this role's when a deployment says so, or all Pods exist
            out.append((r.name, have.get(r.name, 0),
                        want_total if r.replicas is not None or not _incomplete(u) else None))
    if not out:  # no deployment says each role's count: the group's total is one role's only when it is complete
        whole = want_total if not _incomplete(u) else None
        for name in u.roles:
            out.append((name, have.get(name, 0), whole if len(u.roles) == 1 else None))
    return out


def _incomplete(u: Unit) -> bool:
    """Fewer runnable Pods than the group's total count: what roles the missing ones have is not known."""
    want = group_want(u)
    return want is not None and sum(1 for p in u.pods if runnable(p)) < want


def _demands(ctx: Context, u: Unit) -> list[tuple[vd.RoleDemand, ad.PodSetDemand]]:
    facts, roles, role_names = ctx.facts, ctx.roles, ctx.role_names
    sizes = {r.name: r.size for r in roles}
    limits = tuple(facts.limit_ranges)
    if u.workload is not None:
        wl = u.workload
        role_of = {ps.name: u.podset_role(ps, role_names) for ps in wl.pod_sets}
        specs: dict[str, PodSet] = {}
        for p in u.pods:
            specs.setdefault(u.role_of(p, role_names), p.template)
        return vd.pod_set_demands(wl, u.group, role_of, specs, sizes, limits)
    # no Workload: what Kueue would compose, one pod set per role, count = the role's share
    by_role: dict[str, list[kube.Pod]] = {}
    for p in u.pods:
        by_role.setdefault(u.role_of(p, role_names), []).append(p)
    want_total = group_want(u)
    out = []
    for r, pods in by_role.items():
        role = next((x for x in roles if x.name == r), None)
        if len(by_role) == 1 and want_total and not _incomplete(u):
            count = want_total
        elif role is not None and role.replicas:
            count = role.replicas * role.size
        else:
            count = len(pods)
        out.append(vd.template_demand(r, u.group, count, pods[0].template, role_size(r, roles), limits))
    return out


def _read_snapshot(facts: Facts) -> Snapshot:
    """Snapshot.read, once per set of objects: the targets of one run (-A) share the objects they read
    (facts.run is the run's), so 2,000 Workloads on one queue parse that queue once, not 2,000 times.
    Found by value: the names read, the records checked equal (gather.engine_snapshot)."""
    from kubectl_pd.pending.gather import engine_snapshot

    return engine_snapshot(facts)  # the preemption plan of the gather step reads the same one


def snapshot_of(facts: Facts) -> Snapshot:
    """The engine's view of what was read; a cohort whose peers could not be read stays unknown. A file
    that holds a queue naming a cohort but none of its other members (nor the Cohort) did not carry the
    cohort: what it may lend is unknown, not nothing."""
    snap = _read_snapshot(facts)
    for name, c in snap.lone:
        facts.notes.append(say("note.lone-in-cohort", cohort=c, cq=name))
    return snap


def _arithmetic(ctx: Context) -> tuple[Verdicts, dict[str, list[vd.FlavorBar]], dict[tuple[str, str], Fraction],
                                       list[sg.Suggestion]]:
    facts, units, roles, what_if = ctx.facts, ctx.units, ctx.roles, ctx.what_if
    by_cq: dict[str, vd.QueueDemand] = {}
    for u in units:
        if u.workload is not None and u.workload.finished:
            continue
        cq = (u.workload.cluster_queue if u.workload is not None else None) or cq_of_queue(facts, u.queue)
        if not isinstance(cq, str) or facts.cluster_queues.get(cq) is None:
            continue
        queue = by_cq.setdefault(cq, vd.QueueDemand())
        queue.workloads.append((u.group, _demands(ctx, u)))
        queue.about[u.group] = _about(facts, u)
    out: dict[tuple[str, str], vd.PodSetVerdict] = {}
    bars: dict[str, list[vd.FlavorBar]] = {}
    joint: dict[tuple[str, str], Fraction] = {}
    suggestions: list[sg.Suggestion] = []
    if not by_cq:
        return out, bars, joint, suggestions
    snap = snapshot_of(facts)
    for cq, queue in by_cq.items():
        queue.workloads.sort(key=lambda w: (min((role_order(d.role, roles) for d, _ in w[1]), default=(0, "")), w[0]))
        if what_if:
            queue = _keep_about(sg.what_if(queue, what_if), queue)
        result = vd.evaluate(snap, cq, queue, ctx.answers.assign)
        out.update(result.verdicts)
        bars[cq] = result.bars
        joint.update(result.joint)
        suggestions += sg.suggest(snap, cq, queue, result.verdicts)
    return out, bars, joint, suggestions


def _about(facts: Facts, u: Unit) -> vd.WorkloadFacts:
    """What Kueue's admission reads of the unit's Workload besides its pod sets: priority, reclaimable pods,
    queue-order time (a unit with no Workload yet: priority 0, created now)."""
    from kubectl_pd.kueue.preemption import epoch

    if u.workload is None:
        return vd.WorkloadFacts(f"{facts.target.namespace}/{u.group}")
    wl = u.workload
    return vd.WorkloadFacts(f"{wl.namespace or facts.target.namespace}/{wl.name or u.group}", wl.priority,
                            epoch(wl.created) if wl.created else None, wl.reclaimable)


def _keep_about(changed: vd.QueueDemand, queue: vd.QueueDemand) -> vd.QueueDemand:
    """--what-if's copies of a Workload (`name+N`) are judged with its priority and time."""
    from kubectl_pd.records import replace

    for wl, _ in changed.workloads:
        if wl in queue.about:
            changed.about[wl] = queue.about[wl]
        elif (base := queue.about.get(wl.split("+", 1)[0])) is not None:
            changed.about[wl] = replace(base, label=f"{base.label}+{wl.split('+', 1)[1]}")
    return changed


def _after_admission(u: Unit, facts: Facts, role_names: set[str]) -> list[Reason]:
    """PodsGated / PodsUnschedulable per role of an admitted Workload, with the scheduler's counts and,
    when the flavor's Nodes were read, which of them could take the Pods."""
    out: list[Reason] = []
    by_role: dict[str, list[kube.Pod]] = {}
    for p in u.pods:
        if runnable(p) and pod_waiting(p):
            by_role.setdefault(u.role_of(p, role_names), []).append(p)
    for role, pods in by_role.items():
        gated = [p for p in pods if pod_gates(p)]
        if gated:
            if not _multikueue_gated(u, gated):
                out.append(_gated(u, role, pods, gated))
            continue
        refused = [(p, x) for p in pods if (x := pod_unschedulable(p)) is not None]
        if refused:
            out.append(_unschedulable(u, facts, role, pods, refused, role_names))
    return out


def _multikueue_gated(u: Unit, gated: list[kube.Pod]) -> bool:
    """Admitted on a MultiKueue worker (status.clusterName), the manager's Pods keep Kueue's admission gate on
    purpose, and its topology gate with it: the Pods run as copies on that worker (Kueue v0.19.2
    pkg/controller/jobs/pod, the MultiKueue adapter; held against real planes). Only Kueue's own gates are
    MultiKueue's: any other gate still holds the Pods."""
    return u.workload is not None and bool(u.workload.cluster_name) and all(
        set(pod_gates(p)) <= KUEUE_GATES for p in gated)


def _gated(u: Unit, role: str, pods: list[kube.Pod], gated: list[kube.Pod]) -> Reason:
    names = sorted({g for p in gated for g in pod_gates(p)})
    kueue = KUEUE_GATE in names
    return Reason("PodsGated", say("pods.gated", role=role, gated=len(gated), pods=len(pods), gates=names,
                                   g=u.group), role=role,
                  workload=u.group, params=read_only({"gates": names, "pods": len(gated)}),
                  hint=say("next.gate", kueue=kueue, gate=names[0]))


def _unschedulable(u: Unit, facts: Facts, role: str, pods: list[kube.Pod], refused: list[tuple[kube.Pod, Any]],
                   role_names: set[str]) -> Reason:
    p0, first = refused[0]
    flavors = _assigned_flavors(facts, [u], role, role_names)
    flavor = facts.flavors.get(flavors[0]) if flavors else None
    ignored = pod_ignored_selector(p0, flavor) if flavor is not None else {}
    hint = say("next.ignored-selector", flavor=flavors[0], ignored=dict(ignored), role=role) if ignored else None
    nodes = facts.nodes.get(flavors[0]) if flavors else None
    node_fit: tuple[int, int, int, int] | None = None
    params: dict[str, Any] = {"causes": [{"count": n, "cause": c} for n, c in first.causes],
                              "nodes": first.nodes, "pods": len(refused), "ignoredSelector": ignored,
                              "schedulerMessage": first.message}
    if nodes is not None and flavors:
        fits = pod_node_fits(p0, nodes)
        matching = [f for f in fits if f.matches]
        able = [f for f in matching if (f.pods or 0) > 0]
        params["flavorNodes"] = [{"name": f.name, "matchesSelector": f.matches, "pods": f.pods} for f in fits]
        node_fit = (len(fits), len(matching), len(able), sum(f.pods or 0 for f in able))
        if matching and not able and not ignored:  # the labels match; the Nodes are too small (issue 46, finding 8)
            params["nodesTooSmall"] = True
            lacks = _largest_short(p0, [n for n in nodes if n.name in {f.name for f in matching}])
            hint = say("next.nodes-too-small", role=role, flavor=flavors[0], nodes=len(fits), allowed=len(matching),
                       **lacks) if lacks else None
    msg = say("pods.unschedulable", role=role, refused=len(refused), pods=len(pods), scheduler=first,
              where=OnFlavor(flavors[0] if flavors else None, dict(ignored), node_fit))
    return Reason("PodsUnschedulable", msg, role=role, workload=u.group, flavor=flavors[0] if flavors else None,
                  params=read_only(params),
                  hint=hint or say("next.describe-pod", pod=p0.name, ns=facts.target.namespace))


def _largest_short(pod: kube.Pod, nodes: list[kube.Node]) -> dict[str, Any]:
    """The first resource the Pod asks that even the largest of NODES lacks: what it asks, what that Node allocates."""
    for res, q in sorted(pod.template.requests.items()):
        most = max((n.allocatable.get(res) or Fraction(0) for n in nodes), default=Fraction(0))
        if q > 0 and most < q:
            return {"resource": res, "requested": q, "largest": most}
    return {}


def _pair_effects(units: list[Unit], facts: Facts, by_unit: dict[str, list[Reason]]) -> dict[str, PairEffect]:
    """A preemption seen from the pair, per preempted group: whether the preemptor is one of ours (and which
    role), and which roles still hold quota that serves nothing without the lost one."""
    out: dict[str, PairEffect] = {}
    for u in units:
        for r in by_unit.get(u.group, ()):
            if r.code == "Preempted":
                out[u.group] = _pair_effect(u, units, facts, r.params.get("preemptorWorkload"))
    return out


def _pair_effect(u: Unit, units: list[Unit], facts: Facts, preemptor: str | None) -> PairEffect:
    ours = next((x for x in units if preemptor and x.group == preemptor), None)
    lost = set(u.roles)
    holders = sorted({role for x in units if x is not u and x.workload is not None
                      and x.workload.reserved for role in x.roles} - lost)
    return PairEffect(lost=tuple(sorted(lost)), holders=tuple(holders), roles=tuple(u.roles),
                      preemptor_roles=tuple(ours.roles) if ours is not None else None,
                      by_our_own=ours is not None and facts.deployment is not None)


def _queue_reasons_without_workload(ctx: Context) -> list[Reason]:
    facts, units = ctx.facts, ctx.units
    """Queue problems matter before any Workload exists too (they will block it once composed)."""
    out: list[Reason] = []
    for u in units:
        if u.workload is not None or not u.queue:
            continue
        out.extend(compose(r, Findings(once_composed=True)) for r in structural(facts, u.queue, None))
    if not units and facts.deployment is not None:
        for lq in facts.local_queues:
            out.extend(structural(facts, lq, None))
    return out


def _dedupe(reasons: list[Reason]) -> list[Reason]:
    """One reason per (code, role, flavor); replicas of one role keep the largest (cumulative) shortfall."""
    seen: dict[tuple[str, str | None, str], int] = {}
    out: list[Reason] = []
    for r in reasons:
        key = (r.code, r.role, r.flavor or "")
        if r.code in STRUCTURAL:
            key = (r.code, None, str(r.params.get("queue")))
        if key in seen:
            i = seen[key]
            kept = out[i].needed
            if r.needed is not None and (kept is None or r.needed > kept):
                out[i] = r
            continue
        seen[key] = len(out)
        out.append(r)
    return out


def _priority(r: Reason) -> int:
    return reason_priority(r.code)


_NOT_QUOTA = (ad.FLAVOR_MISSING, ad.NOT_MATCHING, ad.UNTOLERATED)


def _role_rows(scene: Context, verdicts: Verdicts) -> list[RoleRow]:
    """One row per role; when the target is the deployment every group counts (else only the target's);
    a role --what-if sizes wants what it assumes."""
    rows = []
    facts, units, role_names, what_if = scene.facts, scene.units, scene.role_names, scene.what_if
    whole = facts.target.kind == "ModelDeployment"
    have_of = _runnable_per_role(units, role_names)
    for r in scene.roles:
        have = have_of.get(r.name, 0)
        want = what_if[r.name] * r.size if r.name in what_if else _row_want(facts, r, units, whole)
        vs = [v for v in verdicts.values() if v.demand.role == r.name]
        per_pod = _row_per_pod(r, units, vs, role_names)
        flavor = _row_flavor(facts, r, units, vs, role_names)
        verdict = _row_verdict(facts, r, units, vs, have, want)
        reserved = bool(vs) and all(v.demand.reserved for v in vs)
        rows.append(RoleRow(r.name, r.kind, have, want, per_pod, flavor, verdict, reserved, r.name in what_if))
    return rows


def _runnable_per_role(units: list[Unit], role_names: set[str]) -> dict[str, int]:
    """The runnable Pods of each role, counted in one pass over the units."""
    out: dict[str, int] = {}
    for u in units:
        for p in u.pods:
            if runnable(p):
                r = u.role_of(p, role_names)
                out[r] = out.get(r, 0) + 1
    return out


def _row_want(facts: Facts, r: DeploymentRole, units: list[Unit], whole: bool) -> int | None:
    want = r.replicas * r.size if r.replicas is not None else _pod_set_counts(facts, r, units)
    own = [u for u in units if u.roles == [r.name]]
    if not whole and own and all(group_want(u) is not None and (r.replicas is not None or not _incomplete(u))
                                 for u in own):
        want = sum(group_want(u) or 0 for u in own)
    return want


def _pod_set_counts(facts: Facts, r: DeploymentRole, units: list[Unit]) -> int | None:
    """No deployment says how many: the pod sets of the role's Workloads do (None when no Workload was read)."""
    counts = [ps.count for u in units if u.workload is not None for ps in u.workload.pod_sets
              if u.podset_role(ps, {r.name}) == r.name]
    return sum(counts) if counts else None


def _row_per_pod(r: DeploymentRole, units: list[Unit], vs: list[vd.PodSetVerdict],
                 role_names: set[str]) -> dict[str, Fraction]:
    """What one pod of the role asks: its demand over its count, else its first pod's requests."""
    for v in vs:
        if v.demand.count == 1:
            return dict(v.demand.requests)
        if v.demand.count:
            return {k: q / v.demand.count for k, q in v.demand.requests.items()}
    pod = next((p for u in units for p in u.pods if u.role_of(p, role_names) == r.name), None)
    return dict(pod.template.requests) if pod is not None else {}


def _row_flavor(facts: Facts, r: DeploymentRole, units: list[Unit], vs: list[vd.PodSetVerdict],
                role_names: set[str]) -> str | None:
    """The flavors Kueue assigned, else the one our arithmetic chose, else the best it tried for quota."""
    assigned = _assigned_flavors(facts, units, r.name, role_names)
    if assigned:
        return ",".join(assigned)
    if not vs:
        return None
    flavor = next((v.flavor for v in vs if v.flavor), None)
    if flavor is None:
        b = next((v.best for v in vs if v.best is not None), None)
        flavor = b.flavor if b is not None and b.outcome not in _NOT_QUOTA else None
    return flavor


def _row_verdict(facts: Facts, r: DeploymentRole, units: list[Unit], vs: list[vd.PodSetVerdict], have: int,
                 want: int | None) -> str:
    wl_states = [u for u in units if r.name in u.roles and u.workload is not None]
    if wl_states and all(u.workload.admitted for u in wl_states if u.workload is not None) and (
            want is None or len(wl_states) and have >= want):
        return vd.ADMITTED
    if any(v.verdict == vd.BLOCKED for v in vs):
        return vd.BLOCKED
    if vs and all(v.verdict in (vd.FITS, vd.ADMITTED) for v in vs):
        return vd.FITS
    return vd.UNKNOWN


def _assigned_flavors(facts: Facts, units: list[Unit], role: str, role_names: set[str]) -> list[str]:
    """The flavors Kueue assigned to the role's pod sets, in the Workloads that hold a quota reservation."""
    out: set[str] = set()
    for u in units:
        wl = u.workload if u.workload is not None else None
        if wl is None or not wl.reserved:
            continue
        for psa in wl.admission:
            spec_ps = next((p for p in wl.pod_sets if p.name == psa.name), None) or PodSet(psa.name, 0, {})
            if u.podset_role(spec_ps, role_names) == role:
                out.update(psa.flavors.values())
    return sorted(out)


def _queue_names(facts: Facts, units: list[Unit]) -> tuple[str | None, str | None]:
    lq = next((u.queue for u in units if u.queue), None) or next(iter(facts.local_queues), None)
    cq = next((c for u in units if u.workload is not None and (c := u.workload.cluster_queue)), None)
    cq = cq or cq_of_queue(facts, lq) or next(iter(facts.cluster_queues), None)
    return lq, cq


def _ours_in_queue(facts: Facts, units: list[Unit], cq: str | None, ns: str) -> tuple[PendingView,
                                                                                     list[PendingWorkload]]:
    """The visibility API's items for the ClusterQueue, and those of them that are our Workloads."""
    view = facts.pending.get(cq or "") or pending_view(None)
    names = dict.fromkeys(u.group for u in units if u.workload is not None)
    return view, [i for n in names for i in view.by_name.get(n, ()) if (i.namespace or ns) == ns]


def _position(facts: Facts, units: list[Unit], cq: str | None, ns: str) -> tuple[int | None, int | None]:
    best: tuple[int | None, int | None] = (None, None)
    for i in _ours_in_queue(facts, units, cq, ns)[1]:
        p, lp = i.position, i.local_position
        if p is not None and (best[0] is None or p + 1 < best[0]):
            best = (p + 1, lp + 1 if lp is not None else None)
    return best


MAX_AHEAD_LISTED = MAX_AHEAD  # the queue's head, the ones whose requests are read; how many: position - 1


def _ahead(facts: Facts, units: list[Unit], cq: str | None, ns: str) -> list[Ahead] | None:
    """The first MAX_AHEAD_LISTED Workloads before ours in the ClusterQueue (visibility API order), with their
    total requests when they were read. Not all of them: in a queue of a thousand, each of a thousand
    diagnoses would list every Workload before it."""
    view, ours = _ours_in_queue(facts, units, cq, ns)
    mine = min((i.position for i in ours if i.position is not None), default=None)
    if mine is None:
        return None
    out: list[Ahead] = []
    for i in view.in_order:
        if i.position is None:
            continue
        if i.position >= mine or len(out) >= MAX_AHEAD_LISTED:
            break
        key = (i.namespace or ns, i.name or "")
        wl = facts.ahead.get(key)
        out.append(Ahead(key[1], key[0], i.position + 1, i.priority, i.local_queue,
                         _requests_of(facts, wl) if wl is not None else None))
    return out


def _requests_of(facts: Facts, wl: Workload) -> dict[str, Fraction] | None:
    """`_workload_requests` of a Workload read, once per run (the queue's head is ahead of every diagnosis)."""
    return facts.run.parse("WorkloadRequests", wl, _workload_requests, (wl.namespace, wl.name))


def _workload_requests(wl: Workload) -> dict[str, Fraction] | None:
    """A Workload's total requests: Kueue's `status.resourceRequests`, else its pod sets' templates x count."""
    if "status.resourceRequests" in wl.unknown:
        return None
    total: dict[str, Fraction] = {}
    for reqs in wl.totals.values():
        for res, q in reqs.items():
            total[res] = total.get(res, Fraction(0)) + q
    if wl.totals:
        return total
    for ps in wl.pod_sets:
        for res, q in ps.requests.items():
            total[res] = total.get(res, Fraction(0)) + q * ps.count
    return total


def _bars(by_cq: dict[str, list[vd.FlavorBar]], cq: str | None) -> list[vd.FlavorBar]:
    out: list[vd.FlavorBar] = []
    for name, bars in by_cq.items():
        if name == cq:
            out = bars + out
        else:
            out.extend(bars)
    return out[:6]


__all__ = ["CODES", "Diagnosis", "Reason", "RoleRow", "diagnose", "more", "short"]
