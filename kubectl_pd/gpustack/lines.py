"""GPUStack operator lines as data: what each line the public source and docs show serves, and how it spells it.

A line is one shape of the ModelDeployment API that clusters in the field run. The tool knew only the published
docs (v0.9.2 to v0.11.2) until the operator's Go source was read (`gpustack/gpustack-operator`; the Go module proxy
does not serve it). The newest stored source is OLDER than those docs, and GPUStack's own main branch pins operator
v0.8.4, so both shapes are in the field (reference/gpustack-operator-source.md, "One caveat").

Every fact here carries where it was read: `path@commit`, `path (id N)` for a stored version whose commit was not at
hand (the search tools' file id), or a docs page. Offline, `create --operator-version LINE` writes the line's shape;
live, the served schema decides (commands/create.py: the CRD when `v1` is a CRD, else the aggregated server's
`/openapi/v3`, else the v1alpha1 CRD's schema of the re-declared struct; discovery tells which).

Pure data and small lookups; imported only where a line is chosen (create) or named (docs, tests).
"""

from __future__ import annotations

from kubectl_pd.gpustack.profiles import GROUP, PER_REPLICA_OFFLINE, V1_OFFLINE, ApiProfile
from kubectl_pd.records import dataclass, replace

SRC = "gpustack/gpustack-operator"

# Where `worker.gpustack.ai/v1` comes from in a line
CRD = "crd"
APISERVICE = "apiservice"  # an aggregated API server registered by the APIService `v1.worker.gpustack.ai`
NOT_STATED = "not-stated"  # the docs read do not say; discovery decides live

# The ModelDeployment condition types of the source's status (pkg/worker/controllers/worker/model_deployment_status.go
# (id 68894355352), the condition constants; DomainRegistered, CacheAttached, ReplicasUpToDate and KVEventsPublishing
# are declared beside the code that observes them, per that file's comment)
CONDITIONS = ("QuotaReserved", "WeightsReady", "RouterReady", "RoleKindsReady", "DomainRegistered", "CacheAttached",
              "ReplicasUpToDate", "KVEventsPublishing")

# QuotaReserved's reasons (status file id 68894355352, observeModelDeploymentQuota; docs/reference/
# model-deployment-status.md@196051b8)
QUOTA_REASONS = ("Reserved", "Pending", "PodGroupIncomplete", "PreemptedInPart", "Parked",
                 "NoQueueInReservedNamespace", "AdmissionInFlight", "NoReplicas", "AllReplicasTerminating")

# WeightsReady's reasons (pkg/worker/controllers/worker/model_deployment_artifact.go (id 68830510408), the const
# block "The reasons WeightsReady carries"). BLOCKED: resolveModelArtifactWeights returns them as `Blocked`, which
# "says new Pods must not be created": the deployment is admitted, creates no Pod, and its phase message is the
# condition's message (model_deployment_artifact_test.go (id 69136996807): wantPods 0 => PhaseMessage). The others
# are judged over replica Pods that exist (observeModelDeploymentWeights).
WEIGHTS_BLOCKED = ("ArtifactNotFound", "ArtifactNotResolved", "ClaimNotBound", "AccessModeConflict",
                   "NodeDeliveryUnavailable", "FilterNeedsNodeDelivery")
WEIGHTS_WITH_PODS = ("WeightsNotMounted", "Downloading", "Materializing", "MaterializationFailed")
WEIGHTS_READY = ("NotApplicable", "Mounted", "Downloaded")

# RouterReady (status file id 68894355352: modelDeploymentReasonRouter*), RoleKindsReady (same file), DomainRegistered
# and CacheAttached (reference/gpustack-modeldeployment.md §1.6), ReplicasUpToDate (model_deployment_rollout
# (id 66458655616) and its test (id 69303399909): RolloutInProgress, RolloutHeldByCache, RolloutHeldByWeights)
ROUTER_REASONS = ("Ready", "NotApplicable", "RenderFailed", "NotDeployed", "NoReadyReplicas")
ROLE_KINDS_REASONS = ("AllKindsReady", "KindsNotReady", "NoRoleStatuses")


@dataclass(frozen=True)
class Line:
    """One operator line: the shapes `create` writes for it, where `v1` is served, and where each fact was read."""

    name: str  # what --operator-version takes
    title: str
    v1_served_by: str  # CRD | APISERVICE | NOT_STATED
    v1: ApiProfile  # the worker.gpustack.ai/v1 shape
    v1alpha1: ApiProfile | None  # the v1alpha1 CRD's shape; None when the line's sources show none
    v1_short_names: tuple[str, ...]  # kubectl's short names of the v1 resource
    conditions: tuple[str, ...]  # condition types its status writes; () when the sources read do not list them
    citations: tuple[str, ...]
    documented: bool = False  # a line of the published docs (the default is the newest of these)

    @property
    def engine_fields(self) -> tuple[str, ...]:
        p = self.v1
        return tuple(f.partition(".")[2] for f in (p.engine_version_field, p.engine_image_field) if f)

    @property
    def pool_fields(self) -> tuple[str, ...]:
        return tuple(f for f in ("instanceType", "acceleratorType") if self.v1.has(f))

    def profile(self, version: str | None) -> ApiProfile:
        """The shape of `version` (None: the line's v1) in this line; LineError when the line shows none."""
        if version in (None, "v1"):
            return self.v1
        if version == "v1alpha1" and self.v1alpha1 is not None:
            return self.v1alpha1
        raise LineError(f"operator line {self.name} ({self.title}) has no {GROUP}/{version} shape this tool knows: "
                        f"use --api-version v1")


class LineError(ValueError):
    """A line, or a version of it, this tool has no shape for."""


