"""PD101-PD112: what Kueue's CRD schema, CEL rules and `vclusterqueue.kb.io` webhook refuse in
`spec.resourceGroups`, plus the references Kueue resolves at runtime (reference/kueue.md §5, §4.3).

Messages start with Kueue's own wording (`Duplicate value: "x"`, `Invalid value: ...`) so that
`<path>: <message>` reads as the line Kueue would print, followed by what it means here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Container
from fractions import Fraction
from typing import Any

from kubectl_pd import memo
from kubectl_pd.kueue.quantity import try_parse
from kubectl_pd.lint.context import LintContext, Malformed
from kubectl_pd.lint.findings import Finding, ObjectRef, PathT, format_path
from kubectl_pd.lint.limits import Limits
from kubectl_pd.lint.rules import RuleId

Obj = dict[str, Any]
QUANTITY_FIELDS = ("nominalQuota", "borrowingLimit", "lendingLimit")
_QUANTITY_REGEX_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
# The CRD's own pattern for every quota (config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml@v0.18.4):
# stricter than the Quantity parser (no surrounding blanks), and checked by the API server before the webhook.
CRD_QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
                        r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")
_CRD_QUANTITY_RE = re.compile(CRD_QUANTITY_PATTERN)
_JSON_TYPE = {bool: "boolean", float: "number", dict: "object", list: "array", type(None): "null"}

GROUPS: PathT = ("spec", "resourceGroups")


@memo.per_run(8192, typed=True)  # the run's memo (kubectl_pd/memo.py)
def _parse_cached(raw: str | int | float) -> Fraction | None:
    return try_parse(raw)


def quantity(raw: object) -> Fraction | None:
    """try_parse, cached: a big queue file repeats the same few quota strings thousands of times."""
    if isinstance(raw, str | int | float) and not isinstance(raw, bool):
        return _parse_cached(raw)
    return None


_EXPONENT_RE = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE]([+-]?[0-9]{1,19})$")


def _past_our_bound(raw: object) -> bool:
    """A decimal exponent past kueue/quantity.py's MAX_EXPONENT (`1e400`) that the API server parses all the
    same: resource.ParseQuantity reads any exponent that fits an int64 (quantity.go@009f4971a05ddf1edc5616e
    ab805f5b79017da08, ParseQuantity). Its size stays unknown to the rest of lint (no comparison is made)."""
    m = _EXPONENT_RE.match(raw) if isinstance(raw, str) else None
    return m is not None and abs(int(m.group(1))) <= 2**63 - 1


def _rewritten(raw: object) -> bool:
    """A value the schema refuses but Kueue's defaulting webhook decodes as a quantity (as resource.Quantity's
    JSON decoding does: a number, or text once the blanks around it are trimmed)."""
    if isinstance(raw, float):
        return math.isfinite(raw)  # NaN and infinities never reach the server: JSON has no way to write them
    return isinstance(raw, str) and raw != raw.strip() and quantity(raw.strip()) is not None


def schema_refusal(raw: object, path: PathT) -> str | None:
    """The API server's words when a quota fails the CRD schema (int-or-string, then the pattern), else None.

    YAML's `2.0` reaches the server as the integer 2 (kubectl writes whole floats as integers), so only a
    float with a fraction is the `number` the schema refuses.
    """
    if isinstance(raw, float) and raw.is_integer():
        return None
    kind = _JSON_TYPE.get(type(raw))
    if kind is not None and raw is not None:
        return f'Invalid value: "{kind}": {format_path(path)} in body must be of type integer,string: "{kind}"'
    if isinstance(raw, str) and not _CRD_QUANTITY_RE.match(raw):
        return f"Invalid value: {_q(raw)}: {format_path(path)} in body should match '{CRD_QUANTITY_PATTERN}'"
    return None  # the path is spelled only for a finding: 128,000 quotas of a big pool have none


def parent_field(obj: Obj, raw: Obj | None) -> tuple[bool, str]:
    """Is the object in a cohort (a Cohort: has a parent), and the word Kueue uses when it is not.

    A Cohort's parent is `spec.parentName` (v1beta1 and v1beta2; `parent` was v1alpha1 and is dropped).
    A v1beta1 ClusterQueue knows only `spec.cohort`: `cohortName` written there is an unknown field, so
    the queue as written (`raw`, before normalisation) decides; without it the normalised object does.
    """
    spec = obj.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    if obj.get("kind") == "Cohort":
        return bool(spec.get("parentName")), "parent"
    raw_spec = raw.get("spec") if isinstance(raw, dict) else None
    if isinstance(raw_spec, dict) and str(obj.get("apiVersion", "")).endswith("/v1beta1"):
        return bool(raw_spec.get("cohort")), "cohort"
    return bool(spec.get("cohortName")), "cohort"


def groups_of(obj: Obj) -> list[dict[str, Any]]:
    """spec.resourceGroups after `check_shape` (an empty list when absent)."""
    spec = obj.get("spec")
    groups = spec.get("resourceGroups") if isinstance(spec, dict) else None
    return groups if isinstance(groups, list) else []


def check_shape(obj: Obj) -> None:
    """Refuse shapes no rule can read: these are input errors (exit 2), not findings."""
    spec = obj.get("spec")
    if spec is None:
        return
    if not isinstance(spec, dict):
        raise Malformed(obj, ("spec",), "spec is not a mapping")
    groups = spec.get("resourceGroups")
    if groups is None:
        return
    if not isinstance(groups, list):
        raise Malformed(obj, GROUPS, f"spec.resourceGroups is not a list (got {_type(groups)})")
    for i, g in enumerate(groups):
        gp = (*GROUPS, i)
        if not isinstance(g, dict):
            raise Malformed(obj, gp, f"{format_path(gp)} is not a mapping (got {_type(g)})")
        cov = g.get("coveredResources", [])
        if not isinstance(cov, list) or not all(isinstance(c, str) for c in cov):
            raise Malformed(obj, (*gp, "coveredResources"),
                            f"{format_path(gp)}.coveredResources is not a list of resource names")
        flavors = g.get("flavors", [])
        if not isinstance(flavors, list):
            raise Malformed(obj, (*gp, "flavors"), f"{format_path(gp)}.flavors is not a list")
        for j, f in enumerate(flavors):
            fp = (*gp, "flavors", j)
            if not isinstance(f, dict) or not isinstance(f.get("name"), str):
                raise Malformed(obj, fp, f"{format_path(fp)} is not a mapping with a name")
            res = f.get("resources", [])
            if not isinstance(res, list) or not all(isinstance(r, dict) and isinstance(r.get("name"), str)
                                                    for r in res):
                raise Malformed(obj, (*fp, "resources"),
                                f"{format_path(fp)}.resources is not a list of mappings with a name")


_TYPE_WORDS: dict[type, str] = {dict: "a mapping", list: "a list", str: "a string"}


def _type(v: object) -> str:
    return _TYPE_WORDS.get(type(v), type(v).__name__)


def _q(value: object) -> str:
    """A quantity as Kueue quotes it in a field error."""
    return '"' + (value if isinstance(value, str) else str(value)) + '"'


def _same_set(a: list[str], b: list[str]) -> bool:
    return len(a) == len(b) == len(set(a)) and set(a) == set(b)


def split_hint(groups: list[dict[str, Any]], cov: list[str], k: int, i: int, lim: Limits) -> str:
    """What to say when groups k and i cover the same set: the 16-flavor split, and whether merging fits."""
    total = sum(len(g.get("flavors") or []) for g in groups
                if _same_set(list(g.get("coveredResources") or []), cov))
    head = f"spec.resourceGroups[{k}] and [{i}] cover the same resources"
    if len(groups[k].get("flavors") or []) == 16:
        head += ", the signature of a queue split at 16 flavors"
    if total <= lim.flavors_per_group:
        return (f"{head}: merge them into one group of {total} flavors ({lim.version_text} allows "
                f"{lim.flavors_per_group})")
    return (f"{head}, but merged they would hold {total} flavors, above the {lim.flavors_per_group} "
            f"{lim.version_text} allows: use coarser flavors or split the pool across ClusterQueues")


def _finding(ref: ObjectRef, rule: RuleId, path: PathT, message: str, kueue: str | None = None) -> Finding:
    """A finding, with Kueue's own words prefixed by the field path as its webhook prints them."""
    return Finding(rule, ref, path, message, f"{format_path(path)}: {kueue}" if kueue else None)


