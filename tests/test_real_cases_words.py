"""Replay of the words the differential compared (issue 37, item 5) on every saved case that kept them
(`said`: Kueue's condition message on the settled state): the state as the user met it (the saved snapshot,
the pending Workload carrying that condition) through `why-pending -f`, and `differential.said` holds each
pod set's reason code and shortfall (flavor and amount) to what Kueue's message names. A case kept open for
its words would sit under cases/open/; every one here must agree."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import run_cli
from tests.realcluster import differential as d
from tests.realcluster.cases import load_all

WITH_WORDS = [c for c in load_all() if c.get("said") and not c.get("explained")]


def test_cases_with_words_are_kept() -> None:
    assert any(c["file"] == "kueue-0.19-fair-seed-2810.yaml" for c in WITH_WORDS)


def test_saved_words_replay(tmp_path: Path) -> None:
    config = tmp_path / "kueue.yaml"  # the fair-sharing plane's configuration (scripts/real-cluster)
    config.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
                      "  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n")
    for case in WITH_WORDS:  # one test over all: an empty parameter list would be a skip
        snap, target = met(case)
        ns = target["metadata"]["namespace"]
        args = ["why-pending", "podgroup/pd", "-n", ns, "-o", "json", "-f", "-"]
        if case["state"].get("fair_sharing"):
            args += ["--kueue-config", str(config)]
        got = run_cli(args, input=yaml.safe_dump_all(snap))
        assert got.exit_code in (0, 1), got.stderr
        words = d.said(json.loads(got.stdout), target, case.get("roles") or {}, d.Names(ns))
        assert words and False not in words.values(), (case["file"], words, case["said"])


def met(case: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The saved snapshot with the pending Workload as Kueue left it: QuotaReserved False, Kueue's message."""
    snap = copy.deepcopy(case["snapshot"])
    target = next(o for o in snap if o["kind"] == "Workload" and not o["metadata"]["name"].startswith("run"))
    target.setdefault("status", {})["conditions"] = [{
        "type": "QuotaReserved", "status": "False", "reason": "Pending", "message": case["said"]["kueue"],
        "lastTransitionTime": "2026-12-03T00:00:00Z", "observedGeneration": 1}]
    return snap, target
