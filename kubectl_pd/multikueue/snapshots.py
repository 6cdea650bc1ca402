"""Every cluster a MultiKueue answer reads, in one snapshot file that replays.

`kubectl pd snapshot` on a manager: each worker's reads go through a Recorder of their own; their objects join the
manager's, each marked with the annotation CLUSTER (kept by the redaction: our domain). `why-pending -f` splits
them again (`split`): the manager's objects are the manager, each worker's its own Source, named by the cluster.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.multikueue.access import Access
    from kubectl_pd.pending.gather import Facts
    from kubectl_pd.snapshot.out import Recorder

CLUSTER = "kubectl-pd.io/multikueue-cluster"  # the worker an object of a snapshot was read on


def _cluster_of(obj: Any) -> str | None:
    ann = ((obj.get("metadata") or {}).get("annotations") or {}) if isinstance(obj, dict) else {}
    value = ann.get(CLUSTER) if isinstance(ann, dict) else None
    return value if isinstance(value, str) and value else None


def record(rec: Recorder, facts: Facts, access: Access | None,
           contexts: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
    """Read what why-pending reads on every worker (through recorders over ACCESS's Sources: only the contexts the
    user named), and keep their objects in REC marked with their cluster. The reads that failed, as the snapshot
    header's `unread` rows; CONTEXTS gets one row per worker read ({cluster, context}: the header's `workers`)."""
    from kubectl_pd.multikueue.access import NO_WORKERS, Access
    from kubectl_pd.multikueue.reads import ManagerUnread
    from kubectl_pd.multikueue.run import candidates, explain
    from kubectl_pd.snapshot.out import Recorder

    if not candidates(facts) or not rec.is_live:
        return []
    recorders: dict[str, Recorder] = {}
    access = access or NO_WORKERS

    def opener(ctx: str) -> Source | None:
        src = access.open(ctx)
        if src is None:
            return None
        recorders[ctx] = Recorder(src)
        return recorders[ctx]

    recording = Access(opener, access.contexts, access.mapping, access.by_name)
    try:
        ans = explain(rec, facts, recording)
    except ManagerUnread as e:
        return [{"read": e.what, "error": str(e.error)}]
    if ans is None:
        return []
    unread = []
    for w in ans.workers:
        wr = recorders.get(w.context or "")
        if wr is None:
            continue
        if contexts is not None:
            contexts.append({"cluster": w.cluster, "context": w.context or ""})
        for (kind, ns, name), obj in wr.objects.items():
            meta = obj.setdefault("metadata", {})
            ann = meta.get("annotations")
            meta["annotations"] = {**(ann if isinstance(ann, dict) else {}), CLUSTER: w.cluster}
            rec.objects.setdefault((kind, f"{w.cluster}:{ns}", name), obj)
        if w.read in ("unreachable", "forbidden"):
            unread.append({"read": f"worker {w.cluster} (context {w.context})", "error": w.read})
    return unread


def split(source: Source) -> tuple[Source, dict[str, SnapshotSource]]:
    """A snapshot's manager objects, and each worker's objects as a Source of their own (none: as it was)."""
    from kubectl_pd.cluster.snapshot import SnapshotSource

    if not isinstance(source, SnapshotSource):
        return source, {}
    objs = list(source.all_objects())
    by_cluster: dict[str, list[Any]] = {}
    for o in objs:
        c = _cluster_of(o)
        if c is not None:
            by_cluster.setdefault(c, []).append(o)
    if not by_cluster:
        return source, {}
    manager = SnapshotSource.from_objects([o for o in objs if _cluster_of(o) is None], "snapshot")
    manager.replay = source.replay  # the manager's failed reads fail again
    return manager, {c: SnapshotSource.from_objects(os_, f"snapshot ({c})") for c, os_ in by_cluster.items()}
