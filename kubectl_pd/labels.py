"""The labels Kueue's pod integration and GPUStack's operator put on Pods, named once: what the reads select by
and what `create` writes (no import: the first reads of a run use them before anything else loads)."""

GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
INSTANCE_LABEL = "app.kubernetes.io/instance"
APP_NAME_LABEL = "app.kubernetes.io/name"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
