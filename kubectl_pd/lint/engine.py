"""Run every rule over a set of objects: dispatch by kind, suppression, and file:line for each finding."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from kubectl_pd.cluster.source import Origin, annotations_of, name_of, namespace_of
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.findings import Finding, ObjectRef
from kubectl_pd.lint.frameworks import FRAMEWORK_KINDS, FrameworkFacts, check_framework, fit_unknown, peers_of
from kubectl_pd.lint.gpustack_queues import check_gpustack_queue, is_gpustack_queue
from kubectl_pd.lint.kueue_facts import check_kueue_facts, check_resource_flavor
from kubectl_pd.lint.model_deployments import check_model_deployment
from kubectl_pd.lint.resource_groups import check_resource_groups, check_shape
from kubectl_pd.lint.rules import ERROR, WARNING, Rule, resolve
from kubectl_pd.lint.schema.crds import SchemaIndex, is_crd
from kubectl_pd.records import dataclass, field, replace

Obj = dict[str, Any]
IGNORE_ANNOTATION = "kubectl-pd.io/ignore"
LINTED_KINDS = ("ClusterQueue", "Cohort", "ModelDeployment", *FRAMEWORK_KINDS)
REFERENCE_KINDS = ("ResourceFlavor", "AdmissionCheck", "CustomResourceDefinition", "LocalQueue")


@dataclass
class LintResult:
    findings: list[Finding]
    linted: Counter[str] = field(default_factory=Counter)  # kind -> objects checked
    skipped: Counter[str] = field(default_factory=Counter)  # kind -> objects of other kinds
    suppressed: int = 0
    unknown_suppressions: list[str] = field(default_factory=list)
    objects: list[tuple[ObjectRef, str | None]] = field(default_factory=list)  # linted, with their file
    baselined: int | None = None  # findings a --baseline already recorded (None: no baseline)
    unchecked: list[tuple[str, str]] = field(default_factory=list)  # (object, CEL rule) that could not be evaluated
    unjudged: list[str] = field(default_factory=list)  # PD416 not judged: the queue was not read
    unread: list[str] = field(default_factory=list)  # live reads RBAC refused: that part is unknown (exit 1)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)

    def summary(self) -> dict[str, Any]:
        return {
            "errors": self.errors,
            "warnings": self.warnings,
            "suppressed": self.suppressed,
            "objects": sum(self.linted.values()),
            "kinds": dict(sorted(self.linted.items())),
            "skipped": sum(self.skipped.values()),
            "skippedKinds": dict(sorted(self.skipped.items())),
            **({"baselined": self.baselined} if self.baselined is not None else {}),
            # CEL rules that could not run, fits not judged: "no findings" then means "none among what was checked"
            **({"unchecked": [*(f"{o}: {u}" for o, u in self.unchecked), *self.unjudged]}
               if self.unchecked or self.unjudged else {}),
            **({"unread": list(self.unread)} if self.unread else {}),
        }


def ref_of(obj: Obj) -> ObjectRef:
    return ObjectRef(str(obj.get("kind") or ""), name_of(obj), namespace_of(obj))


def suppressed_rules(obj: Obj) -> tuple[set[str], list[str]]:
    """Rule ids silenced by `kubectl-pd.io/ignore: "PD203,gpustack-single-group"` (`all` silences all)."""
    text = annotations_of(obj).get(IGNORE_ANNOTATION)
    if not isinstance(text, str):
        return set(), []
    ids: set[str] = set()
    unknown: list[str] = []
    for token in text.replace(";", ",").replace(" ", ",").split(","):
        if not token:
            continue
        if token.lower() in ("all", "*"):
            ids.add("*")
            continue
        rule: Rule | None = resolve(token)
        if rule is None:
            unknown.append(token)
        else:
            ids.add(rule.id)
    return ids, unknown


def check_object(obj: Obj, ctx: LintContext, raw: Obj | None = None) -> list[Finding]:
    """Every finding of one object, suppression not applied. Raises Malformed on unreadable shapes.

    `raw` is the object as written, before v1beta1 normalisation (None when unknown, e.g. live): fields
    the served version does not know are visible only there.
    """
    kind = obj.get("kind")
    ref = ref_of(obj)
    if kind in ("ClusterQueue", "Cohort"):
        check_shape(obj)
        out = check_resource_groups(obj, ref, ctx, raw)
        out.extend(check_kueue_facts(obj, ref, ctx, raw))
        if is_gpustack_queue(obj):
            out.extend(check_gpustack_queue(obj, ref, ctx.limits))
        return out
    if kind == "ModelDeployment":
        return check_model_deployment(obj, ref, ctx)
    if kind == "ResourceFlavor":  # linted when its CRD is known (by_schema), as Kueue's webhook checks it
        return check_resource_flavor(obj, ref)
    if kind in FRAMEWORK_KINDS:
        return check_framework(obj, ref, framework_facts(ctx))
    return []


def framework_facts(ctx: LintContext) -> FrameworkFacts:
    return FrameworkFacts(ctx.queues, ctx.local_queues, ctx.peers, ctx.live, ctx.local_queues_why)


def lint_objects(objs: Iterable[Obj], ctx: LintContext,
                 origin_of: Callable[[Obj], Origin] | None = None) -> LintResult:
    """Lint every ClusterQueue, Cohort and ModelDeployment; count the rest as skipped.

    With `origin_of`, each finding gets the file and line of its path (`Origin.line_of`).
    """
    result = LintResult([])
    result.unread.extend(ctx.unread)
    schemas = ctx.schemas
    for obj in objs:
        kind = str(obj.get("kind") or "")
        by_schema = kind not in LINTED_KINDS and bool(schemas) and schemas.knows_kind(obj)  # type: ignore[union-attr]
        if kind not in LINTED_KINDS and not by_schema:
            if kind not in REFERENCE_KINDS:
                result.skipped[kind] += 1
            continue
        result.linted[kind] += 1
        origin = origin_of(obj) if origin_of is not None else None
        result.objects.append((ref_of(obj), origin.file if origin is not None else None))
        raw = origin.raw if origin is not None and isinstance(origin.raw, dict) else None
        found = check_object(obj, ctx, raw)
        if kind in FRAMEWORK_KINDS:
            result.unjudged.extend(f"{ref_of(obj)}: {u}" for u in fit_unknown(obj, ref_of(obj), framework_facts(ctx)))
        if schemas:
            found.extend(_schema_findings(obj, raw, found, schemas, result))
        ignore, unknown = suppressed_rules(obj)
        result.unknown_suppressions.extend(f"{ref_of(obj)}: {u}" for u in unknown)
        if ignore:
            kept = [f for f in found if "*" not in ignore and f.rule_id not in ignore]
            result.suppressed += len(found) - len(kept)
            found = kept
        if origin is not None and found:
            found = [replace(f, file=origin.file, line=origin.line_of(f.path)) for f in found]
            found.sort(key=lambda f: f.line or 0)  # stable: check order within a line
        result.findings.extend(found)
    return result


def _schema_findings(obj: Obj, raw: Obj | None, found: list[Finding], schemas: SchemaIndex,
                     result: LintResult) -> list[Finding]:
    """PD501/PD502 from the object's CRD. A v1beta1 Kueue object read live was renamed to v1beta2 fields
    on the way in, so only its written form (files) can be checked against the v1beta1 schema."""
    if raw is None and obj.get("apiVersion") == "kueue.x-k8s.io/v1beta1":
        return []
    from kubectl_pd.lint.schema.layer import check_schema

    more, unchecked = check_schema(obj, raw, ref_of(obj), schemas, found)
    result.unchecked.extend((str(ref_of(obj)), u) for u in unchecked)
    return more


def context_from(objs: Iterable[Obj], ctx: LintContext) -> LintContext:
    """Fill the context from the objects at hand: queues always; flavors and admission checks when any
    are present (files that hold none leave PD111/PD112 off)."""
    flavors: dict[str, Obj] = {}
    checks: set[str] = set()
    local_queues: dict[tuple[str, str], Obj] = {}
    roles: list[Obj] = []
    for obj in objs:
        kind = obj.get("kind")
        if kind == "ClusterQueue":
            ctx.queues[name_of(obj)] = obj
        elif kind == "LocalQueue":
            local_queues[(namespace_of(obj) or "", name_of(obj))] = obj
        elif kind in ("LeaderWorkerSet", "Deployment"):
            roles.append(obj)
        elif kind == "ResourceFlavor":
            flavors[name_of(obj)] = obj
        elif kind == "AdmissionCheck":
            checks.add(name_of(obj))
        elif kind == "Cohort":
            spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
            parent = spec.get("parentName") if isinstance(spec, dict) else None
            ctx.cohorts = ctx.cohorts if ctx.cohorts is not None else {}
            ctx.cohorts[name_of(obj)] = parent if isinstance(parent, str) and parent else None
        elif kind == "CustomResourceDefinition" and is_crd(obj):
            if ctx.schemas is None:
                ctx.schemas = SchemaIndex()
            ctx.schemas.add(obj, "the input")
    if flavors and ctx.flavors is None:
        ctx.flavors = flavors
    if checks and ctx.admission_checks is None:
        ctx.admission_checks = checks
    if local_queues:
        ctx.local_queues = {**(ctx.local_queues or {}), **local_queues}
    if roles:
        ctx.peers = peers_of(roles)
    return ctx
