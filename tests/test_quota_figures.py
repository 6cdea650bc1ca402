"""One set of quota figures (issue 46, findings 4 and 5): why-pending's bars and queues' rows are the same record
(kueue/figures over kueue/verdicts.lending) on every fixture and on generated layouts; a queue's `lent` is Kueue's
arithmetic bounded by its lendingLimit; what is borrowed adds up with what is lent and the cohorts' own quota,
which queues shows. Asserted on figures."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.create import pods as pd
from kubectl_pd.create.flags import CreateRequest, check_request, parse_role
from kubectl_pd.gpustack import names
from kubectl_pd.kueue import figures as fg
from kubectl_pd.kueue.model import Snapshot
from tests.builders import cluster_queue, cohort, resource_flavor

GPU = "nvidia.com/gpu"
NS = "team-a"
FIXTURES = Path(__file__).parent / "fixtures"
KEYS = ("nominal", "used", "reserved", "borrowed", "lent", "free", "cohortFree", "borrowable", "borrowingLimit")


def _bars_against_rows(cli: Callable, path: str, target: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(queue, flavor, what differs) for every why-pending bar whose queues row says otherwise."""
    wp = cli(["why-pending", target, "-n", NS, "-f", path, "-o", "json"])
    q = cli(["queues", "-f", path, "-o", "json"])
    assert q.exit_code == 0, q.stderr
    doc, rows = json.loads(wp.stdout), json.loads(q.stdout)
    by_key = {(c["name"], r["flavor"], r["resource"]): r for c in rows["clusterQueues"] for r in c["flavors"]}
    cq = (doc.get("queue") or {}).get("clusterQueue")
    out = []
    for b in doc.get("quota") or []:
        r = by_key.get((cq, b["flavor"], b["resource"]))
        if r is None:
            out.append((cq, b["flavor"], {"row": None}))
            continue
        diff = {k: (b[k], r[k]) for k in KEYS if b.get(k) != r.get(k)}
        if diff:
            out.append((cq, b["flavor"], diff))
    return out


FILES = sorted(str(p) for p in (FIXTURES / "pending").glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[Path(p).stem for p in FILES])
def test_every_bar_is_the_queues_row_on_every_fixture(cli: Callable, path: str) -> None:
    from tests.test_pending_fixtures import TARGETS

    target = TARGETS.get(Path(path).stem, ("md/qwen-pd",))[0]  # a fixture of another kind names its own target
    assert _bars_against_rows(cli, path, target) == []


# ----------------------------------------------------------------------------- generated layouts
def layout(own: int, lending: int | None, borrowing: int | None, used_research: int, used_prod: int,
           ) -> list[dict[str, Any]]:
    """Plain nvidia.com/gpu in one flavor; root Cohort org with OWN quota; research (10) and prod (8, lendingLimit
    LENDING) in it; research's borrowingLimit BORROWING; a pending 4-card pod group on research."""
    research = cluster_queue("research", {"a100": "10"}, resource=GPU, cohort="org", active=True,
                             used={"a100": str(used_research)},
                             limits={"a100": {"borrowingLimit": str(borrowing)}} if borrowing is not None else None)
    prod = cluster_queue("prod", {"a100": "8"}, resource=GPU, cohort="org", active=True, used={"a100": str(used_prod)},
                         limits={"a100": {"lendingLimit": str(lending)}} if lending is not None else None)
    for q in (research, prod):
        q["status"]["flavorsUsage"] = q["status"]["flavorsReservation"]
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "research",
          "namespace": NS}, "spec": {"clusterQueue": "research"}, "status": {"conditions": [
              {"type": "Active", "status": "True", "reason": "Ready", "message": ""}]}}
    req = CreateRequest(name="g", namespace=NS, model="m", target="pods", local_queue="research", resource=GPU,
                        roles=(parse_role("name=w,kind=prefill,replicas=1,accelerator=4,image=i"),))
    group = pd.render_pods(req, check_request(req).roles, {"w": "research"})
    objs = [research, prod, lq, resource_flavor("a100"), *group]
    if own:
        objs.append(cohort("org", quota={"a100": str(own)}, resource=GPU))
    return objs


STATES = list(itertools.product((0, 4), (None, 2), (None, 1), (4, 12, 16), (0, 6)))


