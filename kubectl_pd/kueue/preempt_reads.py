"""Reading the admitted Workloads that Kueue's preemptor could pick from, one ClusterQueue at a time.

Kueue v0.18.4's Workload CRD declares `.status.admission.clusterQueue` a selectable field, so each queue
the verdict depends on is listed with `fieldSelector=status.admission.clusterQueue=<cq>` (the live Source
pages every list). A server that refuses the selector gets one cluster-wide list instead, filtered here.
Which queues: the preemptor's own (when `withinClusterQueue` allows any preemption) and, when
`reclaimWithinCohort` does, the queues of its cohort tree that borrow in a flavor/resource the Workload
may need (a peer within its nominal quota holds no candidate). A 403 makes the answer unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue import preemption as pre
from kubectl_pd.kueue.model import NEVER, FlavorResource, Snapshot
from kubectl_pd.records import dataclass, field
from kubectl_pd.slim import slimmer

SELECTOR = "status.admission.clusterQueue"

# Why the candidates are unknown (codes; printers make the English)
FORBIDDEN = "workloads-forbidden"
UNREADABLE = "workloads-unreadable"


@dataclass
class Reads:
    """What was read: admitted Workloads per queue, and why not when a read failed."""

    workloads: dict[str, list[pre.Admitted]] = field(default_factory=dict)
    unknown: str | None = None
    requests: int = 0
    fallback: bool = False  # the server refused the field selector: one cluster-wide list
    _all: list[Any] | None = None

    @property
    def read(self) -> frozenset[str]:
        return frozenset(self.workloads)

    def admitted(self) -> list[pre.Admitted]:
        return [w for ws in self.workloads.values() for w in ws]


def queues_to_read(snap: Snapshot, cq_name: str, frs: Iterable[FlavorResource]) -> list[str]:
    """The ClusterQueues whose Workloads can be candidates, from the policy and the reported usage."""
    cq = snap.cluster_queues[cq_name]
    p = cq.preemption
    out = [cq_name] if p.within_cluster_queue != NEVER else []
    if not cq.cohort or p.reclaim_within_cohort == NEVER:
        return out
    state = pre.State(snap, (), frozenset())  # usage as the queues report it
    root = state.nodes[cq_name].root()
    frs = list(frs)
    for peer in root.cluster_queues():
        if peer.name != cq_name and any(peer.borrowing_with(fr, Fraction(0)) for fr in frs):
            out.append(peer.name)
    return out


def _selector_refused(e: Exception) -> bool:
    """A server that does not know the selectable field (older API servers, older CRDs) answers 400 "field
    label not supported", which the Source raises as its own error type (never judged by its words)."""
    from kubectl_pd.errors import FieldSelectorUnsupported

    return isinstance(e, FieldSelectorUnsupported)


def read(source: Any, queues: Iterable[str], reads: Reads | None = None) -> Reads:
    """List each queue's admitted Workloads; a refusal of the selector falls back to one wide list."""
    from kubectl_pd.errors import ForbiddenError, PdError

    out = reads if reads is not None else Reads()
    for q in queues:
        if q in out.workloads or out.unknown:
            continue
        try:
            if out._all is None:
                try:
                    out.requests += 1
                    objs = source.list("Workload", None, field_selector=f"{SELECTOR}={q}", reduce=slimmer(source))
                except ForbiddenError:
                    raise
                except PdError as e:
                    if not _selector_refused(e):
                        raise
                    out.fallback = True
                    out.requests += 1
                    out._all = list(source.list("Workload", None, reduce=slimmer(source)))
            if out._all is not None:
                objs = [o for o in out._all if _queue_of(o) == q]
        except ForbiddenError:
            out.unknown = FORBIDDEN
            return out
        except PdError:
            out.unknown = UNREADABLE
            return out
        out.workloads[q] = [a for a in map(pre.admitted_of, objs) if a is not None and a.cluster_queue == q]
    return out


def _queue_of(obj: Any) -> str | None:
    status = obj.get("status") if isinstance(obj, dict) else None
    adm = status.get("admission") if isinstance(status, dict) else None
    cq = adm.get("clusterQueue") if isinstance(adm, dict) else None
    return cq if isinstance(cq, str) else None
