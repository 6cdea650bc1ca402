"""Committed fixtures are exactly what their generators produce, so a builder change cannot drift silently."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERATORS = sorted((ROOT / "tests" / "fixtures").rglob("generate*.py"))


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_fixture_gen_{path.parent.name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_is_a_generator() -> None:
    assert GENERATORS


@pytest.mark.parametrize("path", GENERATORS, ids=lambda p: str(p.relative_to(ROOT)))
def test_import_writes_nothing_and_build_matches_committed(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("a fixture generator wrote a file at import")

    monkeypatch.setattr(Path, "write_text", refuse)
    monkeypatch.setattr(Path, "write_bytes", refuse)
    module = _load(path)
    monkeypatch.undo()
    produced = module.build()
    assert produced == module.build(), "build() is not repeatable"
    stale = sorted(str(p.relative_to(ROOT)) for p, text in produced.items() if p.read_text() != text)
    assert not stale, f"stale fixtures (run python {path.relative_to(ROOT)}): {stale}"
