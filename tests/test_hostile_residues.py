"""Issue 42, residues: a 100 MB watch line was refused with the whole-answer bound's words (512 MiB,
KUBECTL_PD_MAX_RESPONSE_SIZE), which neither is the bound it met nor changes it."""

from __future__ import annotations

from typing import Any

from kubectl_pd.cluster.stream import MAX_EVENT
from tests.apiserver import unrelated_workloads
from tests.apiserver_watch import Held


def test_a_watch_event_past_its_bound_says_which_bound(cli: Any, apiserver: Any) -> None:
    huge = unrelated_workloads(1, namespace="team-b")[0]
    huge["metadata"]["annotations"] = {"x": "a" * (MAX_EVENT + 1024)}
    server, env = apiserver("pending/quota-exhausted.yaml")
    Held(server, [("bookmark",), ("event", "ADDED", huge), ("close",)])
    r = cli(["why-pending", "-A", "--watch", "--watch-rounds", "1"], env=env)
    assert r.exit_code == 1
    errors = [x for x in r.stderr.splitlines() if x.startswith("error: ")]
    assert len(errors) == 1 and f"past {MAX_EVENT} bytes" in errors[0] and "watch event" in errors[0], r.stderr
    assert "KUBECTL_PD_MAX_RESPONSE_SIZE" not in errors[0] and "Traceback" not in r.stderr
