"""A held watch's events are parsed once, where they arrive (kube.watch_event; pending/watch_all reads the typed
record, never the object): the type and the resourceVersion a change or a BOOKMARK brings, nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.kube import WatchEvent, watch_event


@pytest.mark.parametrize(("typ", "obj", "want"), [
    ("ADDED", {"metadata": {"name": "w", "resourceVersion": "12"}}, WatchEvent("ADDED", "12")),
    ("BOOKMARK", {"metadata": {"resourceVersion": "40"}}, WatchEvent("BOOKMARK", "40")),
    ("MODIFIED", {"metadata": {"resourceVersion": ""}}, WatchEvent("MODIFIED", None)),
    ("DELETED", {"metadata": {"resourceVersion": 7}}, WatchEvent("DELETED", None)),
    ("DELETED", {"metadata": None}, WatchEvent("DELETED", None)),
    ("ADDED", None, WatchEvent("ADDED", None)),
    (None, {"metadata": {"resourceVersion": "3"}}, WatchEvent("", "3")),
])
def test_watch_event(typ: Any, obj: Any, want: WatchEvent) -> None:
    assert watch_event(typ, obj) == want
