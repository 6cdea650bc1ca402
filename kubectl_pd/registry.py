"""One registry of everything the tool can say: why-pending reasons, lint rules and create checks.

Each entry has a stable id, a kebab name, a severity, a priority (lower = shown first), a one-line
summary and a remediation. The core returns ids with parameters; printers turn them into English and
the docs' tables are generated from here (`tables()`), so none of them can drift.
"""

from __future__ import annotations

from kubectl_pd.records import dataclass

TYPE_CHECKING = False  # typing stays unloaded on a Tab press
if TYPE_CHECKING:
    from typing import Literal

    # why-pending's reason codes, one per REASONS entry (tests/test_registry.py checks they agree)
    ReasonCode = Literal[
        "PodGroupInvalid",
        "NoQueueInReservedNamespace",
        "WeightsNotReady",
        "LocalQueueMissing",
        "LocalQueueStopped",
        "ClusterQueueMissing",
        "ClusterQueueStopped",
        "QueueSuspended",
        "ClusterQueueInactive",
        "Misconfigured",
        "NamespaceNotAllowed",
        "InvalidResources",
        "ResourceNotCovered",
        "Parked",
        "DRAResourcesUnresolved",
        "Deactivated",
        "AdmissionCheckRejected",
        "MultiKueueNoWorkerFits",
        "AdmissionGated",
        "AdmissionCheckRetryLoop",
        "PreemptedInPart",
        "Preempted",
        "PodsUnscheduledTimeout",
        "Evicted",
        "PartlyAdmitted",
        "AllReplicasTerminating",
        "ReplicasNotCreated",
        "PodGroupIncomplete",
        "WorkloadMissing",
        "QuotaExceedsCapacity",
        "TopologyUnsatisfied",
        "NoMatchingFlavor",
        "QuotaUnknown",
        "NeedsPreemption",
        "QuotaExhausted",
        "PreemptionInProgress",
        "WaitingForPodsReady",
        "AdmissionCheckPending",
        "PodsUnschedulable",
        "PodsGated",
        "WaitingInQueue",
        "OnHold",
        "Unknown",
        "NotPending",
    ]

ERROR = "error"
WARNING = "warning"
INFO = "info"

REASON = "reason"
RULE = "rule"
CHECK = "check"


@dataclass(frozen=True)
class Entry:
    id: str
    name: str
    kind: str  # reason | rule | check
    severity: str
    summary: str
    remediation: str
    applies_to: str = ""
    priority: int = 0
    source: str = ""  # where the evidence comes from (Kueue's words, objects, our engine)


def _rule(id: str, name: str, severity: str, summary: str, remediation: str, applies_to: str) -> Entry:
    return Entry(id, name, RULE, severity, summary, remediation, applies_to, int(id[2:]))


def _reasons(*rows: tuple[str, str, str, str, str]) -> tuple[Entry, ...]:
    """Reasons in priority order: the first one found is the headline."""
    out = []
    for i, (code, severity, summary, remediation, source) in enumerate(rows):
        name = "".join("-" + c.lower() if c.isupper() else c for c in code).lstrip("-")
        out.append(Entry(code, name, REASON, severity, summary, remediation, "why-pending", i, source))
    return tuple(out)


