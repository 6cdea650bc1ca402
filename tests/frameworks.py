"""The objects a PD framework and Kueue's integrations for it write, as Kueue 0.19.2 and LWS v0.9.0 write them:
a LeaderWorkerSet and its per-group Workloads and Pods, a DisaggregatedSet and its per-role LeaderWorkerSets, a
Deployment and its per-Pod Workloads. Read from their source (the Go module cache):

- Workload names: `<lowercase kind>-<owner name>-<first 5 hex of sha1(kind, group, owner name, uid)>`
  (kueue pkg/controller/jobframework/workload_names.go GetWorkloadNameForOwnerWithGVK, getHash@v0.19.2); an LWS
  group's owner name is `<lws>-<group index>` (leaderworkerset_webhook.go GetWorkloadName@v0.19.2), a Pod's is the
  Pod's name.
- An LWS group's Workload: label `kueue.x-k8s.io/job-uid=<LWS uid>`, annotations `job-owner-gvk`, `job-owner-name`,
  `component-workload-index`, `is-group-workload`; owner the LWS (not controller); pod sets `leader` (1) and
  `worker` (size - 1) (leaderworkerset_reconciler.go constructWorkload, podSets@v0.19.2).
- Its Pods: LWS's labels `leaderworkerset.sigs.k8s.io/name`, `group-index`, `worker-index`; Kueue's
  `kueue.x-k8s.io/managed=true` and queue label; the group's name and prebuilt Workload as ANNOTATIONS (gate
  WorkloadIdentifierAnnotations, Beta since 0.18: pod_controller.go SetPodGroupName, jobframework/utils.go
  SetPrebuiltWorkloadName@v0.19.2), `pod-group-total-count` = size, `role-hash` = leader | worker
  (leaderworkerset_reconciler.go setDefault@v0.19.2).
- A DisaggregatedSet's LWS per role: `<ds>-<revision>-<role>`, labels `disaggregatedset.x-k8s.io/name`, `/role`,
  `/revision` on the LWS and its templates (lws pkg/utils/disaggregatedset/utils.go GenerateName,
  GenerateLabels@v0.9.0).
- A Deployment's Pod: one Workload each (`pod-<pod>-<hash>`, pod set `main`, `job-uid=<Pod uid>`, owner the Pod).
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from tests.builders import cluster_queue, resource_flavor

Obj = dict[str, Any]
NS = "team-a"
LQ = "lq"
CQ = "gpus"
FLAVOR = "h100"
GPU = "nvidia.com/gpu"
KUEUE = "kueue.x-k8s.io/v1beta2"
LWS_API = "leaderworkerset.x-k8s.io/v1"
DS_API = "disaggregatedset.x-k8s.io/v1"
LWS_GVK = "leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet"
GATE = "kueue.x-k8s.io/admission"


def workload_name(kind: str, group: str, owner: str, uid: str) -> str:
    """Kueue's GetWorkloadNameForOwnerWithGVK (no truncation needed for the short names tests use)."""
    h = hashlib.sha1(f"{kind}\n{group}\n{owner}\n{uid}".encode()).hexdigest()[:5]  # noqa: S324 - Kueue's own hash
    return f"{kind.lower()}-{owner}-{h}"


def lws_workload_name(lws: str, uid: str, index: int) -> str:
    return workload_name("LeaderWorkerSet", "leaderworkerset.x-k8s.io", f"{lws}-{index}", uid)


def queues(gpus: int = 8, used: int = 0) -> list[Obj]:
    """LocalQueue `lq` -> ClusterQueue `gpus` (nvidia.com/gpu in flavor h100), and the flavor."""
    lq = {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": LQ, "namespace": NS},
          "spec": {"clusterQueue": CQ}}
    cq = cluster_queue(CQ, {FLAVOR: str(gpus)}, resource=GPU, used={FLAVOR: str(used)} if used else None,
                       active=True)
    return [lq, cq, resource_flavor(FLAVOR)]


def _template(gpus: int, labels: dict[str, str]) -> Obj:
    res = {GPU: str(gpus)}
    return {"metadata": {"labels": dict(labels)},
            "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                                     "resources": {"requests": res, "limits": res}}]}}


def _conditions(state: str, message: str = "") -> list[Obj]:
    """A Workload's conditions: `pending` (waiting for quota), `admitted`, or `preempted` (evicted and requeued)."""
    t = "2026-12-07T10:00:00Z"
    if state == "admitted":
        return [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                 "message": f"Quota reserved in ClusterQueue {CQ}", "lastTransitionTime": t},
                {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted",
                 "lastTransitionTime": t}]
    return [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
             "message": message or f"couldn't assign flavors to pod set main: insufficient unused quota for {GPU} "
                                   f"in flavor {FLAVOR}, 1 more needed", "lastTransitionTime": t}]


