"""why-pending against the loopback API server and the real kubectl: GET only, bounded requests, degrading
on Forbidden, exit codes, targets, the no-target list, --watch, and the explain() API."""

from __future__ import annotations

import copy
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.errors import NotFoundError
from kubectl_pd.pending import explain
from tests.apiserver import TOKEN, Forbid, load_objects, unrelated_workloads
from tests.clock import FakeTime
from tests.conftest import run_kubectl

FIX = Path(__file__).parent / "fixtures" / "pending"
EXAMPLE = Path(__file__).parent.parent / "examples" / "qwen-pd-pending.yaml"
CQ = "gpustack--nvidia-h20-linux-amd64"
FLAVOR = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
# the text's first two lines for qwen-pd of pending/quota-exhausted.yaml (and the example, the same cluster)
HEADLINE = ("PENDING  modeldeployment team-a/qwen-pd is pending (QuotaExhausted): decode needs 2 more cards in "
            f"flavor {FLAVOR}")
STORY = ("prefill would fit alone; decode needs 2 more cards; together they need 4 more cards in flavor "
         f"{FLAVOR}; atomic admission holds both")
VIS_PATH = f"/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/{CQ}/pendingworkloads"


def _forbidden(what: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
            "message": f'{what} is forbidden: User "system:serviceaccount:pd-tests:reader" cannot get resource'}


def test_forbidden_events_and_visibility_degrade_to_notes(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml", forbid=[Forbid("list", "events", "team-a")],
                            raw={VIS_PATH: (403, _forbidden("clusterqueues.visibility.kueue.x-k8s.io"))})
    r = cli(["why-pending", "qwen-pd", "-n", "team-a"], env=env)
    assert r.exit_code == 0, r.stderr
    assert set(server.methods) == {"GET"}
    data = json.loads(cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env).stdout)
    assert [x["code"] for x in data["reasons"]] == ["QuotaExhausted"]  # the diagnosis stands without them
    assert data["queue"]["position"] is None  # the visibility API did not answer
    denied = 'forbidden: RBAC does not let user "system:serviceaccount:pd-tests:reader"'
    assert [n for n in data["notes"] if not n.startswith("deployment phase")] == [  # issue 40: the v1alpha1 phase
        f'could not read events in namespace "team-a": {denied} list events in namespace "team-a"',
        f'could not read the pending workloads of clusterqueue "{CQ}" (visibility API): {denied} get '
        "clusterqueues/pendingworkloads at cluster scope"]
    # the text shows each note as one line
    assert [line for line in r.stdout.splitlines() if line.startswith("  note: ")] == \
        [f"  note: {n}" for n in data["notes"]]


def test_forbidden_cluster_queue_keeps_kueues_words(cli: Any, apiserver: Any) -> None:
    # neither by name nor by the list a live diagnosis reads them with when it may (pending/plan.py)
    server, env = apiserver("pending/quota-exhausted.yaml", forbid=[Forbid("get", "clusterqueues"),
                                                                    Forbid("list", "clusterqueues")])
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["reasons"][0]["code"] == "QuotaExhausted"
    assert data["reasons"][0]["needed"] == "3200k"  # Kueue's own number: our arithmetic had no queue to read
    assert any("clusterqueue" in n for n in data["notes"])


def _unrelated(n: int) -> list[dict[str, Any]]:
    return unrelated_workloads(n, queue="other", message="ClusterQueue other is inactive")


def test_request_count_does_not_grow_with_the_namespace(cli: Any, apiserver: Any) -> None:
    counts = []
    for extra in (0, 10_000):
        server, env = apiserver("pending/per-replica-joint.yaml", _unrelated(extra))
        r = cli(["why-pending", "qwen-pd", "-n", "team-a"], env=env)
        assert r.exit_code == 0, r.stderr
        counts.append(len(server.requests))
        assert not any(q.path.endswith("/workloads") for q in server.requests)
        assert all(q.method == "GET" for q in server.requests)
    # 14 before issue 49; now the first round's bounded sets (pending/plan.py: five cluster-scoped and namespace lists
    # and Kueue's ConfigMap, the LimitRanges were read already) answer the queue and flavor reads by name, and a
    # bare NAME's other forms go out with its first
    assert counts[0] == counts[1] <= 18