REASONS: tuple[Entry, ...] = _reasons(
    ('PodGroupInvalid', ERROR,
     'pods disagree on queue name or total count; `pod-group-fast-admission` set (collapses the roles into one pod '
     'set); more than 10 roles (0.18; 18 in 0.19); a same-named non-group Workload',
     "Recreate the group's pods with one queue name and one total count.",
     'the Pods; `ErrWorkloadCompose` / `WorkloadNameConflict` events'),
    ('NoQueueInReservedNamespace', ERROR,
     'the deployment is in a namespace GPUStack reserves (e.g. `gpustack-system`), which has no LocalQueue: it is '
     'never scheduled, whatever the quota',
     'Create the deployment in a namespace GPUStack serves (any non-system namespace).',
     "the ModelDeployment's `QuotaReserved` condition, reason `NoQueueInReservedNamespace` (GPUStack's v1 status)"),
    ('WeightsNotReady', WARNING,
     "the deployment waits for its model weights (`spec.model.artifactRef`): GPUStack's operator admits it but creates "
     'no Pod while the artifact is missing or unresolved, or a claim unbound, so no Workload exists to judge; the '
     "artifact and the operator's message are named, before any quota verdict",
     "Create or fix what the message names (the ModelArtifact, its claim, the delivery mode); the operator creates "
     'the Pods the pass after it clears.',
     "the ModelDeployment's `WeightsReady=False` condition (reason, message) and `QuotaReserved=Unknown` "
     '`NoReplicas` (GPUStack operator source: model_deployment_artifact.go, model_deployment_status.go)'),
    ('LocalQueueMissing', ERROR,
     "the queue in `kueue.x-k8s.io/queue-name` (GPUStack: the InstanceType's `status.entrance`) does not exist",
     'Create the LocalQueue, or fix the kueue.x-k8s.io/queue-name label.',
     'the LocalQueue; `Inadmissible` messages'),
    ('LocalQueueStopped', ERROR,
     'the LocalQueue has `stopPolicy` Hold or HoldAndDrain',
     "Clear the LocalQueue's stopPolicy.",
     'the LocalQueue; `Inadmissible` messages'),
    ('ClusterQueueMissing', ERROR,
     "the LocalQueue's ClusterQueue does not exist",
     'Create the ClusterQueue, or point the LocalQueue at an existing one.',
     'the ClusterQueue; `Inadmissible` messages'),
    ('ClusterQueueStopped', ERROR,
     'the ClusterQueue has `stopPolicy` Hold or HoldAndDrain (GPUStack holds the queue of an inactive InstanceType)',
     "Clear the ClusterQueue's stopPolicy.",
     'the ClusterQueue; `Inadmissible` messages'),
    ('QueueSuspended', ERROR,
     'Kueue 0.20 token `Suspended`: the LocalQueue or ClusterQueue has a `stopPolicy`, or the LocalQueue is '
     'inactive (`LocalQueue %s is stopped`, `ClusterQueue %s is stopped`, `LocalQueue %s is inactive`); the '
     'queue named, when read, gives LocalQueueStopped or ClusterQueueStopped',
     "Clear the stopPolicy of the queue Kueue names, or make its LocalQueue's ClusterQueue active.",
     'reason `Suspended` (KEP-10852)'),
    ('ClusterQueueInactive', ERROR,
     "`Active=False`, with the cause: missing ResourceFlavor, missing or inactive AdmissionCheck (and that check's "
     'own message), missing Topology',
     'Create what its Active condition names; `kubectl pd lint` shows what Kueue refuses.',
     "`Can't admit new workloads: ...`"),
    ('Misconfigured', ERROR,
     "Kueue 0.20 token `Misconfigured`: the Workload's queue setup is broken (missing LocalQueue or ClusterQueue, "
     "an invalid namespaceSelector, a failed admissibility check); a message naming the missing queue gives "
     'LocalQueueMissing or ClusterQueueMissing',
     "Fix what Kueue's message names: create the queue, or repair the ClusterQueue's namespaceSelector.",
     'reason `Misconfigured` (KEP-10852)'),
    ('NamespaceNotAllowed', ERROR,
     "the ClusterQueue's `namespaceSelector` does not select the namespace (which label is missing)",
     'Label the namespace, or widen the selector.',
     "the Namespace's labels; `[Ww]orkload namespace doesn't match ClusterQueue selector`"),
    ('InvalidResources', ERROR,
     'requests above the limits or a LimitRange maximum: Kueue refuses them before trying any flavor',
     'Fix the requests and limits of the pod template.',
     "`resources validation failed: ...`, `resources didn't satisfy LimitRange constraints: ...`; the "
     'admission engine'),
    ('ResourceNotCovered', ERROR,
     'a role asks for a resource no resource group covers',
     'Add the resource to coveredResources, or drop the request.',
     '`resource %s unavailable in ClusterQueue`; the admission engine'),
    ('Parked', ERROR,
     "the deployment's replica set failed to assemble for long enough that GPUStack's joint check deactivated its "
     'Workloads: they ask for nothing now, and an identical re-apply does not clear it',
     'Free capacity for the whole set, then reactivate its Workloads (spec.active: true), or delete and recreate '
     'the deployment.',
     "the ModelDeployment's `QuotaReserved` condition, reason `Parked` (GPUStack's v1 status)"),
    ('DRAResourcesUnresolved', ERROR,
     "Kueue 0.20 token `DRAResourcesUnresolved`: a DRA ResourceClaimTemplate or DeviceClass of the pods cannot be "
     "mapped to quota (`deviceClassMappings`), or a `firstAvailable` request is refused; the message names the "
     'template and field',
     "Map the DeviceClass in Kueue's deviceClassMappings, or fix the claim the message names "
     '(KueueDRAIntegrationPrioritizedList for firstAvailable).',
     'reason `DRAResourcesUnresolved` (Kueue 0.20, UnadmittedWorkloadsObservability)'),
    ('Deactivated', ERROR,
     "`spec.active: false`; GPUStack's joint check parks a set after 30 minutes (`parked rather than held`)",
     'Free capacity, then reactivate the Workload.',
     'the Workload; `Deactivated` token'),
    ('AdmissionCheckRejected', ERROR,
     'a check rejected the Workload',
     'Fix what the check reports, then reactivate.',
     '`status.admissionChecks`, `DeactivationTarget`'),
    ('MultiKueueNoWorkerFits', ERROR,
     "quota is reserved on a MultiKueue manager and its MultiKueue check is Pending, but every nominated worker was "
     "read and none can ever hold the group: each worker's own figures show a positive shortfall for a role that "
     'does not fit there (the same record as the MultiKueue block and its worker table). Params: check, clusters',
     "Raise the quota on a worker (each worker's step in the MultiKueue block), or delete the Workload on the "
     "manager: until a worker can hold it, it keeps the manager's quota (kueue #8602).",
     "the manager's `status.admissionChecks`, each nominated worker's copy and its ClusterQueue (read with "
     '`--worker-context`)'),
    ('AdmissionGated', WARNING,
     'Kueue 0.20 token `AdmissionGated`: the `kueue.x-k8s.io/admission-gated-by` annotation holds the Workload '
     'out of admission (`Admission is gated by: %s`)',
     'Wait for the controller named in the annotation to remove itself, or remove the annotation.',
     'reason `AdmissionGated`'),
    ('AdmissionCheckRetryLoop', WARNING,
     'quota reserved, a check answers `Retry`, the Workload is evicted and requeued again and again: how many times, '
     "since when, the check's words; for `gpustack-node-devices` the largest free slice its per-card fit node labels "
     '(`*.fit.gpustack.ai/<key>`) report vs what a Pod asks',
     "Free (defragment) devices on the flavor's nodes, or ask the check's controller why it retries.",
     '`status.admissionChecks[].retryCount`, `schedulingStats.evictions` reason `AdmissionCheck`, `requeueState`; '
     '`Evicted due to AdmissionCheck in Retry state: ...`; the flavor\'s Nodes by label'),
    ('PreemptedInPart', WARNING,
     "higher priority reclaimed some replicas' quota while others stay admitted: the kept replicas hold "
     'accelerators the set cannot serve with, and whatever draws next from their ClusterQueues is refused '
     '(`insufficient unused quota`); whether a whole role kind lost every replica. It self-heals only when '
     'capacity returns, with no timeout',
     'Add capacity (the reclaimed replicas are admitted again on their own), delete and recreate the deployment '
     '(that releases the kept quota), or move the roles apart onto different instanceTypes so one preemption '
     'cannot reclaim both halves from one queue.',
     "the ModelDeployment's `QuotaReserved` condition, reason `PreemptedInPart` (GPUStack's v1 status); "
     "`status.roles[].quotaReserved`"),
    ('Preempted', WARNING,
     "a role's Workload was evicted by preemption: the preemptor (UID, its ClusterQueue, ours or not), the rule "
     '(`InClusterQueue`, `InCohortReclamation`, `InCohortFairSharing`, `InCohortReclaimWhileBorrowing`), and the '
     'roles left holding quota for nothing',
     "Raise the deployment's priority, or give its queue nominal quota the cohort cannot reclaim.",
     '`Preempted` condition, `Preempted to accommodate a workload (UID: ..., JobUID: ...) due to ...`; `Preempted` '
     'events'),
    ('PodsUnscheduledTimeout', WARNING,
     'Kueue 0.20: admitted, but its required pods stayed unscheduled past `waitForPodsReady.unscheduledTimeout` '
     '(or the PodsReady timeout while `WaitForScheduling`): evicted (`PodsReadyTimeout`, underlying cause '
     '`WaitForScheduling`) and requeued after back-off',
     "Fix what keeps kube-scheduler from placing the pods (their nodeSelector, taints, free nodes), or raise "
     'waitForPodsReady.unscheduledTimeout.',
     '`Evicted` reason `PodsReadyTimeout`, `schedulingStats.evictions[].underlyingCause` `WaitForScheduling`, '
     '`PodsReady`/`PodsScheduled` reason `WaitForScheduling`'),
    ('Evicted', WARNING,
     'evicted and not requeued yet, with the requeue back-off (`requeueState`) and, for preemption, why',
     'See the eviction reason.',
     '`Evicted` condition'),
    ('PartlyAdmitted', WARNING,
     "some of one deployment's Workloads are admitted and others wait (a DisaggregatedSet's prefill admitted while "
     'decode waits; an LWS whose second group waits; a Deployment with a Pod gated): which roles run, which wait '
     'and why, and the quota the admitted ones hold (per flavor, in its own unit) while the deployment may serve '
     'nothing. Params: `admittedRoles`, `waitingRoles`, `waitingWorkloads`, `held` (flavor, resource, quantity)',
     'Admit the roles together: one pod group holding every role (what `kubectl pd create --target pods` '
     "writes), or Kueue's DisaggregatedSet integration (one Workload for every role) where the cluster's Kueue "
     'serves it; else free the quota the waiting Workloads need.',
     "each Workload's `Admitted` condition and `status.admission` (its pod sets' `resourceUsage` per flavor)"),
    ('AllReplicasTerminating', INFO,
     'every replica of the deployment (or every Pod of the pod group) is on its way out, so no quota verdict '
     'applies to it',
     'Wait for the replicas to go; if the deployment is not being deleted, the operator replaces them.',
     "the ModelDeployment's `QuotaReserved` condition, reason `AllReplicasTerminating` (GPUStack's v1 status); a "
     "pod group's Pods all carrying `deletionTimestamp`, or its Workload's `WaitingForReplacementPods=True`"),
    ('ReplicasNotCreated', INFO,
     "GPUStack's operator reports QuotaReserved `NoReplicas`: it created no replica yet and its weights are not what "
     'holds them (not an incomplete pod group: there is no group at all)',
     "Wait for the operator's next pass; if it stays, read the operator's events and log.",
     "the ModelDeployment's `QuotaReserved=Unknown` condition, reason `NoReplicas`"),
    ('PodGroupIncomplete', WARNING,
     'fewer pods than `pod-group-total-count`: Kueue composes **no Workload**; have/want per role',
     'Create the missing pods, or find why the operator does not.',
     "the Pods; Warning event `ErrWorkloadCompose` (`'<g>' group has fewer runnable pods than expected`)"),
    ('WorkloadMissing', WARNING,
     'the group is complete but no Workload exists yet',
     "Check Kueue's pod integration and the controller's health.",
     'Pods + a 404 on `workloads/<group>`'),
    ('QuotaExceedsCapacity', ERROR,
     'larger than its flavor can ever give (nominal + what the cohort may lend, within `borrowingLimit`), alone or '
     'next to the roles admitted with it: never admitted as configured',
     'Raise nominalQuota (or borrowingLimit), or ask for less.',
     '`insufficient quota ... > maximum capacity (...)`; the admission engine'),
    ('TopologyUnsatisfied', ERROR,
     "a TAS flavor's topology cannot meet a role's topology request (required/preferred level, slices): Kueue's "
     'numbers per role, with the level',
     "Free room in one domain of the level, relax the role's required topology to preferred, or scale it down.",
     '`topology %q allows to fit only %d out of %d pod(s)`, `doesn\'t allow to fit any of ...`; the pod set\'s '
     '`topologyRequest` / `podset-*-topology` annotations; the ResourceFlavor\'s `topologyName`'),
    ('NoMatchingFlavor', ERROR,
     'node affinity / selector, untolerated taint or missing flavor, for every candidate flavor',
     "Fix the role's nodeSelector/tolerations, or the flavors' nodeLabels/nodeTaints.",
     "`flavor %s doesn't match node affinity`, `untolerated taint {...} in flavor %s`, `flavor %s not found`; our "
     'arithmetic'),
    ('QuotaUnknown', WARNING,
     'a quota, usage or the cohort the verdict needs could not be read: fits or not is unknown, never guessed as zero',
     'Fix the unreadable quantity, or grant read access to ClusterQueues and Cohorts.',
     'an unreadable `nominalQuota`/`borrowingLimit`/`lendingLimit` or `flavorsReservation`; ClusterQueues/Cohorts '
     'RBAC refused'),
    ('NeedsPreemption', WARNING,
     "fits the queue's quota only by preempting other Workloads (the queue's `preemption` policy allows it); which "
     'ones a snapshot cannot say',
     'Wait for Kueue to preempt, or free quota yourself.',
     'the admission engine (`Preempt` mode with candidates allowed by policy)'),
    ('QuotaExhausted', WARNING,
     "fits the queue, not its unused quota now, and nothing may be preempted: Kueue's own per-pod-set number, with "
     "the roles' joint shortfall said apart",
     'Free quota in the flavor, or scale the role down.',
     '`insufficient unused quota ..., N more needed`; `WaitingForQuota`; the admission engine'),
    ('PreemptionInProgress', INFO,
     'Kueue is preempting to make room',
     'Wait.',
     '`. Pending the preemption of N workload(s)`, overlapping targets, `WaitingForPreemptedWorkloads`'),
    ('WaitingForPodsReady', INFO,
     'Kueue holds admissions until admitted Workloads are ready',
     'Wait.',
     'reason `Waiting` / `WaitingForPodsReady`'),
    ('AdmissionCheckPending', INFO,
     'quota reserved, a check is Pending/Retry (e.g. `gpustack-node-devices`, `gpustack-model-deployment-joint`)',
     "Wait, or see the check's message.",
     '`status.admissionChecks`'),
    ('PodsUnschedulable', ERROR,
     'admitted, ungated, and the kube-scheduler refuses the role\'s Pods: its `0/N nodes are available` causes '
     'counted, the flavor\'s nodes that could take them, and nodeSelector keys Kueue ignored because the flavor '
     'does not declare them',
     "Fix the role's nodeSelector or the flavor's nodeLabels so Kueue's choice and the nodes agree; free the "
     'nodes the causes name.',
     'Pod `PodScheduled=False` reason `Unschedulable` (kube-scheduler FitError); the flavor\'s Nodes by label'),
    ('PodsGated', WARNING,
     'admitted, but the role\'s Pods still carry a scheduling gate (Kueue\'s `kueue.x-k8s.io/admission`, or '
     'another, named)',
     "Kueue removes its gate on admission: check the kueue-controller-manager's pod integration; another "
     'gate belongs to the controller that set it.',
     'Pod `spec.schedulingGates`'),
    ('WaitingInQueue', INFO,
     'fits, others ahead: the position comes from the visibility API',
     'Wait.',
     'visibility `pendingworkloads`; no condition yet; `PendingEvaluation`'),
    ('OnHold', INFO,
     'Kueue 0.20 token `OnHold`: its quota was released on purpose and it is not requeued (a StatefulSet scaled '
     'to zero)',
     'Scale the workload up again (e.g. the StatefulSet) to requeue it.',
     'reason `OnHold`'),
    ('Unknown', WARNING,
     "anything else: Kueue's text is passed through verbatim rather than guessed at",
     'kubectl describe the Workload.',
     ''),
    ('NotPending', INFO,
     'admitted (or finished)',
     '',
     'Workload `Admitted=True`'),
)

