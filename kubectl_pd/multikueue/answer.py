"""The MultiKueue answer (pure): the manager's state, and per worker how it was read and what holds its copy.

Kueue v0.19.2 pkg/controller/admissionchecks/multikueue/workload.go: nomination waits until every other
admission check is Ready (allNonMKAdmissionChecksReady, logged only); the check stays Pending while the copies
wait on the workers; `The workload was admitted on "X"` (Ready, status.clusterName X); Retry "Admitting
remote lost" once the admitting worker stays unreachable past workerLostTimeout; Rejected "No multikueue
adapter found ..." / "The owner is not managed by Kueue: ...". workloaddispatcher/incrementaldispatcher.go:
rounds of at most 3 more workers every 5 minutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kubectl_pd.kueue.model import AdmissionCheck
from kubectl_pd.multikueue import model as m
from kubectl_pd.records import dataclass

NEVER_FITS = "QuotaExceedsCapacity"  # the engine's code for a copy no quota of that worker can hold
NO_ADAPTER = "No multikueue adapter found"
NOT_MANAGED = "The owner is not managed by Kueue"
LOST = "Admitting remote lost"


@dataclass(frozen=True)
class MultiKueueFinding:
    code: str  # codes.CODES
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Step:
    """One thing to do, as data (words.step says it): `worker`, a worker copy's own next step (its reason's hint,
    on that worker: params cluster, hint, reason: the code of the reason whose hint it is); `release`, the
    manager's Workload holds the manager's quota while no worker can hold it (kueue #8602: params namespace,
    workload); `wait`, for the check to dispatch or a worker to admit it (params check); `worker-fits`, roles a
    worker's own figures say fit there now while Kueue's last words say short (params cluster, roles)."""

    code: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class WorkerAnswer:
    cluster: str
    context: str | None
    read: m.Read
    nominated: bool
    connected: bool | None  # its MultiKueueCluster's Active condition (None: not written, or no such object)
    pending: bool | None  # its copy waits (None: not known)
    findings: tuple[MultiKueueFinding, ...]  # MultiKueue's own
    reasons: tuple[Any, ...] = ()  # the copy's own diagnosis (pending/model.Reason)
    preemption: tuple[Any, ...] = ()  # whom admission there would preempt (kueue/preempt_answer.Answer)
    fits: tuple[str, ...] = ()  # the roles the worker's own figures say fit there now

    def older(self, r: Any) -> bool:
        """Whether reason R claims a shortfall for a role the worker's own figures say fits now: Kueue's words
        are older than the queue there (never a shortfall of this answer, never advice to raise quota)."""
        return getattr(r, "needed", None) is not None and getattr(r, "role", None) in self.fits

    def short(self, r: Any) -> bool:
        """Whether reason R is a shortfall this answer stands by: a positive one, for a role that does not fit."""
        needed = getattr(r, "needed", None)
        return needed is not None and needed > 0 and not self.older(r)


@dataclass(frozen=True)
class MultiKueueAnswer:
    admission_check: str
    state: str  # codes.STATES
    dispatched_to: str | None  # status.clusterName
    nominated: tuple[str, ...]
    findings: tuple[MultiKueueFinding, ...]
    workers: tuple[WorkerAnswer, ...]
    config: str | None = None  # the MultiKueueConfig its check names
    listed: tuple[str, ...] = ()  # that MultiKueueConfig's clusters (the only workers that may be read)
    steps: tuple[Step, ...] = ()  # what to do (the screen's `next:`), from the same workers as the table
    workload: str = ""  # the manager's Workload it answers for

    @property
    def decisive(self) -> MultiKueueFinding | None:
        """The finding that decides the manager's wait, when one does (the state line and `next:` say it)."""
        return next((f for f in self.findings if f.code == "MultiKueueNoWorkerFits"), None)

    @property
    def complete(self) -> bool:
        """Every worker that needed reading was read (a refused or failed read makes its part unknown)."""
        return all(w.read not in ("unreachable", "forbidden") for w in self.workers)

    @property
    def forbidden(self) -> bool:
        return any(w.read == "forbidden" for w in self.workers)


def _f(code: str, **params: Any) -> MultiKueueFinding:
    return MultiKueueFinding(code, params)


def _seconds_since(stamp: str, now: datetime | None) -> int | None:
    if now is None or not stamp:
        return None
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0, int((now - then).total_seconds()))


