"""The first round of one target's reads, as data (issue 49: where the cluster is far, what a user waits for is
the number of dependent rounds of requests, not their count).

A read is its key, the call it stands for: `("get", kind, name, namespace)`, `("list", kind, namespace,
label_selector, field_selector)`, `("raw", path)`. The first round is everything one target's diagnosis may need
that depends on no answer: the TARGET's own objects (for a bare NAME, every form it may name) and the small,
bounded sets a diagnosis reads by name from what the first answers say (the namespace's LocalQueues and
LimitRanges, the ClusterQueues and ResourceFlavors). The head
start (pending/lookahead.py) sends it before the diagnosis code loads; gather (pending/gather.py) reads the
target's objects by the same keys, and its reads by name of a kind in a set are answered from that set
(lookahead.Lookahead). What only the first answers name (the Workload's Events, the visibility API's listing,
the preemption view's admitted Workloads, a deployment its Pods name, Nodes for a flavor) is gather's second
round (with the Cohorts, AdmissionChecks and Kueue's configuration when it needs them). The Workloads ahead of ours,
which only the listing names, are read in that second round too when they can be: beside the listing goes one
page of the namespace's Workloads (`ahead_within`), when the ClusterQueue says it holds few pending ones; the
Workloads ahead that page holds are answered from it, and only the others (another namespace's, or a namespace
past one page) are read by name after the listing, a third round.

Pure: no I/O, nothing imported past the labels; `call` turns a key into the Source call it names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_pd.labels import GROUP_LABEL, INSTANCE_LABEL

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source

Key = tuple[Any, ...]

MOST = 100  # a set is read in the first round only when one page of this many holds all of it (else: by name)
# in the order sent; the first round fits in one wave of cluster/prefetch.PARALLEL reads (a bare NAME's 4 + these 4),
# so no read of it starts after another's answer. The Cohorts, AdmissionChecks and Kueue's configuration are read
# when a diagnosis needs them (a queue in a cohort, an inactive queue, a preemption answer): in the second round,
# beside the Events, which is as early as they are used
SETS = ("LocalQueue", "ClusterQueue", "ResourceFlavor", "LimitRange")
NAMESPACED = ("LocalQueue", "LimitRange")


def ahead_within(pending: int | None) -> bool:
    """Whether the second round reads one page of the target's namespace's Workloads beside the visibility listing
    (the Workloads ahead of ours are then answered from it, not read by name after the listing): when the
    ClusterQueue's status counts a few pending Workloads besides ours (2 to MOST). A queue longer than a page,
    or one that does not say, keeps the reads by name: a page of Workloads costs more than a round trip."""
    return pending is not None and 2 <= pending <= MOST


def get(kind: str, name: str, namespace: str | None) -> Key:
    return ("get", kind, name, namespace)


def listed(kind: str, namespace: str | None = None, label_selector: str | None = None,
           field_selector: str | None = None) -> Key:
    return ("list", kind, namespace, label_selector, field_selector)


def raw(path: str) -> Key:
    return ("raw", path)


def target_reads(kind: str, name: str, namespace: str) -> list[Key]:
    """The reads a target of `kind` begins with: the object, and the Pods beside it (a Pod: itself alone)."""
    if kind == "ModelDeployment":
        return [get("ModelDeployment", name, namespace), listed("Pod", namespace, f"{INSTANCE_LABEL}={name}")]
    if kind in ("PodGroup", "Workload"):
        return [get("Workload", name, namespace), listed("Pod", namespace, f"{GROUP_LABEL}={name}")]
    if kind == "Pod":
        return [get("Pod", name, namespace)]
    return []


def pages(source: Source) -> bool:
    """Whether `source` reads a set in one page itself (a live cluster's LiveSource); not a Source that forwards
    what it does not know (snapshot/out.Recorder, which records what it reads, would not see it)."""
    return hasattr(type(source), "list_within")


def set_reads(namespace: str | None) -> list[Key]:
    """The bounded sets: each one list (one page of MOST)."""
    return [listed(k, namespace if k in NAMESPACED else None) for k in SETS]


def first_round(kinds: tuple[str, ...], name: str, namespace: str, more: list[Key] | None = None) -> list[Key]:
    """The first round of a target that may be any of `kinds` (a bare NAME: each form it may name, in order;
    else its one kind): the target's reads of each, then MORE (MultiKueue's, multikueue_reads), then the bounded
    sets. No key twice. In this order they take one server's connections (cluster/pool.py: 8 at once): what a
    bare NAME's round cannot hold at once is its last sets, which nothing reads before the second round."""
    keys = [k for kind in kinds for k in target_reads(kind, name, namespace)] + (more or []) + set_reads(namespace)
    return list(dict.fromkeys(keys))


def multikueue_reads() -> list[Key]:
    """What selects a MultiKueue manager's workers (issue 49, item 3): every AdmissionCheck and MultiKueueConfig
    (cluster-scoped, few). Sent in the first round when the user asked for workers to be read (--worker-context,
    --worker-contexts-by-name), before the bounded sets (first_round), so the workers' reads start in the second."""
    return [listed("AdmissionCheck"), listed("MultiKueueConfig")]


def worker_round(name: str, namespace: str) -> list[Key]:
    """A MultiKueue worker's first round for its copy of the manager's Workload NAME: a Workload target's (sent as
    soon as the manager's answers name the worker: the manager's second round)."""
    return first_round(("Workload",), name, namespace)


def is_set(key: Key) -> bool:
    """Whether `key` is one of the bounded sets' lists (its answer serves every read of its kind by name)."""
    return key[0] == "list" and key[1] in SETS and key[3] is None and key[4] is None


def call(source: Source, key: Key) -> Callable[[], Any]:
    """The Source call `key` names; a set is read as one page of MOST when the Source can (a live cluster:
    None when there are more), else whole."""
    if key[0] == "get":
        return lambda: source.get(key[1], key[2], key[3])
    if key[0] == "raw":
        return lambda: source.get_raw(key[1])
    if is_set(key) and pages(source):
        return lambda: source.list_within(key[1], key[2], MOST)  # type: ignore[attr-defined]
    return lambda: source.list(key[1], key[2], label_selector=key[3], field_selector=key[4])