CHECKS: tuple[Entry, ...] = tuple(Entry(i, i, CHECK, s, summary, fix, "create", n) for n, (i, s, summary, fix) in
                                  enumerate((
    ("instance-type", ERROR, "Each role's InstanceType exists.",
     "Use an InstanceType from `kubectl get instancetypes`."),
    ("local-queue", ERROR, "The role's LocalQueue (the InstanceType's status.entrance) exists and is active.",
     "Use a namespace GPUStack serves."),
    ("cluster-queue", ERROR, "The LocalQueue's ClusterQueue exists, is active and not stopped.",
     "Fix the ClusterQueue first."),
    ("accelerator-key", ERROR, "The role's acceleratorKey is offered by a flavor of the pool.",
     "Use a key the pool's flavors carry."),
    ("never-fits", ERROR, "The admission engine finds a role larger than its flavor can ever give "
     "(why-pending would say QuotaExceedsCapacity); --force writes it anyway.",
     "Use another instanceType, fewer replicas or cards."),
    ("no-matching-flavor", ERROR, "No flavor of the pool takes a role (why-pending would say NoMatchingFlavor).",
     "Fix the role's selector, or the flavors."),
    ("no-node-fits", ERROR, "One Pod of a role asks more than the allocatable of every Node its flavors allow (the "
     "flavor's nodeLabels, the Pod's nodeSelector, taints): Kueue would admit it and it would never run "
     "(why-pending would say PodsUnschedulable; capacity says never); --force writes it anyway.",
     "Use fewer cards per Pod or another instanceType, or add larger Nodes."),
    ("waits-for-quota", WARNING, "The deployment fits the pool but not its unused quota now (why-pending would "
     "say QuotaExhausted or NeedsPreemption).", "Expect it to stay pending until quota frees."),
    ("fit-unknown", WARNING, "Whether the deployment fits could not be decided (an unreadable quota, a cohort "
     "that could not be read).", "Grant read access to ClusterQueues and Cohorts."),
    ("joint-check", WARNING, "per-replica: the ClusterQueue references the joint admission check.",
     "Add gpustack-model-deployment-joint to the queue's admission checks."),
    ("skipped", WARNING, "A check could not be made (RBAC).", "Ask for read access."),
    ("accelerator-type", WARNING, "v1: a role named by `acceleratorType` (an AcceleratorType, no InstanceType): "
     "AcceleratorTypes are not read, so the queue and quota checks are not made for it.", "Name the pool with "
     "instance-type= to have it checked."),
    ("priority-class", ERROR, "--priority-class names a WorkloadPriorityClass that exists; preemption is judged "
     "at its value, as Kueue gives the group that priority.", "Use a class from `kubectl get "
     "workloadpriorityclasses`."),
    ("admitted-apart", WARNING, "--target lws|disaggregatedset: each LWS group of each role is its own Workload, "
     "admitted apart; when one role fits and another waits, the admitted one holds its quota and the deployment "
     "serves nothing.", "Use --target pods (one pod group, admitted whole), or give every role room."),
    ("integration-off", ERROR, "Kueue's configuration, when it can be read, enables the integration that manages "
     "what the target makes (`pod` for pod groups and GPUStack's, the LWS integration for lws and "
     "disaggregatedset): otherwise Kueue ignores the queue label and the Pods run outside the queue's quota; "
     "--force writes them anyway.", "Add the framework to Kueue's integrations.frameworks."),
)))

