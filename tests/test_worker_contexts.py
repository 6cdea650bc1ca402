"""MultiKueue reads a worker only through a context the user named for it (--worker-context CLUSTER=CONTEXT, or the
opt-in --worker-contexts-by-name), and only for a MultiKueueCluster of the MultiKueueConfig of a MultiKueue check
the Workload's ClusterQueue uses: a name in a Workload's status is data, never a selector of credentials. Staged on
the loopback API server as a hostile manager would write it (docs/security.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apiserver import FakeApiServer
from tests.test_multikueue_live import NS, Start, kubeconfig, manager_objects, worker_objects

Obj = dict[str, Any]


def _with_exec_user(env: dict[str, str], context: str, marker: Path) -> None:
    """CONTEXT's user becomes an exec credential plugin that leaves MARKER behind if it ever runs."""
    path = Path(env["KUBECONFIG"])
    doc = yaml.safe_load(path.read_text())
    user = next(c["context"]["user"] for c in doc["contexts"] if c["name"] == context)
    for u in doc["users"]:
        if u["name"] == user:
            u["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "/bin/sh",
                                  "args": ["-c", f"touch {marker}; exit 1"], "interactiveMode": "Never"}}
    path.write_text(yaml.safe_dump(doc))


def _w(doc: Obj) -> dict[str, Obj]:
    return {w["cluster"]: w for w in doc["multikueue"]["workers"]}


def _hostile(apiserver: Start, tmp_path: Path, objs: list[Obj]) -> tuple[FakeApiServer, FakeApiServer,
                                                                            dict[str, str], Path]:
    """A manager writing OBJS; the user's kubeconfig also holds `worker-1` (a loopback worker) and `prod` (another
    cluster, its user an exec plugin)."""
    manager, _ = apiserver(objs)
    w1, _ = apiserver(worker_objects("16"))
    prod, _ = apiserver(worker_objects("16"))
    env = kubeconfig(tmp_path, manager, {"worker-1": w1, "prod": prod})
    marker = tmp_path / "prod-plugin-ran"
    _with_exec_user(env, "prod", marker)
    return w1, prod, env, marker


@pytest.mark.parametrize("flags", [[], ["--worker-contexts-by-name"], ["--worker-context", "worker-1=worker-1"]])
def test_a_name_in_the_workloads_status_selects_no_context(apiserver: Start, cli: Callable[..., Any],
                                                           tmp_path: Path, flags: list[str]) -> None:
    objs = manager_objects(workers=["worker-1"], nominated=["worker-1", "prod"])
    w1, prod, env, marker = _hostile(apiserver, tmp_path, objs)
    r = cli(["why-pending", "g", "-n", NS, "-o", "json", *flags], env=env)
    doc = json.loads(r.stdout)
    assert prod.count() == 0 and not marker.exists()  # prod's credentials never used, its plugin never run
    got = _w(doc)["prod"]
    assert (got["read"], got["context"]) == ("no-context", None)
    assert [(f["code"], f["params"].get("why")) for f in got["reasons"] if f["code"] == "MultiKueueWorkerNotRead"] \
        == [("MultiKueueWorkerNotRead", "not-in-config")]
    one = _w(doc)["worker-1"]
    if flags:  # the user named worker-1's context: read through it, and the answer says which
        assert (one["read"], one["context"]) == ("read", "worker-1") and w1.count() > 0
    else:  # nobody named one: not read, and said why
        assert (one["read"], one["context"]) == ("no-context", None) and w1.count() == 0
        assert one["reasons"][0]["params"]["why"] == "no-mapping"


