"""Kueue's own words for what the admission engine computed, as its flavorassigner formats them
(pkg/scheduler/flavorassigner/flavorassigner.go@v0.18.4): shared by why-pending's and create's printers."""

from __future__ import annotations

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue.model import Taint
from kubectl_pd.kueue.verdicts import Blocker


def taint_text(t: Taint | None) -> str:
    """A taint as Kueue prints it (Go `%s` of a v1.Taint): `{key value Effect <nil>}`."""
    return f"{{{t.key} {t.value} {t.effect} <nil>}}" if t is not None else "?"


def attempt_text(b: Blocker) -> str:
    """One refused flavor in Kueue's own words (flavorassigner.go's format strings)."""
    if b.outcome == ad.FLAVOR_MISSING:
        return f"flavor {b.flavor} not found"
    if b.outcome == ad.UNTOLERATED:
        return f"untolerated taint {taint_text(b.taint)} in flavor {b.flavor}"
    if b.outcome == ad.NOT_MATCHING:
        return f"flavor {b.flavor} doesn't match node affinity"
    return f"{b.flavor}: {b.outcome}"


# Why the preemption answer is unknown, and what was assumed of Kueue's configuration (codes of
# kueue/preempt_reads.py and kueue/config.py): shared by why-pending's and create's printers.
UNKNOWN_TEXT = {
    "workloads-forbidden": "listing Workloads is forbidden (403): which Workloads would be preempted is unknown",
    "workloads-unreadable": "the admitted Workloads could not be read: which would be preempted is unknown",
    "usage-unaccounted": "the snapshot's Workloads do not account for the queues' reported usage: which "
                         "Workloads would be preempted is unknown (add `kubectl get workloads -A -o yaml`)",
}
NOTE_TEXT = {
    "kueue-config-forbidden": "Kueue's configuration (ConfigMap kueue-system/kueue-manager-config) is "
                              "forbidden: Kueue's defaults assumed (no fair sharing); --kueue-config FILE sets it",
    "kueue-config-absent": "Kueue's configuration was not found: Kueue's defaults assumed (no fair sharing)",
    "kueue-config-invalid": "Kueue's configuration could not be parsed: Kueue's defaults assumed",
    "kueue-config-not-read": "Kueue's configuration was not read: Kueue's defaults assumed (no fair sharing); "
                             "--kueue-config FILE sets it",
}
