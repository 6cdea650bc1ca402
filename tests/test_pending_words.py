"""Issue 20 item 2 for the reads: the core describes a read that failed by a typed record (say.Read: kind,
name, namespace, purpose code), and only the printer (pending/words.py) names it, in the words the notes,
the errors and the `incomplete` list of -o json said before the record existed.

The expected words are the f-strings pending/gather.py composed until this change (commit 22892e6):
they are the oracle, since every golden file and the users' scripts rest on them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.errors import EXIT_FAILED
from kubectl_pd.pending import words
from kubectl_pd.pending.gather import gather, gather_all
from kubectl_pd.pending.say import Read
from kubectl_pd.pending.target import IncompleteError, Target, Unread
from tests.apiserver import Fault, Forbid

NS = "team-a"
CQ = "gpustack--nvidia-h20-linux-amd64"
KUEUE = "/apis/kueue.x-k8s.io/v1beta2"

# (the record the core returns, the words the printer gives it)
READS = [
    (Read("Workload", "qwen-pd"), 'workload "qwen-pd"'),
    (Read("ClusterQueue", "gpu"), 'clusterqueue "gpu"'),
    (Read("LocalQueue", "lq", NS), 'localqueue "lq" in "team-a"'),
    (Read("ModelDeployment", "qwen-pd"), 'modeldeployment "qwen-pd"'),
    (Read("Pod", "p-0"), 'pod "p-0"'),
    (Read("InstanceType", "h20"), 'instancetype "h20"'),
    (Read("ResourceFlavor", "f"), 'resourceflavor "f"'),
    (Read("AdmissionCheck", "c"), 'admissioncheck "c"'),
    (Read("Namespace", NS), 'namespace "team-a"'),
    (Read("Workload", purpose="pod-workload"), "the pod's Workload"),
    (Read("ClusterQueue", purpose="cohort-peers"), "clusterqueues (the cohort's peers)"),
    (Read("Cohort", purpose="list"), "cohorts"),
    (Read("LimitRange", namespace=NS, purpose="list"), 'limitranges in "team-a"'),
    (Read("Event", namespace=NS, purpose="events"), 'events in namespace "team-a"'),
    (Read("Node", "f", purpose="flavor-nodes"), "the nodes of flavor f"),
    (Read("Workload", "w", "team-b", purpose="ahead"), 'workload "w" in "team-b" (ahead in the queue)'),
    (Read("ClusterQueue", "gpu", purpose="pending-workloads"),
     'the pending workloads of clusterqueue "gpu" (visibility API)'),
    # a run's memo (PrefetchedSource) names what it could not read by kind (its namespace said apart)
    (Read("Event", purpose="list"), "events"),
    (Read("LocalQueue", "lq"), 'localqueue "lq"'),
    (Read("", "/apis/x/v1/y", purpose="raw"), "/apis/x/v1/y"),
    (Read("SomethingUnknown", purpose="list"), "SomethingUnknown"),  # a kind the table lacks: its own name
]


@pytest.mark.parametrize(("read", "said"), READS, ids=[s for _r, s in READS])
def test_each_read_is_named_as_before(read: Read, said: str) -> None:
    assert words.read_text(read) == said


def test_every_purpose_has_words() -> None:
    from typing import get_args

    from kubectl_pd.pending.say import ReadPurpose

    assert set(get_args(ReadPurpose)) == {r.purpose for r, _s in READS}


@pytest.mark.parametrize(("kind", "said"), [("ModelDeployment", "modeldeployment"), ("Workload", "workload"),
                                            ("PodGroup", "pod group"), ("Pod", "pod")])
def test_incomplete_message_names_the_target_and_at_most_three_reads(kind: str, said: str) -> None:
    unread = [Unread(Read("Workload", f"g{i}"), f"e{i}") for i in range(4)]
    e = words.incomplete_error(Target(kind, "x", NS), unread)
    assert e.message == (f"the diagnosis of {said} team-a/x is incomplete, so there is no verdict: could not read "
                         'workload "g0": e0; workload "g1": e1; workload "g2": e2')
    assert e.unread == unread and e.target == Target(kind, "x", NS)
    assert e.exit_code == EXIT_FAILED


@pytest.mark.parametrize(("id_", "args", "said"), [
    ("note.unread", {"what": Read("Event", namespace=NS, purpose="events"), "message": "m"},
     'could not read events in namespace "team-a": m'),
    ("note.run-unread", {"what": Read("LimitRange", purpose="list"), "ns": NS, "message": "m"},
     'could not read limitranges in namespace "team-a" (read once for every target of the run): m'),
    ("note.run-unread", {"what": Read("ClusterQueue", "gpu"), "ns": None, "message": "m"},
     'could not read clusterqueue "gpu" (read once for every target of the run): m'),
])
def test_unread_notes(id_: str, args: dict[str, Any], said: str) -> None:
    from kubectl_pd.pending.say import Say

    assert words.text(Say(id_, args)) == said


# -- live, through the loopback API server and a real kubeconfig -------------------------------------------------

def test_a_failed_read_is_recorded_typed(apiserver: Any) -> None:
    _server, env = apiserver("pending/quota-exhausted.yaml",
                             faults=[Fault(f"{KUEUE}/namespaces/{NS}/workloads/*", status=504, body=b"gateway",
                                           content_type="text/plain")])
    source = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"], request_timeout=5.0))
    facts = gather(source, Target("ModelDeployment", "qwen-pd", NS), strict=False)
    assert [u.read for u in facts.incomplete] == [Read("Workload", "qwen-pd")]
    with pytest.raises(IncompleteError) as caught:
        gather(source, Target("ModelDeployment", "qwen-pd", NS))
    assert [u.read for u in caught.value.unread] == [Read("Workload", "qwen-pd")]


def test_a_runs_unread_reads_are_typed_and_said_once(cli: Any, apiserver: Any) -> None:
    forbid = [Forbid("list", "events", NS), Forbid("list", "limitranges"), Forbid("get", "clusterqueues"),
              Forbid("list", "clusterqueues")]  # -A reads the ClusterQueues by a list first (issue 49), then by name
    _server, env = apiserver("pending/quota-exhausted.yaml", forbid=forbid)
    source = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"], request_timeout=5.0))
    _facts, notes = gather_all(source, NS)
    assert [(n.id, n.args["what"], n.args["ns"]) for n in notes] == [
        ("note.run-unread", Read("ClusterQueue", CQ), None),
        ("note.run-unread", Read("LimitRange", purpose="list"), NS),
        ("note.run-unread", Read("Event", purpose="list"), NS)]
    r = cli(["why-pending", "-n", NS], env=env)
    assert r.exit_code == 0, r.stderr
    denied = 'forbidden: RBAC does not let user "system:serviceaccount:pd-tests:reader"'
    run = "(read once for every target of the run)"
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("note: ")] == [  # notes are stderr's (issue 37)
        f'note: could not read clusterqueue "{CQ}" {run}: {denied} get clusterqueues.kueue.x-k8s.io at cluster scope',
        f'note: could not read limitranges in namespace "{NS}" {run}: {denied} list limitranges in namespace "{NS}"',
        f'note: could not read events in namespace "{NS}" {run}: {denied} list events in namespace "{NS}"']


def test_json_incomplete_entries_keep_their_words(cli: Any, apiserver: Any) -> None:
    from kubectl_pd.gpustack.names import hashed

    broken = hashed("team-a/qwen-pd/decode/1")
    _server, env = apiserver("pending/per-replica-joint.yaml",
                             faults=[Fault(f"{KUEUE}/namespaces/{NS}/workloads/{broken}", status=504,
                                           body=b"gateway timeout", content_type="text/plain")])
    r = cli(["why-pending", "qwen-pd", "-n", NS, "-o", "json", "--request-timeout", "5s"], env=env)
    if r.exit_code == 0:  # the verdict stands on the Workloads that were read
        data = json.loads(r.stdout)
        assert [x["read"] for x in data["incomplete"]] == [f'workload "{broken}"']
        assert data["incomplete"][0]["error"].startswith("the API server answered 504 to GET workloads")
    else:
        assert r.exit_code == EXIT_FAILED and r.stdout == ""


# -- preemption's reads decide by the error's type, not by reading its words ---------------------------------------

def _admitted(name: str, cq: str) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": name, "namespace": NS,
                                                                                   "uid": f"uid-{name}"},
            "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1}]},
            "status": {"admission": {"clusterQueue": cq, "podSetAssignments": [
                {"name": "main", "flavors": {"cpu": "f"}, "resourceUsage": {"cpu": "1"}, "count": 1}]},
                "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}


@pytest.mark.parametrize("refused", [False, True])
def test_a_refused_workload_field_selector_falls_back_to_one_list(apiserver: Any, refused: bool) -> None:
    from kubectl_pd.kueue import preempt_reads

    server, env = apiserver([_admitted("a", "gpu"), _admitted("b", "other"), _admitted("c", "gpu")],
                            refuse_fields={preempt_reads.SELECTOR} if refused else set())
    source = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"], request_timeout=5.0))
    from kubectl_pd.cluster.admitted import read_admitted

    reads = read_admitted(source, ["gpu", "other"])
    assert (reads.unknown, reads.fallback) == (None, refused)
    assert {q: sorted(w.name for w in ws) for q, ws in reads.workloads.items()} == {"gpu": ["a", "c"],
                                                                                   "other": ["b"]}
    assert reads.requests == 2  # one list per queue; refused: the refused list, then one wide list for both
    assert [q.query.get("fieldSelector") for q in server.lists("workloads")] == (
        [f"{preempt_reads.SELECTOR}=gpu", None] if refused else
        [f"{preempt_reads.SELECTOR}=gpu", f"{preempt_reads.SELECTOR}=other"])


# -- a note names the read, then RBAC's refusal (the error's `refusal`, never its message cut at a word) -----------

def test_a_refused_list_is_noted_with_the_refusal_alone(cli: Any, apiserver: Any) -> None:
    from kubectl_pd.errors import ForbiddenError

    _server, env = apiserver("pending/quota-exhausted.yaml", forbid=[Forbid("list", "modeldeployments")])
    source = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"], request_timeout=5.0))
    with pytest.raises(ForbiddenError) as refused:
        source.list("ModelDeployment")
    e = refused.value
    assert (e.verb, e.resource, e.namespace) == ("list", "modeldeployments.worker.gpustack.ai", "")
    assert e.message.startswith(e.refusal + ": ") and e.refusal != e.message  # the remedy follows the refusal
    _facts, notes = gather_all(source, None)
    assert [(n.id, n.args) for n in notes] == [("note.unlisted", {"kind": "ModelDeployment", "message": e.refusal})]
    r = cli(["why-pending", "-A"], env=env)
    # issue 37 W6: what the refused list would have shown is unknown: kubectl's Forbidden, exit 1, said once
    assert r.exit_code == 1, r.stderr
    assert r.stderr.splitlines() == [
        'error: cannot tell what is pending in any namespace: could not list ModelDeployments: forbidden: RBAC does '
        'not let user "system:serviceaccount:pd-tests:reader" list modeldeployments.worker.gpustack.ai at cluster '
        'scope']


def test_a_forbidden_error_made_without_a_refusal_is_its_own_refusal() -> None:
    from kubectl_pd.errors import ForbiddenError

    assert ForbiddenError("forbidden: no").refusal == "forbidden: no"