def check_resource_groups(obj: Obj, ref: ObjectRef, ctx: LintContext, raw: Obj | None = None) -> list[Finding]:
    """Every PD101-PD112 finding of one ClusterQueue or Cohort, in the order Kueue checks them.

    `raw` is the object as written (before v1beta1 normalisation), when known.
    """
    out: list[Finding] = []
    groups = groups_of(obj)
    is_cohort = ref.kind == "Cohort"
    lim = ctx.limits
    in_cohort, empty_word = parent_field(obj, raw)

    if len(groups) > lim.groups:
        kq = f"Too many: {len(groups)}: must have at most {lim.groups} items"
        out.append(_finding(ref, "PD103", GROUPS, f"{kq}: {len(groups)} resource groups, Kueue allows {lim.groups}",
                            kq))

    seen_resources: dict[str, tuple[int, int]] = {}
    seen_flavors: dict[str, tuple[int, int]] = {}
    for i, g in enumerate(groups):
        gp = (*GROUPS, i)
        cov: list[str] = g.get("coveredResources") or []
        flavors: list[dict[str, Any]] = g.get("flavors") or []
        out += _covered_twice(ref, groups, i, cov, seen_resources, lim)
        out += _group_sizes(ref, gp, cov, flavors, lim)
        shape = (tuple(cov), in_cohort, empty_word, is_cohort, lim)
        out += _group_flavors(ref, i, cov, flavors, shape, seen_flavors)
        pairs = sum(len(fl.get("resources") or []) for fl in flavors)
        # the totals are ClusterQueue rules: Kueue's Cohort webhook validates resource groups only
        # (pkg/webhooks/cohort_webhook.go validateCohort@v0.18.4)
        if not is_cohort and lim.pairs_per_group is not None and pairs > lim.pairs_per_group:
            kq = (f"Invalid value: {pairs}: number of flavor-resource combinations in a resourceGroup "
                  f"must be ≤ {lim.pairs_per_group}, got {pairs}")
            out.append(_finding(ref, "PD107", gp, kq, kq))

    if not is_cohort:
        out += _queue_totals(ref, groups, lim)
        out += _check_references(obj, ref, ctx)
    return out