def _state(mgr: m.Manager, check: AdmissionCheck) -> tuple[str, list[MultiKueueFinding]]:
    wl = mgr.workload
    acs = wl.check(check.name)
    state = acs.state if acs else ""
    message = acs.message if acs else ""
    if wl.finished:
        return "Finished", []
    if check.active is not None and not check.active.true:
        return "CheckInactive", [_f("MultiKueueCheckInactive", check=check.name, reason=check.active.reason,
                                    message=check.active.message)]
    if state == "Rejected":
        if message.startswith(NO_ADAPTER):
            return "Rejected", [_f("MultiKueueNoAdapter", owners=list(wl.owner_kinds), message=message)]
        if message.startswith(NOT_MANAGED):
            return "Rejected", [_f("MultiKueueOwnerNotManaged", message=message)]
        return "Rejected", [_f("MultiKueueCheckRetry", state=state, message=message)]
    if state == "Retry":
        if message.startswith(LOST):
            return "Retry", [_f("MultiKueueWorkerLost", cluster=wl.cluster_name,
                                timeoutSeconds=mgr.settings.lost_timeout_s, passed=True)]
        return "Retry", [_f("MultiKueueCheckRetry", state=state, message=message)]
    if wl.cluster_name and state == "Ready":
        return "Admitted", []
    if not wl.reserved:
        return "QuotaPending", [_f("MultiKueueQuotaPending", check=check.name, message=wl.quota_message)]
    others = [c for c in wl.checks if c.name != check.name and c.state != "Ready"]
    if others:
        return "WaitingForOtherChecks", [_f("MultiKueueWaitingForOtherChecks", check=check.name,
                                            checks=[c.name for c in others], states=[c.state for c in others])]
    if not wl.nominated:
        return "NotDispatched", [_f("MultiKueueNotDispatched", dispatcher=mgr.settings.dispatcher)]
    return "Dispatched", []


def _clusters(mgr: m.Manager) -> list[str]:
    """Every worker worth a row: the MultiKueueConfig's, then any nominated or admitting one it lacks."""
    out = list(mgr.config.clusters) if mgr.config else []
    for c in (*mgr.workload.nominated, *([mgr.workload.cluster_name] if mgr.workload.cluster_name else [])):
        if c not in out:
            out.append(c)
    return out


def involved(mgr: m.Manager) -> list[str]:
    """The workers whose copy is read: the admitting one once admitted, else the nominated ones."""
    wl = mgr.workload
    if wl.cluster_name:
        return [wl.cluster_name]
    return list(wl.nominated)


def _worker(name: str, mgr: m.Manager, got: m.WorkerRead | None, settings: m.MultiKueueSettings) -> WorkerAnswer:
    nominated = name in involved(mgr)
    mkc = mgr.clusters.get(name)
    connected = mkc.connected if mkc else None
    findings: list[MultiKueueFinding] = []
    if mgr.config is not None and name not in mgr.config.clusters or mkc is None:
        findings.append(_f("MultiKueueWorkerUnknown", cluster=name, inConfig=mgr.config is not None
                           and name in mgr.config.clusters, clusterObject=mkc is not None))
    elif connected is False and mkc.active is not None:
        findings.append(_f("MultiKueueWorkerNotConnected", cluster=name, nominated=nominated,
                           reason=mkc.active.reason, message=mkc.active.message))
    if got is None:
        return WorkerAnswer(name, None, "not-nominated", nominated, connected, None, tuple(findings))
    if got.read == "no-context":
        findings.append(_f("MultiKueueWorkerNotRead", cluster=name, why=got.error or "no-mapping"))
    elif got.read == "unreachable":
        findings.append(_f("MultiKueueWorkerUnreachable", cluster=name, context=got.context, error=got.error))
    elif got.read == "forbidden":
        findings.append(_f("MultiKueueWorkerForbidden", cluster=name, context=got.context, error=got.error))
    if got.read != "read":
        return WorkerAnswer(name, got.context, got.read, nominated, connected, None, tuple(findings))
    if got.copy is None:
        findings.append(_f("MultiKueueWorkerCopyMissing", cluster=name, namespace=mgr.workload.namespace,
                           workload=mgr.workload.name))
        return WorkerAnswer(name, got.context, got.read, nominated, connected, None, tuple(findings))
    if got.copy.origin != settings.origin:
        findings.append(_f("MultiKueueWorkerCopyForeign", cluster=name, origin=got.copy.origin,
                           expected=settings.origin))
    return WorkerAnswer(name, got.context, got.read, nominated, connected, got.copy.pending, tuple(findings),
                        got.copy.reasons, got.copy.preemption, got.copy.fits)


