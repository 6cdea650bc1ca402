"""What the checks know beyond the object they read: limits, profile and the referenced objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_pd.gpustack.roles import PD_ATOMIC
from kubectl_pd.kueue.versions import DEFAULT_TARGET, MODERN, KueueLine, Limits
from kubectl_pd.lint.findings import PathT
from kubectl_pd.records import dataclass, field

if TYPE_CHECKING:
    from kubectl_pd.lint.frameworks import Peer
    from kubectl_pd.lint.schema.crds import SchemaIndex

Obj = dict[str, Any]

ACCEL_LABEL_PREFIX = "acceleratable.feature.gpustack.ai/"
_NOT_KEYS = (".count", ".capacity")


class Malformed(Exception):  # noqa: N818 - reads better at the raise site
    """An object whose shape no rule can read (e.g. resourceGroups that is not a list): input error."""

    def __init__(self, obj: Obj, path: PathT, message: str) -> None:
        super().__init__(message)
        self.obj = obj
        self.path = path
        self.message = message


@dataclass
class LintContext:
    """Limits, the ModelDeployment profile, and the objects references are checked against.

    `flavors` / `admission_checks` are None when unknown (files without any): PD111/PD112 are then
    skipped rather than reported against objects we cannot see.
    """

    limits: Limits = MODERN
    profile: str = PD_ATOMIC
    flavors: dict[str, Obj] | None = None
    admission_checks: set[str] | None = None
    queues: dict[str, Obj] = field(default_factory=dict)
    cohorts: dict[str, str | None] | None = None  # Cohort -> its parentName, when Cohorts are at hand (PD413)
    feature_gates: dict[str, bool] = field(default_factory=dict)  # Kueue's gates, as --feature-gates says
    schemas: SchemaIndex | None = None  # CRD schemas known (inputs, --crd, live); None: built-in facts only
    kueue: KueueLine = DEFAULT_TARGET  # the Kueue version judged against (--kueue-version, discovery, or the default)
    # the PD frameworks (PD414-PD416): LocalQueues read ((namespace, name) -> object; None: none read, and why),
    # the role objects of each deployment, live or files, and the reads RBAC refused (their part is unknown: exit 1)
    local_queues: dict[tuple[str, str], Obj] | None = None
    local_queues_why: str | None = None
    peers: dict[tuple[str, str, str], list[Peer]] = field(default_factory=dict)
    live: bool = False
    unread: list[str] = field(default_factory=list)

    def pool_accelerator_keys(self, instance_type: str) -> set[str] | None:
        """Accelerator keys offered by the flavors of the pool (ClusterQueue) named `instance_type`.

        None when that cannot be known (queue or flavors unknown, or a pool with no flavors yet).
        """
        if self.flavors is None:
            return None
        cq = self.queues.get(instance_type)
        if cq is None:
            return None
        names = flavor_names(cq)
        keys: set[str] = set()
        found = False
        for name in names:
            rf = self.flavors.get(name)
            if rf is None:
                continue
            found = True
            labels = (rf.get("spec") or {}).get("nodeLabels") or {}
            if not isinstance(labels, dict):
                continue
            for label in labels:
                if isinstance(label, str) and label.startswith(ACCEL_LABEL_PREFIX):
                    key = label[len(ACCEL_LABEL_PREFIX):]
                    if key and not key.endswith(_NOT_KEYS):
                        keys.add(key)
        return keys if found else None


def flavor_names(queue: Obj) -> list[str]:
    """Every flavor name a ClusterQueue or Cohort references, in spec order."""
    out: list[str] = []
    spec = queue.get("spec")
    groups = spec.get("resourceGroups") if isinstance(spec, dict) else None
    for g in groups if isinstance(groups, list) else []:
        flavors = g.get("flavors") if isinstance(g, dict) else None
        for f in flavors if isinstance(flavors, list) else []:
            if isinstance(f, dict) and isinstance(f.get("name"), str):
                out.append(f["name"])
    return out
