"""Typed records of what a MultiKueue diagnosis reads (parsed once, where read; unknown stays unknown).

Facts from Kueue v0.19.2: apis/kueue/v1beta2/multikueue_types.go (MultiKueueConfig spec.clusters,
MultiKueueCluster's Active condition), workload_types.go (status.nominatedClusterNames, status.clusterName),
admissioncheck_types.go (spec.controllerName, spec.parameters), pkg/controller/admissionchecks/multikueue
(the origin label on each worker's copy), apis/config/v1beta2/configuration_types.go (the multiKueue block).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from kubectl_pd.kueue.model import AdmissionCheck, AdmissionCheckState, Condition, conditions_of
from kubectl_pd.records import dataclass, field

ORIGIN_LABEL = "kueue.x-k8s.io/multikueue-origin"  # kueue.MultiKueueOriginLabel
DEFAULT_ORIGIN = "multikueue"  # configuration defaults: multiKueue.origin
DEFAULT_LOST_TIMEOUT_S = 15 * 60  # multiKueue.workerLostTimeout
ALL_AT_ONCE = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"
INCREMENTAL = "kueue.x-k8s.io/multikueue-dispatcher-incremental"
ROUND_S = 5 * 60  # workloaddispatcher/incrementaldispatcher.go: incrementalDispatcherRoundTimeout
STEP = 3  # its DefaultStepSize

Read = Literal["read", "no-context", "unreachable", "forbidden", "not-nominated"]


def _d(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _l(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def _names(x: Any) -> tuple[str, ...]:
    return tuple(str(n) for n in _l(x) if isinstance(n, str) and n)


@dataclass(frozen=True)
class Config:
    name: str
    clusters: tuple[str, ...]


def config(obj: Any) -> Config:
    obj = _d(obj)
    return Config(str(_d(obj.get("metadata")).get("name") or ""), _names(_d(obj.get("spec")).get("clusters")))


@dataclass(frozen=True)
class Cluster:
    """A MultiKueueCluster: None when it does not exist; `active` its Active condition (None: not written yet)."""

    name: str
    active: Condition | None = None

    @property
    def connected(self) -> bool | None:
        return None if self.active is None else self.active.true


def cluster(obj: Any) -> Cluster:
    obj = _d(obj)
    return Cluster(str(_d(obj.get("metadata")).get("name") or ""), conditions_of(obj).get("Active"))


@dataclass(frozen=True)
class ManagerWorkload:
    """The manager's Workload, as far as MultiKueue goes."""

    name: str
    namespace: str
    reserved: bool
    checks: tuple[AdmissionCheckState, ...]
    nominated: tuple[str, ...] = ()  # status.nominatedClusterNames
    cluster_name: str | None = None  # status.clusterName: the worker that admitted it
    owner_kinds: tuple[str, ...] = ()
    quota_message: str = ""  # QuotaReserved=False's message: the manager's own wait
    finished: bool = False
    queue_checks: tuple[str, ...] | None = None  # its ClusterQueue's admission checks (None: the queue not read)

    def check(self, name: str) -> AdmissionCheckState | None:
        return next((c for c in self.checks if c.name == name), None)


def manager_workload(obj: Any) -> ManagerWorkload:
    obj = _d(obj)
    meta, status = _d(obj.get("metadata")), _d(obj.get("status"))
    conds = conditions_of(obj)
    qr = conds.get("QuotaReserved")
    raw = [c for c in map(_d, _l(status.get("admissionChecks"))) if c]
    checks = tuple(AdmissionCheckState(str(c.get("name") or "?"), str(c.get("state") or ""),
                                       str(c.get("message") or "")) for c in raw)
    owners = tuple(str(o.get("kind") or "") for o in map(_d, _l(meta.get("ownerReferences"))) if o)
    cname = status.get("clusterName")
    return ManagerWorkload(str(meta.get("name") or ""), str(meta.get("namespace") or "default"),
                           qr is not None and qr.true, checks, _names(status.get("nominatedClusterNames")),
                           cname if isinstance(cname, str) and cname else None, owners,
                           qr.message if qr is not None and not qr.true else "",
                           (f := conds.get("Finished")) is not None and f.true)


