"""The MCP server's worker processes are reaped (issue 50 R11): a burst of concurrent calls leaves at most one
worker started ahead, and that one is killed once idle. Real worker processes (agent/run.Workers)."""

from __future__ import annotations

import threading
import time

from kubectl_pd.agent.run import Workers


def test_a_burst_leaves_one_spare_and_it_is_reaped_when_idle() -> None:
    workers = Workers(idle=3.0)
    codes: list[int] = []
    try:
        calls = [threading.Thread(target=lambda: codes.append(workers.isolated(["--version"], None, 120).code))
                 for _ in range(12)]
        for c in calls:
            c.start()
        for c in calls:
            c.join(180)
        assert codes == [0] * 12
        assert workers.alive() <= 1  # the spare for the next call, not one per call of the burst
        end = time.monotonic() + 30
        while workers.alive() and time.monotonic() < end:
            time.sleep(0.2)
        assert workers.alive() == 0  # idle past 3 s: reaped
        assert workers.isolated(["--version"], None, 120).code == 0  # the next call starts one again
    finally:
        workers.stop_all()
