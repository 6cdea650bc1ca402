"""The published JSON contract: the `schemaVersion` of every `-o json` document of why-pending, lint and create's
preflight, and the JSON Schemas they obey (kubectl_pd/agent/schemas.py, printed by `kubectl pd schema`, copied to
docs/schema/). MAJOR.MINOR: a key added (optional, or to an object that already allows it) bumps MINOR; a key
removed or renamed, a type or a meaning changed, a value no longer possible bumps MAJOR. docs/agents.md says it in
full; tests/test_schema.py holds every golden document to its schema."""

from __future__ import annotations

WHY_PENDING = "1.8"  # 1.8: the list with no TARGET (-A) names a PD framework's group by its owner (target.kind
# LeaderWorkerSet, DisaggregatedSet or Deployment and its name) with that group's one Workload in workloads[] (its
# role and group), where 1.7 named the pod group or Workload; multikueue.next[] (the MultiKueue block's steps as
# data: code, message, params); the reason code MultiKueueNoWorkerFits (a manager whose workers can never hold the
# group: its headline); reasons[].params (issue 46) kueueSaidAt (when Kueue wrote the message shown), kueueDisagrees
# (a figure of Kueue's the state read contradicts), kueueSays (Kueue's other flavor), nodeFit and nodes (a quota raise
# against the flavor's Nodes), nodesTooSmall, heldByFinalizers, evicting/podsDeleting, rolesSeen;
# 1.7: workloads[] (a deployment of many Workloads), the PartlyAdmitted code, target.kind the
# frameworks' kinds (LeaderWorkerSet, DisaggregatedSet, Deployment, StatefulSet, LLMInferenceService);
# 1.6: multikueue.workers[].preemption (holders, preemptedBy): each worker's own preemption part;
# 1.5: multikueue.workloads[] in the list (no TARGET): each Workload's worker;
# 1.4: multikueue (the manager's MultiKueue state and each worker's read and verdict);
# 1.3: quota[].lent; the list document's incomplete[]; pods.want null when unknown;
# deployment.conditions[] and the phase note for v1alpha1 too
LINT = "1.3"  # 1.3: rules PD414-PD416 (the PD frameworks), summary.unread; 1.2: rule PD413 cohort-cycle
PREFLIGHT = "1.4"  # 1.4: findings[].check integration-off (Kueue's configuration does not manage the target's
# objects), params framework, frameworks, source; 1.3: target.kind LeaderWorkerSet and DisaggregatedSet (create
# --target lws|disaggregatedset), findings[].check admitted-apart, params.podSet; 1.2: findings[].check
# priority-class (create --priority-class)
TREE = "1.1"  # 1.1: kind the PD frameworks' kinds (LeaderWorkerSet, DisaggregatedSet, Deployment, StatefulSet,
# LLMInferenceService)
CAPACITY = "1.3"  # 1.3: target.kind the PD frameworks' kinds (LeaderWorkerSet, DisaggregatedSet, Deployment,
# StatefulSet, LLMInferenceService) and target.workloads[] (the Workload each role's copy is modeled on);
# 1.2: perRole[].now null (a quota of unknown size before any replica);
# 1.1: nodes[]; next.node and next.nodes with the code PodsUnschedulable
QUEUES = "1.1"  # 1.1: cohorts[].quota and cohorts[].cycle; borrowing[].lent, cohortQuota, unattributed

VERSIONS = {"why-pending": WHY_PENDING, "lint": LINT, "preflight": PREFLIGHT, "tree": TREE, "capacity": CAPACITY,
            "queues": QUEUES}
