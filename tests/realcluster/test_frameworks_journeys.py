"""Issue 47 item 6: the frameworks' journeys on the real plane (`up --lws`), each bringing Kueue
to one state a PD user meets and recording what Kueue did there (every Workload of the deployment: name, group,
pod sets, admitted or not, QuotaReserved's reason and message, flavors; the ClusterQueue's usage), written as
JSON under PD_FW_RECORD (default the test's tmp dir). Each asserts only Kueue's side so far; the `kubectl pd
why-pending lws/NAME` (ds/, deploy/) steps join them once those targets are in the tool, held against these
records; three of them now do (`workloads[]` against Kueue's Workloads; `PartlyAdmitted` with the quota the
ClusterQueue shows held), and the group found only through Kueue's annotation is explained from its Pods. In the
tier (`pytest -m cluster`) on the newest Kueue line; `PD_LWS_KUEUE=0.18,0.19` runs them on 0.18 (LWS v0.8.0) too,
where the DisaggregatedSet journey is deselected (marker `disaggregatedset`), never skipped."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.kueue.quantity import parse
from tests.realcluster import frameworks as fw
from tests.realcluster import journey as jr
from tests.realcluster.plane import Plane, wait_for

pytestmark = pytest.mark.cluster

LWS = "leaderworkersets.leaderworkerset.x-k8s.io"
DS = "disaggregatedsets.disaggregatedset.x-k8s.io"


def _save(name: str, tmp_path: Path, plane: Plane, lay: jr.Layout, owners: dict[str, str], **more: Any) -> dict[
        str, Any]:
    """The record of one journey's state: each owner's Workloads (OWNERS: label -> UID) and the queue's usage."""
    rec = {"journey": name, "kueue": plane.version, "lws": plane.state().get("lws"), "namespace": lay.ns,
           "workloads": {k: [asdict(f) for f in fw.record(plane, lay.ns, [u])[u]] for k, u in owners.items()},
           "usage": {f"{flv}/{res}": v for (flv, res), v in jr.usage(plane, lay.cq("q")).items()}, **more}
    out = Path(os.environ.get("PD_FW_RECORD") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}-kueue-{plane.version}.json").write_text(json.dumps(rec, indent=1, default=str))
    return rec


def _why(plane: Plane, target: str, ns: str, rec: dict[str, Any]) -> dict[str, Any]:
    """`kubectl pd why-pending TARGET -n NS -o json`, its `workloads[]` held against Kueue's in REC: the same
    Workloads, each admitted exactly when Kueue admitted it."""
    said = jr.pd(plane, "why-pending", target, "-n", ns, "-o", "json")
    assert said.rc in (0, 1), said
    doc = said.doc
    kueue = {f["name"]: f["admitted"] for fs in rec["workloads"].values() for f in fs}
    ours = {w["name"]: w["admitted"] for w in doc.get("workloads") or []}
    assert ours == kueue, (ours, kueue, str(said))
    assert doc["target"]["name"] == target.split("/", 1)[1]
    return doc


def _release(plane: Plane, ns: str, queue: str) -> None:
    plane.kubectl("patch", "localqueue", queue, "-n", ns, "--type=json",
                  "-p", '[{"op":"remove","path":"/spec/stopPolicy"}]')


