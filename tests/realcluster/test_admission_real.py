"""4a: why-pending's verdict from a snapshot against what the real Kueue then does, over a fixed seeded sample
(PD_DIFF_STATES states per Kueue line, default 12; `scripts/differential` runs hundreds). A disagreement that
is not yet among the saved cases fails the test and is written under tests/realcluster/cases/ for replay."""

from __future__ import annotations

import os

import pytest

from tests.realcluster import differential as d
from tests.realcluster.cases import known, save
from tests.realcluster.plane import Plane

pytestmark = pytest.mark.cluster
STATES = int(os.environ.get("PD_DIFF_STATES", "12"))
SEED = int(os.environ.get("PD_DIFF_SEED", "2800"))


def test_why_pending_agrees_with_kueue(plane: Plane) -> None:
    _agree(plane, fair=False)


def test_why_pending_agrees_with_kueue_under_fair_sharing(fair_plane: Plane) -> None:
    _agree(fair_plane, fair=True)


def _agree(plane: Plane, fair: bool) -> None:
    d.ensure_priorities(plane)
    config = str(plane.workdir / "kueue.yaml")  # Kueue's configuration, as --kueue-config (fair sharing in it)
    records = [d.run(plane, d.generate(SEED + i, fair_sharing=fair), kueue_config=config) for i in range(STATES)]
    counts = d.summary(records)
    print(f"Kueue {plane.version}{' fair sharing' if fair else ''}: {counts}")
    new = [r for r in records if r.disagrees and not known(plane.kueue, r.seed, fair)]
    for r in new:
        save(r)
    assert not new, f"{len(new)} new disagreement(s) with Kueue {plane.version}, saved: " + \
        ", ".join(f"seed {r.seed} {r.agree} {r.preemptor}" for r in new)
    # the tool must say something on most states: an answer of "unknown" everywhere would agree with nothing
    assert counts.get("admission", {}).get("agree", 0) >= STATES // 2
