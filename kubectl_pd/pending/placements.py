"""MultiKueue's placements in why-pending's list (no TARGET, `-A`): where each row's Workloads went, from the
manager's Workloads alone (status.clusterName, status.nominatedClusterNames; Kueue v0.19.2
apis/kueue/v1beta2/workload_types.go). No worker is read for the list; `why-pending TARGET` reads them.

The WORKER column: the admitting worker once `status.clusterName` is set, else the nominated workers joined by ","
(the copies wait there), else "-". It is shown only when a listed Workload names a worker, so a cluster without
MultiKueue (or whose MultiKueue has dispatched nothing) prints the table it always printed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubectl_pd.pending.model import Diagnosis, Placement
from kubectl_pd.pending.screen_words import WORKER_HEADER as HEADER

__all__ = ["HEADER", "cell", "shown", "to_dict"]
NONE = "-"


def _workers(p: Placement) -> tuple[str, ...]:
    return (p.cluster,) if p.cluster else p.nominated


def cell(d: Diagnosis) -> str:
    """One row's WORKER cell: every worker its Workloads name, each once, in the order read."""
    seen = dict.fromkeys(w for p in d.placements for w in _workers(p))
    return ",".join(seen) or NONE


def shown(ds: Sequence[Diagnosis]) -> bool:
    """The column is printed when at least one listed Workload names a worker."""
    return any(d.placements for d in ds)


def to_dict(d: Diagnosis) -> dict[str, Any]:
    """`multikueue` of a list item (why-pending contract 1.5): each Workload's worker as the manager says it;
    {} when none names one. A TARGET's answer replaces it with the whole MultiKueue answer."""
    if not d.placements:
        return {}
    return {"multikueue": {"workloads": [{"name": p.workload, "dispatchedTo": p.cluster,
                                          "nominated": list(p.nominated)} for p in d.placements]}}
