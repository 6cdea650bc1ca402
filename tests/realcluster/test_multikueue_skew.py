"""MultiKueue's version skew on real planes: a manager of the newest Kueue line asked for (0.19.2) and a worker of
the oldest (0.18.4), started by `scripts/real-cluster up --multikueue-workers 1 --worker-kueue worker-1=0.18`. A
group the worker cannot hold is dispatched there and diagnosed from the worker's own reads: its own API, its own
copy and Kueue's words on that copy (kubectl_pd/multikueue/reads.py opens each worker as its own Source)."""

from __future__ import annotations

import pytest

from tests.realcluster.conftest import mk_lines
from tests.realcluster.plane import MultiKueuePlanes, condition, wait_for
from tests.realcluster.test_multikueue import _codes, _group, _listed_with_workers, _setup, _why, _wl, _workers

pytestmark = [pytest.mark.cluster, pytest.mark.multikueue_skew]


def test_worker_of_another_line_is_diagnosed_with_its_own_words(mk_skew_planes: MultiKueuePlanes) -> None:
    p = mk_skew_planes
    assert p.version.startswith(f"v{mk_lines()[-1]}.") and p.worker_state("worker-1")["kueue"].startswith(
        f"v{mk_lines()[0]}."), (p.version, p.worker_state("worker-1")["kueue"])
    ns, _ = _setup(p, "mk-skew", "100", {"worker-1": "2"})
    _group(p, ns, "g", "4")
    wait_for("the copy tried on worker-1", lambda: (c := _wl(p, "worker-1", ns, "g")) and
             (q := condition(c, "QuotaReserved")) and q["status"] == "False")
    rc, doc, err = _why(p, "g", ns)
    assert rc == 0, err
    mk = doc["multikueue"]
    assert (mk["state"], mk["nominated"]) == ("Dispatched", ["worker-1"]), mk
    w1 = _workers(doc)["worker-1"]
    assert (w1["read"], w1["pending"], w1["context"]) == ("read", True, "worker-1"), w1
    assert "QuotaExceedsCapacity" in _codes(w1), w1
    copy = _wl(p, "worker-1", ns, "g")
    assert copy is not None
    said = condition(copy, "QuotaReserved")["message"]
    never = next(r for r in w1["reasons"] if r["code"] == "QuotaExceedsCapacity")
    assert never["kueueMessage"] == said and "maximum capacity (2)" in said, (never, said)
    assert [r["code"] for r in mk["reasons"]] == ["MultiKueueNoWorkerFits"], mk
    _listed_with_workers(p, ns, "podgroup/g", {"worker-1"})
