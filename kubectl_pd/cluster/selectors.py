"""Label and field selectors, evaluated locally for snapshots (the API server does it live), and why-pending's
`-l`/`--field-selector` over a target's object (`Selection`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from kubectl_pd.errors import InputError
from kubectl_pd.lazyre import lazy

Predicate = Callable[[Mapping[str, str]], bool]

_SET_RE = lazy(r"^\s*([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")


def _split_terms(selector: str) -> list[str]:
    """Split on commas that are not inside a `(...)` value set."""
    terms: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in selector:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            terms.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    terms.append("".join(cur))
    return [t.strip() for t in terms if t.strip()]


def parse_label_selector(selector: str | None) -> Predicate:
    """Compile `a=b,c!=d,e in (x,y),!f,g` into a predicate over a label map."""
    if not selector:
        return lambda labels: True
    checks: list[Predicate] = []
    for term in _split_terms(selector):
        m = _SET_RE.match(term)
        if m:
            key, op, values = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",") if v.strip()}
            checks.append(_in(key, values) if op == "in" else _not_in(key, values))
        elif "!=" in term:
            key, _, value = term.partition("!=")
            checks.append(_not_equal(key.strip(), value.strip()))
        elif "=" in term:
            key, _, value = term.partition("=")
            checks.append(_equal(key.strip().rstrip("="), value.strip().lstrip("=").strip()))
        elif term.startswith("!"):
            checks.append(_absent(term[1:].strip()))
        elif re.fullmatch(r"[A-Za-z0-9_./-]+", term):
            checks.append(_present(term))
        else:
            raise InputError(f"invalid label selector {selector!r}: cannot parse {term!r}")
    return lambda labels: all(c(labels) for c in checks)


def _in(k: str, vs: set[str]) -> Predicate:
    return lambda lb: lb.get(k) in vs


def _not_in(k: str, vs: set[str]) -> Predicate:
    return lambda lb: lb.get(k) not in vs


def _equal(k: str, v: str) -> Predicate:
    return lambda lb: lb.get(k) == v


def _not_equal(k: str, v: str) -> Predicate:
    return lambda lb: lb.get(k) != v


def _absent(k: str) -> Predicate:
    return lambda lb: k not in lb


def _present(k: str) -> Predicate:
    return lambda lb: k in lb


def field_value(obj: Mapping[str, Any], dotted: str) -> str:
    """A field as the API server compares it in a field selector: absent is "" (what a CRD's selectable
    field evaluates to when its JSON path is absent), booleans are `true`/`false`."""
    cur: Any = obj
    for part in dotted.split("."):
        if not isinstance(cur, Mapping):
            return ""
        cur = cur.get(part)
    if cur is None or isinstance(cur, Mapping | list):
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def parse_field_selector(selector: str | None) -> Callable[[Mapping[str, Any]], bool]:
    """`a.b=x,c!=y` (also `==`) over an object, with the API server's reading of absent fields."""
    if not selector:
        return lambda obj: True
    checks: list[tuple[str, str, bool]] = []
    for term in (t.strip() for t in selector.split(",")):
        if not term:
            continue
        key, op, value = term.partition("!=")
        if not op:
            key, op, value = term.partition("==") if "==" in term else term.partition("=")
        if not op or not key.strip():
            raise InputError(f"invalid field selector {selector!r}: cannot parse {term!r}")
        checks.append((key.strip(), value.strip(), op != "!="))

    def pred(obj: Mapping[str, Any]) -> bool:
        return all((field_value(obj, k) == v) == eq for k, v, eq in checks)

    return pred


# the fields every CRD serves to field selectors (others only where its versions declare selectableFields)
COMMON_FIELDS = ("metadata.name", "metadata.namespace")


class Selection:
    """`-l` and `--field-selector` over one object, keeping the selectors' text (what a live run sends to the
    server first: pending/narrow.py)."""

    def __init__(self, labels: str | None, fields: str | None) -> None:
        self.labels, self.fields = labels, fields
        self._labels, self._fields = parse_label_selector(labels), parse_field_selector(fields)

    def __call__(self, obj: Mapping[str, Any]) -> bool:
        meta = obj.get("metadata") or {}
        return self._labels(meta.get("labels") or {}) and self._fields(obj)


def object_selector(labels: str | None, fields: str | None) -> Selection | None:
    """`-l` and `--field-selector` over one object (None when neither is given). A field other than
    metadata.name / metadata.namespace is refused as the API server refuses it."""
    if not labels and not fields:
        return None
    for term in (fields or "").split(","):
        key = term.replace("!=", "=").replace("==", "=").partition("=")[0].strip()
        if key and key not in COMMON_FIELDS:
            raise InputError(f'field label not supported: {key} (why-pending selects on {", ".join(COMMON_FIELDS)})',
                             exit_code=1)
    return Selection(labels, fields)
