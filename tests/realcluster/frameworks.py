"""The PD frameworks on the real control plane (`scripts/real-cluster up --lws`, issue 47): builders for the
objects users deploy (LeaderWorkerSet, DisaggregatedSet, Deployment) in the shapes LWS's and Kueue's webhooks
accept, how Kueue links each to its Workloads, and a record of what Kueue did (Workloads, conditions, messages)
for the frameworks' diagnosis and its journeys to be held against.

How Kueue links them (read in Kueue v0.19.2's source, `pkg/controller/jobs/`):
- an LWS gets one Workload per group, labelled `kueue.x-k8s.io/job-uid=<LWS uid>`
  (`leaderworkerset/leaderworkerset_reconciler.go`), its Pods carry `kueue.x-k8s.io/pod-group-name` as an
  annotation on 0.18+ (`pod/pod_controller.go` `SetPodGroupName`, gate `WorkloadIdentifierAnnotations`);
- a DisaggregatedSet is one LWS per role (LWS v0.9.0 `pkg/controllers/disaggregatedset/lws_manager.go`: the
  role's metadata labels go onto its LWS), so one Workload per role per group;
- a Deployment's Pods are each their own Workload, `job-uid=<Pod uid>` (`deployment/`, `pod/`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.realcluster.plane import Plane, PlaneError, condition, wait_for

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
JOB_UID = "kueue.x-k8s.io/job-uid"
GROUP_NAME = "kueue.x-k8s.io/pod-group-name"
LWS_NAME = "leaderworkerset.sigs.k8s.io/name"
LWS_GROUP = "leaderworkerset.sigs.k8s.io/group-index"
DS_NAME = "disaggregatedset.x-k8s.io/name"
DS_ROLE = "disaggregatedset.x-k8s.io/role"
LWS_API = "leaderworkerset.x-k8s.io/v1"
DS_API = "disaggregatedset.x-k8s.io/v1"
IMAGE = "registry.invalid/pd/serve:1"  # kwok runs no container: never pulled


# ---------------------------------------------------------------------------------------------- builders

def _pod_spec(gpus: int, role: str | None = None) -> Obj:
    # only the card: a resource no ClusterQueue of the test covers would make the Workload inadmissible
    req = {GPU: str(gpus)} if gpus else {}
    return {"containers": [{"name": role or "serve", "image": IMAGE, "resources": {"requests": req, "limits": req}}]}


def _template(gpus: int, labels: dict[str, str] | None = None, role: str | None = None) -> Obj:
    meta: Obj = {"labels": dict(labels or {})}
    return {"metadata": meta, "spec": _pod_spec(gpus, role)}


def lws_spec(*, replicas: int = 1, size: int = 2, gpus: int = 1, leader_gpus: int | None = None,
             pod_labels: dict[str, str] | None = None) -> Obj:
    """An LWS's spec: REPLICAS groups of SIZE Pods (a leader and SIZE-1 workers), GPUS cards per worker Pod and
    LEADER_GPUS per leader (a leader template of its own only when it differs: else one pod set, `main`)."""
    lwt: Obj = {"size": size, "workerTemplate": _template(gpus, pod_labels)}
    if leader_gpus is not None and leader_gpus != gpus:
        lwt["leaderTemplate"] = _template(leader_gpus, pod_labels)
    return {"replicas": replicas, "leaderWorkerTemplate": lwt, "startupPolicy": "LeaderCreated"}


def lws(namespace: str, name: str, queue: str | None, *, replicas: int = 1, size: int = 2, gpus: int = 1,
        leader_gpus: int | None = None, labels: dict[str, str] | None = None,
        priority_class: str | None = None) -> Obj:
    """A LeaderWorkerSet with Kueue's queue label on its own metadata (where Kueue's webhook reads it and copies
    it to both templates). PRIORITY_CLASS: a WorkloadPriorityClass (label kueue.x-k8s.io/priority-class)."""
    meta_labels = dict(labels or {})
    if queue is not None:
        meta_labels[QUEUE_LABEL] = queue
    if priority_class is not None:
        meta_labels["kueue.x-k8s.io/priority-class"] = priority_class
    return {"apiVersion": LWS_API, "kind": "LeaderWorkerSet",
            "metadata": {"name": name, "namespace": namespace, "labels": meta_labels},
            "spec": lws_spec(replicas=replicas, size=size, gpus=gpus, leader_gpus=leader_gpus)}


@dataclass(frozen=True)
class Role:
    """One role of a DisaggregatedSet: REPLICAS groups of SIZE Pods, GPUS cards per Pod."""

    name: str
    replicas: int = 1
    size: int = 1
    gpus: int = 1
    leader_gpus: int | None = None


def disaggregated_set(namespace: str, name: str, queue: str | None, roles: list[Role], *,
                      queue_on_set: bool = False) -> Obj:
    """A DisaggregatedSet: the queue label on each role's metadata (the set's controller copies a role's labels
    to that role's LWS, where Kueue reads them); QUEUE_ON_SET puts it on the set's own metadata instead (where
    nothing carries it down: lint's error case)."""
    out_roles = []
    for r in roles:
        meta: Obj = {"labels": {QUEUE_LABEL: queue}} if queue is not None and not queue_on_set else {}
        out_roles.append({"name": r.name, "metadata": meta,
                          "spec": lws_spec(replicas=r.replicas, size=r.size, gpus=r.gpus,
                                           leader_gpus=r.leader_gpus, pod_labels={"llm-d.ai/role": r.name})})
    meta_labels = {QUEUE_LABEL: queue} if queue is not None and queue_on_set else {}
    return {"apiVersion": DS_API, "kind": "DisaggregatedSet",
            "metadata": {"name": name, "namespace": namespace, "labels": meta_labels},
            "spec": {"roles": out_roles}}


def deployment(namespace: str, name: str, queue: str | None, *, replicas: int = 1, gpus: int = 1,
               role: str | None = None) -> Obj:
    """A Deployment with the queue label on its metadata (Kueue's deployment integration: one Workload per
    Pod); ROLE: `llm-d.ai/role` on its Pods, as llm-d's Kueue guide labels prefill and decode."""
    pod_labels = {"app": name, **({"llm-d.ai/role": role} if role else {})}
    meta_labels = {QUEUE_LABEL: queue} if queue is not None else {}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, "labels": meta_labels},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": pod_labels}, "spec": _pod_spec(gpus, role)}}}


