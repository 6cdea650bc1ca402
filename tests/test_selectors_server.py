"""why-pending -l/--field-selector with no TARGET on a live cluster (issue 32): the selectors are sent to the
server for the candidates (pending/narrow.py), only their namespaces are gathered, and the answer is the
client-side-only answer exactly. Assertions on the JSON documents and on the requests the server saw."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kubectl_pd.pending import narrow
from tests.apiserver import CLUSTER_WIDE, FakeApiServer, Forbid, load_objects, unrelated_workloads
from tests.conftest import FIXTURES

QUOTA = FIXTURES / "pending" / "quota-exhausted.yaml"
GROUP = "kueue.x-k8s.io/pod-group-name"
MANAGED = "kueue.x-k8s.io/managed"  # the Pods Kueue manages: groups Kueue 0.18+ names by annotation
LISTED = ("modeldeployments", "workloads", "pods")


def _moved(objs: list[dict[str, Any]], ns: str, labels: dict[str, str] | None = None,
           kinds: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The namespaced objects of a fixture in namespace `ns`; `labels` added to those of `kinds`."""
    out = []
    for o in objs:
        if not o["metadata"].get("namespace"):
            continue
        o = copy.deepcopy(o)
        o["metadata"]["namespace"] = ns
        if labels and o["kind"] in kinds:
            o["metadata"]["labels"] = {**(o["metadata"].get("labels") or {}), **labels}
        out.append(o)
    return out


def _cluster() -> list[dict[str, Any]]:
    base = load_objects(QUOTA)
    cluster = [o for o in base if not o["metadata"].get("namespace")]  # queues, flavors, checks
    cluster += _moved(base, "team-a")  # an unlabelled deployment
    cluster += _moved(base, "team-b", {"team": "a"}, ("ModelDeployment",))  # a labelled one
    group = [o for o in base if o["kind"] != "ModelDeployment"]  # a pod group no deployment claims
    cluster += _moved(group, "team-c", {"team": "a"}, ("Pod",))
    cluster += _moved(group, "team-d", {"team": "b"}, ("Pod",))
    for ns, team in (("team-e", "a"), ("team-f", "b"), ("team-g", None)):
        for i, wl in enumerate(unrelated_workloads(3, namespace=ns)):
            if team is not None and i != 1:
                wl["metadata"]["labels"] = {"team": team}
            cluster.append(wl)
    early = unrelated_workloads(1, namespace="team-a")[0]  # a Workload listed before team-b's deployment
    early["metadata"]["labels"] = {"team": "a"}
    return [*cluster, early]


def _answer(cli: Any, env: dict[str, str], flags: list[str], code: int = 0) -> tuple[dict[str, Any], str]:
    r = cli(["why-pending", "-o", "json", *flags], env=env)
    assert r.exit_code == code, r.stderr
    return json.loads(r.stdout), r.stderr


def _both(cli: Any, apiserver: Any, monkeypatch: Any, flags: list[str], code: int = 0,
          **server: Any) -> tuple[dict[str, Any], FakeApiServer, str]:
    """The narrowed answer (and the requests it sent), after checking it against the client-side one."""
    plain_server, plain_env = apiserver(_cluster(), **copy.deepcopy(server))
    with monkeypatch.context() as m:
        m.setattr(narrow, "SERVER_SIDE", False)
        plain, plain_err = _answer(cli, plain_env, flags, code)
    assert not any(q.query.get("labelSelector", "").startswith(f"{GROUP},") for q in plain_server.requests)
    narrowed_server, env = apiserver(_cluster(), **server)
    got, err = _answer(cli, env, flags, code)
    assert got == plain and err == plain_err
    return got, narrowed_server, err


def _lists(server: FakeApiServer) -> list[Any]:
    return [q for q in server.requests if q.method == "GET" and q.path.rsplit("/", 1)[1] in LISTED]


def _candidates(server: FakeApiServer) -> dict[str, dict[str, str]]:
    """The first list of each kind: phase 1's, sent before any namespace is gathered."""
    out: dict[str, dict[str, str]] = {}
    for q in _lists(server):
        out.setdefault(q.path.rsplit("/", 1)[1], q.query)
    return out


def _gathered(server: FakeApiServer) -> set[str]:
    """The namespaces whose whole lists were read (a gather_all), '' for the list of every namespace."""
    first = {id(q) for q in _candidates(server).values()}
    out = set()
    for q in _lists(server):
        parts = q.path.strip("/").split("/")
        if id(q.query) not in first and "labelSelector" not in q.query and "fieldSelector" not in q.query:
            out.add(parts[parts.index("namespaces") + 1] if "namespaces" in parts else "")
    return out


def _targets(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i["target"]["namespace"], i["target"]["kind"], i["target"]["name"]) for i in doc["items"]]


