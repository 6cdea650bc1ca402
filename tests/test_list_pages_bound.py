"""Issue 42, N8: a server that hands out a new continue token on every page, without announcing a count
(remainingItemCount), was followed for 20,000 pages (about 16 minutes and 10 GB at the rate the probe saw).
Now the pages of one list stop at twice the bound on one answer, in bytes together (1 GiB by default, said in
the error with KUBECTL_PD_MAX_RESPONSE_SIZE, which scales it), or at 2,000 pages without a count, whichever
comes first. Real subprocess runs against the loopback server (tests/apiserver.py), with a timeout."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.live import MAX_PAGES
from tests.apiserver import FakeApiServer

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}


class EndlessWithoutCount(FakeApiServer):
    """Every list page: `per_page` copies of the stored objects under fresh names, a new continue token, and no
    remainingItemCount (a server, or a proxy in front of one, that never says how many remain)."""

    per_page: int = 500

    def _list(self, group: str, version: str, plural: str, ns: str, query: dict[str, str]) -> dict[str, Any]:
        doc = super()._list(group, version, plural, ns, {k: v for k, v in query.items() if k != "continue"})
        base = doc["items"][:1]
        items = []
        for i in range(self.per_page if base else 0):
            item = copy.deepcopy(base[0])
            item["metadata"]["name"] = f"cq-{uuid.uuid4().hex[:12]}-{i}"
            items.append(item)
        doc["items"] = items
        doc["metadata"] = {"resourceVersion": "1", "continue": uuid.uuid4().hex}
        return doc


@pytest.fixture
def endless(tmp_path: Path) -> Iterator[tuple[EndlessWithoutCount, Path]]:
    s = EndlessWithoutCount(objects=[CQ]).start()
    yield s, s.write_kubeconfig(tmp_path / "kc")
    s.stop()


def _run(kc: Path, env: dict[str, str] | None = None) -> tuple[int, str, float]:
    full = {**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1", **(env or {})}
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--request-timeout", "60s"], env=full,
                       capture_output=True, text=True, timeout=240)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr, r.stderr
    return r.returncode, lines[0], time.monotonic() - started


def test_endless_pages_stop_at_the_bound_on_one_list(endless: tuple[EndlessWithoutCount, Path]) -> None:
    s, kc = endless
    code, line, _ = _run(kc, {"KUBECTL_PD_MAX_RESPONSE_SIZE": "262144"})
    assert code == 1 and "512Ki" in line and "KUBECTL_PD_MAX_RESPONSE_SIZE" in line, line
    page = len(s.lists("clusterqueues"))
    # a page of 500 objects is about 80 KiB: the list stops once 512 KiB were read, not 20,000 pages later
    assert 3 <= page <= 10, page


def test_small_endless_pages_stop_at_the_page_bound(endless: tuple[EndlessWithoutCount, Path]) -> None:
    s, kc = endless
    s.per_page = 0  # an empty page and a new token, again and again: no byte bound is ever reached
    code, line, seconds = _run(kc)
    assert code == 1 and f"{MAX_PAGES:,} pages" in line and "no count" in line, line
    assert len(s.lists("clusterqueues")) == MAX_PAGES == 2_000  # was 20,000
    assert seconds < 200


def test_a_list_within_its_bounds_is_read_whole(tmp_path: Path) -> None:
    objs = [{**copy.deepcopy(CQ), "metadata": {"name": f"cq-{i:04d}"}} for i in range(1_200)]
    s = FakeApiServer(objects=objs).start()
    try:
        kc = s.write_kubeconfig(tmp_path / "kc")
        r = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "-o", "json"], capture_output=True,
                           text=True, timeout=120, env={**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1",
                                                        "KUBECTL_PD_MAX_RESPONSE_SIZE": "1Mi"})
        assert r.returncode in (0, 1) and "error:" not in r.stderr, r.stderr
        assert len(s.lists("clusterqueues")) == 3  # 500, 500, 200: paged as kubectl pages
    finally:
        s.stop()
