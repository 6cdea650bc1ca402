"""`--baseline` / `--write-baseline`: record today's findings, then fail only on new ones.

A finding is matched by rule, object (kind, namespace, name) and field path, never by line number:
editing a file above a queue moves its lines but not its findings. The file is JSON, sorted, so a
baseline diffs well in review.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from kubectl_pd.errors import InputError
from kubectl_pd.lint.findings import Finding
from kubectl_pd.records import dataclass

VERSION = 1
Key = tuple[str, str, str, str, str]  # rule, kind, namespace, name, path


def key_of(f: Finding) -> Key:
    return (f.rule_id, f.obj.kind, f.obj.namespace or "", f.obj.name, f.path_text)


def render(findings: list[Finding]) -> str:
    """The baseline document for these findings (one entry per finding, sorted)."""
    rows = sorted(key_of(f) for f in findings)
    entries = [{"id": r, "object": {"kind": k, "namespace": ns or None, "name": n}, "path": p}
               for r, k, ns, n, p in rows]
    return json.dumps({"kind": "kubectl-pd-lint-baseline", "version": VERSION, "findings": entries},
                      indent=2, ensure_ascii=False) + "\n"


def parse(text: str, file: str) -> Counter[Key]:
    """The keys a baseline file records (a multiset). Raises InputError, one line, on a bad file."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{file}:{e.lineno}: baseline is not JSON: {e.msg}") from None
    if not isinstance(doc, dict) or doc.get("kind") != "kubectl-pd-lint-baseline" or not isinstance(
            doc.get("findings"), list):
        raise InputError(f"{file}: not a kubectl pd lint baseline (write one with --write-baseline)")
    out: Counter[Key] = Counter()
    for i, entry in enumerate(doc["findings"]):
        try:
            obj: dict[str, Any] = entry["object"]
            out[(str(entry["id"]), str(obj["kind"]), str(obj.get("namespace") or ""), str(obj["name"]),
                 str(entry["path"]))] += 1
        except (KeyError, TypeError):
            raise InputError(f"{file}: baseline entry {i} lacks id, object or path") from None
    return out


@dataclass
class Applied:
    new: list[Finding]
    known: int  # findings the baseline records
    gone: int  # baseline entries no longer found (fixed, or the object is gone)


def apply(findings: list[Finding], baseline: Counter[Key]) -> Applied:
    """Split findings into new ones and those the baseline already records."""
    left = Counter(baseline)
    new: list[Finding] = []
    known = 0
    for f in findings:
        k = key_of(f)
        if left[k] > 0:
            left[k] -= 1
            known += 1
        else:
            new.append(f)
    return Applied(new, known, sum(left.values()))
