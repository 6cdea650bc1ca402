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
