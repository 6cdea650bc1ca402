"""Issue 37, item 1: user journeys on the real control plane. Each test is one flow as a user types it
(`kubectl pd ...`, `kubectl ...`), and every step's answer is held against what Kueue wrote: the Workload's
conditions (reason, message, `N more needed` in flavor F), `spec.podSets` order, `status.admission`, the
ClusterQueues' `flavorsUsage`/`flavorsReservation` with `borrowed`, Pod deletionTimestamps, RBAC refusals.
Besides each journey's own claims, every why-pending document passes `journey.doc_claims` and every text
screen `journey.screen_claims` (one free figure per flavor, the headline is the first reason and names its
flavor, no `next:` twice, notes on stderr). docs/journeys.md lists the journeys and their claims."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.kueue.quantity import parse
from tests.conftest import run_kubectl
from tests.realcluster import journey as j
from tests.realcluster import objs, standin
from tests.realcluster.plane import Plane, condition, is_true, wait_for

pytestmark = pytest.mark.cluster

@pytest.fixture(autouse=True)
def _room_on_the_nodes(request: pytest.FixtureRequest) -> Any:
    """After each journey on a plane, the Pods of the namespaces it made are deleted, in the background (the next
    journey does not wait for it): the tier's kwok nodes are shared, and Pods Kueue admitted would hold their
    room for every later test, which would then meet PodsUnschedulable after admission (`_admitted_answer`
    still allows it: other modules of the tier leave Pods too)."""
    if "plane" not in request.fixturenames:
        yield
        return
    plane: Plane = request.getfixturevalue("plane")
    first = plane._seq
    yield
    made = range(first + 1, plane._seq + 1)
    if made:
        threading.Thread(target=_delete_pods, args=(plane, made), daemon=True).start()


def _delete_pods(plane: Plane, made: range) -> None:
    """The Pods of the namespaces `plane.namespace` named with a sequence number in MADE (`P-PID-SEQ-MS`)."""
    pid = str(os.getpid() % 10000)
    for ns in plane.kubectl("get", "namespaces", "-o", "name", check=False).stdout.split():
        parts = ns.removeprefix("namespace/").split("-")
        if len(parts) >= 4 and parts[-3] == pid and parts[-2].isdigit() and int(parts[-2]) in made:
            plane.kubectl("delete", "pods", "--all", "-n", "-".join(parts), "--grace-period=0", "--force",
                          "--wait=false", check=False)


ROLES_2_2 = ["--role", "name=prefill,kind=prefill,replicas=1,accelerator=2,image=e:1",
             "--role", "name=decode,kind=decode,replicas=1,accelerator=2,image=e:1"]


def _create(name: str, ns: str, queue: str, *more: str) -> list[str]:
    return ["create", name, "-n", ns, "--model", "m", "--target", "pods", "--local-queue", queue, *ROLES_2_2, *more]


def _pods(said: j.Said) -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all(said.out) if d]
    items = [i for d in docs for i in (d.get("items") if d.get("kind") == "List" else [d])]
    return [p for p in items if p.get("kind") == "Pod"]


def _requests(pod: dict[str, Any]) -> list[tuple[dict[str, str], dict[str, str]]]:
    return [((c.get("resources") or {}).get("requests") or {}, (c.get("resources") or {}).get("limits") or {})
            for c in pod["spec"]["containers"]]


def _reason(doc: dict[str, Any], role: str) -> dict[str, Any]:
    return next(r for r in doc["reasons"] if r.get("role") == role)


def _kueue_agrees(lay: j.Layout, wl: dict[str, Any], role_of: dict[str, str], r: dict[str, Any], where: str) -> None:
    """The reason's shortfall (role, flavor, amount) is one Kueue's message gives: `... in flavor F, N more
    needed` for the pod set of that role."""
    kueue = {(role_of.get(ps, ps), f, lay.cards(n)) for ps, fs in j.shortfalls(wl).items() for f, n in fs.items()}
    ours = (r.get("role"), r.get("flavor"), lay.cards(r.get("needed")))
    assert ours in kueue, f"ours {ours}, Kueue's {sorted(map(str, kueue))}: {j.kueue_message(wl)}\n{where}"


# ------------------------------------------------------------------------------------------------ U1

def test_u1_create_then_why_pending_by_the_same_name(plane: Plane) -> None:
    """`create NAME --target pods` then `why-pending NAME`: the bare name finds the pod group just made."""
    ns = plane.namespace("u1")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}})
    j.hold(plane, lay, "held", "serve", 4)  # full: every role waits
    name = plane.unique("pd-mid")
    made = j.pd(plane, *_create(name, ns, "serve"))
    assert made.rc == 0 and f"pod/{name}-prefill-0 created" in made.out, made
    wl = j.tried(plane, ns, name)
    said, doc = j.why(plane, name, ns)
    assert said.rc == 0, said
    assert doc["target"] == {"kind": "PodGroup", "name": name, "namespace": ns}, said
    assert doc["pending"] is True and doc["reasons"][0]["code"] == "QuotaExhausted", said
    role_of = dict(j.pod_set_roles(plane, ns, wl))
    _kueue_agrees(lay, wl, role_of, doc["reasons"][0], str(said))
    j.screen(plane, name, ns, doc)


# ------------------------------------------------------------------------------------------------ W1

IT_CRD = f"instancetypes.{standin.GROUP}"
MD_RESOURCE = f"modeldeployments.{standin.GROUP}"


def test_w1_a_missing_api_is_named_by_its_group_and_resource(plane: Plane) -> None:
    """The plane serves the ModelDeployment CRD (scripts/real-cluster installs it) but not the InstanceType API
    (its CRD removed for the journey, then installed again as the tier's stand-in does): kubectl's own `get
    instancetypes` fails; `create --instance-type` (live) fails naming instancetypes.worker.gpustack.ai and the
    group's served versions, never the ModelDeployment CRD, and writes nothing; why-pending of a
    ModelDeployment made before the API went away diagnoses it and never says its CRD is missing."""
    standin.install(plane)
    ns = plane.namespace("w1")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}}, checks=[standin.JOINT])
    it = lay.cq("serve")
    plane.apply(standin.instance_type(it, "serve"))
    roles = ["--model", "m", "--engine-version", "1", "--instance-type", it,
             "--role", "name=prefill,kind=prefill,replicas=1,image=e:1",
             "--role", "name=decode,kind=decode,replicas=1,image=e:1"]
    before = plane.unique("w1-md")
    made = j.pd(plane, "create", before, "-n", ns, *roles)
    assert made.rc == 0, made
    plane.kubectl("delete", "crd", IT_CRD, "--wait=true", "--timeout=60s")
    try:
        theirs = wait_for("the InstanceType API gone", lambda: (g := plane.kubectl(
            "get", IT_CRD, check=False)).returncode != 0 and g)
        assert theirs.returncode == 1, theirs.stderr
        served = [v["version"] for v in json.loads(plane.kubectl("get", "--raw", f"/apis/{standin.GROUP}").stdout)[
            "versions"]]
        name = plane.unique("w1")
        made = j.pd(plane, "create", name, "-n", ns, *roles)
        assert made.rc == 1 and made.out == "", made
        assert made.err.startswith("error: ") and len(made.err.strip().splitlines()) == 1, made
        assert IT_CRD in made.err and all(v in made.err for v in served), made
        assert f"{MD_RESOURCE} is not served" not in made.err and "ModelDeployment CRD" not in made.err, made
        assert plane.kubectl("get", MD_RESOURCE, name, "-n", ns, check=False).returncode == 1
        said = j.pd(plane, "why-pending", before, "-n", ns, "-o", "json")
        assert said.rc in (0, 1), said
        assert said.doc["target"] == {"kind": "ModelDeployment", "name": before, "namespace": ns}, said
        j.doc_claims(said.doc, str(said))
        assert f"{MD_RESOURCE} is not served" not in said.err + said.out, said
        assert "ModelDeployment CRD" not in said.err + said.out, said
    finally:
        standin.install(plane)


# ------------------------------------------------------------------------------------------------ W2

def test_w2_a_dry_run_writes_the_requests_a_live_run_writes(plane: Plane, tmp_path: Path) -> None:
    ns = plane.namespace("w2")
    lay = j.layout(plane, "gpu", ns, {"a": {"z0": (8, None, None)}})
    name = plane.unique("dry")
    # neither --resource nor an accelerator key, and no cluster to read the queue from: refused, nothing printed
    offline = j.pd(plane, *_create(name, ns, "a", "--dry-run=client", "-o", "yaml"),
                   env={"KUBECONFIG": str(tmp_path / "missing")})
    assert offline.rc == 2 and offline.out == "", offline
    assert offline.err.startswith("error: ") and len(offline.err.strip().splitlines()) == 1, offline
    # with the cluster readable: refused, or the queue's resource derived; never Pods that request nothing
    live = j.pd(plane, *_create(name, ns, "a", "--dry-run=client", "-o", "yaml"))
    assert live.rc in (0, 2), live
    if live.rc == 0:
        assert all(req == {objs.GPU: "2"} for p in _pods(live) for req, _ in _requests(p)), live
    # --resource: every Pod requests (and limits) 2 cards of it
    said = j.pd(plane, *_create(name, ns, "a", "--resource", objs.GPU, "--dry-run=client", "-o", "yaml"))
    assert said.rc == 0, said
    pods = _pods(said)
    assert len(pods) == 2 and all(_requests(p) == [({objs.GPU: "2"}, {objs.GPU: "2"})] for p in pods), said
    # piped to kubectl create: Kueue charges the group's 4 cards to the queue
    plane.kubectl("create", "-f", "-", input=said.out)
    wait_for("the group admitted", lambda: (w := j.workload(plane, ns, name)) and is_true(w, "QuotaReserved"))
    got = wait_for("the reservation in the ClusterQueue's status", lambda: j.usage(
        plane, lay.cq("a"), "flavorsReservation").get((lay.flavor("z0"), objs.GPU), ("0", "0"))[0] != "0" and j.usage(
        plane, lay.cq("a"), "flavorsReservation"))
    assert parse(got[(lay.flavor("z0"), objs.GPU)][0]) == 4, got
    # live, validated by the server: the queue covers plain nvidia.com/gpu, so that is what the Pods request
    server = j.pd(plane, *_create(plane.unique("srv"), ns, "a", "--dry-run=server", "-o", "yaml"))
    assert server.rc == 0, server
    pods = _pods(server)
    assert len(pods) == 2 and all(req.get(objs.GPU) == "2" for p in pods for req, _ in _requests(p)), server


# ------------------------------------------------------------------------------------------------ W3

@pytest.mark.parametrize("kind", ["gpu", "credits"])
def test_w3_pod_sets_judged_in_kueues_order(plane: Plane, kind: str) -> None:
    """z0 can never hold a 4-card pod set, z1 has 4 cards left: the pod set Kueue charges first takes them,
    the other waits for 4 more in z1. Both roles ask alike, so only the order tells which one waits."""
    ns = plane.namespace("w3")
    lay = j.layout(plane, kind, ns, {"a": {"z0": (2, None, None), "z1": (8, None, None)}})
    held = j.hold(plane, lay, "held", "a", 4)
    assert [a["flavors"][lay.resource] for a in held["status"]["admission"]["podSetAssignments"]] == [
        lay.flavor("z1")]
    g = plane.unique("g")
    j.group(plane, lay, g, "a", [("prefill", 1, 4), ("decode", 1, 4)])
    wl = j.tried(plane, ns, g)
    order = j.pod_set_roles(plane, ns, wl)
    role_of = dict(order)
    (first_ps, first), (second_ps, second) = order
    assert set(j.shortfalls(wl)) == {second_ps}, j.kueue_message(wl)  # Kueue: the later pod set waits
    said, doc = j.why(plane, f"podgroup/{g}", ns)
    r = doc["reasons"][0]
    assert r["code"] == "QuotaExhausted" and r["role"] == second, said
    _kueue_agrees(lay, wl, role_of, r, str(said))
    rows = {x["name"]: x for x in doc["roles"]}
    assert (rows[first]["verdict"], rows[first]["flavor"]) == ("fits", lay.flavor("z1")), said
    assert rows[second]["verdict"] == "blocked", said
    text = j.screen(plane, f"podgroup/{g}", ns, doc)
    assert "freed" not in text.out, text


# ------------------------------------------------------------------------------------------------ W4

def test_w4_pods_deleted_under_a_pending_group(plane: Plane) -> None:
    ns = plane.namespace("w4")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}})
    j.hold(plane, lay, "held", "serve", 4)  # full: every role waits
    g = plane.unique("g")
    pods = j.group(plane, lay, g, "serve", [("prefill", 1, 2), ("decode", 1, 2)])
    j.tried(plane, ns, g)
    _, before = j.why(plane, f"podgroup/{g}", ns)
    assert before["reasons"][0]["code"] == "QuotaExhausted", before["reasons"]
    names = [p["metadata"]["name"] for p in pods]
    try:
        for p in names:
            plane.kubectl("patch", "pod", p, "-n", ns, "-p", '{"metadata":{"finalizers":["example.com/hold"]}}')
        plane.kubectl("delete", "pod", *names, "-n", ns, "--wait=false")
        wait_for("every Pod being deleted", lambda: all(
            p["metadata"].get("deletionTimestamp") for p in plane.get("pods", namespace=ns)["items"]
            if p["metadata"]["name"] in names) and len(plane.get("pods", namespace=ns)["items"]) == len(names))
        said, doc = j.why(plane, f"podgroup/{g}", ns)
        assert doc["reasons"] and doc["reasons"][0]["code"] == "AllReplicasTerminating", said
        assert not [n for n in doc["next"] if "scale" in n or "free" in n], said
        j.screen(plane, f"podgroup/{g}", ns, doc)
    finally:
        for p in names:
            plane.kubectl("patch", "pod", p, "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}',
                          check=False)


def test_w4_pods_deleted_under_an_admitted_group(plane: Plane) -> None:
    """An admitted group whose Pods are all being deleted still holds its quota (Kueue: Admitted, the
    ClusterQueue's flavorsUsage): the answer says it is not pending, with the usage Kueue reports."""
    ns = plane.namespace("w4a")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}})
    g = plane.unique("g")
    pods = j.group(plane, lay, g, "serve", [("prefill", 1, 2), ("decode", 1, 2)])
    wait_for("the group admitted", lambda: is_true(j.workload(plane, ns, g) or {}, "Admitted"))
    names = [p["metadata"]["name"] for p in pods]
    try:
        for p in names:
            plane.kubectl("patch", "pod", p, "-n", ns, "-p", '{"metadata":{"finalizers":["example.com/hold"]}}')
        plane.kubectl("delete", "pod", *names, "-n", ns, "--wait=false")
        wait_for("every Pod being deleted", lambda: all(
            p["metadata"].get("deletionTimestamp") for p in plane.get("pods", namespace=ns)["items"]))
        wl = j.workload(plane, ns, g) or {}
        assert is_true(wl, "Admitted"), wl.get("status")
        used = wait_for("the usage in the ClusterQueue's status", lambda: j.usage(plane, lay.cq("serve")).get(
            (lay.flavor("z0"), lay.resource), ("0", "0"))[0] != "0" and j.usage(plane, lay.cq("serve")))
        said, doc = j.why(plane, f"podgroup/{g}", ns)
        assert said.rc == 0 and _admitted_answer(doc), said
        (bar,) = [b for b in doc["quota"] if b["flavor"] == lay.flavor("z0")] or [None]
        assert bar is None or parse(bar["used"]) == parse(used[(lay.flavor("z0"), lay.resource)][0]), (bar, used)
        j.screen(plane, f"podgroup/{g}", ns, doc)
    finally:
        for p in names:
            plane.kubectl("patch", "pod", p, "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}',
                          check=False)