RULES: tuple[Entry, ...] = (
    _rule("PD101", "duplicate-covered-resource", ERROR,
         'A resource is covered by more than one group. The finding is placed at the later '
         "`spec.resourceGroups[i].coveredResources[j]` (Kueue's `Duplicate value`). When both groups cover the same "
         'set of resources, the message names this as the 16-flavor split signature and says whether merging would '
         'fit.',
         "Merge groups that cover the same resources into one group (keep the flavor order); a group may "
         "hold 64 flavors on Kueue 0.14+. `kubectl pd lint --fix` does this when the groups are identical.",
         "ClusterQueue, Cohort"),
    _rule("PD102", "duplicate-flavor", ERROR,
         'A flavor appears in two groups, or twice in one (`...flavors[j].name: Duplicate value`).',
         "Keep each ResourceFlavor once in the whole ClusterQueue; drop the repeated entry.",
         "ClusterQueue, Cohort"),
    _rule("PD103", "too-many-resource-groups", ERROR,
         'More than 16 groups (`Too many: N: must have at most 16 items`).',
         "Merge groups: at most 16 resource groups are allowed.",
         "ClusterQueue, Cohort"),
    _rule("PD104", "too-many-flavors", ERROR,
         'A group with no flavor, more than 64 flavors in a group (16 before Kueue 0.14), or more than 256 across all'
         ' groups (`total number of flavors across all resourceGroups must be ≤ 256, got N`; ClusterQueues only: '
         "Kueue's Cohort webhook checks no totals).",
         "Use fewer flavors: coarser ResourceFlavors, or split the pool into several ClusterQueues.",
         "ClusterQueue, Cohort"),
    _rule("PD105", "too-many-covered-resources", ERROR,
         'A group covering no resource, more than 64 covered resources in a group (16 before 0.14), or more than 256 '
         'across all groups (ClusterQueues only).',
         "Cover fewer resources: drop resources no workload requests.",
         "ClusterQueue, Cohort"),
    _rule("PD106", "flavor-resources-mismatch", ERROR,
         "A flavor's resources differ from `coveredResources` in number (CEL: `flavors must have the same number of "
         'resources as the coveredResources`) or in order (`must match the name in coveredResources`), list a '
         'resource twice, list none (`resources` is required, at least 1 item) or more than 64.',
         "List exactly the coveredResources in every flavor, in the same order.",
         "ClusterQueue, Cohort"),
    _rule("PD107", "too-many-flavor-resources", ERROR,
         'More than 512 flavor×resource entries in one group (Kueue 0.14+). ClusterQueues only, as in Kueue.',
         "Use fewer flavors or fewer covered resources in the group.",
         "ClusterQueue"),
    _rule("PD108", "invalid-quantity", ERROR,
         'A `nominalQuota`, `borrowingLimit` or `lendingLimit` that is missing, unparseable or negative (`must be '
         'greater than or equal to 0`), or that the CRD refuses before the webhook: an unquoted YAML float such as '
         '2.5 (`must be of type integer,string`), blanks around it (`should match`).',
         "Write a non-negative Kubernetes quantity such as 4, 500m, 64Gi or 1600k.",
         "ClusterQueue, Cohort"),
    _rule("PD109", "limit-without-cohort", ERROR,
         'A `borrowingLimit` or `lendingLimit` with no cohort: no `cohortName`, or no `cohort` in v1beta1 (`must be '
         'nil when cohort is empty`). A Cohort with no parent gets `must be nil when parent is empty`.',
         "Set spec.cohortName (spec.cohort in v1beta1), or remove the limit: with no cohort there is "
         "nothing to borrow from or lend to.",
         "ClusterQueue, Cohort"),
    _rule("PD110", "lending-limit-exceeds-nominal", ERROR,
         'A `lendingLimit` above `nominalQuota` (`must be less than or equal to the nominalQuota`). Checked on '
         'ClusterQueues only, as in Kueue.',
         "Lower lendingLimit to at most nominalQuota.",
         "ClusterQueue"),
    _rule("PD111", "flavor-not-found", ERROR,
         'A ClusterQueue references a ResourceFlavor that does not exist, so Kueue marks it `Active=False`, reason '
         '`FlavorNotFound`. Checked in live mode, or when the files contain ResourceFlavors.',
         "Create the ResourceFlavor, or remove it from the queue.",
         "ClusterQueue, Cohort"),
    _rule("PD112", "admission-check-not-found", ERROR,
         'A ClusterQueue references an AdmissionCheck that does not exist (`AdmissionCheckNotFound`). Checked under '
         'the same condition as PD111.',
         "Create the AdmissionCheck, or remove it from spec.admissionChecksStrategy.",
         "ClusterQueue"),
    _rule("PD113", "quantity-rewritten-on-create", WARNING,
         "A ClusterQueue quota the CRD schema refuses as written but Kueue's defaulting webhook decodes: a YAML "
         'number with a fraction (2.5) or text with blanks around it (" 4"). The webhook writes it back as a '
         "quantity (2500m, 4) when the queue is created, so the create passes (checked against the real API "
         "server); an update meets the schema as written and is refused. In a Cohort, which has no defaulting "
         "webhook, it is PD108.",
         'Write the quantity as the server stores it: quoted, no blanks ("2500m", "4").',
         "ClusterQueue"),
    _rule("PD201", "gpustack-single-group", ERROR,
         'A GPUStack queue (label `resource.gpustack.ai/type: instancetypes`) with more than one resource group. Such'
         ' a queue covers one resource, so it can only have one group.',
         "Put every flavor in one group (up to 64); `kubectl pd lint --fix` merges a 16-flavor split.",
         "GPUStack ClusterQueue"),
    _rule("PD202", "gpustack-covered-resource", ERROR,
         'A GPUStack queue that covers anything other than exactly `credits.gpustack.ai/<manufacturer>` or `cpu`. The'
         " manufacturer is checked against the queue's `acceleratable.feature.gpustack.ai/<key>` label.",
         "Cover exactly one resource: credits.gpustack.ai/<manufacturer> for an accelerated pool, cpu "
         "otherwise.",
         "GPUStack ClusterQueue"),
    _rule("PD203", "gpustack-credit-multiple", WARNING,
         'A credits quota that is not a whole number of cards (1,600,000 credits each).',
         "Use a multiple of 1600k credits per card.",
         "GPUStack ClusterQueue"),
    _rule("PD301", "roles-count", ERROR,
         'A ModelDeployment without 1 to 10 roles.',
         "Declare 1 to 10 roles.",
         "ModelDeployment"),
    _rule("PD302", "role-name", ERROR,
         'A role name that does not match `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, is longer than 63 characters, or is '
         'repeated.',
         "Use unique lowercase role names such as prefill and decode.",
         "ModelDeployment"),
    _rule("PD303", "instance-type-mismatch", ERROR,
         "pd-atomic only: roles on different instanceTypes. One Workload carries one queueName, so the group can't be"
         ' admitted atomically; use `acceleratorKey` to choose hardware inside one pool.',
         "Keep every role on one instanceType; choose hardware inside the pool with acceleratorKey.",
         "ModelDeployment"),
    _rule("PD304", "role-kind", ERROR,
         'A kind other than server/prefill/decode, server mixed with prefill/decode, or prefill or decode twice.',
         "Use prefill and decode roles (one each), or server roles only.",
         "ModelDeployment"),
    _rule("PD305", "replicas", ERROR,
         'A role with fewer than 1 replica.',
         "Set replicas to 1 or more.",
         "ModelDeployment"),
    _rule("PD306", "accelerator-key", ERROR,
         'An `acceleratorKey` that is not `<manufacturer>-<model>`. Also flagged when ResourceFlavors are known '
         "(live, or in the files) and no flavor of the role's pool carries `acceleratable.feature.gpustack.ai/<key>`."
         " The pool's flavors are those of the ClusterQueue named like the role's instanceType; a pool with no "
         'flavors yet is not a finding.',
         "Use a key the pool's ResourceFlavors carry as acceleratable.feature.gpustack.ai/<key>.",
         "ModelDeployment"),
)

