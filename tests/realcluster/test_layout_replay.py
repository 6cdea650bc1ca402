"""Replay of the layout differential's saved disagreements (tests/realcluster/cases/layouts/, layoutcheck.save),
in the fast suite: no cluster, the snapshot each was judged on.

- `open/`: a disagreement not yet fixed (a bug another change fixes: docs/real-cluster.md lists them). Each must
  still disagree where it can be replayed from its snapshot (why-pending, queues, capacity's `now`); once the tool
  agrees the test says so, and the case moves to `fixed/`, where it must keep agreeing.
- `explained/`: not a bug of ours (the case says why); kept so it is not found again as new.
create's preflight and capacity's byPreemption are judged against a copy created on the plane, so they replay on a
plane only (`scripts/differential layouts --kueue LINE --seed N --states 1`); here each is checked to carry its layout
and what both sides said."""

from __future__ import annotations

import json
from typing import Any

import yaml

from tests.conftest import run_cli
from tests.realcluster import differential as df
from tests.realcluster import layoutcheck as lc
from tests.realcluster import layouts as ly

OFFLINE = ("why-pending", "why-pending.quota", "queues", "capacity")


def _layout(case: dict[str, Any]) -> ly.Layout:
    return ly.generate(case["seed"], fair_sharing=bool(case["layout"].get("fair_sharing")))


def _names(case: dict[str, Any]) -> df.Names:
    ns = next((o["metadata"]["namespace"] for o in case["snapshot"] if o["kind"] in ("LocalQueue", "Workload")), "")
    return df.Names(ns)


def agrees(case: dict[str, Any]) -> bool | None:
    """The tool's answer from the saved snapshot against what Kueue did (None: not replayable offline)."""
    command, n, lay = case["command"], _names(case), _layout(case)
    text = yaml.safe_dump_all(case["snapshot"])
    if command == "queues":
        got = run_cli(["queues", "-f", "-", "-o", "json"], input=text)
        assert got.exit_code == 0, got.stderr
        return not lc.compare_queues(json.loads(got.stdout), case["snapshot"], lay, n)
    if command == "capacity":
        got = run_cli(["capacity", "-n", n.namespace, "--target", "pods", "--local-queue", lay.target_queue,
                       *lc._roles(lay), "-o", "json", "-f", "-"], input=text)
        assert got.exit_code in (0, 1), got.stderr
        now = json.loads(got.stdout)["now"]
        did = case["kueueDid"]
        if "admitted" not in did:  # a held queue: one copy judged on the plane (layoutcheck._check_held)
            return None
        ok = [a for a in did["admitted"]]
        if not all(ok):
            return now == ok.index(False)
        if did["oneMore"] == "pending":
            return now == len(ok)
        return now is not None and now >= len(ok) + 1
    if command == "why-pending.quota":
        got = run_cli(["why-pending", "podgroup/pd", "-n", n.namespace, "-o", "json", "-f", "-"], input=text)
        assert got.exit_code in (0, 1), got.stderr
        return not lc.compare_bars(json.loads(got.stdout), case["snapshot"], lay, n)
    if command == "why-pending":
        rec = case["record"]
        got = run_cli(["why-pending", "podgroup/pd", "-n", n.namespace, "-o", "json", "-f", "-"], input=text)
        assert got.exit_code in (0, 1), got.stderr
        if rec.get("screen"):  # the screen broke one set of figures: replayed, the JSON and the text together
            from tests.test_screen_property import check_screen

            text = run_cli(["why-pending", "podgroup/pd", "-n", n.namespace, "-f", "-"], input=text)
            return not check_screen(json.loads(got.stdout), text.stdout)
        predicted = df._rename(df.predict(json.loads(got.stdout), n), rec.get("roles") or {})
        agree = df.compare(predicted, df.Verdict(**case["kueueDid"]))
        if rec.get("words") and False in rec["words"].values() and False not in rec["agree"].values():
            return None  # a disagreement of words: Kueue's message on the settled state is replayed by its record
        return False not in agree.values()
    return None


def test_open_layout_cases_still_disagree() -> None:
    for case in lc.load_cases("open"):  # one test over all: an empty parameter list would be a skip
        assert case["layout"] and case["problems"], case["file"]
        if case["command"] in OFFLINE:
            assert agrees(case) is not True, f"{case['file']}: the tool agrees now; move it to cases/layouts/fixed/"


def test_fixed_layout_cases_agree() -> None:
    for case in lc.load_cases("fixed"):
        assert agrees(case) is not False, case["file"]


def test_explained_layout_cases_say_why() -> None:
    for case in lc.load_cases("explained"):
        assert case.get("explained"), case["file"]
