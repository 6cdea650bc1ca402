"""Fake time for `create --wait` and `why-pending --watch`: the clock moves only when the code sleeps.

Steps scheduled with `at(t, fn)` run inside the sleep that carries the clock past `t`, so a test plays
the operator and Kueue at exact moments without threads and without waiting in real time.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []
        self._steps: list[tuple[float, int, Callable[[], None]]] = []

    def at(self, t: float, step: Callable[[], None]) -> FakeTime:
        """Run `step` during the first sleep that reaches `t` (t=0: the first sleep)."""
        self._steps.append((t, len(self._steps), step))
        self._steps.sort(key=lambda s: s[:2])
        return self

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        while self._steps and self._steps[0][0] <= self.now:
            self._steps.pop(0)[2]()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> FakeTime:
        """Replace the clock and sleep of `create --wait` and `why-pending --watch`."""
        monkeypatch.setattr("kubectl_pd.create.wait.default_clock", self.monotonic)
        monkeypatch.setattr("kubectl_pd.create.wait.default_sleep", self.sleep)
        monkeypatch.setattr("kubectl_pd.commands.why_pending.SLEEP", self.sleep)
        return self
