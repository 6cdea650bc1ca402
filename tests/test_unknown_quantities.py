"""Unknown is never zero (issue 50 R6): a quota the API server stores but the engine cannot size (`1e400`) and a
usage that cannot be read leave their figures unknown in `queues` and `capacity` (`-`/null with a note, never 0),
and the exit code says the answer is incomplete. From a snapshot and from the loopback API server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.builders import CREDITS, resource_flavor
from tests.test_capacity_count import NS, _write, pool

CAPACITY = ["capacity", "--prefill", "1", "--decode", "2", "--instance-type", "pool", "-n", NS]


def unsized() -> list[dict[str, Any]]:
    objs = [*pool("pool", {"h20": 8, "h100": 8}, used={"h20": 5}), resource_flavor("h20"), resource_flavor("h100")]
    for f in objs[0]["spec"]["resourceGroups"][0]["flavors"]:
        if f["name"] == "h20":
            f["resources"][0]["nominalQuota"] = "1e400"
    return objs


def usage_unread() -> list[dict[str, Any]]:
    objs = [*pool("pool", {"h20": 8}), resource_flavor("h20")]
    bad = [{"name": "h20", "resources": [{"name": CREDITS, "total": "garbage"}]}]
    objs[0]["status"]["flavorsReservation"] = objs[0]["status"]["flavorsUsage"] = bad
    return objs


CASES = {"unsized-quota": unsized, "usage-unread": usage_unread}


@pytest.fixture(params=["snapshot", "live"])
def where(request: Any, tmp_path: Path, apiserver: Callable[..., Any]) -> Callable[[list[dict[str, Any]]], tuple[
        list[str], dict[str, str] | None]]:
    def make(objs: list[dict[str, Any]]) -> tuple[list[str], dict[str, str] | None]:
        if request.param == "snapshot":
            return ["-f", _write(tmp_path, objs)], None
        _, env = apiserver(objs, namespace=NS)
        return [], env
    return make


@pytest.mark.parametrize("case", sorted(CASES))
def test_queues_never_shows_an_unknown_as_a_number(cli: Callable[..., Any], where: Any, case: str) -> None:
    more, env = where(CASES[case]())
    r = cli(["queues", *more, "-o", "json"], env=env)
    assert r.exit_code == 1, r.stderr  # incomplete
    doc = json.loads(r.stdout)
    rows = [(f["flavor"], f["used"], f["free"]) for q in doc["clusterQueues"] for f in q["flavors"]]
    assert all(flavor != "h20" for flavor, _, _ in rows), rows  # no h20 figure at all, never USED 0, FREE 8
    assert [i["read"] for i in doc["incomplete"]] == [f"ClusterQueue pool flavor h20 {CREDITS}"]
    text = cli(["queues", *more], env=env)
    assert text.exit_code == 1 and "h20" in text.stderr and " 0c " not in [ln for ln in text.stdout.splitlines()
                                                                          if "h20" in ln][:1]


@pytest.mark.parametrize("case", sorted(CASES))
def test_capacity_now_is_unknown_not_zero(cli: Callable[..., Any], where: Any, case: str) -> None:
    more, env = where(CASES[case]())
    r = cli([*CAPACITY, *more, "-o", "json"], env=env)
    assert r.exit_code == 1, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["now"], doc["byBorrowing"], doc["next"]["code"]) == (None, None, "QuotaUnknown")
    assert doc["incomplete"] and doc["incomplete"][0]["read"].startswith("ClusterQueue pool flavor h20")
    text = cli([*CAPACITY, *more], env=env)
    now = next(ln for ln in text.stdout.splitlines() if ln.startswith("Now:"))
    assert "unknown" in now and "0 more" not in now
    assert all(" 0 " not in ln for ln in text.stdout.splitlines() if ln.strip().startswith(("prefill", "decode")))

