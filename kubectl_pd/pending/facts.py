"""What one why-pending target's reads found, as typed records: the Facts the diagnosis reads from (and the run's
Typed records they share), below the reader that fills them (pending/reader.py) and the gather step that plans the
reads (pending/gather.py, pending/owners.py). Nothing here reads."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from kubectl_pd import kube
from kubectl_pd.cluster.source import Obj
from kubectl_pd.gpustack.model import InstanceType, ModelDeployment, instance_type, model_deployment
from kubectl_pd.kueue.model import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    LimitRangeItem,
    LocalQueue,
    PendingView,
    ResourceFlavor,
    SpecMemo,
    Workload,
    admission_check,
    cluster_queue,
    cohort,
    limit_range,
    local_queue,
    pending_view,
    resource_flavor,
    workload,
)
from kubectl_pd.labels import GROUP_LABEL
from kubectl_pd.pending.say import Read, Say
from kubectl_pd.pending.target import Target, Unread
from kubectl_pd.records import dataclass, field

T = TypeVar("T")

# each kind read by name, parsed where it is received (the one boundary between the Source and the Facts)
PARSE: dict[str, Callable[[Obj], Any]] = {"Workload": workload, "LocalQueue": local_queue,
                                          "ClusterQueue": cluster_queue, "ResourceFlavor": resource_flavor,
                                          "Cohort": cohort, "PendingWorkloadsSummary": pending_view,
                                          "ModelDeployment": model_deployment, "InstanceType": instance_type,
                                          "AdmissionCheck": admission_check, "Namespace": kube.namespace,
                                          "Node": kube.node, "LimitRange": limit_range}


class Typed:
    """The run's records: each object the Source returned, parsed once into its typed record where gather
    receives it. The targets of -A (gather_all) share the objects their reads return, and so one Typed; it is
    a plain value the run makes and hands to each of its Facts, and it dies with them (nothing module-level).
    Found by value (memo's second idiom): the key is the object's kind and its read's key (namespace, name,
    resourceVersion, uid), and a hit must be equal to the object (the same one, handed again, costs nothing)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[str, Any], tuple[Any, Any]] = {}
        self.snapshots: dict[Any, Any] = {}  # the engine's Snapshots (engine_snapshot), by the names they hold
        self.every_workload: list[Any] | None = None  # -A on a live cluster: every Workload of it, listed whole
        self.specs: SpecMemo = {}  # the pod specs the run's Pods and Workloads share (kueue.model.SpecMemo)
        self._makers: dict[Any, Callable[[Any], Any]] = {
            kube.pod: functools.partial(kube.pod, specs=self.specs),
            workload: functools.partial(workload, specs=self.specs)}

    def parse(self, kind: str, obj: Any, make: Callable[[Any], T], key: Any = None) -> T:
        """`make(obj)`, once per object for the run; `key`: a record's own key (an API object has one)."""
        k = (kind, _read_key(obj) if key is None else key)
        hit = self.memo.get(k)
        if hit is not None and (hit[0] is obj or hit[0] == obj):
            return hit[1]  # type: ignore[no-any-return]
        maker: Callable[[Any], T] = self._makers.get(make) or make  # a Pod's or Workload's: with the SpecMemo
        made = maker(obj)
        self.memo[k] = (obj, made)
        return made

    def pods(self, objs: list[Obj]) -> list[kube.Pod]:
        return [self.parse("Pod", o, kube.pod) for o in objs]

    def events(self, objs: list[Obj]) -> list[kube.Event]:
        return [self.parse("Event", o, kube.event) for o in objs]

    def workloads(self, objs: list[Obj]) -> list[Workload]:
        return [self.parse("Workload", o, workload) for o in objs]

    def typed(self, kind: str, obj: Obj, key: Any = None) -> Any:
        """`obj` as its kind's record (PARSE), made once for the run; `key`: the read's, for an answer without
        metadata of its own (a ClusterQueue's PendingWorkloadsSummary: the queue's name)."""
        return self.parse(kind, obj, PARSE[kind], key)

    def all(self, kind: str, objs: list[Obj]) -> list[Any]:
        return [self.parse(kind, o, PARSE[kind]) for o in objs]


def _read_key(obj: Any) -> tuple[Any, ...] | None:
    """An API object's key by value: namespace, name, resourceVersion, uid (None: it has no metadata)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        return None
    return meta.get("namespace"), meta.get("name"), meta.get("resourceVersion"), meta.get("uid")


@dataclass
class Facts:
    """Everything read for one target, as typed records (kueue.model, kube, gpustack.model): each object is
    parsed once, where gather receives it from the Source, and no API dict is kept here (the json view and the
    snapshot collector get the objects from the Source). A dict value None means "read, does not exist"; a
    missing key means "not read" (forbidden, capped or not needed)."""

    target: Target
    deployment: ModelDeployment | None = None
    pods: list[kube.Pod] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # group names in the order found
    workloads: dict[str, Workload | None] = field(default_factory=dict)
    local_queues: dict[str, LocalQueue | None] = field(default_factory=dict)
    cluster_queues: dict[str, ClusterQueue | None] = field(default_factory=dict)
    flavors: dict[str, ResourceFlavor | None] = field(default_factory=dict)
    checks: dict[str, AdmissionCheck | None] = field(default_factory=dict)
    instance_types: dict[str, InstanceType | None] = field(default_factory=dict)
    namespace_obj: kube.Namespace | None = None
    events: list[kube.Event] = field(default_factory=list)
    pending: dict[str, PendingView | None] = field(default_factory=dict)  # cq -> its PendingWorkloadsSummary
    peer_queues: list[ClusterQueue] | None = field(default_factory=list)  # every ClusterQueue, for a cohort
    cohorts: list[Cohort] | None = field(default_factory=list)  # None = could not be read
    limit_ranges: list[LimitRangeItem] = field(default_factory=list)  # the namespace's LimitRanges' items
    nodes: dict[str, list[kube.Node] | None] = field(default_factory=dict)  # flavor -> its nodes; None = unreadable
    ahead: dict[tuple[str, str], Workload | None] = field(default_factory=dict)  # (ns, name) -> Workload ahead
    notes: list[Say] = field(default_factory=list)
    live: bool = False
    incomplete: list[Unread] = field(default_factory=list)  # failed reads the verdict depends on
    run: Typed = field(default_factory=Typed, repr=False, compare=False)  # the run's records (-A's targets share it)
    members: dict[str, str] = field(default_factory=dict)  # Pod name -> its own Workload (a Deployment's Pods)

    def group_of(self, pod: kube.Pod) -> str | None:
        """The Pod's group: Kueue's group name (group_of_pod), else the Workload Kueue built for the Pod alone."""
        return group_of_pod(pod) or self.members.get(pod.name)



def group_of_pod(pod: kube.Pod) -> str | None:
    """Kueue's GetPodGroupName: a non-empty annotation wins over the label."""
    return pod.annotations.get(GROUP_LABEL) or pod.labels.get(GROUP_LABEL) or None


Call = tuple[Read, Callable[[], Any], Any, bool]  # (what, read, default, the verdict depends on it)
Settled = list[tuple[Any, bool]]