CASES = [  # flags, the namespaces gathered one by one, the targets kept (namespace, kind)
    (["-A", "-l", "team=a"], {"team-a", "team-b", "team-c", "team-e"},
     [("team-b", "ModelDeployment"), ("team-c", "PodGroup"), ("team-a", "Workload"), ("team-e", "Workload"),
      ("team-e", "Workload")]),
    (["-A", "-l", "team"], {"team-a", "team-b", "team-c", "team-d", "team-e", "team-f"}, None),
    (["-A", "--field-selector", "metadata.namespace=team-c"], {"team-c"}, [("team-c", "PodGroup")]),
    (["-A", "--field-selector", "metadata.name=qwen-pd"], {"team-a", "team-b", "team-c", "team-d"}, None),
    (["-A", "-l", "team=b", "--field-selector", "metadata.namespace!=team-d"], {"team-f"}, None),
    (["-A", "-l", "team in (a,b),team!=b", "--field-selector", "metadata.name!=batch-00002"],
     {"team-a", "team-b", "team-c", "team-e"}, None),
]


@pytest.mark.parametrize(("flags", "namespaces", "kept"), CASES)
def test_the_same_answer_from_fewer_namespaces(cli: Any, apiserver: Any, monkeypatch: Any, flags: list[str],
                                               namespaces: set[str], kept: Any) -> None:
    got, server, _err = _both(cli, apiserver, monkeypatch, flags)
    assert got["items"], "a case that keeps nothing proves nothing"
    assert _gathered(server) == namespaces
    if kept is not None:
        assert [t[:2] for t in _targets(got)] == kept
    sent = _candidates(server)
    assert set(sent) == set(LISTED)
    labels = next((flags[i + 1] for i, f in enumerate(flags) if f == "-l"), None)
    fields = next((flags[i + 1] for i, f in enumerate(flags) if f == "--field-selector"), None)
    pods = {q.query.get("labelSelector") for q in _lists(server) if q.path.endswith("/pods")}
    assert {f"{GROUP},{labels}" if labels else GROUP, f"{MANAGED},{labels}" if labels else MANAGED} <= pods
    assert sent["modeldeployments"].get("labelSelector") == labels
    assert all(q.get("fieldSelector") == fields for q in sent.values())
    assert all(q.get("limit") == "500" for q in sent.values())  # paged as every list is


def test_a_selector_that_matches_no_labels_lists_workloads_by_fields_only(cli: Any, apiserver: Any,
                                                                          monkeypatch: Any) -> None:
    """`team!=a` matches a pod group whose Pods carry no group label (its stand-in has no labels): the
    Workloads are listed without the label selector, the deployments and Pods with it."""
    got, server, _err = _both(cli, apiserver, monkeypatch, ["-A", "-l", "team!=a"])
    sent = _candidates(server)
    assert "labelSelector" not in sent["workloads"]
    assert sent["modeldeployments"]["labelSelector"] == "team!=a"
    assert ("team-a", "ModelDeployment", "qwen-pd") in _targets(got)
    assert _gathered(server) == {f"team-{c}" for c in "abcdefg"}


def test_no_candidate_no_namespace_read(cli: Any, apiserver: Any, monkeypatch: Any) -> None:
    server, env = apiserver(_cluster())
    got, _err = _answer(cli, env, ["-A", "-l", "team=nobody"])
    assert got["items"] == []
    assert _gathered(server) == set()
    assert len(_lists(server)) == 4  # the candidates' lists alone (Pods: two selectors)


def test_one_namespace(cli: Any, apiserver: Any, monkeypatch: Any) -> None:
    got, server, _err = _both(cli, apiserver, monkeypatch, ["-n", "team-b", "-l", "team=a"])
    assert [t[:2] for t in _targets(got)] == [("team-b", "ModelDeployment")]
    assert _gathered(server) == {"team-b"}
    server, env = apiserver(_cluster())
    _answer(cli, env, ["-n", "team-g", "-l", "team=a"])
    assert _gathered(server) == set()  # no candidate in team-g: its lists are not read


