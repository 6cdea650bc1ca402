"""PD401-PD411: what Kueue 0.18/0.19's CRD schema, CEL rules and webhooks refuse outside resource groups.

These are built-in facts, written by us as data (`facts.py`) from Kueue's CRDs and webhooks: enums,
name patterns, the CEL rules of `spec.preemption` and `spec.flavorFungibility`, fair-sharing weights,
`namespaceSelector`, `admissionChecksStrategy`. They stand in for the CRD when none is at hand.
Messages start with the API server's own words (`Unsupported value: "X": supported values: ...`).
"""

from __future__ import annotations

from typing import Any

from kubectl_pd.kueue import versions
from kubectl_pd.lint import facts
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.findings import Finding, ObjectRef, PathT, format_path
from kubectl_pd.lint.resource_groups import flavor_set, quantity, schema_refusal
from kubectl_pd.lint.rules import RuleId

Obj = dict[str, Any]


class _Out:
    """Collects findings of one object, each with Kueue's whole line as `kueue_message`."""

    def __init__(self, ref: ObjectRef) -> None:
        self.ref = ref
        self.items: list[Finding] = []

    def add(self, rule: RuleId, path: PathT, kq: str, hint: str = "") -> None:
        msg = f"{kq}: {hint}" if hint else kq
        self.items.append(Finding(rule, self.ref, path, msg, f"{format_path(path)}: {kq}"))


def _dict(v: object) -> Obj:
    return v if isinstance(v, dict) else {}


def check_kueue_facts(obj: Obj, ref: ObjectRef, ctx: LintContext, raw: Obj | None = None) -> list[Finding]:
    """Every PD4xx finding of one ClusterQueue or Cohort. `raw` is the object as written, when known."""
    out = _Out(ref)
    spec = _dict(obj.get("spec"))
    version = str(obj.get("apiVersion", "")).rsplit("/", 1)[-1]
    written = _dict(raw.get("spec")) if isinstance(raw, dict) else None
    is_cohort = ref.kind == "Cohort"
    _served(out, obj, ref, ctx)
    _unknown_fields(out, ref.kind, version, written)
    _names(out, spec, version, is_cohort, written)
    _fair_sharing(out, spec)
    _cycle(out, spec, is_cohort, ctx)
    if not is_cohort:
        _enums(out, spec, version, written)
        _namespace_selector(out, spec)
        _preemption(out, spec)
        _fungibility(out, spec, version, written)
        _admission_checks(out, obj, spec, version)
        if ctx.feature_gates.get("ConcurrentAdmission"):
            _concurrent_admission(out, spec, versions.concurrent_admission_flavors(ctx.kueue))
    return out.items


def _cycle(out: _Out, spec: Obj, is_cohort: bool, ctx: LintContext) -> None:
    """PD413: the Cohort's parent chain (a ClusterQueue: its cohort's) loops, among the Cohorts at hand."""
    if ctx.cohorts is None:
        return
    from kubectl_pd.kueue.model import cohort_cycle

    start = out.ref.name if is_cohort else spec.get("cohortName")
    chain = cohort_cycle(ctx.cohorts, start if isinstance(start, str) and start else None)
    if chain is not None:
        path: PathT = ("spec", "parentName") if is_cohort else ("spec", "cohortName")
        out.add("PD413", path, "cohort has a cycle", " -> ".join(chain) + ": Kueue keeps the ClusterQueues under it "
                "inactive")


def _served(out: _Out, obj: Obj, ref: ObjectRef, ctx: LintContext) -> None:
    """PD412: an API version the target Kueue does not serve (v1beta1 from 0.20), only when the version is
    known (--kueue-version or discovery): on the default, a v1beta1 file may well be meant for 0.19."""
    api = str(obj.get("apiVersion", ""))
    stopped = versions.stopped_serving(api)
    if stopped is None or versions.serves_v1beta1(ctx.kueue) is not False:
        return
    out.add("PD412", ("apiVersion",), f'no matches for kind "{ref.kind}" in version "{api}"',
            f"Kueue {versions.text(stopped)} stopped serving {api} and {ctx.kueue.label} does not serve it; "
            f"write it as kueue.x-k8s.io/v1beta2 (--fix converts it)")


def _unknown_fields(out: _Out, kind: str, version: str, written: Obj | None) -> None:
    """PD409: fields the served version does not have; kubectl's default strict validation refuses them."""
    if written is None:
        return
    for name, hint in facts.UNKNOWN_FIELDS.get((kind, version), {}).items():
        if name in written:
            path = ("spec", name)
            out.add("PD409", path, f'strict decoding error: unknown field "{format_path(path)}"', hint)


