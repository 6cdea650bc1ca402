from kubectl_pd.kueue.normalize import normalize


def test_cluster_queue_v1beta1_becomes_v1beta2_shape() -> None:
    cq = {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "a"},
        "spec": {"cohort": "pool", "admissionChecks": ["gpustack-node-devices"],
                 "flavorFungibility": {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}},
    }
    out = normalize(cq)
    assert out["spec"]["cohortName"] == "pool" and "cohort" not in out["spec"]
    assert out["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": "gpustack-node-devices"}]}
    assert out["spec"]["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"}
    assert out["apiVersion"] == "kueue.x-k8s.io/v1beta1"  # the version read is kept
    assert cq["spec"]["cohort"] == "pool"  # the input is not modified


def test_local_queue_and_workload() -> None:
    lq = normalize({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "q"},
                    "status": {"flavorUsage": [{"name": "f", "resources": []}]}})
    assert lq["status"] == {"flavorsUsage": [{"name": "f", "resources": []}]}
    wl = normalize({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w"},
                    "spec": {"priorityClassName": "high",
                             "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass"},
                    "status": {"accumulatedPastExexcutionTimeSeconds": 5}})
    assert wl["spec"]["priorityClassRef"] == {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                              "name": "high"}
    assert wl["status"] == {"accumulatedPastExecutionTimeSeconds": 5}


def test_v1beta2_and_foreign_objects_are_untouched() -> None:
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "spec": {"cohortName": "x"}}
    assert normalize(cq) is cq
    pod = {"apiVersion": "v1", "kind": "Pod"}
    assert normalize(pod) is pod
    assert normalize({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "spec": None})["spec"] is None
