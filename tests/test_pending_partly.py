"""The pure parts of a deployment of many Workloads (issue 47 item 2, issue 46 item 7): targets parsed, a role
from its labels, a group's Pods' selector, one row per Workload, and the PartlyAdmitted record. Table-driven."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd import kube
from kubectl_pd.kueue.model import workload
from kubectl_pd.pending.diagnose import partly_admitted, workload_rows
from kubectl_pd.pending.gather import member_selector
from kubectl_pd.pending.model import Held
from kubectl_pd.pending.roles import Unit, labelled_role
from kubectl_pd.pending.target import Target, parse_target
from tests import frameworks as fw


@pytest.mark.parametrize(("text", "want"), [
    ("lws/a", ("LeaderWorkerSet", "a")), ("leaderworkerset/a", ("LeaderWorkerSet", "a")),
    ("leaderworkersets.leaderworkerset.x-k8s.io/a", ("LeaderWorkerSet", "a")),
    ("ds/a", ("DisaggregatedSet", "a")), ("disaggregatedset/a", ("DisaggregatedSet", "a")),
    ("deploy/a", ("Deployment", "a")), ("deployment/a", ("Deployment", "a")),
    ("deployments.apps/a", ("Deployment", "a")),
    ("sts/a", ("StatefulSet", "a")), ("statefulset/a", ("StatefulSet", "a")),
    ("llmisvc/a", ("LLMInferenceService", "a")), ("llminferenceservice/a", ("LLMInferenceService", "a")),
    ("a", ("ModelDeployment", "a")), ("md/a", ("ModelDeployment", "a")), ("pg/a", ("PodGroup", "a")),
])
def test_targets(text: str, want: tuple[str, str]) -> None:
    assert parse_target(text) == want


@pytest.mark.parametrize("text", ["daemonset/a", "lws/", "cronjob/a"])
def test_targets_refused(text: str) -> None:
    with pytest.raises(ValueError, match="lws/NAME, ds/NAME, deploy/NAME"):
        parse_target(text)


@pytest.mark.parametrize(("labels", "want"), [
    ({"disaggregatedset.x-k8s.io/role": "prefill", "llm-d.ai/role": "decode"}, "prefill"),
    ({"llm-d.ai/role": "decode", "app.kubernetes.io/component": "llminferenceservice-workload"}, "decode"),
    ({"app.kubernetes.io/component": "decode"}, "decode"),
    ({"app": "x"}, None), ({"llm-d.ai/role": ""}, None),
])
def test_a_role_from_the_frameworks_labels(labels: dict[str, str], want: str | None) -> None:
    assert labelled_role(labels) == want


def _lws_wl(**ann: str) -> dict[str, Any]:
    owner = fw.lws("vllm", replicas=1, size=2, labels={"app": "vllm", "tier": "gpu"})
    wl = fw.lws_group(owner, 3, "pending")[0]
    wl["metadata"]["annotations"] = ann or wl["metadata"]["annotations"]
    return wl


@pytest.mark.parametrize(("wl", "want"), [
    (_lws_wl(), "leaderworkerset.sigs.k8s.io/name=vllm,leaderworkerset.sigs.k8s.io/group-index=3"),
    (_lws_wl(**{"kueue.x-k8s.io/job-owner-gvk": "leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet",
                "kueue.x-k8s.io/job-owner-name": "vllm"}), "leaderworkerset.sigs.k8s.io/name=vllm"),
    # not an LWS: the labels every pod set's template carries (Kueue's own keys aside)
    (_lws_wl(other="x"), "app=vllm,leaderworkerset.sigs.k8s.io/name=vllm,tier=gpu"),
    ({"metadata": {}, "spec": {"podSets": [{"template": {"metadata": {"labels": {"a": "1", "b": "2"}}}},
                                           {"template": {"metadata": {"labels": {"a": "1", "b": "3"}}}}]}}, "a=1"),
    ({"metadata": {}, "spec": {"podSets": [{"template": {"metadata": {"labels": {"a": "has space"}}}}]}},
     "kueue.x-k8s.io/managed=true"),
    ({"metadata": {}, "spec": {}}, "kueue.x-k8s.io/managed=true"),
])
def test_the_selector_of_a_group_named_by_annotation(wl: dict[str, Any], want: str) -> None:
    assert member_selector(wl) == want


def _unit(name: str, roles: list[str], state: str, *, group: str | None = None, usage: int = 2,
          finished: bool = False) -> Unit:
    conds: list[dict[str, Any]] = [{"type": "QuotaReserved", "status": "True" if state == "admitted" else "False"}]
    if state == "admitted":
        conds.append({"type": "Admitted", "status": "True"})
    if finished:
        conds.append({"type": "Finished", "status": "True"})
    status: dict[str, Any] = {"conditions": conds}
    if state == "admitted":
        status["admission"] = {"clusterQueue": "q", "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "h100"},
             "resourceUsage": {"nvidia.com/gpu": str(usage)}}]}
    wl = workload({"metadata": {"name": name}, "spec": {"podSets": [{"name": "main", "count": 1}]},
                   "status": status})
    pods = [kube.pod({"metadata": {"name": f"{name}-0", "labels": {"leaderworkerset.sigs.k8s.io/group-index": group}}})
            ] if group is not None else []
    return Unit(name, pods, wl, True, roles=roles)


PARTLY = [  # units -> (admitted roles, waiting roles, lacking roles, waiting Workloads, held GPUs in h100) or None
    ([_unit("p", ["prefill"], "admitted"), _unit("d", ["decode"], "pending")],
     (("prefill",), ("decode",), ("decode",), ("d",), 2)),
    ([_unit("d0", ["decode"], "admitted", usage=4), _unit("d1", ["decode"], "pending"),
      _unit("p", ["prefill"], "admitted", usage=2)],  # the regression's shape: decode waits in one of its groups
     (("decode", "prefill"), ("decode",), (), ("d1",), 6)),
    ([_unit("g0", ["leader", "worker"], "admitted"), _unit("g1", ["leader", "worker"], "pending")],
     (("leader", "worker"), ("leader", "worker"), (), ("g1",), 2)),
    ([_unit("a", ["x"], "admitted"), _unit("b", ["x"], "admitted")], None),  # all admitted
    ([_unit("a", ["x"], "pending"), _unit("b", ["x"], "pending")], None),  # none admitted
    ([_unit("a", ["x"], "admitted"), _unit("b", ["x"], "pending", finished=True)], None),  # finished: not waiting
]


@pytest.mark.parametrize(("units", "want"), PARTLY)
def test_partly_admitted(units: list[Unit], want: Any) -> None:
    p = partly_admitted(units)
    if want is None:
        assert p is None
        return
    assert p is not None
    admitted, waiting, lacking, waiting_wls, gpus = want
    assert (p.admitted_roles, p.waiting_roles, p.lacking, p.waiting_workloads) == (admitted, waiting, lacking,
                                                                                    waiting_wls)
    assert p.held == (Held("h100", "nvidia.com/gpu", Fraction(gpus)),)


@pytest.mark.parametrize(("kind", "units", "want"), [
    ("LeaderWorkerSet", [_unit("g0", ["leader", "worker"], "admitted", group="0")],
     [("g0", "leader,worker", "0", True)]),
    ("PodGroup", [_unit("g0", ["prefill"], "admitted")], []),  # one Workload of today's targets: no rows
    ("ModelDeployment", [_unit("a", ["prefill"], "admitted"), _unit("b", ["decode"], "pending")],
     [("a", "prefill", None, True), ("b", "decode", None, False)]),
])
def test_workload_rows(kind: str, units: list[Unit], want: list[tuple[Any, ...]]) -> None:
    rows = workload_rows(Target(kind, "t", "ns"), units)
    assert [(r.name, r.role, r.group, r.admitted) for r in rows] == want


@pytest.mark.parametrize("kind", ["LeaderWorkerSet", "DisaggregatedSet", "Deployment", "StatefulSet",
                                  "LLMInferenceService"])
def test_o_name_names_a_target_why_pending_accepts_back(kind: str) -> None:
    from kubectl_pd.pending.render import object_name

    assert parse_target(object_name(kind, "a")) == (kind, "a")