def test_many_namespaces_one_gather_of_all(cli: Any, apiserver: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(narrow, "MAX_NAMESPACES", 2)
    got, server, _err = _both(cli, apiserver, monkeypatch, ["-A", "-l", "team=a"])
    assert len(got["items"]) == 5
    assert _gathered(server) == {""}


def test_a_refused_field_selector_selects_by_labels_then_here(cli: Any, apiserver: Any, monkeypatch: Any) -> None:
    """A server that does not select by metadata.namespace (400 field label not supported): each kind is
    listed by labels alone and its fields compared here; the same answer, nothing said."""
    flags = ["-A", "-l", "team=a", "--field-selector", "metadata.namespace!=team-e"]
    got, server, err = _both(cli, apiserver, monkeypatch, flags, refuse_fields={"metadata.namespace"})
    assert err == ""
    assert _gathered(server) == {"team-a", "team-b", "team-c"}
    assert [t[:2] for t in _targets(got)] == [("team-b", "ModelDeployment"), ("team-c", "PodGroup"),
                                              ("team-a", "Workload")]
    again = [q for q in _lists(server) if "namespaces" not in q.path and q.query.get("labelSelector", "").endswith(
        "team=a") and "fieldSelector" not in q.query]
    assert {q.path.rsplit("/", 1)[1] for q in again} == set(LISTED)  # each kind once more, by labels alone


def test_a_candidate_list_refused_reads_as_without_narrowing(cli: Any, apiserver: Any, monkeypatch: Any) -> None:
    """RBAC refuses the list of Pods across namespaces: the run reads what it reads without selectors (and
    says the same note), so the answer is still the client-side one; what the refused list would have shown is
    unknown, so the run exits 1 as kubectl's Forbidden does (issue 37 W6) and names the refused list."""
    got, server, _err = _both(cli, apiserver, monkeypatch, ["-A", "-l", "team=a"], code=1,
                              forbid=[Forbid("list", "pods", CLUSTER_WIDE)])
    assert "" in _gathered(server)
    assert got["notes"] and [i["read"] for i in got["incomplete"]] == ["list of Pods in every namespace"]


def _facts(kind: str, ns: str, name: str, first_pod: str | None = None) -> Any:
    from kubectl_pd import kube
    from kubectl_pd.pending.gather import Facts
    from kubectl_pd.pending.target import Target

    f = Facts(Target(kind, name, ns))
    if first_pod is not None:
        f.pods = [kube.pod({"metadata": {"name": first_pod, "namespace": ns}})]
    return f


ORDER = [  # the candidates in the server's order, the facts, the order the all-namespaces run gives them
    ({"ModelDeployment": [("b", "md")], "Pod": [("a", "p-1"), ("c", "p-0")], "Workload": [("a", "w"), ("c", "g")]},
     [_facts("Workload", "a", "w"), _facts("PodGroup", "c", "g"), _facts("PodGroup", "a", "pg", "p-1"),
      _facts("ModelDeployment", "b", "md"), _facts("PodGroup", "c", "pc", "p-0")],
     [("ModelDeployment", "md"), ("PodGroup", "pg"), ("PodGroup", "pc"), ("PodGroup", "g"), ("Workload", "w")]),
]


@pytest.mark.parametrize(("found", "facts", "want"), ORDER)
def test_the_order_of_the_run_without_selectors(found: Any, facts: Any, want: Any) -> None:
    """Deployments, then pod groups by their first Pod, then pod groups with no labelled Pod, then Workloads;
    each kind in the server's order of its candidates."""
    got = sorted(facts, key=lambda f: narrow.order(f, narrow.Candidates(found)))
    assert [(f.target.kind, f.target.name) for f in got] == want


@pytest.mark.parametrize(("labels", "workloads"), [
    ("team=a", "team=a"), ("team", "team"), ("team!=a", None), ("!team", None), ("team notin (a)", None),
    ("team=a,x!=y", "team=a,x!=y"), ("", None),
])
def test_the_workloads_go_without_a_selector_that_matches_no_labels(labels: str, workloads: str | None) -> None:
    from kubectl_pd.cluster.selectors import Selection

    class Recorder:
        is_live = True

        def __init__(self) -> None:
            self.asked: dict[str, set[str | None]] = {}

        def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
                 field_selector: str | None = None, **kw: Any) -> list[Any]:
            self.asked.setdefault(kind, set()).add(label_selector)
            return []

    source = Recorder()
    assert narrow.candidates(source, None, Selection(labels or None, "metadata.name=x")) is not None  # type: ignore[arg-type]
    assert source.asked["Workload"] == {workloads}
    assert source.asked["Pod"] == {f"{GROUP},{labels}" if labels else GROUP,  # and the groups named by annotation
                                   f"{MANAGED},{labels}" if labels else MANAGED}


def test_no_gpustack_still_narrowed(cli: Any, apiserver: Any, monkeypatch: Any) -> None:
    """A cluster that serves no ModelDeployment: that kind has no candidate, the others still narrow."""
    from tests.apiserver import DEFAULT_GROUPS

    groups = {g: v for g, v in copy.deepcopy(DEFAULT_GROUPS).items() if g != "worker.gpustack.ai"}
    got, server, _err = _both(cli, apiserver, monkeypatch, ["-A", "-l", "team=a"], groups=groups)
    assert _gathered(server) == {"team-a", "team-c", "team-e"}
    assert [t[:2] for t in _targets(got)] == [("team-c", "PodGroup"), ("team-a", "Workload"), ("team-e", "Workload"),
                                              ("team-e", "Workload")]
