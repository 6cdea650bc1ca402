"""A snapshot's fields why-pending reads, checked where they were written: what the API server would
refuse (a quota that is not a quantity, resourceGroups or roles that are not lists) is malformed input,
exit 2 with `file:line`, not a diagnosis. Live objects passed the API server's schema; the admission
engine still calls whatever it cannot read unknown, never zero."""

from __future__ import annotations

from typing import Any

from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.source import Obj, name_of
from kubectl_pd.errors import InputError
from kubectl_pd.kueue.normalize import normalize
from kubectl_pd.kueue.quantity import api_parses

QUOTAS = ("nominalQuota", "borrowingLimit", "lendingLimit")


def _fail(source: Source, obj: Obj, path: tuple[str | int, ...], what: str) -> InputError:
    origin = source.origin(obj)
    line = origin.line_of(path) or origin.line
    where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")
    return InputError(f"{origin.file}:{line}: {obj.get('kind')}/{name_of(obj)}: {where} {what}")


def _quantity(value: Any) -> bool:
    return api_parses(value)


def check(source: Source) -> None:
    """Raise InputError at the first field of a ClusterQueue, Cohort or ModelDeployment that the API server
    would not have stored. Every object of the files is checked, also those a snapshot's header says were
    refused when it was taken (`stored`: reads without the replay of those refusals)."""
    every = source.stored
    for kind in ("ClusterQueue", "Cohort"):
        for obj in every(kind):
            spec = normalize(obj).get("spec") or {}
            groups = spec.get("resourceGroups")
            if groups is None:
                continue
            if not isinstance(groups, list):
                raise _fail(source, obj, ("spec", "resourceGroups"), "is not a list")
            for i, g in enumerate(groups):
                for j, f in enumerate((g or {}).get("flavors") or [] if isinstance(g, dict) else []):
                    for k, r in enumerate((f or {}).get("resources") or [] if isinstance(f, dict) else []):
                        for key in QUOTAS:
                            if isinstance(r, dict) and key in r and not _quantity(r[key]):
                                path = ("spec", "resourceGroups", i, "flavors", j, "resources", k, key)
                                raise _fail(source, obj, path, f"is not a Kubernetes quantity ({r[key]!r:.40})")
    for obj in every("ModelDeployment"):
        roles = (obj.get("spec") or {}).get("roles")
        if roles is not None and not isinstance(roles, list):
            raise _fail(source, obj, ("spec", "roles"), "is not a list")
