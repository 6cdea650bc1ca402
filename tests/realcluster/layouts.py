"""Generated layouts for the real-Kueue differential (issue 46, item 6): pure and seeded.

A layout is what a new user might write, not what a journey scripts:
- one to three ResourceFlavors, each with or without node labels; a labelled flavor gets kwok Nodes of its own,
  small (4 cards) or large (8 or 16), an unlabelled one matches every Node of the plane;
- one accelerator resource, plain `nvidia.com/gpu` (a card is 1) or GPUStack's `credits.gpustack.ai/nvidia` (a card
  is 1,600,000), and sometimes cpu and memory covered too (a second resource group, every Pod asking some);
- a Cohort tree of v1beta2 Cohort objects with parents, quota at any level including the root, borrowing and
  lending limits at every level that has a parent (Kueue refuses them elsewhere), or no cohort at all;
- ClusterQueues with nominal quota, borrowingLimit and lendingLimit, a stopPolicy (Hold or HoldAndDrain) now
  and then, the preemption policies (withinClusterQueue, reclaimWithinCohort, borrowWithinCohort) and
  flavorFungibility;
- admitted Workloads of three WorkloadPriorityClasses and a two-role pod group of one of them.

Amounts are generated in cards and written in the layout's resource (`amount`). Cluster-scoped names carry the
state's namespace (differential.Names), so states never share an object. `kit()` is what differential.run and
the per-command checks (layoutcheck.py) make of a layout.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.realcluster import differential as df
from tests.realcluster import objs
from tests.realcluster.plane import Plane

GPU = objs.GPU
CREDITS = "credits.gpustack.ai/nvidia"
CARD = {GPU: 1, CREDITS: 1_600_000}
POOL = "pd.test/pool"  # the node label of a labelled flavor: its value is the flavor's cluster name
# and the NoSchedule taint of its Nodes, which the flavor tolerates (Kueue adds a flavor's tolerations to the Pods
# it admits there): no other Pod lands on a state's Nodes, so states run side by side on one plane (--jobs)
PREFIX = "ly"  # the layouts' namespaces begin with it
SMALL, LARGE = 4, (8, 16)


@dataclass
class FlavorSpec:
    name: str
    labelled: bool
    node_cards: int = 0  # cards a Node of its own allocates (labelled flavors)
    nodes: int = 0


@dataclass
class CohortSpec:
    name: str
    parent: str | None
    quotas: dict[str, tuple[int, int | None, int | None]] = field(default_factory=dict)  # flavor -> (n, b, l)


@dataclass
class QueueSpec(df.QueueSpec):
    cohort: str | None = None
    stop: str | None = None  # Hold | HoldAndDrain


@dataclass
class Layout:
    seed: int
    resource: str
    cpu: bool  # cpu and memory covered (a second resource group) and asked by every Pod
    flavors: list[FlavorSpec]
    cohorts: list[CohortSpec]
    queues: list[QueueSpec]
    running: list[df.Running]
    target_queue: str
    target_priority: str
    roles: list[tuple[str, int, int]]  # (role, pods, cards per pod)
    fair_sharing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def amount(self, cards: int) -> str:
        return str(cards * CARD[self.resource])

    def queue(self, name: str) -> QueueSpec:
        return next(q for q in self.queues if q.name == name)


def _limits(rnd: random.Random, nominal: int, limited: bool) -> tuple[int, int | None, int | None]:
    if not limited:
        return nominal, None, None
    borrowing = rnd.choice((None, None, 0, 2, 4))
    lending = rnd.choice((None, None, None, 0, 2, 4))
    return nominal, borrowing, None if lending is None else min(lending, nominal)


def _cohorts(rnd: random.Random, flavors: list[str]) -> list[CohortSpec]:
    shape = rnd.choice(("none", "flat", "root", "root", "tree", "tree"))
    if shape == "none":
        return []
    root = CohortSpec("root", None)
    if shape != "flat" and rnd.random() < 0.6:  # quota at the root (no limits: it has no parent)
        root.quotas = {f: (rnd.choice((0, 2, 4)), None, None) for f in flavors}
    out = [root]
    if shape == "tree":
        for i in range(rnd.choice((1, 2))):
            child = CohortSpec(f"c{i}", "root")
            if rnd.random() < 0.5:
                child.quotas = {f: _limits(rnd, rnd.choice((0, 2, 4)), True) for f in flavors}
            out.append(child)
    return out


def generate(seed: int, fair_sharing: bool = False) -> Layout:
    rnd = random.Random(seed)
    resource = rnd.choice((GPU, GPU, CREDITS))
    flavors = []
    for f in ["fa", "fb", "fc"][: rnd.choice((1, 2, 2, 3))]:
        labelled = rnd.random() < 0.6
        flavors.append(FlavorSpec(f, labelled, rnd.choice((SMALL, *LARGE)) if labelled else 0,
                                  rnd.choice((1, 2)) if labelled else 0))
    names = [f.name for f in flavors]
    cohorts = _cohorts(rnd, names)
    queues = []
    count = rnd.choice((1, 2, 2, 3)) if cohorts else 1
    for i in range(count):
        cohort = rnd.choice(cohorts).name if cohorts else None
        quotas = {f: _limits(rnd, rnd.choice((0, 2, 4, 4, 6, 8)), cohort is not None) for f in names}
        reclaim = rnd.choice(df.POLICIES_RECLAIM)
        queues.append(QueueSpec(
            name=f"q{i}", quotas=quotas, within=rnd.choice(df.POLICIES_WITHIN), reclaim=reclaim,
            borrow_within=rnd.choice((None, None, "LowerPriority")) if reclaim != "Never" else None,
            when_borrow=rnd.choice(("MayStopSearch", "TryNextFlavor")),
            when_preempt=rnd.choice(("MayStopSearch", "TryNextFlavor")),
            weight=rnd.choice((None, "0", "1", "2")) if fair_sharing else None, cohort=cohort,
            stop=rnd.choice((None,) * 8 + ("Hold", "HoldAndDrain"))))
    active = [q.name for q in queues if q.stop is None]  # a stopped queue admits nothing: nothing runs there
    # Pods no larger than the smallest Node: the quota decides, as Kueue's admission does (Nodes are weighed)
    biggest = min([f.node_cards for f in flavors if f.labelled] + [8])
    cards = [c for c in (1, 2, 4) if c <= biggest]
    running = [df.Running(f"run{j}", rnd.choice(active), rnd.choice(list(df.PRIORITIES)), rnd.choice((1, 1, 2)),
                          rnd.choice(cards)) for j in range(rnd.randint(0, 5) if active else 0)]
    roles = [("prefill", rnd.choice((1, 1, 2)), rnd.choice(cards[:2])), ("decode", rnd.choice((1, 2, 2)),
                                                                         rnd.choice(cards))]
    return Layout(seed, resource, rnd.random() < 0.3, flavors, cohorts, queues, running,
                  target_queue=rnd.choice(queues).name, target_priority=rnd.choice(list(df.PRIORITIES)),
                  roles=roles, fair_sharing=fair_sharing)


# ---------------------------------------------------------------- objects

def cohort_name(n: df.Names, c: str) -> str:
    return f"{n.prefix}-{c}"


def node_name(n: df.Names, f: str, i: int) -> str:
    return f"{n.prefix}-{f}-{i}"


def nodes(lay: Layout, n: df.Names) -> list[dict[str, Any]]:
    """The kwok Nodes of the labelled flavors (kwok manages them by the annotation, as scripts/real-cluster's)."""
    out = []
    for f in lay.flavors:
        for i in range(f.nodes):
            name = node_name(n, f.name, i)
            res = {"cpu": "64", "memory": "512Gi", "pods": "110", GPU: str(f.node_cards),
                   CREDITS: str(f.node_cards * CARD[CREDITS])}
            out.append({"apiVersion": "v1", "kind": "Node",
                        "metadata": {"name": name, "annotations": {"kwok.x-k8s.io/node": "fake"},
                                     "labels": {"type": "kwok", "kubernetes.io/hostname": name,
                                                POOL: n.flavor(f.name)}},
                        "spec": {"taints": [_taint(n, f.name)]},
                        "status": {"allocatable": res, "capacity": res}})
    return out


def _taint(n: df.Names, f: str) -> dict[str, str]:
    return {"key": POOL, "value": n.flavor(f), "effect": "NoSchedule"}


def _flavor(n: df.Names, f: FlavorSpec) -> dict[str, Any]:
    """A labelled flavor selects its own Nodes and tolerates their taint; an unlabelled one, every untainted Node."""
    if not f.labelled:
        return objs.flavor(n.flavor(f.name))
    out = objs.flavor(n.flavor(f.name), {POOL: n.flavor(f.name)})
    out["spec"]["tolerations"] = [{"key": POOL, "operator": "Equal", **{k: v for k, v in _taint(n, f.name).items()
                                                                       if k != "key"}}]
    return out


def _quota(lay: Layout, q: tuple[int, int | None, int | None]) -> list[dict[str, Any]]:
    nominal, borrowing, lending = q
    return [objs.quota(lay.resource, lay.amount(nominal), None if borrowing is None else lay.amount(borrowing),
                       None if lending is None else lay.amount(lending))]


def _cpu_group() -> dict[str, Any]:
    return {"coveredResources": ["cpu", "memory"],
            "flavors": [{"name": "", "resources": [objs.quota("cpu", "64"), objs.quota("memory", "256Gi")]}]}


def queue_objects(lay: Layout, n: df.Names) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [_flavor(n, f) for f in lay.flavors]
    if lay.cpu:
        out.append(objs.flavor(n.flavor("cpu")))
    for c in lay.cohorts:
        spec: dict[str, Any] = {}
        if c.parent:
            spec["parentName"] = cohort_name(n, c.parent)
        if c.quotas:
            spec["resourceGroups"] = [{"coveredResources": [lay.resource], "flavors": [
                {"name": n.flavor(f), "resources": _quota(lay, q)} for f, q in c.quotas.items()]}]
        out.append({"apiVersion": objs.KV, "kind": "Cohort", "metadata": {"name": cohort_name(n, c.name)},
                    "spec": spec})
    for q in lay.queues:
        preemption: dict[str, Any] = {"withinClusterQueue": q.within, "reclaimWithinCohort": q.reclaim}
        if q.borrow_within:
            preemption["borrowWithinCohort"] = {"policy": q.borrow_within}
        cq = objs.cluster_queue(n.cq(q.name), [(n.flavor(f), _quota(lay, v)) for f, v in q.quotas.items()],
                                cohort=cohort_name(n, q.cohort) if q.cohort else None, covered=[lay.resource],
                                preemption=preemption, stop=q.stop, weight=q.weight,
                                fungibility={"whenCanBorrow": q.when_borrow, "whenCanPreempt": q.when_preempt})
        if lay.cpu:
            group = _cpu_group()
            group["flavors"][0]["name"] = n.flavor("cpu")
            cq["spec"]["resourceGroups"].append(group)
        out.append(cq)
        out.append(objs.local_queue(n.namespace, q.name, n.cq(q.name)))
    hold = objs.local_queue(n.namespace, "target", n.cq(lay.target_queue))
    hold["spec"]["stopPolicy"] = "Hold"
    out.append(hold)
    return out


def requests(lay: Layout, cards: int) -> dict[str, str]:
    req = {lay.resource: lay.amount(cards)}
    if lay.cpu:
        req.update(cpu="1", memory="1Gi")
    return req


def running_objects(lay: Layout, n: df.Names) -> list[dict[str, Any]]:
    return [objs.workload(n.namespace, r.name, r.queue, [("main", r.count, requests(lay, r.gpus))],
                          priority=(r.priority, df.PRIORITIES[r.priority])) for r in lay.running]


def target_pods(lay: Layout, n: df.Names, group: str = "pd", queue: str = "target",
                priority: str | None = None) -> list[dict[str, Any]]:
    total = sum(c for _, c, _ in lay.roles)
    return [objs.group_pod(n.namespace, f"{group}-{role}-{i}", group, total, queue, role, requests(lay, cards),
                           priority_class=priority or lay.target_priority)
            for role, count, cards in lay.roles for i in range(count)]


def prepare(plane: Plane, lay: Layout, n: df.Names) -> None:
    """The labelled flavors' Nodes, Ready (kwok marks them once their status is written)."""
    made = nodes(lay, n)
    if not made:
        return
    plane.apply(*made)
    for node in made:
        plane.kubectl("patch", "node", node["metadata"]["name"], "--subresource=status", "--type=merge",
                      "-p", json.dumps({"status": node["status"]}))


def snapshot(plane: Plane, n: df.Names) -> list[dict[str, Any]]:
    """differential.snapshot and the Nodes a user's snapshot would hold: the plane's own and this state's."""
    items = df.snapshot(plane, n)
    for node in plane.get("nodes")["items"]:
        pool = (node["metadata"].get("labels") or {}).get(POOL)
        if pool is None or pool.startswith(n.prefix + "-"):
            items.append(node)
    return items


def cleanup(plane: Plane, lay: Layout, n: df.Names) -> None:
    plane.kubectl("delete", "pods,workloads,localqueues", "--all", "-n", n.namespace, "--wait=false",
                  "--grace-period=0", "--force", check=False)
    flavors = [n.flavor(f.name) for f in lay.flavors] + ([n.flavor("cpu")] if lay.cpu else [])
    # the cluster-scoped objects in one call (kind/name each; --ignore-not-found: a harness failure mid-setup)
    plane.kubectl("delete", *[f"clusterqueue/{n.cq(q.name)}" for q in lay.queues],
                  *[f"cohort/{cohort_name(n, c.name)}" for c in lay.cohorts],
                  *[f"resourceflavor/{f}" for f in flavors], *[f"node/{x['metadata']['name']}" for x in nodes(lay, n)],
                  "--wait=false", "--ignore-not-found", check=False)


def kit() -> df.Kit:
    return df.Kit(queue_objects=queue_objects, running_objects=running_objects, target_pods=target_pods,
                  cleanup=cleanup, snapshot=snapshot, prepare=prepare, resource_of=lambda lay: lay.resource,
                  active=lambda lay: [q.name for q in lay.queues if q.stop is None], namespace_prefix=PREFIX)
