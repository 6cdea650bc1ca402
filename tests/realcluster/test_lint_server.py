"""4c: `lint` against the real API server: the repository's lint fixtures and PD_LINT_OBJECTS generated
objects (default 300; `scripts/differential lint` runs more) are sent with dryRun=All and strict field
validation; the server refuses exactly when lint reports an error (both directions counted)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.realcluster import lintcheck
from tests.realcluster.plane import Plane

pytestmark = pytest.mark.cluster


def test_lint_refuses_exactly_what_the_server_refuses(plane: Plane, tmp_path: Path) -> None:
    result = lintcheck.run(plane, tmp_path, int(os.environ.get("PD_DIFF_SEED", "2800")),
                           int(os.environ.get("PD_LINT_OBJECTS", "300")))
    print(f"Kueue {plane.version}: {result.total} objects, {result.counts}")
    assert result.counts["bothRefuse"] > 50 and result.counts["bothAccept"] > 50  # the generator is balanced
    assert not result.disagreements, [(d["kind"], d["server"], d["lint"]) for d in result.disagreements[:10]]
