"""The kinds kubectl-pd reads: where each is served and what users may call it."""

from __future__ import annotations

from kubectl_pd.records import dataclass

KUEUE_GROUP = "kueue.x-k8s.io"
GPUSTACK_GROUP = "worker.gpustack.ai"
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"


@dataclass(frozen=True)
class Kind:
    kind: str
    group: str  # "" for the core group
    versions: tuple[str, ...]  # preferred first; the live source falls back in this order
    plural: str
    namespaced: bool
    aliases: tuple[str, ...] = ()

    @property
    def resource(self) -> str:
        """`plural.group` as kubectl and RBAC messages print it."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


KINDS: dict[str, Kind] = {
    k.kind: k
    for k in (
        Kind("Workload", KUEUE_GROUP, ("v1beta2", "v1beta1"), "workloads", True,
             ("workload", "wl", "kwl", "kueueworkload", "kueueworkloads")),
        Kind("ClusterQueue", KUEUE_GROUP, ("v1beta2", "v1beta1"), "clusterqueues", False,
             ("clusterqueue", "cq")),
        Kind("LocalQueue", KUEUE_GROUP, ("v1beta2", "v1beta1"), "localqueues", True,
             ("localqueue", "lq", "queue", "queues")),
        Kind("ResourceFlavor", KUEUE_GROUP, ("v1beta2", "v1beta1"), "resourceflavors", False,
             ("resourceflavor", "rf", "flavor", "flavors")),
        Kind("Cohort", KUEUE_GROUP, ("v1beta2", "v1beta1"), "cohorts", False, ("cohort", "co")),
        Kind("AdmissionCheck", KUEUE_GROUP, ("v1beta2", "v1beta1"), "admissionchecks", False,
             ("admissioncheck", "ac")),
        Kind("WorkloadPriorityClass", KUEUE_GROUP, ("v1beta2", "v1beta1"), "workloadpriorityclasses", False,
             ("workloadpriorityclass", "wpc")),
        Kind("Topology", KUEUE_GROUP, ("v1beta2", "v1beta1"), "topologies", False, ("topology", "topo")),
        Kind("MultiKueueConfig", KUEUE_GROUP, ("v1beta2", "v1beta1"), "multikueueconfigs", False,
             ("multikueueconfig",)),
        Kind("MultiKueueCluster", KUEUE_GROUP, ("v1beta2", "v1beta1"), "multikueueclusters", False,
             ("multikueuecluster",)),
        Kind("ModelDeployment", GPUSTACK_GROUP, ("v1alpha1", "v1"), "modeldeployments", True,
             ("modeldeployment", "md")),
        Kind("InstanceType", GPUSTACK_GROUP, ("v1alpha1", "v1"), "instancetypes", False,
             ("instancetype", "instype")),
        # what the PD frameworks make, read as why-pending's targets (issue 47; docs/why-pending.md)
        Kind("LeaderWorkerSet", "leaderworkerset.x-k8s.io", ("v1",), "leaderworkersets", True,
             ("leaderworkerset", "lws")),
        Kind("DisaggregatedSet", "disaggregatedset.x-k8s.io", ("v1",), "disaggregatedsets", True,
             ("disaggregatedset",)),
        Kind("LLMInferenceService", "serving.kserve.io", ("v1alpha2", "v1alpha1"), "llminferenceservices", True,
             ("llminferenceservice", "llmisvc")),
        Kind("Deployment", "apps", ("v1",), "deployments", True, ("deployment", "deploy")),
        Kind("StatefulSet", "apps", ("v1",), "statefulsets", True, ("statefulset", "sts")),
        Kind("Pod", "", ("v1",), "pods", True, ("pod", "po")),
        Kind("Event", "", ("v1",), "events", True, ("event", "ev")),
        Kind("LimitRange", "", ("v1",), "limitranges", True, ("limitrange", "limits")),
        Kind("Namespace", "", ("v1",), "namespaces", False, ("namespace", "ns")),
        Kind("Node", "", ("v1",), "nodes", False, ("node", "no")),
        Kind("CustomResourceDefinition", "apiextensions.k8s.io", ("v1",), "customresourcedefinitions",
             False, ("crd", "crds")),
    )
}

_BY_NAME: dict[str, Kind] = {}
for _k in KINDS.values():
    for _n in (_k.kind.lower(), _k.plural, *_k.aliases):
        _BY_NAME[_n] = _k


def lookup(name: str) -> Kind | None:
    """Resolve `Workload`, `workloads`, `wl`, `workloads.kueue.x-k8s.io` and the like."""
    key = name.lower()
    if key in _BY_NAME:
        return _BY_NAME[key]
    head, _, group = key.partition(".")
    k = _BY_NAME.get(head)
    return k if k is not None and group == k.group else None
