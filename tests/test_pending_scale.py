"""why-pending with no TARGET scales with the cluster, not with Workloads x requests (issues 22 and 24).

Every per-namespace and per-queue read of a run is made once and shared by all of its diagnoses; a read
that fails (403, 404) is remembered for the run exactly like one that succeeded, and the run says once
what it could not read. Requests are counted on the loopback API server's request log.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

from kubectl_pd.cluster.source import name_of
from tests.apiserver import CLUSTER_WIDE, Forbid, unrelated_workloads

FORBIDDEN = [Forbid("list", "limitranges"), Forbid("list", "events")]


def _pending(n: int) -> list[dict[str, Any]]:
    return unrelated_workloads(n, queue="other", message="ClusterQueue other is inactive")


def _run(cli: Any, apiserver: Any, n: int, *args: str) -> tuple[Any, Counter[str]]:
    server, env = apiserver("pending/per-replica-joint.yaml", _pending(n), forbid=list(FORBIDDEN))
    r = cli(["why-pending", "-A", *args], env=env)
    assert r.exit_code == 0, r.stderr
    return r, Counter(q.path for q in server.requests if "continue" not in q.query)  # pages of 500 aside


def test_requests_do_not_grow_with_pending_workloads_when_reads_are_forbidden(cli: Any, apiserver: Any) -> None:
    small, few = _run(cli, apiserver, 10)
    large, many = _run(cli, apiserver, 1000)
    assert few == many  # the same requests, path for path, for 10 and for 1,000 pending Workloads (first pages)
    assert max(many.values()) <= 3  # each read once (Pods: three label selectors, one the Pods Kueue manages)
    assert many["/api/v1/namespaces/team-a/limitranges"] == 1
    assert many["/api/v1/namespaces/team-a/events"] == 1
    rows = [line.split() for line in large.stdout.splitlines()[1:] if not line.startswith("note:")]
    assert sum(row[1].startswith("wl/batch-") for row in rows) == 1000
    assert not any(line.startswith("note:") for line in large.stdout.splitlines())  # notes are stderr's (issue 37)
    notes = [line for line in large.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 2  # said once for the run, not once per Workload
    assert any('limitranges in namespace "team-a"' in n for n in notes)
    assert any('events in namespace "team-a"' in n for n in notes)


def test_json_names_each_unread_once_and_every_item_keeps_its_own_note(cli: Any, apiserver: Any) -> None:
    r, _ = _run(cli, apiserver, 5, "-o", "json")
    data = json.loads(r.stdout)
    assert len(data["items"]) == 6
    run_notes = [n for n in data["notes"] if "limitranges" in n]
    assert len(run_notes) == 1
    assert all(any("limitranges" in n for n in item["notes"]) for item in data["items"]
               if item["target"]["kind"] == "Workload")


def test_the_memo_lasts_one_run(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/per-replica-joint.yaml", _pending(3), forbid=list(FORBIDDEN))
    for expected in (1, 2):
        assert cli(["why-pending", "-A"], env=env).exit_code == 0
        assert sum(q.path.endswith("/limitranges") for q in server.requests) == expected


def test_events_are_listed_once_per_namespace_and_still_explain(cli: Any, apiserver: Any) -> None:
    """Allowed, the namespace's events are one list, filtered here: the deployment keeps its diagnosis."""
    server, env = apiserver("pending/per-replica-joint.yaml", _pending(50))
    single = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    r = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    assert sum(q.path == "/api/v1/namespaces/team-a/events" and "fieldSelector" not in q.query
               for q in server.requests) == 1
    item = next(i for i in json.loads(r.stdout)["items"] if i["target"]["kind"] == "ModelDeployment")
    assert item["reasons"] == json.loads(single.stdout)["reasons"]


def _two_namespaces(apiserver: Any, forbid: list[Forbid]) -> tuple[Any, dict[str, str]]:
    return apiserver("pending/per-replica-joint.yaml",
                     _pending(20) + unrelated_workloads(20, namespace="team-b", queue="other",
                                                        message="ClusterQueue other is inactive"),
                     forbid=forbid)


def _paths(server: Any) -> Counter[str]:
    return Counter(q.path for q in server.requests)


def test_two_namespaces_read_their_local_queues_and_limit_ranges_in_one_list_each(cli: Any, apiserver: Any) -> None:
    server, env = _two_namespaces(apiserver, [])
    r = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    seen = _paths(server)
    assert seen["/apis/kueue.x-k8s.io/v1beta2/localqueues"] == 1
    assert seen["/api/v1/limitranges"] == 1
    assert not [p for p in seen if "/namespaces/" in p and ("/localqueues" in p or p.endswith("/limitranges"))]
    assert seen["/api/v1/namespaces/team-a/events"] == seen["/api/v1/namespaces/team-b/events"] == 1
    assert len(json.loads(r.stdout)["items"]) == 41


