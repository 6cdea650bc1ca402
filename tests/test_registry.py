"""One registry: the README's tables are generated from it, and every code the commands emit is in it."""

from __future__ import annotations

import re
from pathlib import Path

from kubectl_pd import registry
from kubectl_pd.lint import rules
from kubectl_pd.pending.model import CODES

ROOT = Path(__file__).resolve().parents[1]
SOURCES = "\n".join(p.read_text() for p in (ROOT / "kubectl_pd").rglob("*.py"))


def test_readme_tables_are_generated_from_the_registry() -> None:
    text = (ROOT / "README.md").read_text()
    assert registry.render_docs(text) == text, "README.md is stale: run scripts/gen-docs"
    for name in registry.TABLES:
        assert f"<!-- registry:{name} -->" in text


def test_ids_are_unique_and_entries_complete() -> None:
    entries = registry.REASONS + registry.RULES + registry.CHECKS
    assert len({e.id for e in entries}) == len(entries)
    for e in entries:
        assert e.summary and e.severity in (registry.ERROR, registry.WARNING, registry.INFO), e
        assert e.remediation or e.id == "NotPending", e


def test_reason_codes_are_the_registrys_in_priority_order() -> None:
    assert CODES == tuple(e.id for e in registry.REASONS)
    assert [registry.reason_priority(c) for c in CODES] == list(range(len(CODES)))


def test_every_reason_code_and_check_in_the_code_is_registered() -> None:
    reasons = set(re.findall(r'Reason\(\s*"(\w+)"', SOURCES))
    assert reasons <= set(CODES), reasons - set(CODES)
    checks = set(re.findall(r'Finding\(\s*(?:ERROR|WARNING), "([\w-]+)"', SOURCES))
    assert checks and checks <= {e.id for e in registry.CHECKS}, checks - {e.id for e in registry.CHECKS}


def test_lint_rules_are_the_registry_entries() -> None:
    assert tuple(rules.all_rules()) == registry.RULES
    assert rules.resolve("gpustack-single-group") is registry.entry("PD201")
