"""`capacity` is bounded (issue 50 R9): its counts end at a deadline ("at least", said in `incomplete`, exit 1),
a progress line is drawn on a terminal (stderr only), and the MCP tool takes `max`. Measured on the largest
ClusterQueue Kueue accepts (16 resource groups x 64 flavors x 16 resources)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kubectl_pd.agent import tools
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.gather import parts_of
from kubectl_pd.gpustack.roles import PD_ATOMIC
from tests.builders import CREDITS, resource_flavor
from tests.test_capacity_count import NS, PD, instance_type, local_queue, pool, roles_of, snapshot

BIN = Path(sys.executable).parent


def largest() -> list[dict[str, Any]]:
    """16 groups x 64 flavors x 16 resources, the first group's first resource the credits the shape asks for."""
    groups, flavors = [], []
    for g in range(16):
        rs = [CREDITS, *(f"example.com/r{i}" for i in range(15))] if g == 0 else [f"example.com/g{g}r{i}"
                                                                                  for i in range(16)]
        fl = []
        for f in range(64):
            flavors.append(resource_flavor(f"f{g}-{f}"))
            fl.append({"name": f"f{g}-{f}", "resources": [
                {"name": r, "nominalQuota": "8000000" if r == CREDITS else "100"} for r in rs]})
        groups.append({"coveredResources": rs, "flavors": fl})
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "pool"},
          "spec": {"resourceGroups": groups, "namespaceSelector": {}},
          "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": ""}]}}
    return [cq, instance_type("pool", "pool-lq"), local_queue("pool-lq", "pool"), *flavors]


def test_the_count_stops_at_its_deadline() -> None:
    ticks = iter(range(100))
    snap = snapshot([*pool("pool", {"h20": 900}), resource_flavor("h20")])
    parts = parts_of(roles_of(*PD), PD_ATOMIC, CREDITS, "pool")
    seen: list[int] = []
    got = sim.count(snap, parts, deadline=3, clock=lambda: next(ticks), progress=seen.append)
    assert (got.now, got.capped, got.timed_out, got.stop) == (4, True, True, None)
    assert seen == [1, 2, 3, 4]


def test_the_largest_queue_answers_by_the_deadline(tmp_path: Path) -> None:
    from kubectl_pd.capacity import shape
    from kubectl_pd.capacity.answer import Target
    from kubectl_pd.capacity.run import run
    from kubectl_pd.cluster.snapshot import SnapshotSource

    source = SnapshotSource.from_objects(largest())
    req, roles, profile = shape.from_flags(NS, (), "1", "2", "pool", "modeldeployment", None, PD_ATOMIC)
    t = time.monotonic()
    # a deadline spent at once, so the count stops after its first copy on any machine, fast or slow
    a, _ = run(source, req, roles, profile, Target("Request", None, NS, profile), limit=1000, deadline_s=0)
    took = time.monotonic() - t
    assert a.copies.at_least is True and a.copies.now is not None and a.copies.now >= 1
    assert a.timed_out[0] == (None, a.copies.now)  # the count of copies (each role's too, when it ran out)
    assert took < 60, took  # the gather and one copy, never 1,000 copies


def test_a_progress_line_on_a_terminal_only(tmp_path: Path) -> None:
    f = tmp_path / "snap.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        *pool("pool", {"h20": 900}), resource_flavor("h20")]}))
    argv = [str(BIN / "kubectl-pd"), "capacity", "--prefill", "1", "--decode", "2", "--instance-type", "pool", "-n",
            NS, "-f", str(f), "--max", "30"]
    main, sub = pty.openpty()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=sub, timeout=120, check=False)
    os.close(sub)
    err = b""
    try:
        while chunk := os.read(main, 65536):
            err += chunk
    except OSError:
        pass
    os.close(main)
    assert p.returncode == 0 and b"counting copies: 30" in err and b"counting" not in p.stdout
    piped = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    assert piped.returncode == 0 and b"counting" not in piped.stderr  # not a terminal: no progress line


def test_mcp_capacity_takes_max() -> None:
    tool = tools.BY_NAME["pd_capacity"]
    args = {"prefill": 1, "decode": 2, "instanceType": "pool", "max": 5}
    tools.validate(tool, args)
    assert "--max=5" in tool.argv(args, tools.Guard())[0]


def _plain(snap: Any, cq: str, demand: Any) -> Any:
    from kubectl_pd.kueue import admission as ad

    return ad.assign(snap, cq, demand)  # the engine with a tree built per snapshot


def test_the_incremental_tree_counts_as_the_engine_does() -> None:
    """sim.Incremental (one cohort tree followed copy by copy) against the engine building its tree each time:
    the same copies, flavors, borrowing and stop, on every count case and on a nested cohort tree."""
    from tests.builders import cards, cluster_queue, cohort
    from tests.test_capacity_count import COUNT_CASES

    nested = [*pool("pool", {"a": 6, "b": 4}, cohort="team"),
              cluster_queue("peer", {"a": cards(4), "b": cards(2)}, resource=CREDITS, cohort="team",
                            used={"a": cards(1)}),
              cluster_queue("far", {"a": cards(5)}, resource=CREDITS, cohort="other"),
              cohort("team", parent="org"), cohort("other", parent="org")]
    cases = [(c[1], c[2], c[3]) for c in COUNT_CASES] + [(nested, PD, PD_ATOMIC)]
    for objs, texts, profile in cases:
        snap = snapshot([*objs, resource_flavor("h20"), resource_flavor("a"), resource_flavor("b")])
        parts = parts_of(roles_of(*texts), profile, CREDITS, "pool")
        fast, slow = sim.count(snap, parts), sim.count(snap, parts, assign=_plain)
        assert (fast.now, fast.by_borrowing, fast.placed, fast.stop) == (slow.now, slow.by_borrowing, slow.placed,
                                                                         slow.stop)
