"""Property: every reader refuses malformed input with exit 2 and a location, never a traceback.

Each strategy below builds a document that is malformed for certain (so exit 2 is the only right
answer) from a real snapshot, then feeds it to `lint -f` and `why-pending --from-file`, as YAML and,
where the fault survives JSON, as JSON. Flag values of `create` get arbitrary text.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "qwen-pd-pending.yaml"
DOC = yaml.safe_load(EXAMPLE.read_text())
ENVELOPE_KINDS = sorted({i["kind"] for i in DOC["items"]})
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def located(stderr: str, path: Path) -> bool:
    """One line, `error: PATH:LINE: ...` (or `PATH: ... at byte N` for bytes that are not text)."""
    lines = stderr.strip().splitlines()
    if len(lines) != 1:
        return False
    p = re.escape(str(path))
    return bool(re.match(rf"error: {p}:\d+: ", lines[0]) or re.match(rf"error: {p}: .* at byte \d+", lines[0]))


def check_readers(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / f"snap{suffix}"
        f.write_bytes(data)
        for args in (["lint", "-f", str(f)], ["why-pending", "qwen-pd", "-n", "team-a", "--from-file", str(f)]):
            r = run_cli(args)
            assert r.exit_code == 2 and located(r.stderr, f), (args, r.exit_code, r.stderr[:500])


def dump(doc: Any, suffix: str) -> bytes:
    if suffix == ".json":
        return json.dumps(doc, indent=2).encode()
    return yaml.safe_dump(doc, sort_keys=False).encode()


not_a_mapping = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=20), st.booleans(),
                          st.lists(st.integers(), max_size=3))


@SETTINGS
@given(kind=st.sampled_from(ENVELOPE_KINDS), key=st.sampled_from(["metadata", "spec", "status"]),
       value=not_a_mapping, suffix=st.sampled_from([".yaml", ".json"]))
def test_a_broken_envelope(kind: str, key: str, value: Any, suffix: str) -> None:
    doc = json.loads(json.dumps(DOC))
    next(i for i in doc["items"] if i["kind"] == kind)[key] = value
    check_readers(dump(doc, suffix), suffix)


@SETTINGS
@given(index=st.integers(0, len(DOC["items"]) - 1), drop=st.sampled_from(["kind", "apiVersion"]),
       suffix=st.sampled_from([".yaml", ".json"]))
def test_an_item_that_is_not_an_object(index: int, drop: str, suffix: str) -> None:
    doc = json.loads(json.dumps(DOC))
    del doc["items"][index][drop]
    check_readers(dump(doc, suffix), suffix)


@SETTINGS
@given(extra=st.one_of(st.integers(), st.text(alphabet="abc xyz", min_size=1, max_size=10),
                       st.lists(st.integers(), min_size=1, max_size=3)))
def test_a_document_that_is_not_a_mapping(extra: Any) -> None:
    check_readers(EXAMPLE.read_bytes() + b"---\n" + yaml.safe_dump(extra).encode(), ".yaml")


@SETTINGS
@given(line=st.integers(0, 400), junk=st.text(alphabet="abc 0123,.:-", max_size=30))
def test_an_unclosed_flow_collection(line: int, junk: str) -> None:
    lines = EXAMPLE.read_text().splitlines(keepends=True)
    cut = "".join(lines[: min(line, len(lines))])
    check_readers((cut + "broken: [" + junk).encode(), ".yaml")


@SETTINGS
@given(depth=st.integers(201, 1500), flow=st.booleans())
def test_nesting_deeper_than_any_object(depth: int, flow: bool) -> None:
    if flow:
        body = "data: " + "[" * depth + "]" * depth + "\n"
    else:
        body = "data:\n" + "".join("  " * i + "a:\n" for i in range(1, depth)) + "  " * depth + "b: 1\n"
    check_readers(EXAMPLE.read_bytes() + b"---\napiVersion: v1\nkind: ConfigMap\n" + body.encode(), ".yaml")


@SETTINGS
@given(depth=st.integers(2000, 50_000))
def test_json_nesting_deeper_than_the_parser_follows(depth: int) -> None:
    check_readers(b'{"apiVersion": "v1", "kind": "ConfigMap", "data": ' + b"[" * depth + b"]" * depth + b"}",
                  ".json")


@SETTINGS
@given(levels=st.integers(6, 12), fan=st.integers(9, 16), kind=st.sampled_from(["ConfigMap", "Workload"]))
def test_an_alias_bomb(levels: int, fan: int, kind: str) -> None:
    rows = ["  l0: &l0 [" + ", ".join(["x"] * fan) + "]"]
    rows += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * fan) + "]" for i in range(1, levels)]
    bomb = f"---\napiVersion: v1\nkind: {kind}\nmetadata: {{name: b, namespace: team-a}}\ndata:\n" + "\n".join(rows)
    check_readers(EXAMPLE.read_bytes() + bomb.encode() + b"\n", ".yaml")


@SETTINGS
@given(digits=st.integers(4301, 8000), suffix=st.sampled_from([".yaml", ".json"]))
def test_a_number_python_will_not_convert(digits: int, suffix: str) -> None:
    number = "7" * digits
    if suffix == ".json":
        data = '{"apiVersion": "v1", "kind": "ConfigMap",\n"data": {"n": ' + number + "}}"
    else:
        data = EXAMPLE.read_text() + f"---\napiVersion: v1\nkind: ConfigMap\ndata:\n  n: {number}\n"
    check_readers(data.encode(), suffix)


@SETTINGS
@given(at=st.integers(0, 5000), bad=st.sampled_from([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xf0\x28\x8c\x28"]))
def test_bytes_that_are_not_utf8(at: int, bad: bytes) -> None:
    data = EXAMPLE.read_bytes()
    check_readers(data[:at] + bad + data[at:], ".yaml")


# ------------------------------------------------------------------------------------ create flag values
CREATE = ["create", "x", "--model", "m", "--engine-version", "1", "--kv-cache-pool", "kv", "--instance-type", "it",
          "--dry-run=client"]


@settings(max_examples=60, deadline=None)
@given(field=st.sampled_from(["replicas", "accelerator", "size"]), value=st.text(max_size=40))
def test_create_role_values(field: str, value: str) -> None:
    r = run_cli([*CREATE, "--role", f"name=p,kind=prefill,{field}={value}"])
    assert r.exit_code in (0, 1, 2) and "internal error" not in r.stderr and "Traceback" not in r.stderr
    if r.exit_code:
        assert all(line.startswith("error: ") for line in r.stderr.rstrip("\n").split("\n")), r.stderr
        assert "--role" in r.stderr  # the flag is the location
    if not re.fullmatch(r"[0-9]+", value.strip()) and "," not in value:
        assert r.exit_code != 0, (field, value)


@settings(max_examples=40, deadline=None)
@given(value=st.text(max_size=30))
def test_create_shortcut_values(value: str) -> None:
    r = run_cli([*CREATE, "--prefill", value, "--decode", "1"])
    assert r.exit_code in (0, 1, 2) and "internal error" not in r.stderr
    if r.exit_code:
        assert "--prefill" in r.stderr or value.startswith("-"), r.stderr
    if not re.fullmatch(r"[0-9]*[1-9][0-9]*", value.strip()):
        assert r.exit_code != 0, value
