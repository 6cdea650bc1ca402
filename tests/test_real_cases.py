"""Replay of every disagreement saved by the real-control-plane tier (tests/realcluster/cases/): the tool's
verdict from the saved snapshot must now agree with what the real Kueue did, or the case says why it cannot
(`explained`), and then the tool must not claim the opposite with confidence."""

from __future__ import annotations

import json

import yaml

from tests.conftest import run_cli
from tests.realcluster import differential as d
from tests.realcluster.cases import load_all

CASES = load_all()


def test_saved_disagreements_replay() -> None:
    for case in CASES:  # one test over all (an empty parameter list would be a skip, which fails the run)
        replay(case)


def replay(case: dict) -> None:
    n = _names(case)
    got = run_cli(["why-pending", "podgroup/pd", "-n", n.namespace, "-o", "json", "-f", "-"],
                  input=yaml.safe_dump_all(case["snapshot"]))
    assert got.exit_code in (0, 1), got.stderr
    predicted = d.predict(json.loads(got.stdout), n)
    roles = case.get("roles") or {}
    predicted = d._rename(predicted, roles)
    did = d.Verdict(**case["kueueDid"])
    agree = d.compare(predicted, did)
    if case.get("explained"):
        assert False not in agree.values() or predicted.admitted is None, (case["file"], case["explained"])
    else:
        assert False not in agree.values(), (case["file"], agree, predicted, did)


def _names(case: dict) -> d.Names:
    ns = next(o["metadata"]["namespace"] for o in case["snapshot"] if o["kind"] == "Pod")
    return d.Names(prefix=ns, namespace=ns)