def from_typed(wl: Any, queue_checks: tuple[str, ...] | None = None) -> ManagerWorkload:
    """The same record from the Workload the manager's diagnosis already read and parsed (kueue/model.Workload):
    one read of it per run; QUEUE_CHECKS, the admission checks of its ClusterQueue as the diagnosis read it."""
    qr = wl.condition("QuotaReserved")
    return ManagerWorkload(wl.name, wl.namespace or "default", wl.reserved, tuple(wl.admission_checks),
                           tuple(wl.nominated), wl.cluster_name, tuple(o[0] for o in wl.owners if o[0]),
                           qr.message if qr is not None and not qr.true else "", wl.finished, queue_checks)


@dataclass(frozen=True)
class MultiKueueSettings:
    """Kueue's multiKueue configuration on the manager (its defaults when the ConfigMap was not read)."""

    dispatcher: str = ALL_AT_ONCE
    origin: str = DEFAULT_ORIGIN
    lost_timeout_s: int = DEFAULT_LOST_TIMEOUT_S
    read: bool = False  # the ConfigMap was read


def _seconds(text: Any) -> int | None:
    """A Go duration as Kueue's configuration writes it (`15m`, `90s`, `1h30m`); None when unreadable."""
    if not isinstance(text, str) or not text:
        return None
    total, num = 0.0, ""
    units = {"h": 3600, "m": 60, "s": 1}
    for ch in text:
        if ch.isdigit() or ch == ".":
            num += ch
        elif ch in units and num:
            total, num = total + float(num) * units[ch], ""
        else:
            return None
    return None if num else int(total)


def settings(doc: Mapping[str, Any] | None) -> MultiKueueSettings:
    """From Kueue's Configuration document (None: not read, Kueue's defaults)."""
    if doc is None:
        return MultiKueueSettings()
    mk = _d(doc.get("multiKueue"))
    lost = _seconds(mk.get("workerLostTimeout"))
    return MultiKueueSettings(str(mk.get("dispatcherName") or ALL_AT_ONCE), str(mk.get("origin") or DEFAULT_ORIGIN),
                    DEFAULT_LOST_TIMEOUT_S if lost is None else lost, True)


@dataclass(frozen=True)
class WorkerCopy:
    """A worker's copy of the Workload: its origin label; its verdict from the single-cluster engine."""

    origin: str | None
    pending: bool
    reasons: tuple[Any, ...] = ()  # pending/model.Reason records of the worker's own diagnosis
    admitted: bool = False
    preemption: tuple[Any, ...] = ()  # kueue/preempt_answer.Answer records: whom admission there would preempt
    fits: tuple[str, ...] = ()  # the roles the worker's own figures say fit there now (its engine's verdict)


@dataclass(frozen=True)
class WorkerRead:
    """What was read on one worker: how (`read`), the context used, the copy (None: no such Workload)."""

    cluster: str
    context: str | None
    read: Read
    copy: WorkerCopy | None = None
    error: str = ""  # why a read failed (already free of credentials)


@dataclass(frozen=True)
class Manager:
    """Everything read on the manager for one Workload."""

    workload: ManagerWorkload
    checks: Mapping[str, AdmissionCheck] = field(default_factory=dict)  # every AdmissionCheck the Workload names
    config: Config | None = None
    clusters: Mapping[str, Cluster] = field(default_factory=dict)
    settings: MultiKueueSettings = field(default_factory=MultiKueueSettings)

    @property
    def mk_check(self) -> AdmissionCheck | None:
        """The MultiKueue check among the Workload's checks (Kueue allows one per ClusterQueue)."""
        return next((self.checks[c.name] for c in self.workload.checks
                     if c.name in self.checks and self.checks[c.name].multikueue), None)
