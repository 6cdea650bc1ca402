"""`kubectl pd capacity` and `kubectl pd queues` against the real Kueue: ask capacity for a shape, create exactly
that many copies one by one (`create --target pods`: the seed design's pod group), each admitted, and one more that
is not; `queues` equals the ClusterQueues' status as `kubectl get clusterqueues -o json` shows it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubectl_pd.kueue.quantity import parse
from tests.realcluster import objs
from tests.realcluster.createcase import CARD, CREDITS, wait_scheduler_refuses
from tests.realcluster.plane import Plane, PlaneError, condition, is_true, wait_for

pytestmark = pytest.mark.cluster

ROLES = ("--role", "name=prefill,kind=prefill,replicas={p},image=e:1",
         "--role", "name=decode,kind=decode,replicas={d},image=e:1")


def _roles(p: int, d: int) -> list[str]:
    return [x.format(p=p, d=d) for x in ROLES]


def _held(plane: Plane, ns: str, name: str, cards: int) -> None:
    plane.apply(objs.workload(ns, name, "main", [("main", 1, {CREDITS: str(cards * CARD)})]))
    wait_for(f"{name} admitted", lambda: is_true(plane.get("workload", name, ns), "QuotaReserved"))


def _setup(plane: Plane, kind: str) -> tuple[str, str, list[str]]:
    """A queue setup: (namespace, its ClusterQueue, every ClusterQueue it made)."""
    ns = plane.namespace(f"cap-{kind}")
    cq, peer, cohort = plane.unique("cap-cq"), plane.unique("cap-peer"), plane.unique("cap-cohort")
    a, b = plane.unique("cap-a"), plane.unique("cap-b")
    plane.apply(objs.flavor(a), objs.flavor(b))
    made = [cq]
    if kind == "one-flavor":  # 7 cards, 1 held: 2 copies of 1+2
        plane.apply(objs.cluster_queue(cq, [(a, [objs.quota(CREDITS, str(7 * CARD))])], covered=[CREDITS]))
    elif kind == "two-flavors":  # 4 + 3 cards: the second copy split over both flavors
        plane.apply(objs.cluster_queue(cq, [(a, [objs.quota(CREDITS, str(4 * CARD))]),
                                            (b, [objs.quota(CREDITS, str(3 * CARD))])], covered=[CREDITS]))
    else:  # a cohort: 4 cards and a borrowing limit of 3, a peer of 5 cards lending them
        plane.apply(objs.cluster_queue(cq, [(a, [objs.quota(CREDITS, str(4 * CARD), borrowing=str(3 * CARD))])],
                                       covered=[CREDITS], cohort=cohort),
                    objs.cluster_queue(peer, [(a, [objs.quota(CREDITS, str(5 * CARD))])], covered=[CREDITS],
                                       cohort=cohort))
        made.append(peer)
    plane.apply(objs.local_queue(ns, "main", cq))
    wait_for("the LocalQueue active", lambda: is_true(plane.get("localqueue", "main", ns), "Active"))
    if kind == "one-flavor":
        _held(plane, ns, "held", 1)
    return ns, cq, made


def _capacity(plane: Plane, ns: str, p: int, d: int) -> dict[str, Any]:
    got = plane.pd("capacity", "-n", ns, "--target", "pods", "--local-queue", "main", *_roles(p, d), "-o", "json")
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout)  # type: ignore[no-any-return]


def _create(plane: Plane, ns: str, name: str, p: int, d: int) -> dict[str, Any]:
    made = plane.pd("create", name, "--model", "m", "--engine-version", "1", "-n", ns, "--target", "pods",
                    "--local-queue", "main", "--force", *_roles(p, d))
    assert made.returncode == 0, made.stderr
    return wait_for(f"{name} tried", lambda: (w := _workload(plane, ns, name)) is not None and condition(
        w, "QuotaReserved") is not None and w)  # type: ignore[no-any-return]


def _workload(plane: Plane, ns: str, name: str) -> dict[str, Any] | None:
    return next((w for w in plane.get("workloads", namespace=ns)["items"] if w["metadata"]["name"] == name), None)


# (setup, prefill, decode, the count the arithmetic gives, how many of them borrow)
SETUPS = [("one-flavor", 1, 2, 2, 0), ("two-flavors", 1, 2, 2, 0), ("cohort", 1, 2, 2, 1)]


@pytest.mark.parametrize("kind, p, d, want, borrowing", SETUPS, ids=[s[0] for s in SETUPS])
def test_create_exactly_now_copies(plane: Plane, kind: str, p: int, d: int, want: int, borrowing: int) -> None:
    ns, cq, made = _setup(plane, kind)
    doc = _capacity(plane, ns, p, d)
    assert (doc["now"], doc["byBorrowing"]) == (want, borrowing), doc
    for i in range(doc["now"]):
        wl = _create(plane, ns, f"copy{i}", p, d)
        assert is_true(wl, "QuotaReserved"), f"copy {i + 1} of {doc['now']}: {condition(wl, 'QuotaReserved')}"
    extra = _create(plane, ns, "one-more", p, d)
    assert not is_true(extra, "QuotaReserved"), "one more copy than capacity said was admitted"
    # the ClusterQueue's status counts the copies a little after their admission (slower on a loaded machine):
    # asked once it does, as a user's `kubectl get` would see it then
    held = 1 if kind == "one-flavor" else 0
    wait_for("the ClusterQueue's status current", lambda: (plane.get("clusterqueue", cq).get("status") or {}).get(
        "reservingWorkloads", 0) == doc["now"] + held, timeout=30)
    assert _capacity(plane, ns, p, d)["now"] == 0
    _queues_equal_status(plane, made)


def _totals(status: dict[str, Any], key: str) -> dict[tuple[str, str], Any]:
    return {(f["name"], r["name"]): parse(r["total"]) for f in status.get(key) or [] for r in f["resources"]}


def _queues_equal_status(plane: Plane, names: list[str]) -> None:
    """`queues -o json` against `kubectl get clusterqueues -o json`: the two reads are apart in time, so they are
    compared until Kueue's status is still between them (it writes the counts a little after each change)."""
    last: list[Any] = []

    def equal() -> bool:
        got = plane.pd("queues", "-o", "json")
        assert got.returncode == 0, got.stderr
        ours = {q["name"]: q for q in json.loads(got.stdout)["clusterQueues"]}
        theirs = {c["metadata"]["name"]: c for c in plane.get("clusterqueues")["items"]}
        last[:] = [(ours.get(n), (theirs.get(n) or {}).get("status")) for n in names]
        return all(_same(ours[n], theirs[n].get("status") or {}) for n in names)

    try:
        wait_for("queues to equal the ClusterQueues' status", equal, timeout=20, every=0.5)
    except PlaneError:
        raise AssertionError(f"queues and the ClusterQueues' status differ: {last}") from None


