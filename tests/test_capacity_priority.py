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


def test_a_copy_preempts_again_once_its_targets_are_gone(cli: Callable) -> None:
    """Kueue 0.19.2, layout seed 46157 (tests/realcluster/cases/layouts/): the copy at 1000 first preempts copy1
    (decode's fb), then Kueue assigns flavors afresh with copy1 gone, prefill's scan ends in fb and preempts copy0
    too; Kueue preempted both. Judged once, the copy "preempted copy1" alone."""
    import yaml

    case = Path(__file__).parent / "realcluster/cases/layouts/fixed/kueue-0.19-capacity.byPreemption-seed-46157.yaml"
    objs = [o for o in yaml.safe_load(case.read_text())["snapshot"] if o["metadata"]["name"] != "one-more"]
    ns = next(o["metadata"]["namespace"] for o in objs if o["kind"] == "Workload")
    roles = ["--role=name=prefill,kind=prefill,replicas=1,accelerator=1,image=e:1",
             "--role=name=decode,kind=decode,replicas=1,accelerator=4,image=e:1"]
    r = cli(["capacity", "-n", ns, "--target", "pods", "--local-queue", "q2", *roles, "--priority", "1000",
             "-o", "json", "-f", "-"], input=yaml.safe_dump_all(objs))
    assert r.exit_code == 0, r.stderr
    first = json.loads(r.stdout)["byPreemption"]["copies"][0]
    assert sorted(t["name"] for t in first["targets"]) == ["copy0", "copy1"]
