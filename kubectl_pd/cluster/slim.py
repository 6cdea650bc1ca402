"""What no command reads of a listed object, dropped as its page arrives: used by every layer that lists
(cluster/, kueue/, pending/), so it depends on nothing of theirs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def slim(obj: dict[str, Any]) -> dict[str, Any]:
    """A listed object without what no command here reads and what is often most of its size: its
    `metadata.managedFields` and kubectl's last-applied-configuration annotation (a second copy of the
    object). In place: for the objects of a live list (`reduce=`), which nothing else holds."""
    m = obj.get("metadata")
    if isinstance(m, dict):
        m.pop("managedFields", None)
        ann = m.get("annotations")
        if isinstance(ann, dict):
            ann.pop(LAST_APPLIED, None)
    return obj


def slimmer(source: Source) -> Any:
    """`slim` for a live source's lists (`reduce=`); None for a snapshot, whose objects are its own."""
    return slim if source.is_live else None