@pytest.mark.disaggregatedset  # LWS v0.9 (Kueue 0.19's): deselected on 0.18's plane, whose LWS v0.8.0 has none
def test_a_disaggregated_set_whose_prefill_is_admitted_and_decode_waits(lws_plane: Plane, tmp_path: Path) -> None:
    plane = lws_plane
    assert fw.lws_line(plane) >= (0, 9), "DisaggregatedSet needs LWS v0.9 (Kueue 0.19's)"
    ns = plane.namespace("fwj")
    # 5 cards; prefill (pd-high) one Pod of 2, decode (pd-low) one group of 2 Pods of 2: the queue held until
    # both roles' Workloads exist, so Kueue meets them together and takes prefill first
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (5, None, None)}}, hold=("q",))
    ds = fw.disaggregated_set(ns, "pd", "q", [fw.Role("prefill", gpus=2), fw.Role("decode", size=2, gpus=2)])
    for r in ds["spec"]["roles"]:
        r["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "pd-high" if r["name"] == "prefill" else "pd-low"
    plane.apply(ds)
    roles = {x["metadata"]["labels"][fw.DS_ROLE]: x["metadata"]["uid"] for x in fw.wait_lws_of_set(plane, ns, "pd", 2)}
    fw.wait_workloads(plane, ns, roles["prefill"], 1)
    fw.wait_workloads(plane, ns, roles["decode"], 1)
    _release(plane, ns, "q")
    pre = fw.settle(plane, ns, roles["prefill"], 1)
    dec = fw.settle(plane, ns, roles["decode"], 1)
    rec = _save("ds-prefill-admitted-decode-waits", tmp_path, plane, lay, roles)
    assert fw.admitted(pre[0]) and not fw.admitted(dec[0])  # 2 + 4 of 5: prefill holds 2 cards, serving nothing
    assert "nvidia.com/gpu" in rec["workloads"]["decode"][0]["message"]
    doc = _why(plane, "ds/pd", ns, rec)
    assert doc["target"]["kind"] == "DisaggregatedSet"
    part = doc["reasons"][0]
    assert part["code"] == "PartlyAdmitted", doc["reasons"]
    assert part["params"]["admittedRoles"] == ["prefill"] and part["params"]["waitingRoles"] == ["decode"]
    # the quota the admitted role holds is what Kueue's ClusterQueue shows in use
    held = {f'{h["flavor"]}/{h["resource"]}': parse(str(h["quantity"])) for h in part["params"]["held"]}
    assert held == {k: parse(v[0]) for k, v in rec["usage"].items()}, (held, rec["usage"])
    fw.cleanup(plane, ns)


def test_an_lws_whose_second_group_waits(lws_plane: Plane, tmp_path: Path) -> None:
    plane = lws_plane
    ns = plane.namespace("fwj")
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (4, None, None)}})
    plane.apply(fw.lws(ns, "serve", "q", replicas=2, size=2, gpus=2))
    uid = fw.uid(plane, LWS, "serve", ns)
    ws = fw.settle(plane, ns, uid, 2)
    rec = _save("lws-second-group-waits", tmp_path, plane, lay, {"serve": uid})
    assert sum(fw.admitted(w) for w in ws) == 1
    doc = _why(plane, "lws/serve", ns, rec)
    assert doc["target"]["kind"] == "LeaderWorkerSet"
    fw.cleanup(plane, ns)


def test_a_deployment_of_four_with_one_gated(lws_plane: Plane, tmp_path: Path) -> None:
    plane = lws_plane
    ns = plane.namespace("fwj")
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (3, None, None)}})
    plane.apply(fw.deployment(ns, "decode", "q", replicas=4, gpus=1, role="decode"))
    pods = fw.wait_pods(plane, ns, "app=decode", 4)
    uids = {p["metadata"]["name"]: p["metadata"]["uid"] for p in pods}
    for u in uids.values():
        fw.settle(plane, ns, u, 1)
    rec = _save("deploy-four-one-gated", tmp_path, plane, lay, uids)
    assert sum(f["admitted"] for fs in rec["workloads"].values() for f in fs) == 3
    doc = _why(plane, "deploy/decode", ns, rec)
    assert doc["target"]["kind"] == "Deployment"
    fw.cleanup(plane, ns)


def test_preemption_between_lws_groups_of_two_priorities(lws_plane: Plane, tmp_path: Path) -> None:
    plane = lws_plane
    ns = plane.namespace("fwj")
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (4, None, None)}},
                    preemption={"withinClusterQueue": "LowerPriority"})
    plane.apply(fw.lws(ns, "low", "q", replicas=1, size=2, gpus=2, priority_class="pd-low"))
    low = fw.uid(plane, LWS, "low", ns)
    wait_for("low admitted", lambda: all(fw.admitted(w) for w in fw.wait_workloads(plane, ns, low, 1)), timeout=60)
    plane.apply(fw.lws(ns, "high", "q", replicas=1, size=2, gpus=2, priority_class="pd-high"))
    high = fw.uid(plane, LWS, "high", ns)
    wait_for("high admitted", lambda: all(fw.admitted(w) for w in fw.wait_workloads(plane, ns, high, 1)),
             timeout=90)
    victim = fw.workloads_of(plane, ns, low)[0]
    by = fw.workloads_of(plane, ns, high)[0]["metadata"]["uid"]
    _save("lws-preemption", tmp_path, plane, lay, {"low": low, "high": high},
          preempted_by_high=jr.preempted_by(victim, by))
    assert jr.preempted_by(victim, by)
    fw.cleanup(plane, ns)


