"""A Cohort chain deeper than the engine follows (issue 50: 3,000 Cohorts ended "the input is nested too deeply",
blaming the input): refused by name, one line, exit 1, for every command that builds the cohort tree; a chain at
the bound is judged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.kueue.admission import MAX_COHORT_DEPTH


def _chain(depth: int) -> list[dict[str, Any]]:
    cohorts = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": f"c{i}"},
                "spec": {"parentName": f"c{i - 1}"} if i else {}} for i in range(depth)]
    gpu = "nvidia.com/gpu"
    return [*cohorts,
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}, "spec": {}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"cohortName": f"c{depth - 1}", "resourceGroups": [{"coveredResources": [gpu], "flavors": [
                 {"name": "f", "resources": [{"name": gpu, "nominalQuota": "8"}]}]}]}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "ns"},
             "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
                 {"name": "c", "resources": {"requests": {gpu: "4"}}}]}}}]}}]


COMMANDS = [["why-pending", "workload/w", "-n", "ns"], ["queues"]]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_chain_past_the_bound_is_refused_by_name(cli: Callable, tmp_path: Path, argv: list[str]) -> None:
    f = tmp_path / "chain.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _chain(3000)}))
    r = cli([*argv, "-f", str(f)])
    assert r.exit_code == 1, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(MAX_COHORT_DEPTH) in lines[0], r.stderr
    assert "nested too deeply" not in r.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_chain_at_the_bound_is_judged(cli: Callable, tmp_path: Path, argv: list[str]) -> None:
    f = tmp_path / "chain.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _chain(MAX_COHORT_DEPTH)}))
    r = cli([*argv, "-f", str(f)])
    assert r.exit_code in (0, 1) and "levels deep" not in r.stderr and "nested too deeply" not in r.stderr, r.stderr
