"""MultiKueue in why-pending's list (no TARGET, -A): the WORKER column and each item's `multikueue.workloads`, from
the manager's Workloads alone (kubectl_pd/pending/placements.py): table-driven over the pure cell, then through the
CLI against loopback API servers (tests/apiserver.py), where no worker may be asked anything."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kubectl_pd import contract
from kubectl_pd.agent import schemas
from kubectl_pd.pending import placements as listing
from kubectl_pd.pending.model import Diagnosis, Placement
from kubectl_pd.pending.render import LIST_HEADERS, WIDE_HEADERS
from kubectl_pd.pending.target import Target
from tests.test_multikueue_live import NS, Start, kubeconfig, manager_objects, refused_url


def _d(*placements: Placement) -> Diagnosis:
    return Diagnosis(target=Target("PodGroup", "g", NS), pending=True, reasons=[], roles=[],
                     placements=list(placements))


CELLS = [
    ("none", [], "-"),
    ("nominated, all at once", [Placement("g", None, ("worker-1", "worker-2"))], "worker-1,worker-2"),
    ("admitted on one", [Placement("g", "worker-2", ("worker-1",))], "worker-2"),
    ("two Workloads, each once", [Placement("a", "worker-1", ()), Placement("b", None, ("worker-1", "worker-3"))],
     "worker-1,worker-3"),
]


@pytest.mark.parametrize(("placements", "cell"), [c[1:] for c in CELLS], ids=[c[0] for c in CELLS])
def test_cell(placements: list[Placement], cell: str) -> None:
    assert listing.cell(_d(*placements)) == cell
    assert listing.shown([_d(), _d(*placements)]) is bool(placements)


def test_item_json() -> None:
    assert listing.to_dict(_d()) == {}
    assert listing.to_dict(_d(Placement("g", "worker-2", ()), Placement("h", None, ("w1",)))) == {"multikueue": {
        "workloads": [{"name": "g", "dispatchedTo": "worker-2", "nominated": []},
                      {"name": "h", "dispatchedTo": None, "nominated": ["w1"]}]}}


def _plain(name: str, ns: str = "team-b") -> list[dict[str, Any]]:
    """A pending Workload of another namespace with no admission check (no MultiKueue)."""
    from tests.test_multikueue_live import GPU, KV

    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
            {"apiVersion": KV, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": ns},
             "spec": {"clusterQueue": "cq"}},
            {"apiVersion": KV, "kind": "Workload", "metadata": {"name": name, "namespace": ns,
                                                             "creationTimestamp": "2026-12-03T11:00:00Z"},
             "spec": {"queueName": "lq", "podSets": [{"name": "ps", "count": 1, "template": {"spec": {"containers": [
                 {"name": "c", "image": "e:1", "resources": {"requests": {GPU: "400"}}}]}}}]},
             "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                                        "message": "couldn't assign flavors", "lastTransitionTime":
                                            "2026-12-03T12:00:00Z"}]}}]


def _header(stdout: str) -> list[str]:
    return stdout.splitlines()[0].split()


def _row(stdout: str, target: str) -> list[str]:
    return next(ln.split() for ln in stdout.splitlines() if target in ln.split())


@pytest.mark.parametrize("nominated", [["worker-1", "worker-2"], None], ids=["dispatched", "not-dispatched"])
def test_all_namespaces_worker_column(apiserver: Start, cli: Callable[..., Any], tmp_path: Path,
                                      nominated: list[str] | None) -> None:
    manager, _ = apiserver([*manager_objects(workers=["worker-1", "worker-2"], nominated=nominated),
                            *_plain("other")])
    env = kubeconfig(tmp_path, manager, {"worker-1": refused_url(), "worker-2": refused_url()})
    text = cli(["why-pending", "-A"], env=env)
    wide = cli(["why-pending", "-A", "-o", "wide"], env=env)
    doc = cli(["why-pending", "-A", "-o", "json"], env=env)
    assert (text.exit_code, wide.exit_code, doc.exit_code) == (0, 0, 0), text.stderr + wide.stderr + doc.stderr
    items = {i["target"]["name"]: i for i in json.loads(doc.stdout)["items"]}
    jsonschema.validate(json.loads(doc.stdout), schemas.why_pending())
    assert json.loads(doc.stdout)["schemaVersion"] == contract.WHY_PENDING
    assert tuple(map(int, contract.WHY_PENDING.split("."))) >= (1, 5)  # the list's brief form came in 1.5
    assert "multikueue" not in items["other"]
    if nominated is None:  # MultiKueue has dispatched nothing: the table every cluster without it prints
        assert _header(text.stdout) == LIST_HEADERS
        assert _header(wide.stdout) == LIST_HEADERS + WIDE_HEADERS
        assert "multikueue" not in items["g"]
        return
    headers = [*LIST_HEADERS[:3], "WORKER", *LIST_HEADERS[3:]]
    assert _header(text.stdout) == headers
    assert _header(wide.stdout) == headers + WIDE_HEADERS
    for out in (text.stdout, wide.stdout):
        assert _row(out, "podgroup/g")[3] == "worker-1,worker-2"
        assert _row(out, "wl/other")[3] == "-"
    assert items["g"]["multikueue"] == {"workloads": [{"name": "g", "dispatchedTo": None,
                                                       "nominated": ["worker-1", "worker-2"]}]}


def test_namespace_list_admitted_worker(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    """why-pending with no TARGET in one namespace: status.clusterName wins over the nominated; no worker read
    (its contexts point at closed ports: any read would fail the run)."""
    manager, _ = apiserver(manager_objects(workers=["worker-1", "worker-2"], cluster="worker-2",
                                           check=("Pending", "")))
    env = kubeconfig(tmp_path, manager, {"worker-1": refused_url(), "worker-2": refused_url()})
    r = cli(["why-pending", "-n", NS], env=env)
    assert r.exit_code == 0, r.stderr
    assert _header(r.stdout)[3] == "WORKER"
    assert _row(r.stdout, "podgroup/g")[3] == "worker-2"
    assert manager.count("/apis/kueue.x-k8s.io/*/multikueueclusters") == 0
    assert manager.count("/apis/kueue.x-k8s.io/*/admissionchecks") == 0
