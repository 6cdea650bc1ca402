"""The cases 4b draws (a GPUStack-shaped queue, what holds it, the roles asked for) and create's preflight
verdict read from its `-o json`: shared by the pod-group and the ModelDeployment forms of the test."""

from __future__ import annotations

import json
import random
from typing import Any

from tests.realcluster import objs
from tests.realcluster.plane import Plane, condition, is_true, wait_for

CREDITS = "credits.gpustack.ai/nvidia"
CARD = 1_600_000


def case(seed: int) -> dict[str, Any]:
    rnd = random.Random(seed)
    return {"nominal": rnd.choice((2, 4, 4, 6)), "held": [rnd.choice((1, 2)) for _ in range(rnd.randint(0, 2))],
            "held_priority": rnd.choice(("pd-low", "pd-high")), "prefill": rnd.choice((1, 2)),
            "decode": rnd.choice((1, 2, 3)), "within": rnd.choice(("Never", "LowerPriority"))}


def verdict(doc: dict[str, Any]) -> tuple[str, list[str]]:
    checks = {f["check"] for f in doc["findings"] if f["severity"] == "error"}
    pre = doc.get("preemption") or {}
    victims = sorted(t["name"] for t in pre.get("targets") or [])
    if "never-fits" in checks:
        return "never", []
    if pre and pre.get("targets") is None:
        return "unknown", []
    if victims:
        return "preempts", victims
    waits = {f["check"] for f in doc["findings"] if f["severity"] == "warning"} & {"waits-for-quota"}
    if doc["wouldCreate"] and not checks and not waits:
        return "fits", []
    return "blocked", []  # it would wait for quota (nothing Kueue could preempt)


def prepare(plane: Plane, c: dict[str, Any], ns: str, cq: str, checks: list[str] | None = None) -> list[str]:
    """The case's ClusterQueue CQ (covering the credits, with CHECKS), LocalQueue `main` in NS and the
    Workloads that hold it, once Kueue and the queue's status have settled on them: their names."""
    rf = plane.unique("gs-rf")
    plane.apply(objs.priority_class("pd-low", 10), objs.priority_class("pd-high", 100), objs.flavor(rf),
                objs.cluster_queue(cq, [(rf, [objs.quota(CREDITS, str(c["nominal"] * CARD))])], covered=[CREDITS],
                                   preemption={"withinClusterQueue": c["within"]}, checks=checks),
                objs.local_queue(ns, "main", cq))
    for i, cards in enumerate(c["held"]):
        plane.apply(objs.workload(ns, f"held{i}", "main", [("main", 1, {CREDITS: str(cards * CARD)})],
                                  priority=(c["held_priority"], 10 if c["held_priority"] == "pd-low" else 100)))
        wait_for(f"held{i} settled", lambda i=i: condition(plane.get("workload", f"held{i}", ns), "QuotaReserved"))
    admitted = [w["metadata"]["name"] for w in plane.get("workloads", namespace=ns)["items"]
                if is_true(w, "QuotaReserved")]
    wait_for("the ClusterQueue's status current", lambda: (plane.get("clusterqueue", cq).get("status") or {}).get(
        "reservingWorkloads", 0) == len(admitted))
    return admitted


def preflight_then_create(plane: Plane, c: dict[str, Any], ns: str, it: str, *extra: str) -> tuple[str, list[str]]:
    """create's preflight verdict on the case's deployment `qwen` (InstanceType IT, EXTRA flags), then the
    create itself, with --force where the preflight said it never fits."""
    flags = ["qwen", "--model", "m", "--engine-version", "1", "--instance-type", it, "-n", ns, *extra,
             "--role", f"name=prefill,kind=prefill,replicas={c['prefill']},image=e:1",
             "--role", f"name=decode,kind=decode,replicas={c['decode']},image=e:1"]
    pre = plane.pd("create", *flags, "--preflight", "-o", "json")
    assert pre.returncode in (0, 1), pre.stderr
    said, victims = verdict(json.loads(pre.stdout))
    made = plane.pd("create", *flags, *(["--force"] if said == "never" else []))
    assert made.returncode == 0, made.stderr
    return said, victims


def wait_scheduler_refuses(plane: Plane, ns: str, credits: int) -> None:
    """Until kube-scheduler has refused every Pod of NS that requests CREDITS: Unschedulable, on no Node (what
    Kueue admits and no Node can hold)."""
    from kubectl_pd.kueue.quantity import parse

    def refused() -> bool:
        pods = [p for p in plane.get("pods", namespace=ns)["items"]
                if parse(p["spec"]["containers"][0]["resources"]["requests"].get(CREDITS, "0")) == credits]
        return bool(pods) and all((condition(p, "PodScheduled") or {}).get("reason") == "Unschedulable"
                                  and not p["spec"].get("nodeName") for p in pods)

    wait_for("kube-scheduler refuses the big Pod", refused, timeout=60)
