"""Every `$ kubectl pd ...` example in README.md and docs/ that runs offline, or against the loopback cluster
its page names (`<!-- example-cluster: ... -->`), runs and prints what the page shows."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.docs_examples import Example, examples, run

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = [ex for page in PAGES for ex in examples(page) if ex.runnable]


def test_there_are_examples_to_check() -> None:
    assert len(EXAMPLES) >= 10
    assert any(ex.cluster for ex in EXAMPLES), "no example runs against the loopback cluster"
    for ex in EXAMPLES:
        for f in ex.cluster:
            assert (ROOT / "tests" / "fixtures" / f).is_file(), f"{ex.path.name}: no fixture {f}"
    from tests.scenarios import SCENARIOS

    played = [ex for ex in EXAMPLES if ex.scenario]
    assert {ex.scenario for ex in played} <= set(SCENARIOS)
    # both `create --wait` examples of docs/create.md run on a cluster that changes while they wait
    waits = [ex for ex in played if ex.path.name == "create.md" and "--wait=" in ex.steps[0].command]
    assert [ex.scenario for ex in waits] == ["qwen-admitted-after-1.5s", "qwen-never-admitted"]


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: f"{ex.path.name}:{ex.steps[0].command[:70]}")
def test_example_output_is_current(ex: Example) -> None:
    exe = shutil.which("kubectl-pd")
    assert exe, "kubectl-pd is not installed (pip install '.[test]')"
    got = run(ex, ROOT, exe)
    for want, have in zip(ex.steps, got, strict=True):
        assert have.output == want.output, f"stale example (run scripts/refresh-examples): $ {want.command}"


def test_every_kubectl_pd_block_runs_or_says_why_not() -> None:
    silent = [f"{ex.path.name}: $ {ex.steps[0].command[:60]}" for page in PAGES for ex in examples(page)
              if ex.steps and ex.steps[0].command.startswith("kubectl pd ") and not ex.runnable and not ex.not_run]
    assert not silent, f"blocks neither run nor marked <!-- example-not-run: REASON -->: {silent}"


def test_readme_is_a_landing_page_that_links_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 250, "README.md is the landing page: move reference text to docs/"
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert pages and [p for p in pages if f"(docs/{p})" not in readme] == []
    assert "<!-- test-command -->" in readme and "<!-- /test-command -->" in readme  # .ci/run reads it


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens."""
    heads = re.findall(r"^#+ (.+)$", re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_links_between_docs_pages_resolve() -> None:
    for page in PAGES:
        for target, anchor in re.findall(r"\]\(([^)#:]*\.md|)(?:#([^)]*))?\)", page.read_text()):
            linked = (page.parent / target) if target else page
            assert linked.is_file(), f"{page.name} links to missing {target}"
            assert not anchor or anchor in _anchors(linked), f"{page.name} links to missing {target}#{anchor}"


def test_the_live_lint_example_cluster_is_the_integration_tests() -> None:
    """docs/lint.md's live example runs on a file; it must stay the cluster tests/test_lint_live.py checks."""
    from tests.apiserver import load_objects
    from tests.test_lint_live import cluster_objects

    assert load_objects(ROOT / "tests" / "fixtures" / "lint" / "live-cluster.yaml") == cluster_objects()
