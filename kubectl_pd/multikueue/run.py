"""One MultiKueue diagnosis: read (reads.py), then decide with no I/O: each worker copy through the same
diagnosis as single-cluster why-pending (pending/diagnose), then the answer (answer.py). why-pending reads with
`Reads` beside the manager's gather, then decides (`decide`); a snapshot records with `explain` (read, then
decide)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kubectl_pd.multikueue import model as m
from kubectl_pd.multikueue.access import Access
from kubectl_pd.multikueue.answer import MultiKueueAnswer, answer
from kubectl_pd.multikueue.reads import WorkerFacts, read

if TYPE_CHECKING:
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
                        m.WorkerCopy(origin, d.pending, tuple(d.reasons), admitted, preemption,
                                     tuple(r.name for r in d.roles if r.verdict == "fits")), wf.error)


def decide(mgr: m.Manager, workers: Mapping[str, WorkerFacts], now: datetime | None = None) -> MultiKueueAnswer | None:
    """Pure: the answer from what was read."""
    reads = {c: _copy(wf, mgr.workload.name, now) for c, wf in workers.items()}
    return answer(mgr, reads, now)


def _manager_workloads(facts: Facts) -> list[m.ManagerWorkload]:
    """The target's Workloads that may be MultiKueue's, as the manager's diagnosis read them (parsed once)."""
    return [m.from_typed(wl, queue_checks(facts, wl))
            for n in candidates(facts) if (wl := facts.workloads[n]) is not None]


Got = tuple["m.Manager | None", "dict[str, WorkerFacts]"]


class Reads:
    """MultiKueue's reads beside the manager's own (pending/run.Alongside; issue 49: three rounds). `first` is
    told as soon as the manager's gather has the target's Workloads and queues: when one waits on an admission
    check, the manager's MultiKueue objects (sent in the first round when workers are to be read:
    pending/plan.multikueue_reads) and then every allowed worker's copy are read in a thread of their own, beside
    the manager's next round; `rest` waits for them. `got` is the closed record the decision reads (no I/O)."""

    def __init__(self, source: Source, access: Access) -> None:
        self.source = source
        self.access = access
        self._workloads: list[m.ManagerWorkload] | None = None
        self._box: dict[str, Any] = {}
        self._thread: Any = None

    def first(self, facts: Facts) -> None:
        if self._workloads is not None:
            return
        self._workloads = _manager_workloads(facts)
        if not self._workloads:
            return
        if not self.source.is_live:
            self._read()
            return
        from kubectl_pd import interrupt

        self._thread = interrupt.thread(self._read, "kubectl-pd-multikueue")

    def _read(self) -> None:
        try:
            self._box["got"] = read(self.source, self._workloads or [], self.access)
        except BaseException as e:  # noqa: B036 - handed back by `got`
            self._box["error"] = e

    def rest(self, facts: Facts) -> None:
        self.first(facts)  # a gather that never reached the target's queues (nothing started): now
        if self._thread is not None:
            from kubectl_pd import interrupt

            interrupt.join(self._thread)

    def got(self) -> Got:
        """What was read: the Manager (None: no Workload waits on a MultiKueue check) and its workers; a failed read
        of the manager's objects raises (reads.ManagerUnread)."""
        if "error" in self._box:
            raise self._box["error"]
        got: Got = self._box.get("got", (None, {}))
        return got


def explain(source: Source, facts: Facts, access: Access, now: datetime | None = None) -> MultiKueueAnswer | None:
    """The MultiKueue answer for the target's Workload, or None (no Workload waits on a MultiKueue check).
    The manager's Workload is the one the diagnosis read (parsed once); the workers are reached through ACCESS
    (built once by the command: --worker-context, else with the user's opt-in a context named like the cluster; a
    snapshot's own recorded workers, by cluster name)."""
    workloads = _manager_workloads(facts)
    if not workloads:
        return None
    mgr, workers = read(source, workloads, access)
    return decide(mgr, workers, now) if mgr is not None else None
