"""capacity --priority as Kueue sees it (issue 46, finding 3): the copies are the preemptor at the copy's priority
under each queue's policies. Under withinClusterQueue LowerPriority copies at equal priority never preempt each
other, and a copy above the holders' priority does preempt them. Asserted on counts, targets and priorities."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

POOL = str(Path(__file__).parent.parent / "examples" / "capacity-pool.yaml")  # two holders at priority -10
ARGS = ["capacity", "--instance-type", "gpustack--nvidia-h20-linux-amd64", "--prefill", "1", "--decode", "1",
        "-n", "team-a", "-f", POOL, "-o", "json"]

# (priority, copies by preemption, the holders' priorities it preempts)
CASES = [(-20, 0, []), (-10, 0, []), (0, 3, [-10, -10]), (1000, 3, [-10, -10])]


@pytest.mark.parametrize("priority, count, preempted", CASES, ids=[str(c[0]) for c in CASES])
def test_copies_preempt_only_lower_priority(cli: Callable, priority: int, count: int, preempted: list[int]) -> None:
    r = cli([*ARGS, f"--priority={priority}"])
    assert r.exit_code == 0, r.stderr
    p = json.loads(r.stdout)["byPreemption"]
    targets = [t for c in p["copies"] for t in c["targets"]]
    assert (p["count"], p["atLeast"]) == (count, False)
    assert [t["priority"] for t in targets] == preempted
    assert all(t["priority"] < priority for t in targets)  # LowerPriority: strictly lower, never an equal copy
    assert not [t for t in targets if t["namespace"] == "(capacity)"]
