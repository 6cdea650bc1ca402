"""Text to Kubernetes objects: YAML or JSON, bounded against hostile input, each object with its line.

Two costs shaped this module. JSON is parsed once, by the C decoder, one List item at a time so each
object keeps where it starts. And the index that answers `file:line` for a path inside an object is
not built while reading: a finder remembers the object's span of text and reads only that span when a
finding asks for a line (YAML: composes the span; JSON: walks the path through it). Files with YAML
aliases are the exception: they are read with the index built eagerly, because only there can one
node stand for many and the expansion must be counted (an alias bomb is refused, not followed).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import Any

import yaml

from kubectl_pd.cluster.protocols import LineFinder
from kubectl_pd.cluster.source import Lines, Obj, PathT, descend
from kubectl_pd.errors import InputError
from kubectl_pd.records import dataclass

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DEPTH = 200  # nesting levels; a Kubernetes object needs a few dozen, Python's stack about 1,000
ALIAS_BUDGET = 100_000  # nodes that aliases may add to a document beyond ten times its own size
_MERGE = "tag:yaml.org,2002:merge"
_WS = re.compile(r"[ \t\n\r]*")
_LONG_NUMBER = re.compile(r"\d{4000,}")
_DECODER = json.JSONDecoder()


@dataclass
class Parsed:
    """One object as written, the 1-based line where it starts, and how to find lines inside it."""

    obj: Obj
    line: int
    where: LineFinder


# ---------------------------------------------------------------------------------------------- finders


class IndexFinder:
    """Lines from an index built while reading (the YAML files that use aliases)."""

    __slots__ = ("line", "lines")

    def __init__(self, line: int, lines: Lines) -> None:
        self.line, self.lines = line, lines

    def line_of(self, path: PathT) -> int | None:
        return descend(self.line, self.lines, path)[0]

    def at(self, path: PathT) -> IndexFinder:
        line, lines, _ = descend(self.line, self.lines, path)
        return IndexFinder(line or self.line, lines)


class YamlSpanFinder:
    """Lines inside one YAML object, from its span of text, composed on the first question."""

    __slots__ = ("text", "start", "end", "line", "column", "prefix", "_lines", "_done")

    def __init__(self, text: str | bytes, start: int, end: int, line: int, column: int,
                 prefix: PathT = ()) -> None:
        self.text, self.start, self.end, self.line, self.column, self.prefix = text, start, end, line, column, prefix
        self._lines: Lines = None
        self._done = False

    def _index(self) -> Lines:
        if not self._done:
            self._done = True
            self._lines = yaml_span_index(self.text, self.start, self.end, self.line - 1, self.column)
        return self._lines

    def line_of(self, path: PathT) -> int | None:
        return descend(self.line, self._index(), (*self.prefix, *path))[0]

    def at(self, path: PathT) -> YamlSpanFinder:
        return YamlSpanFinder(self.text, self.start, self.end, self.line, self.column, (*self.prefix, *path))


class JsonSpanFinder:
    """Lines inside one JSON value: the path is walked through its text, skipping values in C. Each
    object or array on a walked path is scanned once; its members' offsets are kept for the next
    question (a queue with four findings walks its spec once)."""

    __slots__ = ("text", "start", "line", "prefix", "cache")

    def __init__(self, text: str, start: int, line: int, prefix: PathT = (),
                 cache: dict[int, dict[str, int] | list[int]] | None = None) -> None:
        self.text, self.start, self.line, self.prefix = text, start, line, prefix
        self.cache = cache if cache is not None else {}

    def line_of(self, path: PathT) -> int | None:
        path = (*self.prefix, *path)
        if not path:
            return self.line
        pos = json_path_position(self.text, self.start, path, self.cache)
        return self.line + self.text.count("\n", self.start, pos)

    def at(self, path: PathT) -> JsonSpanFinder:
        return JsonSpanFinder(self.text, self.start, self.line, (*self.prefix, *path), self.cache)


def json_path_position(text: str, pos: int, path: PathT,
                       cache: dict[int, dict[str, int] | list[int]] | None = None) -> int:
    """Offset of the last step of `path` that exists (a key, or an item) in the JSON value at `pos`."""
    cache = {} if cache is None else cache
    try:
        for step in path:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            known = cache.get(pos)
            if known is None:
                known = cache[pos] = _json_members(text, pos)
            if isinstance(known, dict) and isinstance(step, str) and step in known:
                pos = known[step]
            elif isinstance(known, list) and isinstance(step, int) and 0 <= step < len(known):
                pos = known[step]
            else:
                break
    except (ValueError, IndexError):  # not reachable for text that parsed; never worse than the object's line
        pass
    return pos


def _json_members(text: str, pos: int) -> dict[str, int] | list[int]:
    """Where each member of the object (the last of a repeated key, as json.loads keeps) or each item
    of the array at `pos` is: a container's own offset, so a walk can go on into it, else its key's."""
    if text.startswith("[", pos):
        items: list[int] = []
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        while not text.startswith("]", pos):
            items.append(pos)
            _, pos = _DECODER.raw_decode(text, pos)
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if text.startswith(",", pos):
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        return items
    members: dict[str, int] = {}
    if not text.startswith("{", pos):
        return members
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    while not text.startswith("}", pos):
        name, after = _DECODER.raw_decode(text, pos)
        value_at = _WS.match(text, _WS.match(text, after).end() + 1).end()  # type: ignore[union-attr]
        members[name] = value_at if _is_container(text, value_at) else pos
        _, pos = _DECODER.raw_decode(text, value_at)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    return members


def _is_container(text: str, pos: int) -> bool:
    return text.startswith(("{", "["), pos)


# --------------------------------------------------------------------------------------------------- YAML


def yaml_documents(text: str | bytes, file: str) -> Iterator[Parsed]:
    """Every top-level document of a YAML stream, Lists expanded by the caller.

    ASCII input may come as bytes: the parser streams it instead of holding a second, encoded copy
    of the whole text (its marks count characters, which are bytes then).
    """
    careful = ("*" in text) if isinstance(text, str) else (b"*" in text)  # only aliases make one node stand for many
    loader = _Loader(io.BytesIO(text) if isinstance(text, bytes) else text)
    try:
        while True:
            try:
                if not loader.check_node():
                    break
                node = loader.get_node()
                if node is None:
                    continue
                line = node.start_mark.line + 1
                if careful:
                    data, lines = _Careful(loader, file).build(node, line, 0)
                    where: LineFinder = IndexFinder(line, lines)
                else:
                    data = _data(node, loader, file, 0)
                    where = _span_finder(text, node)
                    is_list = isinstance(data, dict) and isinstance(data.get("items"), list)
                    if is_list and isinstance(node, yaml.MappingNode):
                        where = _ListItems(where, text, node)
                del node  # the composed tree is the biggest thing in memory: drop it before the next
            except yaml.MarkedYAMLError as e:
                mark = e.problem_mark or e.context_mark
                at = f":{mark.line + 1}" if mark is not None else ""
                problem = e.problem or e.context or "invalid YAML"
                raise InputError(f"{file}{at}: malformed YAML: {problem}") from None
            except yaml.YAMLError as e:
                raise InputError(f"{file}: malformed YAML: {e}") from None
            if data is not None:
                yield Parsed(data, line, where)
    finally:
        loader.dispose()


def _span_finder(text: str | bytes, node: yaml.Node) -> YamlSpanFinder:
    start, end = node.start_mark, node.end_mark
    return YamlSpanFinder(text, start.index, end.index, start.line + 1, start.column)


class _ListItems:
    """A finder for a document that may be a List: its items' own spans are kept (they are small)."""

    __slots__ = ("whole", "items")

    def __init__(self, whole: YamlSpanFinder, text: str | bytes, node: yaml.MappingNode) -> None:
        self.whole = whole
        self.items: list[tuple[int, YamlSpanFinder]] | None = None
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "items" and isinstance(v, yaml.SequenceNode):
                self.items = [(i.start_mark.line + 1, _span_finder(text, i)) for i in v.value]

    def line_of(self, path: PathT) -> int | None:
        return self.whole.line_of(path)

    def at(self, path: PathT) -> LineFinder:
        if self.items is not None and len(path) >= 2 and path[0] == "items" and isinstance(path[1], int) \
                and 0 <= path[1] < len(self.items):
            return self.items[path[1]][1].at(path[2:])
        return self.whole.at(path)