def _covered_twice(ref: ObjectRef, groups: list[dict[str, Any]], i: int, cov: list[str],
                   seen: dict[str, tuple[int, int]], lim: Limits) -> list[Finding]:
    """PD101: a resource covered twice, in this group or an earlier one (`seen` records first sightings)."""
    out: list[Finding] = []
    gp = (*GROUPS, i)
    for j, res in enumerate(cov):
        if res not in seen:
            seen[res] = (i, j)
            continue
        k, _ = seen[res]
        kq = f'Duplicate value: "{res}"'
        if k == i:
            msg = f"{kq}: listed twice in {format_path(gp)}.coveredResources"
        else:
            earlier = groups[k].get("coveredResources") or []
            msg = f"{kq}: also covered by spec.resourceGroups[{k}], and a resource belongs to one group"
            if _same_set(earlier, cov):
                msg += f"; {split_hint(groups, cov, k, i, lim)}"
        out.append(_finding(ref, "PD101", (*gp, "coveredResources", j), msg, kq))
    return out


def _group_sizes(ref: ObjectRef, gp: PathT, cov: list[str], flavors: list[dict[str, Any]],
                 lim: Limits) -> list[Finding]:
    """PD104/PD105: a group with no resource or flavor, or more than Kueue allows."""
    out: list[Finding] = []
    if not cov:
        kq = "Invalid value: 0: should have at least 1 items"
        out.append(_finding(ref, "PD105", (*gp, "coveredResources"),
                            f"{kq}: a resource group covers at least one resource", kq))
    if not flavors:
        kq = "Invalid value: 0: should have at least 1 items"
        out.append(_finding(ref, "PD104", (*gp, "flavors"), f"{kq}: a resource group needs at least one flavor", kq))
    if len(cov) > lim.covered_per_group:
        kq = f"Too many: {len(cov)}: must have at most {lim.covered_per_group} items"
        out.append(_finding(ref, "PD105", (*gp, "coveredResources"),
                            f"{kq}: {len(cov)} covered resources in one group, {lim.version_text} allows "
                            f"{lim.covered_per_group}", kq))
    if len(flavors) > lim.flavors_per_group:
        kq = f"Too many: {len(flavors)}: must have at most {lim.flavors_per_group} items"
        what = f" of {', '.join(cov)}" if cov else ""
        out.append(_finding(ref, "PD104", (*gp, "flavors"),
                            f"{kq}: {len(flavors)} flavors{what} in one group, {lim.version_text} allows "
                            f"{lim.flavors_per_group}; a resource can be covered by only one group, so use coarser "
                            f"flavors or split the pool across ClusterQueues", kq))
    return out