def test_not_found_exits_1(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    r = cli(["why-pending", "nope", "-n", "team-a"], env=env)
    # issue 37 U1: a bare NAME tried as each form it may name; the error names the forms tried
    assert (r.exit_code, r.stderr) == (1, 'error: "nope" not found in namespace "team-a" (no modeldeployment, no '
                                          'pod group, no workload of that name); name the form to be sure: '
                                          'md/nope, podgroup/nope, workload/nope or pod/NAME\n')
    r = cli(["why-pending", "md/nope", "-n", "team-a"], env=env)
    assert (r.exit_code, r.stderr) == (1, 'error: modeldeployment "nope" not found in namespace "team-a"\n')
    r = cli(["why-pending", "wl/nope", "-n", "team-a", "-f", str(FIX / "quota-exhausted.yaml")])
    assert (r.exit_code, r.stderr) == (1, 'error: workload "nope" not found in namespace "team-a"\n')


@pytest.mark.parametrize("args", [
    ["why-pending", "qwen-pd", "-o", "xml"],
    ["why-pending", "daemonset/qwen-pd"],
    ["why-pending", "qwen-pd", "-A"],
    ["why-pending", "qwen-pd", "--watch", "-f", str(FIX / "quota-exhausted.yaml")],
    ["why-pending", "--watch", "-o", "json"],  # with no TARGET, --watch follows the table: text only
])
def test_usage_errors_exit_2(cli: Any, args: list[str]) -> None:
    r = cli(args)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ")


@pytest.mark.parametrize("target", ["wl/qwen-pd", "workload/qwen-pd", "podgroup/qwen-pd", "pod/qwen-pd-decode-0",
                                    "modeldeployment/qwen-pd"])
def test_every_target_form(cli: Any, apiserver: Any, target: str) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    r = cli(["why-pending", target, "-n", "team-a", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["reasons"][0]["code"] == "QuotaExhausted"
    assert data["reasons"][0]["role"] == "decode"
    assert set(server.methods) == {"GET"}


def test_per_replica_group_target(cli: Any, apiserver: Any) -> None:
    from kubectl_pd.gpustack.names import hashed

    group = hashed("team-a/qwen-pd/decode/1")
    server, env = apiserver("pending/per-replica-joint.yaml")
    r = cli(["why-pending", f"podgroup/{group}", "-n", "team-a", "-o", "json"], env=env)
    data = json.loads(r.stdout)
    assert data["reasons"][0]["code"] == "QuotaExhausted"
    assert data["reasons"][0]["workload"] == group
    assert len(server.requests) <= 14


def test_through_real_kubectl(apiserver: Any) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    p = run_kubectl(["pd", "why-pending", "qwen-pd", "-n", "team-a"], env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[:2] == [HEADLINE, f"  {STORY}"]
    assert TOKEN not in p.stdout + p.stderr
    p = run_kubectl(["pd", "why-pending", "missing", "-n", "team-a"], env=env)
    assert p.returncode == 1 and p.stderr.startswith("error: ")
    assert set(server.methods) == {"GET"}


def test_watch_until_admitted(cli: Any, apiserver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    admitted = next(o for o in load_objects(FIX / "not-pending.yaml") if o["kind"] == "Workload")
    cq = next(o for o in load_objects(FIX / "not-pending.yaml") if o["kind"] == "ClusterQueue")
    running = [o for o in load_objects(FIX / "not-pending.yaml") if o["kind"] == "Pod"]

    def admit() -> None:  # Kueue admits the Workload and ungates the Pods, which then run
        assert len(server.requests) >= 8  # the first diagnosis has read
        server.put(cq)
        for p in running:
            server.put(p)
        server.put(admitted)

    clock = FakeTime().at(0.5, admit).install(monkeypatch)
    started = time.monotonic()
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "--watch", "--watch-interval", "0.1"], env=env)
    assert r.exit_code == 0, r.stderr
    assert clock.slept and set(clock.slept) == {0.1}
    assert time.monotonic() - started < 20
    first, _, rest = r.stdout.partition("\n--- ")
    stamp, _, second = rest.partition("\n")
    assert first.splitlines()[0] == HEADLINE
    assert re.fullmatch(r"\d\d:\d\d:\d\d", stamp)  # the time of the redraw
    assert second.splitlines()[0] == ("NOT PENDING  modeldeployment team-a/qwen-pd is not pending: Workload qwen-pd "
                                      "is admitted")
    assert set(server.methods) == {"GET"}


def test_no_target_lists_pending_ones(cli: Any, apiserver: Any) -> None:
    r = cli(["why-pending", "-n", "team-a", "-f", str(FIX / "quota-exhausted.yaml")])
    assert r.exit_code == 0
    header, row = r.stdout.splitlines()[:2]
    assert header.split() == ["NAMESPACE", "TARGET", "ROLE", "REASON", "DETAIL"]
    assert row.split()[:4] == ["team-a", "md/qwen-pd", "decode", "QuotaExhausted"]
    server, env = apiserver("pending/per-replica-joint.yaml", _unrelated(3))
    r = cli(["why-pending", "-A"], env=env)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(line.split()[:4] == ["team-a", "md/qwen-pd", "decode", "QuotaExhausted"] for line in lines)
    assert sum(line.split()[1].startswith("wl/batch-") for line in lines[1:]) == 3
    assert set(server.methods) == {"GET"}
    r = cli(["why-pending", "-n", "team-a", "-f", str(FIX / "not-pending.yaml")])
    assert r.stdout.startswith("No pending deployments, pod groups or Workloads in namespace team-a")
    data = json.loads(cli(["why-pending", "-n", "team-a", "-f", str(FIX / "quota-exhausted.yaml"),
                           "-o", "json"]).stdout)
    assert data["items"][0]["reasons"][0]["code"] == "QuotaExhausted"


def test_snapshot_finds_the_namespace(cli: Any, tmp_path: Path) -> None:
    r = cli(["why-pending", "qwen-pd", "--from-file", str(EXAMPLE)])
    assert (r.exit_code, r.stdout.splitlines()[0]) == (0, HEADLINE), r.stderr
    data = json.loads(cli(["why-pending", "qwen-pd", "--from-file", str(EXAMPLE), "-o", "json"]).stdout)
    assert data["target"] == {"kind": "ModelDeployment", "name": "qwen-pd", "namespace": "team-a"}
    assert data["reasons"][0]["code"] == "QuotaExhausted"
    objs = load_objects(EXAMPLE)
    other = copy.deepcopy(next(o for o in objs if o["kind"] == "ModelDeployment"))
    other["metadata"]["namespace"] = "team-b"
    path = tmp_path / "two.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*objs, other]}))
    r = cli(["why-pending", "qwen-pd", "-f", str(path)])
    assert (r.exit_code, r.stderr) == (2, "error: qwen-pd exists in namespaces team-a, team-b of the snapshot: "
                                          "choose one with -n (see 'kubectl pd why-pending --help')\n")


def test_explain_api() -> None:
    source = SnapshotSource.from_paths([str(EXAMPLE)])
    text = explain(source, "qwen-pd", "team-a")
    assert text.splitlines()[:2] == [HEADLINE, f"  {STORY}"]
    assert text.splitlines()[-1] == f"  next: free 4 cards in flavor {FLAVOR} (what the roles need together)"
    colored = explain(source, "md/qwen-pd", "team-a", color=True)
    assert "\x1b[" in colored and "\u2588" in colored
    with pytest.raises(NotFoundError):
        explain(source, "nope", "team-a")
