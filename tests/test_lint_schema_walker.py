"""The structural-schema walker: anyOf/allOf/oneOf/not and string formats, in kube-openapi's words."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.lint.findings import format_path
from kubectl_pd.lint.schema.validate import validate


def check(spec_schema: dict[str, Any], spec: Any) -> list[tuple[str, str]]:
    schema = {"type": "object", "properties": {"spec": spec_schema}}
    out = validate({"apiVersion": "g.io/v1", "kind": "T", "metadata": {"name": "t"}, "spec": spec}, schema)
    return [(format_path(v.path), v.message) for v in out.violations]


ONE_OF_AB = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
             "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
ANY_OF_AB = {**ONE_OF_AB, "anyOf": ONE_OF_AB["oneOf"]}
del ANY_OF_AB["oneOf"]

COMPOSITES = [
    ("anyOf: one branch holds", ANY_OF_AB, {"b": "x"}, []),
    ("anyOf: none holds", ANY_OF_AB, {},
     [("spec", 'Invalid value: "": "spec" must validate at least one schema (anyOf)'),
      ("spec.a", "Required value")]),
    ("oneOf: exactly one", ONE_OF_AB, {"a": "x"}, []),
    ("oneOf: both", ONE_OF_AB, {"a": "x", "b": "y"},
     [("spec", 'Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives')]),
    ("oneOf: none", ONE_OF_AB, {},
     [("spec", 'Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid'),
      ("spec.a", "Required value")]),
    ("allOf: one of two fails", {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 5}]}, 7,
     [("spec", "Invalid value: 7: spec in body should be less than or equal to 5"),
      ("spec", 'Invalid value: "": "spec" must validate all the schemas (allOf)')]),
    ("allOf: both fail", {"type": "string", "allOf": [{"minLength": 3}, {"pattern": "^a"}]}, "b",
     [("spec", 'Invalid value: "b": spec in body should be at least 3 chars long'),
      ("spec", "Invalid value: \"b\": spec in body should match '^a'"),
      ("spec", 'Invalid value: "": "spec" must validate all the schemas (allOf). None validated')]),
    ("not: holds", {"type": "string", "not": {"enum": ["default"]}}, "default",
     [("spec", 'Invalid value: "": "spec" must not validate the schema (not)')]),
    ("not: fails", {"type": "string", "not": {"enum": ["default"]}}, "mine", []),
    # a branch is value validation only: it names no unknown field and fills no default
    ("branch prunes nothing", {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                               "anyOf": [{"properties": {"a": {"type": "string", "default": "d"}}}]},
     {"z": 1}, []),
    # int-or-string's own anyOf passes both kinds, and a float is one type error, not three
    ("int-or-string", {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
     "10%", []),
    ("int-or-string float", {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
     2.5, [("spec", 'Invalid value: "number": spec in body must be of type integer,string: "number"')]),
]


@pytest.mark.parametrize(("schema", "value", "want"), [c[1:] for c in COMPOSITES], ids=[c[0] for c in COMPOSITES])
def test_composites(schema: dict[str, Any], value: Any, want: list[tuple[str, str]]) -> None:
    assert check(schema, value) == want


def test_composite_inside_a_list_names_the_item() -> None:
    schema = {"type": "array", "items": ANY_OF_AB}
    assert check(schema, [{"a": "x"}, {}])[0] == (
        "spec[1]", 'Invalid value: "": "spec[1]" must validate at least one schema (anyOf)')


FORMATS = [
    ("date-time", "2026-11-30T10:05:28Z", True), ("date-time", "2026-11-30t10:05:28.123+01:00", True),
    ("date-time", "2026-11-30 10:05:28Z", False), ("date-time", "2026-02-30T10:05:28Z", False),
    ("date-time", "2026-11-30T10:05:60Z", False), ("date-time", "yesterday", False),
    ("date", "2024-02-29", True), ("date", "2023-02-29", False),
    ("byte", "aGVsbG8=", True), ("byte", "aGVsbG8", False), ("byte", "not base64!", False),
    ("uuid", "6F9619FF-8B86-D011-B42D-00C04FC964FF", True), ("uuid", "6f9619ff8b86d011b42d00c04fc964ff", True),
    ("uuid", "6f9619ff-8b86-d011-b42d", False),
    ("uuid4", "9b2e4b8e-2f2a-4c1e-9d1b-7f0c2a3e4d5f", True), ("uuid4", "9b2e4b8e-2f2a-3c1e-9d1b-7f0c2a3e4d5f", False),
    ("uuid3", "9b2e4b8e-2f2a-3c1e-1d1b-7f0c2a3e4d5f", True),
    ("ipv4", "10.0.0.1", True), ("ipv4", "10.0.0.256", False), ("ipv4", "::1", False),
    ("ipv6", "fd00::1", True), ("ipv6", "10.0.0.1", False),
    ("cidr", "10.0.0.0/8", True), ("cidr", "fd00::/64", True), ("cidr", "10.0.0.0", False),
    ("k8s-short-name", "team-a", True), ("k8s-short-name", "Team-A", False),
    ("k8s-long-name", "a.b-c.d", True), ("k8s-long-name", "a..b", False),
    # formats the walker does not claim to know pass, as does an empty string
    ("hostname", "not a host!", True), ("email", "nobody", True), ("int32", "x", True), ("date-time", "", True),
]


@pytest.mark.parametrize(("fmt", "value", "ok"), FORMATS, ids=[f"{f}:{v}" for f, v, _ in FORMATS])
def test_formats(fmt: str, value: str, ok: bool) -> None:
    got = check({"type": "string", "format": fmt}, value)
    assert got == ([] if ok else [("spec", f'Invalid value: "{value}": spec in body must be of type {fmt}: "{value}"')])


def test_numeric_formats_are_not_range_checked() -> None:
    """The API server does not bound an int32-formatted integer of a CRD: neither does lint."""
    assert check({"type": "integer", "format": "int32"}, 2**40) == []


def test_a_date_time_in_a_branch() -> None:
    schema = {"type": "string", "anyOf": [{"format": "date-time"}, {"enum": ["now"]}]}
    assert check(schema, "now") == []
    assert check(schema, "later")[0] == ("spec", 'Invalid value: "": "spec" must validate at least one schema (anyOf)')
