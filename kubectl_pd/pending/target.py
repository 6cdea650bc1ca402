"""What why-pending, tree and snapshot are asked about: the TARGET as typed, and the error that says its diagnosis
would rest on reads that failed. A module of its own, light (no model, no reads), so that a run parses its TARGET
and sends its first reads before the diagnosis code loads (pending/run.py)."""

from __future__ import annotations

from kubectl_pd.cluster import kinds
from kubectl_pd.errors import ClusterError
from kubectl_pd.pending.say import Read
from kubectl_pd.records import dataclass

TARGET_KINDS = {
    "md": "ModelDeployment", "modeldeployment": "ModelDeployment", "modeldeployments": "ModelDeployment",
    "wl": "Workload", "workload": "Workload", "workloads": "Workload",
    "pod": "Pod", "pods": "Pod", "po": "Pod",
    "podgroup": "PodGroup", "podgroups": "PodGroup", "pg": "PodGroup",
    # what the PD frameworks make (issue 47): Kueue admits each by its own Workloads (pending/owners.py)
    "lws": "LeaderWorkerSet", "leaderworkerset": "LeaderWorkerSet", "leaderworkersets": "LeaderWorkerSet",
    "ds": "DisaggregatedSet", "disaggregatedset": "DisaggregatedSet", "disaggregatedsets": "DisaggregatedSet",
    "deploy": "Deployment", "deployment": "Deployment", "deployments": "Deployment",
    "sts": "StatefulSet", "statefulset": "StatefulSet", "statefulsets": "StatefulSet",
    "llmisvc": "LLMInferenceService", "llminferenceservice": "LLMInferenceService",
    "llminferenceservices": "LLMInferenceService",
}
OWNER_KINDS = ("LeaderWorkerSet", "DisaggregatedSet", "Deployment", "StatefulSet", "LLMInferenceService")


@dataclass(frozen=True)
class Target:
    kind: str  # ModelDeployment | Workload | PodGroup | Pod | one of OWNER_KINDS
    name: str
    namespace: str


def parse_target(text: str) -> tuple[str, str]:
    """`NAME`, `md/NAME`, `workload/NAME`, `pod/NAME`, `podgroup/NAME`, `lws/NAME`, `ds/NAME`, `deploy/NAME`,
    `sts/NAME`, `llmisvc/NAME` (and their long names) -> (kind, name)."""
    if "/" not in text:
        return "ModelDeployment", text
    head, _, name = text.partition("/")
    kind = TARGET_KINDS.get(head.lower())
    if kind is None:
        k = kinds.lookup(head)
        kind = k.kind if k is not None and k.kind in ("ModelDeployment", "Workload", "Pod", *OWNER_KINDS) else None
    if kind is None or not name:
        raise ValueError(f"unknown target {text!r}: use NAME, md/NAME, workload/NAME, pod/NAME, podgroup/NAME, "
                         "lws/NAME, ds/NAME, deploy/NAME, sts/NAME or llmisvc/NAME")
    return kind, name


@dataclass(frozen=True)
class Unread:
    """A read the verdict depends on that failed: which read and why (the error's own line)."""

    read: Read
    why: str


class IncompleteError(ClusterError):
    """The diagnosis would rest on reads that failed: say so instead of a verdict. The reads stay typed
    (`target`, `unread`); the message is the printer's (pending/words.incomplete_error gives the error
    with it, where why-pending hands an error to the user); raised here, it has none."""

    def __init__(self, target: Target, unread: list[Unread], message: str = "") -> None:
        super().__init__(message)
        self.target = target
        self.unread = unread
