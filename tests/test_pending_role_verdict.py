"""A role's verdict from all its Workloads (issue 46 items 7 and 10): a deployment with several groups per role is
pending while any of its groups waits, and says which. Pure: snapshots built in memory from the fixtures."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.test_pending_diagnose import objs, of, run

WAITING_FOR_REPLACEMENT = {"type": "WaitingForReplacementPods", "status": "True", "reason": "Preempted",
                           "message": "", "lastTransitionTime": "2026-11-29T09:31:01Z"}


def _second_decode_admitted(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """preempted.yaml with decode at two replicas (per-replica groups): the new one admitted, the first preempted."""
    dec_wl = next(w for w in of(items, "Workload") if w["spec"]["podSets"][0]["name"] == "decode")
    pre_wl = next(w for w in of(items, "Workload") if w["spec"]["podSets"][0]["name"] == "prefill")
    dec_pod = next(p for p in of(items, "Pod") if p["metadata"]["labels"]["app.kubernetes.io/component"] == "decode")
    group = "gpustack-fnv64-decode-1"
    pod = copy.deepcopy(dec_pod)
    pod["metadata"].update(name=dec_pod["metadata"]["name"] + "-1", uid=dec_pod["metadata"]["uid"] + "-1")
    pod["metadata"]["labels"].update({"kueue.x-k8s.io/pod-group-name": group,
                                      "modeldeployment.gpustack.ai/pod-ordinal": "1"})
    pod["spec"].pop("schedulingGates", None)
    pod["spec"]["nodeName"] = "gpu-node-3"
    pod["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    wl = copy.deepcopy(dec_wl)
    wl["metadata"].update(name=group, uid="uid-decode-1")
    wl["metadata"]["ownerReferences"][0].update(name=pod["metadata"]["name"], uid=pod["metadata"]["uid"])
    wl["status"] = copy.deepcopy(pre_wl["status"])
    wl["status"]["admission"]["podSetAssignments"][0]["name"] = "decode"
    for md in of(items, "ModelDeployment"):
        for r in md["spec"]["roles"]:
            if r["name"] == "decode":
                r["replicas"] = 2
    return [*items, pod, wl]


@pytest.mark.parametrize("state", ["requeued", "pods-deleted-by-kueue", "waiting-for-replacement-pods"])
def test_one_decode_group_preempted_the_other_admitted_is_pending(state: str) -> None:
    """The regression of issue 46 item 10: prefill admitted, one decode group admitted, the other preempted by
    cohort reclamation and requeued. Kueue's pod integration stops an evicted group by deleting its Pods, then marks
    the Workload WaitingForReplacementPods (reason the eviction's: pod_controller.go
    waitingForReplacementPodsCondition@v0.19.2): the group waits, it is not going away."""
    items = _second_decode_admitted(objs("preempted"))
    dec_wl = next(w for w in of(items, "Workload") if w["spec"]["podSets"][0]["name"] == "decode"
                  and w["metadata"]["name"] != "gpustack-fnv64-decode-1")
    dec_pod = next(p for p in of(items, "Pod") if p["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"]
                   == dec_wl["metadata"]["name"])
    if state in ("pods-deleted-by-kueue", "waiting-for-replacement-pods"):
        dec_pod["metadata"]["deletionTimestamp"] = "2026-11-29T09:31:01Z"
    if state == "waiting-for-replacement-pods":
        dec_wl["status"]["conditions"].append(dict(WAITING_FOR_REPLACEMENT))
    d = run(items)
    assert d.pending
    assert (d.reasons[0].code, d.reasons[0].role, d.reasons[0].workload) == (
        "Preempted", "decode", dec_wl["metadata"]["name"])
    assert "NotPending" not in [r.code for r in d.reasons]
    assert d.reasons[0].params["holdingRoles"] == ["prefill"]  # prefill still holds quota for nothing
    # the role's verdict from all its Workloads: decode waits (one of its groups does), prefill runs
    assert d.partly is not None and d.partly.waiting_roles == ("decode",)
    assert d.partly.waiting_workloads == (dec_wl["metadata"]["name"],)
    assert {r.name: r.verdict for r in d.roles}["decode"] != "admitted"
    assert [(w.role, w.admitted) for w in d.workloads].count(("decode", True)) == 1
