"""Issue 23: the screen says only what was read or computed. One golden file per screen state, text and
JSON (tests/golden/why-pending-screen/<state>.txt and .json; PD_UPDATE_GOLDEN=1 rewrites them, review the
diff). Each state is one of the reason-code fixtures with the few fields the state is about changed here."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apiserver import load_objects
from tests.test_pending_fixtures import normalised

FIX = Path(__file__).parent / "fixtures" / "pending"
GOLDEN = Path(__file__).parent / "golden" / "why-pending-screen"
CQ = "gpustack--nvidia-h20-linux-amd64"
FLAVOR = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
CREDITS = "credits.gpustack.ai/nvidia"

Objs = list[dict[str, Any]]


def _of(objs: Objs, kind: str, name: str | None = None) -> dict[str, Any]:
    return next(o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name))


def _no_summary(objs: Objs) -> Objs:
    return [o for o in objs if o["kind"] != "PendingWorkloadsSummary"]


def _cq_pending(n: int) -> Callable[[Objs], Objs]:
    def change(objs: Objs) -> Objs:
        objs = _no_summary(objs)
        _of(objs, "ClusterQueue", CQ)["status"]["pendingWorkloads"] = n
        return objs
    return change


def _in_a_cohort(borrowing_limit: str | None) -> Callable[[Objs], Objs]:
    """The queue joins cohort `pool` with a peer that lends all of its 16 cards of the same flavor;
    Kueue has not evaluated the Workload yet, so only the arithmetic speaks."""
    def change(objs: Objs) -> Objs:
        cq = _of(objs, "ClusterQueue", CQ)
        cq["spec"]["cohortName"] = "pool"
        if borrowing_limit is not None:
            cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = borrowing_limit
        peer = copy.deepcopy(cq)
        peer["metadata"]["name"] = "peer"
        peer["spec"].pop("admissionChecksStrategy", None)
        peer["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0] = {"name": CREDITS, "nominalQuota": "25600k"}
        peer["status"] = {"conditions": cq["status"]["conditions"], "pendingWorkloads": 0, "admittedWorkloads": 0}
        wl = _of(objs, "Workload", "qwen-pd")
        wl["status"]["conditions"] = [c for c in wl["status"]["conditions"] if c["type"] != "QuotaReserved"]
        return [*objs, peer]
    return change


def _same(objs: Objs) -> Objs:
    return objs


# state -> (fixture, change, extra args, first reason code, the fact the state is about)
STATES: dict[str, tuple[str, Callable[[Objs], Objs], list[str], str]] = {
    "empty-queue": ("waiting-in-queue", _cq_pending(0), [], "WaitingInQueue"),
    "unknown-position": ("waiting-in-queue", _cq_pending(3), [], "WaitingInQueue"),
    "known-position": ("waiting-in-queue", _same, [], "WaitingInQueue"),
    "what-if-fits": ("quota-exhausted", _same, ["--what-if", "decode=1"], "WaitingInQueue"),
    "what-if-blocked": ("quota-exhausted", _same, ["--what-if", "decode=3"], "QuotaExhausted"),
    "fits-by-borrowing": ("quota-exhausted", _in_a_cohort(None), [], "WaitingInQueue"),
    "blocked-borrowing-elsewhere": ("quota-exhausted", _in_a_cohort("0"), [], "QuotaExhausted"),
}


def _golden(text: str, path: Path) -> None:
    if os.environ.get("PD_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.is_file(), f"no golden {path.name}: run with PD_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(), f"the output differs from {path} (PD_UPDATE_GOLDEN=1)"


def _run(cli: Any, tmp_path: Path, state: str, *output: str) -> Any:
    fixture, change, args, _code = STATES[state]
    path = tmp_path / f"{state}.yaml"
    path.write_text(yaml.safe_dump_all(change(load_objects(FIX / f"{fixture}.yaml")), sort_keys=False))
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(path), *args, *output])
    assert r.exit_code == 0, r.stderr
    return r


def test_every_state_has_its_golden_files() -> None:
    assert {p.stem for p in GOLDEN.iterdir()} == set(STATES)
    assert {p.name for p in GOLDEN.iterdir()} == {f"{s}.{x}" for s in STATES for x in ("txt", "json")}


@pytest.mark.parametrize("state", sorted(STATES))
def test_screen(cli: Any, tmp_path: Path, state: str) -> None:
    text = _run(cli, tmp_path, state).stdout
    _golden(normalised(text), GOLDEN / f"{state}.txt")
    data = json.loads(_run(cli, tmp_path, state, "-o", "json").stdout)
    _golden(json.dumps(data, indent=2, sort_keys=True) + "\n", GOLDEN / f"{state}.json")
    assert data["reasons"][0]["code"] == STATES[state][3]


def _queue(cli: Any, tmp_path: Path, state: str) -> dict[str, Any]:
    return json.loads(_run(cli, tmp_path, state, "-o", "json").stdout)["queue"]


def test_no_queue_is_invented(cli: Any, tmp_path: Path) -> None:
    """A position is said only when the visibility API listed the Workload; otherwise the facts say why."""
    assert _queue(cli, tmp_path, "empty-queue") | {"localQueue": None} == {
        "localQueue": None, "clusterQueue": CQ, "position": None, "positionInLocalQueue": None,
        "visibility": "not-read", "pendingInClusterQueue": 0}
    assert (_queue(cli, tmp_path, "unknown-position")["position"],
            _queue(cli, tmp_path, "unknown-position")["pendingInClusterQueue"]) == (None, 3)
    known = _queue(cli, tmp_path, "known-position")
    assert (known["position"], known["visibility"], [a["position"] for a in known["ahead"]]) == (2, "listed", [1])
    for state in ("empty-queue", "unknown-position"):
        assert "queued behind" not in _run(cli, tmp_path, state).stdout


def test_what_if_leads_with_the_hypothesis(cli: Any, tmp_path: Path) -> None:
    fits = json.loads(_run(cli, tmp_path, "what-if-fits", "-o", "json").stdout)
    blocked = json.loads(_run(cli, tmp_path, "what-if-blocked", "-o", "json").stdout)
    assert (fits["whatIf"], fits["whatIfVerdict"], fits["pending"]) == ({"decode": 1}, "fits", True)
    assert (blocked["whatIfVerdict"], blocked["reasons"][0]["role"]) == ("blocked", "decode")
    assert [r["pods"] for r in fits["roles"]] == [{"have": 1, "want": 1}, {"have": 2, "want": 1, "assumed": True}]
    first = _run(cli, tmp_path, "what-if-fits").stdout.splitlines()[0]
    assert first.split()[0] == "WHAT-IF"


def test_the_borrowing_view_agrees_with_the_verdict(cli: Any, tmp_path: Path) -> None:
    lent = json.loads(_run(cli, tmp_path, "fits-by-borrowing", "-o", "json").stdout)
    refused = json.loads(_run(cli, tmp_path, "blocked-borrowing-elsewhere", "-o", "json").stdout)
    assert {r["verdict"] for r in lent["roles"]} == {"fits"}
    (bar,) = lent["quota"]
    assert (bar["cohort"], bar["free"], bar["cohortFree"], bar["borrowable"], bar["borrowingLimit"]) == (
        "pool", "9600k", "35200k", "25600k", None)
    (bar,) = refused["quota"]
    assert (bar["cohortFree"], bar["borrowable"], bar["borrowingLimit"]) == ("35200k", "0", "0")
    assert "blocked" in {r["verdict"] for r in refused["roles"]}
    text = _run(cli, tmp_path, "fits-by-borrowing").stdout
    assert "!" not in next(line for line in text.splitlines() if line.strip().startswith("["))


def test_a_workload_target_shows_have_and_want(cli: Any, tmp_path: Path) -> None:
    """No deployment to say how many: the Workload's pod sets do (`0/1`, never a bare `0`)."""
    objs = [o for o in load_objects(FIX / "quota-exhausted.yaml") if o["kind"] not in ("Pod", "ModelDeployment")]
    path = tmp_path / "wl.yaml"
    path.write_text(yaml.safe_dump_all(objs, sort_keys=False))
    data = json.loads(cli(["why-pending", "wl/qwen-pd", "-n", "team-a", "-f", str(path), "-o", "json"]).stdout)
    assert {r["name"]: r["pods"] for r in data["roles"]} == {"decode": {"have": 0, "want": 2},
                                                            "prefill": {"have": 0, "want": 1}}
    text = cli(["why-pending", "wl/qwen-pd", "-n", "team-a", "-f", str(path)]).stdout
    rows = {line.split()[0]: line.split()[2] for line in text.splitlines() if line.startswith("  prefill ")}
    assert rows == {"prefill": "0/1"}
