"""4b: `create`'s preflight verdict (fits / would preempt these / can never fit) against what the real Kueue
does with what `create` then writes: the seed design's pod group as plain Pods (`--target pods`: the
labels, total count and queue name GPUStack's operator renders), on a GPUStack-shaped ClusterQueue that
covers `credits.gpustack.ai/nvidia` (1,600,000 credits a card)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.realcluster.createcase import case, preflight_then_create, prepare, wait_scheduler_refuses
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


def test_preflight_says_no_node_fits_and_kueue_admits_what_never_runs(plane: Plane) -> None:
    """create's preflight weighs the flavor's Nodes (kwok's, by its nodeLabels): a prefill Pod of N+1 cards, where the
    largest Node allocates N, is `no-node-fits` (an error, the largest Node named), never "waits for quota"; N cards
    is not. The truth: with --force Kueue admits the group and kube-scheduler never places that Pod."""
    from kubectl_pd.kueue.quantity import parse
    from tests.realcluster import objs
    from tests.realcluster.createcase import CARD, CREDITS

    nodes = [n for n in plane.get("nodes")["items"] if (n["metadata"].get("labels") or {}).get("type") == "kwok"]
    largest = max(parse(n["status"]["allocatable"][CREDITS]) for n in nodes)
    n = int(largest // CARD)
    ns = plane.namespace("create-node")
    cq, flavor = plane.unique("create-node-cq"), plane.unique("create-node")
    plane.apply(objs.flavor(flavor, {"type": "kwok"}),
                objs.cluster_queue(cq, [(flavor, [objs.quota(CREDITS, str(3 * n * CARD))])], covered=[CREDITS]),
                objs.local_queue(ns, "main", cq))
    wait_for("the LocalQueue active", lambda: is_true(plane.get("localqueue", "main", ns), "Active"))

    def create(cards: int, *extra: str) -> Any:
        return plane.pd("create", "big", "--model", "m", "--engine-version", "1", "-n", ns, "--target", "pods",
                        "--local-queue", "main", "--role", f"name=prefill,kind=prefill,replicas=1,accelerator={cards},"
                        "image=e:1", "--role", "name=decode,kind=decode,replicas=1,image=e:1", *extra)

    fits = create(n, "--preflight", "-o", "json")
    assert fits.returncode == 0, fits.stderr
    assert [f["check"] for f in json.loads(fits.stdout)["findings"]] == []
    never = create(n + 1, "--preflight", "-o", "json")
    assert never.returncode == 1, never.stderr
    (f,) = json.loads(never.stdout)["findings"]
    assert (f["check"], f["severity"], f["params"]["role"], f["params"]["flavor"]) == ("no-node-fits", "error",
                                                                                        "prefill", flavor)
    assert f["params"]["node"] in {x["metadata"]["name"] for x in nodes} and parse(f["params"]["largest"]) == largest
    made = create(n + 1, "--force")
    assert made.returncode == 0, made.stderr
    wait_for("Kueue admits the group (its quota holds it)", lambda: any(
        is_true(w, "QuotaReserved") for w in plane.get("workloads", namespace=ns)["items"]))
    wait_scheduler_refuses(plane, ns, (n + 1) * CARD)
