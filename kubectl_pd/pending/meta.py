"""Label and annotation values as strings or None, whatever a hand-edited snapshot holds."""

from __future__ import annotations

from kubectl_pd.cluster.source import Obj, annotations_of, labels_of


def label(obj: Obj, key: str) -> str | None:
    v = labels_of(obj).get(key)
    return v if isinstance(v, str) else None


def annotation(obj: Obj, key: str) -> str | None:
    v = annotations_of(obj).get(key)
    return v if isinstance(v, str) else None