# ------------------------------------------------------------------------------------------------ W5

def test_w5_a_field_selector_on_the_group_name(plane: Plane) -> None:
    ns = plane.namespace("w5")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (2, None, None)}})
    j.hold(plane, lay, "held", "serve", 2)
    g = plane.unique("low-b")
    j.group(plane, lay, g, "serve", [("prefill", 1, 1), ("decode", 1, 1)])
    j.tried(plane, ns, g)
    kueue = json.loads(plane.kubectl("get", "workloads", "-A", "--field-selector", f"metadata.name={g}",
                                     "-o", "json").stdout)["items"]
    assert [w["metadata"]["namespace"] for w in kueue] == [ns]
    said = j.pd(plane, "why-pending", "-A", "--field-selector", f"metadata.name={g}", "-o", "json")
    assert said.rc == 0, said
    doc = said.doc
    j.doc_claims(doc, str(said))
    assert [(i["target"]["kind"], i["target"]["namespace"], i["target"]["name"]) for i in doc["items"]] == [
        ("PodGroup", ns, g)], said
    # the table into a pipe: the row's DETAIL is the reason's whole message, not cut to a terminal's width
    text = j.pd(plane, "why-pending", "-A", "--field-selector", f"metadata.name={g}")
    assert text.rc == 0 and doc["items"][0]["reasons"][0]["message"] in text.out, text
    # a label of the group's Pods selects it too
    plane.kubectl("label", "pods", "-n", ns, "-l", f"kueue.x-k8s.io/pod-group-name={g}", f"journey={g}")
    by_label = j.pd(plane, "why-pending", "-A", "-l", f"journey={g}", "-o", "json")
    assert by_label.rc == 0, by_label
    j.doc_claims(by_label.doc, str(by_label))
    assert [(i["target"]["kind"], i["target"]["name"]) for i in by_label.doc["items"]] == [("PodGroup", g)], by_label