def _admission(pod_sets: list[tuple[str, int, int]]) -> Obj:
    return {"clusterQueue": CQ, "podSetAssignments": [
        {"name": n, "count": c, "flavors": {GPU: FLAVOR}, "resourceUsage": {GPU: str(c * g)}} for n, c, g in pod_sets]}


def group_workload(name: str, owner: Obj, pod_sets: list[tuple[str, int, int]], state: str, *,
                   labels: dict[str, str], index: int | None = None, message: str = "") -> Obj:
    """A Workload Kueue builds for a group of `owner` (an LWS group): pod sets (name, count, gpus per pod)."""
    meta = owner["metadata"]
    ann = {"kueue.x-k8s.io/is-group-workload": "true",
           "kueue.x-k8s.io/job-owner-gvk": f"{owner['apiVersion']}, Kind={owner['kind']}",
           "kueue.x-k8s.io/job-owner-name": meta["name"]}
    if index is not None:
        ann["kueue.x-k8s.io/component-workload-index"] = str(index)
    status: Obj = {"conditions": _conditions(state, message)}
    if state == "admitted":
        status["admission"] = _admission(pod_sets)
    return {"apiVersion": KUEUE, "kind": "Workload",
            "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}",
                         "creationTimestamp": "2026-12-07T09:59:00Z",
                         "labels": {"kueue.x-k8s.io/job-uid": meta["uid"]}, "annotations": ann,
                         "ownerReferences": [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                              "name": meta["name"], "uid": meta["uid"]}]},
            "spec": {"queueName": LQ, "active": True,
                     "podSets": [{"name": n, "count": c, "template": _template(g, labels)} for n, c, g in pod_sets]},
            "status": status}


def lws(name: str, *, replicas: int = 2, size: int = 2, gpus: int = 1, labels: dict[str, str] | None = None,
        uid: str | None = None) -> Obj:
    """A LeaderWorkerSet with a leader template (the queue label on its metadata, as Kueue's integration reads it)."""
    tpl_labels = {"kueue.x-k8s.io/queue-name": LQ, **(labels or {})}
    return {"apiVersion": LWS_API, "kind": "LeaderWorkerSet",
            "metadata": {"name": name, "namespace": NS, "uid": uid or f"uid-lws-{name}",
                         "labels": {"kueue.x-k8s.io/queue-name": LQ, **(labels or {})}},
            "spec": {"replicas": replicas, "leaderWorkerTemplate": {
                "size": size, "leaderTemplate": _template(gpus, tpl_labels),
                "workerTemplate": _template(gpus, tpl_labels)}}}


def lws_group(owner: Obj, index: int, state: str, *, gpus: int = 1, annotation: bool = True,
              message: str = "") -> list[Obj]:
    """One LWS group: its Workload and its Pods (leader `<lws>-<i>`, workers `<lws>-<i>-<w>`), gated unless
    admitted. `annotation`: the group's name as Kueue 0.18+ writes it (an annotation), else as a label (older)."""
    meta = owner["metadata"]
    name, uid = meta["name"], meta["uid"]
    size = owner["spec"]["leaderWorkerTemplate"]["size"]
    labels = {k: v for k, v in (owner["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["metadata"]["labels"]).items()}
    wl_name = lws_workload_name(name, uid, index)
    wl = group_workload(wl_name, owner, [("leader", 1, gpus), ("worker", size - 1, gpus)], state,
                        labels={**labels, "leaderworkerset.sigs.k8s.io/name": name}, index=index, message=message)
    pods = []
    for w in range(size):
        pod_name = f"{name}-{index}" if w == 0 else f"{name}-{index}-{w}"
        pod_labels = {**labels, "leaderworkerset.sigs.k8s.io/name": name,
                      "leaderworkerset.sigs.k8s.io/group-index": str(index),
                      "leaderworkerset.sigs.k8s.io/worker-index": str(w), "kueue.x-k8s.io/managed": "true"}
        ann = {"kueue.x-k8s.io/pod-group-total-count": str(size), "kueue.x-k8s.io/role-hash": "leader" if w == 0
               else "worker"}
        if w:
            ann["leaderworkerset.sigs.k8s.io/leader-name"] = f"{name}-{index}"
        if annotation:
            ann["kueue.x-k8s.io/pod-group-name"] = wl_name
            ann["kueue.x-k8s.io/prebuilt-workload-name"] = wl_name
        else:
            pod_labels["kueue.x-k8s.io/pod-group-name"] = wl_name
            pod_labels["kueue.x-k8s.io/prebuilt-workload-name"] = wl_name
        pods.append(_pod(pod_name, pod_labels, ann, gpus, admitted=state == "admitted",
                         owner=("StatefulSet", f"{name}-{index}" if w else name)))
    # Kueue makes every Pod of the group an owner of its Workload too (pod_controller.go
    # EnsureWorkloadOwnedByAllMembers@v0.19.2: SetOwnerReference, not a controller)
    wl["metadata"]["ownerReferences"] += [{"apiVersion": "v1", "kind": "Pod", "name": p["metadata"]["name"],
                                           "uid": p["metadata"]["uid"]} for p in pods]
    return [wl, *pods]


def _pod(name: str, labels: dict[str, str], ann: dict[str, str], gpus: int, *, admitted: bool,
         owner: tuple[str, str]) -> Obj:
    res = {GPU: str(gpus)}
    spec: Obj = {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                                 "resources": {"requests": res, "limits": res}}]}
    status: Obj = {"phase": "Pending"}
    if admitted:
        spec["nodeName"] = "gpu-node-1"
        status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    else:
        spec["schedulingGates"] = [{"name": GATE}]
        status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "uid": f"uid-pod-{name}", "labels": labels,
                         "annotations": ann, "creationTimestamp": "2026-12-07T09:59:00Z",
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                              "uid": f"uid-{owner[1]}", "controller": True}]},
            "spec": spec, "status": status}


