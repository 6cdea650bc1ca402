"""A test-only stand-in for GPUStack's operator, as its published docs describe the current (per-replica)
ModelDeployment (reference/gpustack-modeldeployment.md §3; gpustack-operator
docs/modules/model-deployment/prefill-decode.md): every replica of every role becomes its own Kueue pod group
of `size` Pods, labelled with the group name (FNV-64a of namespace/name/role/ordinal), the queue (the role's
InstanceType's `status.entrance`) and the total count, and the joint AdmissionCheck
`gpustack-model-deployment-joint` is answered Ready on every group once all of them hold a quota reservation,
Pending before. Only what the differential test needs: no Services, no rollout, no parking.

For GPUStack's published API, `worker.gpustack.ai/v1` (gpustack/gpustack-operator
docs/modules/model-deployment/deployment.md and status.md @0421f1cc6b1b9c75df6e4c23fd8fd12136607e98): `serve_v1`
adds the v1 version to the cluster's ModelDeployment CRD for one test (its schema is
tests/fixtures/gpustack-v1/crd-v1.yaml, written from the docs' fields) and takes it away after; `render` gives
each Pod the docs' per-Pod keys (`kueue.x-k8s.io/role-hash` = the role's name, so every replica's group composes
one PodSet named by the role; `modeldeployment.gpustack.ai/role-kind`; `kueue.x-k8s.io/pod-group-serving`), and
`write_status` writes `status.phase`, `roles[]` (desired, ready, quotaReserved, assignedFlavors), `roleSummary` and
the `QuotaReserved` condition (Reserved, Pending, AdmissionInFlight, NoReplicas) as status.md describes them.

Issue 40, the operator as its source behaves (gpustack/lines.py cites the files): a role's pool is its instanceType
or its acceleratorType (`pool_of`); `hold_on_weights` answers a deployment whose `spec.model.artifactRef` has not
resolved as the source does (no Pod, WeightsReady=False, QuotaReserved=Unknown NoReplicas, the phase message the
condition's), and `write_status` adds WeightsReady=True once released; `v1` is served either by the CRD
(`serve_v1`, a version schema given) or by a small aggregated API server of our own (tests/realcluster/
aggregated.py, registered by an APIService); every replica is a pod group whose `pod-group-total-count` is the
role's `size`."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

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


def pool_of(role: Obj) -> str:
    """The role's pool: its instanceType (the operator source: required), or its acceleratorType (the v0.11.2 docs:
    "AcceleratorType selects accelerated pools ...; both share the canonical pool ClusterQueue"), which the stand-in
    looks up as the InstanceType of the same name (the pool's ClusterQueue and entrance)."""
    return str(role.get("instanceType") or role["acceleratorType"])


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
        it = plane.get("instancetype", pool_of(role))
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
                if md["apiVersion"] == f"{GROUP}/v1":  # the v1 docs' per-Pod keys (v1alpha1's Pods stay as they were)
                    pod["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-serving"] = "true"
                    pod["metadata"]["labels"]["modeldeployment.gpustack.ai/role-kind"] = str(
                        role.get("kind") or "Server").lower()
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


# ----------------------------------------------------------------------------- GPUStack's published API, v1
CRD_NAME = f"modeldeployments.{GROUP}"
V1_RESOURCE = f"modeldeployments.v1.{GROUP}"  # kubectl's resource.version.group: v1 whatever discovery prefers
V1_CRD = Path(__file__).resolve().parents[1] / "fixtures" / "gpustack-v1" / "crd-v1.yaml"


def _v1_version() -> Obj:
    (crd,) = [d for d in yaml.safe_load_all(V1_CRD.read_text()) if d]
    (v1,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    return v1


@contextlib.contextmanager
def serve_v1(plane: Plane, version: Obj | None = None) -> Iterator[None]:
    """The cluster's ModelDeployment CRD serves (and stores) v1 beside v1alpha1 while the block runs; after it, the
    versions are as the plane started them (its own v1, when it had one), else v1 is no longer served and
    v1alpha1 is the storage version again (a stored version cannot be removed from the CRD, only unserved)."""
    before = plane.get("crd", CRD_NAME)["spec"]["versions"]
    _set_versions(plane, v1_served=True, version=version)
    try:
        yield
    finally:
        if any(v["name"] == "v1" for v in before):  # the plane's own v1 (served, with its schema): as it was
            _restore_versions(plane, before)
        else:
            _set_versions(plane, v1_served=False)


def _restore_versions(plane: Plane, versions: list[Obj]) -> None:
    crd = plane.get("crd", CRD_NAME)
    crd.pop("status", None)
    crd["spec"]["versions"] = versions
    plane.kubectl("replace", "-f", "-", input=json.dumps(crd))
    served = any(v["name"] == "v1" and v["served"] for v in versions)
    wait_for("the ModelDeployment API as the plane started", lambda: (
        ("v1" in [v["version"] for v in json.loads(plane.kubectl("get", "--raw", f"/apis/{GROUP}").stdout)[
            "versions"]]) == served))


def _set_versions(plane: Plane, v1_served: bool, version: Obj | None = None) -> None:
    crd = plane.get("crd", CRD_NAME)
    crd.pop("status", None)
    versions = [v for v in crd["spec"]["versions"] if v["name"] != "v1"]
    for v in versions:
        v["storage"] = not v1_served
    crd["spec"]["versions"] = [*versions, {**(version or _v1_version()), "served": v1_served,
                                           "storage": v1_served}]
    plane.kubectl("replace", "-f", "-", input=json.dumps(crd))
    wait_for("the ModelDeployment API " + ("with" if v1_served else "without") + " v1", lambda: (  # no cache
        ("v1" in [v["version"] for v in json.loads(plane.kubectl("get", "--raw", f"/apis/{GROUP}").stdout)[
            "versions"]]) == v1_served))


def _flavors(w: Obj) -> list[str]:
    out: set[str] = set()
    for psa in ((w.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []:
        out.update(str(f) for r, f in (psa.get("flavors") or {}).items() if r.startswith("credits.gpustack.ai/"))
    return sorted(out)


def _ready(pods: list[Obj]) -> bool:
    return bool(pods) and all(is_true(p, "Ready") for p in pods)


def write_status(plane: Plane, md: Obj, wls: dict[str, Obj], resource: str | None = None) -> Obj:
    """The operator's status over the deployment's replica groups (status.md): per role how many replicas are
    desired, ready (every Pod of the group Ready) and hold quota, the flavors they got; `roleSummary` (S, P, D by
    kind, no router here); `phase`; and `QuotaReserved` over every replica's Workload. Returns the status."""
    meta, spec = md["metadata"], md["spec"]
    ns, name = meta["namespace"], meta["name"]
    pods = [p for p in plane.get("pods", namespace=ns)["items"]
            if (p["metadata"].get("labels") or {}).get("app.kubernetes.io/instance") == name]
    roles, summary, waiting, missing, total, queues = [], {"Server": 0, "Prefill": 0, "Decode": 0}, 0, 0, 0, set()
    for role in spec["roles"]:
        kind = role.get("kind") or "Server"
        groups = [group_name(ns, name, role["name"], o) for o in range(int(role.get("replicas", 1)))]
        mine = [wls[g] for g in groups if g in wls]
        reserved = [w for w in mine if is_true(w, "QuotaReserved")]
        ready = sum(1 for g in groups if _ready([p for p in pods if p["metadata"]["labels"].get(
            "kueue.x-k8s.io/pod-group-name") == g]))
        entry: Obj = {"name": role["name"], "kind": kind, "desired": len(groups), "ready": ready,
                      "quotaReserved": len(reserved), "unmanaged": False}
        flavors = sorted({f for w in reserved for f in _flavors(w)})
        if flavors:
            entry["assignedFlavors"] = flavors
        roles.append(entry)
        summary[kind.capitalize()] += ready  # the older source line spells kinds in lowercase
        total += len(groups)
        missing += len(groups) - len(mine)
        waiting += len(mine) - len(reserved)
        queues.add(plane.get("instancetype", pool_of(role))["status"]["entrance"])
    kinds = {r["kind"].capitalize() for r in roles}
    status: Obj = {"roleSummary": "".join(f"{n}{k[0]}" for k, n in summary.items() if k in kinds),
                   "roles": roles, "conditions": [_quota_reserved(plane, ns, queues, total, waiting, missing)]}
    ready_all = sum(r["ready"] for r in roles)
    status["phase"] = ("Ready" if ready_all == total else "Degraded") if ready_all else "Starting"
    if md["spec"]["model"].get("artifactRef"):  # released: the weights are there (issue 40, the source)
        status["conditions"].append(_condition("WeightsReady", "True", "Mounted",
                                               "every replica's weights are mounted"))
    plane.kubectl("patch", resource or V1_RESOURCE, name, "-n", ns, "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": status}))
    return status


# ----------------------------------------------------------------------------- weights held back (issue 40)
V1ALPHA1_RESOURCE = f"modeldeployments.v1alpha1.{GROUP}"
WEIGHTS_REASON = "ArtifactNotResolved"


def _condition(ctype: str, status: str, reason: str, message: str) -> Obj:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": _now()}


def hold_on_weights(plane: Plane, md: Obj, resource: str = V1ALPHA1_RESOURCE) -> Obj:
    """What the operator source does while `spec.model.artifactRef` is unresolved: no Pod at all, WeightsReady=False
    (a reason that blocks), QuotaReserved=Unknown NoReplicas, and the phase message is WeightsReady's message
    (model_deployment_artifact.go and its test, status file: gpustack/lines.py cites them). Returns the status."""
    artifact = md["spec"]["model"]["artifactRef"]["name"]
    message = f'ModelArtifact "{artifact}" has not resolved: the stand-in holds it back'
    roles = [{"name": r["name"], "kind": r.get("kind") or "Server", "desired": int(r.get("replicas", 1)), "ready": 0,
              "quotaReserved": 0, "unmanaged": False} for r in md["spec"]["roles"]]
    status: Obj = {"phase": "Starting", "phaseMessage": message, "roles": roles, "conditions": [
        _condition("QuotaReserved", "Unknown", "NoReplicas", "no replica has been created yet"),
        _condition("WeightsReady", "False", WEIGHTS_REASON, message)]}
    plane.kubectl("patch", resource, md["metadata"]["name"], "-n", md["metadata"]["namespace"],
                  "--subresource=status", "--type=merge", "-p", json.dumps({"status": status}))
    return status


def _quota_reserved(plane: Plane, ns: str, queues: set[str], total: int, waiting: int, missing: int) -> Obj:
    cqs = sorted(plane.get("localqueue", q, ns)["spec"]["clusterQueue"] for q in queues)
    if total == 0:
        state = ("Unknown", "NoReplicas", "no replica has been created yet")
    elif missing:
        state = ("Unknown", "AdmissionInFlight", f"{missing} of {total} replicas have no Workload yet")
    elif waiting:
        state = ("False", "Pending", f"{waiting} of {total} replicas waiting for quota in cluster queue "
                                     f"{', '.join(cqs)}")
    else:
        state = ("True", "Reserved", "every replica has quota reserved")
    return {"type": "QuotaReserved", "status": state[0], "reason": state[1], "message": state[2],
            "lastTransitionTime": _now()}
