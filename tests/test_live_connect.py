"""LiveSource opens one transport (one TLS context, one pool of connections) however many threads ask first."""

from __future__ import annotations

import threading

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from tests.apiserver import FakeApiServer


def test_threads_asking_at_once_share_one_transport(tmp_path) -> None:
    server = FakeApiServer(objects=[]).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kubeconfig", namespace="team-a")
        for _ in range(20):  # the race, when there was one, needed the threads to meet: give them many chances
            src = LiveSource(ClusterOptions(kubeconfig=str(kc)))
            start = threading.Barrier(8)
            got: list[object] = []

            def connect(src: LiveSource = src, start: threading.Barrier = start, got: list[object] = got) -> None:
                start.wait()
                got.append(src._connect())

            threads = [threading.Thread(target=connect) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert len(got) == 8 and len({id(t) for t in got}) == 1
    finally:
        server.stop()
