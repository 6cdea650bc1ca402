"""The reads of a MultiKueue diagnosis (the shell): the manager's MultiKueue objects in one wave, then every
involved worker's copy, each read and gathered through a context of the user's own kubeconfig that the USER named
for it (--worker-context CLUSTER=CONTEXT, or --worker-contexts-by-name: a context named like the
MultiKueueCluster); never Kueue's kubeconfig Secrets. A worker is read only when it is listed in the
MultiKueueConfig of a MultiKueue check the Workload's ClusterQueue uses: the names in a Workload's status are data,
never a selector of credentials. The waves go out with cluster/prefetch.perform: one Ask per read, each cluster its
own Source and its own bounded connections."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from kubectl_pd.cluster.prefetch import Ask, perform
from kubectl_pd.errors import ForbiddenError, NotFoundError, PdError
from kubectl_pd.kueue import config as kc
from kubectl_pd.kueue.model import AdmissionCheck, admission_check
from kubectl_pd.multikueue import model as m
from kubectl_pd.multikueue.access import Access
from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.kueue.preempt_answer import PreemptionView
    from kubectl_pd.pending.gather import Facts


@dataclass(frozen=True)
class WorkerFacts:
    """One worker as read: the context used, how the read went, what the single-cluster gather found."""

    cluster: str
    context: str | None
    read: m.Read
    facts: Facts | None = None  # None: not read, or its copy does not exist
    error: str = ""
    view: PreemptionView | None = None  # the worker's own: its Kueue configuration, its admitted Workloads


class ManagerUnread(PdError):
    """A read of the manager's MultiKueue objects failed: the MultiKueue part is unknown."""

    def __init__(self, what: str, error: PdError) -> None:
        super().__init__(f"{what}: {error}")
        self.what = what
        self.error = error


def allowed(mgr: m.Manager) -> frozenset[str]:
    """The workers that may be read at all: the clusters of the MultiKueueConfig of the MultiKueue check that the
    Workload's ClusterQueue uses (its admissionChecksStrategy). Nothing else a cluster says (a nominated name, a
    clusterName) selects a context."""
    mk = mgr.mk_check
    queue = mgr.workload.queue_checks
    if mk is None or mgr.config is None or queue is None or mk.name not in queue:
        return frozenset()
    return frozenset(mgr.config.clusters)


def _checks_ask(source: Source) -> Ask:
    """Every AdmissionCheck, one list: which are MultiKueue's (the one read a Workload under some other
    admission check costs)."""
    return Ask(source, lambda: source.list("AdmissionCheck", None))


def _config_ask(source: Source) -> Ask:
    """Every MultiKueueConfig (cluster-scoped, few): with the AdmissionChecks, what selects the workers to read."""
    return Ask(source, lambda: source.list("MultiKueueConfig", None))


def _state_asks(source: Source) -> list[Ask]:
    """The rest of the manager's MultiKueue objects, which no worker read waits for: every MultiKueueCluster (its
    connection), Kueue's ConfigMap (the dispatcher, the origin, workerLostTimeout)."""
    return [Ask(source, lambda: source.list("MultiKueueCluster", None)),
            Ask(source, lambda: _configmap(source))]


def _configmap(source: Source) -> Any:
    """Kueue's ConfigMap: a live cluster serves it by path only (cluster/protocols.Source), a snapshot by kind."""
    if source.is_live:
        return source.get_raw(f"/api/v1/namespaces/{kc.NAMESPACE}/configmaps/{kc.CONFIGMAP}",
                              resource="configmaps", namespace=kc.NAMESPACE)
    return source.get("ConfigMap", kc.CONFIGMAP, kc.NAMESPACE)


_WHAT = ("AdmissionCheck", "MultiKueueConfig", "MultiKueueCluster", "ConfigMap")
Got = list[tuple[bool, Any]]


