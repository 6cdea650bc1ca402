"""The canonical fix of a queue's resource groups, and the JSON patch that applies it.

The rewrite: merge groups whose coveredResources are the same set (keeping flavor order), drop a
flavor repeated inside the merged group, and put every flavor's resources in coveredResources order.
For a GPUStack queue split at 16 flavors this is the one group a correct buildResourceGroups builds.
Whatever the rewrite cannot repair (70 flavors of one resource, a negative quota, a missing flavor)
is reported as such; no fix is invented for it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import jsonpatch

from kubectl_pd.kueue.normalize import V1BETA2, convert
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import check_object, ref_of, suppressed_rules
from kubectl_pd.lint.findings import Finding, ObjectRef
from kubectl_pd.lint.frameworks import FIXABLE as FRAMEWORK_FIXABLE
from kubectl_pd.lint.frameworks import queue_label_fix
from kubectl_pd.lint.gpustack_queues import drop_limits_without_cohort
from kubectl_pd.lint.resource_groups import groups_of
from kubectl_pd.lint.rules import ERROR
from kubectl_pd.records import dataclass, field

Obj = dict[str, Any]
FIXABLE_KINDS = ("ClusterQueue", "Cohort")
# Findings about other objects (a missing ResourceFlavor or AdmissionCheck): the manifest itself can
# still be repaired, so the fix is given and these are reported as remaining.
EXTERNAL_RULES = ("PD111", "PD112")
# A framework object's fix moves its queue label (PD415); a group no flavor holds (PD416) is a decision left after it
FRAMEWORK_LEFT = ("PD416",)


@dataclass
class Fix:
    """The outcome for one object with findings."""

    ref: ObjectRef
    before: Obj
    after: Obj | None  # None: no fix is given
    changes: list[str] = field(default_factory=list)  # what the rewrite did, in words
    remaining: list[Finding] = field(default_factory=list)  # errors the rewrite does not repair
    converted: bool = False  # PD412: the object is also rewritten from v1beta1 to v1beta2
    whole: bool = False  # a framework object's fix (PD415): the patch is over the whole object, not resource groups

    @property
    def changed(self) -> bool:
        return self.after is not None and self.after != self.before

    def patch(self) -> list[dict[str, Any]]:
        """RFC 6902 operations turning `before` into `after` (only under /spec/resourceGroups; the whole
        object, from its v1beta1 field names, when it is converted)."""
        if self.after is None:
            return []
        if self.converted or self.whole:
            return list(jsonpatch.make_patch(denormalize(self.before), self.after))
        return resource_groups_patch(groups_of(self.before), groups_of(self.after))


def canonical_groups(groups: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The rewritten groups and a sentence per change. Pure; `groups` is not modified."""
    out, changes = _merge_same_sets(groups)
    for i, g in enumerate(out):
        changes += _drop_repeated_flavors(g, i)
        changes += _order_resources(g)
    return out, changes


