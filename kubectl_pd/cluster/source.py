"""The one way commands read objects, whether from a cluster or from files."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

Obj = dict[str, Any]
PathT = tuple[str | int, ...]


@dataclass
class Origin:
    """Where an object came from, so findings can point at `file:line`."""

    file: str  # a path, `-` for stdin, or `cluster` for a live object
    line: int | None = None  # 1-based line of the object's first key
    node: Any = field(default=None, repr=False)  # the YAML node, for `line_of`

    def line_of(self, path: PathT) -> int | None:
        """1-based line of `path` inside the object (the nearest existing ancestor)."""
        node = self.node
        if node is None:
            return self.line
        line = node.start_mark.line + 1
        for step in path:
            nxt, key_line = _child(node, step)
            if nxt is None:
                return line
            node = nxt
            line = key_line if key_line is not None else node.start_mark.line + 1
        return line

    def location(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


def _child(node: Any, step: str | int) -> tuple[Any, int | None]:
    value = getattr(node, "value", None)
    if isinstance(step, int):
        if isinstance(value, list) and node.tag.endswith(":seq") and 0 <= step < len(value):
            return value[step], None
        return None, None
    if isinstance(value, list) and node.tag.endswith(":map"):
        for k, v in value:
            if getattr(k, "value", None) == step:
                # a block value starts on the line after its key: the key's line reads better
                return v, k.start_mark.line + 1
    return None, None


LIVE = Origin("cluster")


@runtime_checkable
class Source(Protocol):
    """What every read-only command needs from a cluster or a snapshot.

    `get` returns None when the object does not exist; every other failure raises a PdError.
    `namespace=None` in `list` means all namespaces. Kueue objects come back normalised to
    v1beta2 field names (see kueue.normalize) with their original apiVersion kept.
    """

    is_live: bool

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None: ...

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[Obj]: ...

    def origin(self, obj: Obj) -> Origin: ...


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