# PD307-PD313: prefill/decode pairing, router flags, operator-owned keys, ports (lint/pd_routing.py)
RULES += (
    _rule("PD307", "pd-without-router", WARNING,
          "per-replica only: prefill/decode roles and no `spec.router`. Nothing pairs them: the deployment can go "
          "Ready and never exchange a KV block. The message names the roles.",
          "Add spec.router (llm-d-router fronts vLLM and SGLang).",
          "ModelDeployment"),
    _rule("PD308", "router-engine-mismatch", ERROR,
          "per-replica only: a router that cannot front the engine (`vllm-router` only vLLM, `sglang-gateway` only "
          "SGLang), or `disaggregationThresholdTokens` with a router other than llm-d-router.",
          "Use llm-d-router, or the router made for the engine.",
          "ModelDeployment"),
    _rule("PD309", "router-ports", ERROR,
          "per-replica only: under a router, routed roles that would not serve one common TCP port (each role's "
          "first declared `ports[].port`, else its `--port` in extraArgs, else 8000; a non-TCP port). The message "
          "lists each role's port. Params: router, ports (role -> port).",
          "Serve every routed role on one port over TCP: drop the differing --port flags.",
          "ModelDeployment"),
    _rule("PD310", "router-owned-flag", ERROR,
          "per-replica only: a flag in `spec.router.extraArgs` that the operator derives itself for that router "
          "(llm-d-router: `--endpoint-selector`, `--endpoint-target-ports`, `--config-file`, `--secure-serving`, "
          "`--grpc-health-port`, `--metrics-endpoint-auth`; vllm-router and sglang-gateway: `--host`, `--port`, "
          "`--prometheus-host`, `--prometheus-port`, the service-discovery flags, `--selector`, "
          "`--prefill-selector`, `--decode-selector`, and vllm-router's `--kv-connector` and "
          "`--vllm-pd-disaggregation` or sglang-gateway's `--pd-disaggregation`); the operator refuses it rather "
          "than merge it. Params: flag, router.",
          "Remove the flag from spec.router.extraArgs; the operator sets it.",
          "ModelDeployment"),
    _rule("PD311", "operator-owned-key", ERROR,
          "An engine flag in `roles[].extraArgs` or a variable in `roles[].env` that the operator renders for "
          "that engine and refuses to merge: vLLM `--kv-transfer-config`, `--kv-events-config`, "
          "`MOONCAKE_CONFIG_PATH`, `VLLM_MOONCAKE_BOOTSTRAP_PORT`; SGLang `--hicache-storage-backend`, "
          "`--hicache-storage-backend-extra-config` and its `MOONCAKE_*` variables (`MOONCAKE_TENANT_ID` among "
          "them). A role with `command` owns its argv and is not checked.",
          "Remove the key; to set it yourself, take over the role's command line (roles[].command).",
          "ModelDeployment"),
    _rule("PD312", "reserved-port", ERROR,
          "per-replica only: a role that declares, or serves with `--port`, a port the operator reserves for a "
          "listener it adds to that role: vLLM's KV-event publisher and replay socket (5557, 5558; under "
          "llm-d-router, not on a decode role) and Mooncake bootstrap server (8998; the prefill role of a "
          "prefill/decode pair under any router), SGLang's bootstrap registry (8998; the prefill role of a pair "
          "with a router or a kvCache). A role with `command` is exempt. Params: role, port, reserved, engine, "
          "router.",
          "Serve and declare another port; the reserved ones are the operator's.",
          "ModelDeployment"),
    _rule("PD313", "decode-port-collision", ERROR,
          "per-replica only: behind llm-d-router, a decode role (without `command`) passing `--port` equal to the "
          "port its Service publishes (its first declared port, else that `--port`): the routing proxy in front "
          "of a decoder takes that port and the operator moves the model server off it, which the role's own "
          "`--port` prevents. Params: role, port, router.",
          "Remove --port from the decode role's extraArgs; the operator places it.",
          "ModelDeployment"),
)

