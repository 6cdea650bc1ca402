"""Kueue's resourceGroups limits, which changed in Kueue 0.14 (reference/kueue.md §5, peers.md §4.2)."""

from __future__ import annotations

import re

from kubectl_pd.records import dataclass


@dataclass(frozen=True)
class Limits:
    groups: int = 16
    flavors_per_group: int = 64
    covered_per_group: int = 64
    flavors_total: int | None = 256  # None: no separate total check (before 0.14)
    covered_total: int | None = 256
    pairs_per_group: int | None = 512
    version_text: str = "Kueue 0.14+"


MODERN = Limits()
LEGACY = Limits(flavors_per_group=16, covered_per_group=16, flavors_total=None, covered_total=None,
                pairs_per_group=None, version_text="Kueue before 0.14")

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")


def parse_version(text: str) -> tuple[int, int]:
    """`0.18`, `v0.13.2`, `0.14.0-rc.1` -> (major, minor); ValueError otherwise."""
    m = _VERSION_RE.match(text.strip())
    if not m:
        raise ValueError(f"{text!r} is not a Kueue version such as 0.18 or v0.13.2")
    return int(m.group(1)), int(m.group(2))


def limits_for(version: tuple[int, int] | None) -> Limits:
    """The limits of a Kueue version; None (not given) means current Kueue."""
    if version is not None and version < (0, 14):
        return LEGACY
    return MODERN