# ------------------------------------------------------------------------------------------------ W6

def test_w6_a_user_limited_by_rbac(plane: Plane) -> None:
    """The kubeconfig's `limited` context (pd-limited-user, allowed only namespace pd-limited): a refused list
    is Forbidden and exit 1, as kubectl answers, never "No pending"; the JSON keeps its schema."""
    ns = plane.namespace("w6")
    lay = j.layout(plane, "gpu", ns, {"a": {"z0": (2, None, None)}})
    g = plane.unique("g")
    j.group(plane, lay, g, "a", [("prefill", 1, 2), ("decode", 1, 2)])
    j.tried(plane, ns, g)
    ref = plane.kubectl("get", "workloads", "-A", "--context", "limited", check=False)
    assert ref.returncode == 1 and "forbidden" in ref.stderr.lower(), ref.stderr
    for args in (("-A",), ("-n", ns), (f"podgroup/{g}", "-n", ns)):
        said = j.pd(plane, "why-pending", *args, "--context", "limited")
        assert said.rc == 1 and "forbidden" in said.err.lower(), said
        assert "No pending" not in said.out and "nothing pending" not in said.out.lower(), said
        js = j.pd(plane, "why-pending", *args, "--context", "limited", "-o", "json")
        assert js.rc == 1, js
        if js.out.strip():
            assert j.schema_errors(js.doc) == [], (j.schema_errors(js.doc), str(js))


