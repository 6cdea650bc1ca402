"""Advice that works (issue 46, finding 8), the rest: Pods a finalizer holds after deletion are named as such (never
"wait for the pods to go"); an admitted group whose Pods are being deleted after a preemption is said to be evicted,
never "not pending". Asserted on codes, params and sentence ids, from files of generated objects."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubectl_pd.gpustack import names
from tests.test_quota_figures import NS, layout

GPU = "nvidia.com/gpu"
KUEUE_FINALIZER = "kueue.x-k8s.io/managed"
GONE_AT = "2026-01-01T00:00:00Z"


def _objects() -> list[dict[str, Any]]:
    """research (10 cards of a100) and prod in cohort org; the 4-card pod group g (one Pod, role w) on research."""
    return copy.deepcopy(layout(0, None, 0, 0, 0))


def _why(cli: Callable, tmp_path: Path, objs: list[dict[str, Any]]) -> dict[str, Any]:
    path = tmp_path / "objs.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    r = cli(["why-pending", f"podgroup/{names.pod_group_name(NS, 'g')}", "-n", NS, "-f", str(path), "-o", "json"])
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def _deleted(objs: list[dict[str, Any]], finalizers: list[str], **status: Any) -> None:
    for o in objs:
        if o["kind"] == "Pod":
            o["metadata"]["deletionTimestamp"] = GONE_AT
            o["metadata"]["finalizers"] = finalizers
            o["status"] = dict(status)


def test_pods_a_finalizer_holds_are_named(cli: Callable, tmp_path: Path) -> None:
    """Every Pod of g is deleted; nothing of them runs (never placed), Kueue's finalizer holds them: the reason
    counts them by finalizer and `next:` names the finalizer, not "wait for the pods to go"."""
    objs = _objects()
    _deleted(objs, [KUEUE_FINALIZER], phase="Pending")
    doc = _why(cli, tmp_path, objs)
    head = doc["reasons"][0]
    assert head["code"] == "AllReplicasTerminating"
    assert head["params"]["heldByFinalizers"] == {KUEUE_FINALIZER: 1}
    assert not any("wait for the pods to go" in h for h in doc["next"])
    assert any(KUEUE_FINALIZER in h for h in doc["next"])


def test_pods_still_shutting_down_are_no_finalizer_story(cli: Callable, tmp_path: Path) -> None:
    """A deleted Pod still running on its Node may go by itself: no finalizer is blamed."""
    objs = _objects()
    _deleted(objs, [KUEUE_FINALIZER], phase="Running")
    for o in objs:
        if o["kind"] == "Pod":
            o["spec"]["nodeName"] = "n1"
    doc = _why(cli, tmp_path, objs)
    head = doc["reasons"][0]
    assert head["code"] == "AllReplicasTerminating"
    assert head["params"]["heldByFinalizers"] == {}


def _admitted_workload(evicted: bool) -> dict[str, Any]:
    conds = [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "",
              "lastTransitionTime": GONE_AT},
             {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "",
              "lastTransitionTime": GONE_AT}]
    if evicted:
        msg = "Preempted to accommodate a workload (UID: u-1, JobUID: j-1) due to prioritization in the ClusterQueue"
        conds += [{"type": "Evicted", "status": "True", "reason": "Preempted", "message": msg,
                   "lastTransitionTime": GONE_AT},
                  {"type": "Preempted", "status": "True", "reason": "InClusterQueue", "message": msg,
                   "lastTransitionTime": GONE_AT}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": names.pod_group_name(NS, "g"), "namespace": NS, "creationTimestamp": GONE_AT},
            "spec": {"queueName": "research", "podSets": [
                {"name": "w", "count": 1, "template": {"spec": {"containers": [
                    {"name": "engine", "resources": {"requests": {GPU: "4"}}}]}}}]},
            "status": {"conditions": conds, "admission": {"clusterQueue": "research", "podSetAssignments": [
                {"name": "w", "count": 1, "flavors": {GPU: "a100"}, "resourceUsage": {GPU: "4"}}]}}}


def test_an_admitted_group_being_preempted_is_no_not_pending(cli: Callable, tmp_path: Path) -> None:
    """Admitted, then preempted: Kueue deletes every Pod while the Workload still holds its quota. The answer is
    the preemption, being carried out (params evicting, podsDeleting), never NOT PENDING."""
    objs = _objects()
    _deleted(objs, [KUEUE_FINALIZER], phase="Running")
    for o in objs:
        if o["kind"] == "Pod":
            o["metadata"]["name"] = names.pod_group_name(NS, "g") + "-w-0"
            o["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] = names.pod_group_name(NS, "g")
            o["spec"]["nodeName"] = "n1"
    doc = _why(cli, tmp_path, [*objs, _admitted_workload(evicted=True)])
    assert doc["pending"] is True
    head = doc["reasons"][0]
    assert head["code"] == "Preempted"
    assert (head["params"]["evicting"], head["params"]["podsDeleting"], head["params"]["pods"]) == (True, 1, 1)
    assert head["params"]["rule"] == "InClusterQueue"


def test_an_admitted_group_not_evicted_stays_not_pending(cli: Callable, tmp_path: Path) -> None:
    objs = _objects()
    for o in objs:
        if o["kind"] == "Pod":
            o["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] = names.pod_group_name(NS, "g")
    doc = _why(cli, tmp_path, [*objs, _admitted_workload(evicted=False)])
    assert doc["pending"] is False
    assert doc["reasons"][0]["code"] == "NotPending"


# ----------------------------------------------------------------------------- a quota raise against the Nodes
BIG = ("couldn't assign flavors to pod set w: insufficient quota for nvidia.com/gpu in flavor a100, previously "
       "considered podsets requests (0) + current podset request (16) > maximum capacity (10)")


def _node(name: str, cards: int, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {GPU: str(cards), "cpu": "64", "memory": "512Gi", "pods": "110"}}}


def _sixteen(node_cards: list[int] | None, labelled: bool = True) -> list[dict[str, Any]]:
    """research gives 10 cards of a100 (nodeLabels gpu=a100 when LABELLED); a pending 16-card Workload Kueue
    says exceeds its maximum capacity; Nodes of a100 with NODE_CARDS cards each (None: no Node in the file)."""
    from tests.builders import cluster_queue, resource_flavor
    from tests.test_kueue_words_age import objects

    objs = objects(10, BIG)
    wl = next(o for o in objs if o["kind"] == "Workload")
    wl["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"][GPU] = "16"
    cq = cluster_queue("research", {"a100": "10"}, resource=GPU, active=True, used={"a100": "0"})
    cq["status"]["flavorsUsage"] = cq["status"]["flavorsReservation"]
    labels = {"gpu": "a100"}
    rest = [o for o in objs if o["kind"] not in ("ClusterQueue", "ResourceFlavor")]
    nodes = [_node(f"n{i}", c, labels) for i, c in enumerate(node_cards or [])]
    return [cq, resource_flavor("a100", labels if labelled else None), *rest, *nodes]


def _why_probe(cli: Callable, tmp_path: Path, objs: list[dict[str, Any]]) -> dict[str, Any]:
    path = tmp_path / "probe.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    r = cli(["why-pending", "workload/probe", "-n", NS, "-f", str(path), "-o", "json"])
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_no_raise_where_no_node_could_hold_the_pod(cli: Callable, tmp_path: Path) -> None:
    """16 cards a pod, a100's Nodes allocate 8: raising the quota by 6 would admit a Pod no Node runs. The reason
    says the Nodes are too small (nodeFit too-small, the largest Node's figure) and `next:` raises nothing."""
    doc = _why_probe(cli, tmp_path, _sixteen([8, 8]))
    head = doc["reasons"][0]
    assert head["code"] == "QuotaExceedsCapacity"
    assert head["params"]["nodeFit"] == "too-small"
    fit = head["params"]["nodes"]
    assert (fit["flavor"], fit["nodes"], fit["allowed"], fit["resource"], fit["requested"], fit["largest"]) == \
        ("a100", 2, 2, GPU, "16", "8")
    assert not any("raise nominalQuota" in h for h in doc["next"])


def test_a_raise_where_a_node_could_hold_the_pod(cli: Callable, tmp_path: Path) -> None:
    doc = _why_probe(cli, tmp_path, _sixteen([8, 16]))
    head = doc["reasons"][0]
    assert head["params"]["nodeFit"] == "holds"
    assert any("raise nominalQuota" in h for h in doc["next"])


def test_a_raise_with_the_nodes_unread_says_so(cli: Callable, tmp_path: Path) -> None:
    """A flavor without nodeLabels: its Nodes are never listed (never all Nodes), so the raise is said with the
    Nodes unweighed (nodeFit unread), not as a claim that it would run."""
    doc = _why_probe(cli, tmp_path, _sixteen(None, labelled=False))
    assert doc["reasons"][0]["params"]["nodeFit"] == "unread"


def test_unschedulable_on_small_nodes_blames_their_size_not_their_labels(cli: Callable, tmp_path: Path) -> None:
    """Admitted on a100; a100's two Nodes carry the Pod's selector but allocate 2 cards, the Pod asks 4: the
    scheduler places none. The reason says the Nodes are too small (nodesTooSmall), not that none carries what
    the Pod selects; `next:` names the size."""
    from tests.builders import resource_flavor

    labels = {"gpu": "a100"}
    objs = [o for o in _objects() if o["kind"] != "ResourceFlavor"] + [resource_flavor("a100", labels)]
    for o in objs:
        if o["kind"] == "Pod":
            o["spec"]["nodeSelector"] = dict(labels)
            o["status"] = {"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                 "message": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."}]}
    objs += [_node("n0", 2, labels), _node("n1", 2, labels), _admitted_workload(evicted=False)]
    doc = _why(cli, tmp_path, objs)
    head = doc["reasons"][0]
    assert head["code"] == "PodsUnschedulable"
    assert head["params"]["nodesTooSmall"] is True
    assert [n["matchesSelector"] for n in head["params"]["flavorNodes"]] == [True, True]
    assert "carry what the pod selects and could hold 0" not in head["message"]
    assert any("add Nodes that allocate 4" in h for h in doc["next"])


