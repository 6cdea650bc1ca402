"""LiveSource through the real kubernetes client against the loopback API server."""

from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.errors import ApiUnavailable, ClusterError, ConflictError, ForbiddenError, PdError
from tests.apiserver import TOKEN, FakeApiServer, Forbid
from tests.builders import workload


def _cq(name: str, version: str = "v1beta2", **spec: object) -> dict:
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": dict(spec)}


def _wl(name: str, ns: str, labels: dict | None = None) -> dict:
    return workload(name, ns, labels=labels)


def _source(server: FakeApiServer, tmp_path: Path, **kw: object) -> LiveSource:
    kc = server.write_kubeconfig(tmp_path / "kc")
    return LiveSource(ClusterOptions(kubeconfig=str(kc), **kw))  # type: ignore[arg-type]


def test_reads_v1beta2(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver([_cq("a", cohortName="pool"), _wl("w1", "team-a", {"r": "1"}), _wl("w2", "team-b")])
    src = _source(server, tmp_path)
    assert src.get("cq", "a")["spec"] == {"cohortName": "pool"}
    assert src.get("cq", "missing") is None
    assert [w["metadata"]["name"] for w in src.list("wl", "team-a")] == ["w1"]
    assert sorted(w["metadata"]["name"] for w in src.list("wl")) == ["w1", "w2"]
    assert [w["metadata"]["name"] for w in src.list("wl", None, label_selector="r=1")] == ["w1"]
    paths = [r.path for r in server.requests]
    assert paths[0] == "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/a"  # v1beta2 first: no discovery needed
    assert "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads" in paths
    assert set(server.methods) == {"GET"}
    assert paths.count("/apis/kueue.x-k8s.io") == 0


def test_falls_back_to_v1beta1_and_normalises(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver([_cq("old", "v1beta1", cohort="pool", admissionChecks=["ac"])],
                          groups={"": ["v1"], "kueue.x-k8s.io": ["v1beta1"]})
    src = _source(server, tmp_path)
    cq = src.get("ClusterQueue", "old")
    assert cq["spec"] == {"cohortName": "pool", "admissionChecksStrategy": {"admissionChecks": [{"name": "ac"}]}}
    assert cq["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    src.list("ClusterQueue")
    # v1beta2 answered a bare 404: discovery once, then v1beta1 only
    assert [r.path for r in server.requests] == [
        "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/old", "/apis/kueue.x-k8s.io",
        "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/old", "/apis/kueue.x-k8s.io/v1beta1/clusterqueues"]


def test_pagination(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver([_wl(f"w{i}", "ns") for i in range(7)], page_size=3)
    src = _source(server, tmp_path)
    assert len(src.list("wl", "ns")) == 7
    assert [r.query.get("continue") for r in server.requests if r.path.endswith("/workloads")] == [None, "3", "6"]


def test_kueue_not_installed(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver(groups={"": ["v1"]})
    with pytest.raises(ApiUnavailable, match="Kueue is not installed"):
        _source(server, tmp_path).list("cq")


def test_crd_not_installed(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver(groups={"": ["v1"], "kueue.x-k8s.io": ["v1beta2"]})
    with pytest.raises(ApiUnavailable, match="ModelDeployment CRD is not installed"):
        _source(server, tmp_path).get("md", "x", "ns")


def test_forbidden_names_verb_resource_namespace(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver(forbid=[Forbid("list", "workloads", "team-a"), Forbid("get", "clusterqueues")])
    src = _source(server, tmp_path)
    with pytest.raises(ForbiddenError) as e:
        src.list("wl", "team-a")
    assert e.value.message.startswith(
        'forbidden: RBAC does not let user "system:serviceaccount:pd-tests:reader" list '
        'workloads.kueue.x-k8s.io in namespace "team-a"')
    assert (e.value.verb, e.value.resource, e.value.namespace) == ("list", "workloads.kueue.x-k8s.io", "team-a")
    with pytest.raises(ForbiddenError, match="get clusterqueues.kueue.x-k8s.io at cluster scope"):
        src.get("cq", "x")


def test_unauthorized_never_prints_the_token(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver()
    kc = server.write_kubeconfig(tmp_path / "kc", token="expired-" + TOKEN)
    with pytest.raises(ClusterError) as e:
        LiveSource(ClusterOptions(kubeconfig=str(kc))).list("cq")
    assert e.value.message == (f"the API server at {server.url} rejected the credentials of context 'loopback' "
                               "(401 Unauthorized): log in again or refresh the kubeconfig user")  # no token


def test_unreachable_and_timeout(tmp_path: Path) -> None:
    dead = FakeApiServer().start()
    kc = dead.write_kubeconfig(tmp_path / "dead")
    dead.stop()
    refused = r"cannot reach the API server at https?://127\.0\.0\.1:\d+ \(connection refused\)"
    with pytest.raises(ClusterError, match=refused):
        LiveSource(ClusterOptions(kubeconfig=str(kc), request_timeout=2)).list("cq")
    slow = FakeApiServer(delay=2).start()
    try:
        kc = slow.write_kubeconfig(tmp_path / "slow")
        with pytest.raises(ClusterError, match=r"did not answer within 0\.3s \(--request-timeout\)"):
            LiveSource(ClusterOptions(kubeconfig=str(kc), request_timeout=0.3)).list("cq")
    finally:
        slow.stop()


def test_unknown_context(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver()
    kc = server.write_kubeconfig(tmp_path / "kc")
    with pytest.raises(PdError, match=r'context "prod" not found in the kubeconfig \(available: loopback\)'):
        LiveSource(ClusterOptions(kubeconfig=str(kc), context="prod"))


def test_create_conflict_and_dry_run(apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver(_wl("exists", "ns"))
    src = _source(server, tmp_path)
    made = src.create(_wl("new", "ns"), dry_run=True)
    assert made["metadata"]["name"] == "new"
    assert server.stored("Workload", "kueue.x-k8s.io/v1beta2", "new", "ns") is None
    src.create(_wl("new", "ns"))
    assert server.stored("Workload", "kueue.x-k8s.io/v1beta2", "new", "ns") is not None
    with pytest.raises(ConflictError, match='workloads.kueue.x-k8s.io "exists" already exists'):
        src.create(_wl("exists", "ns"))
    posts = [r for r in server.requests if r.method == "POST"]
    assert [r.query.get("dryRun") for r in posts] == ["All", None, None]


def test_get_raw_visibility(apiserver: Callable, tmp_path: Path) -> None:
    path = "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/gpu/pendingworkloads"
    server, _ = apiserver(raw={path: {"kind": "PendingWorkloadsSummary", "items": []}})
    src = _source(server, tmp_path)
    assert src.get_raw(path) == {"kind": "PendingWorkloadsSummary", "items": []}
    assert src.get_raw(path.replace("gpu", "other")) is None
