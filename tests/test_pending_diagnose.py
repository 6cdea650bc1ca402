"""Diagnosis variants beyond the one-fixture-per-code set: pure, over snapshots built in memory."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.pending.diagnose import Diagnosis, diagnose
from kubectl_pd.pending.gather import gather
from kubectl_pd.pending.target import Target
from kubectl_pd.pending.words import message as say
from kubectl_pd.pending.words import story
from tests.apiserver import load_objects
from tests.builders import CARD

FIX = Path(__file__).parent / "fixtures" / "pending"
CQ = "gpustack--nvidia-h20-linux-amd64"
CRED = "credits.gpustack.ai/nvidia"


def objs(name: str) -> list[dict[str, Any]]:
    return copy.deepcopy(load_objects(FIX / f"{name}.yaml"))


def run(items: list[dict[str, Any]], target: str = "qwen-pd", kind: str = "ModelDeployment") -> Diagnosis:
    facts = gather(SnapshotSource.from_objects(items), Target(kind, target, "team-a"))
    return diagnose(facts, now=datetime(2026, 11, 29, 9, 20, tzinfo=UTC))


def of(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in items if o["kind"] == kind]


def test_fast_admission_is_invalid() -> None:
    items = objs("quota-exhausted")
    for p in of(items, "Pod"):
        p["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-fast-admission"] = "true"
    d = run(items)
    assert d.code == "PodGroupInvalid" and d.reasons[0].params == {}  # no numbers: the message is the finding
    assert say(d.reasons[0]) == (
        "group qwen-pd sets kueue.x-k8s.io/pod-group-fast-admission: Kueue composes one pod set from the first pod "
        "with the whole total count, collapsing the roles (prefill, decode) into one")


def test_fast_admission_on_a_group_of_one_role_is_no_finding() -> None:
    """Kueue's StatefulSet integration writes pod-group-fast-admission on its own Pods (one role): nothing is
    collapsed, so no PodGroupInvalid (found by the frameworks' plane: a StatefulSet short of quota)."""
    items = [o for o in objs("quota-exhausted") if not (o["kind"] == "Pod" and "prefill" in o["metadata"]["name"])]
    for p in of(items, "Pod"):
        p["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] = "2"
        p["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-fast-admission"] = "true"
    for w in of(items, "Workload"):
        w["spec"]["podSets"] = [ps for ps in w["spec"]["podSets"] if ps["name"] == "decode"]
    d = run(items, "qwen-pd", "PodGroup")
    assert [r.code for r in d.reasons] == ["QuotaExhausted"]


def test_total_count_disagreement_and_kueues_event() -> None:
    items = [o for o in objs("pod-group-invalid") if o["kind"] != "Event"]
    pods = of(items, "Pod")
    pods[0]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = pods[1]["metadata"]["labels"][
        "kueue.x-k8s.io/queue-name"] = pods[2]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
    pods[1]["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] = "4"
    d = run(items)
    assert d.code == "PodGroupInvalid"
    assert say(d.reasons[0]) == ("pods of group qwen-pd disagree on kueue.x-k8s.io/pod-group-total-count (3, 4): "
                                    "Kueue refuses to compose the group")


def test_more_than_ten_roles() -> None:
    items = objs("workload-missing")
    template = of(items, "Pod")[0]
    pods = []
    for i in range(11):
        p = copy.deepcopy(template)
        p["metadata"]["name"] = f"qwen-pd-r{i}-0"
        p["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"] = f"r{i}"
        p["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] = "11"
        p["metadata"]["labels"]["app.kubernetes.io/component"] = f"r{i}"
        pods.append(p)
    items = [o for o in items if o["kind"] != "Pod"] + pods
    d = run(items)
    assert d.code == "PodGroupInvalid"
    assert say(d.reasons[0]) == ("group qwen-pd has 11 roles: more than Kueue composes into one Workload "
                                    "(Kueue 0.18 allows 10 roles per group; 0.19 allows 18)")


def test_workload_name_conflict_event() -> None:
    items = objs("workload-missing")
    items.append({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "team-a"},
                  "involvedObject": {"kind": "Pod", "name": "qwen-pd-prefill-0", "namespace": "team-a"},
                  "reason": "WorkloadNameConflict", "type": "Warning",
                  "message": 'A Workload named "qwen-pd" already exists but is not a pod group workload; this pod '
                             "group cannot be admitted"})
    d = run(items)
    hint = d.reasons[0].hint
    assert d.code == "PodGroupInvalid" and hint is not None
    assert (hint.id, hint.args) == ("next.delete-conflict", {"g": "qwen-pd"})


def test_inactive_admission_check_is_named_with_its_message() -> None:
    items = [o for o in objs("cluster-queue-inactive") if o["kind"] != "AdmissionCheck"]
    cq = of(items, "ClusterQueue")[0]
    cq["status"]["conditions"] = [{"type": "Active", "status": "False", "reason": "AdmissionCheckInactive",
                                   "message": "Can't admit new workloads: references inactive AdmissionCheck(s): "
                                              "gpustack-node-devices."}]
    items.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck",
                  "metadata": {"name": "gpustack-node-devices"}, "spec": {"controllerName": "x"},
                  "status": {"conditions": [{"type": "Active", "status": "False", "reason": "Inactive",
                                             "message": "the worker is not running"}]}})
    items.append(next(o for o in objs("quota-exhausted") if o["kind"] == "ResourceFlavor"))
    d = run(items)
    assert d.code == "ClusterQueueInactive" and d.reasons[0].params == {"queue": CQ}
    assert say(d.reasons[0]) == (f"ClusterQueue {CQ} is inactive: AdmissionCheck(s) gpustack-node-devices are "
                                    "inactive (gpustack-node-devices: the worker is not running)")


def test_untouched_workload_blocked_by_our_arithmetic() -> None:
    items = objs("quota-exhausted")
    for wl in of(items, "Workload"):
        wl["status"] = {}
    items = [o for o in items if o["kind"] != "Event"]
    d = run(items)
    r = d.reasons[0]
    assert (d.code, r.role, r.kueue_message) == ("QuotaExhausted", "decode", None)  # our arithmetic alone
    assert (r.requested, r.available, r.needed) == (8 * CARD, 6 * CARD, 2 * CARD)  # 2 pods x 4 cards; 6 free
    assert r.params == {"outcome": "no-preemption-candidates", "previous": 0, "capacity": 16 * CARD,
                        "nominal": 16 * CARD, "jointNeeded": 4 * CARD, "kueueNeeded": 2 * CARD}
    assert story(d) == ("prefill would fit alone; decode needs 2 more cards; together they need 4 more cards in flavor "
                       f"{r.flavor}; atomic admission holds both")


def test_019_tokens_with_kueue_text() -> None:
    items = objs("quota-exceeds-capacity")
    wl = of(items, "Workload")[0]
    wl["status"]["conditions"][0]["reason"] = "ExceedsMaxQuota"
    assert run(items).code == "QuotaExceedsCapacity"
    wl["status"]["conditions"][0]["message"] = "something 0.20 might say"
    d = run(items)
    assert d.code == "QuotaExceedsCapacity" and d.reasons[0].kueue_message == "something 0.20 might say"
    wl["status"]["conditions"][0]["reason"] = "PendingEvaluation"
    wl["status"]["conditions"][0]["message"] = "Workload is pending evaluation in the scheduling queue"
    assert run(items).code == "WaitingInQueue"


def test_preempted_eviction_says_why() -> None:
    items = objs("evicted")
    wl = of(items, "Workload")[0]
    msg = ("Preempted to accommodate a workload (UID: 1f, JobUID: 2a) due to prioritization in the ClusterQueue; "
           "preemptor path: /gpustack--nvidia-h20-linux-amd64; preemptee path: /gpustack--nvidia-h20-linux-amd64")
    wl["status"]["conditions"] = [{"type": "Evicted", "status": "True", "reason": "Preempted", "message": msg}]
    wl["status"]["requeueState"] = {"count": 1, "requeueAt": "2026-11-29T09:30:00Z"}
    d = run(items)
    assert d.code == "Preempted" and d.reasons[0].params["rule"] == "InClusterQueue"
    assert d.reasons[0].params["preemptorUID"] == "1f"
    assert d.reasons[1].code == "Evicted"  # the back-off follows
    assert say(d.reasons[1]) == ("Workload qwen-pd was evicted (Preempted) (preempted for prioritization in the "
                                    "ClusterQueue), 1 time; requeued at 2026-11-29T09:30:00Z (in 10m)")


def test_deployment_without_pods_reads_the_instance_type() -> None:
    items = [o for o in objs("quota-exhausted") if o["kind"] not in ("Pod", "Workload", "Event", "LocalQueue")]
    items.append({"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "InstanceType", "metadata": {"name": CQ},
                  "spec": {"acceleratable": True}, "status": {"entrance": "gpustack-fnv64-5582b5d69c84a5c3"}})
    d = run(items)
    codes = [r.code for r in d.reasons]
    assert codes[0] == "LocalQueueMissing"
    assert "PodGroupIncomplete" in codes
    assert d.local_queue == "gpustack-fnv64-5582b5d69c84a5c3"


def test_admitted_group_target_and_pod_target() -> None:
    d = run(objs("not-pending"), "qwen-pd", "PodGroup")
    assert not d.pending and d.code == "NotPending"
    d = run(objs("quota-exhausted"), "qwen-pd-decode-1", "Pod")
    assert d.pending and d.code == "QuotaExhausted"


def test_per_replica_group_target_counts_its_own_pods() -> None:
    from kubectl_pd.gpustack.names import hashed

    d = run(objs("per-replica-joint"), hashed("team-a/qwen-pd/decode/0"), "PodGroup")
    assert [(r.name, r.have, r.want) for r in d.roles] == [("decode", 1, 1)]
    assert d.shape == "per-replica"


def test_per_replica_missing_replica_group_is_assembling() -> None:
    from kubectl_pd.gpustack.names import hashed

    gone = hashed("team-a/qwen-pd/decode/1")
    items = [o for o in objs("per-replica-joint")
             if o["metadata"].get("name") != gone
             and o["metadata"].get("labels", {}).get("kueue.x-k8s.io/pod-group-name") != gone]
    md = of(items, "ModelDeployment")[0]
    md["status"]["conditions"] = [{"type": "QuotaReserved", "status": "False", "reason": "PodGroupIncomplete",
                                   "message": "1 of 2 decode replicas exist; waiting in cluster queue " + CQ}]
    d = run(items)
    assert (d.code, [(r.name, r.have, r.want) for r in d.roles if r.name == "decode"]) == (
        "PodGroupIncomplete", [("decode", 1, 2)])
    assert say(d.reasons[0]) == ("role decode has 1 of 2 replica groups: the joint admission check waits for every "
                                    "replica (assembling)")
    assert any(n.id == "note.operator" and (n.args["status"], n.args["reason"]) == ("False", "PodGroupIncomplete")
               for n in d.notes)


def test_019_misconfigured_and_suspended_tokens_read_the_message() -> None:
    items = objs("local-queue-missing")
    for wl in of(items, "Workload"):
        wl["status"]["conditions"][0]["reason"] = "Misconfigured"
    assert run(items).code == "LocalQueueMissing"
    items = objs("local-queue-stopped")
    wl = of(items, "Workload")[0]
    wl["status"]["conditions"][0]["reason"] = "Suspended"
    assert run(items).code == "LocalQueueStopped"


AT_STOPPED = "2026-11-29T09:12:35Z"  # the fixture's QuotaReserved=False: when Kueue wrote its words (issue 46)


def test_forbidden_queue_falls_back_to_kueues_words() -> None:
    items = [o for o in objs("cluster-queue-stopped") if o["kind"] != "ClusterQueue"]
    facts = gather(SnapshotSource.from_objects(items), Target("ModelDeployment", "qwen-pd", "team-a"))
    del facts.cluster_queues[CQ]  # as if RBAC had refused the read
    d = diagnose(facts)
    assert d.code == "ClusterQueueInactive" and d.reasons[0].params == {"queue": CQ, "kueueSaidAt": AT_STOPPED}
    assert say(d.reasons[0]).startswith(f"ClusterQueue {CQ} is inactive (Kueue's words; the queue itself was not read)")


def test_listing_gives_one_row_per_object_even_when_a_snapshot_repeats_it(tmp_path) -> None:
    from pathlib import Path

    from tests.conftest import run_cli

    example = Path(__file__).parent.parent / "examples" / "qwen-pd-pending.yaml"
    r = run_cli(["why-pending", "-A", "--from-file", str(example), "--from-file", str(example)])
    assert r.exit_code == 0
    rows = [line for line in r.stdout.splitlines()[1:] if line.strip()]
    assert len(rows) == 1 and rows[0].split()[:4] == ["team-a", "md/qwen-pd", "decode", "QuotaExhausted"]


def test_a_name_absent_from_the_snapshot_says_so(tmp_path) -> None:
    from pathlib import Path

    from tests.conftest import run_cli

    example = str(Path(__file__).parent.parent / "examples" / "qwen-pd-pending.yaml")
    r = run_cli(["why-pending", "llama-pd", "--from-file", example], env={"KUBECONFIG": str(tmp_path / "none")})
    assert r.exit_code == 1
    assert r.stderr == (f'error: "llama-pd" not found in any namespace of the snapshot ({example}) (no '
                        f'modeldeployment, no pod group, no workload, no leaderworkerset, no disaggregatedset, no '
                        f'deployment, no statefulset, no llminferenceservice of that name); name the form to be sure: '
                        f'md/llama-pd, podgroup/llama-pd, workload/llama-pd or pod/NAME\n')


def test_a_pod_set_without_template_is_measured_by_its_pods() -> None:
    from kubectl_pd.pending.diagnose import diagnose
    from tests.test_pending_property import _facts

    objs = load_objects(FIX / "quota-exhausted.yaml")
    for o in objs:
        if o["kind"] == "Workload":
            for ps in o["spec"]["podSets"]:
                ps.pop("template", None)
            o.get("status", {}).pop("resourceRequests", None)
    rows = {r.name: r for r in diagnose(_facts(objs)).roles}
    assert rows["decode"].flavor and rows["decode"].requests
