"""Whether any Node could ever hold one Pod of a pod set, on the flavor Kueue gives it: pure, over the Nodes read.

Kueue admits by quota alone; kube-scheduler then places each Pod on a Node whose allocatable holds its requests.
A Pod larger than the allocatable of every Node its flavor allows (the flavor's nodeLabels, which Kueue adds to
the Pod's nodeSelector; the Pod's own nodeSelector; the Nodes' NoSchedule/NoExecute taints against the Pod's and
the flavor's tolerations, and the ones Kubernetes' ExtendedResourceToleration admission adds for an extended
resource the Pod requests) is admitted and never runs, however much quota frees. A flavor with no Node read
(none carries its labels, a snapshot without Nodes, a pool that scales from zero) is not weighed: nothing is said
about it. Allocatable is what a Node offers in all; the Pods already running on it are not counted, so a "holds"
here is "could hold once the Node is empty", and a "never" is never.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from kubectl_pd import kube, memo
from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import ResourceFlavor, Snapshot, Toleration
from kubectl_pd.records import dataclass, field, replace

_ZERO = Fraction(0)


def _alloc(node: kube.Node, resource: str) -> Fraction:
    """What the Node allocates of `resource` (none, or a value that is not a quantity: nothing)."""
    return node.allocatable.get(resource) or _ZERO


def _d(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def keep(obj: Any) -> dict[str, Any]:
    """What a list keeps of each Node as its page arrives (name, labels, taints, allocatable)."""
    meta, spec, status = _d(_d(obj).get("metadata")), _d(_d(obj).get("spec")), _d(_d(obj).get("status"))
    return {"metadata": {"name": meta.get("name"), "labels": meta.get("labels")},
            "spec": {"taints": spec.get("taints")}, "status": {"allocatable": status.get("allocatable")}}


def selector(flavor: ResourceFlavor) -> str:
    """The label selector of the flavor's Nodes ("" : every Node)."""
    return ",".join(f"{k}={v}" for k, v in sorted(flavor.node_labels.items()))


@dataclass(frozen=True)
class TooSmall:
    """No Node of `flavor` could hold one Pod: `nodes` the flavor's Nodes, `allowed` those the Pod may go to; the
    resource short on the largest of them (`node`, its `largest` allocatable) against the Pod's `requested`.
    `resource` None: no Node the flavor has is one the Pod may go to (its selector or a taint)."""

    flavor: str
    pod_set: str
    role: str | None
    nodes: int
    allowed: int
    resource: str | None = None
    requested: Fraction | None = None
    largest: Fraction | None = None
    node: str | None = None


def may_go(node: kube.Node, flavor: ResourceFlavor, ps: ad.PodSetDemand) -> bool:
    """The Pod, with the flavor's nodeLabels and tolerations added as Kueue adds them, may be placed on `node`."""
    wanted = {**ps.node_selector, **flavor.node_labels}
    if any(node.labels.get(k) != v for k, v in wanted.items()):
        return False
    as_flavor = ResourceFlavor(node.name, node_taints=node.taints, tolerations=flavor.tolerations)
    return ad.untolerated(as_flavor, ps.tolerations + _extended(ps)) is None


_NATIVE = ("cpu", "memory", "ephemeral-storage", "pods", "hugepages-")


def _extended(ps: ad.PodSetDemand) -> tuple[Toleration, ...]:
    """What Kubernetes' ExtendedResourceToleration admission adds to a Pod that requests an extended resource (a
    NoSchedule taint keyed by that resource's name is tolerated), so a GPU Node tainted so is not counted out."""
    return tuple(Toleration(r, "Exists", "", "NoSchedule") for r, q in sorted(ps.requests.items())
                 if q > 0 and "/" in r and not r.startswith(_NATIVE))


def holds(node: kube.Node, requests: Mapping[str, Fraction]) -> bool:
    return all(_alloc(node, r) >= q for r, q in requests.items() if q > 0)