# ------------------------------------------------------------------------------------------------ W7

def test_w7_quota_lent_to_the_cohort_is_not_free(plane: Plane) -> None:
    """Queue a (10 cards in z0, lending at most 6) uses 8; queue b (2 cards, borrowing up to 4) runs 4, 2 of
    them a's. a's group waits: one free figure for z0 (0, as Kueue counts it) and the 2 lent, said."""
    ns = plane.namespace("w7")
    lay = j.layout(plane, "gpu", ns, {"a": {"z0": (10, None, 6)}, "b": {"z0": (2, 4, None)}})
    j.hold(plane, lay, "a-held", "a", 8)
    j.hold(plane, lay, "b-held", "b", 4)
    z0 = lay.flavor("z0")
    lent = wait_for("b's borrowing in its status", lambda: (u := j.usage(plane, lay.cq("b")).get(
        (z0, objs.GPU))) and u[1] != "0" and u[1])
    assert parse(lent) == 2
    g = plane.unique("g")
    j.group(plane, lay, g, "a", [("prefill", 1, 2), ("decode", 1, 2)])
    wl = j.tried(plane, ns, g)
    said, doc = j.why(plane, f"podgroup/{g}", ns)
    bars = [b for b in doc["quota"] if b["flavor"] == z0 and b["resource"] == objs.GPU]
    assert len(bars) == 1, doc["quota"]
    (bar,) = bars
    r = doc["reasons"][0]
    assert r["code"] == "QuotaExhausted" and r["flavor"] == z0, said
    assert parse(bar["free"]) == parse(r["available"]) == 0, (bar, r)
    assert parse(bar.get("lent") or "0") == parse(lent), (bar, lent)
    _kueue_agrees(lay, wl, dict(j.pod_set_roles(plane, ns, wl)), r, str(said))
    text = j.screen(plane, f"podgroup/{g}", ns, doc)
    frees = set(re.findall(r"\(free ([^;)\s]+)", text.out))
    assert frees == {"0"}, text  # one free figure on the screen too, and the lent amount beside it
    assert re.search(rf"\(free 0[^)]*\b{lent}\b[^)]*\blent\b", text.out), text


