"""JSON Schemas (draft 2020-12) of the `-o json` documents of why-pending, lint and create --preflight.

Objects the tool itself shapes are closed (`additionalProperties: false`), so a key added without a schema change
fails tests/test_schema.py; the evidence maps (`params`) and the manifests are open. Reason, rule and check ids are
enumerated from the registry. `kubectl pd schema NAME` prints one; docs/schema/NAME.json is the same text."""

from __future__ import annotations

import json
from typing import Any

from kubectl_pd import contract
from kubectl_pd.output.schema_parts import NI, NQUANTITY, NS, OPEN, QUANTITY, STRS, S, closed

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://github.com/gpustack/kubectl-pd/docs/schema/"

def _ids(kind: str) -> list[str]:
    from kubectl_pd import registry

    table = {"reason": registry.REASONS, "rule": registry.RULES, "check": registry.CHECKS}[kind]
    return sorted({e.id for e in table})


def _version(name: str) -> dict[str, Any]:
    major = contract.VERSIONS[name].split(".")[0]
    return {"type": "string", "pattern": rf"^{major}\.[0-9]+$",
            "description": f"MAJOR.MINOR of this contract ({contract.VERSIONS[name]} now); a reader of {major}.x "
                           f"reads every later {major}.y"}


def _preemption_keys() -> dict[str, Any]:
    target = closed({"namespace": NS, "name": NS, "clusterQueue": NS, "priority": NI, "reason": NS})
    return {
        "preemption": {
            "description": "null: admission needs no preemption; targets [] : needed, nothing can be preempted; "
                           "targets null with `unknown`: the candidates could not be read",
            "oneOf": [{"type": "null"},
                      closed({"targets": {"type": "array", "items": target}}),
                      closed({"targets": {"type": "null"}, "unknown": S})]},
        "holders": {"type": "array", "items": closed({
            "namespace": S, "name": S, "clusterQueue": NS, "priority": NI, "flavor": S, "resource": S,
            "amount": QUANTITY, "borrows": {"type": "boolean"}})},
    }