def test_no_multikueue_check_reads_no_worker(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    """The Workload waits on a provisioning-request check and names `prod` anyway: no MultiKueue at all."""
    objs = manager_objects(workers=["worker-1"], nominated=["prod"])
    for o in objs:
        if o["kind"] == "AdmissionCheck":
            o["spec"] = {"controllerName": "kueue.x-k8s.io/provisioning-request"}
    _, prod, env, marker = _hostile(apiserver, tmp_path, objs)
    r = cli(["why-pending", "g", "-n", NS, "-o", "json", "--worker-contexts-by-name"], env=env)
    assert "multikueue" not in json.loads(r.stdout)
    assert prod.count() == 0 and not marker.exists()


def test_a_check_its_clusterqueue_does_not_use_reads_no_worker(apiserver: Start, cli: Callable[..., Any],
                                                               tmp_path: Path) -> None:
    """The Workload's status names the MultiKueue check, its ClusterQueue does not use it: nothing is read."""
    objs = manager_objects(workers=["worker-1"], nominated=["worker-1"])
    for o in objs:
        if o["kind"] == "ClusterQueue":
            o["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": "another"}]}
    w1, prod, env, _ = _hostile(apiserver, tmp_path, objs)
    r = cli(["why-pending", "g", "-n", NS, "-o", "json", "--worker-contexts-by-name"], env=env)
    doc = json.loads(r.stdout)
    assert w1.count() == 0 and prod.count() == 0
    assert _w(doc)["worker-1"]["read"] == "no-context"


def test_an_unmatched_mapping_is_a_usage_error(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    manager, _ = apiserver(manager_objects(workers=["worker-1"], nominated=["worker-1"]))
    env = kubeconfig(tmp_path, manager, {})
    for cmd in (["why-pending", "g", "-n", NS], ["snapshot", "g", "-n", NS, "-o", str(tmp_path / "s.yaml")]):
        r = cli([*cmd, "--worker-context", "worker-1=nowhere"], env=env)
        assert (r.exit_code, r.stdout) == (2, "") and r.stderr.startswith("error: ") and "nowhere" in r.stderr
    assert manager.count() == 0


def test_a_mapping_for_a_cluster_the_config_lacks_is_said_and_not_used(apiserver: Start, cli: Callable[..., Any],
                                                                       tmp_path: Path) -> None:
    objs = manager_objects(workers=["worker-1"], nominated=["worker-1", "prod"])
    _, prod, env, marker = _hostile(apiserver, tmp_path, objs)
    r = cli(["why-pending", "g", "-n", NS, "-o", "json", "--worker-context", "prod=prod"], env=env)
    assert prod.count() == 0 and not marker.exists()
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note: ")]
    assert len(notes) == 1 and "prod" in notes[0]


def test_a_snapshot_reads_only_the_named_workers_and_says_which(apiserver: Start, cli: Callable[..., Any],
                                                                tmp_path: Path) -> None:
    objs = manager_objects(workers=["worker-1"], nominated=["worker-1", "prod"])
    w1, prod, env, marker = _hostile(apiserver, tmp_path, objs)
    out = tmp_path / "none.yaml"
    assert cli(["snapshot", "g", "-n", NS, "-o", str(out)], env=env).exit_code == 0
    header = next(d for d in yaml.safe_load_all(out.read_text()) if d)
    assert "workers" not in header and w1.count() == 0
    out = tmp_path / "named.yaml"
    made = cli(["snapshot", "g", "-n", NS, "-o", str(out), "--worker-contexts-by-name"], env=env)
    assert made.exit_code == 0, made.stderr
    header = next(d for d in yaml.safe_load_all(out.read_text()) if d)
    assert header["workers"] == [{"cluster": "worker-1", "context": "worker-1"}]
    assert prod.count() == 0 and not marker.exists()


def test_no_mcp_argument_names_a_context(apiserver: Start, cli: Callable[..., Any], tmp_path: Path) -> None:
    """The server's mapping is fixed at its start: the tool has no `workerContexts`; an unmatched one is refused."""
    from kubectl_pd.agent import tools

    tool = next(t for t in tools.TOOLS if t.name == "pd_why_pending")
    with pytest.raises(tools.ToolError):
        tools.validate(tool, {"target": "g", "workerContexts": {"prod": "prod"}})
    assert not any("--worker-context" in a for a in tool.argv({"target": "g"}, tools.Guard())[0])
    manager, _ = apiserver(manager_objects(workers=["worker-1"]))
    env = kubeconfig(tmp_path, manager, {})
    r = cli(["mcp", "--worker-context", "worker-1=nowhere"], env=env)
    assert r.exit_code == 2 and "nowhere" in r.stderr
