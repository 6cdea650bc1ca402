"""Typed, frozen records of GPUStack's objects as why-pending reads them (the ModelDeployment, the InstanceType),
parsed once where the run receives them, like kueue/model.py. Never raises: a field that is absent or holds
something else reads as None (or empty); what is kept is what the diagnosis reads, with the same readings the
dict walks had (a role's kind "as written when text", its replicas defaulting to 1, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubectl_pd.kueue.model import Condition, conditions_of, to_int
from kubectl_pd.records import dataclass, field


def _d(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _text(v: Any) -> str | None:
    """A string as written (the empty one too); None for anything else."""
    return v if isinstance(v, str) else None


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


@dataclass(frozen=True)
class SpecRole:
    """One of spec.roles[] (a role that is not an object is not kept)."""

    name: str | None  # None: absent or not text
    kind: str | None  # as written when text
    replicas: int | None  # spec's replicas, 1 when absent; None when unreadable
    size: int | None  # spec's size, 1 when absent; None when unreadable
    instance_type: str | None  # GPUStack v1: the InstanceType (it names the ClusterQueue)
    accelerator_type: str | None


@dataclass(frozen=True)
class RoleStatus:
    """One of status.roles[] with a name: None = absent or unreadable (unknown, never zero)."""

    name: str
    kind: str | None
    desired: int | None
    ready: int | None
    quota_reserved: int | None
    assigned_flavors: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelDeployment:
    name: str
    namespace: str | None
    uid: str | None
    api_version: str | None
    labels: Mapping[str, str] = field(default_factory=dict)
    roles: tuple[SpecRole, ...] = ()
    phase: str | None = None  # status.phase as written when text
    phase_message: str | None = None
    role_summary: str | None = None  # status.roleSummary (`1R3P4D`)
    status_roles: tuple[RoleStatus, ...] = ()
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    artifact: str | None = None  # spec.model.artifactRef.name: the ModelArtifact holding the weights
    status_artifact: str | None = None  # status.model.artifact, once the artifact resolved

    @property
    def is_v1(self) -> bool:
        """GPUStack's published API (`worker.gpustack.ai/v1`)."""
        return (self.api_version or "").endswith("/v1")


def _role(r: dict[str, Any]) -> SpecRole:
    return SpecRole(_text(r.get("name")), _text(r.get("kind")), to_int(r.get("replicas", 1)), to_int(r.get("size", 1)),
                _text(r.get("instanceType")), _text(r.get("acceleratorType")))


def _role_status(r: dict[str, Any]) -> RoleStatus:
    flavors = r.get("assignedFlavors")
    return RoleStatus(str(r["name"]), _s(r.get("kind")), to_int(r.get("desired")), to_int(r.get("ready")),
                      to_int(r.get("quotaReserved")),
                      tuple(f for f in flavors if isinstance(f, str)) if isinstance(flavors, list) else ())


def model_deployment(obj: Any) -> ModelDeployment:
    obj = _d(obj)
    meta, spec, status = _d(obj.get("metadata")), _d(obj.get("spec")), _d(obj.get("status"))
    roles = spec.get("roles")
    listed = status.get("roles") or []
    ns = meta.get("namespace")
    return ModelDeployment(
        name=str(meta.get("name") or ""), namespace=str(ns) if ns else None,
        uid=_s(meta.get("uid")), api_version=_text(obj.get("apiVersion")),
        labels={str(k): v for k, v in _d(meta.get("labels")).items() if isinstance(v, str)},
        roles=tuple(_role(r) for r in (roles if isinstance(roles, list) else []) if isinstance(r, dict)),
        phase=_text(status.get("phase")), phase_message=_s(status.get("phaseMessage")),
        role_summary=_s(status.get("roleSummary")),
        status_roles=tuple(_role_status(_d(r)) for r in (listed if isinstance(listed, list) else [])
                           if _s(_d(r).get("name"))),
        conditions=conditions_of(obj),
        artifact=_s(_d(_d(spec.get("model")).get("artifactRef")).get("name")),
        status_artifact=_s(_d(status.get("model")).get("artifact")))


# The condition types GPUStack's operator writes on a ModelDeployment besides QuotaReserved, in the order
# why-pending reads them (gpustack/lines.py CONDITIONS, with citations); the same for v1alpha1 and v1 (one struct)
OPERATOR_CONDITIONS = ("WeightsReady", "RouterReady", "RoleKindsReady", "DomainRegistered", "CacheAttached",
                       "ReplicasUpToDate", "KVEventsPublishing")


def operator_conditions(md: ModelDeployment) -> tuple[Condition, ...]:
    """The operator's conditions other than QuotaReserved that the object carries, in OPERATOR_CONDITIONS order."""
    return tuple(c for t in OPERATOR_CONDITIONS if (c := md.conditions.get(t)) is not None)


@dataclass(frozen=True)
class InstanceType:
    """GPUStack's InstanceType: `status.entrance` names the LocalQueue of the roles that use it."""

    name: str
    entrance: str | None = None


def instance_type(obj: Any) -> InstanceType:
    obj = _d(obj)
    return InstanceType(str(_d(obj.get("metadata")).get("name") or ""), _s(_d(obj.get("status")).get("entrance")))
