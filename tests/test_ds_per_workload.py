"""A target of several Workloads (a DisaggregatedSet's roles, an LWS's groups) is judged one Workload at a time, as
Kueue's scheduler judges them: each Workload's own pod sets against the queue, never the roles' sum (found by the LWS
differential on Kueue 0.19.2, tests/realcluster/cases/lws/kueue-0.19-seed-4711.yaml, -4740, -4743: why-pending
said QuotaExceedsCapacity for decode's 3 + prefill's 2 > 4 on prefill's Workload, which Kueue found only short of
unused quota, "2 more needed")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests import frameworks as fw

_SHORT = "couldn't assign flavors to pod set leader: insufficient unused quota for nvidia.com/gpu in flavor h100, {} " \
         "more needed"


def _ds(decode: str, *, prefill_msg: str, decode_msg: str = "") -> list[dict[str, Any]]:
    """Seed 4711's ds1 on the loopback server: each role one group of one Pod (LWS size 1: its Workload one pod
    set), prefill's Pod 2 GPUs, decode's 3."""
    ds, (prefill, dec) = fw.disaggregated_set("ds1", {"prefill": 1, "decode": 1})
    out: list[dict[str, Any]] = [ds, prefill, dec]
    for lws, gpus, state, msg in ((prefill, 2, "pending", prefill_msg), (dec, 3, decode, decode_msg)):
        lws["spec"]["leaderWorkerTemplate"]["size"] = 1
        group = fw.lws_group(lws, 0, state, gpus=gpus, message=msg)
        wl = group[0]
        wl["spec"]["podSets"] = [ps for ps in wl["spec"]["podSets"] if ps["count"]]  # no worker pod set of 0
        if "admission" in wl["status"]:
            wl["status"]["admission"]["podSetAssignments"] = [
                a for a in wl["status"]["admission"]["podSetAssignments"] if a["count"]]
        out += group
    return out


def _reasons(cli: Any, env: dict[str, str]) -> dict[str, dict[str, Any]]:
    r = cli(["why-pending", "ds/ds1", "-n", fw.NS, "-o", "json"], env=env)
    assert r.exit_code in (0, 1), r.stderr
    data = json.loads(r.stdout)
    assert data["pending"] is True
    return {x["role"]: x for x in data["reasons"] if x["code"] not in ("PartlyAdmitted", "NotPending")}


def test_each_workload_of_a_set_is_short_of_its_own_quota(cli: Any, apiserver: Any) -> None:
    """Seed 4711: the queue's 4 GPUs all in use by others; decode (3) and prefill (2) both wait. Kueue: decode
    "3 more needed", prefill "2 more needed" (insufficient unused quota: each alone fits the queue's 4)."""
    objs = _ds("pending", prefill_msg=_SHORT.format(2), decode_msg=_SHORT.format(3))
    _server, env = apiserver([*fw.queues(gpus=4, used=4), *objs], groups=fw.groups())
    by_role = _reasons(cli, env)
    assert {role: r["code"] for role, r in by_role.items()} == {"prefill": "QuotaExhausted",
                                                                 "decode": "QuotaExhausted"}
    prefill, decode = by_role["prefill"], by_role["decode"]
    assert (prefill["needed"], prefill["flavor"], prefill["params"]["kueueNeeded"]) == ("2", fw.FLAVOR, "2")
    assert (decode["needed"], decode["flavor"], decode["params"]["kueueNeeded"]) == ("3", fw.FLAVOR, "3")
    for r in (prefill, decode):  # judged alone: nothing of the other role counted before it, capacity never exceeded
        assert r["params"]["previous"] == "0" and r["params"]["outcome"] != "exceeds-capacity"


def test_a_set_whose_decode_holds_its_quota(cli: Any, apiserver: Any) -> None:
    """Decode admitted (3 of the 4 GPUs held): prefill's Workload alone is short of 1 (2 asked, 1 free)."""
    objs = _ds("admitted", prefill_msg=_SHORT.format(1))
    _server, env = apiserver([*fw.queues(gpus=4, used=3), *objs], groups=fw.groups())
    by_role = _reasons(cli, env)
    assert list(by_role) == ["prefill"]
    assert (by_role["prefill"]["code"], by_role["prefill"]["needed"]) == ("QuotaExhausted", "1")


@pytest.mark.parametrize("used", [0, 1])
def test_a_set_that_fits_role_by_role_waits_behind_its_first_workload(cli: Any, apiserver: Any, used: int) -> None:
    """Each role fits the queue's free 4 - used GPUs alone, their sum (5) does not: Kueue reserves one Workload
    (decode's, first in the queue's order here) and the other then waits for unused quota, short of what is left
    after it (prefill 2 - (4 - used - 3)); neither is ever beyond the queue's capacity (seed 4711's QuotaExceedsCapacity
    on the sum). Decode's reason is Kueue's older message, which the usage read now no longer bears out."""
    objs = _ds("pending", prefill_msg=_SHORT.format(1), decode_msg=_SHORT.format(3))
    _server, env = apiserver([*fw.queues(gpus=4, used=used), *objs], groups=fw.groups())
    by_role = _reasons(cli, env)
    assert "QuotaExceedsCapacity" not in {r["code"] for r in by_role.values()}
    prefill = by_role["prefill"]
    assert (prefill["code"], prefill["needed"], prefill["flavor"]) == ("QuotaExhausted", str(1 + used), fw.FLAVOR)
    assert prefill["params"]["outcome"] != "exceeds-capacity"
