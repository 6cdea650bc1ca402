"""4b: `create`'s preflight verdict (fits / would preempt these / can never fit) against what the real Kueue
does with what `create` then writes: the seed design's pod group as plain Pods (`--target pods`: the
labels, total count and queue name GPUStack's operator renders), on a GPUStack-shaped ClusterQueue that
covers `credits.gpustack.ai/nvidia` (1,600,000 credits a card)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.realcluster.createcase import case, preflight_then_create, prepare
from tests.realcluster.differential import _finish_eviction as finish_eviction
from tests.realcluster.differential import _preempted as preempted
from tests.realcluster.plane import Plane, condition, is_true, wait_for

pytestmark = pytest.mark.cluster


@pytest.mark.parametrize("seed", range(2800, 2808))
def test_preflight_against_admission(plane: Plane, seed: int) -> None:
    c = case(seed)
    ns = plane.namespace(f"create{seed}")
    cq = f"gpustack--nvidia-h100-linux-amd64-{ns}"
    admitted = prepare(plane, c, ns, cq)
    # the pod group needs a priority to preempt by: the Pods carry none, so Kueue gives the group priority 0
    said, victims = preflight_then_create(plane, c, ns, cq, "--target", "pods", "--local-queue", "main")
    did, evicted = _what_kueue_did(plane, ns, admitted)
    assert (said, victims) == (did, evicted), f"case {c}: preflight said {said} {victims}, Kueue {did} {evicted}"


def _what_kueue_did(plane: Plane, ns: str, admitted: list[str]) -> tuple[str, list[str]]:
    def group() -> dict[str, Any] | None:
        return next((w for w in plane.get("workloads", namespace=ns)["items"] if w["metadata"]["name"] == "qwen"),
                    None)

    wl = wait_for("the pod group's Workload tried", lambda: (g := group()) is not None and condition(
        g, "QuotaReserved") is not None and g)
    victims: set[str] = set()
    for _ in range(20):
        wl = group() or wl
        if is_true(wl, "QuotaReserved"):
            break
        for w in plane.get("workloads", namespace=ns)["items"]:
            if w["metadata"]["name"] in admitted and preempted(w) and w["metadata"]["name"] not in victims:
                victims.add(w["metadata"]["name"])
                finish_eviction(plane, ns, w["metadata"]["name"], deactivate=True)
        time.sleep(0.5)
    if victims:
        return "preempts", sorted(victims)
    if is_true(wl, "QuotaReserved"):
        return "fits", []
    msg = (condition(wl, "QuotaReserved") or {}).get("message", "")
    return ("never" if "maximum capacity" in msg else "blocked"), []