def _failed(got: Got, whats: tuple[str, ...]) -> None:
    """A failed read of the manager's objects: ManagerUnread (the ConfigMap's: Kueue's defaults, no error)."""
    for what, (ok, value) in zip(whats, got, strict=False):
        if not ok and what != "ConfigMap":
            if isinstance(value, PdError):
                raise ManagerUnread(what, value)
            raise value


def read(source: Source, workloads: list[m.ManagerWorkload], access: Access,
         ) -> tuple[m.Manager | None, dict[str, WorkerFacts]]:
    """The Manager of the first Workload that waits on a MultiKueue check (None: none does) and its workers'
    copies. What selects the workers first: the AdmissionChecks, with the MultiKueueConfigs when a Workload names
    workers (status.nominatedClusterNames or clusterName; a Workload under other checks costs the one list; when the
    user asked for workers, why-pending sent both in its first round: pending/plan.multikueue_reads). Then, in ONE
    wave, the workers' copies (only those `allowed` names: the manager's MultiKueueConfig decides, never the
    Workload) beside the rest of the manager's objects (MultiKueueClusters, Kueue's ConfigMap), which no worker read
    waits for. A failed read of the manager's objects: ManagerUnread."""
    first = next((w for w in workloads if involved_of(w)), None)
    got = perform([_checks_ask(source), *([_config_ask(source)] if first is not None else [])])
    _failed(got[:1], _WHAT[:1])
    checks = {c.name: c for c in map(admission_check, got[0][1] or [])}
    wl = next((w for w in workloads if any(checks.get(c.name, _NONE).multikueue for c in w.checks)), None)
    if wl is None:
        return None, {}
    named = {c.name: checks[c.name] for c in wl.checks if c.name in checks}
    mk = next(c for c in named.values() if c.multikueue)
    if first is None:  # no worker named: nothing to read there, the manager's objects together
        got += perform([_config_ask(source), *_state_asks(source)])
        _failed(got[1:], _WHAT[1:])
        return _manager(wl, named, mk, got[1], got[2:]), {}
    _failed(got[1:2], _WHAT[1:2])
    selecting = _manager(wl, named, mk, got[1], [])  # what `allowed` reads: the check, its config, the queue
    asks, out = _worker_asks(wl, access, allowed(selecting))
    rest = perform([*_state_asks(source), *(a for _, _, a in asks)])
    _failed(rest[:2], _WHAT[2:])
    return _manager(wl, named, mk, got[1], rest[:2]), {**out, **_settle(asks, rest[2:])}


def _manager(wl: m.ManagerWorkload, named: dict[str, AdmissionCheck], mk: AdmissionCheck, configs: tuple[bool, Any],
             state: list[tuple[bool, Any]]) -> m.Manager:
    """The Manager record from what was read (STATE: the MultiKueueClusters' and ConfigMap's answers; none yet:
    no cluster known, Kueue's defaults)."""
    cfg = next((m.config(o) for o in configs[1] or [] if m.config(o).name == mk.config), None) if mk.config else None
    clusters = {c.name: c for c in map(m.cluster, state[0][1] or [])} if state else {}
    return m.Manager(wl, named, cfg, clusters, _settings(state[1]) if state else m.MultiKueueSettings())


_NONE = AdmissionCheck("")


def involved_of(wl: m.ManagerWorkload) -> list[str]:
    """The workers whose copy is read: the admitting one once admitted, else the nominated ones."""
    return [wl.cluster_name] if wl.cluster_name else list(wl.nominated)


def _settings(got: tuple[bool, Any]) -> m.MultiKueueSettings:
    ok, obj = got
    if not ok or not isinstance(obj, dict):
        return m.MultiKueueSettings()
    text = (obj.get("data") or {}).get(kc.KEY) if isinstance(obj.get("data"), dict) else None
    if not isinstance(text, str):
        return m.MultiKueueSettings()
    import yaml

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return m.MultiKueueSettings()
    return m.settings(doc if isinstance(doc, dict) else None)


