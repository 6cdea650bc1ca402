"""The reads of a MultiKueue diagnosis (the shell): the manager's MultiKueue objects in one wave, then every
involved worker's copy, each read and gathered through the user's own kubeconfig (a context named like the
MultiKueueCluster, or --worker-context CLUSTER=CONTEXT); never Kueue's kubeconfig Secrets. The waves go out with
cluster/prefetch.perform: one Ask per read, each cluster its own Source and its own bounded connections."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kubectl_pd.cluster.prefetch import Ask, perform
from kubectl_pd.errors import ForbiddenError, NotFoundError, PdError
from kubectl_pd.kueue import config as kc
from kubectl_pd.multikueue import model as m
from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.cluster.config import ClusterOptions
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.pending.gather import Facts


@dataclass(frozen=True)
class WorkerFacts:
    """One worker as read: the context used, how the read went, what the single-cluster gather found."""

    cluster: str
    context: str | None
    read: m.Read
    facts: Facts | None = None  # None: not read, or its copy does not exist
    error: str = ""


class ManagerUnread(PdError):
    """A read of the manager's MultiKueue objects failed: the MultiKueue part is unknown."""

    def __init__(self, what: str, error: PdError) -> None:
        super().__init__(f"{what}: {error}")
        self.what = what
        self.error = error


def worker_contexts(opts: ClusterOptions | None) -> set[str]:
    """The context names of the user's kubeconfig (none when it cannot be read: every worker "not read")."""
    if opts is None:
        return set()
    from kubectl_pd.cluster.config import read_kubeconfig

    try:
        return {str(c.get("name")) for c in read_kubeconfig(opts)["contexts"] if isinstance(c, dict)}
    except (PdError, OSError):
        return set()


def context_for(cluster: str, mapping: Mapping[str, str], contexts: set[str]) -> str | None:
    """--worker-context CLUSTER=CONTEXT first; else a context named like the MultiKueueCluster; else None."""
    if cluster in mapping:
        return mapping[cluster]
    return cluster if cluster in contexts else None


def live_worker(opts: ClusterOptions, context: str) -> Source:
    """The worker's Source: the same kubeconfig files and timeout, that context, none of the manager's overrides
    (--server, --token, --as ... name the manager's cluster and user)."""
    from kubectl_pd.cluster.config import ClusterOptions
    from kubectl_pd.cluster.live import LiveSource

    return LiveSource(ClusterOptions(kubeconfig=opts.kubeconfig, context=context,
                                     request_timeout=opts.request_timeout))


def mk_checks(source: Source) -> dict[str, m.Check]:
    """Every AdmissionCheck, one list: which of them are MultiKueue's (the one read a Workload under some other
    admission check costs). A failed read: ManagerUnread (the MultiKueue part is unknown)."""
    try:
        return {c.name: c for c in map(m.check, source.list("AdmissionCheck", None))}
    except PdError as e:
        raise ManagerUnread("AdmissionCheck", e) from None


def _manager_asks(source: Source, name: str, ns: str, config: str | None) -> list[Ask]:
    return [Ask(source, lambda: source.get("Workload", name, ns)),
            Ask(source, lambda: source.get("MultiKueueConfig", config, None) if config else None),
            Ask(source, lambda: source.list("MultiKueueCluster", None)),
            Ask(source, lambda: _configmap(source))]


def _configmap(source: Source) -> Any:
    """Kueue's ConfigMap: a live cluster serves it by path only (cluster/protocols.Source), a snapshot by kind."""
    if source.is_live:
        return source.get_raw(f"/api/v1/namespaces/{kc.NAMESPACE}/configmaps/{kc.CONFIGMAP}",
                              resource="configmaps", namespace=kc.NAMESPACE)
    return source.get("ConfigMap", kc.CONFIGMAP, kc.NAMESPACE)


_WHAT = ("Workload", "MultiKueueConfig", "MultiKueueCluster", "ConfigMap")


def read_manager(source: Source, name: str, ns: str, checks: Mapping[str, m.Check],
                 named: tuple[str, ...]) -> m.Manager | None:
    """The manager's Workload and MultiKueue objects, one wave, when one of the checks the Workload NAMED is a
    MultiKueue check (else None, nothing read). Kueue's ConfigMap refused or absent: its defaults (Kueue's own)."""
    mk = next((checks[n] for n in named if n in checks and checks[n].multikueue), None)
    if mk is None:
        return None
    got = perform(_manager_asks(source, name, ns, mk.config))
    for what, (ok, value) in zip(_WHAT, got, strict=True):
        if not ok and what != "ConfigMap":
            if isinstance(value, PdError):
                raise ManagerUnread(what, value)
            raise value
    if got[0][1] is None:
        return None
    wl = m.manager_workload(got[0][1])
    mgr = m.Manager(wl, {c.name: checks[c.name] for c in wl.checks if c.name in checks})
    mk_now = mgr.mk_check
    if mk_now is None:
        return None
    cfg = m.config(got[1][1]) if got[1][1] is not None and mk_now.config == mk.config else None
    clusters = {c.name: c for c in map(m.cluster, got[2][1] or [])}
    return m.Manager(wl, mgr.checks, cfg, clusters, _settings(got[3]))


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


def _gather_copy(source: Source, name: str, ns: str) -> Facts | None:
    from kubectl_pd.pending.gather import Target, gather

    try:
        return gather(source, Target("Workload", name, ns), strict=False)
    except NotFoundError:
        return None


def read_workers(mgr: m.Manager, open_worker: Callable[[str], Source | None], contexts: Callable[[str], str | None],
                 ) -> dict[str, WorkerFacts]:
    """Every involved worker's copy, gathered by the single-cluster reads, all workers at once."""
    from kubectl_pd.multikueue.answer import involved

    out: dict[str, WorkerFacts] = {}
    asks: list[tuple[str, str, Ask]] = []
    name, ns = mgr.workload.name, mgr.workload.namespace
    for cluster in involved(mgr):
        ctx = contexts(cluster)
        try:
            src = open_worker(ctx) if ctx is not None else None
        except PdError as e:  # the context cannot be used (its user, its cluster entry): that worker only
            out[cluster] = WorkerFacts(cluster, ctx, "unreachable", error=str(e))
            continue
        if ctx is None or src is None:
            out[cluster] = WorkerFacts(cluster, ctx, "no-context")
            continue
        asks.append((cluster, ctx, Ask(src, functools.partial(_gather_copy, src, name, ns))))
    for (cluster, ctx, _), (ok, value) in zip(asks, perform([a for _, _, a in asks]), strict=True):
        if ok:
            out[cluster] = WorkerFacts(cluster, ctx, "read", value)
        elif isinstance(value, ForbiddenError):
            out[cluster] = WorkerFacts(cluster, ctx, "forbidden", error=str(value))
        elif isinstance(value, PdError):
            out[cluster] = WorkerFacts(cluster, ctx, "unreachable", error=str(value))
        else:
            raise value
    return out