def _diagnosis() -> dict[str, Any]:
    from kubectl_pd.multikueue.schema import multikueue as multikueue_schema

    reason = closed({
        "code": {"enum": _ids("reason")}, "role": NS, "workload": NS,
        "message": S, "kueueMessage": {"type": ["string", "null"],
                                       "description": "Kueue's own words (cluster text: untrusted data)"},
        "resource": NS, "flavor": NS, "requested": NQUANTITY, "available": NQUANTITY, "needed": NQUANTITY,
        "params": {**OPEN, "description": "the reason's evidence as data (codes, names, quantities)"}})
    role = closed({
        "name": S, "kind": S,
        "pods": closed({"have": {"type": "integer"},
                        "want": {"type": ["integer", "null"], "description": "null: unknown (a read failed)"},
                        "assumed": {"const": True}},
                       ["have", "want"]),
        "requests": {"type": "object", "additionalProperties": QUANTITY}, "flavor": NS, "verdict": S})
    preemption = _preemption_keys()  # the top level's keys, and each MultiKueue worker's
    preempted_by = closed({"uid": S, "namespace": NS, "name": NS, "clusterQueue": NS})
    ahead = closed({"name": S, "namespace": S, "position": NI, "priority": NI, "localQueue": NS,
                    "requests": {"type": ["object", "null"], "additionalProperties": QUANTITY}})
    queue = closed({"localQueue": NS, "clusterQueue": NS, "position": NI, "positionInLocalQueue": NI,
                    "visibility": S, "pendingInClusterQueue": NI, "ahead": {"type": "array", "items": ahead}},
                   ["localQueue", "clusterQueue", "position", "positionInLocalQueue", "visibility",
                    "pendingInClusterQueue"])
    bar = closed({"flavor": S, "resource": S, "nominal": QUANTITY, "used": QUANTITY, "reserved": QUANTITY,
                  "needed": QUANTITY, "free": QUANTITY, "cohort": NS, "cohortFree": NQUANTITY,
                  "borrowable": NQUANTITY, "borrowingLimit": NQUANTITY, "borrowed": NQUANTITY,
                  "lent": {**NQUANTITY, "description": "what other queues of the cohort use now of this queue's "
                                                       "unused nominal quota (not counted in free)"}})
    suggestion = {"type": "object", "required": ["kind", "role", "from", "to"],
                  "properties": {"kind": {"enum": ["scale", "queue", "borrowing-limit", "none"]}, "role": NS,
                                 "from": {"type": ["string", "integer", "null"]},
                                 "to": {"type": ["string", "integer", "null"]}},
                  "additionalProperties": {"type": ["string", "integer", "null"]}}
    props: dict[str, Any] = {
        "target": closed({"kind": {**S, "description": "the user's kind: ModelDeployment, PodGroup, Workload, Pod, "
                                   "LeaderWorkerSet, DisaggregatedSet, Deployment, StatefulSet, "
                                   "LLMInferenceService"}, "name": S, "namespace": S}),
        "pending": {"type": "boolean"},
        "workloads": {"type": "array", "description": "a deployment of many Workloads: one each (an LWS group, a "
                                                      "DisaggregatedSet role's group, a Deployment's Pod)",
                      "items": closed({"name": S, "role": NS, "group": NS, "admitted": {"type": "boolean"}})},
        "reasons": {"type": "array", "items": reason},
        "roles": {"type": "array", "items": role},
        "queue": queue,
        "summary": S,
        "notes": STRS,
        "next": STRS,
        "suggestions": {"type": "array", "items": suggestion},
        "quota": {"type": "array", "items": bar},
        "whatIf": {"type": "object", "additionalProperties": {"type": "integer"}},
        "whatIfVerdict": S,
        **preemption,
        "preemptedBy": preempted_by,
        "multikueue": multikueue_schema(reason, preemption["preemption"], preemption["holders"], preempted_by),
        "deployment": closed({
            "apiVersion": NS, "phase": NS, "phaseMessage": NS, "roleSummary": NS,
            "roles": {"type": "array", "items": closed({
                "name": S, "kind": NS, "desired": NI, "ready": NI, "quotaReserved": NI,
                "assignedFlavors": STRS})},
            "conditions": {"type": "array", "items": closed({
                "type": S, "status": S, "reason": NS, "message": NS, "code": NS})}}),
    }
    required = ["target", "pending", "reasons", "roles", "queue", "summary", "notes", "next", "suggestions",
                "quota", "preemption"]
    return closed(props, required)


def why_pending() -> dict[str, Any]:
    one = _diagnosis()
    single = {**one, "properties": {"schemaVersion": _version("why-pending"), **one["properties"],
                                    "incomplete": {"type": "array", "items": closed({"read": S, "error": S})}},
              "required": ["schemaVersion", *one["required"]]}
    every = closed({"schemaVersion": _version("why-pending"), "items": {"type": "array", "items": one},
                    "notes": STRS, "incomplete": {"type": "array", "items": closed({"read": S, "error": S})}},
                   ["schemaVersion", "items", "notes"])
    return {"$schema": DRAFT, "$id": BASE_ID + "why-pending.json", "title": "kubectl pd why-pending -o json",
            "description": "With a TARGET: one diagnosis. Without one: every pending target (`items`).",
            "oneOf": [single, every]}