# PD314-PD322: what GPUStack's admission refuses in worker.gpustack.ai/v1 (lint/model_deployments.py; gpustack-operator
# docs/modules/model-deployment/deployment.md, "What admission refuses")
RULES += (
    _rule("PD314", "role-without-pool", ERROR,
          "v1 only: a role that names no pool, neither `instanceType` nor (GPUStack v0.11.2) `acceleratorType`.",
          "Set the role's instanceType (or acceleratorType where the installed API has it).",
          "ModelDeployment"),
    _rule("PD315", "role-bounds", ERROR,
          "v1 only: `replicas` over 1024, or `size` outside 1 to 64; the schema refuses it (the operator's own "
          "ceiling on how many Pods one pass renders). Params: field, value, maximum.",
          "Declare at most 1024 replicas of at most 64 Pods each.",
          "ModelDeployment"),
    _rule("PD316", "removed-role-field", ERROR,
          "v1 only: a role `template` (the block is gone; strict decoding refuses the unknown field) or "
          "`acceleratorKey` (withdrawn). Params: field.",
          "Drop the field: the role's own fields (image, env, ports...) replace template; choose hardware with "
          "instanceType.",
          "ModelDeployment"),
    _rule("PD317", "topology-level", ERROR,
          "v1 only: a `topology.requiredLevel` that is not a node label key, or `kubernetes.io/hostname` (implicit, "
          "and rejected as an explicit level). Params: level.",
          "Name a configured topology level by its label key, or omit topology for unconstrained placement.",
          "ModelDeployment"),
    _rule("PD318", "role-service-name", ERROR,
          "v1 only: `<deployment>-<role>`, the role's Service name, is not a DNS-1035 label (over 63 characters, "
          "or a dot from a subdomain-shaped deployment name). The webhook exempts a role the object already had. "
          "Params: service.",
          "Shorten the role or the deployment name; use no dot in the deployment name.",
          "ModelDeployment"),
    _rule("PD319", "slice-and-partition", ERROR,
          "v1 only: a role asking for a partition profile (`acceleratorPartitionedProfile`) together with a slice "
          "percentage: one accelerator cannot serve both.",
          "Keep either the partition profile or the slice percentages.",
          "ModelDeployment"),
    _rule("PD320", "engine-version-required", ERROR,
          "v1 only: neither `spec.engine.version` nor `spec.engine.image` while a role sets no `image`: the image "
          "is assembled from the engine, its version and the role's pool. Params: roles.",
          "Set spec.engine.image (the runner image), or spec.engine.version, or an image on every role.",
          "ModelDeployment"),
    _rule("PD321", "empty-pool-ref", ERROR,
          "v1 only: an empty `spec.kvCache.poolRef.name`: the KVCachePoolBinding is the authorization point, and an "
          "empty reference names none.",
          "Name a KVCachePoolBinding in the namespace, or drop spec.kvCache.",
          "ModelDeployment"),
    _rule("PD322", "engine-name", ERROR,
          "v1 only: `spec.engine.name` outside the closed enum `vLLM`, `SGLang` (the seed's `vllm` is refused as "
          "`Unsupported value`). Checked when no CRD of ModelDeployment is known (with one, PD501 says it). A "
          "lowercase role kind is PD304 likewise. Params: engine, want.",
          "Spell the engine as v1 does: vLLM or SGLang (and kinds Server, Prefill, Decode).",
          "ModelDeployment"),
)