def _group_flavors(ref: ObjectRef, i: int, cov: list[str], flavors: list[dict[str, Any]], shape: tuple[Any, ...],
                   seen: dict[str, tuple[int, int]]) -> list[Finding]:
    """Each flavor of group `i`: its resources and quotas (skipped when a flavor of the same shape was
    clean), and PD102 for a flavor named twice (`seen` records first sightings)."""
    out: list[Finding] = []
    gp = (*GROUPS, i)
    _, in_cohort, empty_word, is_cohort, lim = shape
    verdicts = _verdicts(shape)
    for j, fl in enumerate(flavors):
        fp = (*gp, "flavors", j)
        name = fl["name"]
        resources: list[dict[str, Any]] = fl.get("resources") or []
        key = flavor_key(resources)
        clean: bool | None = False
        if key is not None:
            clean = verdicts.get((key, "resources" in fl))
            if clean is None:
                clean = verdicts[(key, "resources" in fl)] = _clean_flavor(key, "resources" in fl, shape)
        if not clean:
            out.extend(_check_flavor_resources(ref, gp, fp, name, cov, resources, "resources" in fl, lim))
            out.extend(_check_quotas(ref, fp, resources, in_cohort, empty_word, is_cohort))
        if name in seen:
            k, m = seen[name]
            kq = f'Duplicate value: "{name}"'
            where = (f"listed twice in this group (first as flavors[{m}])" if k == i
                     else f"already in spec.resourceGroups[{k}].flavors[{m}]")
            out.append(_finding(ref, "PD102", (*fp, "name"), f"{kq}: {where}; a flavor appears once, in one group",
                                kq))
        else:
            seen[name] = (i, j)
    return out


def _queue_totals(ref: ObjectRef, groups: list[dict[str, Any]], lim: Limits) -> list[Finding]:
    """PD104/PD105 across all groups of a ClusterQueue."""
    out: list[Finding] = []
    total_flavors = sum(len(g.get("flavors") or []) for g in groups)
    total_covered = sum(len(g.get("coveredResources") or []) for g in groups)
    if lim.flavors_total is not None and total_flavors > lim.flavors_total:
        kq = (f"Invalid value: {total_flavors}: total number of flavors across all resourceGroups must be "
              f"≤ {lim.flavors_total}, got {total_flavors}")
        out.append(_finding(ref, "PD104", GROUPS, kq, kq))
    if lim.covered_total is not None and total_covered > lim.covered_total:
        kq = (f"Invalid value: {total_covered}: total number of covered resources across all resourceGroups "
              f"must be ≤ {lim.covered_total}, got {total_covered}")
        out.append(_finding(ref, "PD105", GROUPS, kq, kq))
    return out


