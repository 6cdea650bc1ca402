"""capacity and create's preflight agree on generated plain-GPU layouts (issue 46: one resource model, one set of
figures): for the same snapshot and request, capacity's `now` is at least 1 exactly when the preflight finds no quota
problem, its `never` exactly when the preflight says never-fits, and its next stop's code is the preflight's. Pure:
both through the one engine over kueue/resources' units."""

from __future__ import annotations

import itertools

import pytest

from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.gather import parts_of
from kubectl_pd.create import preflight
from kubectl_pd.gpustack.roles import PD_ATOMIC
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import Snapshot
from tests.test_quota_figures import GPU, layout
from tests.test_resources_model import _roles

STATES = list(itertools.product((0, 4), (None, 2), (None, 0, 1), (4, 12), (0, 6), (2, 4, 8, 16, 24)))


@pytest.mark.parametrize("own, lending, borrowing, used_r, used_p, n_cards", STATES, ids=[str(s) for s in STATES])
def test_capacity_and_preflight_agree(own: int, lending: int | None, borrowing: int | None, used_r: int,
                                      used_p: int, n_cards: int) -> None:
    snap = Snapshot.of(layout(own, lending, borrowing, used_r, used_p))
    roles = _roles(f"name=w,kind=prefill,replicas=1,accelerator={n_cards}")
    count = sim.count(snap, parts_of(roles, PD_ATOMIC, GPU, "research"))
    result = vd.evaluate(snap, "research", preflight.role_demands(roles, PD_ATOMIC, GPU, "research"))
    found = {f.params.get("code") for f in preflight.quota_findings("research", GPU, result, False)}
    if count.now >= 1:
        assert found == set()
    else:
        assert count.stop is not None
        assert found == {count.stop.code}
        assert ("QuotaExceedsCapacity" in found) is count.stop.never
    for f in preflight.quota_findings("research", GPU, result, False):  # in devices, never credits
        assert f.params.get("requested") in (None, n_cards)
