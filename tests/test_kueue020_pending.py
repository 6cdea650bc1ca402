"""Kueue 0.20 in why-pending: every KEP-10852 QuotaReserved token gives its code (none Unknown), the 0.20 eviction
cause (the unscheduled-pods timeout), "Preempted by rule" and the preemptor's effective priority and boost, and
quota read from status.effectiveQuotas (dynamic quota orchestration), unknown when it cannot be read.

Token constants: apis/kueue/v1beta2/workload_types.go@ff69552e79ad21652c36caa97038382e55625cf7 (Kueue's main of
2026-08, near 0.20); messages: pkg/controller/core/workload_controller.go@ff69552e79ad21652c36caa97038382e55625cf7;
DRAResourcesUnresolved: CHANGELOG/CHANGELOG-0.20.md@144402ada86f9605f19a07d3d0cba49e1fb1b5b6 (Feature, DRA, #16123).
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.kueue import versions
from kubectl_pd.pending.diagnose import Diagnosis, diagnose
from kubectl_pd.pending.gather import gather
from kubectl_pd.pending.target import Target
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
WTYPES = "workload_types.go@ff69552e79ad21652c36caa97038382e55625cf7"
WCTRL = "workload_controller.go@ff69552e79ad21652c36caa97038382e55625cf7"


def objs(name: str) -> list[dict[str, Any]]:
    return copy.deepcopy(load_objects(FIX / f"{name}.yaml"))


def of(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in items if o["kind"] == kind]


def run(items: list[dict[str, Any]]) -> Diagnosis:
    facts = gather(SnapshotSource.from_objects(items), Target("ModelDeployment", "qwen-pd", "team-a"))
    return diagnose(facts, now=datetime(2026, 11, 29, 9, 20, tzinfo=UTC))


def with_reason(token: str, message: str) -> list[dict[str, Any]]:
    items = [o for o in objs("quota-exceeds-capacity") if o["kind"] != "Event"]
    for wl in of(items, "Workload"):
        wl["status"]["conditions"] = [{"type": "QuotaReserved", "status": "False", "reason": token,
                                       "message": message, "lastTransitionTime": "2026-11-29T09:00:00Z"}]
    return items


# (token, Kueue's message, our code, source)
TOKENS = [
    ("Misconfigured", "invalid namespace selector: bad", "Misconfigured", f"{WTYPES} Misconfigured; {WCTRL}:1975"),
    ("Suspended", "LocalQueue team-a-q is stopped", "LocalQueueStopped", f"{WTYPES} Suspended; {WCTRL}:1020"),
    ("AdmissionGated", "Admission is gated by: example.com/gate", "AdmissionGated",
     f"{WTYPES} WorkloadAdmissionGated; {WCTRL}:1987"),
    ("OnHold", "On hold", "OnHold", f"{WTYPES} WorkloadOnHold (StatefulSet scale-to-zero)"),
    ("DRAResourcesUnresolved", "FirstAvailable device selection is not supported", "DRAResourcesUnresolved",
     "CHANGELOG-0.20.md #16123"),
    ("WaitingForQuota", "kueue's words", "QuotaExhausted", f"{WTYPES} WaitingForQuota"),
    ("ExceedsMaxQuota", "kueue's words", "QuotaExceedsCapacity", f"{WTYPES} ExceedsMaxQuota"),
    ("NoMatchingFlavor", "kueue's words", "NoMatchingFlavor", f"{WTYPES} NoMatchingFlavor"),
    ("TopologyPlacementFailed", "kueue's words", "NoMatchingFlavor", f"{WTYPES} TopologyPlacementFailed"),
    ("WaitingForPreemptedWorkloads", "kueue's words", "PreemptionInProgress", f"{WTYPES} WaitingForPreemptedWorkloads"),
    ("PendingEvaluation", "Workload is pending evaluation in the scheduling queue", "WaitingInQueue",
     f"{WTYPES} PendingEvaluation"),
    ("WaitingForPodsReady", "kueue's words", "WaitingForPodsReady", f"{WTYPES} WaitingForPodsReady"),
]


@pytest.mark.parametrize(("token", "message", "code", "source"), TOKENS, ids=[t[0] for t in TOKENS])
def test_every_token_gives_its_code(token: str, message: str, code: str, source: str) -> None:
    items = with_reason(token, message)
    if token == "Suspended":  # the LocalQueue read agrees with Kueue's words (issue 46: the state read decides)
        for lq in of(items, "LocalQueue"):
            lq["spec"]["stopPolicy"] = "Hold"
    d = run(items)
    assert d.code == code, source
    assert d.code != "Unknown"
    assert d.reasons[0].kueue_message == message


def test_kueues_stopped_words_do_not_outrank_the_local_queue_read() -> None:
    """Issue 46 (finding 6): Kueue's last words say a LocalQueue is stopped; the LocalQueue read is not: its state
    decides (here the quota), never LocalQueueStopped "the queue itself was not read"."""
    d = run(with_reason("Suspended", "LocalQueue team-a-q is stopped"))
    assert d.code == "QuotaExceedsCapacity"


def test_the_token_table_is_the_version_modules() -> None:
    """Every KEP-10852 token of workload_types.go is mapped, in kubectl_pd/kueue/versions.py alone."""
    kep = {"NoMatchingFlavor", "WaitingForQuota", "ExceedsMaxQuota", "TopologyPlacementFailed",
           "WaitingForPreemptedWorkloads", "Misconfigured", "Suspended", "PendingEvaluation", "WaitingForPodsReady",
           "AdmissionGated", "OnHold", "DRAResourcesUnresolved"}
    table = versions.reason_tokens(versions.from_flag("0.20"))
    assert kep <= set(table)
    assert {t for t, *_ in TOKENS} == kep


def test_admission_gated_names_its_gates() -> None:
    d = run(with_reason("AdmissionGated", "Admission is gated by: example.com/a,example.com/b"))
    r = d.reasons[0]
    assert (r.code, r.params["gatedBy"]) == ("AdmissionGated", ["example.com/a", "example.com/b"])
    assert r.hint is not None and r.hint.args["code"] == "AdmissionGated"


@pytest.mark.parametrize("token", sorted(versions.TOKENS_020))
def test_each_token_alone_gives_the_version_modules_code(token: str) -> None:
    """Words no parser knows (a later release's): the token alone decides, never Unknown."""
    d = run(with_reason(token, "words of a later Kueue"))
    want = versions.reason_tokens(versions.from_flag("0.20"))[token]
    assert d.code == want and d.code != "Unknown"


# -- evictions ---------------------------------------------------------------------------------------------------

def unscheduled(causes: list[tuple[str, int]]) -> list[dict[str, Any]]:
    items = objs("pods-unscheduled-timeout")
    wl = of(items, "Workload")[0]
    wl["status"]["schedulingStats"]["evictions"] = [
        {"reason": "PodsReadyTimeout", "underlyingCause": c, "count": n} for c, n in causes]
    return items


# the Evicted reason stays PodsReadyTimeout, the underlying cause says WaitForScheduling (CHANGELOG-0.20.md #15402,
# #15434; the feature's KEP: "The `Evicted` reason stays `PodsReadyTimeout` ... only the underlying cause ... gains
# the `WaitForScheduling` value")
@pytest.mark.parametrize(("causes", "code"), [
    ([("WaitForScheduling", 2)], "PodsUnscheduledTimeout"),
    ([("WaitForStart", 1)], "Evicted"),  # the 0.18/0.19 timeout: no scheduling cause
    ([("WaitForScheduling", 1), ("WaitForStart", 1)], "Evicted"),  # which came last is unknown: not claimed
])
def test_unscheduled_timeout_eviction(causes: list[tuple[str, int]], code: str) -> None:
    d = run(unscheduled(causes))
    assert d.code == code
    if code == "PodsUnscheduledTimeout":
        assert d.reasons[0].params == {"times": 2, "underlyingCause": "WaitForScheduling"}


def test_parse_preempted_by_rule() -> None:
    """Kueue's site docs of ConfigurablePreemptions (alpha, CHANGELOG-0.20.md #15913): the Evicted message."""
    from kubectl_pd.pending import evictions as evm

    p = evm.parse_preemption("Preempted by rule 'evict-smaller-jobs-for-large-topology' in PreemptionConfig "
                             "'topology-defragmentation' to accommodate workload default/training-job-xyz")
    assert p is not None
    assert (p.rule, p.config_rule, p.config, p.preemptor) == (
        evm.PREEMPTION_CONFIG, "evict-smaller-jobs-for-large-topology", "topology-defragmentation",
        "default/training-job-xyz")
    short = evm.parse_preemption("Preempted by rule 'r' in PreemptionConfig 'c'")  # the Preempted condition's
    assert short is not None and (short.config_rule, short.config, short.preemptor) == ("r", "c", None)


def test_parse_effective_priority_and_boost() -> None:
    """preemption.go:260@ff69552e79ad21652c36caa97038382e55625cf7: the Preempted event's tail."""
    from kubectl_pd.pending import evictions as evm

    p = evm.parse_preemption(
        "Preempted to accommodate a workload (UID: u1, JobUID: j1) due to prioritization in the ClusterQueue; "
        "preemptor path: /cq; preemptee path: /cq; preemptor effective priority: 1100 (base: 1000, boost: 100); "
        "preemptee effective priority: 5 (base: 0, boost: 5)")
    assert p is not None
    assert (p.rule, p.preemptor_priority, p.preemptor_base, p.preemptor_boost) == ("InClusterQueue", 1100, 1000, 100)
    assert (p.preemptee_priority, p.preemptee_base, p.preemptee_boost) == (5, 0, 5)


def test_preempted_by_rule_in_why_pending() -> None:
    items = objs("evicted")
    wl = of(items, "Workload")[0]
    msg = "Preempted by rule 'hero' in PreemptionConfig 'hero-config' to accommodate workload team-a/hero-job"
    wl["status"]["conditions"] = [
        {"type": "Evicted", "status": "True", "reason": "Preempted", "message": msg},
        {"type": "Preempted", "status": "True", "reason": "PreemptionConfigRule",
         "message": "Preempted by rule 'hero' in PreemptionConfig 'hero-config'"}]
    d = run([o for o in items if o["kind"] != "Event"])
    r = next(r for r in d.reasons if r.code == "Preempted")
    assert r.params["preemptionConfig"] == "hero-config" and r.params["preemptionConfigRule"] == "hero"
    assert r.params["rule"] == "PreemptionConfigRule"
    assert r.params["preemptorWorkload"] == "hero-job"  # from the Evicted message, the same namespace


# -- dynamic quota orchestration: status.effectiveQuotas (CHANGELOG-0.20.md, Feature, DynamicQuotaOrchestration,
# #15283: "Kueue writes the resulting quotas to status.effectiveQuotas. Conflicting orchestrators report
# Distributed=False and do not distribute quotas.")

FLAVOR = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
CRED = "credits.gpustack.ai/nvidia"


def dqo(status: dict[str, Any]) -> list[dict[str, Any]]:
    """quota-exhausted (decode 2 cards short of 16) with the orchestrator's status, Kueue's message removed so
    the arithmetic answers alone."""
    items = [o for o in objs("quota-exhausted") if o["kind"] != "Event"]
    for wl in of(items, "Workload"):
        wl["status"]["conditions"] = []
    cq = of(items, "ClusterQueue")[0]
    cq["status"].update(status)
    return items


def effective(nominal: str, flavor: str = FLAVOR) -> list[dict[str, Any]]:
    return [{"name": flavor, "resources": [{"name": CRED, "nominalQuota": nominal}]}]


DIST_TRUE = {"type": "Distributed", "status": "True", "reason": "Distributed", "message": "",
             "lastTransitionTime": "2026-11-29T09:00:00Z"}
DIST_FALSE = {**DIST_TRUE, "status": "False", "reason": "ConflictingOrchestrators"}


@pytest.mark.parametrize(("case", "status", "code"), [
    ("not managed: spec's nominalQuota", {}, "QuotaExhausted"),
    ("effective quota larger than spec's: fits", {"effectiveQuotas": effective("51200k")}, "WaitingInQueue"),
    ("effective quota smaller: more short", {"effectiveQuotas": effective("12800k")}, "QuotaExceedsCapacity"),
    ("managed, flavor missing from effectiveQuotas", {"effectiveQuotas": effective("51200k", "other")},
     "QuotaUnknown"),
    ("managed, unreadable quantity", {"effectiveQuotas": effective("lots")}, "QuotaUnknown"),
    ("managed, effectiveQuotas not a list", {"effectiveQuotas": "pending"}, "QuotaUnknown"),
    ("Distributed=False: no quota distributed", {"effectiveQuotas": effective("51200k"),
                                                   "conditions": [DIST_FALSE]}, "QuotaUnknown"),
    ("Distributed=True, no effectiveQuotas yet", {"conditions": [DIST_TRUE]}, "QuotaUnknown"),
])
def test_effective_quotas(case: str, status: dict[str, Any], code: str) -> None:
    d = run(dqo(status))
    assert d.code == code, case
    if code == "QuotaUnknown":  # said as the orchestrator's quota unknown, never spec's figure
        r = d.reasons[0]
        assert r.message.args["unknown"] == "status.effectiveQuotas", case
        assert r.hint is not None and r.hint.args["unknown"] == "status.effectiveQuotas"


def test_effective_quota_unknown_names_the_field() -> None:
    from kubectl_pd.kueue import model

    cq = model.cluster_queue({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                              "metadata": {"name": "q"},
                              "spec": {"resourceGroups": [{"coveredResources": [CRED], "flavors": [
                                  {"name": FLAVOR, "resources": [{"name": CRED, "nominalQuota": "25600k"}]}]}]},
                              "status": {"conditions": [DIST_TRUE]}})
    q = cq.quota(FLAVOR, CRED)
    assert q is not None and q.unknown == (model.EFFECTIVE,) and q.nominal == 0


# -- TAS feasibility per node (CHANGELOG-0.20.md, Feature, TAS, #14191, TASNodeFeasibilityForAllLevels: "Workloads
# that fit a domain's total capacity but no single node are no longer admitted"); the exclusion words are
# tasExclusionStats.formatReasons,
# pkg/cache/scheduler/tas_flavor_snapshot.go:500-521@ff69552e79ad21652c36caa97038382e55625cf7

@pytest.mark.parametrize(("excluded", "total", "parsed", "none_fits"), [
    ('resource "nvidia.com/gpu": 4', 4, {"resources": {"nvidia.com/gpu": 4}}, True),
    ('nodeSelector: 2, resource "nvidia.com/gpu": 2', 4, {"nodeSelector": 2, "resources": {"nvidia.com/gpu": 2}},
     True),
    ('resource "cpu": 2', 6, {"resources": {"cpu": 2}}, False),  # four nodes could take a pod
    ('nodeSelector: 2, taint "gpu=true:NoSchedule": 4', 6,
     {"nodeSelector": 2, "taints": {"gpu=true:NoSchedule": 4}}, False),  # excluded, but not for capacity
    ('affinity: 1, schedulerLibraryNoFit: 1, topologyDomain: 1', 3,
     {"affinity": 1, "schedulerLibraryNoFit": 1, "topologyDomain": 1}, False),
    ("something new: 3", 3, None, False),  # words Kueue may add later: nothing claimed
])
def test_exclusions(excluded: str, total: int, parsed: dict | None, none_fits: bool) -> None:
    from kubectl_pd.kueue import messages as km

    got = km.parse_exclusions(excluded)
    assert got == parsed
    assert (got is not None and km.no_single_node_fits(total, got)) == none_fits


def test_no_single_node_fits_in_why_pending() -> None:
    items = objs("topology-unsatisfied")
    msg = ('couldn\'t assign flavors to pod set decode: topology "gpu-racks" doesn\'t allow to fit any of 2 pod(s). '
           'Total nodes: 4; excluded: resource "credits.gpustack.ai/nvidia": 4')
    for wl in of(items, "Workload"):
        for c in wl["status"].get("conditions", []):
            if c["type"] == "QuotaReserved":
                c["message"] = msg
    d = run([o for o in items if o["kind"] != "Event"])
    r = next(r for r in d.reasons if r.code == "TopologyUnsatisfied")
    assert r.params["noSingleNodeFits"] is True
    assert r.params["exclusions"] == {"resources": {"credits.gpustack.ai/nvidia": 4}}
    assert r.params["totalNodes"] == 4
