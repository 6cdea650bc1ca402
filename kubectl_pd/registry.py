"""One registry of everything the tool can say: why-pending reasons, lint rules and create checks.

Each entry has a stable id, a kebab name, a severity, a priority (lower = shown first), a one-line
summary and a remediation. The core returns ids with parameters; printers turn them into English and
the docs' tables are generated from here (`tables()`), so none of them can drift.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def _rule(id: str, name: str, severity: str, summary: str, remediation: str, applies_to: str) -> Entry:
    return Entry(id, name, RULE, severity, summary, remediation, applies_to, int(id[2:]))


def _reasons(*rows: tuple[str, str, str, str]) -> tuple[Entry, ...]:
    """Reasons in priority order: the first one found is the headline."""
    out = []
    for i, (code, severity, summary, remediation) in enumerate(rows):
        name = "".join("-" + c.lower() if c.isupper() else c for c in code).lstrip("-")
        out.append(Entry(code, name, REASON, severity, summary, remediation, "why-pending", i))
    return tuple(out)


REASONS: tuple[Entry, ...] = _reasons(
    ("PodGroupInvalid", ERROR, "Kueue refuses to compose the pod group (queue names or total counts disagree, "
     "fast admission, too many roles).", "Recreate the group's pods with one queue name and one total count."),
    ("LocalQueueMissing", ERROR, "The LocalQueue the pods name does not exist in the namespace.",
     "Create the LocalQueue, or fix the kueue.x-k8s.io/queue-name label."),
    ("LocalQueueStopped", ERROR, "The LocalQueue is stopped (spec.stopPolicy) or inactive.",
     "Clear the LocalQueue's stopPolicy."),
    ("ClusterQueueMissing", ERROR, "The LocalQueue points at a ClusterQueue that does not exist.",
     "Create the ClusterQueue, or point the LocalQueue at an existing one."),
    ("ClusterQueueStopped", ERROR, "The ClusterQueue is stopped (spec.stopPolicy Hold or HoldAndDrain).",
     "Clear the ClusterQueue's stopPolicy."),
    ("ClusterQueueInactive", ERROR, "The ClusterQueue is inactive (a flavor or admission check is missing).",
     "Create what its Active condition names; `kubectl pd lint` shows what Kueue refuses."),
    ("NamespaceNotAllowed", ERROR, "The ClusterQueue's namespaceSelector does not admit the namespace.",
     "Label the namespace, or widen the selector."),
    ("InvalidResources", ERROR, "Kueue refuses the pods' resource requests (requests above limits, "
     "LimitRange maxima) before assigning flavors.", "Fix the requests and limits of the pod template."),
    ("ResourceNotCovered", ERROR, "A role requests a resource no resource group of the ClusterQueue covers.",
     "Add the resource to coveredResources, or drop the request."),
    ("Deactivated", ERROR, "The Workload is deactivated (spec.active false, or parked by a check).",
     "Free capacity, then reactivate the Workload."),
    ("AdmissionCheckRejected", ERROR, "An admission check rejected the Workload.",
     "Fix what the check reports, then reactivate."),
    ("Evicted", WARNING, "The Workload was evicted and requeued.", "See the eviction reason."),
    ("PodGroupIncomplete", WARNING, "Not every pod of the group exists: Kueue composes no Workload yet.",
     "Create the missing pods, or find why the operator does not."),
    ("WorkloadMissing", WARNING, "The group is complete but no Workload has been composed.",
     "Check Kueue's pod integration and the controller's health."),
    ("QuotaExceedsCapacity", ERROR, "A role asks more than its flavor can ever give, borrowing included.",
     "Raise nominalQuota (or borrowingLimit), or ask for less."),
    ("NoMatchingFlavor", ERROR, "No flavor of the queue takes the role (node labels, taints, missing flavors).",
     "Fix the role's nodeSelector/tolerations, or the flavors' nodeLabels/nodeTaints."),
    ("QuotaUnknown", WARNING, "A quota, usage or cohort the verdict needs could not be read: fits or not is "
     "unknown.", "Fix the unreadable quantity, or grant read access to ClusterQueues and Cohorts."),
    ("NeedsPreemption", WARNING, "The role fits the queue's quota only by preempting other Workloads.",
     "Wait for Kueue to preempt, or free quota yourself."),
    ("QuotaExhausted", WARNING, "Not enough unused quota now; it would fit once other Workloads finish.",
     "Free quota in the flavor, or scale the role down."),
    ("PreemptionInProgress", INFO, "Kueue is preempting other Workloads to make room.", "Wait."),
    ("WaitingForPodsReady", INFO, "Kueue holds admissions until admitted Workloads' pods are ready.", "Wait."),
    ("AdmissionCheckPending", INFO, "Quota is reserved; an admission check has not answered Ready.",
     "Wait, or see the check's message."),
    ("WaitingInQueue", INFO, "Waiting for the scheduler to reach the Workload.", "Wait."),
    ("Unknown", WARNING, "Nothing read explains the state.", "kubectl describe the Workload."),
    ("NotPending", INFO, "Every pod group is admitted.", ""),
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
    ("waits-for-quota", WARNING, "The deployment fits the pool but not its unused quota now (why-pending would "
     "say QuotaExhausted or NeedsPreemption).", "Expect it to stay pending until quota frees."),
    ("fit-unknown", WARNING, "Whether the deployment fits could not be decided (an unreadable quota, a cohort "
     "that could not be read).", "Grant read access to ClusterQueues and Cohorts."),
    ("joint-check", WARNING, "per-replica: the ClusterQueue references the joint admission check.",
     "Add gpustack-model-deployment-joint to the queue's admission checks."),
    ("skipped", WARNING, "A check could not be made (RBAC).", "Ask for read access."),
)))

RULES: tuple[Entry, ...] = (
    _rule("PD101", "duplicate-covered-resource", ERROR,
         "A resource is covered by more than one resource group (Kueue keeps one set of covered "
         "resources across all groups and refuses the later occurrence).",
         "Merge groups that cover the same resources into one group (keep the flavor order); a group may "
         "hold 64 flavors on Kueue 0.14+. `kubectl pd lint --fix` does this when the groups are identical.",
         "ClusterQueue, Cohort"),
    _rule("PD102", "duplicate-flavor", ERROR,
         "A flavor appears in two resource groups, or twice in one.",
         "Keep each ResourceFlavor once in the whole ClusterQueue; drop the repeated entry.",
         "ClusterQueue, Cohort"),
    _rule("PD103", "too-many-resource-groups", ERROR,
         "More than 16 resource groups.",
         "Merge groups: at most 16 resource groups are allowed.",
         "ClusterQueue, Cohort"),
    _rule("PD104", "too-many-flavors", ERROR,
         "A group with no flavor or more than Kueue allows (64, or 16 before 0.14), or more than 256 in all.",
         "Use fewer flavors: coarser ResourceFlavors, or split the pool into several ClusterQueues.",
         "ClusterQueue, Cohort"),
    _rule("PD105", "too-many-covered-resources", ERROR,
         "A group covering no resource or more than Kueue allows (64, or 16 before 0.14), or more than 256 "
         "in all.",
         "Cover fewer resources: drop resources no workload requests.",
         "ClusterQueue, Cohort"),
    _rule("PD106", "flavor-resources-mismatch", ERROR,
         "A flavor's resources differ from the group's coveredResources in number or order, or repeat one.",
         "List exactly the coveredResources in every flavor, in the same order.",
         "ClusterQueue, Cohort"),
    _rule("PD107", "too-many-flavor-resources", ERROR,
         "More than 512 flavor x resource entries in one group (Kueue 0.14+).",
         "Use fewer flavors or fewer covered resources in the group.",
         "ClusterQueue, Cohort"),
    _rule("PD108", "invalid-quantity", ERROR,
         "A nominalQuota, borrowingLimit or lendingLimit that is missing, unparseable or negative.",
         "Write a non-negative Kubernetes quantity such as 4, 500m, 64Gi or 1600k.",
         "ClusterQueue, Cohort"),
    _rule("PD109", "limit-without-cohort", ERROR,
         "A borrowingLimit or lendingLimit on a queue that is in no cohort.",
         "Set spec.cohortName (spec.cohort in v1beta1), or remove the limit: with no cohort there is "
         "nothing to borrow from or lend to.",
         "ClusterQueue, Cohort"),
    _rule("PD110", "lending-limit-exceeds-nominal", ERROR,
         "A lendingLimit above the nominalQuota.",
         "Lower lendingLimit to at most nominalQuota.",
         "ClusterQueue"),
    _rule("PD111", "flavor-not-found", ERROR,
         "A referenced ResourceFlavor does not exist (Kueue keeps the queue inactive: FlavorNotFound).",
         "Create the ResourceFlavor, or remove it from the queue.",
         "ClusterQueue, Cohort"),
    _rule("PD112", "admission-check-not-found", ERROR,
         "A referenced AdmissionCheck does not exist (Kueue keeps the queue inactive: AdmissionCheckNotFound).",
         "Create the AdmissionCheck, or remove it from spec.admissionChecksStrategy.",
         "ClusterQueue"),
    _rule("PD201", "gpustack-single-group", ERROR,
         "A GPUStack queue with more than one resource group: it covers one resource, so it can have only "
         "one group.",
         "Put every flavor in one group (up to 64); `kubectl pd lint --fix` merges a 16-flavor split.",
         "GPUStack ClusterQueue"),
    _rule("PD202", "gpustack-covered-resource", ERROR,
         "A GPUStack queue covering anything but exactly credits.gpustack.ai/<manufacturer> or cpu.",
         "Cover exactly one resource: credits.gpustack.ai/<manufacturer> for an accelerated pool, cpu "
         "otherwise.",
         "GPUStack ClusterQueue"),
    _rule("PD203", "gpustack-credit-multiple", WARNING,
         "A credits quota that is not a whole number of cards (1,600,000 credits per card).",
         "Use a multiple of 1600k credits per card.",
         "GPUStack ClusterQueue"),
    _rule("PD301", "roles-count", ERROR,
         "A ModelDeployment with fewer than 1 or more than 10 roles.",
         "Declare 1 to 10 roles.",
         "ModelDeployment"),
    _rule("PD302", "role-name", ERROR,
         "A role name that is not a DNS label (^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, at most 63) or is repeated.",
         "Use unique lowercase role names such as prefill and decode.",
         "ModelDeployment"),
    _rule("PD303", "instance-type-mismatch", ERROR,
         "pd-atomic: roles on different instanceTypes, so they cannot be admitted as one Workload.",
         "Keep every role on one instanceType; choose hardware inside the pool with acceleratorKey.",
         "ModelDeployment"),
    _rule("PD304", "role-kind", ERROR,
         "A role kind other than server/prefill/decode, server mixed with prefill/decode, or prefill or "
         "decode twice.",
         "Use prefill and decode roles (one each), or server roles only.",
         "ModelDeployment"),
    _rule("PD305", "replicas", ERROR,
         "A role with fewer than 1 replica.",
         "Set replicas to 1 or more.",
         "ModelDeployment"),
    _rule("PD306", "accelerator-key", ERROR,
         "An acceleratorKey that is not <manufacturer>-<model>, or that no flavor of the role's pool offers.",
         "Use a key the pool's ResourceFlavors carry as acceleratable.feature.gpustack.ai/<key>.",
         "ModelDeployment"),
)


_ALL = {e.id: e for e in REASONS + CHECKS + RULES}


def entry(id: str) -> Entry:
    return _ALL[id]


def reason_priority(code: str) -> int:
    e = _ALL.get(code)
    return e.priority if e is not None and e.kind == REASON else len(REASONS)


def tables() -> str:
    """The Markdown tables of the README/docs, generated from the entries."""
    out = ["| reason | severity | meaning | what to do |", "|---|---|---|---|"]
    out += [f"| `{e.id}` | {e.severity} | {e.summary} | {e.remediation} |" for e in REASONS]
    out += ["", "| rule | name | severity | applies to | what it finds | fix |", "|---|---|---|---|---|---|"]
    out += [f"| `{e.id}` | `{e.name}` | {e.severity} | {e.applies_to} | {e.summary} | {e.remediation} |"
            for e in RULES]
    out += ["", "| create check | severity | what it checks | fix |", "|---|---|---|---|"]
    out += [f"| `{e.id}` | {e.severity} | {e.summary} | {e.remediation} |" for e in CHECKS]
    return "\n".join(out).replace("|  |", "| |") + "\n"
