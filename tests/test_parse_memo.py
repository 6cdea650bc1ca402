"""The run's SpecMemo (issue 49 item 6): Pods and Workload templates of one pod spec are read once per run, and a
record made through the memo is always equal to the one made without it (hostile input included: a memo hit needs
the read fields equal in repr and in Python, so 1, 1.0, True and "1" never share a record)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd import kube
from kubectl_pd.kueue.model import SpecMemo, pod_set_of_spec, workload
from kubectl_pd.pending.facts import Typed
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"


def _c(name: str = "main", **res: Any) -> dict[str, Any]:
    return {"name": name, "resources": res}


SPECS: list[Any] = [
    {"containers": [_c(requests={"cpu": "1"})]},
    {"containers": [_c(requests={"cpu": "1"})], "nodeName": "n1"},  # a field not read: shares the record
    {"containers": [_c(requests={"cpu": 1})]},
    {"containers": [_c(requests={"cpu": 1.0})]},
    {"containers": [_c(requests={"cpu": True})]},
    {"containers": [_c(limits={"cpu": "2"}, requests={"cpu": "3"})]},
    {"containers": [_c(requests={"cpu": "1"})], "nodeSelector": {"a": 1}},
    {"containers": [_c(requests={"cpu": "1"})], "nodeSelector": {"a": 1.0}},
    {"containers": [_c(requests={"cpu": "1"})], "nodeSelector": {1: "a"}},
    {"containers": [_c(requests={"cpu": "1"})], "nodeSelector": {"1": "a"}},
    {"containers": [_c(requests={"cpu": "1"})], "nodeSelector": {True: "a"}},
    {"containers": [_c(requests={"cpu": "1"})], "tolerations": [{"key": "k", "value": 1}]},
    {"containers": [_c(requests={"cpu": "1"})], "tolerations": [{"key": "k", "value": 1.0}]},
    {"containers": [_c(requests={"cpu": "1"})], "nodeSelector": {"d": datetime.date(2026, 1, 1)}},
    {"containers": ["not a container", _c(requests={"cpu": "1"})]},
    {"containers": [None, _c(requests={"cpu": "1"})]},
    {"containers": "no list"},
    {"containers": []},
    {},
    None,
    {"initContainers": [{**_c("side", requests={"cpu": "1"}), "restartPolicy": "Always"}],
     "containers": [_c(requests={"cpu": "1"})]},
    {"initContainers": [_c("init", requests={"cpu": "1"})], "containers": [_c(requests={"cpu": "1"})]},
    {"containers": [_c(requests={"cpu": "1"})], "overhead": {"cpu": "100m"}},
    {"containers": [_c(requests={"cpu": "1"})], "resources": {"requests": {"cpu": "4"}}},
    {"containers": [_c(requests={"cpu": "x"})]},
    {"containers": [_c(requests={"cpu": "1"})], "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "k", "operator": "In", "values": ["a"]}]}]}}}},
]


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_a_record_made_through_the_memo_is_the_one_made_without_it(order: str) -> None:
    memo: SpecMemo = {}
    specs = SPECS if order == "forward" else SPECS[::-1]
    for _ in range(2):  # the second pass is all hits
        for spec in specs:
            assert pod_set_of_spec("ps", 2, spec, memo=memo) == pod_set_of_spec("ps", 2, spec), spec


def test_equal_reads_share_one_entry() -> None:
    memo: SpecMemo = {}
    pod_set_of_spec("", 1, SPECS[0], memo=memo)
    pod_set_of_spec("", 1, SPECS[1], memo=memo)
    assert len(memo) == 1
    pod_set_of_spec("", 1, SPECS[2], memo=memo)
    assert len(memo) == 2


@pytest.mark.parametrize("fixture", sorted(p.stem for p in FIX.glob("*.yaml")))
def test_every_fixtures_pods_and_workloads_parse_the_same_through_the_run(fixture: str) -> None:
    objs = load_objects(FIX / f"{fixture}.yaml")
    run = Typed()
    for o in objs:
        if o.get("kind") == "Pod":
            assert run.parse("Pod", o, kube.pod) == kube.pod(o)
        elif o.get("kind") == "Workload":
            assert run.parse("Workload", o, workload) == workload(o)
