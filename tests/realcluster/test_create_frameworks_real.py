"""`create --target lws` and `--target disaggregatedset` on the frameworks' plane (`scripts/real-cluster up --lws`,
issue 47 item 4): the preflight's verdict against what Kueue, LWS and the DisaggregatedSet controller really do
with what create writes. The preflight says how many Workloads each role makes (one per LWS group) and which roles
fit now and which wait; Kueue's Workloads (found by `kueue.x-k8s.io/job-uid` = each role's LWS) must be those,
admitted or pending as said. The manifests are also sent to the real API server with strict field validation
(an unknown field is an error there, not silently pruned)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.realcluster import frameworks as fw
from tests.realcluster import journey as jr
from tests.realcluster.plane import Plane, wait_for

pytestmark = pytest.mark.cluster
_MADE: list[tuple[Plane, str]] = []
LWS_RESOURCE = "leaderworkersets.leaderworkerset.x-k8s.io"


@pytest.fixture(autouse=True)
def _room_on_the_nodes() -> Iterator[None]:
    yield
    while _MADE:
        fw.cleanup(*_MADE.pop())


def _layout(plane: Plane, cards: int) -> str:
    """A namespace of the test's own and a LocalQueue `q` on a ClusterQueue of CARDS nvidia.com/gpu."""
    ns = plane.namespace("cfw")
    _MADE.append((plane, ns))
    jr.layout(plane, "gpu", ns, {"q": {"z0": (cards, None, None)}})
    return ns


def _create(plane: Plane, ns: str, name: str, target: str, roles: list[str], *extra: str) -> Any:
    args = ["create", name, "--model", "m", "-n", ns, "--target", target, "--local-queue", "q",
            "--resource", fw.GPU]
    for r in roles:
        args += ["--role", f"{r},image={fw.IMAGE}"]
    return plane.pd(*args, *extra)


def _preflight(plane: Plane, ns: str, name: str, target: str, roles: list[str]) -> dict[str, Any]:
    got = _create(plane, ns, name, target, roles, "--preflight", "-o", "json")
    assert got.returncode in (0, 1), got.stderr
    return dict(json.loads(got.stdout))


def _strictly_valid(plane: Plane, manifest: dict[str, Any]) -> None:
    """The API server's strict field validation (the CRD's schema, from the module LWS was built from): no field of
    the manifest is unknown to it."""
    got = plane.kubectl("create", "--dry-run=server", "--validate=strict", "-f", "-",
                        input=yaml.safe_dump(manifest), check=False)
    assert got.returncode == 0, got.stderr


def _apart(doc: dict[str, Any]) -> dict[str, Any]:
    (f,) = [f for f in doc["findings"] if f["check"] == "admitted-apart"]
    return dict(f["params"])


def _settled(plane: Plane, ns: str, lws_by_role: dict[str, str], counts: dict[str, int]) -> dict[str, list[Any]]:
    """Each role's Workloads (by its LWS's UID), each tried by Kueue and unchanged a moment: role -> facts."""
    out = {}
    for role, name in lws_by_role.items():
        uid = fw.uid(plane, LWS_RESOURCE, name, ns)
        out[role] = [fw.WorkloadFact.of(w) for w in fw.settle(plane, ns, uid, counts[role])]
    return out


def _held_to(verdict: dict[str, Any], facts: dict[str, list[Any]]) -> None:
    """Kueue did what the preflight said: every Workload of a role that fits admitted, none of one that waits."""
    for role in verdict["fits"]:
        assert all(f.admitted for f in facts[role]), (role, facts[role])
    for role in verdict["waits"]:
        assert not any(f.admitted for f in facts[role]), (role, facts[role])
        assert all(f.reason == "Pending" and f.message for f in facts[role]), (role, facts[role])
    assert verdict["unknown"] == []


