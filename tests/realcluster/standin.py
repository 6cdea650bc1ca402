"""A test-only stand-in for GPUStack's operator, as its published docs describe the current (per-replica)
ModelDeployment (reference/gpustack-modeldeployment.md §3; gpustack-operator
docs/modules/model-deployment/prefill-decode.md): every replica of every role becomes its own Kueue pod group
of `size` Pods, labelled with the group name (FNV-64a of namespace/name/role/ordinal), the queue (the role's
InstanceType's `status.entrance`) and the total count, and the joint AdmissionCheck
`gpustack-model-deployment-joint` is answered Ready on every group once all of them hold a quota reservation,
Pending before. Only what the differential test needs: no Services, no rollout, no parking."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.realcluster import objs
from tests.realcluster.plane import Plane, is_true, wait_for

Obj = dict[str, Any]
GROUP = "worker.gpustack.ai"
JOINT = "gpustack-model-deployment-joint"
CREDITS_PER_CARD = 1_600_000


def instance_type_crd() -> Obj:
    """GPUStack's InstanceType API, as much of it as create's preflight reads (cluster-scoped; status
    written with the object: the stand-in is its controller)."""
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"instancetypes.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Cluster",
                     "names": {"kind": "InstanceType", "listKind": "InstanceTypeList", "plural": "instancetypes",
                               "singular": "instancetype"},
                     "versions": [{"name": "v1alpha1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def instance_type(name: str, entrance: str, accelerator_group: str = "nvidia-h100") -> Obj:
    return {"apiVersion": f"{GROUP}/v1alpha1", "kind": "InstanceType", "metadata": {"name": name},
            "spec": {"acceleratable": True, "acceleratorGroup": accelerator_group, "os": "linux", "arch": "amd64"},
            "status": {"entrance": entrance, "phase": "Ready"}}


def install(plane: Plane) -> None:
    """The InstanceType API and the joint AdmissionCheck, made active as its controller would."""
    plane.apply(instance_type_crd())
    plane.kubectl("wait", "--for=condition=Established", f"crd/instancetypes.{GROUP}", "--timeout=30s")
    plane.apply({"apiVersion": objs.KV, "kind": "AdmissionCheck", "metadata": {"name": JOINT},
                 "spec": {"controllerName": "gpustack.ai/model-deployment-joint"}})
    activate_check(plane, JOINT)


def activate_check(plane: Plane, check: str) -> None:
    status = {"status": {"conditions": [{"type": "Active", "status": "True", "reason": "Active",
                                         "message": "the test's controller", "lastTransitionTime": _now()}]}}
    plane.kubectl("patch", "admissioncheck", check, "--subresource=status", "--type=merge", "-p", json.dumps(status))


def set_check(plane: Plane, ns: str, wl: Obj, check: str, state: str, message: str) -> None:
    """Write the check's state on a Workload as its controller does (only when it changes)."""
    cur = (wl.get("status") or {}).get("admissionChecks") or []
    mine = next((c for c in cur if c["name"] == check), None)
    if mine is None or (mine.get("state"), mine.get("message")) == (state, message):
        return
    mine.update(state=state, message=message, lastTransitionTime=_now())
    plane.kubectl("patch", "workload", wl["metadata"]["name"], "-n", ns, "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": {"admissionChecks": cur}}))


def fnv64a(text: str) -> str:
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def group_name(ns: str, name: str, role: str, ordinal: int) -> str:
    return f"gpustack-fnv64-{fnv64a(f'{ns}/{name}/{role}/{ordinal}')}"


def render(plane: Plane, md: Obj) -> list[str]:
    """Create the Pods of every replica group of MD; return the group names (one per role and ordinal)."""
    meta, spec = md["metadata"], md["spec"]
    ns, name = meta["namespace"], meta["name"]
    owner = {"apiVersion": md["apiVersion"], "kind": "ModelDeployment", "name": name, "uid": meta["uid"],
             "controller": True, "blockOwnerDeletion": True}
    pods, groups = [], []
    for role in spec["roles"]:
        it = plane.get("instancetype", role["instanceType"])
        vendor = it["spec"]["acceleratorGroup"].split("-")[0]
        cards = int((role.get("resources") or {}).get("accelerator", 1))
        size = int(role.get("size") or 1)
        for ordinal in range(int(role.get("replicas", 1))):
            group = group_name(ns, name, role["name"], ordinal)
            groups.append(group)
            for member in range(size):
                pod = objs.group_pod(ns, f"{name}-{role['name']}-{ordinal}-{member}", group, size,
                                     it["status"]["entrance"], role["name"],
                                     {f"credits.gpustack.ai/{vendor}": str(cards * CREDITS_PER_CARD)},
                                     labels={"modeldeployment.gpustack.ai/pod-ordinal": str(ordinal),
                                             "modeldeployment.gpustack.ai/member-index": str(member),
                                             "app.kubernetes.io/name": "model-deployment",
                                             "app.kubernetes.io/instance": name,
                                             "app.kubernetes.io/component": role["name"]},
                                     owner=owner)
                pod["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"] = role["name"]
                pods.append(pod)
    plane.apply(*pods, server_side=False)
    return groups


def answer(plane: Plane, ns: str, groups: list[str]) -> dict[str, Obj]:
    """One pass of the joint check's controller: the groups' Workloads, each answered Ready when every group
    holds a reservation, Pending ("N of M replicas have reserved quota") before."""
    wls = {w["metadata"]["name"]: w for w in plane.get("workloads", namespace=ns)["items"]
           if w["metadata"]["name"] in groups}
    reserved = sum(1 for w in wls.values() if is_true(w, "QuotaReserved"))
    ready = reserved == len(groups) and len(wls) == len(groups)
    for w in wls.values():
        if is_true(w, "QuotaReserved"):
            set_check(plane, ns, w, JOINT, "Ready" if ready else "Pending",
                      "all replicas have reserved quota" if ready else
                      f"{reserved} of {len(groups)} replicas have reserved quota")
    return wls


def composed(plane: Plane, ns: str, groups: list[str]) -> dict[str, Obj]:
    return wait_for("a Workload for every replica group", lambda: (
        w if len(w := {x["metadata"]["name"]: x for x in plane.get("workloads", namespace=ns)["items"]
                       if x["metadata"]["name"] in groups}) == len(groups) else None))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
