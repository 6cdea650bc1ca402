"""GPUStack's published ModelDeployment API, `worker.gpustack.ai/v1`, against the real Kueue: `create --api-version
v1` writes the deployment, the operator's stand-in (tests/realcluster/standin.py, from the published docs) turns
every replica of every role into its own pod group with one PodSet named by `kueue.x-k8s.io/role-hash`, holds every
group behind the joint AdmissionCheck until the whole set has reserved quota, and writes `status.phase`, `roles[]`,
`roleSummary` and the `QuotaReserved` condition. With quota for the decode replicas but not the prefill one,
why-pending must give the codes the loopback fixture gives (tests/test_gpustack_v1_pending.py,
tests/fixtures/gpustack-v1/decode-held.yaml): prefill `QuotaExhausted`, decode `AdmissionCheckPending` behind
`gpustack-model-deployment-joint`; once the quota is freed, every group is admitted and why-pending says so. A server
dry run of a role named by `acceleratorType` (GPUStack v0.11.2) checks the body against the real API server's v1 schema.

Sources: gpustack/gpustack-operator docs/modules/model-deployment/deployment.md@0421f1cc6b1b9c75df6e4c23fd8fd12136607e98
("Every replica of every role is its own pod group, so the set is held together by an admission check this operator
runs, which holds every group until the whole set has reserved quota"; the per-Pod keys table) and
docs/modules/model-deployment/status.md@0421f1cc6b1b9c75df6e4c23fd8fd12136607e98 (phase, roles[], roleSummary, the
QuotaReserved reasons)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.realcluster import objs, standin
from tests.realcluster.createcase import CARD, CREDITS
from tests.realcluster.differential import _finish_eviction as finish_eviction
from tests.realcluster.plane import Plane, condition, is_true, wait_for

pytestmark = pytest.mark.cluster

PREFILL_CARDS, DECODE_REPLICAS = 3, 2  # the prefill replica asks 3 cards, each decode replica 1
NOMINAL, HELD = 6, 4  # 2 cards free: both decode replicas fit, the prefill one does not until the holder goes


def _why(plane: Plane, ns: str) -> tuple[int, dict[str, Any]]:
    r = plane.pd("why-pending", "md/qwen", "-n", ns, "-o", "json")
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def _run_operator(plane: Plane, ns: str, groups: list[str], until: Any, rounds: int) -> dict[str, Any] | None:
    """The stand-in's controller for ROUNDS half-seconds at most: answer the joint check, write the status; the
    Workloads once UNTIL(workloads) holds, else None."""
    for _ in range(rounds):
        wls = standin.answer(plane, ns, groups)
        standin.write_status(plane, plane.get(standin.V1_RESOURCE, "qwen", ns), wls)
        if len(wls) == len(groups) and until(wls):
            return wls
        time.sleep(0.5)
    return None


def _role_of(w: dict[str, Any]) -> str:
    (ps,) = w["spec"]["podSets"]  # one PodSet per replica group, named by the role
    return str(ps["name"])


def test_v1_decode_waits_behind_the_joint_check_then_all_is_admitted(plane: Plane) -> None:
    standin.install(plane)
    ns = plane.namespace("mdv1")
    it = f"gpustack--nvidia-h100-linux-amd64-{ns}"
    plane.apply(standin.instance_type(it, "main"))
    rf = plane.unique("gs-rf")
    plane.apply(objs.flavor(rf),
                objs.cluster_queue(it, [(rf, [objs.quota(CREDITS, str(NOMINAL * CARD))])], covered=[CREDITS],
                                   preemption={"withinClusterQueue": "Never"}, checks=[standin.JOINT]),
                objs.local_queue(ns, "main", it),
                objs.workload(ns, "held0", "main", [("main", 1, {CREDITS: str(HELD * CARD)})]))
    wait_for("held0 holds quota", lambda: is_true(plane.get("workload", "held0", ns), "QuotaReserved"))
    versions = plane.get("crd", standin.CRD_NAME)["spec"]["versions"]
    before = {v["name"]: (v["served"], v["storage"]) for v in versions}
    with standin.serve_v1(plane):
        # the real API server takes a role named by acceleratorType (an AcceleratorType's name) in the v1 schema
        dry = plane.pd("create", "qwen-at", "--model", "m", "--engine-version", "1", "-n", ns, "--api-version", "v1",
                       "--accelerator-type", "gpustack--nvidia-h100-linux-amd64", "--decode", "1",
                       "--dry-run=server", "-o", "json")
        assert dry.returncode == 0, dry.stderr
        assert json.loads(dry.stdout)["spec"]["roles"][0]["acceleratorType"] == "gpustack--nvidia-h100-linux-amd64"
        assert "names acceleratorType" in dry.stderr  # the preflight says it does not weigh that role
        made = plane.pd("create", "qwen", "--model", "m", "--engine-version", "1", "-n", ns, "--api-version", "v1",
                        "--instance-type", it,
                        "--role", f"name=prefill,kind=prefill,replicas=1,accelerator={PREFILL_CARDS},image=e:1",
                        "--role", f"name=decode,kind=decode,replicas={DECODE_REPLICAS},image=e:1")
        assert made.returncode == 0, made.stderr
        md = plane.get(standin.V1_RESOURCE, "qwen", ns)
        assert md["apiVersion"] == "worker.gpustack.ai/v1"
        assert [(r["kind"], r["instanceType"]) for r in md["spec"]["roles"]] == [("Prefill", it), ("Decode", it)]
        groups = standin.render(plane, md)
        assert len(groups) == 1 + DECODE_REPLICAS

        # decode's replicas reserve quota and wait behind the joint check; the prefill replica waits for quota
        def held(wls: dict[str, Any]) -> bool:
            by_role = {g: (_role_of(w), w) for g, w in wls.items()}
            decode = [w for r, w in by_role.values() if r == "decode"]
            prefill = [w for r, w in by_role.values() if r == "prefill"]
            return (all(is_true(w, "QuotaReserved") for w in decode) and len(prefill) == 1
                    and (condition(prefill[0], "QuotaReserved") or {}).get("status") == "False")
        wls = _run_operator(plane, ns, groups, held, rounds=60)
        assert wls is not None, "Kueue never reserved quota for the decode replicas alone"
        assert sorted(_role_of(w) for w in wls.values()) == ["decode", "decode", "prefill"]
        status = plane.get(standin.V1_RESOURCE, "qwen", ns)["status"]
        assert (status["phase"], status["roleSummary"]) == ("Starting", "0P0D")
        assert [(r["name"], r["desired"], r["quotaReserved"]) for r in status["roles"]] == [
            ("prefill", 1, 0), ("decode", DECODE_REPLICAS, DECODE_REPLICAS)]
        qr = next(c for c in status["conditions"] if c["type"] == "QuotaReserved")
        assert (qr["status"], qr["reason"]) == ("False", "Pending")

        code, doc = _why(plane, ns)
        assert code == 0 and doc["pending"], doc
        assert [(r["code"], r.get("role")) for r in doc["reasons"]] == [
            ("QuotaExhausted", "prefill"), ("AdmissionCheckPending", "decode")], doc["reasons"]

        # free the queue: the prefill replica is admitted, the joint check answers Ready, every group is admitted
        finish_eviction(plane, ns, "held0", deactivate=True)
        done = _run_operator(plane, ns, groups, lambda w: all(is_true(x, "Admitted") for x in w.values()),
                             rounds=90)
        assert done is not None, "the deployment was not admitted after its quota was freed"
        status = standin.write_status(plane, plane.get(standin.V1_RESOURCE, "qwen", ns), done)
        qr = next(c for c in status["conditions"] if c["type"] == "QuotaReserved")
        assert (qr["status"], qr["reason"]) == ("True", "Reserved")
        code, doc = _why(plane, ns)
        # Kueue admitted every group: why-pending names no admission reason for either role. Whether the kwok
        # nodes still have room for the Pods depends on what the tier's earlier tests left running on them (the
        # whole tier shares one plane), so a role whose Pods the scheduler cannot place is allowed here.
        # A role whose Pods were placed says NotPending only when no role's Pods wait (pending/diagnose._settle
        # keeps the pending reasons alone), so both roles are named when every Pod was placed.
        assert code == 0, doc
        roles = {r.get("role") for r in doc["reasons"]}
        assert roles and roles <= {"decode", "prefill"}, doc["reasons"]
        assert {r["code"] for r in doc["reasons"]} <= {"NotPending", "PodsUnschedulable"}, doc["reasons"]
        if all(r["code"] == "NotPending" for r in doc["reasons"]):
            assert roles == {"decode", "prefill"}, doc["reasons"]
    # the tier's other tests see the API the plane started with: v1 unserved, v1alpha1 the storage version again
    crd = plane.get("crd", standin.CRD_NAME)
    assert {v["name"]: (v["served"], v["storage"]) for v in crd["spec"]["versions"]} == before