def _gather_copy(source: Source, name: str, ns: str) -> tuple[Facts, PreemptionView] | None:
    """The copy's Facts, read as single-cluster why-pending reads a Workload, with a preemption view of the
    worker's own: its Kueue ConfigMap and the admitted Workloads its answer needs (the manager's --kueue-config is
    never applied to a worker)."""
    from kubectl_pd.kueue.preempt_answer import PreemptionView
    from kubectl_pd.pending.gather import gather
    from kubectl_pd.pending.target import Target

    view = PreemptionView()
    head = _head(source, name, ns)
    try:
        return gather(head, Target("Workload", name, ns), strict=False, preempt=view), view
    except NotFoundError:
        return None
    finally:
        if head is not source:
            from kubectl_pd.pending.lookahead import Lookahead

            if isinstance(head, Lookahead):
                head.close()


def _head(source: Source, name: str, ns: str) -> Source:
    """A live worker's first round sent at once (pending/plan.worker_round), as a TARGET's head start is: its copy,
    the copy's Pods and the bounded sets together."""
    from kubectl_pd.pending import plan

    if not source.is_live or not plan.pages(source):  # a snapshot's recorder keeps what is read by name, as before
        return source
    from kubectl_pd.pending.lookahead import Lookahead

    return Lookahead(source).send(plan.worker_round(name, ns))


def _worker_asks(wl: m.ManagerWorkload, access: Access, may: frozenset[str],
                 ) -> tuple[list[tuple[str, str, Ask]], dict[str, WorkerFacts]]:
    """One Ask per involved worker that may be read and has a context the user named (its copy gathered by the
    single-cluster reads); the others already answered: not read (why: `not-in-config`, `no-mapping`), or
    unreachable (a context that cannot be used)."""
    out: dict[str, WorkerFacts] = {}
    asks: list[tuple[str, str, Ask]] = []
    for cluster in involved_of(wl):
        if cluster not in may:
            out[cluster] = WorkerFacts(cluster, None, "no-context", error=NOT_IN_CONFIG)
            continue
        ctx = access.context(cluster)
        try:
            src = access.open(ctx) if ctx is not None else None
        except PdError as e:  # the context cannot be used (its user, its cluster entry): that worker only
            out[cluster] = WorkerFacts(cluster, ctx, "unreachable", error=str(e))
            continue
        if ctx is None or src is None:
            out[cluster] = WorkerFacts(cluster, ctx, "no-context", error=NO_MAPPING)
            continue
        asks.append((cluster, ctx, Ask(src, functools.partial(_gather_copy, src, wl.name, wl.namespace))))
    return asks, out


NOT_IN_CONFIG = "not-in-config"  # a name the Workload gives that the MultiKueueConfig of its queue's check lacks
NO_MAPPING = "no-mapping"  # no context named for it by the user


def _settle(asks: list[tuple[str, str, Ask]], got: list[tuple[bool, Any]]) -> dict[str, WorkerFacts]:
    out: dict[str, WorkerFacts] = {}
    for (cluster, ctx, _), (ok, value) in zip(asks, got, strict=True):
        if ok:
            facts, view = value if value is not None else (None, None)
            out[cluster] = WorkerFacts(cluster, ctx, "read", facts, view=view)
        elif isinstance(value, ForbiddenError):
            out[cluster] = WorkerFacts(cluster, ctx, "forbidden", error=str(value))
        elif isinstance(value, PdError):
            out[cluster] = WorkerFacts(cluster, ctx, "unreachable", error=str(value))
        elif isinstance(value, Exception):  # whatever else its answer did: that worker's part unknown, the rest stands
            out[cluster] = WorkerFacts(cluster, ctx, "unreachable", error=_broken(value))
        else:
            raise value
    return out


def _broken(e: Exception) -> str:
    """A worker's read that failed in a way no PdError names (its answer nested past what Python follows, ...)."""
    if isinstance(e, RecursionError):
        return "its answer is nested too deeply to read (more levels than Python follows)"
    return f"its answer could not be read ({type(e).__name__})"
