"""Pieces every command shares: opening a Source, printing data, colour."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from kubectl_pd.cluster.config import ClusterOptions, default_namespace

if TYPE_CHECKING:  # create --dry-run never needs it at run time
    from kubectl_pd.cluster.protocols import Source


def open_source(cluster: ClusterOptions, files: Sequence[str] = ()) -> Source:
    """Files when given (`-f`/`--from-file`), else the live cluster of the chosen context."""
    if files:
        import click

        from kubectl_pd.cluster.snapshot import DEFAULT_MAX_INPUT, SnapshotSource
        from kubectl_pd.options import INPUT_LIMIT

        ctx = click.get_current_context(silent=True)
        limit = ctx.meta.get(INPUT_LIMIT, DEFAULT_MAX_INPUT) if ctx is not None else DEFAULT_MAX_INPUT
        return SnapshotSource.from_paths(files, max_bytes=limit)
    from kubectl_pd.cluster.live import LiveSource

    return LiveSource(cluster)


def namespace(cluster: ClusterOptions) -> str:
    return default_namespace(cluster)


@functools.cache
def _dumper() -> Any:
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

    return yaml.dump(data, Dumper=_dumper(), sort_keys=False, default_flow_style=False, allow_unicode=True,
                     width=1_000_000)


def to_json(data: Any) -> str:
    import json  # here: the YAML and text paths (create --dry-run above all) never pay for it

    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def echo_dump(data: Any, fmt: str) -> None:
    """`-o json` or `-o yaml` of plain data, written to stdout. A JSON object's top-level values go out one
    by one, and the items of a top-level list one by one, each as `json.dumps(..., indent=2)` gives it,
    indented to its depth: the text is exactly `json.dumps(data, indent=2)`'s (tests/test_common_json.py),
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
    import json

    def one(value: Any, depth: int) -> str:
        return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)

    if not isinstance(data, dict) or not data or not all(isinstance(k, str) for k in data):
        yield one(data, 0) + "\n"
        return
    yield "{"
    for i, (key, value) in enumerate(data.items()):
        head = ("," if i else "") + "\n  " + json.dumps(key, ensure_ascii=False) + ": "
        if isinstance(value, list) and value:
            yield head + "["
            for j, item in enumerate(value):
                yield ("," if j else "") + "\n    " + one(item, 2)
            yield "\n  ]"
        else:
            yield head + one(value, 1)
    yield "\n}\n"


def dump(data: Any, fmt: str) -> str:
    """`-o json` or `-o yaml` of plain data."""
    return to_json(data) if fmt == "json" else to_yaml(data)


def use_color(stream: IO[str] | None = None) -> bool:
    """Colour only on a terminal, never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    s = stream or sys.stdout
    try:
        return s.isatty()
    except (AttributeError, ValueError):
        return False