def too_small(flavor: ResourceFlavor, nodes: Iterable[kube.Node], ps: ad.PodSetDemand) -> TooSmall | None:
    """None when a Node of the flavor holds one Pod, or the flavor has no Node read (not weighed)."""
    every = list(nodes)
    if not every:
        return None
    allowed = [n for n in every if may_go(n, flavor, ps)]
    if any(holds(n, ps.requests) for n in allowed):
        return None
    base = TooSmall(flavor.name, ps.name, ps.role, len(every), len(allowed))
    if not allowed:
        return base
    asked = sorted((r, q) for r, q in ps.requests.items() if q > 0)
    for r, q in asked:  # a resource even the largest Node of it lacks: that Node and its allocatable
        best = _largest(allowed, r)
        if _alloc(best, r) < q:
            return _short(base, best, r, q)
    # each resource alone fits some Node, none holds them all: the largest Node of the first, what it lacks
    best = _largest(allowed, asked[0][0])
    r, q = next((r, q) for r, q in asked if _alloc(best, r) < q)
    return _short(base, best, r, q)


def _largest(nodes: list[kube.Node], resource: str) -> kube.Node:
    """The Node that allocates the most of `resource` (of equals, the first by name)."""
    return max(sorted(nodes, key=lambda n: n.name), key=lambda n: _alloc(n, resource))


def _short(base: TooSmall, node: kube.Node, resource: str, requested: Fraction) -> TooSmall:
    return replace(base, resource=resource, requested=requested, largest=_alloc(node, resource),
                   node=node.name)


@dataclass(frozen=True)
class Fit:
    """The Nodes read for the run, per flavor (a flavor absent: not read, not weighed)."""

    by_flavor: Mapping[str, tuple[kube.Node, ...]] = field(default_factory=dict)

    def on(self, snap: Snapshot, flavor_name: str, ps: ad.PodSetDemand) -> TooSmall | None:
        """Whether the flavor Kueue chose can never run one Pod of the pod set."""
        flavor = snap.flavors.get(flavor_name)
        if flavor is None or flavor_name not in self.by_flavor:
            return None
        nodes = self.by_flavor[flavor_name]
        # every copy asks again of the same pod sets: the run's memo, by value (a run's snapshots share their
        # flavors and Nodes, so the check against them costs nothing)
        return memo.by_value("capacity.nodes.on", (flavor_name, ps.memo_key), (flavor, nodes),
                             lambda: too_small(flavor, nodes, ps), 4096)

    def never(self, snap: Snapshot, cq_name: str, ps: ad.PodSetDemand) -> TooSmall | None:
        """Every flavor of the queue Kueue could give the pod set is weighed and none holds one Pod: the one with
        the largest Node (the closest miss). None when any could, or one is not weighed."""
        cq = snap.cluster_queues.get(cq_name)
        if cq is None:
            return None
        wanted = {r for r, q in ps.requests.items() if q > 0}
        names = [f.name for g in cq.resource_groups if wanted & set(g.covered) for f in g.flavors]
        misses: list[TooSmall] = []
        for name in dict.fromkeys(names):
            flavor = snap.flavors.get(name)
            if flavor is None or not ad.matches(ps, flavor) or ad.untolerated(flavor, ps.tolerations) is not None:
                continue  # Kueue does not give it this flavor (the engine says so on its own)
            miss = self.on(snap, name, ps)
            if miss is None:
                return None
            misses.append(miss)
        if not misses:
            return None
        return max(misses, key=lambda m: (m.resource is not None, m.largest or _ZERO))


def flavor_nodes(source: Any, snap: Snapshot,
                 attempt: Callable[[str, Callable[[], Any]], tuple[bool, Any]]) -> Fit | None:
    """The Nodes of each flavor of the snapshot: one list per flavor selected by its nodeLabels (every Node for a
    flavor without any), paged, each Node kept as its page arrives (capacity's and create's preflight's one read).
    ATTEMPT reads, or says why it could not ((False, _): the node part is unknown, None)."""
    lists: dict[str, tuple[kube.Node, ...]] = {}
    by_selector: dict[str | None, tuple[kube.Node, ...]] = {}  # flavors of the same nodeLabels: one list
    for name, flavor in sorted(snap.flavors.items()):
        sel = selector(flavor) or None
        if sel not in by_selector:
            ok, objs = attempt("Nodes" + (f" ({sel})" if sel else ""), _node_lister(source, sel))
            if not ok:
                return None
            by_selector[sel] = tuple(kube.node(o) for o in objs)
        lists[name] = by_selector[sel]
    return Fit(lists)


def _node_lister(source: Any, sel: str | None) -> Callable[[], Any]:
    return lambda: source.list("Node", None, label_selector=sel, reduce=keep)