def _data(node: yaml.Node, loader: Any, file: str, depth: int) -> Any:
    """Python data of a composed node without aliases (the fast path: no index, no memo)."""
    if depth > MAX_DEPTH:
        raise _too_deep(file, node)
    if isinstance(node, yaml.MappingNode):
        if any(k.tag == _MERGE for k, _ in node.value):
            return _construct(node, loader, file)
        return {_key(k, loader, file): _data(v, loader, file, depth + 1) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_data(v, loader, file, depth + 1) for v in node.value]
    return _scalar(node, loader, file)


class _Careful:
    """Data and an eager line index for a document that may use aliases: each shared node is built
    once (like yaml.safe_load, the data shares it too), its expansion is counted against a budget,
    and an alias inside its own anchor is refused."""

    def __init__(self, loader: Any, file: str) -> None:
        self.loader, self.file = loader, file
        self.memo: dict[int, tuple[Any, Lines, int]] = {}
        self.open: set[int] = set()
        self.nodes = 0  # distinct nodes built
        self.expanded = 0  # nodes that aliases add (each alias counts its whole subtree)

    def build(self, node: yaml.Node, line: int, depth: int) -> tuple[Any, Lines]:
        return self._build(node, line, depth)[:2]

    def _build(self, node: yaml.Node, line: int, depth: int) -> tuple[Any, Lines, int]:
        if depth > MAX_DEPTH:
            raise _too_deep(self.file, node)
        if not isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            self.nodes += 1
            return _scalar(node, self.loader, self.file), None, 1
        key = id(node)
        if key in self.open:
            raise InputError(f"{self.file}:{line}: a YAML alias refers to its own anchor (a recursive "
                             f"structure): no Kubernetes object is infinite")
        seen = self.memo.get(key)
        if seen is not None:
            self.expanded += seen[2]
            if self.expanded > ALIAS_BUDGET + 10 * self.nodes:
                raise InputError(f"{self.file}:{line}: YAML aliases expand this document past "
                                 f"{ALIAS_BUDGET + 10 * self.nodes:,} nodes (an alias bomb?): refused")
            return seen
        self.open.add(key)
        self.nodes += 1
        size = 1
        if isinstance(node, yaml.MappingNode):
            if any(k.tag == _MERGE for k, _ in node.value):
                out: tuple[Any, Lines, int] = (_construct(node, self.loader, self.file), None, len(node.value))
            else:
                data: dict[Any, Any] = {}
                lines: dict[Any, tuple[int, Lines]] = {}
                for k, v in node.value:
                    kl = k.start_mark.line + 1
                    name = _key(k, self.loader, self.file)
                    value, sub, n = self._build(v, kl, depth + 1)
                    data[name], lines[name] = value, (kl, sub)
                    size += n
                out = (data, lines, size)
        else:
            items: list[Any] = []
            item_lines: list[tuple[int, Lines]] = []
            for v in node.value:
                il = v.start_mark.line + 1
                value, sub, n = self._build(v, il, depth + 1)
                items.append(value)
                item_lines.append((il, sub))
                size += n
            out = (items, item_lines, size)
        self.open.discard(key)
        self.memo[key] = out
        return out