def test_a_refused_cluster_wide_list_falls_back_to_each_namespace_with_the_same_answer(cli: Any,
                                                                                        apiserver: Any) -> None:
    server, env = _two_namespaces(apiserver, [])
    wide = cli(["why-pending", "-A", "-o", "json"], env=env)
    refused = [Forbid("list", "localqueues", CLUSTER_WIDE), Forbid("list", "limitranges", CLUSTER_WIDE)]
    server, env = _two_namespaces(apiserver, refused)
    narrow = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert narrow.exit_code == 0, narrow.stderr
    seen = _paths(server)
    assert seen["/api/v1/namespaces/team-a/limitranges"] == seen["/api/v1/namespaces/team-b/limitranges"] == 1
    assert seen["/apis/kueue.x-k8s.io/v1beta2/namespaces/team-b/localqueues/other"] == 1
    assert json.loads(narrow.stdout) == json.loads(wide.stdout)  # and no note of the refusal: nothing is unread


def test_listed_objects_are_held_without_managed_fields_or_the_last_applied_copy(apiserver: Any) -> None:
    """From a live cluster, what a run holds of each listed object leaves out what it never reads and what
    is often most of its size; a snapshot's objects are kept whole."""
    from kubectl_pd.cluster.config import ClusterOptions
    from kubectl_pd.cluster.live import LiveSource
    from kubectl_pd.cluster.slim import LAST_APPLIED
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.pending.gather import gather_all

    fat = _pending(3) + unrelated_workloads(3, namespace="team-b", queue="other")
    for obj in fat:
        obj["metadata"]["managedFields"] = [{"manager": "kueue", "operation": "Update", "fieldsV1": {"f:status": {}}}]
        obj["metadata"]["annotations"][LAST_APPLIED] = '{"kind": "Workload"}'
    _server, env = apiserver("pending/per-replica-joint.yaml", copy.deepcopy(fat))
    live, _notes = gather_all(LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"])), None)
    held = [raw for f in live for wl in f.workloads.values()
            if wl is not None and name_of(raw := _raw_of(f, wl)).startswith("batch-")]
    assert len(held) == 6
    assert all("managedFields" not in wl["metadata"] and LAST_APPLIED not in wl["metadata"]["annotations"]
               for wl in held)
    snap, _notes = gather_all(SnapshotSource.from_objects(copy.deepcopy(fat)), None)
    kept = [_raw_of(f, wl) for f in snap for wl in f.workloads.values() if wl is not None]
    assert kept and all("managedFields" in wl["metadata"] for wl in kept)


def _listed_queue(n: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`n` pending Workloads in one full ClusterQueue, all listed by the visibility API in queue order."""
    api = "kueue.x-k8s.io/v1beta2"
    quota = [{"name": "default", "resources": [{"name": "cpu", "total": "10", "borrowed": "0"}]}]
    objs: list[dict[str, Any]] = [
        {"apiVersion": api, "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}},
        {"apiVersion": api, "kind": "ClusterQueue", "metadata": {"name": "full"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
             {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "10"}]}]}]},
         "status": {"flavorsReservation": quota, "flavorsUsage": quota, "pendingWorkloads": n}},
        {"apiVersion": api, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": "team-a"},
         "spec": {"clusterQueue": "full"}}]
    objs += unrelated_workloads(n, queue="main", message="couldn't assign flavors to pod set main: insufficient "
                                                          "unused quota for cpu in flavor default, 1 more needed")
    items = [{"metadata": {"name": f"batch-{i:05d}", "namespace": "team-a"}, "priority": 0, "localQueueName": "main",
              "positionInClusterQueue": i, "positionInLocalQueue": i} for i in range(n)]
    path = "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/full/pendingworkloads"
    return objs, {path: {"kind": "PendingWorkloadsSummary", "items": items}}


def test_each_diagnosis_lists_the_queue_head_before_it_not_the_whole_queue(cli: Any, apiserver: Any) -> None:
    """With the visibility API listing the queue, `queue.ahead` holds the first 5 Workloads before each one,
    read (how many are ahead is its position - 1): a queue of a thousand does not print half a million
    entries."""
    objs, raw = _listed_queue(40)
    _server, env = apiserver(objs, raw=raw)
    r = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    for item in json.loads(r.stdout)["items"]:
        queue = item["queue"]
        assert queue["visibility"] == "listed"
        assert [a["position"] for a in queue["ahead"]] == list(range(1, min(queue["position"] - 1, 5) + 1))
        assert all(a["requests"] is not None for a in queue["ahead"])
    last = cli(["why-pending", "wl/batch-00039", "-n", "team-a", "-o", "json"], env=env)
    queue = json.loads(last.stdout)["queue"]
    assert (queue["position"], len(queue["ahead"])) == (40, 5)
    waiting = [x for x in json.loads(last.stdout)["reasons"] if x["code"] == "WaitingInQueue"]
    assert all("aheadRequests" not in x["params"] for x in waiting)  # 39 ahead, 5 read: no sum is claimed


def _raw_of(facts: Any, record: Any) -> Any:
    """The object the Source returned that the run parsed into `record` (the run's memo keeps it)."""
    return next(obj for obj, rec in facts.run.memo.values() if rec is record)
