"""Issue 49: connections to a far cluster. One keep-alive TLS connection carries a run's reads one after another
across rounds; concurrent reads share a small bounded pool (cluster/pool.py: at most POOL_SIZE in flight, so at most
that many connections), and a round after the first opens none while the first round's connections are idle.
Counted twice: by the client (Pool.opened) and on the wire, by the relay the far-cluster bench uses
(bench/delayproxy.py: each accepted connection is a TLS handshake), with 20 ms each way so reads overlap."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster import http, prefetch
from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from tests.builders import namespace, workload

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from delayproxy import DelayProxy  # noqa: E402

NAMES = [f"w{i:02d}" for i in range(12)]


@pytest.fixture
def far(apiserver: Callable, tmp_path: Path) -> Iterator[tuple[LiveSource, DelayProxy]]:
    server, env = apiserver(namespace("team-a"), *(workload(n, "team-a") for n in NAMES))
    host, port = server.url.removeprefix("https://").rsplit(":", 1)
    proxy = DelayProxy((host, int(port)), 20, lifetime=120).start()
    kc = Path(env["KUBECONFIG"])
    kc.write_text(kc.read_text().replace(server.url, f"https://{proxy.address}"))
    try:
        yield LiveSource(ClusterOptions(kubeconfig=str(kc))), proxy
    finally:
        proxy.stop()


def _opened(source: LiveSource) -> int:
    return int(source._connect()._pool().opened)


def _get(source: LiveSource, name: str) -> Callable[[], Any]:
    return lambda: source.get("Workload", name, "team-a")


def test_reads_one_after_another_share_one_connection(far: tuple[LiveSource, DelayProxy]) -> None:
    source, proxy = far
    for n in NAMES[:5]:
        assert source.get("Workload", n, "team-a") is not None
    assert (_opened(source), proxy.measure().conns) == (1, 1)


def test_concurrent_reads_are_bounded_and_the_next_round_opens_none(far: tuple[LiveSource, DelayProxy]) -> None:
    source, proxy = far
    first = prefetch.perform([prefetch.Ask(source, _get(source, n)) for n in NAMES])
    assert all(ok and obj is not None for ok, obj in first)
    opened = _opened(source)
    assert 1 <= opened <= min(http.POOL_SIZE, prefetch.PARALLEL)
    assert proxy.measure().conns == opened
    # a second round, as wide as the first: every read finds an idle connection
    again = prefetch.perform([prefetch.Ask(source, _get(source, n)) for n in NAMES])
    assert all(ok for ok, _obj in again)
    assert (_opened(source), proxy.measure().conns) == (opened, 0)


def test_more_threads_than_the_pool_open_at_most_its_size(far: tuple[LiveSource, DelayProxy]) -> None:
    import threading

    source, proxy = far
    got: list[Any] = []
    threads = [threading.Thread(target=lambda n=n: got.append(source.get("Workload", n, "team-a"))) for n in NAMES]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(got) == len(NAMES) and all(o is not None for o in got)
    assert _opened(source) == proxy.measure().conns <= http.POOL_SIZE