def disaggregated_set(name: str, roles: dict[str, int], *, revision: str = "abc12") -> tuple[Obj, list[Obj]]:
    """A DisaggregatedSet of these roles (role -> replicas) and the LWS its controller makes per role (one group
    of two Pods each)."""
    ds = {"apiVersion": DS_API, "kind": "DisaggregatedSet",
          "metadata": {"name": name, "namespace": NS, "uid": f"uid-ds-{name}"},
          "spec": {"roles": [{"name": r, "replicas": n, "leaderWorkerTemplate": {"size": 2}} for r, n in
                             roles.items()]}}
    out = []
    for role, n in roles.items():
        labels = {"disaggregatedset.x-k8s.io/name": name, "disaggregatedset.x-k8s.io/role": role,
                  "disaggregatedset.x-k8s.io/revision": revision, "app": f"{name}-{role}"}
        one = lws(f"{name}-{revision}-{role}", replicas=n, labels=labels)
        one["metadata"]["ownerReferences"] = [{"apiVersion": DS_API, "kind": "DisaggregatedSet", "name": name,
                                               "uid": ds["metadata"]["uid"], "controller": True}]
        out.append(one)
    return ds, out


def deployment(name: str, replicas: int, *, gpus: int = 1, role: str | None = None) -> Obj:
    labels = {"app": name, **({"llm-d.ai/role": role} if role else {})}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": NS, "uid": f"uid-deploy-{name}",
                         "labels": {"kueue.x-k8s.io/queue-name": LQ}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": _template(gpus, {**labels, "kueue.x-k8s.io/queue-name": LQ,
                                                  "kueue.x-k8s.io/managed": "true"})}}


def deployment_pod(owner: Obj, i: int, state: str, *, gpus: int = 1) -> list[Obj]:
    """One Pod of a Deployment (through its ReplicaSet) and its own Workload (`pod-<pod>-<hash>`)."""
    name = f"{owner['metadata']['name']}-7d9f6c5b-{'abcdefgh'[i]}x{i}"
    labels = dict(owner["spec"]["template"]["metadata"]["labels"])
    pod = _pod(name, labels, {}, gpus, admitted=state == "admitted",
               owner=("ReplicaSet", f"{owner['metadata']['name']}-7d9f6c5b"))
    uid = pod["metadata"]["uid"]
    wl_name = workload_name("Pod", "", name, uid)
    status: Obj = {"conditions": _conditions(state)}
    if state == "admitted":
        status["admission"] = _admission([("main", 1, gpus)])
    wl = {"apiVersion": KUEUE, "kind": "Workload",
          "metadata": {"name": wl_name, "namespace": NS, "uid": f"uid-{wl_name}",
                       "creationTimestamp": "2026-12-07T09:59:00Z",
                       "labels": {"kueue.x-k8s.io/job-uid": uid},
                       "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid,
                                            "controller": True}]},
          "spec": {"queueName": LQ, "active": True,
                   "podSets": [{"name": "main", "count": 1, "template": _template(gpus, labels)}]},
          "status": status}
    return [pod, wl]


def copied(objs: list[Obj]) -> list[Obj]:
    return copy.deepcopy(objs)


def groups() -> dict[str, list[str]]:
    """The API groups a cluster with the frameworks serves (the loopback server's defaults and theirs)."""
    from tests.apiserver import DEFAULT_GROUPS

    return {**copy.deepcopy(DEFAULT_GROUPS), "apps": ["v1"], "leaderworkerset.x-k8s.io": ["v1"],
            "disaggregatedset.x-k8s.io": ["v1"], "serving.kserve.io": ["v1alpha2"]}
