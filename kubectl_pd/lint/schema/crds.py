"""Where CRD schemas come from: CRDs among the inputs, `--crd PATH`, or the cluster's (GET only).

An index maps (group, version, kind) to the version's `openAPIV3Schema`, so an object is checked
against the schema of the version it is written in, as the API server does.
"""

from __future__ import annotations

from typing import Any

from kubectl_pd.records import dataclass, field

Obj = dict[str, Any]

# the CRDs of the kinds lint reads, fetched by name in live mode
LIVE_CRDS = {"ClusterQueue": "clusterqueues.kueue.x-k8s.io", "Cohort": "cohorts.kueue.x-k8s.io",
             "ResourceFlavor": "resourceflavors.kueue.x-k8s.io", "AdmissionCheck": "admissionchecks.kueue.x-k8s.io",
             "ModelDeployment": "modeldeployments.worker.gpustack.ai"}


@dataclass
class SchemaIndex:
    schemas: dict[tuple[str, str, str], Obj] = field(default_factory=dict)  # (group, version, kind) -> schema
    origins: dict[tuple[str, str], str] = field(default_factory=dict)  # (group, kind) -> where the CRD came from

    def add(self, crd: Obj, origin: str) -> bool:
        """Index one CRD (apiextensions.k8s.io/v1); False when it is not one we can read."""
        spec = crd.get("spec")
        if not isinstance(spec, dict):
            return False
        group = spec.get("group")
        kind = (spec.get("names") or {}).get("kind") if isinstance(spec.get("names"), dict) else None
        versions = spec.get("versions")
        if not isinstance(group, str) or not isinstance(kind, str) or not isinstance(versions, list):
            return False
        added = False
        for v in versions:
            schema = ((v.get("schema") or {}).get("openAPIV3Schema") if isinstance(v, dict) else None)
            if isinstance(schema, dict) and isinstance(v.get("name"), str):
                self.schemas[(group, v["name"], kind)] = schema
                added = True
        if added:
            self.origins[(group, kind)] = origin
        return added

    def schema_for(self, obj: Obj) -> Obj | None:
        api = str(obj.get("apiVersion") or "")
        group, _, version = api.rpartition("/")
        return self.schemas.get((group, version, str(obj.get("kind") or "")))

    def knows_kind(self, obj: Obj) -> bool:
        group = str(obj.get("apiVersion") or "").rpartition("/")[0]
        return (group, str(obj.get("kind") or "")) in self.origins

    def __bool__(self) -> bool:
        return bool(self.schemas)


def is_crd(obj: Obj) -> bool:
    return obj.get("kind") == "CustomResourceDefinition" and str(obj.get("apiVersion", "")).startswith(
        "apiextensions.k8s.io/")
