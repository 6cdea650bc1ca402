"""Issue 40: why-pending reads GPUStack's operator conditions (pending/operator.py), table-driven and pure.

Sources (gpustack/gpustack-operator): pkg/worker/controllers/worker/model_deployment_status.go@f681df2d (id
68894355352: the condition types, RouterReady's and RoleKindsReady's reasons), model_deployment_artifact.go (id
68830510408: WeightsReady's reasons; `Blocked` "says new Pods must not be created") and its test (id 69136996807: with
no Pod, the phase message is WeightsReady's message), api/worker/v1alpha1/model_deployment.go (id 70071649368:
`spec.model.artifactRef`, "the deployment waits in status, creating no Pod").
"""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.gpustack.model import model_deployment
from kubectl_pd.pending import operator
from kubectl_pd.pending.model import Reason
from kubectl_pd.pending.say import say
from kubectl_pd.registry import reason_priority


def md(*conds: tuple[str, str, str], version: str = "v1alpha1", artifact: str | None = "qwen-weights",
       status_artifact: str | None = None, phase: str | None = "Starting") -> Any:
    spec: dict[str, Any] = {"model": {"name": "m"}, "roles": [{"name": "decode", "kind": "Decode", "replicas": 2}]}
    if artifact:
        spec["model"]["artifactRef"] = {"name": artifact}
    status: dict[str, Any] = {"conditions": [{"type": t, "status": s, "reason": r, "message": f"{t} says {r}"}
                                             for t, s, r in conds]}
    if phase:
        status["phase"] = phase
    if status_artifact:
        status["model"] = {"artifact": status_artifact}
    return model_deployment({"apiVersion": f"worker.gpustack.ai/{version}", "kind": "ModelDeployment",
                             "metadata": {"name": "qwen", "namespace": "team-a"}, "spec": spec, "status": status})


NO_REPLICAS = ("QuotaReserved", "Unknown", "NoReplicas")
NO_GROUP = Reason("PodGroupIncomplete", say("role.no-group", role="decode", want=2), role="decode")
SHORT = Reason("PodGroupIncomplete", say("role.replica-groups", role="decode", have=1, want=2), role="decode")


@pytest.mark.parametrize(("conds", "ours", "codes"), [
    # the artifact is unresolved: no Pod, NoReplicas; the weights are the answer, our "no group" is dropped
    ([NO_REPLICAS, ("WeightsReady", "False", "ArtifactNotResolved")], [NO_GROUP], ["WeightsNotReady"]),
    ([NO_REPLICAS, ("WeightsReady", "False", "ArtifactNotFound")], [], ["WeightsNotReady"]),
    # NoReplicas with weights that are not in the way: never PodGroupIncomplete
    ([NO_REPLICAS, ("WeightsReady", "True", "NotApplicable")], [NO_GROUP], ["ReplicasNotCreated"]),
    ([NO_REPLICAS], [], ["ReplicasNotCreated"]),
    # Pods exist and wait for their weights to download: the weights reason beside ours (a short role stays)
    ([("QuotaReserved", "True", "Reserved"), ("WeightsReady", "False", "Downloading")], [SHORT],
     ["PodGroupIncomplete", "WeightsNotReady"]),
    # the other conditions never add a reason
    ([("QuotaReserved", "True", "Reserved"), ("RouterReady", "False", "NoReadyReplicas"),
      ("CacheAttached", "False", "CacheOperationsFailing")], [], []),
    # md_v1's QuotaReserved reasons still apply
    ([("QuotaReserved", "False", "Parked")], [], ["Parked"]),
])
def test_judge(conds: list[tuple[str, str, str]], ours: list[Reason], codes: list[str]) -> None:
    assert [r.code for r in operator.judge(md(*conds), ours)] == codes


def test_the_weights_reason_names_the_artifact_and_the_message_and_ranks_before_quota() -> None:
    (r,) = operator.judge(md(NO_REPLICAS, ("WeightsReady", "False", "ClaimNotBound"), artifact=None,
                             status_artifact="from-status"), [])
    assert (r.params["artifact"], r.params["operatorReason"], r.params["message"], r.params["podsHeld"]) == (
        "from-status", "ClaimNotBound", "WeightsReady says ClaimNotBound", True)
    assert r.message.id == "operator.weights" and r.hint is not None and r.hint.id == "next.weights"
    for quota in ("QuotaExhausted", "NeedsPreemption", "QuotaExceedsCapacity", "PodGroupIncomplete",
                  "ReplicasNotCreated", "LocalQueueMissing"):
        assert reason_priority("WeightsNotReady") < reason_priority(quota), quota
    (d,) = operator.judge(md(("WeightsReady", "False", "Downloading")), [])
    assert d.params["podsHeld"] is False


@pytest.mark.parametrize(("ctype", "status", "code"), [
    ("RouterReady", "False", "RouterNotReady"), ("RoleKindsReady", "Unknown", "RoleKindsNotReady"),
    ("DomainRegistered", "False", "DomainNotRegistered"), ("CacheAttached", "Unknown", "CacheNotAttached"),
    ("ReplicasUpToDate", "False", "ReplicasNotUpToDate"), ("KVEventsPublishing", "False", "KVEventsNotPublishing"),
    ("WeightsReady", "Unknown", "WeightsNotReady"),
])
def test_each_condition_not_true_is_a_coded_note(ctype: str, status: str, code: str) -> None:
    notes = operator.notes(md((ctype, status, "R")))
    coded = [n for n in notes if n.id == "note.operator-condition"]
    assert [(n.args["code"], n.args["type"], n.args["reason"]) for n in coded] == [(code, ctype, "R")]
    assert operator.notes(md((ctype, "True", "R"))) == [n for n in notes if n.id == "note.deployment"]


def test_a_weights_reason_is_not_also_a_note() -> None:
    notes = operator.notes(md(("WeightsReady", "False", "ArtifactNotResolved")))
    assert [n.id for n in notes] == ["note.deployment"]


@pytest.mark.parametrize("version", ["v1alpha1", "v1"])
def test_phase_and_conditions_for_both_versions(version: str) -> None:
    """One status struct for both versions: the phase note and deployment.conditions read either."""
    m = md(NO_REPLICAS, ("RouterReady", "False", "RenderFailed"), version=version)
    assert [n.id for n in operator.notes(m)] == ["note.deployment", "note.operator-condition"]
    assert [(c["type"], c["code"]) for c in operator.condition_rows(m)] == [
        ("QuotaReserved", None), ("RouterReady", "RouterNotReady")]
    from kubectl_pd.pending import md_v1

    assert md_v1.with_status(m) is m


def test_the_model_parses_the_artifact() -> None:
    m = md(artifact="a", status_artifact="b")
    assert (m.artifact, m.status_artifact) == ("a", "b")
    assert model_deployment({"spec": {"model": {"artifactRef": "not an object"}}}).artifact is None