def _names(out: _Out, spec: Obj, version: str, is_cohort: bool, written: Obj | None) -> None:
    """PD402: names of cohorts and flavors (DNS-1123 subdomains), covered resources (qualified names)."""
    if is_cohort:
        where, value = "parentName", spec.get("parentName")
    elif version == "v1beta1":
        # as written, `cohort`; without the written object, normalisation moved it to cohortName
        where = "cohort"
        value = written.get("cohort") if written is not None else spec.get("cohortName")
    else:
        where, value = "cohortName", spec.get("cohortName")
    if isinstance(value, str) and value:
        _subdomain(out, ("spec", where), value)
    for i, g in enumerate(spec.get("resourceGroups") or []):
        for j, res in enumerate(g.get("coveredResources") or []):
            for msg in facts.qualified_name_errors(res):
                out.add("PD402", ("spec", "resourceGroups", i, "coveredResources", j), f'Invalid value: "{res}": {msg}')
        for j, fl in enumerate(g.get("flavors") or []):
            _subdomain(out, ("spec", "resourceGroups", i, "flavors", j, "name"), fl["name"])


def _subdomain(out: _Out, path: PathT, value: str) -> None:
    if len(value) > facts.NAME_MAX:
        out.add("PD402", path, f"Too long: may not be more than {facts.NAME_MAX} bytes")
    elif not facts.SUBDOMAIN_RE.match(value):
        out.add("PD402", path, f"Invalid value: \"{value}\": {format_path(path)} in body should match "
                               f"'{facts.SUBDOMAIN_PATTERN}'", "a lowercase DNS-1123 subdomain such as gpu-a100")


def _enums(out: _Out, spec: Obj, version: str, written: Obj | None) -> None:
    """PD401: every enum of the ClusterQueue spec, against the version it was written in."""
    source = written if written is not None and version == "v1beta1" else spec
    for dotted, allowed in facts.enums(version).items():
        node: Any = source
        steps = dotted.split(".")
        for step in steps:
            node = node.get(step) if isinstance(node, dict) else None
        if node is None or node in allowed:
            continue
        supported = ", ".join(f'"{a}"' for a in allowed)
        shown = f'"{node}"' if isinstance(node, str) else str(node)
        out.add("PD401", ("spec", *steps), f"Unsupported value: {shown}: supported values: {supported}")