def flavor_key(resources: list[dict[str, Any]]) -> tuple[Any, ...] | None:
    """A flavor's resources as a hashable key, each value with its type (`True == 1` in Python, not in
    the API), or None when a value cannot be hashed."""
    try:
        if len(resources) == 1:  # the common case, without a generator
            r = resources[0]
            key: tuple[Any, ...] = ((tuple(r.items()), tuple(map(type, r.values()))),)
        else:
            key = tuple([(tuple(r.items()), tuple(map(type, r.values()))) for r in resources])
        hash(key)
    except TypeError:
        return None
    return key


_NOBODY = ObjectRef("", "")
VERDICTS = "lint.resource_groups.verdicts"


def _verdicts(shape: tuple[Any, ...]) -> dict[tuple[Any, ...], bool]:
    """The flavor verdicts known for one group shape, in the run's memo (a bounded one: a few shapes, a few
    thousand keys; kubectl_pd/memo.py); outside a run, an empty one each time."""
    shapes = memo.table(VERDICTS)
    if shapes is None:
        return {}
    found: dict[tuple[Any, ...], bool] | None = shapes.get(shape)
    if found is None or len(found) > 4096:
        found = memo.put(shapes, shape, {}, 65)
    return found


def _clean_flavor(key: tuple[Any, ...], present: bool, shape: tuple[Any, ...]) -> bool:
    """Whether a flavor with these resources has no PD106/PD108-PD110 finding in a group of this shape.
    The checks read nothing else of a flavor (its name only goes into their messages), and a big pool
    repeats a few flavor shapes thousands of times: each shape is checked once, and a flavor that has
    findings is checked again in full, with its own name and paths."""
    cov, in_cohort, empty_word, is_cohort, lim = shape
    resources = [dict(items) for items, _ in key]
    return not (_check_flavor_resources(_NOBODY, (), (), "", list(cov), resources, present, lim)
                or _check_quotas(_NOBODY, (), resources, in_cohort, empty_word, is_cohort))


def _check_flavor_resources(ref: ObjectRef, gp: PathT, fp: PathT, name: str, cov: list[str],
                            resources: list[dict[str, Any]], present: bool, lim: Limits) -> list[Finding]:
    out: list[Finding] = []
    names = [r["name"] for r in resources]
    rp = (*fp, "resources")
    if not resources:
        # the CRD: `resources` is required, minItems 1; with no entry the count rule below says nothing new
        kq = "Invalid value: 0: should have at least 1 items" if present else "Required value"
        out.append(Finding("PD106", ref, rp, f"{kq}: flavor {name!r} lists no resources; list "
                           f"{len(cov)} (the coveredResources: [{', '.join(cov)}])", f"{format_path(rp)}: {kq}"))
        return out
    if len(resources) > lim.covered_per_group:
        kq = f"Too many: {len(resources)}: must have at most {lim.covered_per_group} items"
        out.append(Finding("PD106", ref, rp, f"{kq}: flavor {name!r} lists {len(resources)} resources, "
                           f"{lim.version_text} allows {lim.covered_per_group}", f"{format_path(rp)}: {kq}"))
    seen: set[str] = set()
    for k, n in enumerate(names):
        if n in seen:
            kq = f'Duplicate value: "{n}"'
            out.append(Finding("PD106", ref, (*fp, "resources", k), f"{kq}: flavor {name!r} lists {n} twice",
                               f"{format_path((*fp, 'resources', k))}: {kq}"))
        seen.add(n)
    if len(names) != len(cov):
        cel = (f"{format_path(gp)}: Invalid value: \"object\": flavors must have the same number of resources "
               f"as the coveredResources")
        out.append(Finding(
            "PD106", ref, (*fp, "resources"),
            f"flavor {name!r} lists {len(names)} resource{'s' if len(names) != 1 else ''} "
            f"[{', '.join(names)}] for {len(cov)} coveredResources [{', '.join(cov)}] ({cel})", cel))
        return out
    for k, n in enumerate(names):
        if n != cov[k]:
            kq = f'Invalid value: "{n}": must match the name in coveredResources'
            path = (*fp, "resources", k, "name")
            hint = (f"; list them as [{', '.join(cov)}]" if sorted(names) == sorted(cov)
                    else f"; coveredResources[{k}] is {cov[k]!r}")
            out.append(Finding("PD106", ref, path, f"{kq}{hint}", f"{format_path(path)}: {kq}"))
    return out


