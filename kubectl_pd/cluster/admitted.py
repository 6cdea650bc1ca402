"""The reads of Kueue's admitted Workloads and configuration that preemption's answers rest on: why-pending's
gather step makes them before the diagnosis (pending/gather.gather_preemption, from the plan of
kueue/preempt_reads.plan), create's preflight as it weighs the request (`Reading`). The records they fill
(kueue/preempt_reads.Known) are read by the pure engine, which reads nothing itself.

Each queue's admitted Workloads are one list with `fieldSelector=status.admission.clusterQueue=<cq>` (the
live Source pages it); a server that refuses the selector gets one cluster-wide list instead, filtered here;
every object goes through the one Workload parser (kueue/model.workload). A 403 makes a queue's Workloads
unknown (a code), never empty.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kubectl_pd.cluster.prefetch import together
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.slim import slimmer
from kubectl_pd.cluster.source import Obj
from kubectl_pd.errors import FieldSelectorUnsupported, ForbiddenError, PdError
from kubectl_pd.kueue import config as kc
from kubectl_pd.kueue import preempt_reads as pr
from kubectl_pd.kueue.config import KueueConfig
from kubectl_pd.kueue.model import Workload, workload

Parse = Callable[[list[Obj]], list[Workload]]  # objects -> their Workload records (a run's memo, pending/gather.Typed)


def _parse_each(objs: list[Obj]) -> list[Workload]:
    return [workload(o) for o in objs]


def read_admitted(source: Source, queues: list[str], known: pr.Known | None = None, *, config: bool = False,
                  parse: Parse | None = None) -> pr.Known:
    """List each queue's admitted Workloads (field-selected by queue), parsed by the one Workload parser; a
    refusal of the selector falls back to one cluster-wide list; with `config`, Kueue's configuration in the
    same wave. The first queue's list goes alone (it learns whether the server takes the selector), the rest
    together on a live cluster. A failure makes that queue unknown (a code), never empty."""
    out = known if known is not None else pr.Known()
    memo = parse if parse is not None else _parse_each
    todo = [q for q in dict.fromkeys(queues) if not out.has(q)]
    live = source.is_live
    head = together([functools.partial(_admitted_list, source, q) for q in todo[:1]]
                    + ([functools.partial(read_kueue_config, source)] if config else []), live)
    if config:
        ok, cfg = head.pop()
        if not ok:
            raise cfg
        out.config = cfg
    out.requests += len(head)
    wide_failed: str | None = None
    if head and _refused(head[0]):
        wide_failed = _wide(source, out, memo)
        tail: list[tuple[bool, Any]] = [(False, None)] * len(todo[1:])  # the wide list answered them
    else:
        tail = together([functools.partial(_admitted_list, source, q) for q in todo[1:]], live)
        out.requests += len(tail)
    for q, (ok, objs) in zip(todo, head + tail, strict=True):
        if out.wide is not None:
            out.workloads[q] = [a for a in out.wide if a.cluster_queue == q]
        elif ok:
            out.workloads[q] = [a for a in map(pr.admitted_of, memo(objs)) if a is not None
                                and a.cluster_queue == q]
        elif wide_failed is not None:
            out.failed[q] = wide_failed
        elif isinstance(objs, PdError):
            out.failed[q] = pr.FORBIDDEN if isinstance(objs, ForbiddenError) else pr.UNREADABLE
        else:
            raise objs
    return out


def _admitted_list(source: Source, queue: str) -> list[Obj]:
    return source.list("Workload", None, field_selector=f"{pr.SELECTOR}={queue}", reduce=slimmer(source))


def _refused(result: tuple[bool, Any]) -> bool:
    """A server that does not know the selectable field (older API servers, older CRDs) answers 400 "field
    label not supported", which the Source raises as its own error type (never judged by its words)."""
    return not result[0] and isinstance(result[1], FieldSelectorUnsupported)


def _wide(source: Source, out: pr.Known, run: Parse) -> str | None:
    """The one cluster-wide list of Workloads, when the selector was refused; why it failed (a code), if so."""
    out.fallback = True
    out.requests += 1
    try:
        objs = source.list("Workload", None, reduce=slimmer(source))
    except ForbiddenError:
        return pr.FORBIDDEN
    except PdError:
        return pr.UNREADABLE
    out.wide = [a for a in map(pr.admitted_of, run(objs)) if a is not None]
    return None


def read_kueue_config(source: Source) -> KueueConfig:
    """Kueue's configuration from a Source: live through the API (403 -> defaults + note), a snapshot from its
    objects (kueue/config.py parses it)."""
    try:
        if source.is_live:  # only a live cluster serves the path (cluster/protocols.Source)
            obj = source.get_raw(f"/api/v1/namespaces/{kc.NAMESPACE}/configmaps/{kc.CONFIGMAP}",
                                 resource="configmaps", namespace=kc.NAMESPACE)
            return kc.from_configmap(obj)
        obj = source.get("ConfigMap", kc.CONFIGMAP, kc.NAMESPACE)
        return kc.from_configmap(obj) if obj is not None else KueueConfig(note=kc.NOTE_DEFAULTS_UNREAD)
    except ForbiddenError:
        return KueueConfig(note=kc.NOTE_DEFAULTS_FORBIDDEN)
    except PdError:
        return KueueConfig(note=kc.NOTE_DEFAULTS_UNREAD)


class Reading(pr.Known):
    """A record of admitted Workloads that reads a queue when first asked for, and Kueue's configuration when
    first needed: create's preflight, which judges one request against one queue as it checks it (its reads
    are its checks'). why-pending closes its record before the diagnosis instead (`gather_preemption`)."""

    def __init__(self, source: Source) -> None:
        super().__init__()
        self.source = source

    def fill(self, queues: list[str]) -> None:
        read_admitted(self.source, queues, self)

    def kueue_config(self) -> KueueConfig | None:
        if self.config is None:
            self.config = read_kueue_config(self.source)
        return self.config