def test_create_lws_then_a_disaggregated_set_as_the_preflight_said(lws_plane: Plane) -> None:
    plane = lws_plane
    ns = _layout(plane, 10)
    # 1. an LWS per role: prefill 1 group of 1 Pod x 2 cards, decode 2 groups of 2 Pods x 1 card; 6 of 10 cards
    roles = ["name=prefill,kind=prefill,replicas=1,accelerator=2", "name=decode,kind=decode,replicas=2,size=2,"
             "accelerator=1"]
    doc = _preflight(plane, ns, "serve", "lws", roles)
    assert doc["wouldCreate"] and doc["target"]["kind"] == "LeaderWorkerSet", doc["findings"]
    said = _apart(doc)
    assert (said["workloads"], said["fits"], said["waits"], said["partly"]) == (
        {"prefill": 1, "decode": 2}, ["prefill", "decode"], [], False)
    items = doc["manifest"]["items"]
    for obj in items:
        _strictly_valid(plane, obj)
    plane.apply(*items, server_side=False)  # the preflight's manifest, as a user applies create's output
    by_role = {o["metadata"]["labels"]["app.kubernetes.io/component"]: o["metadata"]["name"] for o in items}
    facts = _settled(plane, ns, by_role, said["workloads"])
    assert {r: len(fs) for r, fs in facts.items()} == said["workloads"]  # one Workload per LWS group
    assert [f.pod_sets for f in facts["prefill"]] == [[("main", 1)]]
    assert [f.pod_sets for f in facts["decode"]] == [[("leader", 1), ("worker", 1)]] * 2
    assert all(f.owner.startswith("LeaderWorkerSet/serve-") for fs in facts.values() for f in fs)
    _held_to(said, facts)

    if fw.lws_line(plane) < (0, 9):  # LWS v0.8 (Kueue 0.18's) has no DisaggregatedSet: create says so, one line
        got = _create(plane, ns, "pd", "disaggregatedset", roles)
        assert got.returncode == 1 and got.stderr.count("\n") == 1
        assert got.stderr.startswith("error: the DisaggregatedSet CRD is not installed"), got.stderr
        return
    # 2. a DisaggregatedSet beside it, 4 cards left: prefill's group (2 cards) fits in either order, decode's group
    # of 2 Pods x 3 cards (6) waits; together (8) they fit the queue's 10, so it waits rather than never fits
    ds_roles = ["name=prefill,kind=prefill,replicas=1,accelerator=2", "name=decode,kind=decode,replicas=1,size=2,"
                "accelerator=3"]
    doc = _preflight(plane, ns, "pd", "disaggregatedset", ds_roles)
    assert doc["wouldCreate"] and doc["target"]["kind"] == "DisaggregatedSet", doc["findings"]
    said = _apart(doc)
    assert (said["workloads"], said["fits"], said["waits"], said["partly"]) == (
        {"prefill": 1, "decode": 1}, ["prefill"], ["decode"], True)
    assert said["held"] == [{"role": "prefill", "resource": fw.GPU, "quantity": "2"}]
    assert [(f["check"], f["params"].get("role"), f["params"].get("code")) for f in doc["findings"]
            if f["check"] != "admitted-apart"] == [("waits-for-quota", "decode", "QuotaExhausted")]
    _strictly_valid(plane, doc["manifest"])
    # create's own write, following admission: decode never is, so --wait times out with why-pending's diagnosis
    wrote = _create(plane, ns, "pd", "disaggregatedset", ds_roles, "--wait=40s")
    assert wrote.returncode == 1, wrote.stderr
    assert wrote.stdout.splitlines()[0] == "disaggregatedset.disaggregatedset.x-k8s.io/pd created"
    assert wrote.stderr.splitlines()[-1] == "error: timed out after 40s waiting for pd to be admitted"
    last = {w[0]: w[1:5] for w in (line.split() for line in wrote.stderr.splitlines())
            if w and w[0] in ("prefill", "decode")}  # each role's last progress line
    assert last == {"prefill": ["pods", "1/1", "admitted", "1/1"], "decode": ["pods", "2/2", "admitted", "0/2"]}, \
        wrote.stderr
    sets = fw.wait_lws_of_set(plane, ns, "pd", 2)
    for x in sets:  # the queue label, put on each role's metadata, reached the role's LWS
        assert x["metadata"]["labels"].get(fw.QUEUE_LABEL) == "q"
    by_role = {x["metadata"]["labels"][fw.DS_ROLE]: x["metadata"]["name"] for x in sets}
    facts = _settled(plane, ns, by_role, said["workloads"])
    assert {r: len(fs) for r, fs in facts.items()} == said["workloads"]
    _held_to(said, facts)
    # nothing names the set itself: prefill holds its 2 cards while decode waits
    assert fw.workloads_of(plane, ns, fw.uid(plane, "disaggregatedsets.disaggregatedset.x-k8s.io", "pd", ns)) == []
    wait_for("prefill's Pod admitted and decode's gated", lambda: (
        (ps := fw.pods(plane, ns, f"{fw.DS_NAME}=pd")) and len(ps) == 3
        and {p["metadata"]["labels"][fw.DS_ROLE]: fw.gated(p) for p in ps} == {"prefill": False, "decode": True}),
        timeout=60)