def _check_quotas(ref: ObjectRef, fp: PathT, resources: list[dict[str, Any]], in_cohort: bool,
                  empty_word: str, is_cohort: bool) -> list[Finding]:
    out: list[Finding] = []
    for k, r in enumerate(resources):
        rp = (*fp, "resources", k)
        values: dict[str, Any] = {}
        for fname in QUANTITY_FIELDS:
            if fname not in r or (r[fname] is None and fname != "nominalQuota"):
                continue
            path = (*rp, fname)
            raw = r[fname]
            refused = schema_refusal(raw, path)
            if refused is not None and ref.kind == "ClusterQueue" and _rewritten(raw):
                # Kueue's mutating webhook (ClusterQueues, CREATE) decodes the value as a quantity (a number, or
                # text with blanks around it) and writes it back before the schema sees it; an update meets the
                # schema as written
                shown = str(raw).strip()
                hint = f'created as a quantity by Kueue\'s defaulting webhook, refused on update; write it: "{shown}"'
                out.append(Finding("PD113", ref, path, f"{refused}: {hint}", f"{format_path(path)}: {refused}"))
                refused = None
            elif refused is not None:
                out.append(Finding("PD108", ref, path, refused, f"{format_path(path)}: {refused}"))
                continue
            q = quantity(raw)
            if q is None and _past_our_bound(raw):  # the API server parses it: its sign is all we know
                if str(raw).startswith("-") and any(c in "123456789" for c in str(raw).split("e")[0].split("E")[0]):
                    kq = f"Invalid value: {_q(raw)}: must be greater than or equal to 0"
                    out.append(Finding("PD108", ref, path, kq, f"{format_path(path)}: {kq}"))
                continue
            if raw is None or q is None:
                if raw is None:
                    kq = "Required value"
                    msg = f"{kq}: {fname} of {r['name']!r} is empty"
                else:
                    kq = f"Invalid value: {_q(raw)}: {_QUANTITY_REGEX_MSG}"
                    msg = f"Invalid value: {_q(raw)}: not a Kubernetes quantity (e.g. 4, 500m, 64Gi, 1600k)"
                out.append(Finding("PD108", ref, path, msg, f"{format_path(path)}: {kq}"))
                continue
            values[fname] = q
            if q < 0:
                kq = f"Invalid value: {_q(raw)}: must be greater than or equal to 0"
                out.append(Finding("PD108", ref, path, kq, f"{format_path(path)}: {kq}"))
            if fname in ("borrowingLimit", "lendingLimit") and not in_cohort:
                kq = f"Invalid value: {_q(raw)}: must be nil when {empty_word} is empty"
                field_name = "spec.parentName" if is_cohort else "spec.cohortName (spec.cohort in v1beta1)"
                out.append(Finding("PD109", ref, path,
                                   f"{kq}: {fname} needs {field_name}; with no {empty_word} there is nothing "
                                   f"to {'borrow from' if fname == 'borrowingLimit' else 'lend to'}",
                                   f"{format_path(path)}: {kq}"))
        if "nominalQuota" not in r:
            path = (*rp, "nominalQuota")
            out.append(Finding("PD108", ref, path, f"Required value: {r['name']!r} has no nominalQuota",
                               f"{format_path(path)}: Required value"))
        lend, nominal = values.get("lendingLimit"), values.get("nominalQuota")
        # Kueue compares even when nominalQuota is negative: both findings stand (validateLendingLimit@v0.18.4)
        if not is_cohort and lend is not None and nominal is not None and lend > nominal:
            path = (*rp, "lendingLimit")
            kq = f"Invalid value: {_q(r['lendingLimit'])}: must be less than or equal to the nominalQuota"
            out.append(Finding("PD110", ref, path, f"{kq} ({_q(r['nominalQuota'])})", f"{format_path(path)}: {kq}"))
    return out


