"""Issue 48 item 2: one memo of a run's reads (cluster/prefetch.Remembered), which why-pending -A's memo
(PrefetchedSource), capacity's (capacity/gather.Once) and create's Node lists use: each read once, a refusal
remembered like an answer, reads asking the same at the same time sent once, anything that is not the cluster's
answer not remembered."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from kubectl_pd.capacity.gather import Once
from kubectl_pd.cluster.prefetch import PrefetchedSource, Remembered, together
from kubectl_pd.cluster.source import Obj, Origin, SourceDefaults
from kubectl_pd.errors import ForbiddenError


class Counting(SourceDefaults):
    is_live = True

    def __init__(self, fail: type[Exception] | None = None) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail = fail
        self.lock = threading.Lock()

    def _read(self, key: tuple[Any, ...]) -> Any:
        with self.lock:
            self.calls.append(key)
        time.sleep(0.05)
        if self.fail is not None:
            raise self.fail("no")
        return {"metadata": {"name": str(key)}}

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        return self._read(("get", kind, name, namespace))  # type: ignore[no-any-return]

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *, reduce: Callable[[Obj], Obj | None] | None = None) -> list[Obj]:
        return [self._read(("list", kind, namespace, label_selector))]

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        return self._read(("raw", path))  # type: ignore[no-any-return]

    def origin(self, obj: Obj) -> Origin:
        raise NotImplementedError


@pytest.mark.parametrize("memo", [Remembered, Once, lambda s: PrefetchedSource(s, {})])
def test_each_read_once(memo: Callable[[Any], Any]) -> None:
    inner = Counting()
    src = memo(inner)
    reads = [lambda: src.get("Workload", "a", "ns"), lambda: src.list("Node", None, "x=y"),
             lambda: src.get_raw("/apis/x")]
    first = [r() for r in reads]
    assert [r() for r in reads] == first
    assert len(inner.calls) == 3


def test_a_refusal_is_remembered_and_raised_again_without_a_request() -> None:
    inner = Counting(ForbiddenError)
    src = Remembered(inner)
    for _ in range(3):
        with pytest.raises(ForbiddenError):
            src.get("Node", "n", None)
    assert len(inner.calls) == 1


def test_what_is_not_the_clusters_answer_is_not_remembered() -> None:
    inner = Counting(ValueError)
    src = Remembered(inner)
    for _ in range(2):
        with pytest.raises(ValueError, match="no"):
            src.get("Node", "n", None)
    assert len(inner.calls) == 2


def test_reads_asking_the_same_together_are_sent_once() -> None:
    inner = Counting()
    src = Remembered(inner)
    got = together([lambda: src.list("Node", None, "a=b") for _ in range(6)], True)
    assert all(ok for ok, _v in got) and len({id(v) for _ok, v in got}) == 1
    assert len(inner.calls) == 1