# ----------------------------------------------------------------------------- an incomplete group
def test_an_incomplete_group_invents_no_roles(cli: Callable, tmp_path: Path) -> None:
    """A 3-Pod group (prefill x1, decode x2 as create rendered it) of which only prefill's Pod exists, and no
    deployment to say the roles: the two missing Pods are of roles not known. No 'prefill 1/3', no demand of three
    prefill Pods, no 'create the missing prefill pods'."""
    from kubectl_pd.create import pods as pd
    from kubectl_pd.create.flags import CreateRequest, check_request, parse_role

    req = CreateRequest(name="g", namespace=NS, model="m", target="pods", local_queue="research", resource=GPU,
                        roles=(parse_role("name=prefill,kind=prefill,replicas=1,accelerator=2,image=i"),
                               parse_role("name=decode,kind=decode,replicas=2,accelerator=4,image=i")))
    group = pd.render_pods(req, check_request(req).roles, {"prefill": "research", "decode": "research"})
    objs = [o for o in _objects() if o["kind"] != "Pod"] + [p for p in group if "prefill" in p["metadata"]["name"]]
    doc = _why(cli, tmp_path, objs)
    head = doc["reasons"][0]
    assert head["code"] == "PodGroupIncomplete" and head["role"] is None
    assert (head["params"]["have"], head["params"]["want"], head["params"]["rolesSeen"]) == (1, 3, {"prefill": 1})
    assert [(r["name"], r["pods"]["have"], r["pods"]["want"]) for r in doc["roles"]] == [("prefill", 1, None)]
    assert [(b["flavor"], b["needed"]) for b in doc["quota"] if b["resource"] == GPU] == [("a100", "2")]
    assert not any("missing prefill pods" in h for h in doc["next"])


def test_a_reserved_group_evicted_by_its_check_keeps_the_checks_story(cli: Callable, tmp_path: Path) -> None:
    """Quota reserved, not admitted; an admission check answered Retry and Kueue evicts: the check's story leads
    (AdmissionCheckPending), not an eviction being carried out (that is for an admitted or preempted group)."""
    objs = _objects()
    wl = _admitted_workload(evicted=False)
    wl["status"]["conditions"] = [c for c in wl["status"]["conditions"] if c["type"] != "Admitted"] + [
        {"type": "Evicted", "status": "True", "reason": "AdmissionCheck", "message": "At least one admission check "
         "is false", "lastTransitionTime": GONE_AT}]
    wl["status"]["admissionChecks"] = [{"name": "prov", "state": "Retry", "message": "capacity later",
                                        "lastTransitionTime": GONE_AT}]
    doc = _why(cli, tmp_path, [*objs, wl])
    assert doc["reasons"][0]["code"] == "AdmissionCheckPending"
    assert "evicting" not in doc["reasons"][0]["params"]
