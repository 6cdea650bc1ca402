"""The PD frameworks on the real plane (`scripts/real-cluster up --lws`, issue 47 item 5): what Kueue, LWS and
kube-controller-manager really do with a LeaderWorkerSet, a DisaggregatedSet and a Deployment. These are the facts
the frameworks' diagnosis is checked against: one Workload per LWS group (`kueue.x-k8s.io/job-uid` = the LWS's
UID), the group's Pods made by LWS's StatefulSets on kwok's nodes and carrying `kueue.x-k8s.io/pod-group-name` as
an annotation, one LWS per role of a DisaggregatedSet, one Workload per Pod of a Deployment."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.realcluster import frameworks as fw
from tests.realcluster import journey as jr
from tests.realcluster.plane import SCRIPT, Plane, condition, wait_for

pytestmark = pytest.mark.cluster
_MADE: list[tuple[Plane, str]] = []


@pytest.fixture(autouse=True)
def _room_on_the_nodes() -> Iterator[None]:
    """After each test, its frameworks' objects are deleted (the garbage collector removes their Pods): the
    kwok nodes are shared by the plane's tests and journeys."""
    yield
    while _MADE:
        fw.cleanup(*_MADE.pop())


def _layout(plane: Plane, cards: int) -> tuple[str, jr.Layout]:
    """A namespace of the test's own and a LocalQueue `q` on a ClusterQueue of CARDS nvidia.com/gpu."""
    ns = plane.namespace("fw")
    _MADE.append((plane, ns))
    return ns, jr.layout(plane, "gpu", ns, {"q": {"z0": (cards, None, None)}})


def test_the_plane_runs_the_frameworks(lws_plane: Plane) -> None:
    st = lws_plane.state()
    names = {e["name"] for e in st["pids"]}
    assert {"lws", "kube-controller-manager", "kueue"} <= names
    served = set(lws_plane.kubectl("api-resources", "-o", "name").stdout.split())
    assert "leaderworkersets.leaderworkerset.x-k8s.io" in served
    # DisaggregatedSet ships in LWS v0.9.0 (api/disaggregatedset/v1); Kueue 0.18's LWS v0.8.0 has none
    assert ("disaggregatedsets.disaggregatedset.x-k8s.io" in served) == (fw.lws_line(lws_plane) >= (0, 9))
    # the CRDs come from the module LWS was built from, read from the Go module cache
    assert Path(st["lwsSource"]).name == f"lws@{st['lws']}"


def test_an_lws_gets_one_workload_per_group_and_its_pods_the_group_name_as_annotation(lws_plane: Plane) -> None:
    plane = lws_plane
    ns, _ = _layout(plane, 8)
    plane.apply(fw.lws(ns, "serve", "q", replicas=2, size=2, gpus=1, leader_gpus=2))
    uid = fw.uid(plane, "leaderworkersets.leaderworkerset.x-k8s.io", "serve", ns)
    wls = fw.wait_workloads(plane, ns, uid, 2)
    facts = [fw.WorkloadFact.of(w) for w in wls]
    assert sorted(f.group_index or "" for f in facts) == ["0", "1"]
    for f in facts:
        assert f.owner == "LeaderWorkerSet/serve"
        assert f.name.startswith("leaderworkerset-serve-")
        assert f.pod_sets == [("leader", 1), ("worker", 1)]
    # 2 groups x (leader 2 + worker 1) = 6 cards of 8: both admitted
    wait_for("both groups admitted", lambda: all(fw.admitted(w) for w in fw.workloads_of(plane, ns, uid)),
             timeout=60)
    fw.wait_pods(plane, ns, f"{fw.LWS_NAME}=serve", 4)
    # Kueue writes the group's name onto a worker Pod a moment after LWS's StatefulSet made it
    got = wait_for("the group name on each Pod", lambda: (ps := fw.pods(plane, ns, f"{fw.LWS_NAME}=serve")) and all(
        (p["metadata"].get("annotations") or {}).get(fw.GROUP_NAME) for p in ps) and ps, timeout=60)
    for p in got:
        ann, labels = p["metadata"].get("annotations") or {}, p["metadata"].get("labels") or {}
        assert ann.get(fw.GROUP_NAME), p["metadata"]["name"]  # Kueue 0.18+: WorkloadIdentifierAnnotations
        assert fw.GROUP_NAME not in labels, p["metadata"]["name"]
        assert labels.get(fw.QUEUE_LABEL) == "q"
        assert labels.get(fw.LWS_GROUP) in ("0", "1")
    # each group's Pods name that group's Workload
    by_group = {p["metadata"]["labels"][fw.LWS_GROUP]: p["metadata"]["annotations"][fw.GROUP_NAME] for p in got}
    assert sorted(by_group.values()) == sorted(f.name for f in facts)
    # admitted: ungated, bound by kube-scheduler to kwok's nodes, Running
    wait_for("the groups' Pods running", lambda: (ps := fw.pods(plane, ns, f"{fw.LWS_NAME}=serve")) and all(
        not fw.gated(p) and p["spec"].get("nodeName") and (p.get("status") or {}).get("phase") == "Running"
        for p in ps) and len(ps) == 4, timeout=90)


