"""The one place where Kueue v1beta1 objects are read as v1beta2 (reference/kueue.md §1.2).

Everything downstream reads v1beta2 field names; `apiVersion` is kept as served so a report can
say which version an object came in. Objects already in v1beta2 are returned unchanged.
"""

from __future__ import annotations

import copy

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

Obj = dict[str, "Any"]
# Kueue's API group: spelled here so that kueue/ imports nothing of cluster/ (which imports this module);
# tests/test_pending_layers.py checks that it is cluster.kinds.KUEUE_GROUP.
KUEUE_GROUP = "kueue.x-k8s.io"


def normalize(obj: Obj) -> Obj:
    """Return `obj` in v1beta2 shape (a converted copy for v1beta1, else `obj` itself)."""
    if not isinstance(obj, dict) or obj.get("apiVersion") != f"{KUEUE_GROUP}/v1beta1":
        return obj
    fix = _FIXERS.get(obj.get("kind", ""))
    if fix is None:
        return obj
    out = copy.deepcopy(obj)
    fix(out)
    return out


def _dict(parent: Obj, key: str) -> Obj | None:
    v = parent.get(key)
    return v if isinstance(v, dict) else None


def _cluster_queue(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    if spec is None:
        return
    if "cohort" in spec and "cohortName" not in spec:
        spec["cohortName"] = spec.pop("cohort")
    checks = spec.get("admissionChecks")
    if isinstance(checks, list) and "admissionChecksStrategy" not in spec:
        spec.pop("admissionChecks")
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": n} for n in checks]}
    ff = _dict(spec, "flavorFungibility")
    if ff is not None:
        for key in ("whenCanBorrow", "whenCanPreempt"):
            if ff.get(key) in ("Borrow", "Preempt"):
                ff[key] = "MayStopSearch"


def _local_queue(obj: Obj) -> None:
    status = _dict(obj, "status")
    if status is not None and "flavorUsage" in status and "flavorsUsage" not in status:
        status["flavorsUsage"] = status.pop("flavorUsage")


def _workload(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    if spec is not None and spec.get("priorityClassName") and "priorityClassRef" not in spec:
        source = spec.pop("priorityClassSource", "")
        kueue = source == "kueue.x-k8s.io/workloadpriorityclass"
        spec["priorityClassRef"] = {
            "group": KUEUE_GROUP if kueue else "scheduling.k8s.io",
            "kind": "WorkloadPriorityClass" if kueue else "PriorityClass",
            "name": spec.pop("priorityClassName"),
        }
    status = _dict(obj, "status")
    if status is not None and "accumulatedPastExexcutionTimeSeconds" in status:
        status["accumulatedPastExecutionTimeSeconds"] = status.pop("accumulatedPastExexcutionTimeSeconds")


_FIXERS = {"ClusterQueue": _cluster_queue, "LocalQueue": _local_queue, "Workload": _workload}


V1BETA1 = f"{KUEUE_GROUP}/v1beta1"
V1BETA2 = f"{KUEUE_GROUP}/v1beta2"
# fields v1beta2 does not have and nothing converts them into (reference/kueue.md §1.2)
_DROPPED = {"ClusterQueue": ("status", "pendingWorkloadsStatus"), "LocalQueue": ("status", "flavors")}


def convert(obj: Obj) -> Obj:
    """A v1beta1 object as a v1beta2 manifest: the renames of `normalize`, `apiVersion` set to v1beta2 and
    the v1beta1-only status fields dropped. Anything else is returned unchanged."""
    if not isinstance(obj, dict) or obj.get("apiVersion") != V1BETA1:
        return obj
    out = normalize(obj)
    out = copy.deepcopy(out) if out is obj else out
    out["apiVersion"] = V1BETA2
    dropped = _DROPPED.get(str(out.get("kind", "")))
    if dropped is not None:
        parent = _dict(out, dropped[0])
        if parent is not None:
            parent.pop(dropped[1], None)
    return out
