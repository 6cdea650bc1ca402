"""One flavor from one record (issue 46, finding 8; the layout differential's 0.19 seed 46007): Kueue's message
and the engine both find a pod set over a flavor's maximum capacity but name different flavors (Kueue's last
attempt placed the pod set before it elsewhere). The headline, the reason, the table and `next:` name the engine's
one flavor; Kueue's flavor and figure are said beside it, as Kueue's (params.kueueSays). Asserted on the screen
property's codes (tests/test_screen_property.check_screen) and params."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tests.test_screen_property import check_screen

CASES = Path(__file__).parent / "realcluster" / "cases" / "layouts"
CASE = next(p for d in ("open", "fixed", "explained")
            if (p := CASES / d / "kueue-0.19-why-pending-seed-46007.yaml").is_file())


def _live_state() -> tuple[list[dict[str, Any]], str]:
    """The case's snapshot as the live run saw it: the hold lifted and Kueue's message on the target's Workload."""
    case = yaml.safe_load(CASE.read_text())
    snap = case["snapshot"]
    for o in snap:
        if o["kind"] == "Workload" and o["metadata"]["name"] == "pd":
            o.setdefault("status", {})["conditions"] = [
                {"type": "QuotaReserved", "status": "False", "reason": "Pending",
                 "message": case["record"]["said"]["kueue"], "lastTransitionTime": "2026-12-07T14:24:00Z"}]
        if o["kind"] == "LocalQueue":
            o["spec"].pop("stopPolicy", None)
    ns = next(o["metadata"]["namespace"] for o in snap if o["kind"] == "Workload")
    return snap, ns


def test_the_headline_reason_table_and_next_name_one_flavor(cli: Callable, tmp_path: Path) -> None:
    snap, ns = _live_state()
    path = tmp_path / "live.yaml"
    path.write_text(yaml.safe_dump_all(snap))
    j = cli(["why-pending", "podgroup/pd", "-n", ns, "-f", str(path), "-o", "json"])
    t = cli(["why-pending", "podgroup/pd", "-n", ns, "-f", str(path)])
    assert (j.exit_code, t.exit_code) == (0, 0), j.stderr + t.stderr
    doc = json.loads(j.stdout)
    assert check_screen(doc, t.stdout) == []
    head = doc["reasons"][0]
    row = next(r for r in doc["roles"] if r["name"] == head["role"])
    assert head["code"] == "QuotaExceedsCapacity" and head["flavor"] == row["flavor"] == f"{ns}-fa"
    said = head["params"]["kueueSays"]
    assert (said["flavor"], said["capacity"], said["needed"]) == (f"{ns}-fb", "6", "2")
    assert head["kueueMessage"].startswith("couldn't assign flavors to pod set")
