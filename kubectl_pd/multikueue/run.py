"""One MultiKueue diagnosis: read (reads.py), then decide with no I/O: each worker copy through the same
diagnosis as single-cluster why-pending (pending/diagnose), then the answer (answer.py). The one entry point
why-pending calls: `explain`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kubectl_pd.multikueue import model as m
from kubectl_pd.multikueue.answer import MultiKueueAnswer, answer
from kubectl_pd.multikueue.reads import WorkerFacts, context_for, live_worker, read, worker_contexts

if TYPE_CHECKING:
    from kubectl_pd.cluster.config import ClusterOptions
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.pending.gather import Facts


def queue_checks(facts: Facts, wl: Any) -> tuple[str, ...] | None:
    """The admission checks of the Workload's ClusterQueue, as the diagnosis read it (its admission's queue, else
    its LocalQueue's); None when that queue was not read."""
    name = wl.cluster_queue
    if not name and wl.queue_name:
        lq = facts.local_queues.get(wl.queue_name)
        name = lq.cluster_queue if lq is not None else None
    cq = facts.cluster_queues.get(name) if name else None
    return tuple(cq.admission_checks) if cq is not None else None


def candidates(facts: Facts) -> list[str]:
    """The target's Workloads that wait on an admission check: only they can be MultiKueue's (no read otherwise)."""
    return [n for n, wl in facts.workloads.items() if wl is not None and wl.admission_checks]


def _copy(wf: WorkerFacts, name: str, now: datetime | None) -> m.WorkerRead:
    if wf.facts is None:
        return m.WorkerRead(wf.cluster, wf.context, wf.read, None, wf.error)
    from kubectl_pd.pending.diagnose import diagnose

    view = wf.view
    d = diagnose(wf.facts, now, preempt=view) if view is not None else diagnose(wf.facts, now)
    from kubectl_pd.pending.run import stands

    if not stands(d, wf.facts):  # its verdict would rest on a read that failed there: unknown, as single-cluster
        from kubectl_pd.pending.words import read_text

        why = "; ".join(f"{read_text(u.read)}: {u.why}" for u in wf.facts.incomplete)
        return m.WorkerRead(wf.cluster, wf.context, "unreachable", None, why)
    wl = wf.facts.workloads.get(name)
    origin = wl.labels.get(m.ORIGIN_LABEL) if wl is not None else None
    admitted = wl is not None and wl.admitted
    preemption = d.preemption
    return m.WorkerRead(wf.cluster, wf.context, wf.read,
                        m.WorkerCopy(origin, d.pending, tuple(d.reasons), admitted, preemption), wf.error)


def decide(mgr: m.Manager, workers: Mapping[str, WorkerFacts], now: datetime | None = None) -> MultiKueueAnswer | None:
    """Pure: the answer from what was read."""
    reads = {c: _copy(wf, mgr.workload.name, now) for c, wf in workers.items()}
    return answer(mgr, reads, now)


def explain(source: Source, facts: Facts, opts: ClusterOptions | None, mapping: Mapping[str, str],
            now: datetime | None = None, open_worker: Callable[[str], Source | None] | None = None,
            replayed: Mapping[str, Source] | None = None, by_name: bool = False) -> MultiKueueAnswer | None:
    """The MultiKueue answer for the target's Workload, or None (no Workload waits on a MultiKueue check).
    The manager's Workload is the one the diagnosis read (parsed once); worker access: `mapping`
    (--worker-context), else, with `by_name` (the user's opt-in), a kubeconfig context named like the cluster;
    a snapshot (no `opts`) reads no live worker: its own recorded workers, by cluster name."""
    workloads = [m.from_typed(wl, queue_checks(facts, wl))
                 for n in candidates(facts) if (wl := facts.workloads[n]) is not None]
    if not workloads:
        return None
    opener: Callable[[str], Source | None]
    if replayed:  # a snapshot's workers: each its own Source, named by its cluster (no credential involved)
        contexts, opener, by_name = set(replayed), replayed.get, True
    else:
        contexts = worker_contexts(opts) if by_name else set()
        opener = open_worker or _opener(source, opts)

    def context(cluster: str) -> str | None:
        return context_for(cluster, mapping, contexts, by_name)

    mgr, workers = read(source, workloads, opener, context)
    return decide(mgr, workers, now) if mgr is not None else None


def _opener(source: Source, opts: ClusterOptions | None) -> Callable[[str], Source | None]:
    """A live manager's workers are live Sources of the user's contexts; a snapshot reads no worker."""
    def open_live(ctx: str) -> Source | None:
        return live_worker(opts, ctx) if opts is not None and source.is_live else None

    return open_live
