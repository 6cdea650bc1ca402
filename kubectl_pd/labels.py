"""The labels Kueue's pod integration and GPUStack's operator put on Pods, named once: what the reads select by
and what `create` writes (no import: the first reads of a run use them before anything else loads)."""

GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
INSTANCE_LABEL = "app.kubernetes.io/instance"
APP_NAME_LABEL = "app.kubernetes.io/name"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
MANAGED_LABEL = "kueue.x-k8s.io/managed"  # "true" on every Pod Kueue manages (pkg/constants/constants.go@v0.19.2)
# what Kueue writes on the Workloads it builds for a framework (pkg/controller/constants/constants.go@v0.19.2)
JOB_OWNER_GVK = "kueue.x-k8s.io/job-owner-gvk"
JOB_OWNER_NAME = "kueue.x-k8s.io/job-owner-name"
COMPONENT_INDEX = "kueue.x-k8s.io/component-workload-index"
# LeaderWorkerSet's and DisaggregatedSet's own labels (sigs.k8s.io/lws api/*/v1@v0.9.0)
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
LWS_GROUP_INDEX = "leaderworkerset.sigs.k8s.io/group-index"
DS_NAME_LABEL = "disaggregatedset.x-k8s.io/name"
DS_ROLE_LABEL = "disaggregatedset.x-k8s.io/role"
LLMD_ROLE_LABEL = "llm-d.ai/role"
