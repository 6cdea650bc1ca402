"""The one reader of the admission engine's snapshot (kueue/model.Snapshot): the ClusterQueues judged, every
ClusterQueue (the cohort trees' members), the Cohorts, the ResourceFlavors, and which of those lists were refused.

Every command that judges against quota reads them here (why-pending's gather step hands what it read in its
waves, create's preflight the queue and flavors it checked, capacity and queues list them): `read` lists what the
caller has not read already, through the caller's `Lister` (which settles a refused list the caller's way: a note,
a skipped check, the run's unread), and `Inputs.snapshot` is the one place the engine's Snapshot is made of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kubectl_pd.kueue.model import Snapshot, cluster_queue
from kubectl_pd.records import dataclass

# kind -> its list as the caller's Source answers it; None when it was refused (the caller has said why)
Lister = Callable[[str], "list[Any] | None"]


@dataclass(frozen=True)
class Inputs:
    """What the engine's Snapshot is made of, as read: the judged ClusterQueues (name -> object or record; None =
    read and absent), the flavors (name -> object or record; None = read and absent), every ClusterQueue listed
    (`peers`) and the Cohorts (None: could not be read), and whether they came from a live cluster."""

    queues: Mapping[str, Any]
    flavors: Mapping[str, Any]
    peers: Sequence[Any] | None
    cohorts: Sequence[Any] | None
    live: bool

    def snapshot(self) -> Snapshot:
        return Snapshot.read(self.queues, self.flavors, self.peers, self.cohorts, from_file=not self.live)


def read(lister: Lister, live: bool, names: Iterable[str] | None = None, *, queues: Mapping[str, Any] | None = None,
         flavors: Mapping[str, Any] | None = None, list_flavors: bool = True, cohort_only: bool = False,
         ) -> Inputs | None:
    """The engine snapshot's inputs, listing what the caller has not read. QUEUES: the judged ClusterQueues the
    caller read (create's preflight); else they are taken from the ClusterQueue list (NAMES, or every one: queues),
    and a refused list leaves nothing to judge (None). FLAVORS: the flavors the caller read; else, with
    LIST_FLAVORS, the judged queues' flavors from one ResourceFlavor list (refused: none known), without it none.
    COHORT_ONLY: every ClusterQueue and the Cohorts are listed only when a judged queue names a cohort (else
    neither is read: a queue alone has no peer)."""
    peers: list[Any] | None
    if queues is None:
        peers = lister("ClusterQueue")
        if peers is None:
            return None
        by_name = {cluster_queue(o).name: o for o in peers}
        queues = by_name if names is None else {n: by_name.get(n) for n in names}
        cohorts = lister("Cohort")
    elif cohort_only and not any(o is not None and _typed_queue(o).cohort for o in queues.values()):
        peers, cohorts = [], []
    else:
        peers, cohorts = lister("ClusterQueue"), lister("Cohort")
    if flavors is None:
        flavors = _flavors(lister, queues) if list_flavors else {}
    return Inputs(queues, flavors, peers, cohorts, live)


def _typed_queue(o: Any) -> Any:
    return o if not isinstance(o, dict) else cluster_queue(o)


def _flavors(lister: Lister, queues: Mapping[str, Any]) -> dict[str, Any]:
    """The judged queues' flavors from one ResourceFlavor list (None = listed and absent); {} when it was refused."""
    listed = lister("ResourceFlavor")
    if listed is None:
        return {}
    wanted = {f for o in queues.values() if o is not None for f in _typed_queue(o).flavor_names}
    have = {(o.get("metadata") or {}).get("name"): o for o in listed}
    return {f: have.get(f) for f in wanted}