# The source's struct (the newest stored api/worker/v1alpha1/model_deployment.go, id 70071649368): engine
# {name enum vLLM|SGLang, version optional 1..64} and NO image (ModelDeploymentEngine); each role names a REQUIRED
# instanceType (1..253) and has no acceleratorType (ModelDeploymentRole); kinds Server|Prefill|Decode default Server;
# replicas 1..1024, size 1..64; resources accelerator / sliced percentages / partition profile / interface.
_SOURCE_ROLE_FIELDS = PER_REPLICA_OFFLINE.role_fields | {"topology", "shmSize", "terminationGracePeriodSeconds"}
_SOURCE_V1ALPHA1 = replace(
    PER_REPLICA_OFFLINE, engines=("vLLM", "SGLang"), kinds=("Server", "Prefill", "Decode"),
    role_fields=_SOURCE_ROLE_FIELDS, source="operator line 0.8 (source)")
# `worker.gpustack.ai/v1` re-declares that struct (api/worker/v1/model_deployment.go@a916db4e: `type ModelDeployment
# workercore.ModelDeployment` under an apireg-gen marker), converted field for field
# (api/worker/v1/zz_generated.conversion.go@83017f7f), served by the APIService v1.worker.gpustack.ai
# (api/worker/v1/zz_generated.apiservice.go@05fb8b88, GetAPIService), with no short name (ShortNames() empty, same file)
_SOURCE_V1 = replace(_SOURCE_V1ALPHA1, api_version=f"{GROUP}/v1")

# The older stored version of the same struct (api/worker/v1alpha1/model_deployment.go@049325a5, id 69218731689):
# the same fields, lowercase enums (`enum=["vllm","sglang"]`, server|prefill|decode, connector mooncake)
_LOWER_V1ALPHA1 = replace(PER_REPLICA_OFFLINE, source="operator line 049325a5 (source)")
_LOWER_V1 = replace(_LOWER_V1ALPHA1, api_version=f"{GROUP}/v1")

LINES: tuple[Line, ...] = (
    Line(
        name="049325a5",
        title="an older stored source version (no release tag read): lowercase enums",
        v1_served_by=APISERVICE, v1=_LOWER_V1, v1alpha1=_LOWER_V1ALPHA1, v1_short_names=(),
        conditions=(),
        citations=(f"{SRC} api/worker/v1alpha1/model_deployment.go@049325a5dfca3da815de7decdd4360bbb238ba15",
                   f"{SRC} pkg/worker/webhooks/worker/model_deployment.go@049325a5dfca3da815de7decdd4360bbb238ba15",
                   f"{SRC} api/worker/v1/zz_generated.apiservice.go@05fb8b88 (GetAPIService)")),
    Line(
        name="0.8",
        title="the operator source (newest stored version; GPUStack's main branch pins operator v0.8.4)",
        v1_served_by=APISERVICE, v1=_SOURCE_V1, v1alpha1=_SOURCE_V1ALPHA1, v1_short_names=(),
        conditions=CONDITIONS,
        citations=(f"{SRC} api/worker/v1alpha1/model_deployment.go (id 70071649368): ModelDeploymentEngine, "
                   f"ModelDeploymentRole",
                   f"{SRC} api/worker/v1/model_deployment.go@a916db4ed413814217e27c0c75dd121866ed6b12",
                   f"{SRC} api/worker/v1/zz_generated.apiservice.go@05fb8b88 (GetAPIService, ShortNames)",
                   f"{SRC} api/worker/v1/zz_generated.conversion.go@83017f7f",
                   f"{SRC} pkg/worker/controllers/worker/model_deployment_status.go@f681df2d (id 68894355352)",
                   f"{SRC} pkg/worker/controllers/worker/model_deployment_artifact.go (id 68830510408)")),
    Line(
        name="0.11",
        title="the published docs v0.9.2 to v0.11.2: engine.image required, roles[].acceleratorType",
        v1_served_by=NOT_STATED, v1=replace(V1_OFFLINE, source="operator line 0.11 (docs)"), v1alpha1=None,
        v1_short_names=(),
        conditions=CONDITIONS,
        citations=("docs.gpustack.ai/gpustack-operator/v0.11.2/docs/modules/model-deployment/configuration/ "
                   "(Minimal deployment: engine {name, image}, acceleratorType)",
                   "docs.gpustack.ai/gpustack-operator/v0.11.2/docs/modules/devices/ (AcceleratorType and "
                   "InstanceType share the pool ClusterQueue)",
                   "gpustack-operator docs/modules/model-deployment/status.md (QuotaReserved reasons)"),
        documented=True),
)

BY_NAME = {line.name: line for line in LINES}
NAMES = tuple(line.name for line in LINES)
DEFAULT = [line for line in LINES if line.documented][-1].name  # the newest documented line


def line(name: str) -> Line:
    found = BY_NAME.get(name)
    if found is None:
        raise LineError(f"--operator-version {name!r} is not one of {', '.join(NAMES)}")
    return found


def lines_help() -> str:
    """One line per operator line, for --help and the docs."""
    return "; ".join(f"{x.name}: {x.title}" for x in LINES)


def offline_profile(line_name: str, api_profile: str, version: str | None) -> ApiProfile:
    """`create --operator-version LINE` with nothing read: the line's shape of `version` (None: its v1). Every line
    is the per-replica API, so `--api-profile pd-atomic` is refused (LineError)."""
    from kubectl_pd.gpustack.roles import PD_ATOMIC

    chosen = line(line_name)
    if api_profile == PD_ATOMIC:
        raise LineError(f"--operator-version {line_name} is a per-replica operator line: it takes --api-profile "
                        f"per-replica (or auto), not pd-atomic")
    return chosen.profile(version)