def _check_references(obj: Obj, ref: ObjectRef, ctx: LintContext) -> list[Finding]:
    """PD111/PD112: Kueue keeps a queue inactive while a flavor or admission check it names is missing."""
    out: list[Finding] = []
    if ctx.flavors is not None:
        out += _missing_flavors(obj, ref, ctx.flavors)
    if ctx.admission_checks is not None:
        out += _missing_admission_checks(obj, ref, ctx.admission_checks)
    return out


def _missing_flavors(obj: Obj, ref: ObjectRef, known: Container[str]) -> list[Finding]:
    """PD111: a flavor named in the resource groups that the cluster does not have."""
    missing: list[tuple[PathT, str]] = []
    for i, g in enumerate(groups_of(obj)):
        for j, f in enumerate(g.get("flavors") or []):
            if f["name"] not in known and f["name"] not in [n for _, n in missing]:
                missing.append(((*GROUPS, i, "flavors", j, "name"), f["name"]))
    if not missing:
        return []
    names = ",".join(n for _, n in missing)
    cond = f"Can't admit new workloads: references missing ResourceFlavor(s): {names}."
    return [Finding("PD111", ref, path,
                    f'ResourceFlavor "{name}" does not exist: Kueue keeps the queue inactive '
                    f'(Active=False, reason FlavorNotFound: "{cond}")', cond)
            for path, name in missing]


def _missing_admission_checks(obj: Obj, ref: ObjectRef, known: Container[str]) -> list[Finding]:
    """PD112: an admission check the queue names that the cluster does not have."""
    spec = obj.get("spec")
    strategy = spec.get("admissionChecksStrategy") if isinstance(spec, dict) else None
    checks = strategy.get("admissionChecks") if isinstance(strategy, dict) else None
    # normalize() turns v1beta1's flat `admissionChecks: [name]` into name-only strategy entries
    v1beta1 = str(obj.get("apiVersion", "")).endswith("/v1beta1") and all(
        isinstance(c, dict) and set(c) == {"name"} for c in (checks or []))
    missing: list[tuple[PathT, str]] = []
    for i, c in enumerate(checks if isinstance(checks, list) else []):
        name = c.get("name") if isinstance(c, dict) else None
        if isinstance(name, str) and name not in known:
            path: PathT = ("spec", "admissionChecks", i) if v1beta1 else (
                "spec", "admissionChecksStrategy", "admissionChecks", i, "name")
            missing.append((path, name))
    if not missing:
        return []
    cond = ("Can't admit new workloads: references missing AdmissionCheck(s): "
            f"{','.join(n for _, n in missing)}.")
    return [Finding("PD112", ref, path,
                    f'AdmissionCheck "{name}" does not exist: Kueue keeps the queue inactive '
                    f'(Active=False, reason AdmissionCheckNotFound: "{cond}")', cond)
            for path, name in missing]


def flavor_set(obj: Obj) -> set[str]:
    """The names of every flavor the object's resource groups hold."""
    return {f["name"] for g in groups_of(obj) for f in (g.get("flavors") or [])
            if isinstance(f, dict) and isinstance(f.get("name"), str)}
