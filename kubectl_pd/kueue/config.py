"""Kueue's own configuration, as far as admission and preemption depend on it.

Kueue reads `controller_manager_config.yaml` from the ConfigMap `kueue-manager-config` in `kueue-system`
(kind `Configuration`, `config.kueue.x-k8s.io/v1beta2`; v1beta1 still parsed). What matters here:
`fairSharing` (v1beta2: present = on; v1beta1: `enable`), its `preemptionStrategies`, and the feature
gates that change admission or preemption, and `integrations.frameworks` (which objects Kueue manages at all). When
the configuration cannot be read, Kueue's defaults are assumed and `note` says why (a code; printers make the
English); what it enables is then unknown (`frameworks` None), never Kueue's built-in default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubectl_pd.kueue import preemption as pre
from kubectl_pd.records import dataclass, field, replace

NAMESPACE = "kueue-system"
CONFIGMAP = "kueue-manager-config"
KEY = "controller_manager_config.yaml"

# Notes (codes) on where the configuration came from
NOTE_DEFAULTS_FORBIDDEN = "kueue-config-forbidden"  # RBAC refused the ConfigMap
NOTE_DEFAULTS_ABSENT = "kueue-config-absent"  # no such ConfigMap (or key)
NOTE_DEFAULTS_INVALID = "kueue-config-invalid"  # present but not a readable Configuration
NOTE_DEFAULTS_UNREAD = "kueue-config-not-read"  # a snapshot without it and no --kueue-config

# Feature gates (pkg/features/kube_features.go@v0.18.4) that change admission or preemption, with defaults
GATE_DEFAULTS: Mapping[str, bool] = {
    "FlavorFungibility": True,
    "ReclaimablePods": True,
    "PriorityBoost": False,
    "SchedulerTimestampPreemptionBuffer": False,
    "FairSharingPreemptWithinNominal": True,
    "AdmissionFairSharing": False,
    "TopologyAwareScheduling": True,
}

# integrations.frameworks: with none listed Kueue enables only batch/job (apis/config/v1beta2/defaults.go:120@v0.19.2,
# v1beta1/defaults.go:109@v0.18.4). Deployment, StatefulSet and LWS enable `pod` implicitly, but only for their own
# Pods (ImplicitlyEnabledFrameworkNames; pod_controller.go:617@v0.19.2 skips a Pod without the parent annotation):
# a pod group made by hand or by GPUStack's operator needs `pod` listed.
FRAMEWORKS_DEFAULT = ("batch/job",)
POD = "pod"
LWS = "leaderworkerset.x-k8s.io/leaderworkerset"


@dataclass(frozen=True)
class KueueConfig:
    fair_sharing: bool = False
    strategies: tuple[str, ...] = pre.DEFAULT_STRATEGIES
    gates: Mapping[str, bool] = field(default_factory=dict)
    source: str = "defaults"  # configmap | file | defaults
    note: str | None = None
    frameworks: tuple[str, ...] | None = None  # integrations.frameworks as Kueue runs them; None: not read

    def manages(self, framework: str) -> bool | None:
        """Whether Kueue manages FRAMEWORK's objects (listed in integrations.frameworks); None when unknown."""
        return None if self.frameworks is None else framework in self.frameworks

    def gate(self, name: str) -> bool:
        return self.gates.get(name, GATE_DEFAULTS.get(name, False))

    def settings(self, now: float = 0.0) -> pre.Settings:
        return pre.Settings(fair_sharing=self.fair_sharing, strategies=self.strategies,
                            timestamp_buffer=self.gate("SchedulerTimestampPreemptionBuffer"),
                            fs_within_nominal=self.gate("FairSharingPreemptWithinNominal"), now=now)


DEFAULTS = KueueConfig()


def parse(text: str, source: str = "file") -> KueueConfig:
    """A Configuration document; ValueError when it is not one."""
    import yaml

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ValueError("not YAML") from e
    if not isinstance(doc, dict):
        raise ValueError("not a mapping")
    kind = doc.get("kind")
    if kind is not None and kind != "Configuration":
        raise ValueError(f"kind {kind!r}")
    return of(doc, source)


def of(doc: Mapping[str, Any], source: str) -> KueueConfig:
    api = str(doc.get("apiVersion") or "config.kueue.x-k8s.io/v1beta2")
    fs = doc.get("fairSharing")
    if fs is not None and not isinstance(fs, dict):
        raise ValueError("fairSharing is not a mapping")
    enabled = fs is not None if api.endswith("/v1beta2") else bool(fs and fs.get("enable") is True)
    strategies = pre.DEFAULT_STRATEGIES
    raw = (fs or {}).get("preemptionStrategies")
    if raw:
        if not isinstance(raw, list) or any(s not in pre.DEFAULT_STRATEGIES for s in raw):
            raise ValueError("preemptionStrategies")
        strategies = tuple(raw)
    gates_raw = doc.get("featureGates") or {}
    if not isinstance(gates_raw, dict) or any(not isinstance(v, bool) for v in gates_raw.values()):
        raise ValueError("featureGates")
    return KueueConfig(enabled, strategies, {str(k): v for k, v in gates_raw.items()}, source,
                       frameworks=_frameworks(doc.get("integrations")))


def _frameworks(raw: Any) -> tuple[str, ...] | None:
    """integrations.frameworks, Kueue's default when none are listed, None (unknown) when not a list of names
    (the rest of the configuration still counts)."""
    if raw is None:
        return FRAMEWORKS_DEFAULT
    listed = raw.get("frameworks") if isinstance(raw, dict) else False
    if not listed:
        return None if listed is False else FRAMEWORKS_DEFAULT
    return tuple(listed) if isinstance(listed, list) and all(isinstance(x, str) for x in listed) else None


def from_configmap(obj: Any) -> KueueConfig:
    """From the ConfigMap object (None = it does not exist): defaults with a note when unreadable."""
    if not isinstance(obj, dict):
        return KueueConfig(note=NOTE_DEFAULTS_ABSENT)
    text = (obj.get("data") or {}).get(KEY) if isinstance(obj.get("data"), dict) else None
    if not isinstance(text, str):
        return KueueConfig(note=NOTE_DEFAULTS_ABSENT)
    try:
        return parse(text, "configmap")
    except ValueError:
        return KueueConfig(note=NOTE_DEFAULTS_INVALID)


def from_file(path: str) -> KueueConfig:
    """`--kueue-config FILE`: the Configuration itself, or a ConfigMap holding it. InputError when it
    cannot be read: the user named it."""
    from kubectl_pd.errors import InputError

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"--kueue-config {path}: {e.strerror or 'cannot be read'}") from None
    import yaml

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        raise InputError(f"--kueue-config {path}: not YAML") from None
    if isinstance(doc, dict) and doc.get("kind") == "ConfigMap":
        cfg = from_configmap(doc)
        if cfg.note is not None:
            raise InputError(f"--kueue-config {path}: the ConfigMap holds no readable {KEY}")
        return replace(cfg, source="file")
    try:
        return parse(text, "file")
    except ValueError as e:
        raise InputError(f"--kueue-config {path}: not a Kueue Configuration ({e})") from None