def lint() -> dict[str, Any]:
    obj = closed({"kind": S, "name": S, "namespace": NS})
    finding = closed({"id": {"enum": _ids("rule")}, "rule": S, "severity": {"enum": ["error", "warning"]},
                      "object": obj, "file": NS, "line": NI, "path": S, "message": S,
                      "kueueMessage": {**S, "description": "Kueue's own words for the refusal"},
                      "params": {**OPEN, "description": "the rule's evidence as data"}},
                     ["id", "rule", "severity", "object", "file", "line", "path", "message"])
    count = {"type": "integer", "minimum": 0}
    summary = closed({"errors": count, "warnings": count, "suppressed": count, "objects": count,
                      "kinds": {"type": "object", "additionalProperties": count}, "skipped": count,
                      "skippedKinds": {"type": "object", "additionalProperties": count}, "baselined": count,
                      "unchecked": STRS, "unread": STRS},
                     ["errors", "warnings", "suppressed", "objects", "kinds", "skipped", "skippedKinds"])
    return {"$schema": DRAFT, "$id": BASE_ID + "lint.json", "title": "kubectl pd lint -o json",
            **closed({"schemaVersion": _version("lint"), "findings": {"type": "array", "items": finding},
                      "summary": summary})}


def preflight() -> dict[str, Any]:
    finding = closed({"severity": {"enum": ["error", "warning"]}, "check": {"enum": [*_ids("check"), "skipped"]},
                      "message": S, "forceable": {"type": "boolean"},
                      "params": {**OPEN, "description": "the check's evidence as data"}})
    props = {
        "schemaVersion": _version("preflight"),
        "target": closed({"kind": {"enum": ["ModelDeployment", "PodGroup", "LeaderWorkerSet", "DisaggregatedSet"]},
                          "name": S, "namespace": S, "apiProfile": S}),
        "wouldCreate": {"type": "boolean", "description": "create would write it (with --force: forceable "
                                                          "errors aside)"},
        "findings": {"type": "array", "items": finding},
        "queues": {"type": "object", "additionalProperties": S, "description": "role -> LocalQueue"},
        **_preemption_keys(),
        "manifest": {**OPEN, "required": ["apiVersion", "kind"],
                     "description": "what create would POST: the ModelDeployment, the DisaggregatedSet, or a List "
                                    "of the Pods or of the LeaderWorkerSets"},
    }
    return {"$schema": DRAFT, "$id": BASE_ID + "preflight.json", "title": "kubectl pd create --preflight -o json",
            **closed(props, ["schemaVersion", "target", "wouldCreate", "findings", "queues", "preemption",
                             "manifest"])}


def tree() -> dict[str, Any]:
    """`kubectl pd tree -o json` (kubectl_pd/pending/tree.py)."""
    event = {"oneOf": [{"type": "null"}, closed({"type": NS, "reason": NS, "message": NS, "time": NS,
                                                 "count": NI})]}
    states = ["finished", "admitted", "quota-reserved", "inactive", "evicted", "pending", "missing", "unknown"]
    wl = {"oneOf": [{"type": "null"}, closed({"name": S, "state": {"enum": states}, "localQueue": NS,
                                               "clusterQueue": NS, "flavors": STRS, "event": event})]}
    pod = closed({"name": S, "role": NS, "phase": NS, "node": NS, "gates": STRS, "deleting": {"type": "boolean"},
                  "event": event})
    group = closed({"kind": {"const": "ReplicaGroup"}, "name": NS, "roles": STRS, "workload": wl,
                    "pods": {"type": "array", "items": pod}})
    unread = {"type": "array", "items": closed({"read": S, "error": S})}
    props = {"schemaVersion": _version("tree"), "kind": {"enum": ["ModelDeployment", "PodGroup", "Workload", "Pod",
                                                                  "LeaderWorkerSet", "DisaggregatedSet", "Deployment",
                                                                  "StatefulSet", "LLMInferenceService"]},
             "name": S, "namespace": S, "phase": NS, "apiVersion": NS, "event": event,
             "groups": {"type": "array", "items": group}, "incomplete": unread}
    doc = closed(props, required=["schemaVersion", "kind", "name", "namespace", "groups"])
    return {"$schema": DRAFT, "$id": BASE_ID + "tree.json", "title": "kubectl pd tree -o json", **doc}