# ------------------------------------------------------------------------------------------------ W8

def test_w8_needs_preemption_names_the_workloads_kueue_preempts(plane: Plane) -> None:
    """A high-priority group held by its LocalQueue before a full queue of a low and a mid Workload
    (withinClusterQueue: LowerPriority): the verdict on the state Kueue meets when the hold is lifted names
    the Workload Kueue then preempts, and no other."""
    ns = plane.namespace("w8")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}},
                   preemption={"withinClusterQueue": "LowerPriority"}, queues={"later": "serve"}, hold=("later",))
    j.hold(plane, lay, "low-a", "serve", 2, "pd-low")
    j.hold(plane, lay, "mid-b", "serve", 2, "pd-mid")
    g = plane.unique("g")
    j.group(plane, lay, g, "later", [("prefill", 1, 1), ("decode", 1, 1)], priority="pd-high")
    wl = wait_for("the held group's Workload", lambda: (w := j.workload(plane, ns, g)) and condition(
        w, "QuotaReserved") and w)
    j.why(plane, f"podgroup/{g}", ns)  # held: whatever it says, it keeps the claims
    snap = j.release_hold(j.snapshot(plane, lay), "later", g)
    text = yaml.safe_dump_all(snap, sort_keys=False)
    said = j.pd(plane, "why-pending", f"podgroup/{g}", "-n", ns, "-o", "json", "-f", "-", input=text)
    assert said.rc in (0, 1), said
    doc = said.doc
    j.doc_claims(doc, str(said))
    assert doc["reasons"][0]["code"] == "NeedsPreemption", said
    targets = sorted(t["name"] for t in (doc.get("preemption") or {}).get("targets") or [])
    assert targets == ["low-a"], said
    screen = j.pd(plane, "why-pending", f"podgroup/{g}", "-n", ns, "-f", "-", input=text)
    j.screen_claims(screen, doc)
    assert "low-a" in screen.out and "nothing short of more quota" not in screen.out, screen
    # Kueue meets the same state
    plane.kubectl("patch", "localqueue", "later", "-n", ns, "--type=json",
                  "-p", '[{"op":"remove","path":"/spec/stopPolicy"}]')
    uid = wl["metadata"]["uid"]
    wait_for("Kueue's preemption", lambda: any(j.preempted_by(w, uid) for w in plane.get(
        "workloads", namespace=ns)["items"]))
    time.sleep(1)  # a second victim, if Kueue wanted one, is evicted in the same cycle
    evicted = sorted(w["metadata"]["name"] for w in plane.get("workloads", namespace=ns)["items"]
                     if j.preempted_by(w, uid))
    assert evicted == targets
    for name in evicted:
        j.finish_eviction(plane, ns, name)
    wait_for("the group admitted", lambda: is_true(j.workload(plane, ns, g) or {}, "Admitted"))
    said, doc = j.why(plane, f"podgroup/{g}", ns)
    assert said.rc == 0 and _admitted_answer(doc), said


