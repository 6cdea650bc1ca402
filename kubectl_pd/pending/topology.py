"""Topology-aware scheduling: a role's topology request that the TAS flavor's topology cannot meet.

Kueue's words (v0.18.4 and v0.19.2, pkg/cache/scheduler/tas_flavor_snapshot.go, notFitMessage and
multiLayerNotFitMessage), embedded by flavorassigner.go as `couldn't assign flavors to pod set %s: <...>`:
  topology %q allows to fit only %d out of %d %s(s)      (%s = pod, or slice when the slice size > 1)
  topology %q doesn't allow to fit any of %d %s(s)
  topology %q doesn't allow to fit; %d/%d slice(s) fit on level %s ...
each optionally followed by `. Total nodes: %d; excluded: <reasons>`. The level is not in the message: it
comes from the pod set's `topologyRequest` (v1beta2) or its template's `kueue.x-k8s.io/podset-*-topology`
annotations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubectl_pd.kueue import messages as km
from kubectl_pd.kueue.model import PodSet, ResourceFlavor
from kubectl_pd.lazyre import lazy

_ONLY = lazy(r'^topology "(?P<t>[^"]*)" allows to fit only (?P<fit>\d+) out of (?P<total>\d+) '
                   r"(?P<unit>pod|slice)\(s\)")
_NONE = lazy(r'^topology "(?P<t>[^"]*)" doesn\'t allow to fit any of (?P<total>\d+) (?P<unit>pod|slice)\(s\)')
_MULTI = lazy(r'^topology "(?P<t>[^"]*)" doesn\'t allow to fit(?P<rest>(?:; \d+/\d+ slice\(s\) fit on level '
                    r"[^;.]+)*)")
_LAYER = lazy(r"; (?P<fit>\d+)/(?P<need>\d+) slice\(s\) fit on level (?P<level>[^;.]+)")
_EXCLUDED = lazy(r"\. Total nodes: (?P<n>\d+); excluded: (?P<why>.*)$")


def parse_not_fit(message: str) -> dict[str, Any] | None:
    """Kueue's numbers from one TAS reason; None when the words are not a not-fit message."""
    m = _ONLY.match(message) or _NONE.match(message)
    out: dict[str, Any]
    if m:
        g = m.groupdict()
        out = {"topology": g["t"], "fit": int(g.get("fit") or 0), "total": int(g["total"]), "unit": g["unit"]}
    else:
        m = _MULTI.match(message)
        if not m:
            return None
        layers = [{"fit": int(x.group("fit")), "needed": int(x.group("need")), "level": x.group("level").strip()}
                  for x in _LAYER.finditer(m.group("rest"))]
        out = {"topology": m.group("t"), "fit": None, "total": None, "unit": "slice", "sliceLayers": layers}
    ex = _EXCLUDED.search(message)
    if ex:
        out["totalNodes"] = int(ex.group("n"))
        out["excluded"] = ex.group("why")
        exclusions = km.parse_exclusions(ex.group("why"))
        if exclusions is not None and km.no_single_node_fits(out["totalNodes"], exclusions):
            out["noSingleNodeFits"] = True  # Kueue 0.20's per-node feasibility: said only when it holds
            out["exclusions"] = exclusions
    return out


def request_of(pod_set: PodSet | None) -> dict[str, Any]:
    """The pod set's topology request: mode (required | preferred | unconstrained) and level, slice level/size."""
    tr = pod_set.topology if pod_set is not None else None
    out: dict[str, Any] = {}
    if tr is None:
        return out
    if tr.mode in ("required", "preferred"):
        out = {"mode": tr.mode, "level": tr.level}
    elif tr.mode == "unconstrained":
        out = {"mode": "unconstrained", "level": None}
    if tr.slice_level:
        out["sliceLevel"] = tr.slice_level
        out["sliceSize"] = tr.slice_size
    return out


def tas_flavors(flavors: Mapping[str, ResourceFlavor | None], topology: str) -> list[str]:
    """The flavors read whose `spec.topologyName` is the topology Kueue named."""
    return sorted(n for n, f in flavors.items() if f is not None and f.topology == topology)
