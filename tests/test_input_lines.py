"""The lazy line finders (issue 12) answer exactly what the eager index answered, for YAML and JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.cluster.parse import IndexFinder, JsonSpanFinder, YamlSpanFinder
from kubectl_pd.cluster.snapshot import SnapshotSource, parse_documents
from tests.conftest import ROOT

EXAMPLES = [ROOT / "examples" / "qwen-pd-pending.yaml", *sorted((ROOT / "examples" / "lint").glob("*.yaml"))]


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, (*prefix, i))


def eager(text: str, file: str) -> list[Any]:
    """Origins read the careful way (a `*` anywhere turns it on): the index built while reading."""
    loaded = list(parse_documents(text + "\n# *\n", file))
    assert all(isinstance(x.origin.lines, IndexFinder) for x in loaded)
    return loaded


def table(loaded: list[Any]) -> list[tuple[Any, ...]]:
    return [(x.origin.line, p, x.origin.line_of(p)) for x in loaded for p in paths(x.obj)]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_yaml_lazy_lines_equal_the_eager_index(example: Path) -> None:
    text = example.read_text()
    lazy = list(parse_documents(text, example.name))
    if "*" not in text:  # a file with aliases is read the careful way, its index built while reading
        assert all(isinstance(x.origin.lines, YamlSpanFinder) for x in lazy)
    assert table(lazy) == table(eager(text, example.name))
    assert [x.obj for x in lazy] == [x.obj for x in eager(text, example.name)]


@pytest.mark.parametrize("indent", [None, 1, 4])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_json_lines_equal_yaml_of_the_same_text(example: Path, indent: int | None) -> None:
    docs = [d for d in yaml.safe_load_all(example.read_text()) if d]
    doc = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    as_json = list(parse_documents(text, "x.json", as_json=True))
    assert all(isinstance(x.origin.lines, JsonSpanFinder) for x in as_json)
    assert table(as_json) == table(eager(text, "x.json"))


def test_json_duplicate_keys_point_at_the_one_kept(tmp_path: Path) -> None:
    text = '{"apiVersion": "v1", "kind": "ConfigMap",\n "data": {"a": "1"},\n "data": {\n  "a": "2"}}'
    (loaded,) = list(parse_documents(text, "d.json", as_json=True))
    assert loaded.obj["data"] == {"a": "2"} == json.loads(text)["data"]
    assert loaded.origin.line_of(("data", "a")) == 4


def test_json_read_once_keeps_lists_and_item_lines(tmp_path: Path) -> None:
    f = tmp_path / "l.json"
    items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"n{i}"}} for i in range(3)]
    f.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": items}, indent=2))
    src = SnapshotSource.from_paths([str(f)])
    assert [src.origin(o).line for o in src.list("Namespace")] == [5, 12, 19]
    assert src.origin(src.get("Namespace", "n1")).line_of(("metadata", "name")) == 16


@pytest.mark.parametrize("text", ['{"a": 1} x', '{"a" 1}', '{"a": 1,}', "[1, 2", '{"items": [1,, 2]}', "{1: 2}"])
def test_malformed_json_is_located_like_json_loads(text: str) -> None:
    from kubectl_pd.errors import InputError

    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        want = f"x.json:{e.lineno}: malformed JSON: "
    with pytest.raises(InputError) as got:
        list(parse_documents(text, "x.json", as_json=True))
    assert got.value.message.startswith(want)


def test_yaml_that_looks_like_json_but_is_not_still_reads_as_yaml(tmp_path: Path) -> None:
    f = tmp_path / "flow.yaml"
    f.write_text("{apiVersion: v1, kind: Namespace, metadata: {name: flow}}\n")
    assert SnapshotSource.from_paths([str(f)]).get("Namespace", "flow") is not None


def test_non_ascii_yaml_lines(tmp_path: Path) -> None:
    text = ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: é}\n"
            "  data:\n    ü: 'ßß'\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data:\n    x: y\n")
    lazy = list(parse_documents(text, "u.yaml"))
    assert table(lazy) == table(eager(text, "u.yaml"))
    assert lazy[1].origin.line_of(("data", "x")) == 13


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n"
    "    data:\n      k: [1, 2]\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: b\n",
    "apiVersion: v1\nkind: List\nitems:\n-\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n",
    "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}},\n"
    "  {apiVersion: v1, kind: ConfigMap,\n   metadata: {name: b}, data: {x: y}}]\n",
    "---\n# a comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  s: |\n    line\n    line\n"
    "  t: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
    "apiVersion: v1\nkind: ConfigMapList\nitems:\n- metadata: {name: a}\n  data: {x: '1'}\n",
], ids=["indented-items", "dash-alone", "flow-items", "block-scalar", "typed-list"])
def test_odd_layouts_lazy_equals_eager(text: str) -> None:
    lazy = list(parse_documents(text, "o.yaml"))
    assert lazy and table(lazy) == table(eager(text, "o.yaml"))