def _same(q: dict[str, Any], status: dict[str, Any]) -> bool:
    used, reserved = _totals(status, "flavorsUsage"), _totals(status, "flavorsReservation")
    for f in q["flavors"]:
        key = (f["flavor"], f["resource"])
        if parse(f["used"]) != used.get(key, 0) or parse(f["used"]) + parse(f["reserved"]) != reserved.get(key, 0):
            return False
    return (q["pendingWorkloads"], q["admittedWorkloads"], q["reservingWorkloads"]) == (
        status.get("pendingWorkloads"), status.get("admittedWorkloads"), status.get("reservingWorkloads"))


def test_the_copy_past_now_preempts_exactly_the_named(plane: Plane) -> None:
    """6 cards, withinClusterQueue LowerPriority, two Workloads of priority -10 holding 2 cards each: no copy of
    1+2 fits now (2 free); the next preempts one of them, the one capacity names, and is then admitted."""
    from tests.realcluster.differential import _finish_eviction, _preempted

    ns = plane.namespace("cap-preempt")
    cq, a = plane.unique("cap-cq"), plane.unique("cap-a")
    plane.apply(objs.priority_class("cap-neg", -10), objs.flavor(a),
                objs.cluster_queue(cq, [(a, [objs.quota(CREDITS, str(6 * CARD))])], covered=[CREDITS],
                                   preemption={"withinClusterQueue": "LowerPriority"}),
                objs.local_queue(ns, "main", cq))
    wait_for("the LocalQueue active", lambda: is_true(plane.get("localqueue", "main", ns), "Active"))
    for name in ("low-a", "low-b"):
        plane.apply(objs.workload(ns, name, "main", [("main", 1, {CREDITS: str(2 * CARD)})],
                                  priority=("cap-neg", -10)))
        wait_for(f"{name} admitted", lambda name=name: is_true(plane.get("workload", name, ns), "QuotaReserved"))
    wait_for("the ClusterQueue's status current", lambda: (plane.get("clusterqueue", cq).get("status") or {}).get(
        "reservingWorkloads", 0) == 2)
    doc = _capacity(plane, ns, 1, 2)
    assert doc["now"] == 0 and doc["byPreemption"]["count"] >= 1, doc
    named = sorted(t["name"] for t in doc["byPreemption"]["copies"][0]["targets"])
    made = plane.pd("create", "copy0", "--model", "m", "--engine-version", "1", "-n", ns, "--target", "pods",
                    "--local-queue", "main", *_roles(1, 2))
    assert made.returncode == 0, made.stderr
    evicted: list[str] = []

    def settled() -> bool:
        for w in plane.get("workloads", namespace=ns)["items"]:
            name = w["metadata"]["name"]
            copy = _workload(plane, ns, "copy0")
            by = copy["metadata"]["uid"] if copy else None
            if name.startswith("low-") and by and _preempted(w, by) and name not in evicted:
                evicted.append(name)
                _finish_eviction(plane, ns, name, deactivate=True)
        return is_true(_workload(plane, ns, "copy0") or {}, "QuotaReserved")

    wait_for("copy0 admitted by preemption", settled, timeout=60)
    assert sorted(evicted) == named
    _queues_equal_status(plane, [cq])


