"""The admission arithmetic, pure: per role, flavor by flavor in queue order."""

from __future__ import annotations

from fractions import Fraction

from kubectl_pd.pending import quota as qa

CRED = "credits.gpustack.ai/nvidia"
M = 1_600_000


def cq(flavors: list[tuple[str, int]], reserved: int = 0, used: int | None = None, cohort: str | None = None,
       borrowing: int | None = None) -> dict:
    res = []
    for name, cards in flavors:
        r = {"name": CRED, "nominalQuota": str(cards * M)}
        if borrowing is not None:
            r["borrowingLimit"] = str(borrowing * M)
        res.append({"name": name, "resources": [r]})
    first = flavors[0][0]
    spec = {"resourceGroups": [{"coveredResources": [CRED], "flavors": res}]}
    if cohort:
        spec["cohortName"] = cohort
    return {"spec": spec, "status": {
        "flavorsReservation": [{"name": first, "resources": [{"name": CRED, "total": str(reserved * M)}]}],
        "flavorsUsage": [{"name": first, "resources": [
            {"name": CRED, "total": str((used if used is not None else reserved) * M)}]}]}}


def demand(role: str, pods: int, cards: int, **kw: object) -> qa.Demand:
    return qa.Demand(role, "wl", role, pods, {CRED: Fraction(pods * cards * M)}, **kw)  # type: ignore[arg-type]


def test_pd_story_prefill_fits_decode_needs_four_more() -> None:
    r = qa.assign(cq([("h20", 16)], reserved=10), [demand("prefill", 1, 2), demand("decode", 2, 4)])
    prefill, decode = r.verdicts
    assert (prefill.verdict, prefill.flavor) == (qa.FITS, "h20")
    assert (decode.verdict, decode.code) == (qa.BLOCKED, "QuotaExhausted")
    assert decode.best is not None and decode.best.needed == 4 * M and decode.best.free == 6 * M
    assert decode.max_pods == 1  # one 4-card decode pod fits next to prefill
    [bar] = r.bars
    assert (bar.nominal, bar.used, bar.reserved, bar.needed) == (16 * M, 10 * M, 0, 10 * M)


def test_exceeds_capacity_is_never() -> None:
    r = qa.assign(cq([("h20", 16)]), [demand("decode", 3, 8)])
    [v] = r.verdicts
    assert v.code == "QuotaExceedsCapacity" and v.best is not None and v.best.needed == 8 * M
    assert v.max_pods == 2


def test_first_fitting_flavor_in_queue_order() -> None:
    r = qa.assign(cq([("small", 4), ("big", 16)], reserved=2), [demand("decode", 1, 4)])
    assert r.verdicts[0].flavor == "big"
    assert [c.outcome for c in r.verdicts[0].checks] == [qa.EXHAUSTED, qa.OK]


def test_cohort_borrowing_limit_raises_capacity() -> None:
    r = qa.assign(cq([("h20", 8)], cohort="pool", borrowing=8), [demand("decode", 3, 4)])
    assert r.verdicts[0].verdict == qa.FITS
    r = qa.assign(cq([("h20", 8)], cohort="pool"), [demand("decode", 3, 4)])
    assert r.verdicts[0].code == "QuotaExhausted"  # capacity unknown without a limit: not "never"


def test_flavor_checks_taint_affinity_missing() -> None:
    flavors = {
        "a10g": {"spec": {"nodeLabels": {"acceleratable.feature.gpustack.ai/nvidia-a10g": "true"}}},
        "h20": {"spec": {"nodeLabels": {"acceleratable.feature.gpustack.ai/nvidia-h20": "true"},
                         "nodeTaints": [{"key": "maint", "value": "true", "effect": "NoSchedule"}]}},
        "gone": None,
    }
    d = demand("decode", 1, 4, node_selector={"acceleratable.feature.gpustack.ai/nvidia-h20": "true"})
    r = qa.assign(cq([("a10g", 8), ("h20", 8), ("gone", 8)]), [d], flavors)
    v = r.verdicts[0]
    assert v.code == "NoMatchingFlavor"
    assert [c.outcome for c in v.checks] == [qa.AFFINITY, qa.TAINT, qa.NOT_FOUND]
    assert v.checks[1].detail == "untolerated taint {maint true NoSchedule <nil>} in flavor h20"
    tolerant = demand("decode", 1, 4, node_selector={"acceleratable.feature.gpustack.ai/nvidia-h20": "true"},
                      tolerations=[{"key": "maint", "operator": "Exists", "effect": "NoSchedule"}])
    assert qa.assign(cq([("a10g", 8), ("h20", 8)]), [tolerant], flavors).verdicts[0].flavor == "h20"


def test_uncovered_resource_and_reserved_demands() -> None:
    d = qa.Demand("decode", "wl", "decode", 1, {"nvidia.com/gpu": Fraction(4)})
    assert qa.assign(cq([("h20", 8)]), [d]).verdicts[0].code == "ResourceNotCovered"
    held = demand("prefill", 1, 2, reserved=True)
    assert qa.assign(cq([("h20", 8)], reserved=2), [held]).verdicts[0].verdict == qa.ADMITTED


def test_replicas_of_one_role_accumulate() -> None:
    r = qa.assign(cq([("h20", 16)], reserved=14), [demand("decode", 1, 4), demand("decode", 1, 4)])
    assert [v.best.needed for v in r.verdicts if v.best] == [2 * M, 6 * M]


def test_replicas_merge_into_one_role_verdict() -> None:
    r = qa.assign(cq([("h20", 16)], reserved=14), [demand("decode", 1, 4), demand("decode", 1, 4)])
    merged = qa.by_role(r.verdicts)
    assert merged[0] is merged[1]
    v = merged[0]
    assert v.demand.count == 2 and v.best is not None
    assert (v.best.requested, v.best.needed, v.best.free) == (8 * M, 6 * M, 2 * M)
    big = qa.assign(cq([("h20", 4)]), [demand("decode", 1, 4), demand("decode", 1, 4)])
    m = qa.by_role(big.verdicts)[1]
    assert m.code == "QuotaExceedsCapacity" and m.best is not None and m.best.needed == 4 * M