@pytest.mark.parametrize("own, lending, borrowing, used_r, used_p", STATES, ids=[str(s) for s in STATES])
def test_every_bar_is_the_queues_row_on_generated_layouts(cli: Callable, tmp_path: Path, own: int,
                                                           lending: int | None, borrowing: int | None, used_r: int,
                                                           used_p: int) -> None:
    path = tmp_path / "layout.json"
    objs = layout(own, lending, borrowing, used_r, used_p)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    assert _bars_against_rows(cli, str(path), f"podgroup/{names.pod_group_name(NS, 'g')}") == []
    snap = Snapshot.of(objs)
    rows = fg.figures(snap)
    for r in (r for rs in rows.values() for r in rs):
        q = snap.cluster_queues[r.cluster_queue].quota(r.flavor, r.resource)
        assert r.lent is not None and 0 <= r.lent <= r.lendable  # never more than it has unused to lend
        assert q is None or q.lending_limit is None or r.lent <= q.lending_limit
    for f in fg.flows(snap, rows):  # borrowed = lent + what the cohort's pool gives
        assert sum((b for _, b in f.borrowers), Fraction(0)) == f.lent + f.unattributed
        assert f.cohort_quota == own


def test_an_over_admitted_cohort_lends_no_more_than_the_lending_limit() -> None:
    """research uses 20 of its 10 (over-admitted: Kueue's `available` is negative); prod lends at most 2."""
    objs = layout(0, 2, None, 20, 0)
    rows = fg.figures(Snapshot.of(objs))
    (prod,) = rows["prod"]
    assert (prod.lent, prod.lendable, prod.free) == (2, 2, 6)


def test_a_cohorts_own_quota_is_shown(cli: Callable, tmp_path: Path) -> None:
    path = tmp_path / "layout.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": layout(4, 2, None, 16, 0)}))
    doc = json.loads(cli(["queues", "-f", str(path), "-o", "json"]).stdout)
    (org,) = doc["cohorts"]
    assert [(q["flavor"], q["nominal"], q["subtree"], q["used"], q["free"]) for q in org["quota"]] == [
        ("a100", "4", "16", "16", "0")]  # own 4 + research 10 + prod's lendable 2; research's 6 beyond its 10
    (flow,) = doc["borrowing"]
    assert (flow["lent"], flow["cohortQuota"], flow["unattributed"]) == ("2", "4", "4")
    assert [(b["clusterQueue"], b["amount"]) for b in flow["borrowers"]] == [("research", "6")]


def test_an_empty_peer_list_beside_a_cohort_is_unread() -> None:
    """A list of ClusterQueues that was read holds the queue itself: an empty one never was (why-pending on an
    admitted group in a cohort gave cohortFree 0 and borrowable 0 from no peers at all, queues 4 and 4)."""
    objs = layout(4, 2, None, 12, 0)
    research = next(o for o in objs if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == "research")
    assert Snapshot.read({"research": research}, {}, [], []).peers_complete is False
    assert Snapshot.read({"research": research}, {}, [research], []).peers_complete is True
    alone = cluster_queue("alone", {"a100": "4"}, resource=GPU)
    assert Snapshot.read({"alone": alone}, {}, [], []).peers_complete is True  # no cohort: nothing to read


def _admitted(objs: list[dict[str, Any]]) -> dict[str, Any]:
    g = names.pod_group_name(NS, "g")
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": g, "namespace": NS, "creationTimestamp": "2026-01-01T00:00:00Z",
                         "annotations": {"kueue.x-k8s.io/is-group-workload": "true"}},
            "spec": {"queueName": "research", "podSets": [{"name": "w", "count": 1, "template": {"spec": {
                "containers": [{"name": "c", "image": "i", "resources": {"requests": {GPU: "4"}}}]}}}]},
            "status": {"conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"},
                {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}],
                "admission": {"clusterQueue": "research", "podSetAssignments": [
                    {"name": "w", "flavors": {GPU: "a100"}, "resourceUsage": {GPU: "4"}, "count": 1}]}}}


def test_an_admitted_group_never_shows_other_cohort_figures_than_queues(cli: Callable, apiserver: Callable) -> None:
    objs = layout(4, 2, None, 12, 0)
    _, env = apiserver([*objs, _admitted(objs)], namespace=NS)
    doc = json.loads(cli(["why-pending", f"podgroup/{names.pod_group_name(NS, 'g')}", "-o", "json"], env=env).stdout)
    rows = json.loads(cli(["queues", "-o", "json"], env=env).stdout)
    (row,) = next(q["flavors"] for q in rows["clusterQueues"] if q["name"] == "research")
    for b in doc["quota"]:
        for k in KEYS:
            assert b[k] == row[k], (k, b[k], row[k])  # the same figure: the admitted path reads the cohort too
        assert b["borrowed"] == row["borrowed"] == "2"