def _kwok_credits(plane: Plane) -> tuple[list[str], Any]:
    """The kwok Nodes and the largest credits allocatable among them."""
    nodes = [n for n in plane.get("nodes")["items"] if (n["metadata"].get("labels") or {}).get("type") == "kwok"]
    return [n["metadata"]["name"] for n in nodes], max(parse(n["status"]["allocatable"][CREDITS]) for n in nodes)


def _big(cards: int) -> list[str]:
    return ["--role", f"name=prefill,kind=prefill,replicas=1,accelerator={cards},image=e:1",
            "--role", "name=decode,kind=decode,replicas=1,image=e:1"]


def test_a_pod_no_node_holds_is_never_and_never_runs(plane: Plane) -> None:
    """The flavor's Nodes (kwok's, by its nodeLabels) allocate at most N cards: a prefill Pod of N+1 cards on a queue
    of 3N cards is 'never' with the largest Node's allocatable, not 'fits 2 more'. The truth: Kueue admits the copy
    (quota holds it) and kube-scheduler never places that Pod. A Pod of N cards on the same queue fits."""
    ns = plane.namespace("cap-node")
    cq, a = plane.unique("cap-cq"), plane.unique("cap-node")
    names, largest = _kwok_credits(plane)
    n = int(largest // CARD)
    plane.apply(objs.flavor(a, {"type": "kwok"}),
                objs.cluster_queue(cq, [(a, [objs.quota(CREDITS, str(3 * n * CARD))])], covered=[CREDITS]),
                objs.local_queue(ns, "main", cq))
    wait_for("the LocalQueue active", lambda: is_true(plane.get("localqueue", "main", ns), "Active"))
    ask = ("capacity", "-n", ns, "--target", "pods", "--local-queue", "main", "-o", "json")
    fits = plane.pd(*ask, *_big(n))
    assert fits.returncode == 0, fits.stderr
    ok = json.loads(fits.stdout)
    assert (ok["now"], ok["next"]["code"], ok["nodes"]) == (2, "QuotaExhausted", [{"flavor": a, "nodes": len(names)}])
    got = plane.pd(*ask, *_big(n + 1))
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    nxt = doc["next"]
    assert (doc["now"], nxt["code"], nxt["never"], nxt["role"], nxt["flavor"]) == (0, "PodsUnschedulable", True,
                                                                                  "prefill", a), doc
    assert nxt["node"] in names and parse(nxt["capacity"]) == largest and parse(nxt["requested"]) == (n + 1) * CARD
    made = plane.pd("create", "big", "--model", "m", "--engine-version", "1", "-n", ns, "--target", "pods",
                    "--local-queue", "main", "--force", *_big(n + 1))
    assert made.returncode == 0, made.stderr
    wait_for("Kueue admits the copy (its quota holds it)", lambda: (w := _workload(plane, ns, "big")) is not None
             and is_true(w, "QuotaReserved"))
    wait_scheduler_refuses(plane, ns, (n + 1) * CARD)


def test_nodes_forbidden_make_the_node_part_unknown(plane: Plane) -> None:
    """A user who may read Kueue's objects but not Nodes: the answer says the node part is unknown and exits as
    kubectl's Forbidden does (1), never 'fits' as if no Node mattered."""
    ns = plane.namespace("cap-rbac")
    cq, a, user = plane.unique("cap-cq"), plane.unique("cap-a"), plane.unique("cap-reader")
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": user},
            "rules": [{"apiGroups": ["kueue.x-k8s.io", "worker.gpustack.ai", "apiextensions.k8s.io"],
                       "resources": ["*"], "verbs": ["get", "list", "watch"]},
                      {"apiGroups": [""], "resources": ["namespaces", "pods", "configmaps", "limitranges", "events"],
                       "verbs": ["get", "list", "watch"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": user},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]}
    plane.apply(role, binding, objs.flavor(a),
                objs.cluster_queue(cq, [(a, [objs.quota(CREDITS, str(9 * CARD))])], covered=[CREDITS]),
                objs.local_queue(ns, "main", cq))
    wait_for("the LocalQueue active", lambda: is_true(plane.get("localqueue", "main", ns), "Active"))
    theirs = plane.kubectl("get", "nodes", "--as", user, check=False)
    got = plane.pd("capacity", "-n", ns, "--target", "pods", "--local-queue", "main", *_roles(1, 2), "-o", "json",
                   "--as", user)
    assert theirs.returncode == got.returncode == 1, (theirs.stderr, got.stderr)
    doc = json.loads(got.stdout)
    assert doc["nodes"] is None and [i["read"] for i in doc["incomplete"]] == ["Nodes"], doc
    assert doc["now"] == 3  # the quota's part is still said, next to the unknown
    assert got.stderr.startswith("error: ") and got.stderr.count("\n") == 1