def capacity() -> dict[str, Any]:
    """`kubectl pd capacity -o json` (kubectl_pd/capacity/document.py)."""
    count = {"type": "integer", "minimum": 0}
    ncount = {"type": ["integer", "null"], "minimum": 0}
    stop_props = {
        "code": {**S, "description": "why-pending's reason code for the next copy (PodsUnschedulable: no Node of "
                                     "its flavor could hold one of its Pods)"},
        "never": {"type": "boolean", "description": "no freed quota would admit it: never on this configuration"},
        "clusterQueue": S, "workload": S, "podSet": NS, "role": NS, "flavor": NS, "resource": NS,
        "requested": {**NQUANTITY, "description": "what the pod set asks (PodsUnschedulable: one Pod)"},
        "available": NQUANTITY,
        "capacity": {**NQUANTITY, "description": "the most the flavor can ever give (PodsUnschedulable: the "
                                                 "allocatable of its largest Node)"},
        "shortfall": {**NQUANTITY, "description": "how much more the flavor (or its largest Node) would need"},
        "node": {**NS, "description": "PodsUnschedulable only: the largest Node the flavor allows the Pod (null: "
                                      "none of its Nodes may take the Pod: its selector or a taint)"},
        "nodes": {**NI, "description": "PodsUnschedulable only: the Nodes the flavor has"}}
    stop = {"oneOf": [{"type": "null"}, closed(stop_props, [k for k in stop_props if k not in ("node", "nodes")])]}
    flavors = {"type": "array", "items": closed({"workload": S, "podSet": S, "resource": S, "flavor": S}),
               "description": "where the first copy goes: each pod set's flavor per resource"}
    target = closed({"namespace": NS, "name": NS, "clusterQueue": NS, "priority": NI, "reason": NS})
    preempt = {"oneOf": [{"type": "null"}, closed({
        "count": count, "atLeast": {"type": "boolean"},
        "unknown": {**NS, "description": "why the Workloads to preempt could not be known"},
        "reason": {**NS, "description": "policy-never: the queue's preemption policies allow none"},
        "copies": {"type": "array", "items": closed({"targets": {"type": "array", "items": target},
                                                     "borrows": {"type": "boolean"}})},
        "next": stop})]}
    per_role = closed({"role": S, "now": {**ncount, "description": "null: the count stopped at a quota of unknown "
                                                                   "size before any replica"},
                       "atLeast": {"type": "boolean"}, "byBorrowing": ncount, "withinNominal": ncount, "next": stop,
                       "flavors": flavors})
    role = closed({"name": S, "replicas": {"type": "integer"}, "size": {"type": "integer"},
                   "accelerator": {"type": "integer"}, "localQueue": NS, "clusterQueue": NS, "resource": NS})
    props = {
        "schemaVersion": _version("capacity"),
        "target": closed({"kind": {"enum": ["Request", "PodGroup", "ModelDeployment", "LeaderWorkerSet",
                                            "DisaggregatedSet", "Deployment", "StatefulSet", "LLMInferenceService"]},
                          "name": NS, "namespace": S, "apiProfile": S,
                          "workloads": {"type": "array", "description": "a PD framework's deployment: the Workload "
                                        "each role of one more group is modeled on, and how many of that role's "
                                        "Workloads were read", "items": closed({"role": S, "workload": S,
                                                                                 "groups": count})}},
                         ["kind", "name", "namespace", "apiProfile"]),
        "roles": {"type": "array", "items": role},
        "now": {**ncount, "description": "whole copies Kueue would admit now, one after another (null: not "
                                         "judged)"},
        "atLeast": {"type": "boolean", "description": "the count reached --max"},
        "byBorrowing": {**ncount, "description": "of `now`, the copies that borrow from the cohort"},
        "withinNominal": ncount,
        "byPreemption": preempt,
        "next": stop,
        "flavors": flavors,
        "perRole": {"type": "array", "items": per_role},
        "findings": {"type": "array", "items": closed({"severity": {"enum": ["error", "warning"]},
                                                       "check": S, "message": S})},
        "byPodSetOrder": {"type": "object", "additionalProperties": count,
                          "description": "Kueue 0.20+ may give the pod sets any order: the count per order, when "
                                         "they differ (`now` is the least)"},
        "nodes": {"oneOf": [{"type": "null"}, {"type": "array", "items": closed({"flavor": S, "nodes": count})}],
                  "description": "the Nodes read for each flavor of the copy's queues (0: that flavor's allocatable "
                                 "is not weighed); null: the Nodes could not be read (see `incomplete`)"},
        "incomplete": {"type": "array", "items": closed({"read": S, "error": S})},
    }
    return {"$schema": DRAFT, "$id": BASE_ID + "capacity.json", "title": "kubectl pd capacity -o json",
            **closed(props, [k for k in props if k not in ("incomplete", "byPodSetOrder", "nodes")])}


