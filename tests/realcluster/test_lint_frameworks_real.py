"""lint's PD framework rules (PD414-PD416) held against what LWS and Kueue really do on the frameworks' plane
(`scripts/real-cluster up --lws`): a DisaggregatedSet with the queue label only on its own metadata gets role LWS
Kueue makes no Workload for, and its fixed form one Workload per role (PD415, PD414); an LWS group lint says never
fits stays unadmitted while one it does not flag is admitted (PD416). lint runs live against the plane, through the
real kubectl."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.realcluster import frameworks as fw
from tests.realcluster import journey as jr
from tests.realcluster.plane import Plane, condition, wait_for

pytestmark = pytest.mark.cluster
_MADE: list[tuple[Plane, str]] = []
DS_KIND = "disaggregatedsets.disaggregatedset.x-k8s.io"
LWS_KIND = "leaderworkersets.leaderworkerset.x-k8s.io"


@pytest.fixture(autouse=True)
def _room_on_the_nodes() -> Iterator[None]:
    yield
    while _MADE:
        fw.cleanup(*_MADE.pop())


def _layout(plane: Plane, cards: int) -> str:
    """A namespace of the test's own and a LocalQueue `q` on a ClusterQueue of CARDS nvidia.com/gpu that may not
    borrow (borrowingLimit 0 in the layout's cohort): the most it can ever hold is CARDS."""
    ns = plane.namespace("lintfw")
    _MADE.append((plane, ns))
    jr.layout(plane, "gpu", ns, {"q": {"z0": (cards, 0, None)}})
    return ns


def _lint(plane: Plane, ns: str) -> list[dict[str, Any]]:
    got = plane.pd("lint", "-n", ns, "-o", "json")
    assert got.returncode in (0, 1), got.stderr
    doc = json.loads(got.stdout)
    assert "unread" not in doc["summary"], doc["summary"]
    return [f for f in doc["findings"] if f["object"]["namespace"] == ns]


def _ids(findings: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(f["id"], f"{f['object']['kind']}/{f['object']['name']}") for f in findings}


def test_a_queue_label_on_the_set_queues_nothing_and_the_fix_queues_each_role(lws_plane: Plane,
                                                                               tmp_path: Path) -> None:
    plane = lws_plane
    assert fw.lws_line(plane) >= (0, 9), "DisaggregatedSet ships in LWS v0.9.0"
    ns = _layout(plane, 8)
    roles = [fw.Role("prefill"), fw.Role("decode")]
    bad = fw.disaggregated_set(ns, "bad", "q", roles, queue_on_set=True)
    plane.apply(bad)
    found = _lint(plane, ns)
    assert ("PD415", "DisaggregatedSet/bad") in _ids(found)
    [f] = [f for f in found if f["id"] == "PD415"]
    assert f["params"]["roles"] == ["prefill", "decode"] and f["params"]["queue"] == "q"
    # the truth: the set's controller made one LWS per role, without the queue label, and Kueue made no Workload
    made = fw.wait_lws_of_set(plane, ns, "bad", 2)
    assert all(fw.QUEUE_LABEL not in (x["metadata"].get("labels") or {}) for x in made)
    fw.wait_pods(plane, ns, f"{fw.DS_NAME}=bad", 2)
    time.sleep(5)  # Kueue had time to act, had it managed them
    for x in made:
        assert fw.workloads_of(plane, ns, x["metadata"]["uid"]) == [], x["metadata"]["name"]
    assert not any(fw.gated(p) for p in fw.pods(plane, ns, f"{fw.DS_NAME}=bad"))
    # lint's fix, applied under another name: each role's LWS carries the queue, one Workload per role (PD414)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad, sort_keys=False))
    fixed_text = plane.pd("lint", "-f", str(path), "--fix").stdout
    good = yaml.safe_load(fixed_text)
    good["metadata"]["name"] = "good"
    plane.apply(good)
    lws_good = fw.wait_lws_of_set(plane, ns, "good", 2)
    assert all((x["metadata"].get("labels") or {}).get(fw.QUEUE_LABEL) == "q" for x in lws_good)
    per_role = {x["metadata"]["labels"][fw.DS_ROLE]: fw.wait_workloads(plane, ns, x["metadata"]["uid"], 1)
                for x in lws_good}
    assert sorted(per_role) == ["decode", "prefill"]
    assert len({w[0]["metadata"]["name"] for w in per_role.values()}) == 2  # one Workload per role, apart
    after = _ids(_lint(plane, ns))
    assert ("PD414", "DisaggregatedSet/good") in after and ("PD415", "DisaggregatedSet/good") not in after


def test_a_group_lint_says_never_fits_is_never_admitted(lws_plane: Plane) -> None:
    plane = lws_plane
    ns = _layout(plane, 8)
    plane.apply(fw.lws(ns, "big", "q", size=4, gpus=4))  # 16 cards a group: more than the queue's 8
    found = _lint(plane, ns)
    never = [f for f in found if f["id"] == "PD416"]
    assert [f["object"]["name"] for f in never] == ["big"]
    assert (never[0]["params"]["need"], never[0]["params"]["most"], never[0]["params"]["unit"]) == ("16", "8", "card")
    # Kueue agrees, alone on the queue: the group exceeds the queue's maximum capacity (flavorassigner.go
    # fitsResourceQuota@v0.19.2, "... > maximum capacity (8)")
    big = fw.uid(plane, LWS_KIND, "big", ns)
    [wl] = fw.settle(plane, ns, big, 1)
    qr = condition(wl, "QuotaReserved") or {}
    assert not fw.admitted(wl) and qr.get("status") == "False", qr
    assert "> maximum capacity (8)" in str(qr.get("message")), qr
    # a group lint does not flag (8 cards, exactly the queue) is admitted beside it
    plane.apply(fw.lws(ns, "small", "q", size=2, gpus=4))
    assert "PD416" not in {f["id"] for f in _lint(plane, ns) if f["object"]["name"] == "small"}
    small = fw.uid(plane, LWS_KIND, "small", ns)
    wait_for("the small group admitted", lambda: (ws := fw.workloads_of(plane, ns, small)) and fw.admitted(ws[0]),
             timeout=60)