def _namespace_selector(out: _Out, spec: Obj) -> None:
    """PD403: apimachinery's ValidateLabelSelector, as the webhook calls it (clusterqueue_webhook.go:123@v0.18.4)."""
    sel = spec.get("namespaceSelector")
    if not isinstance(sel, dict):
        return
    base: PathT = ("spec", "namespaceSelector")
    _labels(out, "PD403", (*base, "matchLabels"), sel.get("matchLabels"))
    exprs = sel.get("matchExpressions")
    for i, e in enumerate(exprs if isinstance(exprs, list) else []):
        e = _dict(e)
        p: PathT = (*base, "matchExpressions", i)
        op, values = e.get("operator"), e.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                out.add("PD403", (*p, "values"), "Required value: must be specified when `operator` is 'In' or 'NotIn'")
        elif op in ("Exists", "DoesNotExist"):
            if values:
                out.add("PD403", (*p, "values"),
                        "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        else:
            out.add("PD403", (*p, "operator"), f'Invalid value: "{op}": not a valid selector operator',
                    "use In, NotIn, Exists or DoesNotExist")
        for msg in facts.qualified_name_errors(str(e.get("key") or "")):
            out.add("PD403", (*p, "key"), f'Invalid value: "{e.get("key") or ""}": {msg}')
        for k, v in enumerate(values if isinstance(values, list) else []):
            for msg in facts.label_value_errors(v):
                out.add("PD403", (*p, "values", k), f'Invalid value: "{v}": {msg}')


def _labels(out: _Out, rule: RuleId, path: PathT, labels: object) -> None:
    """A label map as apimachinery's ValidateLabels checks it: qualified-name keys, label values."""
    for key, value in _dict(labels).items():
        for msg in facts.qualified_name_errors(str(key)):
            out.add(rule, path, f'Invalid value: "{key}": {msg}')
        for msg in facts.label_value_errors(value):
            out.add(rule, path, f'Invalid value: "{value}": {msg}')


def _preemption(out: _Out, spec: Obj) -> None:
    """PD404: the CEL rule on spec.preemption, with the CRD's defaults applied (reclaimWithinCohort: Never)."""
    pre = spec.get("preemption")
    if not isinstance(pre, dict):
        return
    reclaim = pre.get("reclaimWithinCohort", "Never")
    bwc = pre.get("borrowWithinCohort")
    policy = _dict(bwc).get("policy", "Never") if bwc is not None else None
    if reclaim == "Never" and policy is not None and policy != "Never":
        implied = "" if "reclaimWithinCohort" in pre else " (reclaimWithinCohort defaults to Never)"
        out.add("PD404", ("spec", "preemption"), f'Invalid value: "object": {facts.PREEMPTION_CEL}',
                f"borrowWithinCohort.policy {policy} needs reclaimWithinCohort LowerPriority or Any{implied}")


def _fungibility(out: _Out, spec: Obj, version: str, written: Obj | None) -> None:
    """PD405: the CEL rule on spec.flavorFungibility, with the CRD's defaults applied."""
    source = written if written is not None and version == "v1beta1" else spec
    ff = source.get("flavorFungibility")
    if not isinstance(ff, dict) or ff.get("preference") is None:
        return
    borrow = ff.get("whenCanBorrow", "MayStopSearch")
    preempt = ff.get("whenCanPreempt", "TryNextFlavor")
    if borrow != "TryNextFlavor" or preempt != "TryNextFlavor":
        out.add("PD405", ("spec", "flavorFungibility"), f'Invalid value: "object": {facts.FUNGIBILITY_CEL}',
                f"whenCanBorrow is {borrow}, whenCanPreempt is {preempt}"
                + ("" if "whenCanBorrow" in ff else " (whenCanBorrow defaults to MayStopSearch)"))


def _fair_sharing(out: _Out, spec: Obj) -> None:
    """PD406: validateFairSharing (pkg/webhooks/common.go:43@v0.18.4); errors sit at spec.fairSharing."""
    fs = spec.get("fairSharing")
    if not isinstance(fs, dict) or "weight" not in fs or fs["weight"] is None:
        return
    raw = fs["weight"]
    refused = schema_refusal(raw, ("spec", "fairSharing", "weight"))
    if refused is not None:
        out.add("PD406", ("spec", "fairSharing", "weight"), refused)
        return
    w = quantity(raw)
    if w is None:
        return
    shown = f'"{raw}"'
    if w < 0:
        out.add("PD406", ("spec", "fairSharing"), f"Invalid value: {shown}: must be greater than or equal to 0")
    elif 0 < w <= facts.MIN_WEIGHT:
        out.add("PD406", ("spec", "fairSharing"), f"Invalid value: {shown}: When not 0, weight must be > 10e-9",
                "such a weight collapses the share computation; use 0 or a larger weight")


def _admission_checks(out: _Out, obj: Obj, spec: Obj, version: str) -> None:
    """PD407 onFlavors naming a flavor the queue lacks (webhook); PD408 an empty list (v1beta2 minItems 1)."""
    strategy = spec.get("admissionChecksStrategy")
    if not isinstance(strategy, dict):
        return
    base: PathT = ("spec", "admissionChecksStrategy", "admissionChecks")
    checks = strategy.get("admissionChecks")
    if version != "v1beta1":
        if checks is None:
            out.add("PD408", base, "Required value", "admissionChecksStrategy needs admissionChecks; "
                                                    "remove admissionChecksStrategy to use none")
        elif isinstance(checks, list) and not checks:
            out.add("PD408", base, "Invalid value: 0: should have at least 1 items",
                    "remove admissionChecksStrategy to use no admission check")
    flavors = flavor_set(obj)
    supported = ", ".join(f'"{f}"' for f in sorted(flavors))
    for i, c in enumerate(checks if isinstance(checks, list) else []):
        on = _dict(c).get("onFlavors")
        for j, f in enumerate(on if isinstance(on, list) else []):
            if f not in flavors:
                out.add("PD407", (*base, i, "onFlavors", j), f'Unsupported value: "{f}": supported values: {supported}',
                        f"check {_dict(c).get('name')!r} names a flavor this queue does not have")


def _concurrent_admission(out: _Out, spec: Obj, most: int) -> None:
    """PD410: validateConcurrentAdmissionPolicy (clusterqueue_webhook.go:231@v0.18.4), alpha gate on; `most`
    flavors in the group (versions.concurrent_admission_flavors: 16, 32 from 0.20)."""
    policy = spec.get("concurrentAdmissionPolicy")
    if not isinstance(policy, dict):
        return
    groups = spec.get("resourceGroups") or []
    if len(groups) != 1:
        out.add("PD410", ("spec", "resourceGroups"), f"Invalid value: {len(groups)}: must have exactly one "
                                                     "ResourceGroup when ConcurrentAdmissionPolicy is defined")
    elif len(groups[0].get("flavors") or []) > most:
        n = len(groups[0].get("flavors") or [])
        out.add("PD410", ("spec", "resourceGroups", 0, "flavors"),
                f"Invalid value: {n}: cannot have more than {most} resource flavors in the ResourceGroup when "
                "ConcurrentAdmissionPolicy is defined")
    migration = _dict(policy.get("migration"))
    constraints = migration.get("constraints")
    mode = migration.get("mode") or ""
    cp: PathT = ("spec", "concurrentAdmissionPolicy", "migration", "constraints")
    if isinstance(constraints, dict):
        if mode and mode != "TryPreferredFlavors":
            out.add("PD410", cp, f'Forbidden: may only be set when migration.mode is "TryPreferredFlavors" '
                                 f'(got "{mode}")')
        elif constraints.get("lastAcceptableFlavorName") is not None:
            last = constraints["lastAcceptableFlavorName"]
            flavors = sorted(flavor_set({"spec": spec}))
            if last not in flavors:
                out.add("PD410", (*cp, "lastAcceptableFlavorName"),
                        f'Invalid value: "{last}": must be one of the flavors defined in the ClusterQueue: '
                        f"[{' '.join(flavors)}]")
    if spec.get("queueingStrategy") == "StrictFIFO":
        out.add("PD410", ("spec", "queueingStrategy"), 'Invalid value: "StrictFIFO": StrictFIFO queueing strategy '
                                                      "cannot be used when ConcurrentAdmissionPolicy is defined")


def check_resource_flavor(obj: Obj, ref: ObjectRef) -> list[Finding]:
    """PD411: ValidateResourceFlavor (pkg/webhooks/resourceflavor_webhook.go@v0.18.4): node labels, taints
    (unique by key and effect) and tolerations (core/v1's ValidateTolerations)."""
    out = _Out(ref)
    spec = _dict(obj.get("spec"))
    _labels(out, "PD411", ("spec", "nodeLabels"), spec.get("nodeLabels"))
    seen: set[tuple[str, object]] = set()
    taints = spec.get("nodeTaints")
    for i, t in enumerate(taints if isinstance(taints, list) else []):
        t = _dict(t)
        key = str(t.get("key") or "")
        for msg in facts.qualified_name_errors(key):
            out.add("PD411", ("spec", "nodeTaints", i, "key"), f'Invalid value: "{key}": {msg}')
        for msg in facts.label_value_errors(t.get("value") or ""):
            out.add("PD411", ("spec", "nodeTaints", i, "value"), f'Invalid value: "{t.get("value")}": {msg}')
        if (key, t.get("effect")) in seen:
            out.add("PD411", ("spec", "nodeTaints", i), "Duplicate value: taints must be unique by key and effect pair")
        seen.add((key, t.get("effect")))
    tolerations = spec.get("tolerations")
    for i, tol in enumerate(tolerations if isinstance(tolerations, list) else []):
        _toleration(out, ("spec", "tolerations", i), _dict(tol))
    return out.items


def _toleration(out: _Out, path: PathT, tol: Obj) -> None:
    key, op = str(tol.get("key") or ""), tol.get("operator") or "Equal"
    if key:
        for msg in facts.qualified_name_errors(key):
            out.add("PD411", (*path, "key"), f'Invalid value: "{key}": {msg}')
    elif op != "Exists":
        out.add("PD411", (*path, "operator"), f'Invalid value: "{op}": operator must be Exists when `key` is '
                                               'empty, which means "match all values and all keys"')
    if op == "Exists" and tol.get("value"):
        out.add("PD411", (*path, "operator"), f'Invalid value: "{tol.get("value")}": value must be empty when '
                                               "`operator` is 'Exists'")
    elif op == "Equal" and tol.get("value") is not None:
        for msg in facts.label_value_errors(tol.get("value")):
            out.add("PD411", (*path, "value"), f'Invalid value: "{tol.get("value")}": {msg}')
    if tol.get("tolerationSeconds") is not None and tol.get("effect") != "NoExecute":
        out.add("PD411", (*path, "effect"), f'Invalid value: "{tol.get("effect")}": effect must be \'NoExecute\' '
                                             "when `tolerationSeconds` is set")
