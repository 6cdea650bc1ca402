"""`kubectl pd lint`'s core: rules, checks, the canonical fix and the reporters (no click, no I/O)."""

from kubectl_pd.lint.context import LintContext, Malformed
from kubectl_pd.lint.engine import LintResult, context_from, lint_objects
from kubectl_pd.lint.findings import Finding, ObjectRef
from kubectl_pd.lint.limits import LEGACY, MODERN, Limits, limits_for, parse_version
from kubectl_pd.lint.rules import RULES, Rule, resolve

__all__ = [
    "LEGACY", "MODERN", "RULES", "Finding", "Limits", "LintContext", "LintResult", "Malformed", "ObjectRef",
    "Rule", "context_from", "limits_for", "lint_objects", "parse_version", "resolve",
]
