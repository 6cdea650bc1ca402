"""Every `$ kubectl pd ...` example in README.md and docs/ that runs offline, or against the loopback cluster
its page names (`<!-- example-cluster: ... -->`), runs and prints what the page shows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kubectl_pd.docs_examples import Example, examples, run

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = [ex for page in PAGES for ex in examples(page) if ex.runnable]


def test_there_are_examples_to_check() -> None:
    assert len(EXAMPLES) >= 10
    assert any(ex.cluster for ex in EXAMPLES), "no example runs against the loopback cluster"
    for ex in EXAMPLES:
        for f in ex.cluster:
            assert (ROOT / "tests" / "fixtures" / f).is_file(), f"{ex.path.name}: no fixture {f}"


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: f"{ex.path.name}:{ex.steps[0].command[:70]}")
def test_example_output_is_current(ex: Example) -> None:
    exe = shutil.which("kubectl-pd")
    assert exe, "kubectl-pd is not installed (pip install '.[test]')"
    got = run(ex, ROOT, exe)
    for want, have in zip(ex.steps, got, strict=True):
        assert have.output == want.output, f"stale example (run scripts/refresh-examples): $ {want.command}"
