"""`why-pending -l/--field-selector` with no TARGET on a live cluster: the selectors sent to the server first.

Two phases, so that the run's lists stay whole per namespace (a deployment's claim on its pod groups and the
PrefetchedSource index of pending/gather.gather_all assume it):

1. candidates: ModelDeployments, Workloads and group Pods (`kueue.x-k8s.io/pod-group-name`, and
   `kueue.x-k8s.io/managed` for the groups Kueue 0.18+ names by annotation, ANDed to the label selector)
   listed with the user's labelSelector and fieldSelector as query parameters, paged as every list is.
   A kind whose field selector the server refuses is listed by labels alone and its fields compared here
   (the same answer: silent). When the label selector also matches an object with no labels, the
   Workloads are listed by the field selector alone: a pod group none of whose Pods carries the group label is
   judged on a stand-in with the group's (its Workload's) name and no labels.
2. the namespaces of the candidates, each through `gather_all(source, ns)` (past MAX_NAMESPACES: one
   `gather_all(source, None)`), then the same client-side filter as without narrowing decides the rows, in the
   order the all-namespaces run gives them. No candidate: nothing more is read.

A kind that is not served has no candidate (gather_all lists nothing of it either); any other failure of a
candidate list (RBAC refusing a list across namespaces) gives up the narrowing: the run reads what it
reads without selectors, and says what it says then. A snapshot is never narrowed (the filter alone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubectl_pd.cluster.prefetch import together
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.selectors import Selection, parse_field_selector, parse_label_selector
from kubectl_pd.cluster.source import Obj, name_of, namespace_of
from kubectl_pd.errors import ApiUnavailable, FieldSelectorUnsupported
from kubectl_pd.labels import GROUP_LABEL, MANAGED_LABEL
from kubectl_pd.pending.gather import Facts, gather_all
from kubectl_pd.pending.say import Say

MAX_NAMESPACES = 16  # candidate namespaces gathered one by one; past it, one gather of every namespace
SERVER_SIDE = True  # tests turn it off to compare with the client-side answer (no user flag)
Key = tuple[str, str]  # (namespace, name)
Gathered = tuple[list[Facts], list[Say]]


class Candidates:
    """What phase 1 found: per kind, the (namespace, name) of each candidate, in the server's order."""

    def __init__(self, found: Mapping[str, list[Key]]) -> None:
        self.index = {kind: {k: i for i, k in enumerate(keys)} for kind, keys in found.items()}
        seen: dict[str, None] = {}
        for keys in found.values():
            seen.update((ns, None) for ns, _name in keys)
        self.namespaces = list(seen)


def narrowable(source: Source, select: Any) -> Selection | None:
    """The selection to send to the server: a live cluster and -l/--field-selector given, else None."""
    live = SERVER_SIDE and source.is_live
    return select if live and isinstance(select, Selection) else None


def gather_selected(source: Source, namespace: str | None, select: Selection,
                    target_object: Callable[[Facts], Obj]) -> Gathered | None:
    """The facts of the targets `select` keeps (and the run's notes), reading only the namespaces that hold a
    candidate; None when the candidates could not be listed (the caller reads without narrowing)."""
    found = candidates(source, namespace, select)
    if found is None:
        return None
    if not found.namespaces:
        return [], []
    if namespace is not None or len(found.namespaces) > MAX_NAMESPACES:
        facts, notes = gather_all(source, namespace)
    else:
        facts, notes = [], []
        for ns in sorted(found.namespaces):
            more, said = gather_all(source, ns)
            facts.extend(more)
            notes.extend(n for n in said if n not in notes)
    kept = [f for f in facts if select(target_object(f))]
    if namespace is None and len(found.namespaces) <= MAX_NAMESPACES:
        kept.sort(key=lambda f: order(f, found))
    return kept, notes


def order(f: Facts, found: Candidates) -> tuple[int, int]:
    """Where the all-namespaces run puts a target: deployments, then pod groups (by their first Pod), then
    Workloads, each kind in the order the server listed its objects."""
    t = f.target
    if t.kind == "ModelDeployment":
        return 0, found.index["ModelDeployment"].get((t.namespace, t.name), -1)
    if t.kind == "PodGroup" and f.pods:
        return 1, found.index["Pod"].get((f.pods[0].namespace or t.namespace, f.pods[0].name), -1)
    if t.kind == "PodGroup":
        return 2, found.index["Workload"].get((t.namespace, t.name), -1)
    return 3, found.index["Workload"].get((t.namespace, t.name), -1)


def candidates(source: Source, namespace: str | None, select: Selection) -> Candidates | None:
    """Phase 1: the three lists sent together, the selectors as query parameters."""
    labels, fields = select.labels or "", select.fields or ""
    bare = not labels or parse_label_selector(labels)({})  # the stand-in of a pod group with no labelled Pod
    asks = [("ModelDeployment", labels), ("Workload", "" if bare else labels),
            ("Pod", f"{GROUP_LABEL},{labels}" if labels else GROUP_LABEL),
            ("Pod", f"{MANAGED_LABEL},{labels}" if labels else MANAGED_LABEL)]  # groups named by annotation
    results = together([_lister(source, kind, namespace, sel, fields) for kind, sel in asks], True)
    if not all(ok for ok, _value in results):
        return None
    found: dict[str, dict[Key, None]] = {}
    for (kind, _sel), (_ok, value) in zip(asks, results, strict=True):
        found.setdefault(kind, {}).update(dict.fromkeys(value))
    return Candidates({kind: list(keys) for kind, keys in found.items()})


def _lister(source: Source, kind: str, namespace: str | None, labels: str,
            fields: str) -> Callable[[], list[Key]]:
    def run() -> list[Key]:
        try:
            listed = source.list(kind, namespace, label_selector=labels or None, field_selector=fields or None,
                                 reduce=_bare)
        except FieldSelectorUnsupported:  # by labels alone, the fields compared here as the server would
            match = parse_field_selector(fields)
            listed = [o for o in source.list(kind, namespace, label_selector=labels or None, reduce=_bare)
                      if match(o)]
        except ApiUnavailable:  # a kind not served (no GPUStack): no candidate, as gather_all lists nothing of it
            return []
        return [(namespace_of(o) or "", name_of(o)) for o in listed]
    return run


def _bare(obj: Obj) -> Obj:
    """What a candidate keeps of its object: its name and namespace."""
    meta = obj.get("metadata") or {}
    return {"metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")}}
