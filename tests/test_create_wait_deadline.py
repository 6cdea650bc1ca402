"""`create --wait=DURATION` is a total deadline across its requests (issue 50 R10): a poll the API server never
answers ends the wait at the deadline, not at the request's own timeout. Real time, the loopback API server."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.apiserver import Fault
from tests.test_create_wait import BASE


def test_a_hung_poll_ends_at_the_wait_deadline(cli: Callable[..., Any], apiserver: Callable[..., Any]) -> None:
    server, env = apiserver("create/cluster.yaml", "create/crd-pd-atomic.yaml", namespace="team-a",
                            faults=[Fault("/api/v1/namespaces/team-a/pods*", hang=40, times=1)])
    t = time.monotonic()
    r = cli([*BASE, "--wait=3s", "--request-timeout=60s"], env=env)
    took = time.monotonic() - t
    assert r.exit_code == 1, r.stderr
    assert r.stdout.startswith("modeldeployment.worker.gpustack.ai/qwen created")
    assert r.stderr.splitlines()[-1].startswith("error: ")
    assert took < 20, took  # the deadline (3 s) and the diagnosis after it, never the 40 s hang
    assert "POST" in server.methods
