"""create's preflight and Kueue's integrations (kubectl_pd/kueue/config.py `frameworks`, create/preflight.py
`integration-off`): a pod group needs Kueue's `pod` integration listed, an LWS or DisaggregatedSet the LWS
integration; a configuration that was read and does not list it is an error (the Pods would run outside the queue's
quota), a configuration not read is no claim. Pure tables for the parse and the verdict; the loopback API server for
the reads."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from kubectl_pd.create import frameworks as fw
from kubectl_pd.create.preflight import ERROR, INTEGRATION, integration_finding
from kubectl_pd.kueue import config
from tests.apiserver import Forbid
from tests.test_create_frameworks import BASE, DS_CRD, LWS_CRD, NS, PREFILL, _cluster, _served

POD_GROUP = [*BASE[:BASE.index("--role")], "--role", PREFILL, "--role",
             "name=decode,kind=decode,replicas=2,accelerator=4,image=img"]  # a pod group has no size

V2 = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
V1 = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"


@pytest.mark.parametrize("text, frameworks", [
    (V2, config.FRAMEWORKS_DEFAULT),  # none listed: Kueue's default, batch/job alone
    (V1 + "integrations: {}\n", config.FRAMEWORKS_DEFAULT),
    (V2 + "integrations:\n  frameworks: []\n", config.FRAMEWORKS_DEFAULT),
    (V2 + "integrations:\n  frameworks: [pod, deployment]\n", ("pod", "deployment")),
    (V1 + f"integrations:\n  frameworks: [batch/job, {config.LWS}]\n", ("batch/job", config.LWS)),
    (V2 + "integrations:\n  frameworks: pod\n", None),  # not a list: unknown, the rest still counts
    (V2 + "integrations: [pod]\n", None),
    (V2 + "integrations:\n  frameworks: [pod, 3]\n", None),
], ids=["none", "empty-v1", "empty-list", "listed", "lws", "a-string", "a-list", "not-names"])
def test_the_frameworks_kueue_runs(text: str, frameworks: tuple[str, ...] | None) -> None:
    assert config.parse(text).frameworks == frameworks


@pytest.mark.parametrize("obj", [None, {"data": {}}, {"data": {config.KEY: "{"}}], ids=["absent", "no-key", "bad"])
def test_a_configuration_not_read_knows_no_framework(obj: Any) -> None:
    cfg = config.from_configmap(obj)
    assert (cfg.frameworks, cfg.manages(config.POD)) == (None, None)


JOB = config.KueueConfig(frameworks=("batch/job",), source="configmap")
PODS = config.KueueConfig(frameworks=("pod",), source="configmap")
EVERY = config.KueueConfig(frameworks=("pod", "deployment", config.LWS), source="configmap")
UNREAD = config.KueueConfig(note=config.NOTE_DEFAULTS_FORBIDDEN)


@pytest.mark.parametrize("cfg, target, framework", [
    (JOB, "pods", config.POD), (JOB, "modeldeployment", config.POD), (JOB, fw.LWS, config.LWS),
    (JOB, fw.DS, config.LWS), (PODS, fw.LWS, config.LWS), (PODS, fw.DS, config.LWS),
    (PODS, "pods", None), (PODS, "modeldeployment", None), (EVERY, fw.LWS, None), (EVERY, fw.DS, None),
    (UNREAD, "pods", None), (UNREAD, fw.LWS, None),
])
def test_the_integration_verdict(cfg: config.KueueConfig, target: str, framework: str | None) -> None:
    f = integration_finding(cfg, target)
    if framework is None:
        assert f is None
        return
    assert f is not None
    assert (f.severity, f.check, f.forceable, f.params["framework"], f.params["frameworks"]) == (
        ERROR, INTEGRATION, True, framework, list(cfg.frameworks or ()))
    assert f.message and "\n" not in f.message


def _configmap(frameworks: list[str] | None) -> dict[str, Any]:
    doc: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
    if frameworks is not None:
        doc["integrations"] = {"frameworks": frameworks}
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": config.CONFIGMAP, "namespace": config.NAMESPACE},
            "data": {config.KEY: yaml.safe_dump(doc)}}


@pytest.mark.parametrize("target", ["pods", fw.LWS, fw.DS])
@pytest.mark.parametrize("frameworks, off", [
    (None, True),  # no integrations: batch/job only
    (["batch/job", "pod"], "lws"),  # pod groups managed, LWS not
    (["pod", config.LWS], False),
], ids=["default", "pod-only", "both"])
def test_the_preflight_says_when_kueue_would_not_manage_the_objects(
        cli: Callable, apiserver: Callable, target: str, frameworks: list[str] | None, off: bool | str) -> None:
    server, env = apiserver([*_cluster(LWS_CRD, DS_CRD), _configmap(frameworks)], namespace=NS,
                            groups=_served(LWS_CRD, DS_CRD))
    expected = off is True or (off == "lws" and target != "pods")
    for force in ([], ["--force"]):
        r = cli([*(POD_GROUP if target == "pods" else BASE), "--target", target, "--preflight", "-o", "json",
                 *force], env=env)
        doc = json.loads(r.stdout)
        found = [f for f in doc["findings"] if f["check"] == INTEGRATION]
        assert bool(found) == expected
        if found:
            assert found[0]["params"]["framework"] == (config.POD if target == "pods" else config.LWS)
            assert (found[0]["severity"], found[0]["forceable"]) == ("error", True)
            assert (doc["wouldCreate"], r.exit_code) == ((True, 0) if force else (False, 1))
    reads = [x.path for x in server.requests if x.path.endswith(f"/configmaps/{config.CONFIGMAP}")]
    assert len(reads) == 2  # once a run


def test_a_refused_configuration_claims_nothing(cli: Callable, apiserver: Callable) -> None:
    _, env = apiserver([*_cluster(LWS_CRD, DS_CRD), _configmap(None)], namespace=NS,
                       groups=_served(LWS_CRD, DS_CRD), forbid=[Forbid("get", "configmaps")])
    r = cli([*BASE, "--target", fw.LWS, "--preflight", "-o", "json"], env=env)
    doc = json.loads(r.stdout)
    assert INTEGRATION not in {f["check"] for f in doc["findings"]}
