"""create's pod-set order check, live on the loopback server: which order Kueue charges a pod group's pod sets in is
read from what the cluster serves (kueue/versions.pod_set_orders). Each verdict reached once: sorted by role name
(Kueue 0.19 and older, v1beta1 still served), every order agreeing (0.20+), and the orders disagreeing (0.20+: the
`fit-unknown` finding with `unknown: pod-set-order`, what each order gives, and no preemption target named as
Kueue's). Asserted on check ids, codes and params.

The pool: flavor order-a (6 cards, the only one carrying the prefill role's acceleratorKey; 1 card held by a
lower-priority Workload) then order-b (1 card, the key set to "false"); prefill asks 5 Pods x 1 card, decode 1.
Prefill first: prefill takes a's 5 free cards, decode b's one: it fits. Decode first: decode takes a card of a, and
prefill, which no other flavor takes, needs the held card: Kueue preempts (NeedsPreemption)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.create import flags, preflight
from kubectl_pd.create.flags import CreateRequest, parse_role
from kubectl_pd.gpustack.roles import PD_ATOMIC
from tests.apiserver import DEFAULT_GROUPS
from tests.builders import CARD, CREDITS

CQ, LQ, NS = "gpustack--order-test", "order-lq", "team-a"
KEY = "acceleratable.feature.gpustack.ai/nvidia-h100"
ACTIVE = {"conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": ""}]}
ROLES = ("name=prefill,kind=prefill,replicas=5,accelerator-key=nvidia-h100,image=e:1",
         "name=decode,kind=decode,replicas=1,image=e:1")
V019 = ["v1beta2", "v1beta1"]  # Kueue 0.19 or older: v1beta1 still served
V020 = ["v1beta2"]  # 0.20 or newer


def _usage(cards: int) -> dict[str, Any]:
    return {"flavorsReservation": [{"name": "order-a", "resources": [{"name": CREDITS, "total": str(cards * CARD),
                                                                       "borrowed": "0"}]}],
            "flavorsUsage": [{"name": "order-a", "resources": [{"name": CREDITS, "total": str(cards * CARD),
                                                                 "borrowed": "0"}]}]}


def _held(cards: int) -> dict[str, Any]:
    """An admitted lower-priority Workload holding `cards` of order-a."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "low", "namespace": "other", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"priority": -5, "queueName": "x", "podSets": [{"name": "main", "count": 1}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                       "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
                                      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": ""}],
                       "admission": {"clusterQueue": CQ, "podSetAssignments": [
                           {"name": "main", "flavors": {CREDITS: "order-a"},
                            "resourceUsage": {CREDITS: str(cards * CARD)}, "count": 1}]}}}


def _pool(a_cards: int, b_cards: int = 1, held: int = 1) -> list[dict[str, Any]]:
    quota = [{"name": f, "resources": [{"name": CREDITS, "nominalQuota": str(n * CARD)}]}
             for f, n in (("order-a", a_cards), ("order-b", b_cards))]
    spec = {"resourceGroups": [{"coveredResources": [CREDITS], "flavors": quota}],
            "preemption": {"withinClusterQueue": "LowerPriority"}}
    return [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": CQ}, "spec": spec,
             "status": {**ACTIVE, **(_usage(held) if held else {})}},
            *({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": f},
               "spec": {"nodeLabels": {KEY: v}}} for f, v in (("order-a", "true"), ("order-b", "false"))),
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": LQ, "namespace": NS},
             "spec": {"clusterQueue": CQ}, "status": ACTIVE},
            *([_held(held)] if held else [])]


def _report(env: dict[str, str]) -> preflight.Preflight:
    req = CreateRequest(name="qwen", namespace=NS, model="m", engine_version="1", target="pods", local_queue=LQ,
                        roles=flags.all_role_specs(tuple(parse_role(r) for r in ROLES), None, None))
    checked = flags.check_request(req)
    assert checked.problems == []
    return preflight.run(LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"])), req, checked.roles, PD_ATOMIC,
                         NS)


def _quota(report: preflight.Preflight) -> list[tuple[str, Any, Any]]:
    return [(f.check, f.params.get("code"), f.params.get("unknown")) for f in report.findings
            if f.check in ("never-fits", "waits-for-quota", "fit-unknown", "no-matching-flavor")]