def _key(node: yaml.Node, loader: Any, file: str) -> Any:
    """A mapping key: a scalar. A list or mapping as a key (YAML's `? [a, b]`) has no JSON form: kubectl
    refuses it too (sigs.k8s.io/yaml: invalid map key)."""
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node, loader, file)
    shape = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
    raise InputError(f"{file}:{node.start_mark.line + 1}: a {shape} used as a mapping key (YAML's `? ...`): "
                     f"no Kubernetes object has one")


def _scalar(node: yaml.Node, loader: Any, file: str) -> Any:
    construct = loader.yaml_constructors.get(node.tag)
    if construct is None:  # an unknown tag: let the constructor say what is wrong
        return _construct(node, loader, file)
    try:
        return construct(loader, node)
    except yaml.YAMLError:
        raise
    except (ValueError, OverflowError) as e:  # 5,000 digits, 2026-13-45: YAML's resolver said a type
        raise InputError(f"{file}:{node.start_mark.line + 1}: {_short(node.value)} cannot be read as "
                         f"{node.tag.rsplit(':', 1)[-1]}: {str(e).split(';')[0]}") from None


def _construct(node: yaml.Node, loader: Any, file: str) -> Any:
    try:
        return loader.construct_document(node)
    except yaml.YAMLError:
        raise
    except RecursionError:
        raise _too_deep(file, node) from None
    except (ValueError, OverflowError, TypeError) as e:
        raise InputError(f"{file}:{node.start_mark.line + 1}: cannot read this value: {e}") from None


