"""4e: the API as a real server speaks it: paging with real continue tokens, a real 410 after etcd's
compaction, RBAC refusals (the answer is unknown, never a guess), impersonation through the real authorizer,
and, for the same kubeconfig, kubectl and kubectl-pd reaching the same identity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.realcluster import objs, standin
from tests.realcluster.compacting_proxy import CompactingProxy
from tests.realcluster.differential import _finish_eviction as finish_eviction
from tests.realcluster.plane import Plane, is_true, wait_for

pytestmark = pytest.mark.cluster
LIMITED = "pd-limited"


def _doc(out: str) -> dict[str, Any]:
    return dict(json.loads(out))


@pytest.fixture(scope="module")
def many(plane: Plane) -> tuple[str, int]:
    """A namespace with 1,050 pending Workloads: more than two of the plugin's 500-object pages."""
    ns = plane.namespace("paging")
    n = 1050
    docs = [objs.workload(ns, f"w{i:04d}", "nowhere", [("main", 1, {objs.GPU: "1"})], active=False)
            for i in range(n)]
    plane.kubectl("create", "-f", "-", input=yaml.safe_dump_all(docs), timeout=600)
    return ns, n


def test_paging_with_real_continue_tokens(plane: Plane, many: tuple[str, int]) -> None:
    ns, n = many
    got = plane.pd("why-pending", "-n", ns, "-o", "json")
    assert got.returncode == 0, got.stderr
    names = {it["target"]["name"] for it in _doc(got.stdout)["items"]}
    listed = plane.get("workloads", namespace=ns)["items"]
    assert len(listed) == n and names == {w["metadata"]["name"] for w in listed}


def test_a_real_410_restarts_the_list_once(plane: Plane, many: tuple[str, int], tmp_path: Path) -> None:
    ns, n = many
    with CompactingProxy(plane) as proxy:
        kc = proxy.kubeconfig(tmp_path / "kc", ns)
        got = plane.pd("why-pending", "-o", "json", env={"KUBECONFIG": str(kc)})
        assert proxy.expired >= 1, "the real server never answered 410"
    assert got.returncode == 0, got.stderr
    assert len(_doc(got.stdout)["items"]) == n


def test_410_on_every_restart_is_an_error_not_a_short_answer(plane: Plane, many: tuple[str, int],
                                                             tmp_path: Path) -> None:
    ns, _ = many
    with CompactingProxy(plane, every=True) as proxy:
        kc = proxy.kubeconfig(tmp_path / "kc", ns)
        got = plane.pd("why-pending", "-o", "json", env={"KUBECONFIG": str(kc)})
        assert proxy.expired >= 2
    assert got.returncode == 1 and got.stdout.strip() == ""
    assert len(got.stderr.strip().splitlines()) == 1 and got.stderr.startswith("error: ")


@pytest.fixture(scope="module")
def limited_group(plane: Plane) -> str:
    """A pod group in the limited user's namespace that Kueue could not admit (quota below its needs)."""
    rf, cq = plane.unique("lim-rf"), plane.unique("lim-cq")
    plane.apply(objs.flavor(rf), objs.cluster_queue(cq, [(rf, [objs.quota(objs.GPU, "2")])]),
                objs.local_queue(LIMITED, "main", cq))
    group = plane.unique("g")
    plane.apply(*[objs.group_pod(LIMITED, f"{group}-{r}", group, 2, "main", r, {objs.GPU: "2"})
                  for r in ("prefill", "decode")], server_side=False)
    wait_for("Kueue's verdict on the group", lambda: any(
        w["metadata"]["name"] == group and not is_true(w, "QuotaReserved") and (w.get("status") or {}).get(
            "conditions") for w in plane.get("workloads", namespace=LIMITED)["items"]))
    return group


def _whoami(plane: Plane, *flags: str) -> str:
    got = plane.kubectl("auth", "whoami", "-o", "json", *flags)
    return str(json.loads(got.stdout)["status"]["userInfo"]["username"])


@pytest.mark.parametrize("flags", [("--context", "limited"), ("--context", "admin", "-n", LIMITED, "--as",
                                                               "pd-limited-user")],
                         ids=["limited-context", "impersonated"])
def test_forbidden_reads_give_unknown_and_name_the_same_identity(plane: Plane, limited_group: str,
                                                                  flags: tuple[str, ...]) -> None:
    user = _whoami(plane, *flags[:2], *flags[4:])
    assert user == "pd-limited-user"
    got = plane.pd("why-pending", f"podgroup/{limited_group}", "-o", "json", *flags)
    assert got.returncode in (0, 1), got.stderr
    doc = _doc(got.stdout)
    assert all(r["verdict"] in ("unknown",) for r in doc["roles"])  # no "fits" or "blocked" of our own
    assert (doc.get("preemption") or {}).get("targets") is None  # whom it would preempt: not known
    assert any(f'"{user}"' in note for note in doc["notes"])  # the identity the server refused, as kubectl's
    # the same kubeconfig through the real kubectl: the same refusal
    denied = plane.kubectl("get", "clusterqueues", *flags, check=False)
    assert denied.returncode == 1 and user in denied.stderr


def test_impersonating_a_group_through_the_real_authorizer(plane: Plane, limited_group: str) -> None:
    flags = ("--context", "admin", "-n", LIMITED, "--as", "someone", "--as-group", "system:masters")
    assert _whoami(plane, "--as", "someone", "--as-group", "system:masters") == "someone"
    got = plane.pd("why-pending", f"podgroup/{limited_group}", "-o", "json", *flags)
    assert got.returncode == 0, got.stderr
    doc = _doc(got.stdout)
    assert doc["notes"] == [] and {r["verdict"] for r in doc["roles"]} == {"blocked"}
    assert [r["code"] for r in doc["reasons"]] == ["QuotaExceedsCapacity"]