# PD4xx: what Kueue's CRD schema, CEL rules and webhook refuse outside resource groups (lint/kueue_facts.py)
RULES += (
    _rule("PD401", "unsupported-value", ERROR,
          'A ClusterQueue field outside its enum: `queueingStrategy`, `stopPolicy`, the preemption policies '
          '(`reclaimWithinCohort`, `withinClusterQueue`, `borrowWithinCohort.policy`), `flavorFungibility` '
          '(`whenCanBorrow`, `whenCanPreempt`, `preference`), `admissionScope.admissionMode` '
          '(`Unsupported value: "X": supported values: ...`). v1beta1 also accepts Borrow and Preempt.',
          "Use one of the supported values the message lists.",
          "ClusterQueue"),
    _rule("PD402", "invalid-name", ERROR,
          'A flavor name, `cohortName` (`cohort` in v1beta1) or Cohort `parentName` that is not a DNS-1123 '
          'subdomain of at most 253 characters, or a covered resource that is not a qualified name.',
          "Use lowercase letters, digits, '-' and '.' for flavors and cohorts, and a name such as "
          "nvidia.com/gpu for resources.",
          "ClusterQueue, Cohort"),
    _rule("PD403", "invalid-namespace-selector", ERROR,
          '`spec.namespaceSelector` that the webhook refuses: In/NotIn without values, Exists/DoesNotExist with '
          'values, an unknown operator, a key or value that is not a valid label.',
          "Fix the selector: In and NotIn need values, Exists and DoesNotExist take none.",
          "ClusterQueue"),
    _rule("PD404", "preemption-policy-conflict", ERROR,
          '`reclaimWithinCohort: Never` (the default) with a `borrowWithinCohort` policy other than Never (CEL: '
          '`reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never`).',
          "Set reclaimWithinCohort to LowerPriority or Any, or borrowWithinCohort.policy to Never.",
          "ClusterQueue"),
    _rule("PD405", "fungibility-preference", ERROR,
          '`flavorFungibility.preference` without both `whenCanBorrow` and `whenCanPreempt` at TryNextFlavor '
          '(CEL; whenCanBorrow defaults to MayStopSearch).',
          "Set whenCanBorrow and whenCanPreempt to TryNextFlavor, or remove preference.",
          "ClusterQueue"),
    _rule("PD406", "fair-sharing-weight", ERROR,
          'A `fairSharing.weight` that is negative, not a quantity, or above 0 but at most 1n (`When not 0, weight '
          'must be > 10e-9`).',
          "Use 0 or a positive weight above 1n, such as 1 or 500m.",
          "ClusterQueue, Cohort"),
    _rule("PD407", "admission-check-unknown-flavor", ERROR,
          'An `admissionChecksStrategy.admissionChecks[i].onFlavors` entry naming a flavor the queue does not hold '
          '(`Unsupported value: "f": supported values: ...`).',
          "Name only flavors of this queue's resource groups in onFlavors.",
          "ClusterQueue"),
    _rule("PD408", "empty-admission-checks", ERROR,
          'An `admissionChecksStrategy` with no `admissionChecks`, or an empty list (v1beta2: at least 1 item).',
          "List at least one admission check, or remove admissionChecksStrategy.",
          "ClusterQueue"),
    _rule("PD409", "unknown-field", ERROR,
          'A field the served version does not have, so `kubectl apply` refuses it (strict field validation) or '
          'the server drops it: `cohortName` in a v1beta1 ClusterQueue, `cohort` in v1beta2, `parent` in a Cohort '
          '(the parent is `parentName`). Only for objects read from files.',
          "Use the field of the version you write: v1beta1 spec.cohort, v1beta2 spec.cohortName, Cohort "
          "spec.parentName.",
          "ClusterQueue, Cohort"),
    _rule("PD410", "concurrent-admission", ERROR,
          'With `--feature-gates ConcurrentAdmission=true` only: a `concurrentAdmissionPolicy` on a queue with other '
          'than one resource group, more than 16 flavors (32 from Kueue 0.20), StrictFIFO, or migration constraints '
          'Kueue refuses.',
          "Keep one resource group of at most 16 flavors (32 on Kueue 0.20) and BestEffortFIFO with a "
          "concurrentAdmissionPolicy.",
          "ClusterQueue"),
    _rule("PD411", "invalid-flavor", ERROR,
          "A ResourceFlavor Kueue's webhook refuses (ValidateResourceFlavor): a `nodeLabels` key that is not a "
          "qualified name or a value that is not a label value, a `nodeTaints` key or value likewise, two taints "
          "with the same key and effect, or a toleration that core/v1 refuses (a key that is not a qualified "
          "name, a value with `Exists`, an empty key without `Exists`, `tolerationSeconds` without NoExecute). "
          "Checked when the ResourceFlavor CRD is known (live, a CRD among the inputs, or `--crd`).",
          "Fix the label, taint or toleration as the message says.",
          "ResourceFlavor"),
    _rule("PD412", "api-version-not-served", ERROR,
          "A `kueue.x-k8s.io/v1beta1` ClusterQueue or Cohort linted for a Kueue that no longer serves v1beta1 "
          "(0.20 and later: `no matches for kind ... in version \"kueue.x-k8s.io/v1beta1\"`). Only when the "
          "version is known: `--kueue-version`, or live, what the cluster serves.",
          "Write the object as kueue.x-k8s.io/v1beta2; `kubectl pd lint --fix` converts it (cohort to cohortName, "
          "admissionChecks to admissionChecksStrategy, Borrow/Preempt to MayStopSearch).",
          "ClusterQueue, Cohort"),
    _rule("PD413", "cohort-cycle", ERROR,
          "A Cohort whose `spec.parentName` chain loops (or leads into a loop), or a ClusterQueue whose cohort is "
          "such a Cohort: no webhook refuses it, and Kueue logs `cohort has a cycle` and keeps every ClusterQueue "
          "under it inactive (pkg/cache/hierarchy/cycle.go, pkg/cache/scheduler/cache.go). The message names the "
          "chain. Checked among the Cohorts at hand (live: every Cohort).",
          "Break the loop: make one Cohort of it a root (remove its parentName) or point it at a Cohort outside "
          "the loop.",
          "ClusterQueue, Cohort"),
)