def _too_deep(file: str, node: yaml.Node) -> InputError:
    return InputError(f"{file}:{node.start_mark.line + 1}: nested more than {MAX_DEPTH} levels deep: "
                      f"not a Kubernetes object")


def _short(value: object) -> str:
    text = str(value)
    return repr(text) if len(text) <= 40 else f"a {len(text):,}-character value"


def yaml_span_index(text: str | bytes, start: int, end: int, offset: int, column: int) -> Lines:
    """The line index of one object from its span of text (None when the span does not compose alone)."""
    span = text[start:end]
    loader = _Loader(" " * column + (span if isinstance(span, str) else span.decode()))
    try:
        node = loader.get_single_node()
        return _index(node, loader, offset) if node is not None else None
    except Exception:  # noqa: BLE001 - an index is a convenience: the object's own line still stands
        return None
    finally:
        loader.dispose()


def _index(node: yaml.Node, loader: Any, offset: int) -> Lines:
    if isinstance(node, yaml.MappingNode):
        if any(k.tag == _MERGE for k, _ in node.value):
            return None
        return {(loader.construct_object(k) if not isinstance(k, yaml.ScalarNode) else _scalar(k, loader, "")):
                (k.start_mark.line + 1 + offset, _index(v, loader, offset)) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [(v.start_mark.line + 1 + offset, _index(v, loader, offset)) for v in node.value]
    return None


# --------------------------------------------------------------------------------------------------- JSON


def json_documents(text: str, file: str) -> Iterator[Parsed]:
    """The one JSON value of a file, parsed once; a List's items keep their own offsets."""
    try:
        data, spans = _json_top(text)
        if _too_deep_json(text, data, spans):
            raise RecursionError
    except json.JSONDecodeError as e:
        raise InputError(f"{file}:{e.lineno}: malformed JSON: {e.msg}") from None
    except RecursionError:
        raise InputError(f"{file}:{_deep_line(text)}: nested too deeply: not a Kubernetes object") from None
    except ValueError as e:  # an integer of more than 4,300 digits
        m = _LONG_NUMBER.search(text)
        at = f":{text.count(chr(10), 0, m.start()) + 1}" if m else ""
        raise InputError(f"{file}{at}: cannot read a number: {str(e).split(';')[0]}") from None
    start = _WS.match(text).end()  # type: ignore[union-attr]
    line = text.count("\n", 0, start) + 1
    yield Parsed(data, line, _JsonList(text, start, line, spans) if spans is not None
                 else JsonSpanFinder(text, start, line))


class _JsonList:
    """A finder for the top JSON value, that knows where each of its `items` starts."""

    __slots__ = ("whole", "spans", "lines")

    def __init__(self, text: str, start: int, line: int, spans: list[int] | None) -> None:
        self.whole = JsonSpanFinder(text, start, line)  # its cache is shared by every item's finder
        self.spans = spans
        self.lines: list[int] | None = None

    def line_of(self, path: PathT) -> int | None:
        return self.whole.line_of(path)

    def at(self, path: PathT) -> LineFinder:
        if self.spans is not None and len(path) >= 2 and path[0] == "items" and isinstance(path[1], int) \
                and 0 <= path[1] < len(self.spans):
            if self.lines is None:  # every item's line in one pass over the text
                text, at, line, out = self.whole.text, self.whole.start, self.whole.line, []
                for s in self.spans:
                    line += text.count("\n", at, s)
                    at = s
                    out.append(line)
                self.lines = out
            i = path[1]
            return JsonSpanFinder(self.whole.text, self.spans[i], self.lines[i], path[2:], self.whole.cache)
        return self.whole.at(path)


# The C decoder nests as deep as the recursion limit lets it (about 1,000): deeper than MAX_DEPTH is found
# afterwards, by walking only what has more than MAX_DEPTH opening brackets in its text (C-speed counts:
# a real object has a few dozen, so a List's items are almost never walked).
def _too_deep_json(text: str, data: Any, spans: list[int] | None) -> bool:
    items = data.get("items") if spans and isinstance(data, dict) else None
    if not isinstance(items, list) or len(items) != len(spans or ()):
        return _opens(text, 0, len(text)) > MAX_DEPTH and _deeper_than(data, MAX_DEPTH)
    assert spans is not None
    rest = {k: v for k, v in data.items() if k != "items"}
    if _deeper_than(rest, MAX_DEPTH):
        return True
    ends = [*spans[1:], len(text)]
    level = MAX_DEPTH - 2  # an item is the third level: the List, its items, the item
    return any(_opens(text, start, end) > level and _deeper_than(item, level)
               for item, start, end in zip(items, spans, ends, strict=False))


def _opens(text: str, start: int, end: int) -> int:
    return text.count("{", start, end) + text.count("[", start, end)


def _deeper_than(root: Any, limit: int) -> bool:
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for v in node.values() if type(node) is dict else node if type(node) is list else ():
            if type(v) is dict or type(v) is list:
                stack.append((v, depth + 1))
    return False


def _json_top(text: str) -> tuple[Any, list[int] | None]:
    """json.loads, except that the top object's `items` array is read item by item (still in C) to
    keep each item's offset."""
    pos = _WS.match(text).end()  # type: ignore[union-attr]
    if not text.startswith("{", pos):
        value, pos = _DECODER.raw_decode(text, pos)
        _end(text, pos)
        return value, None
    obj: dict[str, Any] = {}
    spans: list[int] | None = None
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    if text.startswith("}", pos):
        _end(text, pos + 1)
        return obj, None
    while True:
        if not text.startswith('"', pos):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        if key == "items" and text.startswith("[", pos):
            obj[key], spans, pos = _json_array(text, pos)
        else:
            obj[key], pos = _DECODER.raw_decode(text, pos)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            continue
        if text.startswith("}", pos):
            _end(text, pos + 1)
            return obj, spans
        raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)


def _json_array(text: str, pos: int) -> tuple[list[Any], list[int], int]:
    items: list[Any] = []
    spans: list[int] = []
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", pos):
        return items, spans, pos + 1
    while True:
        spans.append(pos)
        item, pos = _DECODER.raw_decode(text, pos)
        items.append(item)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        elif text.startswith("]", pos):
            return items, spans, pos + 1
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)


def _end(text: str, pos: int) -> None:
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if pos != len(text):
        raise json.JSONDecodeError("Extra data", text, pos)


def _deep_line(text: str) -> int:
    """The line where JSON nesting first passes MAX_DEPTH (strings skipped)."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return text.count("\n", 0, m.start()) + 1
        elif tok in "]}":
            depth -= 1
    return 1


def looks_like_json(text: str | bytes) -> bool:
    """A `{` first: `kubectl get -o json` output, whatever the file is called."""
    head = text[:4096].lstrip()
    return head.startswith("{") if isinstance(head, str) else head.startswith(b"{")
