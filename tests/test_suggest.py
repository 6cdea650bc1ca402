"""What would make it fit: each suggestion is checked by the admission engine; --what-if re-diagnoses a
changed replica count without touching the cluster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import Snapshot
from kubectl_pd.pending import suggest as sg
from tests.builders import cluster_queue, resource_flavor

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "qwen-pd-pending.yaml")


def cq(name: str, nominal: int, used: int = 0, *, cohort: str | None = None, borrowing: int | None = None,
       ) -> dict[str, Any]:
    """One flavor `f` of cpu."""
    return cluster_queue(name, {"f": str(nominal)}, cohort=cohort, used={"f": str(used)},
                         limits=None if borrowing is None else {"f": {"borrowingLimit": str(borrowing)}})


FLAVOR = resource_flavor("f")


def queue(*roles: tuple[str, int, int]) -> vd.QueueDemand:
    """One pd-atomic Workload: (role, replicas, cpu per pod)."""
    members = []
    for role, replicas, per_pod in roles:
        p = ad.PodSetDemand(role, replicas, {"cpu": per_pod}, role=role)
        members.append((vd.RoleDemand(role, "wl", role, replicas, p.total()), p))
    return vd.QueueDemand([("wl", members)])


def suggestions(objs: list[dict[str, Any]], q: vd.QueueDemand) -> list[tuple]:
    snap = Snapshot.of([*objs, FLAVOR])
    result = vd.evaluate(snap, "cq", q)
    return [(s.kind, s.role, s.source, s.target) for s in sg.suggest(snap, "cq", q, result.verdicts)]


@pytest.mark.parametrize("objs, q, want", [
    pytest.param([cq("cq", 8, used=4)], queue(("prefill", 1, 1), ("decode", 3, 2)),
                 [("scale", "decode", 3, 1)], id="fewer-decode-replicas"),
    pytest.param([cq("cq", 8, used=4), cq("other", 16)], queue(("prefill", 1, 1), ("decode", 3, 2)),
                 [("scale", "decode", 3, 1), ("queue", None, "cq", "other")], id="another-queue-has-room"),
    pytest.param([cq("cq", 2, cohort="pool", borrowing=1), cq("peer", 10, cohort="pool")],
                 queue(("prefill", 1, 4)), [("queue", None, "cq", "peer"), ("borrowing-limit", None, 1, 2)],
                 id="borrow-more-from-the-cohort"),
    pytest.param([cq("cq", 2)], queue(("prefill", 1, 4)), [("none", None, None, None)], id="nothing-would"),
    pytest.param([cq("cq", 8)], queue(("prefill", 1, 4)), [], id="fits-already"),
])
def test_suggestions_are_checked_by_the_engine(objs: list, q: vd.QueueDemand, want: list) -> None:
    assert suggestions(objs, q) == want


def test_what_if_changes_replicas_of_one_role() -> None:
    q = sg.what_if(queue(("prefill", 1, 1), ("decode", 3, 2)), {"decode": 1})
    [(_, members)] = q.workloads
    assert [(d.role, d.count, d.requests["cpu"]) for d, _ in members] == [("prefill", 1, 1), ("decode", 1, 2)]


def test_what_if_per_replica_keeps_or_repeats_workloads() -> None:
    p = ad.PodSetDemand("decode", 1, {"cpu": 2}, role="decode")
    per = vd.QueueDemand([(f"d{i}", [(vd.RoleDemand("decode", f"d{i}", "decode", 1, p.total()), p)]) for i in range(2)])
    assert [w for w, _ in sg.what_if(per, {"decode": 1}).workloads] == ["d0"]
    assert [w for w, _ in sg.what_if(per, {"decode": 3}).workloads] == ["d0", "d1", "d1+2"]


def test_cli_what_if_and_suggestions(cli: Any) -> None:
    now = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", EXAMPLE, "-o", "json"]).stdout)
    assert now["suggestions"] == [{"kind": "scale", "role": "decode", "from": 2, "to": 1}]
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", EXAMPLE, "-o", "json", "--what-if", "decode=1"])
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["whatIf"] == {"decode": 1} and data["suggestions"] == []
    assert [(x["name"], x["verdict"]) for x in data["roles"]] == [("prefill", "fits"), ("decode", "fits")]
    assert data["reasons"][0]["code"] == "WaitingInQueue" and data["reasons"][0]["kueueMessage"] is None


@pytest.mark.parametrize("args", [["--what-if", "decode"], ["--what-if", "decode=0"], ["--what-if", "decode=٣"],
                                  ["--what-if", "router=1"]])
def test_cli_what_if_bad_values(cli: Any, args: list[str]) -> None:
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", EXAMPLE, *args])
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
