"""A CI sample of the capacity property over the 4a generator (tests/realcluster/capacity_property.py): create
exactly `now` copies, each admitted; one more is not (or preempts exactly what capacity named).
PD_CAPACITY_SEEDS=N widens the sample (default 4 seeds from 2800)."""

from __future__ import annotations

import os

import pytest

from tests.realcluster import capacity_property as cp
from tests.realcluster.differential import ensure_priorities
from tests.realcluster.plane import Plane

pytestmark = pytest.mark.cluster

SEEDS = range(2800, 2800 + int(os.environ.get("PD_CAPACITY_SEEDS", "4")))


@pytest.mark.parametrize("seed", SEEDS)
def test_create_exactly_now_copies_over_generated_states(plane: Plane, seed: int) -> None:
    ensure_priorities(plane)
    got = cp.run(plane, seed)
    print(f"capacity property seed {seed} on Kueue {plane.version}: {got}")
    assert got.holds, got
