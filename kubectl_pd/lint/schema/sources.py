"""Fill the schema index: CRD files (`--crd PATH`) and the cluster's installed CRDs (GET only)."""

from __future__ import annotations

from collections.abc import Sequence

from kubectl_pd.cluster.protocols import Source
from kubectl_pd.errors import ApiUnavailable, ForbiddenError, InputError
from kubectl_pd.lint.schema.crds import LIVE_CRDS, SchemaIndex, is_crd


def from_files(paths: Sequence[str], index: SchemaIndex | None) -> SchemaIndex:
    """The CRDs in `paths` (what `kubectl get crd NAME -o yaml` writes; Lists and directories too)."""
    from kubectl_pd.cluster.snapshot import SnapshotSource

    index = index if index is not None else SchemaIndex()
    found = 0
    for obj in SnapshotSource.from_paths(paths).all_objects():
        if is_crd(obj) and index.add(obj, "--crd"):
            found += 1
    if not found:
        raise InputError(f"--crd {', '.join(paths)}: no CustomResourceDefinition with a schema found")
    return index


def from_cluster(source: Source, kinds: set[str], index: SchemaIndex | None, notes: list[str]) -> SchemaIndex:
    """The installed CRDs of the `kinds` read, one GET each; what cannot be read is said in a note."""
    index = index if index is not None else SchemaIndex()
    for kind, name in LIVE_CRDS.items():
        if kind not in kinds:
            continue
        try:
            crd = source.get("CustomResourceDefinition", name)
        except ForbiddenError:
            notes.append("RBAC hides CustomResourceDefinitions: the CRDs' schema and CEL rules (PD501/PD502) "
                         "not checked; built-in Kueue facts only")
            return index
        except ApiUnavailable:
            notes.append("the cluster serves no apiextensions.k8s.io API: PD501/PD502 not checked")
            return index
        if crd is not None:
            index.add(crd, "the cluster")
    return index
