"""Issue 42, snapshots: M1 (a 403 that echoes the token is written into the header), M2 (args, command, probes,
annotation JSON or URL values and condition messages keep their credentials; the header says "0 values
redacted"), M7 (`-o DIR/` mixes with an older snapshot's files, so the replay shows a Workload the cluster
does not have)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.snapshot import out as snapshot_out
from tests.apiserver import TOKEN, Fault, load_objects
from tests.test_pending_fixtures import FIX

ARGS = ["qwen-pd", "-n", "team-a"]
SECRETS = ["sk-live-args-do-not-write", "hf_flag_do_not_write", "dXNlcjpwcm9iZS1kby1ub3Qtd3JpdGU=",
           "cmd-secret-do-not-write", "json-key-do-not-write", "url-pass-do-not-write", "cond-token-do-not-write",
           "lifecycle-do-not-write"]


def _files(path: Path) -> str:
    return "".join(p.read_text() for p in sorted(path.iterdir())) if path.is_dir() else path.read_text()


# ------------------------------------------------------------------------------------------------------- M1
@pytest.mark.parametrize("out", ["s.yaml", "s.json", "d/"])
def test_a_403_echoing_the_token_is_not_written_into_the_header(cli: Any, apiserver: Any, tmp_path: Path,
                                                                out: str) -> None:
    echo = Fault("/api/v1/namespaces/team-a/events", status=403, echo="events is forbidden for {auth}")
    _server, env = apiserver("pending/quota-exhausted.yaml", faults=[echo])
    path = str(tmp_path / out) + ("/" if out.endswith("/") else "")
    r = cli(["snapshot", *ARGS, "-o", path], env=env)
    assert r.exit_code == 0, r.stderr
    assert TOKEN not in _files(Path(path)) and TOKEN not in r.stdout + r.stderr
    replay = cli(["why-pending", *ARGS, "-o", "json", "-f", path], env={"NO_COLOR": "1"})
    assert TOKEN not in replay.stdout + replay.stderr


def test_every_header_text_goes_through_the_runs_redaction() -> None:
    """The header's failed and unread texts, whatever echoed them, lose the run's credentials and any by shape."""
    from kubectl_pd import termsafe
    from kubectl_pd.commands.snapshot import _scrub_header

    token = "run-token-0123456789-do-not-write"
    termsafe.remember(token)
    try:
        header = {"failed": [{"verb": "list", "message": f"forbidden for Bearer {token}", "refusal": token}],
                  "unread": [{"read": "events", "error": f"401 for {token}; retry with --token=abcdefgh1"}]}
        tally = snapshot_out.Tally()
        _scrub_header(header, tally)
        assert token not in json.dumps(header) and "abcdefgh1" not in json.dumps(header)
        assert tally.redacted["runCredential"] == 3
    finally:
        termsafe.SECRETS.discard(token)


# ------------------------------------------------------------------------------------------------------- M2
def _plant(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    container = {"args": ["--api-key", "sk-live-args-do-not-write", "--hf-token=hf_flag_do_not_write"],
                 "command": ["sh", "-c", "serve --password cmd-secret-do-not-write"],
                 "readinessProbe": {"httpGet": {"path": "/", "port": 80, "httpHeaders": [
                     {"name": "Authorization", "value": "Basic dXNlcjpwcm9iZS1kby1ub3Qtd3JpdGU="}]}},
                 "lifecycle": {"preStop": {"exec": {"command": ["x", "lifecycle-do-not-write"]}}}}
    for o in objs:
        ann = o.setdefault("metadata", {}).setdefault("annotations", {})
        ann["example.com/config"] = json.dumps({"apiKey": "json-key-do-not-write"})
        ann["example.com/endpoint"] = "https://bot:url-pass-do-not-write@example.com/hook"
        if o["kind"] == "Pod":
            for c in o["spec"]["containers"]:
                c.update(json.loads(json.dumps(container)))
        if o["kind"] == "Workload":
            for ps in o["spec"]["podSets"]:
                for c in ps["template"]["spec"]["containers"]:
                    c.update(json.loads(json.dumps(container)))
            for cond in (o.get("status") or {}).get("conditions") or []:
                cond["message"] = cond.get("message", "") + " (retry with token=cond-token-do-not-write)"
    return objs


@pytest.mark.parametrize("out", ["s.yaml", "d/"])
def test_args_command_probes_annotations_and_messages_keep_no_credential(cli: Any, apiserver: Any,
                                                                          tmp_path: Path, out: str) -> None:
    objs = _plant(load_objects(FIX / "quota-exhausted.yaml"))
    _server, env = apiserver(objs)
    path = str(tmp_path / out) + ("/" if out.endswith("/") else "")
    live = cli(["why-pending", *ARGS, "-o", "json"], env=env)
    r = cli(["snapshot", *ARGS, "-o", path], env=env)
    assert r.exit_code == 0, r.stderr
    text = _files(Path(path))
    assert [s for s in SECRETS if s in text] == []
    header = next(yaml.safe_load_all(text))
    dropped = header["redaction"]["dropped"]
    assert {"args", "command", "probes", "lifecycle", "annotations"} <= set(dropped), dropped
    assert "0 values redacted, 0 fields dropped" not in r.stdout
    replay = cli(["why-pending", *ARGS, "-o", "json", "-f", path], env={"NO_COLOR": "1"})
    got, want = json.loads(replay.stdout), json.loads(live.stdout)
    assert ([x["code"] for x in got["reasons"]], got["pending"]) == ([x["code"] for x in want["reasons"]],
                                                                     want["pending"])


TEXTS = [  # (text written into a snapshot, what stays of it)
    ("--api-key sk-1 --port 8000", "--api-key <redacted> --port 8000"),
    ("--hf-token=hf_abc", "--hf-token=<redacted>"),
    ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic <redacted>"),
    ('{"apiKey": "abc", "replicas": 2}', '{"apiKey": "<redacted>", "replicas": 2}'),
    ("https://u:p4ss@example.com/x?token=zzz&a=1", "https://<redacted>@example.com/x?token=<redacted>&a=1"),
    ("couldn't assign flavors to pod set decode: insufficient quota for nvidia.com/gpu",
     "couldn't assign flavors to pod set decode: insufficient quota for nvidia.com/gpu"),
    ("token: <redacted>", "token: <redacted>"),
    ("-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\nafter", "<redacted>after"),
    ("Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2ln", "Bearer <redacted>"),
]


@pytest.mark.parametrize(("text", "want"), TEXTS)
def test_scrub_text(text: str, want: str) -> None:
    assert snapshot_out.scrub_text(text) == want


def test_a_pod_keeps_what_a_diagnosis_reads_and_drops_the_rest() -> None:
    pod = {"kind": "Pod", "apiVersion": "v1",
           "metadata": {"name": "p", "labels": {"app": "x"},
                        "annotations": {"kueue.x-k8s.io/workload": "w", "example.com/x": "y"}},
           "spec": {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}], "nodeName": "n1",
                    "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}},
                                    "args": ["a"], "env": [{"name": "A", "value": "v"}], "ports": [{"port": 1}]}],
                    "initContainers": [{"name": "s", "restartPolicy": "Always", "command": ["x"]}]},
           "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}}
    kept, tally = snapshot_out.redact_counted(pod)
    assert kept == {"kind": "Pod", "apiVersion": "v1",
                    "metadata": {"name": "p", "labels": {"app": "x"}, "annotations": {"kueue.x-k8s.io/workload": "w"}},
                    "spec": {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}], "nodeName": "n1",
                             "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
                             "initContainers": [{"name": "s", "restartPolicy": "Always"}]},
                    "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}}
    assert tally.dropped == {"args": 1, "env": 1, "otherContainerFields": 1, "command": 1, "annotations": 1}


# ------------------------------------------------------------------------------------------------------- M7
def test_a_directory_with_other_files_is_refused_before_reading(cli: Any, apiserver: Any, tmp_path: Path) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    d = tmp_path / "d"
    d.mkdir()
    (d / "workload.yaml").write_text("apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: ghost}\n")
    before = len(server.requests)
    r = cli(["snapshot", *ARGS, "-o", str(d) + "/"], env=env)
    assert r.exit_code == 1 and r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 1
    assert len(server.requests) == before  # nothing read
    assert "ghost" in (d / "workload.yaml").read_text()


def test_an_older_snapshots_files_are_replaced_and_removed(cli: Any, apiserver: Any, tmp_path: Path) -> None:
    d = tmp_path / "d"
    _s1, env1 = apiserver("pending/waiting-in-queue.yaml")
    assert cli(["snapshot", *ARGS, "-o", str(d) + "/"], env=env1).exit_code == 0
    first = sorted(p.name for p in d.iterdir())
    ghost = d / "ghost.yaml"  # a kind the second cluster does not have, left by the first snapshot
    ghost.write_text("apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: ghost, namespace: team-a}\n")
    marker = d / "kubectl-pd-snapshot.list"
    marker.write_text(marker.read_text() + "ghost.yaml\n")
    _s2, env2 = apiserver("pending/quota-exhausted.yaml")
    r = cli(["snapshot", *ARGS, "-o", str(d)], env=env2)
    assert r.exit_code == 0, r.stderr
    assert not ghost.exists() and "kubectl-pd-snapshot.list" in first
    live = cli(["why-pending", *ARGS, "-o", "json"], env=env2)
    replay = cli(["why-pending", *ARGS, "-o", "json", "-f", str(d)], env={"NO_COLOR": "1"})
    assert replay.stdout == live.stdout


def test_a_marker_naming_paths_outside_the_directory_removes_nothing_there(cli: Any, apiserver: Any,
                                                                          tmp_path: Path) -> None:
    d = tmp_path / "d"
    d.mkdir()
    victim = tmp_path / "victim.yaml"
    victim.write_text("keep: me\n")
    (d / "kubectl-pd-snapshot.list").write_text("../victim.yaml\n")
    _s, env = apiserver("pending/quota-exhausted.yaml")
    assert cli(["snapshot", *ARGS, "-o", str(d)], env=env).exit_code == 0
    assert victim.read_text() == "keep: me\n"
