"""The two import circles stay cut: the fair-sharing preemptor shares its types with the classical one
through kueue/preempt_common.py (Kueue's preemption/common), never by importing kueue/preemption.py; and
pending/gather.py (the reads) never calls the printer (pending/words.py) for an error's text. Checked on
every import statement of the module, those inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "kubectl_pd"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


@pytest.mark.parametrize(("module", "never"), [
    ("kueue/fairsharing.py", "kubectl_pd.kueue.preemption"),
    ("kueue/preempt_common.py", "kubectl_pd.kueue.preemption"),
    ("kueue/preempt_common.py", "kubectl_pd.kueue.fairsharing"),
    ("pending/gather.py", "kubectl_pd.pending.words"),
])
def test_no_circle(module: str, never: str) -> None:
    assert never not in _imports(ROOT / module)