def queues() -> dict[str, Any]:
    """`kubectl pd queues -o json` (kubectl_pd/queues/document.py)."""
    flavor = closed({"flavor": S, "resource": S, "nominal": QUANTITY, "used": QUANTITY, "reserved": QUANTITY,
                     "borrowed": QUANTITY, "lent": {**NQUANTITY, "description": "null: not attributable"},
                     "lendable": QUANTITY, "free": QUANTITY, "borrowingLimit": NQUANTITY, "lendingLimit": NQUANTITY,
                     "cohortFree": NQUANTITY, "borrowable": NQUANTITY})
    cq = closed({"name": S, "cohort": NS, "active": {"type": ["boolean", "null"]}, "reason": NS, "message": NS,
                 "stopPolicy": NS, "pendingWorkloads": NI, "reservingWorkloads": NI, "admittedWorkloads": NI,
                 "flavors": {"type": "array", "items": flavor}})
    amount = closed({"clusterQueue": S, "amount": QUANTITY})
    props = {
        "schemaVersion": _version("queues"),
        "clusterQueues": {"type": "array", "items": cq},
        "cohorts": {"type": "array", "items": closed({
            "name": S, "parent": NS, "cohorts": STRS, "clusterQueues": STRS,
            "quota": {"type": "array", "description": "the Cohort's own quota and its pool (Kueue's resourceNode)",
                      "items": closed({"flavor": S, "resource": S, "nominal": QUANTITY, "subtree": QUANTITY,
                                       "used": QUANTITY, "free": QUANTITY, "lendingLimit": NQUANTITY,
                                       "borrowingLimit": NQUANTITY})},
            "cycle": {"type": "boolean", "description": "its parent chain loops: Kueue keeps its queues inactive"}},
            ["name", "parent", "cohorts", "clusterQueues"])},
        "borrowing": {"type": "array", "items": closed({
            "cohort": S, "flavor": S, "resource": S, "attributed": {"type": "boolean"},
            "borrowers": {"type": "array", "items": amount}, "lenders": {"type": "array", "items": amount},
            "lent": QUANTITY, "cohortQuota": QUANTITY,
            "unattributed": {**QUANTITY, "description": "borrowed - lent: from the cohorts' own quota or lendable "
                                                         "quota the lenders could still take back"}},
            ["cohort", "flavor", "resource", "attributed", "borrowers", "lenders"])},
        "cohortsKnown": {"type": "boolean"},
        "incomplete": {"type": "array", "items": closed({"read": S, "error": S})},
    }
    return {"$schema": DRAFT, "$id": BASE_ID + "queues.json", "title": "kubectl pd queues -o json",
            **closed(props, [k for k in props if k != "incomplete"])}


SCHEMAS = {"why-pending": why_pending, "lint": lint, "preflight": preflight, "tree": tree, "capacity": capacity,
           "queues": queues}


def text(name: str) -> str:
    """The schema as `kubectl pd schema NAME` prints it (and docs/schema/NAME.json holds it)."""
    return json.dumps(SCHEMAS[name](), indent=2, ensure_ascii=False) + "\n"
