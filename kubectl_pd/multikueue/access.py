"""How MultiKueue's workers are reached (a record the command's complete() builds once, kueuectl's client getter):
light on purpose, so a command can build it before its first reads go out without loading Kueue's model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from kubectl_pd.records import dataclass, field

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source

__all__ = ["NO_WORKERS", "Access", "Opener", "context_for", "no_worker", "replayed"]

Opener = Callable[[str], "Source | None"]


def context_for(cluster: str, mapping: Mapping[str, str], contexts: frozenset[str], by_name: bool = False,
                ) -> str | None:
    """--worker-context CLUSTER=CONTEXT first; else, when the user opted in (--worker-contexts-by-name), a context
    named like the MultiKueueCluster; else None (not read)."""
    if cluster in mapping:
        return mapping[cluster]
    return cluster if by_name and cluster in contexts else None


@dataclass(frozen=True)
class Access:
    """How the workers are reached, built once by the command's complete() (kueuectl's client getter): `open`, a
    context to its Source (None: that worker is not read), the kubeconfig's context names (read once, for
    --worker-contexts-by-name), the user's --worker-context mapping and opt-in. multikueue/ never sees the
    connection options."""

    open: Opener
    contexts: frozenset[str] = frozenset()
    mapping: Mapping[str, str] = field(default_factory=dict)
    by_name: bool = False

    def context(self, cluster: str) -> str | None:
        return context_for(cluster, self.mapping, self.contexts, self.by_name)

    @property
    def reads(self) -> bool:
        """Whether any worker may be read at all (a mapping or the opt-in)."""
        return bool(self.mapping) or self.by_name


def no_worker(_context: str) -> Source | None:
    return None


NO_WORKERS = Access(no_worker)  # a snapshot with no worker in it, or a caller that reads none


def replayed(sources: Mapping[str, Source]) -> Access:
    """A snapshot's workers: each its own Source, named by its cluster (no credential involved)."""
    return Access(sources.get, frozenset(sources), {}, True) if sources else NO_WORKERS
