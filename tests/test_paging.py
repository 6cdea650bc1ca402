"""Every list paged as kubectl pages it (issue 22 item 2, issue 19 item 5): `limit=500`, `continue` followed,
one restart on 410 Expired (then ListExpired), field selectors as the API server applies them (Kueue v0.18.4's
Workload CRD declares `.status.admission.clusterQueue` selectable: config/components/crd/bases/
kueue.x-k8s.io_workloads.yaml:19139@v0.18.4, v1beta2 only), a refused selector a distinct error, and a reducer
applied as each page arrives. kubectl itself, on the same server, is the reference for the request sequence."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import PAGE_SIZE, LiveSource, UnexpectedAnswer
from kubectl_pd.cluster.selectors import field_value
from kubectl_pd.cluster.selectors import parse_field_selector as field_predicate
from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.errors import FieldSelectorUnsupported, InputError, ListExpired
from tests.apiserver import FakeApiServer, Fault, unrelated_workloads
from tests.conftest import run_kubectl

Start = Callable[..., tuple[FakeApiServer, dict[str, str]]]


def source(env: dict[str, str]) -> LiveSource:
    return LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"]))


def pages(server: FakeApiServer, plural: str = "workloads") -> list[tuple[str | None, str | None]]:
    return [(r.query.get("limit"), r.query.get("continue")) for r in server.lists(plural)]


def admitted(name: str, queue: str | None) -> dict[str, Any]:
    wl = copy.deepcopy(unrelated_workloads(1)[0])
    wl["metadata"]["name"] = name
    if queue is not None:
        wl["status"]["admission"] = {"clusterQueue": queue, "podSetAssignments": []}
    return wl


def test_a_list_is_paged_by_500_and_follows_continue(apiserver: Start) -> None:
    server, env = apiserver(unrelated_workloads(1234))
    got = source(env).list("Workload", "team-a")
    assert PAGE_SIZE == 500
    assert [o["metadata"]["name"] for o in got] == [f"batch-{i:05d}" for i in range(1234)]
    assert pages(server) == [("500", None), ("500", "500"), ("500", "1000")]


def test_the_request_sequence_is_kubectls(apiserver: Start) -> None:
    server, env = apiserver(unrelated_workloads(1001))
    source(env).list("Workload", "team-a")
    ours = pages(server)
    server.requests.clear()
    r = run_kubectl(["get", "workloads.kueue.x-k8s.io", "-n", "team-a", "-o", "name",
                     "--kubeconfig", env["KUBECONFIG"]])
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1001
    assert pages(server) == ours == [("500", None), ("500", "500"), ("500", "1000")]


def test_an_expired_continue_restarts_the_list_once(apiserver: Start) -> None:
    server, env = apiserver(unrelated_workloads(1200), expire_continues=1)
    got = source(env).list("Workload", "team-a")
    assert len(got) == 1200 and len({o["metadata"]["name"] for o in got}) == 1200
    assert pages(server) == [("500", None), ("500", "500"), ("500", None), ("500", "500"), ("500", "1000")]


def test_a_second_expiry_is_an_error(apiserver: Start, cli: Callable) -> None:
    server, env = apiserver(unrelated_workloads(700), expire_continues=2)
    with pytest.raises(ListExpired):
        source(env).list("Workload", "team-a")
    assert pages(server) == [("500", None), ("500", "500"), ("500", None), ("500", "500")]


def test_a_second_expiry_through_the_cli_is_one_error_line(apiserver: Start, cli: Callable) -> None:
    _, env = apiserver(unrelated_workloads(700), expire_continues=2)
    r = cli(["why-pending", "-A", "-o", "json", "--request-timeout", "10s"], env=env)
    lines = [ln for ln in r.stderr.splitlines() if ln]
    assert r.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr


def test_why_pending_all_reads_workloads_in_pages(apiserver: Start, cli: Callable) -> None:
    server, env = apiserver(unrelated_workloads(600))
    r = cli(["why-pending", "-A", "-o", "json", "--request-timeout", "10s"], env=env)
    assert r.exit_code in (0, 1) and "Traceback" not in r.stderr
    seen = pages(server)
    assert seen and all(limit == "500" for limit, _ in seen) and ("500", "500") in seen


def test_a_continue_token_given_twice_is_an_error_not_a_loop(apiserver: Start) -> None:
    page = {"kind": "WorkloadList", "apiVersion": "kueue.x-k8s.io/v1beta2", "metadata": {"continue": "again"},
            "items": []}
    server, env = apiserver(faults=[Fault("/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads", body=page)])
    with pytest.raises(UnexpectedAnswer):
        source(env).list("Workload", "team-a")
    assert pages(server) == [("500", None), ("500", "again")]


# -- field selectors ------------------------------------------------------------------------------------

QUEUED = [admitted("a1", "gpu"), admitted("a2", "cpu"), admitted("p1", None), admitted("a3", "gpu")]
SELECTORS = [
    ("status.admission.clusterQueue=gpu", ["a1", "a3"]),
    ("status.admission.clusterQueue==gpu", ["a1", "a3"]),
    ("status.admission.clusterQueue!=gpu", ["a2", "p1"]),
    ("status.admission.clusterQueue=", ["p1"]),  # an absent selectable field is ""
    ("status.admission.clusterQueue=gpu,metadata.name!=a1", ["a3"]),
]


@pytest.mark.parametrize(("selector", "names"), SELECTORS)
def test_field_selectors_live_and_snapshot_agree(apiserver: Start, selector: str, names: list[str]) -> None:
    server, env = apiserver(copy.deepcopy(QUEUED))
    live = [o["metadata"]["name"] for o in source(env).list("Workload", "team-a", field_selector=selector)]
    snap = SnapshotSource.from_objects(copy.deepcopy(QUEUED))
    offline = [o["metadata"]["name"] for o in snap.list("Workload", "team-a", field_selector=selector)]
    assert sorted(live) == sorted(offline) == names
    assert server.lists("workloads")[-1].query["fieldSelector"] == selector


def test_a_refused_field_selector_is_its_own_error(apiserver: Start) -> None:
    _, env = apiserver(copy.deepcopy(QUEUED), refuse_fields={"status.admission.clusterQueue"})
    src = source(env)
    with pytest.raises(FieldSelectorUnsupported) as refused:
        src.list("Workload", "team-a", field_selector="status.admission.clusterQueue=gpu")
    assert (refused.value.resource, refused.value.selector) == ("workloads.kueue.x-k8s.io",
                                                                "status.admission.clusterQueue=gpu")
    assert len(src.list("Workload", "team-a")) == 4  # the fallback a caller takes


def test_a_v1beta1_only_server_refuses_the_selector_as_kueues_crd_does(apiserver: Start) -> None:
    old = copy.deepcopy(QUEUED)
    for wl in old:
        wl["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    _, env = apiserver(old, groups={"": ["v1"], "kueue.x-k8s.io": ["v1beta1"]})
    with pytest.raises(FieldSelectorUnsupported):
        source(env).list("Workload", "team-a", field_selector="status.admission.clusterQueue=gpu")


def test_a_custom_resource_field_the_crd_does_not_declare_is_refused(apiserver: Start) -> None:
    _, env = apiserver(copy.deepcopy(QUEUED))
    with pytest.raises(FieldSelectorUnsupported):
        source(env).list("Workload", "team-a", field_selector="spec.queueName=batch")
    assert len(source(env).list("Workload", "team-a", field_selector="metadata.name=a1")) == 1


FIELDS = [({"a": {"b": "x"}}, "a.b", "x"), ({"a": {}}, "a.b", ""), ({"a": "s"}, "a.b", ""), ({"a": True}, "a", "true"),
          ({"a": 3}, "a", "3"), ({"a": {"b": [1]}}, "a.b", ""), ({}, "metadata.name", "")]


@pytest.mark.parametrize(("obj", "path", "value"), FIELDS)
def test_field_value_as_the_api_server_reads_it(obj: dict[str, Any], path: str, value: str) -> None:
    assert field_value(obj, path) == value


@pytest.mark.parametrize("bad", ["status.admission.clusterQueue", "=x"])
def test_a_malformed_field_selector_is_input_error(bad: str) -> None:
    with pytest.raises(InputError):
        field_predicate(bad)


# -- the reducer --------------------------------------------------------------------------------------

def test_a_reducer_runs_on_each_item_as_its_page_arrives(apiserver: Start) -> None:
    server, env = apiserver(unrelated_workloads(1100))
    seen: list[int] = []

    def names_only(obj: dict[str, Any]) -> dict[str, Any] | None:
        seen.append(len(server.lists("workloads")))  # how many pages had been asked for by then
        name = obj["metadata"]["name"]
        return None if name.endswith("7") else {"name": name}

    got = source(env).list("Workload", "team-a", reduce=names_only)
    assert len(got) == 1100 - 110 and got[0] == {"name": "batch-00000"}
    assert seen[0] == 1 and seen[499] == 1 and seen[500] == 2 and seen[-1] == 3


def test_the_snapshot_applies_the_reducer_too() -> None:
    snap = SnapshotSource.from_objects(copy.deepcopy(QUEUED))
    assert snap.list("Workload", reduce=lambda o: {"n": o["metadata"]["name"]} if "1" in o["metadata"]["name"]
                     else None) == [{"n": "a1"}, {"n": "p1"}]
