"""Disagreements with the real Kueue, saved for replay: each file holds the state, the snapshot as
`why-pending --from-file` read it (hold lifted), what the tool predicted and what Kueue did, and, once
understood, `explained` (why the tool cannot be faithful there) or nothing (a bug: the replay test in the
fast suite, tests/test_real_cases.py, fails until the verdict agrees)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent


def path(line: str, seed: int, fair: bool = False) -> Path:
    return HERE / f"kueue-{line}{'-fair' if fair else ''}-seed-{seed}.yaml"


def known(line: str, seed: int, fair: bool = False) -> bool:
    return path(line, seed, fair).exists()


def save(record: Any) -> Path:
    line = ".".join(record.kueue.lstrip("v").split(".")[:2])
    doc = {"kueue": record.kueue, "seed": record.seed, "agree": record.agree, "preemptor": record.preemptor,
           "words": record.words, "said": record.said,
           "predicted": record.predicted, "kueueDid": record.kueue_did, "roles": record.roles, "explained": None,
           "state": record.state, "snapshot": record.snapshot}
    p = path(line, record.seed, bool(record.state.get("fair_sharing")))
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    return p


def load_all(where: str = "") -> list[dict[str, Any]]:
    """The saved cases; WHERE="open" the disagreements not yet fixed nor explained (cases/open/)."""
    d = HERE / where if where else HERE
    return [dict(yaml.safe_load(p.read_text()), file=p.name) for p in sorted(d.glob("kueue-*.yaml"))]


__all__ = ["known", "load_all", "path", "save"]
