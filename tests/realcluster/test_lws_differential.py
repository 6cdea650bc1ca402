"""Issue 47 item 6: the 4a differential on Workloads LWS makes (tests/realcluster/lwsdiff.py): `why-pending
lws/NAME` and `ds/NAME` (DisaggregatedSets where the plane's LWS has them: Kueue 0.19) held against Kueue's
Workloads over a fixed seeded sample on the frameworks' plane (PD_LWS_DIFF_STATES states per line, default 4;
`scripts/differential lws --kueue 0.19 --states 200` runs hundreds). A disagreement not yet among the saved
cases (tests/realcluster/cases/lws/) fails the test and is saved for replay."""

from __future__ import annotations

import os

import pytest

from tests.realcluster import frameworks as fw
from tests.realcluster import lwsdiff as ld
from tests.realcluster.plane import Plane

pytestmark = pytest.mark.cluster
STATES = int(os.environ.get("PD_LWS_DIFF_STATES", "4"))
SEED = int(os.environ.get("PD_LWS_DIFF_SEED", "4700"))


def test_why_pending_on_lws_made_workloads_agrees_with_kueue(lws_plane: Plane) -> None:
    ds = fw.lws_line(lws_plane) >= (0, 9)
    records = [ld.run(lws_plane, ld.generate(SEED + i, ds=ds)) for i in range(STATES)]
    counts = ld.summary(records)
    print(f"Kueue {lws_plane.version}, LWS {records[0].lws if records else '-'}: {counts}")
    new = [r for r in records if r.disagrees and not ld.known(lws_plane.version, r.seed)]
    for r in new:
        ld.save(r)
    assert not new, f"{len(new)} new disagreement(s) with Kueue {lws_plane.version}, saved: " + \
        ", ".join(f"seed {r.seed} {r.agree}" for r in new)
    # every state is judged: Kueue stood still around the answers on most of them
    assert sum(v["agree"] for k, v in counts.items() if k.endswith(".workloads")) >= STATES
