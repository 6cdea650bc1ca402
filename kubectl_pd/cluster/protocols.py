"""What a Source is, and what answers `file:line` questions: the two interfaces of the cluster layer.

Apart from source.py because `typing.Protocol` imports typing, which a Tab press does without.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from kubectl_pd.cluster.finder import LineFinder as LineFinder  # re-exported: parse.py and snapshot.py name it here
from kubectl_pd.cluster.objects import Obj, Origin


@runtime_checkable
class Source(Protocol):
    """What every read-only command needs from a cluster or a snapshot.

    `get` returns None when the object does not exist; every other failure raises a PdError.
    `namespace=None` in `list` means all namespaces. Kueue objects come back normalised to
    v1beta2 field names (see kueue.normalize) with their original apiVersion kept. `list` applies
    `reduce` to each object as it is read (a live list: as each page of 500 arrives); None drops it.
    A field selector is applied as the API server applies it (an absent field is ""); a live server may
    refuse one it does not declare (FieldSelectorUnsupported).

    `get_raw` GETs any API path (the visibility API, a ConfigMap, OpenAPI v3, a Deployment) and returns
    the JSON object, None on 404. Only a live cluster serves paths: a Source with `is_live` False raises a
    PdError (a snapshot holds objects, not answers to paths), so callers ask `is_live` first.

    What a Source is, every Source says (cluster/source.SourceDefaults holds the defaults every Source class
    derives; a Source over another forwards its inner's), so a caller asks and never probes: `is_live` (a live
    cluster: paths, discovery, watches); `parallel` (reads through it are worth threads; a run's memo, whose
    reads are answered from memory, says no); `replay` (the failed reads a `kubectl pd snapshot` recorded,
    failed again; None when there is no such record); `served_versions(group)` (API discovery: None when there
    is no server to ask); `version_for(kind)` (the version to read: None, no preference); `stored(kind)` (every
    object of the kind, a snapshot's replayed refusals aside: input checks).
    """

    is_live: bool
    parallel: bool

    @property
    def replay(self) -> Any: ...

    def served_versions(self, group: str) -> list[str] | None: ...

    def version_for(self, kind: Any) -> str | None: ...

    def stored(self, kind: str) -> list[Obj]: ...

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None: ...

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        *,
        reduce: Callable[[Obj], Obj | None] | None = None,
    ) -> list[Obj]: ...

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None: ...

    def origin(self, obj: Obj) -> Origin: ...