def test_w8_no_preemption_verdict_when_kueue_cannot_preempt(plane: Plane) -> None:
    """Preempting the one lower-priority Workload frees 1 card of the 4 the group needs: Kueue preempts
    nothing, and the answer does not say it fits by preempting."""
    ns = plane.namespace("w8n")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}},
                   preemption={"withinClusterQueue": "LowerPriority"})
    j.hold(plane, lay, "low-a", "serve", 1, "pd-low")
    j.hold(plane, lay, "high-b", "serve", 3, "pd-high")
    g = plane.unique("g")
    j.group(plane, lay, g, "serve", [("prefill", 1, 2), ("decode", 1, 2)], priority="pd-high")
    wl = j.tried(plane, ns, g)
    time.sleep(1)  # nothing happens: Kueue has nothing worth preempting
    assert not [w["metadata"]["name"] for w in plane.get("workloads", namespace=ns)["items"]
                if j.preempted_by(w, wl["metadata"]["uid"])]
    said, doc = j.why(plane, f"podgroup/{g}", ns)
    assert doc["pending"] is True and "NeedsPreemption" not in [r["code"] for r in doc["reasons"]], said
    _kueue_agrees(lay, wl, dict(j.pod_set_roles(plane, ns, wl)), doc["reasons"][0], str(said))
    j.screen(plane, f"podgroup/{g}", ns, doc)


# ------------------------------------------------------------------------------------------------ W9

@pytest.mark.parametrize("kind", ["gpu", "credits"])
def test_w9_headline_table_and_reason_name_one_flavor(plane: Plane, kind: str) -> None:
    """decode asks 16 cards: z0 (10 cards) can never hold it, z1 (16 cards, 12 of them used) can once 12 more
    are free. Headline, reason, table row and summary name z1, as Kueue's `12 more needed` does."""
    ns = plane.namespace("w9")
    lay = j.layout(plane, kind, ns, {"a": {"z0": (10, None, None), "z1": (16, None, None)}})
    j.hold(plane, lay, "held", "a", 12)  # more than z0 holds: z1
    g = plane.unique("g")
    j.group(plane, lay, g, "a", [("prefill", 1, 2), ("decode", 2, 8)])
    wl = j.settled(plane, ns, g)
    role_of = dict(j.pod_set_roles(plane, ns, wl))
    decode_ps = next(ps for ps, role in role_of.items() if role == "decode")
    assert j.shortfalls(wl).get(decode_ps, {}).get(lay.flavor("z1")), j.kueue_message(wl)
    said, doc = j.why(plane, f"podgroup/{g}", ns)
    r = doc["reasons"][0]
    assert r["role"] == "decode" and r["flavor"] == lay.flavor("z1"), said
    assert r["code"] != "QuotaExceedsCapacity", said  # Kueue: it fits z1 once 12 cards are free
    _kueue_agrees(lay, wl, role_of, r, str(said))
    rows = {x["name"]: x for x in doc["roles"]}
    assert rows["decode"]["flavor"] == lay.flavor("z1"), said
    text = j.screen(plane, f"podgroup/{g}", ns, doc)
    assert lay.flavor("z0") not in text.out.splitlines()[0], text


# ------------------------------------------------------------------------------------------------ fungibility

