"""`kubectl pd snapshot` redacts (issue 32, item 4): Secrets, container environment values, tokens, keys and
certificates planted everywhere a diagnosis reads (Pods, Workload templates, the ModelDeployment, annotations,
Events, Kueue's ConfigMap) never reach the file; managedFields and last-applied are dropped; the verdict
replayed from the redacted snapshot is still the live one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.snapshot import out as snapshot_out
from tests.apiserver import load_objects
from tests.test_pending_fixtures import FIX

PLANTED = ["env-value-do-not-write", "annotation-token-do-not-write", "last-applied-do-not-write",
           "managed-do-not-write", "secret-data-do-not-write", "c2VjcmV0LWRhdGEtZG8tbm90LXdyaXRl",
           "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0", "MIIBplantedCERT", "role-env-do-not-write",
           "password-do-not-write"]
PEM = "-----BEGIN CERTIFICATE-----\nMIIBplantedCERT\n-----END CERTIFICATE-----\n"


def _plant(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    env = [{"name": "HF_TOKEN", "value": "env-value-do-not-write"},
           {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
           {"name": "PLAIN"}]
    for o in objs:
        meta = o.setdefault("metadata", {})
        meta.setdefault("annotations", {})["example.com/api-token"] = "annotation-token-do-not-write"
        meta["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = '{"last-applied-do-not-write":1}'
        meta["managedFields"] = [{"manager": "managed-do-not-write", "operation": "Update"}]
        if o["kind"] == "Pod":
            for c in o["spec"]["containers"]:
                c["env"] = json.loads(json.dumps(env))
        if o["kind"] == "Workload":
            for ps in o["spec"]["podSets"]:
                for c in ps["template"]["spec"]["containers"]:
                    c["env"] = json.loads(json.dumps(env))
        if o["kind"] == "ModelDeployment":
            o["spec"]["roles"][0]["env"] = [{"name": "X", "value": "role-env-do-not-write"}]
        if o["kind"] == "Event":
            o["message"] += " (Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2ln)"
    objs.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "team-a"},
                 "data": {"password": "c2VjcmV0LWRhdGEtZG8tbm90LXdyaXRl"},
                 "stringData": {"x": "secret-data-do-not-write"}})
    objs.append({"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
                 "data": {"controller_manager_config.yaml": "apiVersion: config.kueue.x-k8s.io/v1beta1\n"
                                                            "kind: Configuration\n",
                          "ca.crt": PEM, "notes": PEM, "db-password": "password-do-not-write"}})
    return objs


@pytest.mark.parametrize(("fixture", "out"), [("quota-exhausted", "snap.yaml"), ("quota-exhausted", "snap.json"),
                                             ("quota-exhausted", "dir/"), ("needs-preemption", "snap.yaml")])
def test_nothing_planted_is_written(cli: Any, apiserver: Any, tmp_path: Path, fixture: str, out: str) -> None:
    objs = _plant(load_objects(FIX / f"{fixture}.yaml"))
    _server, env = apiserver(objs)
    path = str(tmp_path / out) + ("/" if out.endswith("/") else "")
    live = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    r = cli(["snapshot", "qwen-pd", "-n", "team-a", "-o", path], env=env)
    assert r.exit_code == 0, r.stderr
    files = [p for p in Path(path).iterdir()] if out.endswith("/") else [Path(path)]
    text = "".join(p.read_text() for p in files)
    assert [s for s in PLANTED if s in text] == []
    assert "kind: Secret" not in text and '"kind": "Secret"' not in text
    assert "managedFields" not in text and "last-applied-configuration" not in text
    assert "HF_TOKEN" not in text and "DB_PASSWORD" not in text  # env is dropped whole (issue 42, M2)
    if fixture == "needs-preemption":  # preemption reads Kueue's configuration: kept, its secrets not
        assert "kueue-manager-config" in text and "controller_manager_config.yaml" in text
    replay = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json", "-f", path])
    assert replay.stdout == live.stdout
    assert [s for s in PLANTED if s in r.stdout + r.stderr] == []


# (object, redacted values) pure cases of snapshot_out.redact
CASES = [
    ({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s"}}, None),
    ({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "labels": {"token": "t-planted-value"}},
      "spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "v"}, {"name": "B"}]}]}},
     {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "labels": {"token": "<redacted>"}},
      "spec": {"containers": [{"name": "c"}]}}),
    ({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c"}, "data": {"secretName": "db-creds",
                                                                                 "list": ["x", PEM]}},
     {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c"}, "data": {"secretName": "db-creds",
                                                                                 "list": ["x", "<redacted>"]}}),
    ({"kind": "Workload", "apiVersion": "kueue.x-k8s.io/v1beta2", "metadata": {"name": "w"},
      "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1}]}},
     {"kind": "Workload", "apiVersion": "kueue.x-k8s.io/v1beta2", "metadata": {"name": "w"},
      "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1}]}}),
]


@pytest.mark.parametrize(("obj", "want"), CASES)
def test_redact(obj: dict[str, Any], want: dict[str, Any] | None) -> None:
    got, _n = snapshot_out.redact(obj)
    assert got == want
