"""The rule registry: every lint rule's stable id, kebab name, severity, summary and remediation.

Rules are data (DESIGN principle 4): the checks produce findings that name a rule by id, and every
reporter (text, JSON, YAML, SARIF) reads the descriptions from here.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    summary: str
    remediation: str
    applies_to: str  # what kind of object the rule reads, for the docs and SARIF help


_RULES: tuple[Rule, ...] = (
    Rule("PD101", "duplicate-covered-resource", ERROR,
         "A resource is covered by more than one resource group (Kueue keeps one set of covered "
         "resources across all groups and refuses the later occurrence).",
         "Merge groups that cover the same resources into one group (keep the flavor order); a group may "
         "hold 64 flavors on Kueue 0.14+. `kubectl pd lint --fix` does this when the groups are identical.",
         "ClusterQueue, Cohort"),
    Rule("PD102", "duplicate-flavor", ERROR,
         "A flavor appears in two resource groups, or twice in one.",
         "Keep each ResourceFlavor once in the whole ClusterQueue; drop the repeated entry.",
         "ClusterQueue, Cohort"),
    Rule("PD103", "too-many-resource-groups", ERROR,
         "More than 16 resource groups.",
         "Merge groups: at most 16 resource groups are allowed.",
         "ClusterQueue, Cohort"),
    Rule("PD104", "too-many-flavors", ERROR,
         "A group with no flavor or more than Kueue allows (64, or 16 before 0.14), or more than 256 in all.",
         "Use fewer flavors: coarser ResourceFlavors, or split the pool into several ClusterQueues.",
         "ClusterQueue, Cohort"),
    Rule("PD105", "too-many-covered-resources", ERROR,
         "A group covering no resource or more than Kueue allows (64, or 16 before 0.14), or more than 256 "
         "in all.",
         "Cover fewer resources: drop resources no workload requests.",
         "ClusterQueue, Cohort"),
    Rule("PD106", "flavor-resources-mismatch", ERROR,
         "A flavor's resources differ from the group's coveredResources in number or order, or repeat one.",
         "List exactly the coveredResources in every flavor, in the same order.",
         "ClusterQueue, Cohort"),
    Rule("PD107", "too-many-flavor-resources", ERROR,
         "More than 512 flavor x resource entries in one group (Kueue 0.14+).",
         "Use fewer flavors or fewer covered resources in the group.",
         "ClusterQueue, Cohort"),
    Rule("PD108", "invalid-quantity", ERROR,
         "A nominalQuota, borrowingLimit or lendingLimit that is missing, unparseable or negative.",
         "Write a non-negative Kubernetes quantity such as 4, 500m, 64Gi or 1600k.",
         "ClusterQueue, Cohort"),
    Rule("PD109", "limit-without-cohort", ERROR,
         "A borrowingLimit or lendingLimit on a queue that is in no cohort.",
         "Set spec.cohortName (spec.cohort in v1beta1), or remove the limit: with no cohort there is "
         "nothing to borrow from or lend to.",
         "ClusterQueue, Cohort"),
    Rule("PD110", "lending-limit-exceeds-nominal", ERROR,
         "A lendingLimit above the nominalQuota.",
         "Lower lendingLimit to at most nominalQuota.",
         "ClusterQueue"),
    Rule("PD111", "flavor-not-found", ERROR,
         "A referenced ResourceFlavor does not exist (Kueue keeps the queue inactive: FlavorNotFound).",
         "Create the ResourceFlavor, or remove it from the queue.",
         "ClusterQueue, Cohort"),
    Rule("PD112", "admission-check-not-found", ERROR,
         "A referenced AdmissionCheck does not exist (Kueue keeps the queue inactive: AdmissionCheckNotFound).",
         "Create the AdmissionCheck, or remove it from spec.admissionChecksStrategy.",
         "ClusterQueue"),
    Rule("PD201", "gpustack-single-group", ERROR,
         "A GPUStack queue with more than one resource group: it covers one resource, so it can have only "
         "one group.",
         "Put every flavor in one group (up to 64); `kubectl pd lint --fix` merges a 16-flavor split.",
         "GPUStack ClusterQueue"),
    Rule("PD202", "gpustack-covered-resource", ERROR,
         "A GPUStack queue covering anything but exactly credits.gpustack.ai/<manufacturer> or cpu.",
         "Cover exactly one resource: credits.gpustack.ai/<manufacturer> for an accelerated pool, cpu "
         "otherwise.",
         "GPUStack ClusterQueue"),
    Rule("PD203", "gpustack-credit-multiple", WARNING,
         "A credits quota that is not a whole number of cards (1,600,000 credits per card).",
         "Use a multiple of 1600k credits per card.",
         "GPUStack ClusterQueue"),
    Rule("PD301", "roles-count", ERROR,
         "A ModelDeployment with fewer than 1 or more than 10 roles.",
         "Declare 1 to 10 roles.",
         "ModelDeployment"),
    Rule("PD302", "role-name", ERROR,
         "A role name that is not a DNS label (^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, at most 63) or is repeated.",
         "Use unique lowercase role names such as prefill and decode.",
         "ModelDeployment"),
    Rule("PD303", "instance-type-mismatch", ERROR,
         "pd-atomic: roles on different instanceTypes, so they cannot be admitted as one Workload.",
         "Keep every role on one instanceType; choose hardware inside the pool with acceleratorKey.",
         "ModelDeployment"),
    Rule("PD304", "role-kind", ERROR,
         "A role kind other than server/prefill/decode, server mixed with prefill/decode, or prefill or "
         "decode twice.",
         "Use prefill and decode roles (one each), or server roles only.",
         "ModelDeployment"),
    Rule("PD305", "replicas", ERROR,
         "A role with fewer than 1 replica.",
         "Set replicas to 1 or more.",
         "ModelDeployment"),
    Rule("PD306", "accelerator-key", ERROR,
         "An acceleratorKey that is not <manufacturer>-<model>, or that no flavor of the role's pool offers.",
         "Use a key the pool's ResourceFlavors carry as acceleratable.feature.gpustack.ai/<key>.",
         "ModelDeployment"),
)

RULES: dict[str, Rule] = {r.id: r for r in _RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in _RULES}

# validate_roles' rule names -> our ids
ROLE_RULES = {"roles-count": "PD301", "role-name": "PD302", "instance-type-mismatch": "PD303",
              "role-kind": "PD304", "replicas": "PD305", "accelerator-key": "PD306"}


def all_rules() -> tuple[Rule, ...]:
    return _RULES


def resolve(token: str) -> Rule | None:
    """A rule by id (`PD203`, any case) or by name (`gpustack-single-group`)."""
    t = token.strip()
    return RULES.get(t.upper()) or BY_NAME.get(t.lower())