@pytest.mark.parametrize("when_can_borrow", ["MayStopSearch", "TryNextFlavor"])
def test_flavor_fungibility_as_kueue_places_the_group(plane: Plane, when_can_borrow: str) -> None:
    """Queue a has 2 cards in z0 (b lends 4 more) and 4 in z1; a group of two 2-card roles. Kueue borrows in
    z0 (MayStopSearch) or moves on to z1 (TryNextFlavor): the answer's flavor per role and its quota bars
    (used, borrowed) are what Kueue's admission and the ClusterQueue's flavorsUsage say."""
    ns = plane.namespace("fung")
    lay = j.layout(plane, "gpu", ns, {"a": {"z0": (2, None, None), "z1": (4, None, None)},
                                      "b": {"z0": (4, None, None)}},
                   fungibility={"whenCanBorrow": when_can_borrow, "whenCanPreempt": "TryNextFlavor"})
    g = plane.unique("g")
    j.group(plane, lay, g, "a", [("prefill", 1, 2), ("decode", 1, 2)])
    wl = wait_for("the group admitted", lambda: (w := j.workload(plane, ns, g)) and is_true(w, "QuotaReserved") and w)
    role_of = dict(j.pod_set_roles(plane, ns, wl))
    kueue = {role_of[a["name"]]: a["flavors"][objs.GPU] for a in wl["status"]["admission"]["podSetAssignments"]}
    assert (kueue["decode"] == lay.flavor("z0")) and (kueue["prefill"] == lay.flavor(
        "z0" if when_can_borrow == "MayStopSearch" else "z1")), kueue
    used = wait_for("the usage in the ClusterQueue's status", lambda: (u := j.usage(plane, lay.cq("a"))) and sum(
        parse(t) for t, _ in u.values()) == 4 and u)
    said, doc = j.why(plane, f"podgroup/{g}", ns)
    assert said.rc == 0 and _admitted_answer(doc), said
    assert {r["name"]: r["flavor"] for r in doc["roles"]} == kueue, said
    for b in doc["quota"]:
        total, borrowed = used[(b["flavor"], b["resource"])]
        assert (parse(b["used"]), parse(b["borrowed"])) == (parse(total), parse(borrowed)), (b, used)
    j.screen(plane, f"podgroup/{g}", ns, doc)


# ------------------------------------------------------------------------------------------------ next: once

def test_one_piece_of_advice_once_and_figures_that_add_up(plane: Plane) -> None:
    """Both roles of a group wait on a full queue: each piece of advice is given once, in the JSON and on the
    screen (not `free 4 cards in flavor F` after `free 4 cards in flavor F (what the roles need together)`),
    and no reason says more of the free cards go to the roles before it than are free."""
    ns = plane.namespace("once")
    lay = j.layout(plane, "gpu", ns, {"a": {"z0": (4, None, None)}})
    j.hold(plane, lay, "held", "a", 4)
    g = plane.unique("g")
    j.group(plane, lay, g, "a", [("prefill", 1, 2), ("decode", 1, 2)])
    j.tried(plane, ns, g)
    said, doc = j.why(plane, f"podgroup/{g}", ns)
    text = j.read_screen(j.screen(plane, f"podgroup/{g}", ns, doc).out)
    problems = []
    for check, where in ((lambda: j.advice_once(doc["next"], str(said)), "json next"),
                         (lambda: j.advice_once([n.removeprefix("next:").strip() for n in text.nexts], str(text)),
                          "text next"),
                         (lambda: [j.free_of_them(r["message"], str(said)) for r in doc["reasons"]], "reasons")):
        try:
            check()
        except AssertionError as e:
            problems.append(f"{where}: {str(e).splitlines()[0]}")
    assert not problems, "\n".join(problems) + "\n" + str(text)


# ------------------------------------------------------------------------------------------------ W10

def test_w10_advice_fits_the_command(tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "missing"), "NO_COLOR": "1"}
    made = run_kubectl(["pd", *_create("x", "default", "main")], env=env)
    assert made.returncode == 1 and made.stdout == "", made.stderr
    assert made.stderr.startswith("error: ") and len(made.stderr.strip().splitlines()) == 1, made.stderr
    assert "--from-file" not in made.stderr and "/-f" not in made.stderr, made.stderr
    why = run_kubectl(["pd", "why-pending", "x", "-n", "default"], env=env)
    assert why.returncode == 1 and why.stderr.startswith("error: "), why.stderr


# ------------------------------------------------------------------------------------------------ quota raised

