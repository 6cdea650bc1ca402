"""What the core returns instead of English: a sentence id and the values it names (pending/words.py, the
printer, writes the sentence). A module of its own, below everything that speaks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from kubectl_pd.records import dataclass, field

if TYPE_CHECKING:
    from fractions import Fraction

    from kubectl_pd.kueue.verdicts import Blocker

# Every sentence pending/words.py writes (tests/test_pending_sentences.py holds the two equal)
SentenceId = Literal[
    "check.failed", "check.pending", "check.rejected", "check.rejected-wl", "check.retry", "cq.inactive",
    "cq.missing", "cq.namespace-not-selected", "cq.stopped", "group.counts-differ", "group.fast-admission",
    "group.incomplete", "group.not-composable", "group.terminating", "group.not-composed", "group.queues-differ",
    "group.too-many-roles",
    "hint.wait", "invalid", "kueue.alone-says", "kueue.code", "kueue.hard-error", "kueue.needs", "kueue.not-placed",
    "kueue.over-capacity", "kueue.preempting", "kueue.unknown", "lq.missing", "lq.stopped", "next.activate-cq",
    "next.avoid-preemption", "next.check-kueue", "next.cover", "next.create-cq", "next.create-lq",
    "next.create-pods", "next.defragment", "next.delete-conflict", "next.describe", "next.describe-pod",
    "next.describe-workload", "next.fix-check", "next.free", "next.free-devices", "next.gate",
    "next.ignored-selector", "next.kueue-code", "next.lower-request", "next.match-flavor", "next.no-fast-admission",
    "next.one-count", "next.one-queue", "next.operator", "next.raise-nominal", "next.raise-nominal-of",
    "next.reactivate", "next.read-quota", "next.resume-cq", "next.resume-lq", "next.select-namespace", "next.split",
    "next.topology", "next.wait-check", "next.wait-pods-ready", "next.wait-preemption", "next.wait-terminating",
    "next.wait-requeue",
    "no-flavor.kueue", "no-flavor.ours", "not-covered", "note.groups-not-read", "note.kueue-differs",
    "note.lone-in-cohort", "note.no-visibility", "note.operator", "note.requeued", "note.run-unread",
    "note.unlisted", "note.unread", "ours.fits-now", "ours.not-evaluated", "over-capacity", "over-capacity.summary",
    "pods.gated", "pods.unschedulable", "preempted", "preempted.all-lost", "preempted.by-our-own",
    "preempted.holders", "queue.ahead-ask", "queue.blocks-once-composed", "queue.from-kueue", "queue.position",
    "quota-unknown.quota", "quota-unknown.request", "retry-loop", "role.no-group", "role.replica-groups",
    "short-of-quota", "short-of-quota.summary", "target.all-admitted", "target.nothing-found", "topology",
    "waiting-for-pods-ready", "waiting-in-queue", "wl.admitted", "wl.deactivated", "wl.evicted", "wl.finished",
    "wl.reserved-not-admitted",
    # GPUStack's v1 ModelDeployment status (pending/md_v1.py)
    "operator.reason", "operator.said", "next.operator-reason", "note.deployment",
    # GPUStack's operator conditions besides QuotaReserved (pending/operator.py)
    "operator.weights", "next.weights", "operator.no-replicas", "next.no-replicas", "note.operator-condition",
    # Kueue's words held against the state read: their age, a figure the read state contradicts (issue 46)
    "kueue.said-ago", "kueue.disagrees", "kueue.other-flavor", "wl.evicting", "next.finalizers",
    # a quota raise held against the flavor's Nodes (issue 46, finding 8)
    "nodes.too-small", "next.nodes-too-small",
    # a Cohort cycle above the queue (issue 46)
    "cq.cohort-cycle", "next.break-cycle",
    # a deployment of many Workloads, some admitted and some waiting (issue 47: pending/diagnose.py)
    "partly.admitted", "next.atomic",
    # a MultiKueue manager whose workers can never hold the group, decided from the workers as read (issue 46)
    "check.no-worker-fits",
]


@dataclass(frozen=True)
class Say:
    """Words for a printer to write, never written here: which sentence (an id of pending/words.py, the one
    place English is made) and the values it names."""

    id: str
    args: dict[str, Any] = field(default_factory=dict)


def say(id: SentenceId, **args: Any) -> Say:  # noqa: A002 - the sentence's id
    return Say(id, args)


# What a read was for, when it is not a plain GET or list of its kind (a printer says each its own way)
ReadPurpose = Literal["get", "list", "events", "pod-workload", "cohort-peers", "flavor-nodes", "ahead",
                      "pending-workloads", "raw"]


@dataclass(frozen=True)
class Read:
    """A read described without words, for the notes and errors that say it failed: the kind read, the
    object's name (for "flavor-nodes" the flavor's, for "pending-workloads" the ClusterQueue's, for "raw"
    the path), the namespace when it is part of what is said, and what the read was for."""

    kind: str
    name: str = ""
    namespace: str | None = None
    purpose: ReadPurpose = "get"


# The values a sentence names together, grouped where several sentences (or many values) share them


@dataclass(frozen=True)
class QuotaAsk:
    """What a role asks of the flavor that stops it ("short-of-quota", "over-capacity" and its summary): the
    engine's blocker (resource, flavor, request, what the roles before it took, the quota's numbers) and the
    role's Pods (`count`, `per_pod` of the resource each; None when the request is unread)."""

    best: Blocker
    count: int
    per_pod: Fraction | None


@dataclass(frozen=True)
class OnFlavor:
    """Where a role's unschedulable Pods were admitted ("pods.unschedulable"): the flavor (None: not known), the
    nodeSelector keys Kueue ignored because the flavor does not declare them, and, when the flavor's nodes were
    read, (nodes, nodes that carry what the pod selects, those of them that could hold one Pod, the Pods those could
    take)."""

    flavor: str | None
    ignored: dict[str, str]
    node_fit: tuple[int, int, int, int] | None


@dataclass(frozen=True)
class PartlyPreempted:
    """GPUStack's PreemptedInPart ("operator.reason", "next.operator-reason"): who still holds quota (role ->
    replicas), on which ClusterQueues, and the kinds that lost every replica."""

    held: dict[str, int] | None = None
    queues: list[str] | None = None
    lost_kinds: list[str] | None = None
