"""why-pending on GPUStack's published ModelDeployment (worker.gpustack.ai/v1): the per-replica groups and the
operator's all-or-nothing admission check read as one deployment, and the operator's own verdict (`phase`,
`roleSummary`, the `QuotaReserved` reasons) diagnosed with its remedies.

Sources: gpustack/gpustack-operator docs/modules/model-deployment/status.md@0421f1cc6b1b9c75df6e4c23fd8fd12136607e98
(the QuotaReserved table: Reserved, Pending, PodGroupIncomplete, PreemptedInPart, Parked,
NoQueueInReservedNamespace, AdmissionInFlight, NoReplicas, AllReplicasTerminating; "A deployment preempted in part
starves whatever is queued behind it" and its three ways out: add capacity, delete and recreate, move the roles
apart; `roleSummary` such as `1R3P4D`; an absent `quotaReserved` is "could not see", not zero), and
docs/modules/model-deployment/deployment.md@0421f1cc6b1b9c75df6e4c23fd8fd12136607e98 ("Every replica of every
role is its own pod group, so the set is held together by an admission check this operator runs").
Fixture: tests/fixtures/gpustack-v1/decode-held.yaml (generate.py beside it).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.gpustack.model import model_deployment
from kubectl_pd.pending import md_v1, operator
from kubectl_pd.pending.diagnose import Diagnosis, diagnose
from kubectl_pd.pending.gather import gather
from kubectl_pd.pending.model import Reason
from kubectl_pd.pending.say import say
from kubectl_pd.pending.target import Target
from kubectl_pd.pending.words import SENTENCES
from tests.apiserver import DEFAULT_GROUPS, load_objects
from tests.conftest import FIXTURES, ROOT
from tests.test_pending_fixtures import normalised

FIX = "gpustack-v1/decode-held.yaml"
GOLDEN = ROOT / "tests" / "golden" / "gpustack-v1"
V1_ONLY = {**DEFAULT_GROUPS, "worker.gpustack.ai": ["v1"]}
H20 = "gpustack--nvidia-h20-linux-amd64"
NOW = datetime(2026, 11, 29, 9, 20, tzinfo=UTC)


def objs() -> list[dict[str, Any]]:
    return load_objects(FIXTURES / FIX)


def md_of(items: list[dict[str, Any]]) -> dict[str, Any]:
    return next(o for o in items if o["kind"] == "ModelDeployment")


def run(items: list[dict[str, Any]]) -> Diagnosis:
    return diagnose(gather(SnapshotSource.from_objects(items), Target("ModelDeployment", "qwen-pd", "team-a")), now=NOW)


def golden(text: str, name: str) -> None:
    path = GOLDEN / name
    if os.environ.get("PD_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(normalised(text))
    assert path.is_file(), f"no golden {path}: run with PD_UPDATE_GOLDEN=1 and review it"
    assert normalised(text) == path.read_text(), f"{name} differs from {path} (PD_UPDATE_GOLDEN=1)"


# ----------------------------------------------------------------------------- the Done-when state, live
def test_decode_waits_behind_the_joint_check_through_the_loopback_server(apiserver: Callable) -> None:
    server, env = apiserver(FIX, namespace="team-a", groups=V1_ONLY)
    source = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"]))
    d = diagnose(gather(source, Target("ModelDeployment", "qwen-pd", "team-a")), now=NOW)
    assert d.pending
    assert [(r.code, r.role) for r in d.reasons] == [("QuotaExhausted", "prefill"), ("AdmissionCheckPending", "decode")]
    held = d.reasons[1]
    assert (held.message.id, held.message.args["check"], held.message.args["joint"]) == (
        "check.pending", "gpustack-model-deployment-joint", True)
    # one deployment: both decode replicas' groups, each one Workload with one PodSet named by the role
    assert {r.name: (r.have, r.want, r.reserved) for r in d.roles} == {"prefill": (1, 1, False), "decode": (2, 2, True)}
    note = next(n for n in d.notes if n.id == "note.deployment")
    assert (note.args["phase"], note.args["summary"]) == ("Starting", "0P0D")
    assert [(r["name"], r["quotaReserved"]) for r in note.args["roles"]] == [("prefill", 0), ("decode", 2)]
    assert any(r.path.startswith("/apis/worker.gpustack.ai/v1/") for r in server.requests)


@pytest.mark.parametrize("output", ["text", "json"])
def test_golden(cli: Callable, apiserver: Callable, output: str) -> None:
    server, env = apiserver(FIX, namespace="team-a", groups=V1_ONLY)
    args = ["why-pending", "md/qwen-pd"] + (["-o", "json"] if output == "json" else [])
    r = cli(args, env=env)
    assert r.exit_code in (0, 1), r.stderr
    golden(r.stdout, f"decode-held.{'json' if output == 'json' else 'txt'}")
    if output == "json":
        doc = json.loads(r.stdout)
        jsonschema.validate(doc, json.loads((ROOT / "docs" / "schema" / "why-pending.json").read_text()))
        assert [x["code"] for x in doc["reasons"]] == ["QuotaExhausted", "AdmissionCheckPending"]


# ----------------------------------------------------------------------------- every QuotaReserved reason
def _with(reason: str, status: str = "False", message: str = "", roles: list[dict[str, Any]] | None = None,
          phase: str | None = "Starting") -> dict[str, Any]:
    md = copy.deepcopy(md_of(objs()))
    md["status"]["conditions"] = [{"type": "QuotaReserved", "status": status, "reason": reason, "message": message}]
    if roles is not None:
        md["status"]["roles"] = roles
    if phase is None:
        md["status"].pop("phase")
        md["status"].pop("roleSummary")
    return md


@pytest.mark.parametrize(("reason", "status", "ours", "codes"), [
    ("Reserved", "True", [], []),
    ("Pending", "False", [], []),  # the Workloads' own reasons say which replicas wait, and why
    ("PodGroupIncomplete", "False", [], ["PodGroupIncomplete"]),
    ("PodGroupIncomplete", "False", ["PodGroupIncomplete"], []),  # ours names the role and have/want
    ("PreemptedInPart", "False", ["QuotaExhausted"], ["PreemptedInPart"]),
    ("Parked", "False", ["Deactivated"], ["Parked"]),
    ("NoQueueInReservedNamespace", "False", ["LocalQueueMissing"], ["NoQueueInReservedNamespace"]),
    ("AdmissionInFlight", "Unknown", [], ["WorkloadMissing"]),
    ("AdmissionInFlight", "Unknown", ["WorkloadMissing"], []),
    ("NoReplicas", "Unknown", [], ["ReplicasNotCreated"]),  # issue 40: no replica at all is not an incomplete group
    ("AllReplicasTerminating", "Unknown", [], ["AllReplicasTerminating"]),
    ("SomethingNew", "False", [], ["Unknown"]),  # never guessed: passed through
])
def test_quota_reserved_reasons(reason: str, status: str, ours: list[str], codes: list[str]) -> None:
    md = model_deployment(_with(reason, status, "m"))
    given = [Reason(c, say("hint.wait")) for c in ours]  # type: ignore[arg-type]
    found = operator.judge(md, given)[len(given):]  # pending/operator.py: md_v1's reasons, NoReplicas its own
    assert [r.code for r in found] == codes
    for r in found:
        assert r.params["operatorReason"] == reason
        assert r.message.id in SENTENCES
        assert (r.hint is None) == (r.code == "Unknown")


def test_preempted_in_part_names_who_holds_quota_and_the_kind_lost() -> None:
    roles = [{"name": "prefill", "kind": "Prefill", "desired": 2, "ready": 0, "quotaReserved": 0},
             {"name": "decode", "kind": "Decode", "desired": 2, "ready": 1, "quotaReserved": 2}]
    (r,) = md_v1.operator_reasons(model_deployment(_with("PreemptedInPart", roles=roles)), [])
    assert (r.params["held"], r.params["queues"], r.params["lost_kinds"]) == ({"decode": 2}, [H20], ["Prefill"])
    assert r.hint is not None and r.hint.id == "next.operator-reason" and r.hint.args["code"] == "PreemptedInPart"


def test_preempted_in_part_an_absent_count_is_not_zero() -> None:
    roles = [{"name": "prefill", "kind": "Prefill", "desired": 2, "ready": 0},  # quotaReserved absent: unknown
             {"name": "decode", "kind": "Decode", "desired": 2, "ready": 1, "quotaReserved": 1}]
    (r,) = md_v1.operator_reasons(model_deployment(_with("PreemptedInPart", roles=roles)), [])
    assert (r.params["held"], r.params["lost_kinds"]) == ({"decode": 1}, [])


def test_preempted_in_part_a_kind_with_an_unknown_count_is_not_lost() -> None:
    roles = [{"name": "prefill", "kind": "Prefill", "desired": 2, "ready": 0, "quotaReserved": 0},
             {"name": "prefill-b", "kind": "Prefill", "desired": 2, "ready": 0},  # unknown
             {"name": "decode", "kind": "Decode", "desired": 2, "ready": 1, "quotaReserved": 1}]
    (r,) = md_v1.operator_reasons(model_deployment(_with("PreemptedInPart", roles=roles)), [])
    assert r.params["lost_kinds"] == []


def test_a_v1_deployment_preempted_in_part_through_the_diagnosis() -> None:
    items = objs()
    roles = [{"name": "prefill", "kind": "Prefill", "desired": 1, "ready": 0, "quotaReserved": 0},
             {"name": "decode", "kind": "Decode", "desired": 2, "ready": 0, "quotaReserved": 2}]
    items = [_with("PreemptedInPart", roles=roles) if o["kind"] == "ModelDeployment" else o for o in items]
    d = run(items)
    assert "PreemptedInPart" in [r.code for r in d.reasons]
    assert any(h.id == "next.operator-reason" and h.args["code"] == "PreemptedInPart" for h in d.hints)


@pytest.mark.parametrize(("status", "want"), [
    ({"phase": "Degraded", "roleSummary": "1R3P4D"}, ("Degraded", "1R3P4D")),
    ({"phase": "Ready"}, ("Ready", None)),
    ({}, None),
])
def test_status_note(status: dict[str, Any], want: tuple[str, str | None] | None) -> None:
    notes = md_v1.status_note(model_deployment({"apiVersion": "worker.gpustack.ai/v1", "status": status}))
    assert [(n.args["phase"], n.args["summary"]) for n in notes] == ([want] if want else [])


def test_the_seed_api_gets_the_reasons_and_the_status_note() -> None:
    """v1alpha1 of the per-replica era has the same QuotaReserved reasons (the reference, section 1.6), and the same
    status struct (issue 40: v1 re-declares the v1alpha1 type), so its phase note shows too."""
    items = objs()
    for o in items:
        if o["kind"] == "ModelDeployment":
            o["apiVersion"] = "worker.gpustack.ai/v1alpha1"
            o["status"]["conditions"][0]["reason"] = "Parked"
    d = run(items)
    assert d.reasons[0].code == "Parked"
    assert [n for n in d.notes if n.id == "note.deployment"]


def test_fixture_is_what_its_generator_writes(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_v1", FIXTURES / "gpustack-v1" / "generate.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.decode_held() == objs()
