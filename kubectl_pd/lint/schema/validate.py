"""Validate an object against its CRD's structural schema and CEL rules, in the API server's words.

The schema walk is ours: Kubernetes' structural schemas are not plain JSON Schema (int-or-string,
list-map keys, preserve-unknown-fields, defaults applied before CEL, strict decoding of unknown
fields), and the value of a finding is the API server's exact wording, which no JSON-Schema library
produces. CEL is evaluated by cel-expr-python (Google's CEL runtime), imported only when a rule runs.
Kubernetes' quantity and lists CEL libraries are declared into it (`k8s_cel`); a rule that cannot be
compiled or evaluated (another Kubernetes-only function, such as `url()`) is reported as unchecked,
never as passed. anyOf/allOf/oneOf/not and the string formats kube-openapi checks are walked too.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from kubectl_pd import memo
from kubectl_pd.lint.findings import PathT, format_path
from kubectl_pd.records import dataclass, field

Obj = dict[str, Any]
_SKIP_ROOT = ("metadata", "status")  # ObjectMeta is the server's own; status is not written by users
_JSON_TYPE = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object", list: "array"}
_REASONS = {"FieldValueForbidden": "Forbidden", "FieldValueRequired": "Required value",
            "FieldValueDuplicate": "Duplicate value"}


@dataclass(frozen=True)
class Violation:
    path: PathT
    message: str  # what follows `<path>: ` in the API server's answer
    cel: bool = False
    rule: str = ""  # the CEL rule, for CEL violations


@dataclass
class Validation:
    violations: list[Violation] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # CEL rules that could not be evaluated, and why
    runtime_errors: list[str] = field(default_factory=list)  # rules that failed on this object's data
    value_only: bool = False  # inside anyOf/allOf/oneOf/not: value validations only (no pruning, defaults, CEL)


def _json_type(v: object) -> str:
    return "null" if v is None else _JSON_TYPE.get(type(v), type(v).__name__)


def _shown(v: object) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@memo.per_run(512)  # the run's memo (kubectl_pd/memo.py)
def _regex(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


# kube-openapi's strfmt patterns, restated: uuid3 has no variant digit, 4 and 5 have one
_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID_V = {"3": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
           **{n: re.compile(rf"(?i)^[0-9a-f]{{8}}-?[0-9a-f]{{4}}-?{n}[0-9a-f]{{3}}-?[89ab][0-9a-f]{{3}}-?"
                            r"[0-9a-f]{12}$") for n in "45"}}
_DATE_TIME = re.compile(r"(?i)^(\d{4})-(\d{2})-(\d{2})t(\d{2}):(\d{2}):(\d{2})(\.\d+)?(z|[+-]\d{2}:\d{2})$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
_SHORT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LONG_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _is_date_time(v: str) -> bool:
    m = _DATE_TIME.match(v)
    if not m:
        return False
    y, mo, d, h, mi, sec = (int(x) for x in m.groups()[:6])
    return _is_day(y, mo, d) and h < 24 and mi < 60 and sec < 60


def _is_day(y: int, mo: int, d: int) -> bool:
    import calendar  # noqa: PLC0415 - only when a schema has a date

    return 1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1]


def _is_date(v: str) -> bool:
    m = _DATE.match(v)
    return m is not None and _is_day(*(int(x) for x in m.groups()))


def _is_ip(v: str, version: int) -> bool:
    import ipaddress  # noqa: PLC0415

    try:
        return ipaddress.ip_address(v).version == version
    except ValueError:
        return False


def _is_cidr(v: str) -> bool:
    import ipaddress  # noqa: PLC0415

    try:
        ipaddress.ip_network(v, strict=False)
    except ValueError:
        return False
    return "/" in v


# The string formats the API server checks for a CRD (kube-openapi's strfmt registry), those whose rule
# is cheap to state exactly. Others (hostname, email, uri, mac, ...) are left unchecked rather than
# guessed; so are int32/int64/float/double, which the server does not check on numbers. An empty string
# is left alone too.
FORMATS: dict[str, Any] = {
    "date-time": _is_date_time, "datetime": _is_date_time, "date": _is_date,
    "byte": lambda v: bool(_BASE64.match(v)),
    "uuid": lambda v: bool(_UUID.match(v)), "uuid3": lambda v: bool(_UUID_V["3"].match(v)),
    "uuid4": lambda v: bool(_UUID_V["4"].match(v)), "uuid5": lambda v: bool(_UUID_V["5"].match(v)),
    "ipv4": lambda v: _is_ip(v, 4), "ipv6": lambda v: _is_ip(v, 6), "cidr": _is_cidr,
    "k8s-short-name": lambda v: len(v) <= 63 and bool(_SHORT_NAME.match(v)),
    "k8s-long-name": lambda v: len(v) <= 253 and bool(_LONG_NAME.match(v)),
}


def _type_ok(v: object, t: str) -> bool:
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "string":
        return isinstance(v, str)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "number":
        return isinstance(v, int | float) and not isinstance(v, bool)
    return True


def validate(obj: Obj, schema: Obj) -> Validation:
    """Every schema and CEL violation of `obj` (as written) against `schema` (a version's openAPIV3Schema)."""
    out = Validation()
    root = {k: v for k, v in obj.items() if k not in _SKIP_ROOT}
    if not isinstance(schema.get("properties"), dict) or not schema["properties"]:
        schema = {**schema, "x-kubernetes-preserve-unknown-fields": True}  # no fields declared: none unknown
    props = dict(schema.get("properties") or {})
    for k in _SKIP_ROOT:
        props.setdefault(k, {"x-kubernetes-preserve-unknown-fields": True})
    for k in ("apiVersion", "kind"):  # every object has them, declared or not
        props.setdefault(k, {"type": "string"})
    _walk(root, {**schema, "properties": props}, (), out)
    if not any(not v.cel for v in out.violations):
        out.unchecked.extend(out.runtime_errors)  # with schema errors the object is refused anyway
    return out


def _walk(v: Any, s: Obj, path: PathT, out: Validation) -> Any:
    """Check `v` against `s`; return `v` with the schema's defaults filled in (what CEL sees).

    Hot path (2,000 queues x 64 flavors): the path text is only built for a violation.
    """
    add = out.violations.append
    if s.get("x-kubernetes-int-or-string"):
        if not (isinstance(v, str) or _type_ok(v, "integer")):
            t = _json_type(v)
            where = format_path(path)
            add(Violation(path, f'Invalid value: "{t}": {where} in body must be of type integer,string: "{t}"'))
            return v
    elif isinstance(s.get("type"), str) and not _type_ok(v, s["type"]):
        t = _json_type(v)
        where = format_path(path)
        add(Violation(path, f'Invalid value: "{t}": {where} in body must be of type {s["type"]}: "{t}"'))
        return v
    enum = s.get("enum")
    if isinstance(enum, list) and v not in enum:
        add(Violation(path, f"Unsupported value: {_shown(v)}: supported values: "
                            + ", ".join(_shown(e) for e in enum)))
    if isinstance(v, str):
        _string(v, s, path, out)
    elif isinstance(v, int | float) and not isinstance(v, bool):
        _number(v, s, path, out)
    if isinstance(v, list):
        v = _array(v, s, path, out)
    elif isinstance(v, dict):
        v = _object(v, s, path, out)
    if "anyOf" in s or "allOf" in s or "oneOf" in s or "not" in s:
        _composite(v, s, path, out)
    rules = s.get("x-kubernetes-validations")
    if isinstance(rules, list) and rules and not out.value_only:
        _cel(v, s, rules, path, out)
    return v


def _any_type_only(v: Any, branches: list[Any]) -> bool:
    """True when a branch that only names a type holds: int-or-string's own anyOf, on every quantity."""
    return any(isinstance(b, dict) and len(b) == 1 and isinstance(b.get("type"), str) and _type_ok(v, b["type"])
               for b in branches)


def _sub(v: Any, s: Any, path: PathT) -> list[Violation]:
    """What one anyOf/allOf/oneOf/not branch says of `v`: value validations only, as in a structural schema."""
    if not isinstance(s, dict):
        return []
    out = Validation(value_only=True)
    _walk(v, s, path, out)
    return out.violations


def _composite(v: Any, s: Obj, path: PathT, out: Validation) -> None:
    """anyOf, allOf, oneOf and not, in kube-openapi's words.

    kube-openapi reports the composite failure itself at the root of the object (`<nil>: Invalid value: "":
    "spec.x" must validate ...`), then the failures of the branch it judged closest (here: the first that
    failed; kube-openapi counts passed checks to choose, which this walk does not keep). The finding is
    placed at the value's own path so it has a line; the message is the server's.
    """
    where = format_path(path)
    branches = s.get("anyOf")
    if isinstance(branches, list) and branches and not _any_type_only(v, branches):
        out.violations += _any_of(v, branches, path, where)
    branches = s.get("oneOf")
    if isinstance(branches, list) and branches:
        out.violations += _one_of(v, branches, path, where)
    branches = s.get("allOf")
    if isinstance(branches, list) and branches:
        out.violations += _all_of(v, branches, path, where)
    if isinstance(s.get("not"), dict) and not _sub(v, s["not"], path):
        out.violations.append(Violation(path, f'Invalid value: "": "{where}" must not validate the schema (not)'))


def _any_of(v: Any, branches: list[Any], path: PathT, where: str) -> list[Violation]:
    """anyOf: nothing when a branch holds, else the failure and the first failed branch's violations."""
    first: list[Violation] | None = None
    for b in branches:  # the first branch that holds settles it
        r = _sub(v, b, path)
        if not r:
            return []
        first = r if first is None else first
    return [Violation(path, f'Invalid value: "": "{where}" must validate at least one schema (anyOf)'),
            *(first or [])]


def _one_of(v: Any, branches: list[Any], path: PathT, where: str) -> list[Violation]:
    """oneOf: exactly one branch holds; when none does, the first branch's violations follow."""
    results = [_sub(v, b, path) for b in branches]
    valid = sum(1 for r in results if not r)
    if valid == 1:
        return []
    found = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
    head = Violation(path, f'Invalid value: "": "{where}" must validate one and only one schema (oneOf). {found}')
    return [head, *results[0]] if valid == 0 else [head]


def _all_of(v: Any, branches: list[Any], path: PathT, where: str) -> list[Violation]:
    """allOf: every branch's violations, then the failure when any branch failed."""
    results = [_sub(v, b, path) for b in branches]
    out = [x for r in results for x in r]
    failed = sum(1 for r in results if r)
    if failed:
        none = ". None validated" if failed == len(results) else ""
        out.append(Violation(path, f'Invalid value: "": "{where}" must validate all the schemas (allOf){none}'))
    return out


def _string(v: str, s: Obj, path: PathT, out: Validation) -> None:
    if isinstance(s.get("maxLength"), int) and len(v) > s["maxLength"]:
        out.violations.append(Violation(path, f"Too long: may not be more than {s['maxLength']} bytes"))
    if isinstance(s.get("minLength"), int) and len(v) < s["minLength"]:
        out.violations.append(Violation(path, f"Invalid value: \"{v}\": {format_path(path)} in body should be at least "
                                              f"{s['minLength']} chars long"))
    pattern = s.get("pattern")
    if isinstance(pattern, str):
        rx = _regex(pattern)
        if rx is not None and not rx.search(v):
            out.violations.append(Violation(path, f"Invalid value: \"{v}\": {format_path(path)} in body should "
                                                  f"match '{pattern}'"))
    fmt = s.get("format")
    if isinstance(fmt, str) and v and fmt in FORMATS and not FORMATS[fmt](v):
        where = format_path(path)
        out.violations.append(Violation(path, f'Invalid value: "{v}": {where} in body must be of type {fmt}: "{v}"'))


def _number(v: float, s: Obj, path: PathT, out: Validation) -> None:
    lo, hi = s.get("minimum"), s.get("maximum")
    where = format_path(path) if lo is not None or hi is not None else ""
    if isinstance(lo, int | float) and (v < lo or (s.get("exclusiveMinimum") and v == lo)):
        word = "greater than" if s.get("exclusiveMinimum") else "greater than or equal to"
        out.violations.append(Violation(path, f"Invalid value: {_shown(v)}: {where} in body should be {word} {lo}"))
    if isinstance(hi, int | float) and (v > hi or (s.get("exclusiveMaximum") and v == hi)):
        word = "less than" if s.get("exclusiveMaximum") else "less than or equal to"
        out.violations.append(Violation(path, f"Invalid value: {_shown(v)}: {where} in body should be {word} {hi}"))


def _array(v: list[Any], s: Obj, path: PathT, out: Validation) -> list[Any]:
    if isinstance(s.get("maxItems"), int) and len(v) > s["maxItems"]:
        out.violations.append(Violation(path, f"Too many: {len(v)}: must have at most {s['maxItems']} items"))
    if isinstance(s.get("minItems"), int) and len(v) < s["minItems"]:
        out.violations.append(Violation(path, f"Invalid value: {len(v)}: {format_path(path)} in body should have "
                                              f"at least {s['minItems']} items"))
    items = s.get("items") if isinstance(s.get("items"), dict) else None
    checked = v
    if items:
        walked = [_walk(x, items, (*path, i), out) for i, x in enumerate(v)]
        if any(a is not b for a, b in zip(walked, v, strict=True)):
            checked = walked
    list_type = s.get("x-kubernetes-list-type")
    if list_type == "map" and isinstance(s.get("x-kubernetes-list-map-keys"), list):
        keys = s["x-kubernetes-list-map-keys"]
        seen: set[tuple[Any, ...]] = set()
        for i, x in enumerate(checked):
            if not isinstance(x, dict):
                continue
            k = tuple(repr(x.get(key)) for key in keys)
            if k in seen:
                shown = ", ".join(f'"{key}":{_go(x.get(key))}' for key in keys)
                out.violations.append(Violation((*path, i), f"Duplicate value: map[string]interface {{}}{{{shown}}}"))
            seen.add(k)
    elif list_type == "set":
        seen_items: set[str] = set()
        for i, x in enumerate(checked):
            r = repr(x)
            if r in seen_items:
                out.violations.append(Violation((*path, i), f"Duplicate value: {_shown(x)}"))
            seen_items.add(r)
    return checked


def _go(v: object) -> str:
    return f'"{v}"' if isinstance(v, str) else _shown(v)


def _object(v: Obj, s: Obj, path: PathT, out: Validation) -> Obj:
    """Check an object's fields; copy it only when CEL must see something else (defaults, pruned nulls)."""
    props = s.get("properties")
    props = props if isinstance(props, dict) else {}
    checked = _object_fields(v, s, props, path, out)
    seen = _fill_defaults(v, checked, props, out)
    for k in s.get("required") or []:
        if seen.get(k) is None:
            out.violations.append(Violation((*path, k), "Required value"))
    return seen


def _object_fields(v: Obj, s: Obj, props: Obj, path: PathT, out: Validation) -> Obj | None:
    """Walk each field by its schema; a copy of the object when a field changed, else None."""
    result: Obj | None = None  # copy-on-write: most objects have no default to fill in
    for k, x in v.items():
        ps = props.get(k)
        if x is None and not (isinstance(ps, dict) and ps.get("nullable")):
            result = result if result is not None else {kk: vv for kk, vv in v.items() if vv is not None}
            continue  # the server prunes nulls of non-nullable fields
        fs = _field_schema(k, ps, s, props, path, out)
        if fs is None:
            continue
        y = _walk(x, fs, (*path, k), out)
        if y is not x:
            result = result if result is not None else dict(v)
            result[k] = y
    return result


def _field_schema(k: str, ps: Any, s: Obj, props: Obj, path: PathT, out: Validation) -> Obj | None:
    """The schema field `k` is checked against; None when it is not checked (kept, or unknown and reported)."""
    additional = s.get("additionalProperties")
    if isinstance(ps, dict):
        return ps
    if isinstance(additional, dict):
        return additional
    preserve = bool(s.get("x-kubernetes-preserve-unknown-fields")) or additional is True
    embedded = bool(s.get("x-kubernetes-embedded-resource"))
    if preserve or (embedded and k in ("apiVersion", "kind", "metadata")):
        return None
    if out.value_only:
        return None  # a branch of anyOf/allOf/oneOf/not prunes nothing: the structural schema does
    if props or additional is False or s.get("type") == "object":
        unknown = format_path((*path, k))
        out.violations.append(Violation((*path, k), f'strict decoding error: unknown field "{unknown}"'))
    return None


def _fill_defaults(v: Obj, result: Obj | None, props: Obj, out: Validation) -> Obj:
    """The object as CEL sees it: the walked copy (or `v`) with absent fields' defaults filled in."""
    seen = result if result is not None else v
    for k, ps in props.items():
        if k not in seen and isinstance(ps, dict) and "default" in ps and not out.value_only:
            result = result if result is not None else dict(v)
            result[k] = copy.deepcopy(ps["default"])
            seen = result
    return seen


def _cel(v: Any, s: Obj, rules: list[Any], path: PathT, out: Validation) -> None:
    from kubectl_pd.lint.schema import cel  # lazy: the CEL runtime loads only when a CRD has rules

    for r in rules:
        if not isinstance(r, dict) or not isinstance(r.get("rule"), str):
            continue
        text = r["rule"]
        if "oldSelf" in text:
            continue  # a transition rule: the API server runs it on updates only
        ok, why, failure = cel.evaluate(text, v)
        where = path
        fp = r.get("fieldPath")
        if isinstance(fp, str) and fp.startswith("."):
            where = (*path, *[p for p in re.split(r"\.|\[|\]", fp[1:]) if p])
        if ok is None:
            note = f"{format_path(where) or '<root>'}: rule {text!r} not evaluated: {why}"
            (out.unchecked if failure == cel.COMPILE else out.runtime_errors).append(note)
            continue
        if ok:
            continue
        message = r.get("message") if isinstance(r.get("message"), str) else f"failed rule: {text}"
        kind = _REASONS.get(str(r.get("reason") or ""))
        t = s.get("type") or ("integer,string" if s.get("x-kubernetes-int-or-string") else "object")
        head = f"{kind}: {message}" if kind else f'Invalid value: "{t}": {message}'
        out.violations.append(Violation(where, head, cel=True, rule=text))