def _merge_same_sets(groups: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Copies of the groups, each later group covering the same set as an earlier one merged into it."""
    out: list[dict[str, Any]] = []
    changes: list[str] = []
    by_set: dict[frozenset[str], int] = {}
    merged: dict[int, list[tuple[int, int]]] = {}  # target index in `out` -> [(source group, flavors)]
    for i, g in enumerate(groups):
        cov = list(g.get("coveredResources") or [])
        key = frozenset(cov)
        if cov and len(key) == len(cov) and key in by_set:
            moved = [copy.deepcopy(f) for f in g.get("flavors") or []]
            out[by_set[key]]["flavors"].extend(moved)
            merged.setdefault(by_set[key], []).append((i, len(moved)))
            continue
        new = copy.deepcopy(g)
        new["flavors"] = list(new.get("flavors") or [])
        if cov and len(key) == len(cov):
            by_set[key] = len(out)
        out.append(new)
    for target, sources in merged.items():
        indexes = ", ".join(f"[{i}]" for i, _ in sources)
        count = sum(n for _, n in sources)
        covered = ", ".join(out[target].get("coveredResources") or [])
        changes.append(f"merged spec.resourceGroups{indexes} ({count} flavors) into spec.resourceGroups[{target}], "
                       f"which covers the same {covered}")
    return out, changes


def _drop_repeated_flavors(g: dict[str, Any], i: int) -> list[str]:
    """Keep the first of each flavor name in group `i` (changed in place: `g` is a copy)."""
    changes: list[str] = []
    seen: set[str] = set()
    kept: list[dict[str, Any]] = []
    for f in g["flavors"]:
        if f["name"] in seen:
            changes.append(f"dropped the repeated flavor {f['name']!r} from spec.resourceGroups[{i}]")
            continue
        seen.add(f["name"])
        kept.append(f)
    g["flavors"] = kept
    return changes


def _order_resources(g: dict[str, Any]) -> list[str]:
    """Each flavor's resources in the group's coveredResources order, when they are the same names."""
    changes: list[str] = []
    cov = list(g.get("coveredResources") or [])
    for f in g["flavors"]:
        res = list(f.get("resources") or [])
        names = [r["name"] for r in res]
        if names != cov and len(names) == len(set(names)) and sorted(names) == sorted(cov):
            order = {n: k for k, n in enumerate(cov)}
            f["resources"] = sorted(res, key=lambda r: order[r["name"]])
            changes.append(f"reordered the resources of flavor {f['name']!r} to {', '.join(cov)}")
    return changes


def with_groups(obj: Obj, groups: list[dict[str, Any]]) -> Obj:
    out = copy.deepcopy(obj)
    out.setdefault("spec", {})["resourceGroups"] = groups
    return out


def plan_fix(obj: Obj, ctx: LintContext) -> Fix:
    """The fix of one object (any kind): the rewrite when it leaves no repairable error behind."""
    ref = ref_of(obj)
    ignore, _ = suppressed_rules(obj)

    def errors(o: Obj) -> list[Finding]:
        return [f for f in check_object(o, ctx)
                if f.severity == ERROR and "*" not in ignore and f.rule_id not in ignore]

    if obj.get("kind") in FRAMEWORK_FIXABLE:
        return _framework_fix(ref, obj, errors)
    if obj.get("kind") not in FIXABLE_KINDS:
        return Fix(ref, obj, None, remaining=errors(obj))
    groups, changes = canonical_groups(groups_of(obj))
    groups, dropped = drop_limits_without_cohort(obj, groups)  # PD109 on a GPUStack queue
    changes += dropped
    after = with_groups(obj, groups) if changes else obj
    converted = any(f.rule_id == "PD412" for f in errors(obj))
    if converted:
        after = {**after, "apiVersion": V1BETA2}
        changes = [*changes, f"converted {obj.get('apiVersion')} to {V1BETA2}"]
    left = errors(after)
    if any(f.rule_id not in EXTERNAL_RULES for f in left):
        return Fix(ref, obj, None, changes, left, converted)
    return Fix(ref, obj, after, changes, left, converted)


def _framework_fix(ref: ObjectRef, obj: Obj, errors: Callable[[Obj], list[Finding]]) -> Fix:
    """PD415's rewrite: the queue label where the framework carries it down; None when there is none to move or
    the queues named disagree."""
    moved = queue_label_fix(obj) if any(f.rule_id == "PD415" for f in errors(obj)) else None
    if moved is None:
        return Fix(ref, obj, None, remaining=errors(obj), whole=True)
    after, changes = moved
    left = errors(after)
    if any(f.rule_id not in FRAMEWORK_LEFT for f in left):
        return Fix(ref, obj, None, changes, left, whole=True)
    return Fix(ref, obj, after, changes, left, whole=True)


def resource_groups_patch(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Minimal JSON patch made by jsonpatch, checked by applying it; one `replace` if that ever fails."""
    src, dst = {"spec": {"resourceGroups": before}}, {"spec": {"resourceGroups": after}}
    ops = list(jsonpatch.make_patch(src, dst))
    try:
        ok = jsonpatch.apply_patch(src, ops) == dst
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
        ok = False
    if not ok:
        ops = [{"op": "replace", "path": "/spec/resourceGroups", "value": copy.deepcopy(after)}]
    return ops


def original_document(obj: Obj, raw: Any) -> Obj:
    """The object exactly as written (field names, key order), as the snapshot read it.

    Reading normalises v1beta1 names and moves keys; a fix printed for a file should change nothing
    but the resource groups. Without the raw document (live objects) the v1beta1 names are put back.
    """
    raw = copy.deepcopy(raw)
    if not isinstance(raw, dict):
        return denormalize(obj)
    if "kind" not in raw:  # an item of a typed List: the kind came from the List
        raw = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), **raw}
    return raw


def apply_fix(fix: Fix, original: Obj) -> Obj:
    """`original` with the fix applied: what --fix prints and --diff compares against. A conversion is
    done on the document as written (kueue.normalize.convert), after the resource groups' patch."""
    if fix.after is None:
        return original
    if fix.whole:
        return jsonpatch.apply_patch(original, jsonpatch.make_patch(fix.before, fix.after))  # type: ignore[no-any-return]
    out = jsonpatch.apply_patch(original, resource_groups_patch(groups_of(fix.before), groups_of(fix.after)))
    return convert(out) if fix.converted else out


def patch_of(fix: Fix, original: Obj) -> list[dict[str, Any]]:
    """The JSON patch of `--fix -o patch`: against the document as written when the object is converted
    (v1beta1 values such as whenCanBorrow: Borrow are only there), else `fix.patch()`."""
    if not fix.converted or fix.after is None:
        return fix.patch()
    return list(jsonpatch.make_patch(original, apply_fix(fix, original)))


def denormalize(obj: Obj) -> Obj:
    """A v1beta1 ClusterQueue back in v1beta1 field names (kueue.normalize renamed them on reading)."""
    if obj.get("kind") != "ClusterQueue" or not str(obj.get("apiVersion", "")).endswith("kueue.x-k8s.io/v1beta1"):
        return obj
    out = copy.deepcopy(obj)
    spec = out.get("spec")
    if not isinstance(spec, dict):
        return out
    rebuilt: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "cohortName":
            rebuilt["cohort"] = value
        elif (key == "admissionChecksStrategy" and isinstance(value, dict) and set(value) == {"admissionChecks"}
              and all(isinstance(c, dict) and set(c) == {"name"} for c in value["admissionChecks"] or [])):
            rebuilt["admissionChecks"] = [c["name"] for c in value["admissionChecks"] or []]
        else:
            rebuilt[key] = value
    out["spec"] = rebuilt
    return out
