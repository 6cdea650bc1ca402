"""Kueue's resourceGroups limits: kept in kubectl_pd/kueue/versions.py with every other version-dependent fact
and read from there (this module keeps lint's old import path)."""

from __future__ import annotations

from kubectl_pd.kueue.versions import LEGACY, MODERN, Limits, limits_for, parse_version

__all__ = ["LEGACY", "MODERN", "Limits", "limits_for", "parse_version"]
