"""A Source over files: what `kubectl get -o yaml` writes, with each object's file and line."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kubectl_pd.cluster import kinds
from kubectl_pd.cluster.selectors import parse_field_selector, parse_label_selector
from kubectl_pd.cluster.source import Lines, Obj, Origin, labels_of, name_of, namespace_of
from kubectl_pd.errors import InputError
from kubectl_pd.kueue.normalize import normalize

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Loaded:
    obj: Obj
    origin: Origin


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files as given; directories walked recursively for *.yaml, *.yml, *.json in sorted order."""
    out: list[str] = []
    for p in paths:
        if p == "-":
            out.append(p)
            continue
        path = Path(p)
        if path.is_dir():
            found = sorted(
                str(f) for f in path.rglob("*") if f.is_file() and f.suffix.lower() in _SUFFIXES
            )
            out.extend(found)
        elif path.exists():
            out.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    return out


def read_text(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None


def parse_documents(text: str, file: str) -> Iterator[Loaded]:
    """Yield every Kubernetes object in `text`, expanding `List`s, with its origin."""
    loader = _Loader(text)
    try:
        while True:
            try:
                if not loader.check_node():
                    break
                node = loader.get_node()
                if node is None:
                    continue
                data, lines = build(node, loader)
                line = node.start_mark.line + 1
                del node  # only the compact line index is kept, not the node tree
            except yaml.MarkedYAMLError as e:
                mark = e.problem_mark or e.context_mark
                line = f":{mark.line + 1}" if mark is not None else ""
                problem = e.problem or e.context or "invalid YAML"
                raise InputError(f"{file}{line}: malformed YAML: {problem}") from None
            except yaml.YAMLError as e:
                raise InputError(f"{file}: malformed YAML: {e}") from None
            if data is None:
                continue
            yield from _objects(data, line, lines, file)
    finally:
        loader.dispose()


def build(node: yaml.Node, loader: Any) -> tuple[Any, Lines]:
    """Python data and a compact line index from one composed node.

    Keeping the composed nodes (each with two Mark objects) for file:line made memory, and so time,
    grow faster than the input: reading 2,000 queues took 2.3x as long as 1,000. The index keeps one
    (line, children) pair per key or item instead.
    """
    if isinstance(node, yaml.MappingNode):
        if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
            return loader.construct_document(node), None  # `<<` merges: rare in manifests; no lines
        data: dict[Any, Any] = {}
        lines: dict[Any, tuple[int, Lines]] = {}
        for k, v in node.value:
            key = _scalar(k, loader) if isinstance(k, yaml.ScalarNode) else loader.construct_document(k)
            value, sub = build(v, loader)
            data[key] = value
            lines[key] = (k.start_mark.line + 1, sub)
        return data, lines
    if isinstance(node, yaml.SequenceNode):
        items: list[Any] = []
        item_lines: list[tuple[int, Lines]] = []
        for v in node.value:
            value, sub = build(v, loader)
            items.append(value)
            item_lines.append((v.start_mark.line + 1, sub))
        return items, item_lines
    return _scalar(node, loader), None


def _scalar(node: yaml.Node, loader: Any) -> Any:
    construct = loader.yaml_constructors.get(node.tag)
    if construct is None:  # an unknown tag: let the constructor say what is wrong
        return loader.construct_document(node)
    return construct(loader, node)


def _objects(data: object, line: int, lines: Lines, file: str) -> Iterator[Loaded]:
    if not isinstance(data, dict):
        what = type(data).__name__ if not isinstance(data, list) else "a list"
        raise InputError(f"{file}:{line}: not a Kubernetes object (a document must be a mapping, got {what})")
    if not data.get("kind") or not data.get("apiVersion"):
        missing = "apiVersion" if data.get("kind") else "kind"
        raise InputError(f"{file}:{line}: not a Kubernetes object (no {missing})")
    kind = str(data["kind"])
    if kind == "List" or (kind.endswith("List") and isinstance(data.get("items"), list)):
        items = data.get("items") or []
        if not isinstance(items, list):
            raise InputError(f"{file}:{line}: {kind}.items is not a list")
        entry = lines.get("items") if isinstance(lines, dict) else None
        item_lines = entry[1] if entry is not None and isinstance(entry[1], list) else None
        for i, item in enumerate(items):
            item_line, sub = item_lines[i] if item_lines is not None else (line, None)
            if isinstance(item, dict) and "kind" not in item and kind != "List":
                item = {"kind": kind[: -len("List")], "apiVersion": data["apiVersion"], **item}
            yield from _objects(item, item_line, sub, file)
        return
    yield Loaded(data, Origin(file, line, lines, raw=data))


def load_json_fallback(text: str, file: str) -> None:
    """Give JSON files JSON's own error position when YAML's is less helpful."""
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{file}:{e.lineno}: malformed JSON: {e.msg}") from None


class SnapshotSource:
    """Objects from files, directories or stdin, queried like a cluster."""

    is_live = False

    def __init__(self, loaded: list[Loaded]) -> None:
        self._by_kind: dict[str, list[Obj]] = {}
        self._origins: dict[int, Origin] = {}
        for item in loaded:
            obj = normalize(item.obj)
            self._origins[id(obj)] = item.origin
            self._by_kind.setdefault(str(obj.get("kind")), []).append(obj)

    @classmethod
    def from_paths(cls, paths: Iterable[str]) -> SnapshotSource:
        loaded: list[Loaded] = []
        # Reading builds millions of long-lived containers for a big file and none of it is garbage,
        # so the cyclic collector is paused instead of rescanning them over and over.
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for file in expand_paths(paths):
                text = read_text(file)
                if file.lower().endswith(".json"):
                    load_json_fallback(text, file)
                loaded.extend(parse_documents(text, file))
        finally:
            if was_enabled:
                gc.enable()
        return cls(loaded)

    @classmethod
    def from_objects(cls, objs: Iterable[Obj], file: str = "<memory>") -> SnapshotSource:
        return cls([Loaded(o, Origin(file)) for o in objs])

    def all_objects(self) -> Iterator[Obj]:
        for objs in self._by_kind.values():
            yield from objs

    def kinds_present(self) -> set[str]:
        return set(self._by_kind)

    def _kind_name(self, kind: str) -> str:
        k = kinds.lookup(kind)
        return k.kind if k is not None else kind

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        k = kinds.lookup(kind)
        for obj in self._by_kind.get(self._kind_name(kind), []):
            if name_of(obj) != name:
                continue
            if k is not None and k.namespaced and namespace is not None:
                ns = namespace_of(obj)
                if ns is not None and ns != namespace:
                    continue
            return obj
        return None

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[Obj]:
        match_labels = parse_label_selector(label_selector)
        match_fields = parse_field_selector(field_selector)
        out = []
        for obj in self._by_kind.get(self._kind_name(kind), []):
            ns = namespace_of(obj)
            if namespace is not None and ns is not None and ns != namespace:
                continue
            if match_labels(labels_of(obj)) and match_fields(obj):
                out.append(obj)
        return out

    def origin(self, obj: Obj) -> Origin:
        return self._origins.get(id(obj)) or Origin("<unknown>")


def stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (OSError, ValueError):
        return False
