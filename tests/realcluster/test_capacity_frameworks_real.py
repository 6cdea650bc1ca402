"""`kubectl pd capacity lws/ ds/ deploy/` on the frameworks' plane (`up --lws`, issue 47): one more group of the
deployment, modeled on the Workloads Kueue built, held against Kueue's own ClusterQueue (its nominal quota less the
usage Kueue reports) and against Kueue's Workloads (their pod sets); and the list with no TARGET, where a waiting
role's group is a row of its DisaggregatedSet. In the tier (`pytest -m cluster`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd.kueue.quantity import parse
from tests.realcluster import frameworks as fw
from tests.realcluster import journey as jr
from tests.realcluster.plane import Plane

pytestmark = pytest.mark.cluster

LWS = "leaderworkersets.leaderworkerset.x-k8s.io"


def _free(plane: Plane, lay: jr.Layout, nominal: int) -> Fraction:
    """What Kueue's ClusterQueue leaves free of the layout's resource: nominal less its flavorsUsage."""
    used = sum((parse(t) for (_f, res), (t, _b) in jr.usage(plane, lay.cq("q")).items() if res == lay.resource),
               Fraction(0))
    return Fraction(nominal) - used


def _capacity(plane: Plane, target: str, ns: str) -> dict[str, Any]:
    said = jr.pd(plane, "capacity", target, "-n", ns, "-o", "json")
    assert said.rc == 0, said
    doc: dict[str, Any] = said.doc
    return doc


def _group_gpus(wl: dict[str, Any]) -> int:
    """What one of Kueue's Workloads asks of the GPU resource: its pod sets' counts x their Pods' requests."""
    total = 0
    for ps in wl["spec"]["podSets"]:
        for c in ps["template"]["spec"]["containers"]:
            total += ps["count"] * int((c.get("resources") or {}).get("requests", {}).get(fw.GPU, 0))
    return total


def test_a_half_admitted_disaggregated_set(lws_plane: Plane) -> None:
    plane = lws_plane
    if fw.lws_line(plane) < (0, 9):
        pytest.fail("DisaggregatedSet needs LWS v0.9 (Kueue 0.19's)")
    ns = plane.namespace("fwc")
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (5, None, None)}}, hold=("q",))
    ds = fw.disaggregated_set(ns, "pd", "q", [fw.Role("prefill", gpus=2), fw.Role("decode", size=2, gpus=2)])
    for r in ds["spec"]["roles"]:
        r["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "pd-high" if r["name"] == "prefill" else "pd-low"
    plane.apply(ds)
    roles = {x["metadata"]["labels"][fw.DS_ROLE]: x["metadata"]["uid"] for x in fw.wait_lws_of_set(plane, ns, "pd", 2)}
    for u in roles.values():
        fw.wait_workloads(plane, ns, u, 1)
    plane.kubectl("patch", "localqueue", "q", "-n", ns, "--type=json",
                  "-p", '[{"op":"remove","path":"/spec/stopPolicy"}]')
    wls = {role: fw.settle(plane, ns, u, 1)[0] for role, u in roles.items()}
    assert fw.admitted(wls["prefill"]) and not fw.admitted(wls["decode"])
    free = _free(plane, lay, 5)
    asks = {role: _group_gpus(w) for role, w in wls.items()}  # Kueue's pod sets: prefill 2, decode 2 x 2
    doc = _capacity(plane, "ds/pd", ns)
    assert doc["target"]["kind"] == "DisaggregatedSet"
    assert {w["role"]: w["workload"] for w in doc["target"]["workloads"]} == {
        role: w["metadata"]["name"] for role, w in wls.items()}
    assert doc["now"] == free // sum(asks.values())
    assert {r["role"]: r["now"] for r in doc["perRole"]} == {role: free // a for role, a in asks.items()}
    assert {r["clusterQueue"] for r in doc["roles"]} == {lay.cq("q")}
    assert doc["next"]["code"] == "QuotaExhausted" and doc["next"]["clusterQueue"] == lay.cq("q")
    assert parse(doc["next"]["available"]) == free
    # the list with no TARGET: decode's waiting group is a row of the set, its role and group named
    listed = jr.pd(plane, "why-pending", "-n", ns, "-o", "json")
    assert listed.rc == 0, listed
    assert [(i["target"]["kind"], i["target"]["name"], [(w["name"], w["role"], w["group"]) for w in i["workloads"]])
            for i in listed.doc["items"]] == [("DisaggregatedSet", "pd", [(wls["decode"]["metadata"]["name"], "decode",
                                                                          "0")])]
    table = jr.pd(plane, "why-pending", "-n", ns)
    assert [ln.split()[1:3] for ln in table.out.splitlines()[1:]] == [["disaggregatedset/pd", "decode[0]"]], table
    fw.cleanup(plane, ns)


def test_an_lws_and_a_deployment(lws_plane: Plane) -> None:
    """An LWS of 2 groups of 2 Pods of 1 card and a Deployment of 2 Pods of 1 card on one queue of 10: Kueue admits
    all (6 used); 4 free hold 2 more LWS groups and 4 more Deployment replicas."""
    plane = lws_plane
    ns = plane.namespace("fwc")
    lay = jr.layout(plane, "gpu", ns, {"q": {"z0": (10, None, None)}})
    plane.apply(fw.lws(ns, "serve", "q", replicas=2, size=2, gpus=1),
                fw.deployment(ns, "decode", "q", replicas=2, gpus=1, role="decode"))
    uid = fw.uid(plane, LWS, "serve", ns)
    groups = fw.settle(plane, ns, uid, 2)
    pods = fw.wait_pods(plane, ns, "app=decode", 2)
    for p in pods:
        fw.settle(plane, ns, p["metadata"]["uid"], 1)
    assert all(fw.admitted(w) for w in groups)
    free = _free(plane, lay, 10)
    lws_doc = _capacity(plane, "lws/serve", ns)
    assert (lws_doc["target"]["kind"], lws_doc["now"]) == ("LeaderWorkerSet", free // _group_gpus(groups[0]))
    assert [(r["replicas"], r["size"], r["accelerator"]) for r in lws_doc["roles"]] == [(2, 2, 1)]
    dep_doc = _capacity(plane, "deploy/decode", ns)
    assert (dep_doc["target"]["kind"], dep_doc["now"]) == ("Deployment", free)
    assert [(r["name"], r["replicas"], r["size"]) for r in dep_doc["roles"]] == [("decode", 2, 1)]
    fw.cleanup(plane, ns)