def test_an_lws_group_beyond_the_quota_waits(lws_plane: Plane) -> None:
    plane = lws_plane
    ns, _ = _layout(plane, 4)
    plane.apply(fw.lws(ns, "big", "q", replicas=2, size=3, gpus=1))  # 3 cards a group, 4 in the queue
    uid = fw.uid(plane, "leaderworkersets.leaderworkerset.x-k8s.io", "big", ns)
    wls = fw.settle(plane, ns, uid, 2)
    facts = sorted((fw.WorkloadFact.of(w) for w in wls), key=lambda f: f.group_index or "")
    assert [f.pod_sets for f in facts] == [[("main", 3)], [("main", 3)]]
    assert sum(f.admitted for f in facts) == 1
    waiting = next(f for f in facts if not f.admitted)
    assert not waiting.quota_reserved and waiting.reason == "Pending"
    assert "nvidia.com/gpu" in waiting.message
    # the waiting group's Pods exist, gated by Kueue
    pods = fw.wait_pods(plane, ns, f"{fw.LWS_NAME}=big,{fw.LWS_GROUP}={waiting.group_index}", 3)
    assert all(fw.gated(p) for p in pods)


def test_a_disaggregated_set_makes_one_lws_per_role_each_its_own_workloads(lws_plane: Plane) -> None:
    plane = lws_plane
    if fw.lws_line(plane) < (0, 9):
        got = plane.kubectl("get", "disaggregatedsets.disaggregatedset.x-k8s.io", "-A", check=False)
        assert got.returncode != 0  # no such API before LWS v0.9.0
        return
    ns, _ = _layout(plane, 8)
    plane.apply(fw.disaggregated_set(ns, "pd", "q", [fw.Role("prefill", replicas=1, size=1, gpus=2),
                                                     fw.Role("decode", replicas=2, size=2, gpus=1)]))
    sets = fw.wait_lws_of_set(plane, ns, "pd", 2)
    roles = {x["metadata"]["labels"][fw.DS_ROLE]: x for x in sets}
    assert set(roles) == {"prefill", "decode"}
    for role, x in roles.items():
        assert x["metadata"]["labels"].get(fw.QUEUE_LABEL) == "q", role  # the role's labels, carried down
        assert (x["metadata"].get("ownerReferences") or [{}])[0].get("kind") == "DisaggregatedSet"
    prefill = fw.wait_workloads(plane, ns, roles["prefill"]["metadata"]["uid"], 1)
    decode = fw.wait_workloads(plane, ns, roles["decode"]["metadata"]["uid"], 2)
    assert [fw.WorkloadFact.of(w).pod_sets for w in prefill] == [[("main", 1)]]
    assert sorted(fw.WorkloadFact.of(w).pod_sets for w in decode) == [[("main", 2)], [("main", 2)]]
    # no Workload names the set itself: nothing keeps prefill and decode together
    ds_uid = fw.uid(plane, "disaggregatedsets.disaggregatedset.x-k8s.io", "pd", ns)
    assert fw.workloads_of(plane, ns, ds_uid) == []
    fw.wait_pods(plane, ns, f"{fw.DS_NAME}=pd", 5)
    got = wait_for("the group name on each Pod", lambda: (ps := fw.pods(plane, ns, f"{fw.DS_NAME}=pd")) and all(
        (p["metadata"].get("annotations") or {}).get(fw.GROUP_NAME) for p in ps) and ps, timeout=60)
    assert {p["metadata"]["labels"].get(fw.DS_ROLE) for p in got} == {"prefill", "decode"}
    assert not any(fw.GROUP_NAME in (p["metadata"].get("labels") or {}) for p in got)


def test_a_deployment_gets_one_workload_per_pod(lws_plane: Plane) -> None:
    plane = lws_plane
    ns, _ = _layout(plane, 3)
    plane.apply(fw.deployment(ns, "decode", "q", replicas=4, gpus=1, role="decode"))
    got = fw.wait_pods(plane, ns, "app=decode", 4)
    uids = [p["metadata"]["uid"] for p in got]
    for u in uids:
        fw.wait_workloads(plane, ns, u, 1)

    def settled() -> list[fw.WorkloadFact] | None:
        facts = [f for u in uids for f in fw.record(plane, ns, [u])[u]]
        return facts if sum(f.admitted for f in facts) == 3 and all(
            f.admitted or f.reason for f in facts) else None

    facts = wait_for("3 of 4 Pods admitted", settled, timeout=60)
    for f in facts:
        assert f.owner.startswith("Pod/decode-") and f.pod_sets == [("main", 1)]
    # the fourth waits, its Pod gated: "3 of 4 replicas" is Kueue's normal answer for a Deployment
    pods = {p["metadata"]["uid"]: p for p in fw.pods(plane, ns, "app=decode")}
    waiting = [f for f in facts if not f.admitted]
    assert len(waiting) == 1 and fw.gated(pods[waiting[0].job_uid])
    assert condition(plane.get("deployment", "decode", ns), "Available") is not None


@pytest.mark.parametrize("args", [("--kueue", "0.19", "--lws", "0.8"), ("--kueue", "0.18", "--lws", "0.9"),
                                  ("--kueue", "0.19", "--lws", "0.9", "--multikueue-workers", "1")])
def test_lws_of_another_version_than_kueue_names_is_refused(tmp_path: Path, args: tuple[str, ...]) -> None:
    got = subprocess.run([sys.executable, str(SCRIPT), "up", *args, "--workdir", str(tmp_path / "w")],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=dict(os.environ))
    assert got.returncode == 2 and got.stdout == ""
    assert len(got.stderr.strip().splitlines()) == 1 and got.stderr.startswith("error: ")
    assert not (tmp_path / "w").exists()