def _round(mgr: m.Manager, workers: list[WorkerAnswer]) -> MultiKueueFinding | None:
    """The incremental dispatcher nominated a part of the workers and every copy read still waits: the next
    round (at most STEP more workers) comes within ROUND_S of the last one (its start is kept in memory only)."""
    if mgr.settings.dispatcher != m.INCREMENTAL or mgr.config is None:
        return None
    rest = [c for c in mgr.config.clusters if c not in mgr.workload.nominated]
    if not rest or any(w.pending is False for w in workers if w.nominated):
        return None
    return _f("MultiKueueDispatchRound", nominated=list(mgr.workload.nominated), next=rest[:m.STEP],
              roundSeconds=m.ROUND_S)


def _lost(mgr: m.Manager, now: datetime | None) -> MultiKueueFinding | None:
    """Admitted on a worker that is no longer connected: Kueue keeps it admitted until workerLostTimeout."""
    c = mgr.clusters.get(mgr.workload.cluster_name or "")
    if c is None or c.connected is not False or c.active is None:
        return None
    passed = _seconds_since(c.active.last_transition, now)
    return _f("MultiKueueWorkerLost", cluster=c.name, timeoutSeconds=mgr.settings.lost_timeout_s, passed=False,
              lostSeconds=passed, reason=c.active.reason)


def _nobody_fits(workers: list[WorkerAnswer]) -> MultiKueueFinding | None:
    """Every nominated worker was read and its copy can never fit there (kueue #8602: the manager holds quota): by
    a shortfall each worker's own figures stand by (Kueue's words older than the queue, or a shortfall of zero or
    less, are no evidence)."""
    asked = [w for w in workers if w.nominated]
    if not asked or any(w.read != "read" or not w.reasons for w in asked):
        return None
    if all(any(getattr(r, "code", None) == NEVER_FITS and w.short(r) for r in w.reasons) for w in asked):
        return _f("MultiKueueNoWorkerFits", clusters=[w.cluster for w in asked])
    return None


def _worker_steps(w: WorkerAnswer, codes: tuple[str, ...] | None) -> list[Step]:
    """A worker copy's own next step: the hint of its first reason (of CODES, when given) that has one and that the
    worker's own figures stand by; for a role that fits there now by them, waiting for Kueue's next try."""
    for r in w.reasons:
        hint = getattr(r, "hint", None)
        if hint is not None and not w.older(r) and (codes is None or getattr(r, "code", None) in codes):
            return [Step("worker", {"cluster": w.cluster, "hint": hint, "reason": getattr(r, "code", None)})]
    older = sorted({str(r.role) for r in w.reasons if w.older(r)})
    return [Step("worker-fits", {"cluster": w.cluster, "roles": older})] if older else []


def _steps(mgr: m.Manager, state: str, workers: list[WorkerAnswer], nobody: bool) -> tuple[Step, ...]:
    """`next:` from the workers the table shows: while copies wait on the nominated workers, each worker's own step
    (its copy's reason there); when none can ever hold it, the quota each lacks, or releasing the manager's."""
    if state not in ("Dispatched", "DispatchRound", "NotDispatched"):
        return ()
    asked = [w for w in workers if w.nominated and w.read == "read" and w.pending]
    out = [s for w in asked for s in _worker_steps(w, (NEVER_FITS,) if nobody else None)]
    if nobody:
        out.append(Step("release", {"namespace": mgr.workload.namespace, "workload": mgr.workload.name}))
    return tuple(out) or (Step("wait", {"check": mgr.mk_check.name if mgr.mk_check else ""}),)


def answer(mgr: m.Manager, reads: Mapping[str, m.WorkerRead], now: datetime | None = None) -> MultiKueueAnswer | None:
    """None when the Workload has no MultiKueue check (an ordinary single-cluster Workload)."""
    check = mgr.mk_check
    if check is None:
        return None
    state, findings = _state(mgr, check)
    if mgr.config is None:
        findings.append(_f("MultiKueueConfigMissing", check=check.name, config=check.config))
    workers = [_worker(name, mgr, reads.get(name), mgr.settings) for name in _clusters(mgr)]
    rnd = _round(mgr, workers) if state == "Dispatched" else None
    if rnd is not None:  # the next round's workers may still hold it
        state = "DispatchRound"
    nobody = _nobody_fits(workers) if state == "Dispatched" else None
    extra = [f for f in (rnd, _lost(mgr, now) if state == "Admitted" else None, nobody) if f is not None]
    return MultiKueueAnswer(check.name, state, mgr.workload.cluster_name, mgr.workload.nominated,
                            (*findings, *extra), tuple(workers), check.config,
                            mgr.config.clusters if mgr.config is not None else (),
                            _steps(mgr, state, workers, nobody is not None), mgr.workload.name)