def test_an_lws_deleted_while_waiting(lws_plane: Plane, tmp_path: Path) -> None:
    plane = lws_plane
    ns = plane.namespace("fwj")
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (2, None, None)}})
    plane.apply(fw.lws(ns, "gone", "q", replicas=1, size=2, gpus=2))  # 4 cards of 2: waits
    uid = fw.uid(plane, LWS, "gone", ns)
    fw.settle(plane, ns, uid, 1)
    before = _save("lws-deleted-while-waiting-before", tmp_path, plane, lay, {"gone": uid})
    plane.kubectl("delete", LWS, "gone", "-n", ns, "--wait=false")
    # the garbage collector (kube-controller-manager) removes what the LWS owned: its Workloads and Pods
    wait_for("the LWS's Workloads gone", lambda: not fw.workloads_of(plane, ns, uid), timeout=90)
    wait_for("its Pods gone", lambda: not fw.pods(plane, ns, f"{fw.LWS_NAME}=gone"), timeout=90)
    _save("lws-deleted-while-waiting-after", tmp_path, plane, lay, {"gone": uid})
    assert not before["workloads"]["gone"][0]["admitted"]


def test_a_group_found_only_through_the_annotation(lws_plane: Plane, tmp_path: Path) -> None:
    """Kueue 0.18+ names the groups it makes itself (LWS, StatefulSet) by the annotation
    kueue.x-k8s.io/pod-group-name only (pod_controller.go SetPodGroupName@v0.19.2, gate
    WorkloadIdentifierAnnotations): why-pending finds the group's Pods through it, by the group's name, its
    Workload and its LWS, and explains the wait with Kueue's own figures."""
    plane = lws_plane
    ns = plane.namespace("fwj")
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (4, None, None)}})
    jr.hold(plane, lay, "holder", "q", 2)  # 2 of 4 cards held: the group of 2 Pods x 2 cards waits for 2 more
    plane.apply(fw.lws(ns, "ann", "q", replicas=1, size=2, gpus=2))
    uid = fw.uid(plane, LWS, "ann", ns)
    pods = fw.wait_pods(plane, ns, f"{fw.LWS_NAME}=ann", 2)
    wl = fw.settle(plane, ns, uid, 1)[0]
    name = wl["metadata"]["name"]
    # the premise: Kueue named the group by annotation only, on every Pod (a worker's a moment after it is made)
    pods = wait_for("the group's name on both Pods", lambda: (ps := fw.pods(plane, ns, f"{fw.LWS_NAME}=ann")) and all(
        (p["metadata"].get("annotations") or {}).get(fw.GROUP_NAME) == name for p in ps) and ps, timeout=30)
    assert len(pods) == 2 and not any(fw.GROUP_NAME in (p["metadata"].get("labels") or {}) for p in pods)
    wl = jr.settled(plane, ns, name)
    rec = _save("group-by-annotation", tmp_path, plane, lay, {"ann": uid})
    fact = rec["workloads"]["ann"][0]
    assert not fact["admitted"] and not fact["quota_reserved"]
    short = jr.shortfalls(wl)  # Kueue's "insufficient unused quota ..., N more needed", per pod set
    assert len(short) == 1, jr.kueue_message(wl)
    (pod_set, by_flavor), = short.items()
    for target in (f"podgroup/{name}", f"workload/{name}", "lws/ann"):
        said, doc = jr.why(plane, target, ns)
        found = sum(int((r.get("pods") or {}).get("have") or 0) for r in doc["roles"])
        assert found == 2, (target, doc["roles"], str(said))  # its Pods, found through the annotation
        assert doc["pending"] is True, str(said)
        codes = [r["code"] for r in doc["reasons"]]
        assert codes == ["QuotaExhausted"], (target, codes, jr.kueue_message(wl))
        r = doc["reasons"][0]
        assert r["role"] == pod_set and r.get("workload") == name, (target, r)
        assert r["flavor"] in by_flavor and parse(str(r["needed"])) == parse(by_flavor[r["flavor"]]), (
            target, r, jr.kueue_message(wl))
    fw.cleanup(plane, ns)