def test_a_quota_raised_while_groups_wait(plane: Plane) -> None:
    """Two groups of 4 cards wait on a queue of 4 with 2 used; the quota raised to 8 admits one of them; each
    answer follows Kueue: the first short by what Kueue says; the admitted one not pending; the other short by what
    Kueue says once it has tried it again."""
    ns = plane.namespace("raise")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}})
    j.hold(plane, lay, "held", "serve", 2)
    first, second = plane.unique("g1"), plane.unique("g2")
    j.group(plane, lay, first, "serve", [("prefill", 1, 2), ("decode", 1, 2)])
    wl = j.tried(plane, ns, first)
    said, doc = j.why(plane, f"podgroup/{first}", ns)
    assert doc["pending"] and doc["reasons"][0]["code"] == "QuotaExhausted", said
    _kueue_agrees(lay, wl, dict(j.pod_set_roles(plane, ns, wl)), doc["reasons"][0], str(said))
    # Kueue does not try the second while the queue stays as it is (its Workload has no status): the answer
    # keeps the claims all the same
    j.group(plane, lay, second, "serve", [("prefill", 1, 2), ("decode", 1, 2)])
    wait_for("the second group's Workload", lambda: j.workload(plane, ns, second))
    said, doc = j.why(plane, f"podgroup/{second}", ns)
    assert doc["pending"], said
    cq = plane.get("clusterqueue", lay.cq("serve"))
    cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = lay.amount(8)
    plane.kubectl("patch", "clusterqueue", lay.cq("serve"), "--type=merge",
                  "-p", json.dumps({"spec": {"resourceGroups": cq["spec"]["resourceGroups"]}}))
    # Kueue admits one of the two (the first, unless the second was in its hands when the quota changed: a race
    # CI's loaded tier met once); the answers follow whichever it admitted
    admitted = wait_for("one group admitted", lambda: next(
        (g for g in (first, second) if is_true(j.workload(plane, ns, g) or {}, "Admitted")), None), timeout=120)
    waiting = second if admitted == first else first
    said, doc = j.why(plane, f"podgroup/{admitted}", ns)
    assert said.rc == 0 and _admitted_answer(doc), said
    wl = wait_for("Kueue's new verdict on the other", lambda: (w := j.workload(plane, ns, waiting)) and j.shortfalls(
        w) and not is_true(w, "QuotaReserved") and w)
    said, doc = j.why(plane, f"podgroup/{waiting}", ns)
    assert doc["pending"] and doc["reasons"][0]["code"] == "QuotaExhausted", said
    _kueue_agrees(lay, wl, dict(j.pod_set_roles(plane, ns, wl)), doc["reasons"][0], str(said))
    listed = j.pd(plane, "why-pending", "-n", ns, "-o", "json")
    assert listed.rc == 0, listed
    j.doc_claims(listed.doc, str(listed))
    # the waiting one is listed with Kueue's verdict; the admitted one only if its Pods meet something after admission
    items = {i["target"]["name"]: i for i in listed.doc["items"]}
    assert waiting in items and items[waiting]["reasons"][0]["code"] == "QuotaExhausted", listed
    assert set(items) <= {first, second} and (admitted not in items or _admitted_answer(items[admitted])), listed


# ------------------------------------------------------------------------------------------------ ModelDeployment

def test_a_modeldeployment_with_the_operator_standin(plane: Plane) -> None:
    """`create NAME --instance-type IT` writes a ModelDeployment; the operator's stand-in renders a pod group
    per replica and answers the joint check. Of 3 one-card replicas on 2 free cards one waits: `why-pending
    NAME` finds the deployment, and its shortfall is what Kueue says of the replica that waits."""
    standin.install(plane)
    ns = plane.namespace("md")
    lay = j.layout(plane, "credits", ns, {"serve": {"z0": (4, None, None)}}, checks=[standin.JOINT])
    it = lay.cq("serve")  # GPUStack names an InstanceType and its ClusterQueue alike
    plane.apply(standin.instance_type(it, "serve"))
    j.hold(plane, lay, "held", "serve", 2)
    name = plane.unique("qwen")
    made = j.pd(plane, "create", name, "-n", ns, "--model", "m", "--engine-version", "1", "--instance-type", it,
                "--role", "name=prefill,kind=prefill,replicas=1,image=e:1",
                "--role", "name=decode,kind=decode,replicas=2,image=e:1")
    assert made.rc == 0, made
    groups = standin.render(plane, plane.get("modeldeployment", name, ns))
    standin.composed(plane, ns, groups)
    wls = wait_for("two replicas reserved, one judged", lambda: (w := standin.answer(plane, ns, groups)) and sum(
        is_true(x, "QuotaReserved") for x in w.values()) == 2 and all(
        is_true(x, "QuotaReserved") or j.shortfalls(x) for x in w.values()) and w)
    waiting = [w for w in wls.values() if not is_true(w, "QuotaReserved")]
    assert len(waiting) == 1
    said, doc = j.why(plane, name, ns)
    assert said.rc == 0 and doc["target"]["kind"] == "ModelDeployment" and doc["pending"] is True, said
    blocked = [r for r in doc["reasons"] if r.get("needed") is not None]
    assert blocked, said
    _kueue_agrees(lay, waiting[0], dict(j.pod_set_roles(plane, ns, waiting[0])), blocked[0], str(said))
    j.screen(plane, name, ns, doc)


AFTER_ADMISSION = {"PodsUnschedulable", "PodsGated", "WaitingForPodsReady", "PodsUnscheduledTimeout"}


def _admitted_answer(doc: dict) -> bool:
    """Kueue admitted the group: the answer is "not pending", or pending only on what its Pods meet after
    admission (on the tier's shared plane the kwok nodes may be full of earlier tests' Pods): no quota verdict."""
    return doc["pending"] is False or {r["code"] for r in doc["reasons"]} <= AFTER_ADMISSION
