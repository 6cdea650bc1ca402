"""kubectl's document forms, -o json and -o yaml, of plain data: the text kubectl's printers write (PyYAML's block
style in insertion order; json.dumps's indent=2 text, written faster and, for a large list, in pieces)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

from kubectl_pd import memo


@memo.per_run(1)  # built once per run (kubectl_pd/memo.py)
def yaml_dumper() -> Any:
    """Block-style YAML with keys in insertion order, like kubectl prints; multi-line strings as `|`
    blocks. Built on first use: `-o json` and the text output never import PyYAML."""
    import yaml  # type: ignore[import-untyped]

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        pass

    def str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
        style = "|" if "\n" in data else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(str, str_presenter)
    return Dumper


def to_yaml(data: Any) -> str:
    import yaml

    return yaml.dump(data, Dumper=yaml_dumper(), sort_keys=False, default_flow_style=False, allow_unicode=True,
                     width=1_000_000)


def to_json(data: Any) -> str:
    """`json.dumps(data, indent=2, ensure_ascii=False) + "\n"`, by `_indented` (tests/test_common_json.py)."""
    return _indented()(data, "") + "\n"


def echo_dump(data: Any, fmt: str) -> None:
    """`-o json` or `-o yaml` of plain data, written to stdout. A JSON object's top-level values go out one
    by one, and the items of a top-level list one by one, each written by `_indented` and indented to its
    depth: the text is exactly `json.dumps(data, indent=2, ensure_ascii=False)`'s (tests/test_common_json.py),
    but why-pending -A over 10,000 Workloads never holds the whole of it, nor the encoder's pieces."""
    import click

    if fmt != "json":
        click.echo(to_yaml(data), nl=False)
        return
    out = sys.stdout
    for piece in json_pieces(data):
        out.write(piece)
    out.flush()


def json_pieces(data: Any) -> Iterator[str]:
    """`json.dumps(data, indent=2, ensure_ascii=False) + "\n"`, in pieces of one top-level value or item."""
    text = _indented()
    if not isinstance(data, dict) or not data or not all(type(k) is str for k in data):
        yield text(data, "") + "\n"
        return
    from json.encoder import encode_basestring

    yield "{"
    for i, (key, value) in enumerate(data.items()):
        head = ("," if i else "") + "\n  " + encode_basestring(key) + ": "
        if type(value) is list and value:
            yield head + "["
            for j, item in enumerate(value):
                yield ("," if j else "") + "\n    " + text(item, "    ")
            yield "\n  ]"
        else:
            yield head + text(value, "  ")
    yield "\n}\n"


@memo.per_run(1)  # built once per run, with its memo of keys (kubectl_pd/memo.py)
def _indented() -> Callable[[Any, str], str]:
    """`json.dumps(value, indent=2, ensure_ascii=False)` with each new line followed by `pad`. The standard
    library's encoder runs in Python (a generator per container, a yield per token) whenever it indents,
    which made a quarter of why-pending -A's time; this writes the same text in 40% of its time (the 2,000
    items of why-pending -A over 2,000 Workloads: 37 ms against 92 ms). Plain dicts with str keys, lists,
    str, int, finite float, bool and None are written here, each scalar by the library's own functions;
    anything else (a tuple, a subclass, a non-str key, NaN, a nesting deeper than 64) is handed to
    json.dumps, so its text, or its error (a circular reference, an unserializable object), is the
    library's. Differential test against json.dumps over generated data: tests/test_common_json.py."""
    import json
    from json.encoder import encode_basestring

    string, integer, real = encode_basestring, int.__repr__, float.__repr__
    keys: dict[str, str] = {}  # `"name": `, written once per key (of the first 4,096)
    deepest = 2 * 64  # the pad of depth 64

    def library(value: Any, pad: str) -> str:
        return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + pad)

    def scalar(v: Any, pad: str) -> str:
        t = type(v)
        if t is str:
            return string(v)
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if t is int:
            return integer(v)
        if t is float and -math.inf < v < math.inf:
            return real(v)
        return value(v, pad)

    def value(v: Any, pad: str) -> str:
        t = type(v)
        if t is dict and len(pad) < deepest:
            return obj(v, pad) if v else "{}"
        if t is list and len(pad) < deepest:
            return array(v, pad) if v else "[]"
        if t in (str, int, bool) or v is None or (t is float and -math.inf < v < math.inf):
            return scalar(v, pad)
        return library(v, pad)

    def obj(o: dict[Any, Any], pad: str) -> str:
        inner = pad + "  "
        parts = []
        for k, v in o.items():
            if type(k) is not str:
                return library(o, pad)
            head = keys.get(k)
            if head is None:
                head = string(k) + ": "
                if len(keys) < 4096:
                    keys[k] = head
            t = type(v)
            if t is str:
                parts.append(head + string(v))
            elif v is None:
                parts.append(head + "null")
            elif t is dict or t is list:
                parts.append(head + value(v, inner))
            else:
                parts.append(head + scalar(v, inner))
        return "{\n" + inner + (",\n" + inner).join(parts) + "\n" + pad + "}"

    def array(a: list[Any], pad: str) -> str:
        inner = pad + "  "
        parts = [string(v) if type(v) is str else value(v, inner) for v in a]
        return "[\n" + inner + (",\n" + inner).join(parts) + "\n" + pad + "]"

    return value


def dump(data: Any, fmt: str) -> str:
    """`-o json` or `-o yaml` of plain data."""
    return to_json(data) if fmt == "json" else to_yaml(data)