# PD414-PD416: the PD frameworks Kueue admits: LeaderWorkerSet, DisaggregatedSet, Deployments, KServe's
# LLMInferenceService (lint/frameworks.py; issue 47)
RULES += (
    _rule("PD414", "roles-admitted-apart", WARNING,
          "A prefill/decode deployment whose roles Kueue admits apart: a DisaggregatedSet (one LeaderWorkerSet per "
          "role, so one Workload per role per group), an LLMInferenceService with `spec.prefill` (two Deployments "
          "or two LWS), or LWS or Deployments that are the roles of one deployment (the same namespace and "
          "`app.kubernetes.io/instance`, `part-of`, `name`, `llm-d.ai/model` or `app` label, different "
          "`llm-d.ai/role`, `disaggregatedset.x-k8s.io/role`, `app.kubernetes.io/component` or `role`, one of them "
          "prefill or decode, one under a queue). One role can hold its quota while another waits, and the "
          "deployment serves nothing. Params: roles or role and peers, framework.",
          "For atomic admission, run the roles as one pod group (one Workload, all admitted or none), as `kubectl "
          "pd create --target pods` writes it. No released Kueue has a DisaggregatedSet integration (PR #14833, "
          "alpha gate DisaggregatedSetIntegration, is open).",
          "DisaggregatedSet, LeaderWorkerSet, Deployment, LLMInferenceService"),
    _rule("PD415", "queue-label-not-carried", ERROR,
          "A `kueue.x-k8s.io/queue-name` label where the framework does not carry it to what Kueue manages: on a "
          "DisaggregatedSet's own metadata while a role's `spec.roles[i].metadata.labels` lacks it (each role's "
          "LWS gets only those: LWS v0.9.0 lws_manager.go), or in an LLMInferenceService's `spec.labels` or "
          "`spec.prefill.labels` (KServe puts them on the Pods only, never on the Deployments or LWS it makes). "
          "Params: queue, roles or from, to.",
          "Put the label in each role's metadata.labels (DisaggregatedSet) or in the LLMInferenceService's "
          "metadata.labels; `kubectl pd lint --fix` does it.",
          "DisaggregatedSet, LLMInferenceService"),
    _rule("PD416", "group-never-fits", ERROR,
          "A LeaderWorkerSet group (Kueue's pod sets: `leader` 1 and `worker` size-1, or `main` size; per-Pod "
          "requests as Kueue counts them) that no choice of its ClusterQueue's flavors can ever hold (nominal "
          "quota, plus the borrowing limit in a cohort), in the queue's own units (`nvidia.com/gpu` cards, "
          "GPUStack credits, cpu and memory their own). Judged when the queue was read (live: the LocalQueue and "
          "its ClusterQueue; files: both among the inputs); otherwise a note says it was not. A DisaggregatedSet's "
          "roles are judged each. Params: resource, unit, need, most, flavor, clusterQueue, localQueue, size.",
          "Make the group smaller (size, per-Pod requests) or give the queue a flavor that can hold it.",
          "LeaderWorkerSet, DisaggregatedSet"),
)

# PD5xx: the CRD's own schema and CEL rules (lint/schema/), when the CRD is known
RULES += (
    _rule("PD501", "schema-violation", ERROR,
          "What the object's CRD schema refuses: a wrong type, a missing required field, a value outside an "
          "enum, a pattern, length, range or item limit, a string format (date-time, byte, uuid, ip, cidr, ...), an "
          "anyOf/allOf/oneOf/not, a duplicate list-map key, an unknown field. Checked when "
          "the CRD is known: live (read with GET), a CRD among the inputs, or `--crd PATH`. Quotes the API "
          "server (`Unsupported value`, `in body should match`, `must be of type`).",
          "Change the field as the message says; `kubectl explain KIND.FIELD` shows the schema.",
          "any object whose CRD is known"),
    _rule("PD502", "cel-rule", ERROR,
          "An `x-kubernetes-validations` CEL rule of the CRD that the object fails, with the rule's own message "
          "(`Invalid value: \"object\": <message>`). Kubernetes' quantity and lists libraries (`quantity()`, "
          "`isSorted()`, ...) are evaluated; a rule using another Kubernetes-only function is not, and a note "
          "names it.",
          "Change the object so the rule holds; the message is the CRD author's.",
          "any object whose CRD is known"),
)


_ALL = {e.id: e for e in REASONS + CHECKS + RULES}


def entry(id: str) -> Entry:
    return _ALL[id]


def reason_priority(code: str) -> int:
    e = _ALL.get(code)
    return e.priority if e is not None and e.kind == REASON else len(REASONS)


def _row(*cells: str) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") or " " for c in cells) + " |"


def reasons_table() -> str:
    """why-pending's codes, in priority order (the first found is the headline)."""
    out = ["| code | severity | meaning | where it comes from |", "|---|---|---|---|"]
    out += [_row(f"`{e.id}`", e.severity, e.summary, e.source) for e in REASONS]
    return "\n".join(out) + "\n"


def rules_table() -> str:
    out = ["| id | name | severity | applies to | what | fix |", "|---|---|---|---|---|---|"]
    out += [_row(e.id, e.name, e.severity, e.applies_to, e.summary, e.remediation) for e in RULES]
    return "\n".join(out) + "\n"


def checks_table() -> str:
    out = ["| check | severity | what | fix |", "|---|---|---|---|"]
    out += [_row(f"`{e.id}`", e.severity, e.summary, e.remediation) for e in CHECKS]
    return "\n".join(out) + "\n"


TABLES = {"reasons": reasons_table, "rules": rules_table, "checks": checks_table}


def render_docs(text: str) -> str:
    """`text` with every `<!-- registry:NAME -->` ... `<!-- /registry:NAME -->` section regenerated."""
    for name, make in TABLES.items():
        start, end = f"<!-- registry:{name} -->", f"<!-- /registry:{name} -->"
        i, j = text.find(start), text.find(end)
        if i != -1 and j > i:
            text = text[: i + len(start)] + "\n" + make() + text[j:]
    return text
