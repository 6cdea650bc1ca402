"""Pending after admission: a role's Pods still gated, or refused by the kube-scheduler.

Kueue removes its `kueue.x-k8s.io/admission` scheduling gate when it admits a pod group; a Pod still
gated after that waits on Kueue's pod integration, or on another controller's gate. An ungated Pod the
scheduler cannot place carries `PodScheduled=False`, reason `Unschedulable`, and the scheduler's
`0/N nodes are available: <count> <cause>, ...` histogram (kube-scheduler's FitError, sorted causes),
parsed here into counts per cause. The classic PD failure: a role admitted on a flavor whose nodes lack
what the role's nodeSelector asks, because Kueue judges only the label keys the flavor declares.
"""

from __future__ import annotations

import re

from kubectl_pd.kube import Node, Pod
from kubectl_pd.kueue.model import ResourceFlavor
from kubectl_pd.lazyre import lazy
from kubectl_pd.records import dataclass

KUEUE_GATE = "kueue.x-k8s.io/admission"
# Kueue's own gates on a Pod of its pod integration: the admission gate, and the topology gate its webhook adds too
# when TopologyAwareScheduling is on (v0.19.2 pkg/controller/jobs/pod/pod_webhook.go:176-185; the name:
# apis/kueue/v1beta2/topology_types.go:75). On a MultiKueue manager both stay: its Pods never run there.
KUEUE_GATES = frozenset({KUEUE_GATE, "kueue.x-k8s.io/topology"})
_FIT = lazy(r"^0/(?P<n>\d+) nodes are available:(?P<causes>.*?)\.?(?: preemption: .*)?$", re.S)
_CAUSE = lazy(r"^\s*(?P<n>\d+) (?P<cause>.+?)\s*$")


@dataclass(frozen=True)
class Unschedulable:
    nodes: int | None  # N of `0/N nodes are available`
    causes: tuple[tuple[int, str], ...]  # (count, cause) as the scheduler sorted them
    message: str


def parse_unschedulable(message: str) -> Unschedulable:
    """The scheduler's histogram; a message in another shape keeps its words and no counts."""
    m = _FIT.match(message.strip())
    if not m:
        return Unschedulable(None, (), message)
    causes = []
    for part in m.group("causes").split(", "):
        c = _CAUSE.match(part)
        if c:
            causes.append((int(c.group("n")), c.group("cause").rstrip(".")))
    return Unschedulable(int(m.group("n")), tuple(causes), message)


def gates(pod: Pod) -> tuple[str, ...]:
    return pod.gates


def unschedulable(pod: Pod) -> Unschedulable | None:
    return parse_unschedulable(pod.unschedulable) if pod.unschedulable is not None else None


def waiting(pod: Pod) -> bool:
    """Not yet on a node (and not finished)."""
    return pod.waiting


def ignored_selector(pod: Pod, flavor: ResourceFlavor) -> dict[str, str]:
    """nodeSelector entries Kueue did not judge for this flavor (it does not declare the key)."""
    return {k: v for k, v in pod.node_selector.items() if k not in flavor.node_labels}


@dataclass(frozen=True)
class NodeFit:
    name: str
    matches: bool  # carries every nodeSelector label the Pod asks
    pods: int | None  # how many such Pods its allocatable could hold (running Pods not counted)


def node_fits(pod: Pod, nodes: list[Node]) -> list[NodeFit]:
    sel = pod.node_selector
    reqs = dict(pod.template.requests)
    out = []
    for n in nodes:
        labels, alloc = n.labels, n.allocatable
        counts = []
        for r, q in reqs.items():
            a = alloc.get(r)
            if q > 0:
                counts.append(int(a // q) if a is not None else 0)
        out.append(NodeFit(n.name, all(labels.get(k) == v for k, v in sel.items()),
                           min(counts) if counts else None))
    return out
