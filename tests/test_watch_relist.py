"""Issue 42, M10: a watch answered by 410 every time was relisted with no pause (7,086 requests in 10 s against
the loopback server). Now client-go's reflector backoff: the first relist at once, then 0.8 s doubling to 30 s,
each with up to as much again of jitter; reset by a streamed change or two minutes without a 410. Time is the
fake clock of tests/clock.py: no test here sleeps."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.errors import ListExpired
from kubectl_pd.pending.watch_all import RELIST_CAP, Follow, RelistBackoff
from tests.apiserver_watch import script
from tests.clock import FakeTime

# (random draws, times of the 410s, the pauses wanted)
BACKOFF = [
    ([0.0] * 8, [0, 1, 2, 3, 4, 5, 6, 7], [0, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0]),
    ([1.0] * 3, [0, 1, 2], [0, 1.6, 3.2]),  # the jitter: up to as much again
    ([0.5] * 9, [0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1.2, 2.4, 4.8, 9.6, 19.2, 38.4, 45.0, 45.0]),
    ([0.0] * 3, [0, 1, 200], [0, 0.8, 0]),  # two minutes without a 410: starts over
]


@pytest.mark.parametrize(("draws", "times", "want"), BACKOFF)
def test_the_backoff(draws: list[float], times: list[float], want: list[float]) -> None:
    it = iter(draws)
    b = RelistBackoff(rand=lambda: next(it))
    assert [round(b.pause(t), 6) for t in times] == want


class Always410:
    """A Source whose every watch answers 410 and which counts its requests (a fake of the Source protocol)."""

    def __init__(self) -> None:
        self.requests = 0

    def list_version(self, kind: str, namespace: str | None) -> str:
        self.requests += 1
        return "1"

    def watch(self, *a: Any, **k: Any) -> Any:
        self.requests += 1
        raise ListExpired("too old")
        yield  # a generator, as the live one


def _run_for(follow: Follow, clock: FakeTime, seconds: float) -> None:
    while clock.now < seconds:
        follow.rounds = follow.streams + 1
        follow.next_change()
        clock.sleep(0.01)  # the diagnosis between bursts takes a moment


def test_a_source_that_always_answers_410_is_relisted_with_growing_pauses() -> None:
    clock, source = FakeTime(), Always410()
    f = Follow(source, None, 300, rounds=1, clock=clock.monotonic, pause=clock.sleep)
    _run_for(f, clock, 600)
    assert source.requests < 60  # was one list and one watch per round trip: thousands in ten seconds
    assert f.paused and max(f.paused) <= 2 * RELIST_CAP and f.paused[:3] == sorted(f.paused[:3])


def test_the_loopback_server_answering_410_every_time(apiserver: Any) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    script(server, ["gone"] * 1000)
    clock = FakeTime()
    source = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"], request_timeout=5.0))
    f = Follow(source, None, 300, rounds=1, clock=clock.monotonic, pause=clock.sleep)
    before = len(server.requests)
    _run_for(f, clock, 10)
    sent = len(server.requests) - before
    assert sent <= 12, sent  # 7,086 in 10 s before; now a handful (0.8 + 1.6 + 3.2 + ... with jitter)
    assert f.relists >= 2