def test_the_token_user(plane: Plane, limited_group: str) -> None:
    assert _whoami(plane, "--context", "token") == "pd-token-user"
    got = plane.pd("why-pending", f"podgroup/{limited_group}", "-n", LIMITED, "-o", "json", "--context", "token")
    assert got.returncode == 0 and _doc(got.stdout)["notes"] == [], got.stderr
    assert plane.state()["server"] not in got.stderr


def test_the_workload_field_selector_and_a_live_preemption_answer(plane: Plane) -> None:
    """Kueue's v1beta2 Workload CRD declares `.status.admission.clusterQueue` selectable; the real server
    answers the selector, and the live preemption answer, which lists each queue's admitted Workloads with
    it, names the Workload Kueue then preempts."""
    crd = plane.get("crd", "workloads.kueue.x-k8s.io")
    declared = {v["name"]: [f["jsonPath"] for f in v.get("selectableFields") or []] for v in crd["spec"]["versions"]}
    assert declared["v1beta2"] == [".status.admission.clusterQueue"]
    ns = plane.namespace("sel")
    rf, a, b = plane.unique("sel-rf"), plane.unique("sel-a"), plane.unique("sel-b")
    prio = [objs.priority_class("pd-low", 10), objs.priority_class("pd-high", 100)]
    within = {"withinClusterQueue": "LowerPriority"}
    plane.apply(*prio, objs.flavor(rf), objs.cluster_queue(a, [(rf, [objs.quota(objs.GPU, "4")])], preemption=within),
                objs.cluster_queue(b, [(rf, [objs.quota(objs.GPU, "4")])]),
                objs.local_queue(ns, "a", a), objs.local_queue(ns, "b", b))
    plane.apply(objs.workload(ns, "low-a", "a", [("main", 1, {objs.GPU: "4"})], priority=("pd-low", 10)),
                objs.workload(ns, "low-b", "b", [("main", 1, {objs.GPU: "4"})], priority=("pd-low", 10)))
    wait_for("both admitted", lambda: all(is_true(w, "QuotaReserved")
                                          for w in plane.get("workloads", namespace=ns)["items"]))
    sel = plane.kubectl("get", "workloads", "-A", "-o", "json", "--field-selector",
                        f"status.admission.clusterQueue={a}").stdout
    assert [w["metadata"]["name"] for w in json.loads(sel)["items"]] == ["low-a"]
    # a pending high-priority Workload in queue a, held by a stopped LocalQueue so the answer comes first
    held = objs.local_queue(ns, "held", a)
    held["spec"]["stopPolicy"] = "Hold"
    plane.apply(held, objs.workload(ns, "high", "held", [("main", 1, {objs.GPU: "4"})], priority=("pd-high", 100)))
    wait_for("the held Workload seen", lambda: (plane.get("workload", "high", ns).get("status") or {}).get(
        "conditions"))
    plane.kubectl("patch", "localqueue", "held", "-n", ns, "--type=json",
                  "-p", '[{"op":"remove","path":"/spec/stopPolicy"}]')
    wait_for("Kueue preempts low-a", lambda: any(
        c.get("type") == "Evicted" and c.get("reason") == "Preempted"
        for c in (plane.get("workload", "low-a", ns).get("status") or {}).get("conditions") or []))
    finish_eviction(plane, ns, "low-a")  # what the job behind it would do (nothing owns it here)
    wait_for("high admitted", lambda: is_true(plane.get("workload", "high", ns), "QuotaReserved"))
    got = plane.pd("why-pending", "workload/low-a", "-n", ns, "-o", "json")
    assert got.returncode == 0, got.stderr
    doc = _doc(got.stdout)
    assert [r["code"] for r in doc["reasons"]][:1] == ["Preempted"]
    assert plane.get("workload", "high", ns)["metadata"]["uid"] in got.stdout


def test_a_warning_header_from_a_deprecated_version_is_printed_as_kubectl_prints_it(plane: Plane) -> None:
    """The API server's Warning header (here: a CRD version marked deprecated, as Kueue marks v1beta1) reaches
    stderr once per text, the line kubectl prints for the same read; stdout stays the document."""
    standin.install(plane)
    ns = plane.namespace("warn")
    it = plane.unique("warn-it")
    plane.apply(standin.instance_type(it, "main"))
    crd = standin.instance_type_crd()
    text = "worker.gpustack.ai/v1alpha1 InstanceType is deprecated here: a test of the Warning header"
    crd["spec"]["versions"][0].update(deprecated=True, deprecationWarning=text)
    plane.apply(crd)
    try:
        wait_for("the deprecation served", lambda: text in plane.kubectl(
            "get", f"instancetypes.v1alpha1.{standin.GROUP}", it, "-o", "name").stderr)
        theirs = plane.kubectl("get", f"instancetypes.v1alpha1.{standin.GROUP}", it, "-o", "name").stderr
        ours = plane.pd("create", "qwen", "--model", "m", "--engine-version", "1", "--instance-type", it, "-n", ns,
                        "--prefill", "1", "--decode", "1", "--preflight", "-o", "json")
        assert ours.returncode in (0, 1), ours.stderr
        assert json.loads(ours.stdout)["target"]["name"] == "qwen"
        warned = [line for line in ours.stderr.splitlines() if line.startswith("Warning:")]
        assert warned == [line for line in theirs.splitlines() if line.startswith("Warning:")] == [f"Warning: {text}"]
    finally:
        plane.apply(standin.instance_type_crd())
