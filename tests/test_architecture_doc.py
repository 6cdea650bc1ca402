"""docs/architecture.md names every module of the package (issue 38: it had left 22 out), so a new module
comes with its line in the picture."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_is_named_in_the_architecture() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = sorted(p.relative_to(ROOT / "kubectl_pd") for p in (ROOT / "kubectl_pd").rglob("*.py")
                     if p.name != "__init__.py" and "__pycache__" not in p.parts)
    unnamed = [str(m) for m in modules if m.name not in doc and m.stem not in doc]
    assert modules and not unnamed, unnamed
