"""Kueue's real CRDs for the opt-in check: PD_KUEUE_SRC names where they are; without it, nothing here runs.

PD_KUEUE_SRC may name
- a git repository of kubernetes-sigs/kueue (a clone, or a bare mirror): the CRDs are read at each tag of
  PD_KUEUE_TAGS (default "v0.18.4 v0.19.2") from config/components/crd/bases/;
- a checkout of Kueue (a directory with config/components/crd/bases/): the CRDs as checked out;
- a directory of release files (e.g. manifests.yaml of a Kueue release): every CustomResourceDefinition in
  its *.yaml files.
Tests that use these are marked `kueue_src`; conftest.py deselects them when the variable is not set.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path
from typing import Any

import yaml

ENV = "PD_KUEUE_SRC"
BASES = "config/components/crd/bases"
DEFAULT_TAGS = "v0.18.4 v0.19.2"

try:  # the C loader when PyYAML has it: Kueue's CRDs are large
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - a PyYAML built without libyaml
    _Loader = yaml.SafeLoader


def source() -> Path | None:
    value = os.environ.get(ENV, "").strip()
    return Path(value).expanduser() if value else None


def _is_git(path: Path) -> bool:
    return (path / ".git").exists() or ((path / "objects").is_dir() and (path / "HEAD").is_file())


def releases() -> list[str]:
    """The labels to run the opt-in tests for: git tags, or "checkout"/"release" for a directory."""
    src = source()
    if src is None:
        return []
    if _is_git(src):
        return os.environ.get("PD_KUEUE_TAGS", DEFAULT_TAGS).split()
    return ["checkout"] if (src / BASES).is_dir() else ["release"]


def _git(src: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(src), *args], capture_output=True, text=True, check=True,
                          timeout=120).stdout


def _documents(text: str) -> list[Any]:
    return [d for d in yaml.load_all(text, Loader=_Loader) if isinstance(d, dict)]


@functools.cache
def crds(label: str) -> dict[str, dict[str, Any]]:
    """CustomResourceDefinitions by name (e.g. "clusterqueues.kueue.x-k8s.io") for one label of releases()."""
    src = source()
    if src is None or not src.is_dir():
        raise RuntimeError(f"{ENV}={src}: not a directory (a Kueue git repository, checkout or release files)")
    texts: list[str] = []
    if _is_git(src):
        names = _git(src, "ls-tree", "--name-only", f"{label}:{BASES}").split()
        texts = [_git(src, "show", f"{label}:{BASES}/{n}") for n in names if n.endswith((".yaml", ".yml"))]
    else:
        root = src / BASES if label == "checkout" else src
        texts = [p.read_text(encoding="utf-8") for p in sorted(root.iterdir()) if p.suffix in (".yaml", ".yml")]
    out = {}
    for text in texts:
        for doc in _documents(text):
            if doc.get("kind") == "CustomResourceDefinition":
                out[str(doc["metadata"]["name"])] = doc
    if "clusterqueues.kueue.x-k8s.io" not in out:
        raise RuntimeError(f"{ENV}={src} ({label}): no ClusterQueue CustomResourceDefinition found")
    return out