# ---------------------------------------------------------------------------------------------- reading

def uid(plane: Plane, kind: str, name: str, namespace: str, timeout: float = 30) -> str:
    """The UID of an object (waiting until it exists: a DisaggregatedSet's LWS appear a moment later)."""
    def probe() -> str:
        got = plane.kubectl("get", kind, name, "-n", namespace, "-o", "jsonpath={.metadata.uid}", check=False)
        return got.stdout.strip() if got.returncode == 0 else ""
    return str(wait_for(f"{kind} {namespace}/{name}", probe, timeout=timeout))


def items(plane: Plane, kind: str, namespace: str, selector: str = "") -> list[Obj]:
    args = ["get", kind, "-n", namespace, "-o", "json", *(["-l", selector] if selector else [])]
    return list(json.loads(plane.kubectl(*args).stdout)["items"])


def workloads_of(plane: Plane, namespace: str, owner_uid: str) -> list[Obj]:
    """The Workloads Kueue made for the owner whose UID is OWNER_UID (label kueue.x-k8s.io/job-uid), by name."""
    return sorted(items(plane, "workloads.kueue.x-k8s.io", namespace, f"{JOB_UID}={owner_uid}"),
                  key=lambda w: w["metadata"]["name"])


def wait_workloads(plane: Plane, namespace: str, owner_uid: str, n: int, timeout: float = 60) -> list[Obj]:
    """Wait until Kueue made exactly N Workloads for OWNER_UID; returns them."""
    return list(wait_for(f"{n} Workloads with {JOB_UID}={owner_uid}",
                         lambda: (ws := workloads_of(plane, namespace, owner_uid)) and len(ws) == n and ws,
                         timeout=timeout))


def lws_of_set(plane: Plane, namespace: str, ds: str) -> list[Obj]:
    """The LWS a DisaggregatedSet's controller made (label disaggregatedset.x-k8s.io/name), by role."""
    return sorted(items(plane, "leaderworkersets.leaderworkerset.x-k8s.io", namespace, f"{DS_NAME}={ds}"),
                  key=lambda x: x["metadata"]["labels"].get(DS_ROLE, ""))


def wait_lws_of_set(plane: Plane, namespace: str, ds: str, n: int, timeout: float = 60) -> list[Obj]:
    return list(wait_for(f"{n} LWS of DisaggregatedSet {ds}",
                         lambda: (xs := lws_of_set(plane, namespace, ds)) and len(xs) == n and xs, timeout=timeout))


def pods(plane: Plane, namespace: str, selector: str) -> list[Obj]:
    return sorted(items(plane, "pods", namespace, selector), key=lambda p: p["metadata"]["name"])


