"""PD501/PD502: schema and CEL violations as findings, minus what a built-in rule already says.

The built-in rules (PD1xx-PD4xx) say the same thing with more context; a violation at the same
path, with the same words, or from a CEL rule a built-in rule implements, is dropped so a finding
is never reported twice.
"""

from __future__ import annotations

from typing import Any

from kubectl_pd.lint.findings import Finding, ObjectRef, PathT, format_path
from kubectl_pd.lint.rules import RuleId
from kubectl_pd.lint.schema.crds import SchemaIndex
from kubectl_pd.lint.schema.validate import Violation, validate

Obj = dict[str, Any]

# CEL messages of Kueue's CRDs -> the built-in rule that implements them
COVERED_CEL = {
    "flavors must have the same number of resources as the coveredResources": "PD106",
    "borrowingLimit must be nil when cohort is empty": "PD109",
    "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never": "PD404",
    "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor": "PD405",
}


def check_schema(obj: Obj, raw: Obj | None, ref: ObjectRef, schemas: SchemaIndex,
                 existing: list[Finding]) -> tuple[list[Finding], list[str]]:
    """Findings of the object's CRD schema and CEL rules, and the CEL rules that could not be evaluated.

    The object is checked as written (`raw`); without it, only when normalisation did not rename fields.
    """
    written = raw if isinstance(raw, dict) else obj
    schema = schemas.schema_for(written)
    if schema is None:
        return [], []
    outcome = validate(written, schema)
    paths = {f.path for f in existing}
    lines = {f.kueue_message for f in existing if f.kueue_message}
    rules = {f.rule_id for f in existing}
    out: list[Finding] = []
    for v in outcome.violations:
        if _covered(v, paths, lines, rules):
            continue
        line = f"{format_path(v.path)}: {v.message}"
        out.append(Finding("PD502" if v.cel else "PD501", ref, v.path, v.message, line))
    return out, outcome.unchecked


def _covered(v: Violation, paths: set[PathT], lines: set[str], rules: set[RuleId]) -> bool:
    if f"{format_path(v.path)}: {v.message}" in lines:
        return True
    if v.cel:
        message = v.message.split(": ", 1)[-1]
        return COVERED_CEL.get(message) in rules
    if v.path in paths:
        return True
    return any(len(p) == len(v.path) + 1 and p[: len(v.path)] == v.path for p in paths)
