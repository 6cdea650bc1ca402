"""One registry: the docs' tables are generated from it, and every code the commands emit is in it."""

from __future__ import annotations

import re
from pathlib import Path

from kubectl_pd import registry
from kubectl_pd.lint import rules
from kubectl_pd.pending.model import CODES

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SOURCES = "\n".join(p.read_text() for p in (ROOT / "kubectl_pd").rglob("*.py"))


def test_docs_tables_are_generated_from_the_registry() -> None:
    stale = [p.name for p in PAGES if registry.render_docs(p.read_text()) != p.read_text()]
    assert not stale, f"stale tables in {stale}: run python scripts/gen-docs"


def test_every_registry_table_is_published_once() -> None:
    """Each table (reasons, rules, checks) has one home in docs/, so no copy can be forgotten."""
    where = {name: [p.relative_to(ROOT).as_posix() for p in PAGES if f"<!-- registry:{name} -->" in p.read_text()]
             for name in registry.TABLES}
    assert where == {"reasons": ["docs/reasons.md"], "rules": ["docs/rules.md"], "checks": ["docs/rules.md"]}
    for name, (page,) in where.items():
        text = (ROOT / page).read_text()
        assert text.count(f"<!-- /registry:{name} -->") == 1
        rows = text.split(f"<!-- registry:{name} -->")[1].split(f"<!-- /registry:{name} -->")[0]
        entries = {"reasons": registry.REASONS, "rules": registry.RULES, "checks": registry.CHECKS}[name]
        assert rows.count("\n| ") == len(entries) + 1  # header + one row per entry


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


def test_the_reason_code_type_names_every_reason() -> None:
    """`registry.ReasonCode` (a Literal for the type checker) lists exactly the REASONS ids, in order."""
    import ast
    from pathlib import Path

    from kubectl_pd import registry

    tree = ast.parse(Path(registry.__file__).read_text())
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "ReasonCode" for t in n.targets))
    assert isinstance(node.value, ast.Subscript) and isinstance(node.value.slice, ast.Tuple)
    literal = [e.value for e in node.value.slice.elts if isinstance(e, ast.Constant)]
    assert literal == [e.id for e in registry.REASONS]
