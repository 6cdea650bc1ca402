"""Dependencies point down (issue 20): create's checks use the core, not why-pending's modules; kueue/
imports nothing of cluster/; each type is defined once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "kubectl_pd"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_create_does_not_import_why_pending() -> None:
    for f in (PKG / "create").glob("*.py"):
        assert not {m for m in _imports(f) if m.startswith("kubectl_pd.pending")}, f.name


def test_kueue_does_not_import_cluster() -> None:
    for f in (PKG / "kueue").glob("*.py"):
        assert not {m for m in _imports(f) if m.startswith("kubectl_pd.cluster")}, f.name


def test_the_kueue_group_is_spelled_alike() -> None:
    from kubectl_pd.cluster.kinds import KUEUE_GROUP
    from kubectl_pd.kueue.normalize import KUEUE_GROUP as SPELLED

    assert SPELLED == KUEUE_GROUP


def test_the_types_issue_20_names_are_defined_once() -> None:
    found: dict[str, list[str]] = {}
    for f in PKG.rglob("*.py"):
        for m in re.finditer(r"^class (\w+)\b", f.read_text(), re.M):
            found.setdefault(m.group(1), []).append(str(f.relative_to(PKG)))
    for name in ("Demand", "Finding", "Role", "_Reader", "NodeFit", "Preemption"):
        assert len(found.get(name, [])) <= 1, (name, found.get(name))