def wait_pods(plane: Plane, namespace: str, selector: str, n: int, timeout: float = 60) -> list[Obj]:
    """Wait until N Pods match SELECTOR (made by LWS's StatefulSets or a Deployment's ReplicaSet)."""
    return list(wait_for(f"{n} Pods with {selector}",
                         lambda: (ps := pods(plane, namespace, selector)) and len(ps) == n and ps, timeout=timeout))


def lws_line(plane: Plane) -> tuple[int, int]:
    """The LWS line the plane runs (its state's `lws`, e.g. (0, 9))."""
    major, minor = str(plane.state()["lws"]).lstrip("v").split(".")[:2]
    return int(major), int(minor)


def cleanup(plane: Plane, namespace: str) -> None:
    """Delete the frameworks' objects of NAMESPACE, not waiting: the garbage collector then removes their
    StatefulSets, ReplicaSets, Pods and Workloads, and the shared kwok nodes have room again."""
    plane.kubectl("delete", "disaggregatedsets.disaggregatedset.x-k8s.io,leaderworkersets.leaderworkerset.x-k8s.io,"
                  "deployments", "--all", "-n", namespace, "--wait=false", "--ignore-not-found", check=False)


def admitted(wl: Obj) -> bool:
    c = condition(wl, "Admitted")
    return c is not None and c.get("status") == "True"


def gated(pod: Obj) -> bool:
    return bool((pod.get("spec") or {}).get("schedulingGates"))


# ---------------------------------------------------------------------------------------------- the record

@dataclass
class WorkloadFact:
    """What Kueue wrote on one Workload: the facts a diagnosis is held against."""

    name: str
    owner: str  # "Kind/name" of its first ownerReference
    job_uid: str
    group_index: str | None  # kueue.x-k8s.io/component-workload-index (LWS groups)
    pod_sets: list[tuple[str, int]]
    admitted: bool
    quota_reserved: bool
    reason: str  # QuotaReserved's (or Admitted's) reason
    message: str  # QuotaReserved's message: Kueue's words on why it waits
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)  # pod set -> resource -> flavor

    @classmethod
    def of(cls, wl: Obj) -> WorkloadFact:
        meta = wl["metadata"]
        owners = meta.get("ownerReferences") or [{}]
        qr = condition(wl, "QuotaReserved") or {}
        adm = condition(wl, "Admitted") or {}
        assignments = ((wl.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []
        return cls(name=meta["name"], owner=f"{owners[0].get('kind', '')}/{owners[0].get('name', '')}",
                   job_uid=(meta.get("labels") or {}).get(JOB_UID, ""),
                   group_index=(meta.get("annotations") or {}).get("kueue.x-k8s.io/component-workload-index"),
                   pod_sets=[(p["name"], int(p.get("count", 0))) for p in wl["spec"].get("podSets", [])],
                   admitted=adm.get("status") == "True", quota_reserved=qr.get("status") == "True",
                   reason=str(qr.get("reason") or adm.get("reason") or ""), message=str(qr.get("message") or ""),
                   flavors={a["name"]: dict(a.get("flavors") or {}) for a in assignments})


def record(plane: Plane, namespace: str, owner_uids: list[str]) -> dict[str, list[WorkloadFact]]:
    """What Kueue did for each owner (UID -> its Workloads' facts): recorded by the journeys, asserted later."""
    return {u: [WorkloadFact.of(w) for w in workloads_of(plane, namespace, u)] for u in owner_uids}


def settle(plane: Plane, namespace: str, owner_uid: str, n: int, timeout: float = 60, quiet: float = 2.0) -> list[Obj]:
    """N Workloads of OWNER_UID, each tried by Kueue (QuotaReserved written, True or False), unchanged for QUIET
    seconds: a state to record."""
    def tried() -> list[Obj] | None:
        ws = workloads_of(plane, namespace, owner_uid)
        return ws if len(ws) == n and all(condition(w, "QuotaReserved") for w in ws) else None

    ws = wait_for(f"{n} Workloads of {owner_uid} tried by Kueue", tried, timeout=timeout)
    deadline = time.monotonic() + timeout
    key = [(w["metadata"]["name"], w["metadata"]["resourceVersion"]) for w in ws]
    while time.monotonic() < deadline:
        time.sleep(quiet)
        again = tried() or []
        now = [(w["metadata"]["name"], w["metadata"]["resourceVersion"]) for w in again]
        if now == key:
            return list(again)
        key = now
    raise PlaneError(f"the Workloads of {owner_uid} did not settle in {timeout:.0f} s")
