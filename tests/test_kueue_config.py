"""Kueue's Configuration as the engine reads it (kubectl_pd/kueue/config.py)."""

from __future__ import annotations

import pytest

from kubectl_pd.errors import InputError
from kubectl_pd.kueue import config
from kubectl_pd.kueue import preemption as pre

V2 = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
V1 = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"


@pytest.mark.parametrize("text, fair, strategies, gates", [
    (V2, False, pre.DEFAULT_STRATEGIES, {}),
    (V2 + "fairSharing: {}\n", True, pre.DEFAULT_STRATEGIES, {}),
    (V2 + "fairSharing:\n  preemptionStrategies: [LessThanInitialShare]\n", True, ("LessThanInitialShare",), {}),
    (V1 + "fairSharing:\n  enable: true\n", True, pre.DEFAULT_STRATEGIES, {}),
    (V1 + "fairSharing:\n  enable: false\n", False, pre.DEFAULT_STRATEGIES, {}),
    (V2 + "featureGates:\n  SchedulerTimestampPreemptionBuffer: true\n", False, pre.DEFAULT_STRATEGIES,
     {"SchedulerTimestampPreemptionBuffer": True}),
])
def test_parse(text: str, fair: bool, strategies: tuple, gates: dict) -> None:
    cfg = config.parse(text)
    assert (cfg.fair_sharing, cfg.strategies, dict(cfg.gates)) == (fair, strategies, gates)
    assert cfg.settings().fair_sharing == fair
    assert cfg.settings().timestamp_buffer == gates.get("SchedulerTimestampPreemptionBuffer", False)


@pytest.mark.parametrize("text", ["- a list", "kind: Deployment", V2 + "fairSharing: [1]",
                                  V2 + "fairSharing:\n  preemptionStrategies: [Bogus]",
                                  V2 + "featureGates:\n  X: maybe", "a: [unclosed"])
def test_parse_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        config.parse(text)


def test_configmap_and_defaults() -> None:
    cm = {"kind": "ConfigMap", "data": {config.KEY: V2 + "fairSharing: {}\n"}}
    assert config.from_configmap(cm).fair_sharing
    assert config.from_configmap(None).note == config.NOTE_DEFAULTS_ABSENT
    bad = config.from_configmap({"kind": "ConfigMap", "data": {config.KEY: "kind: Nope"}})
    assert (bad.note, bad.fair_sharing) == (config.NOTE_DEFAULTS_INVALID, False)
    assert config.DEFAULTS.gate("FairSharingPreemptWithinNominal") is True


def test_from_file(tmp_path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text(V2 + "fairSharing: {}\n")
    assert config.from_file(str(p)).fair_sharing
    p.write_text("kind: ConfigMap\ndata:\n  controller_manager_config.yaml: |\n    kind: Configuration\n")
    assert config.from_file(str(p)).source == "file"
    p.write_text("kind: Deployment\n")
    with pytest.raises(InputError):
        config.from_file(str(p))
    with pytest.raises(InputError):
        config.from_file(str(tmp_path / "missing.yaml"))


class _Snap:
    is_live = False  # a snapshot (cluster/protocols.Source)

    def __init__(self, objs: list) -> None:
        self.objs = objs

    def get(self, kind: str, name: str, namespace: str | None = None):
        return next((o for o in self.objs if o["kind"] == kind and o["metadata"]["name"] == name), None)


def test_read_from_snapshot() -> None:
    cm = {"kind": "ConfigMap", "metadata": {"name": config.CONFIGMAP, "namespace": config.NAMESPACE},
          "data": {config.KEY: V2 + "fairSharing: {}\n"}}
    from kubectl_pd.cluster.admitted import read_kueue_config

    assert read_kueue_config(_Snap([cm])).fair_sharing  # type: ignore[arg-type]
    assert read_kueue_config(_Snap([])).note == config.NOTE_DEFAULTS_UNREAD  # type: ignore[arg-type]
