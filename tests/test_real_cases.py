"""Replay of every disagreement saved by the real-control-plane tier (tests/realcluster/cases/): the tool's
verdict from the saved snapshot must now agree with what the real Kueue did, or the case says why it cannot
(`explained`), and then the tool must not claim the opposite with confidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.realcluster import differential as d
from tests.realcluster.cases import load_all

CASES = load_all()


def test_saved_disagreements_replay(tmp_path: Path) -> None:
    config = _fair_config(tmp_path)
    for case in CASES:  # one test over all (an empty parameter list would be a skip, which fails the run)
        replay(case, config if case["state"].get("fair_sharing") else None)


def test_open_disagreements_still_disagree(tmp_path: Path) -> None:
    """cases/open/ holds disagreements with the real Kueue not yet fixed or explained, kept replayable; each
    must still disagree: once the tool agrees, the case moves to cases/ (this test says so)."""
    config = _fair_config(tmp_path)
    for case in load_all("open"):
        with pytest.raises(AssertionError):
            replay(case, config if case["state"].get("fair_sharing") else None)


def replay(case: dict, config: Path | None) -> None:
    n = _names(case)
    args = ["why-pending", "podgroup/pd", "-n", n.namespace, "-o", "json", "-f", "-"]
    got = run_cli(args + (["--kueue-config", str(config)] if config else []),
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


def _fair_config(tmp_path: Path) -> Path:
    """The Kueue configuration the fair-sharing control plane runs with (scripts/real-cluster)."""
    config = tmp_path / "kueue.yaml"
    config.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
                      "  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n")
    return config


def _names(case: dict) -> d.Names:
    ns = next(o["metadata"]["namespace"] for o in case["snapshot"] if o["kind"] == "Pod")
    return d.Names(ns)