# (case, served, a's cards, want: [(check, code, unknown)], the orders' verdicts of a fit-unknown)
CASES = [
    ("0.19: sorted by role name, decode first: it needs preemption", V019, 6,
     [("waits-for-quota", "NeedsPreemption", None)], None),
    ("0.20: every order needs preemption (a of 5 cards): nothing unknown", V020, 5,
     [("waits-for-quota", "NeedsPreemption", None)], None),
    ("0.20: prefill first fits, decode first preempts: unknown", V020, 6,
     [("fit-unknown", None, preflight.ORDER_UNKNOWN)],
     {"prefill,decode": ["fits"], "decode,prefill": ["NeedsPreemption"]}),
]


@pytest.mark.parametrize("case, served, a_cards, want, orders", CASES, ids=[c[0] for c in CASES])
def test_each_pod_set_order_verdict(apiserver: Callable, case: str, served: list[str], a_cards: int,
                                    want: list[tuple[str, Any, Any]], orders: dict[str, list[str]] | None) -> None:
    server, env = apiserver(_pool(a_cards), namespace=NS, groups={**DEFAULT_GROUPS, "kueue.x-k8s.io": served})
    report = _report(env)
    assert _quota(report) == want
    if orders is None:
        return
    (f,) = [f for f in report.findings if f.check == "fit-unknown"]
    assert (f.severity, f.params["clusterQueue"], f.params["orders"]) == (preflight.WARNING, CQ, orders)
    # which Workloads admitting it would preempt is not said as Kueue's: the order decides whether any
    needed = [a for a in report.preemption if a.needed]
    assert needed and all((a.targets, a.unknown) == (None, preflight.ORDER_UNKNOWN) for a in needed)


def test_the_unknown_order_through_the_cli(cli: Callable, apiserver: Callable) -> None:
    """create --preflight -o json on 0.20+: the fit-unknown finding and a preemption whose targets are unknown; a
    warning, so the request would be written (exit 0)."""
    _, env = apiserver("create/crd-pd-atomic.yaml", _pool(6), namespace=NS,
                       groups={**DEFAULT_GROUPS, "kueue.x-k8s.io": V020})
    r = cli(["create", "qwen", "--model", "m", "--engine-version", "1", "-n", NS, "--target", "pods",
             "--local-queue", LQ, *(x for role in ROLES for x in ("--role", role)), "--preflight", "-o", "json"],
            env=env)
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["wouldCreate"] is True
    unknown = [f for f in doc["findings"] if f["check"] == "fit-unknown"]
    assert [(f["severity"], f["params"]["unknown"]) for f in unknown] == [("warning", preflight.ORDER_UNKNOWN)]
    assert doc["preemption"] == {"targets": None, "unknown": preflight.ORDER_UNKNOWN}


def test_files_and_single_pod_sets_judge_one_order() -> None:
    """No Kueue version to read (files), one role, or one Workload per replica group: the roles' own order only."""
    from kubectl_pd.cluster.snapshot import SnapshotSource

    roles = flags.check_request(CreateRequest(name="q", namespace=NS, model="m", roles=flags.all_role_specs(
        tuple(parse_role(r) for r in ROLES), None, None))).roles
    files = SnapshotSource.__new__(SnapshotSource)
    assert preflight.orders_to_judge(files, roles, per_replica=False) == [None]
    assert preflight.orders_to_judge(files, roles[:1], per_replica=False) == [None]
    assert preflight.orders_to_judge(files, roles, per_replica=True) == [None]


def test_the_unknown_order_warns_and_writes(cli: Callable, apiserver: Callable) -> None:
    """--dry-run=server: the fit-unknown warning and the preemption line (that it may, never whom), then the one
    dry-run POST per Pod."""
    from kubectl_pd.create.preempt_words import create_line

    server, env = apiserver("create/crd-pd-atomic.yaml", _pool(6), namespace=NS,
                            groups={**DEFAULT_GROUPS, "kueue.x-k8s.io": V020})
    r = cli(["create", "qwen", "--model", "m", "--engine-version", "1", "-n", NS, "--target", "pods",
             "--local-queue", LQ, *(x for role in ROLES for x in ("--role", role)), "--dry-run=server"], env=env)
    assert r.exit_code == 0, r.stderr
    report = _report(env)
    (unknown,) = [f for f in report.findings if f.check == "fit-unknown"]
    assert r.stderr.splitlines() == [f"warning: {unknown.message}", f"warning: {create_line(report.preemption)}"]
    assert {x.query.get("dryRun") for x in server.requests if x.method == "POST"} == {"All"}
