"""The one way commands read objects, whether from a cluster or from files."""

from __future__ import annotations

from kubectl_pd.cluster.objects import LIVE as LIVE  # the shared types, re-exported
from kubectl_pd.cluster.objects import Lines as Lines
from kubectl_pd.cluster.objects import Obj as Obj
from kubectl_pd.cluster.objects import Origin as Origin
from kubectl_pd.cluster.objects import PathT as PathT
from kubectl_pd.cluster.objects import descend as descend

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

    from kubectl_pd.cluster.protocols import Source


def meta(obj: Obj) -> dict[str, Any]:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


def name_of(obj: Obj) -> str:
    return str(meta(obj).get("name") or "")


def namespace_of(obj: Obj) -> str | None:
    ns = meta(obj).get("namespace")
    return str(ns) if ns else None


def labels_of(obj: Obj) -> dict[str, str]:
    labels = meta(obj).get("labels")
    return labels if isinstance(labels, dict) else {}


def annotations_of(obj: Obj) -> dict[str, str]:
    ann = meta(obj).get("annotations")
    return ann if isinstance(ann, dict) else {}


class SourceDefaults:
    """What a Source says of itself unless it says otherwise (cluster/protocols.Source): every Source class
    derives from it, so a caller asks the capability and never probes for it. The defaults are a snapshot's:
    not a live cluster; reads worth threads; no record of a `kubectl pd snapshot`'s failed reads; no API
    discovery (which versions a server serves is not known); every stored object is what a list returns."""

    is_live = False
    parallel = True  # whether reads through it are worth threads (a run's memo: no)
    replay: Any = None  # cluster/snapshot.Replay of a snapshot that recorded failed reads (a wrapper: its inner's)

    def served_versions(self, group: str) -> list[str] | None:
        """The versions of `group` a live server serves, preferred first; None: not known (no server)."""
        return None

    def version_for(self, kind: Any) -> str | None:
        """The version of `kind` to read; None: no preference (no server to ask)."""
        return None

    def stored(self, kind: str) -> list[Obj]:
        """Every object of `kind` the Source holds, before any replayed refusal (a snapshot's header)."""
        return self.list(kind)  # type: ignore[attr-defined,no-any-return]


class Wrapper(SourceDefaults):
    """A Source over another one (`inner`): what it says of itself is `inner`'s, its own reads apart. The run's
    memo (cluster/prefetch.PrefetchedSource) and the reads sent ahead (pending/lookahead.Lookahead) derive from it."""

    inner: Source

    @property
    def replay(self) -> Any:
        """The inner Source's (a snapshot's failed reads fail again through the wrapper)."""
        return self.inner.replay

    def served_versions(self, group: str) -> list[str] | None:
        return self.inner.served_versions(group)

    def version_for(self, kind: Any) -> str | None:
        return self.inner.version_for(kind)

    def stored(self, kind: str) -> list[Obj]:
        return self.inner.stored(kind)
