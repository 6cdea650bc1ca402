"""A Source over files: what `kubectl get -o yaml` writes, with each object's file and line."""

from __future__ import annotations

import codecs
import errno
import gc
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from kubectl_pd.cluster import kinds
from kubectl_pd.cluster.parse import Parsed, json_documents, looks_like_json, yaml_documents
from kubectl_pd.cluster.protocols import LineFinder
from kubectl_pd.cluster.selectors import parse_field_selector, parse_label_selector
from kubectl_pd.cluster.source import Obj, Origin, SourceDefaults, labels_of, name_of, namespace_of
from kubectl_pd.errors import InputError, PdError
from kubectl_pd.kueue.normalize import normalize
from kubectl_pd.records import dataclass

_SUFFIXES = (".yaml", ".yml", ".json")
# The first document `kubectl pd snapshot` writes: what was read, when, from where, and what failed.
HEADER_API_VERSION = "kubectl-pd.io/v1alpha1"
HEADER_KIND = "Snapshot"
_Objs = list[Obj]  # (the class below has a method named `list`)
DEFAULT_MAX_INPUT = 256 * 2**20  # bytes, all inputs together; --max-input-size raises it (0: no limit)


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
        _check_exists(p)
        path = Path(p)
        if path.is_dir():
            found = sorted(
                str(f) for f in path.rglob("*") if f.suffix.lower() in _SUFFIXES and (f.is_file() or f.is_symlink())
            )
            for f in found:
                _check_exists(f)  # a dangling link or a loop of links inside the directory is said, not skipped
            out.extend(f for f in found if os.path.isfile(f))
        else:
            out.append(p)
    return out


def _check_exists(p: str) -> None:
    """Say what is wrong with a path: absent, a dangling link, a loop of links, unreadable."""
    try:
        os.stat(p)
    except FileNotFoundError:
        if os.path.islink(p):
            raise InputError(f"{p}: a symbolic link to {os.readlink(p)!r}, which does not exist") from None
        raise InputError(f"{p}: no such file or directory") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise InputError(f"{p}: a loop of symbolic links: it never reaches a file") from None
        raise InputError(f"{p}: cannot read: {e.strerror or e}") from None


class Budget:
    """How many bytes of input are still allowed, across every file and stdin."""

    def __init__(self, limit: int = DEFAULT_MAX_INPUT) -> None:
        self.limit = limit
        self.left = limit if limit > 0 else None

    def read(self, fh: Any, path: str) -> bytes:
        if self.left is None:
            return fh.read()
        data = fh.read(self.left + 1)
        if len(data) > self.left:
            raise InputError(f"{path}: {self._what(fh)}more input than --max-input-size {format_size(self.limit)} "
                             f"allows{self._hint(fh)}")
        self.left -= len(data)
        return data

    def _what(self, fh: Any) -> str:
        """Name what is being read when it is not a file: /dev/zero, a pipe, a socket never end."""
        try:
            mode = os.fstat(fh.fileno()).st_mode
        except (OSError, AttributeError, ValueError):
            return ""
        if stat.S_ISREG(mode):
            return ""
        if stat.S_ISCHR(mode):
            return "a device, not a file, that gives "
        return "a pipe or socket that gives "

    def _hint(self, fh: Any) -> str:
        """For a regular file: its size, and a limit that would take it."""
        try:
            st = os.fstat(fh.fileno())
        except (OSError, AttributeError, ValueError):
            return ""
        if not stat.S_ISREG(st.st_mode):
            return ": is it the right input?"
        need = self.limit - (self.left or 0) + st.st_size  # called only with a limit (left is not None)
        mib = 1 << max(0, (need - 1).bit_length() - 20)
        return (f" ({st.st_size:,} bytes, {need:,} in all): if it is the right file, raise the limit, "
                f"e.g. --max-input-size {format_size(mib * 2**20)}")


class _Encoded:
    """A text stream read as UTF-8 bytes, so one budget counts both."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def read(self, n: int = -1) -> bytes:
        return self.stream.read(n).encode()


def format_size(n: int) -> str:
    for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def read_input(path: str, budget: Budget | None = None) -> str | bytes:
    """The file (or stdin), at most the budget's bytes, UTF-8 checked, a BOM dropped (YAML and JSON
    alike). ASCII comes back as bytes: the YAML parser streams it without a second copy."""
    budget = budget or Budget()
    try:
        if path == "-":
            raw = getattr(sys.stdin, "buffer", None)
            # a text stream may stand in for stdin (embedding, tests)
            data = budget.read(raw if raw is not None else _Encoded(sys.stdin), "stdin")
        else:
            with open(path, "rb") as fh:
                _not_stdout(fh, path)
                data = budget.read(fh, path)
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8):]
        return data if data.isascii() else data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except MemoryError:
        raise InputError(f"{path}: too large to hold in memory: lower --max-input-size") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise InputError(f"{path}: a loop of symbolic links: it never reaches a file") from None
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None


def _not_stdout(fh: Any, path: str) -> None:
    """Refuse, before reading, an input that is also the output (`lint -f q.yaml --fix > q.yaml`): the
    shell emptied it before we ran, and reading it would say there is nothing in it."""
    try:
        st, out = os.fstat(fh.fileno()), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return
    if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
        raise InputError(f"{path}: this input is also the standard output, which the shell emptied before "
                         f"kubectl-pd ran: write the output to another file (then move it over {path})")


def read_text(path: str, budget: Budget | None = None) -> str:
    data = read_input(path, budget)
    return data if isinstance(data, str) else data.decode("ascii")


def parse_documents(text: str | bytes, file: str, *, as_json: bool = False) -> Iterator[Loaded]:
    """Yield every Kubernetes object in `text`, expanding `List`s, with its origin.

    JSON (a `.json` file, or any text that starts with `{`) is read by the JSON parser, once; YAML
    when it is not JSON.
    """
    if as_json:
        parsed: Iterator[Parsed] = json_documents(_str(text), file)
    elif looks_like_json(text):
        try:
            parsed = iter(list(json_documents(_str(text), file)))
        except InputError:  # flow-style YAML that is not strict JSON
            parsed = yaml_documents(text, file)
    else:
        parsed = yaml_documents(text, file)
    for p in parsed:
        yield from _objects(p.obj, p.line, p.where, file)


def _str(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("ascii")


def _objects(data: object, line: int, where: LineFinder, file: str) -> Iterator[Loaded]:
    if not isinstance(data, dict):
        what = type(data).__name__ if not isinstance(data, list) else "a list"
        raise InputError(f"{file}:{line}: not a Kubernetes object (a document must be a mapping, got {what})")
    if not data.get("kind") or not data.get("apiVersion"):
        missing = "apiVersion" if data.get("kind") else "kind"
        raise InputError(f"{file}:{line}: not a Kubernetes object (no {missing})")
    kind = data["kind"]
    if not isinstance(kind, str) or not isinstance(data["apiVersion"], str):
        bad = "kind" if not isinstance(kind, str) else "apiVersion"
        raise InputError(f"{file}:{where.line_of((bad,)) or line}: not a Kubernetes object ({bad} is not a string)")
    if kind == "List" or (kind.endswith("List") and isinstance(data.get("items"), list)):
        items = data.get("items") or []
        if not isinstance(items, list):
            raise InputError(f"{file}:{where.line_of(('items',)) or line}: {kind}.items is not a list")
        for i, item in enumerate(items):
            sub = where.at(("items", i))
            item_line = sub.line_of(()) or line
            if isinstance(item, dict) and "kind" not in item and kind != "List":
                item = {"kind": kind[: -len("List")], "apiVersion": data["apiVersion"], **item}
            yield from _objects(item, item_line, sub, file)
        return
    _check_envelope(data, kind, line, where, file)
    yield Loaded(data, Origin(file, line, where, raw=data))


_ENVELOPE = ("metadata", "spec", "status")


def _check_envelope(data: Obj, kind: str, line: int, where: LineFinder, file: str) -> None:
    """The kinds we read keep metadata, spec and status as mappings, as every Kubernetes API does;
    anything else is malformed input, said here with its line rather than deep inside a command."""
    if kinds.lookup(kind) is None:
        return
    for key in _ENVELOPE:
        value = data.get(key)
        if value is not None and not isinstance(value, dict):
            got = "a list" if isinstance(value, list) else type(value).__name__
            name = name_of(data) if key != "metadata" else ""
            raise InputError(f"{file}:{where.line_of((key,)) or line}: {kind}{'/' + name if name else ''}: "
                             f"{key} is not a mapping (got {got})")


class SnapshotSource(SourceDefaults):
    """Objects from files, directories or stdin, queried like a cluster."""

    is_live = False

    def __init__(self, loaded: list[Loaded]) -> None:
        self._by_kind: dict[str, list[Obj]] = {}
        self._origins: dict[int, Origin] = {}
        for item in loaded:
            obj = normalize(item.obj)
            self._origins[id(obj)] = item.origin
            self._by_kind.setdefault(str(obj.get("kind")), []).append(obj)
        self.replay = Replay([h for h in self._by_kind.get(HEADER_KIND, [])
                              if h.get("apiVersion") == HEADER_API_VERSION])

    @classmethod
    def from_paths(cls, paths: Iterable[str], max_bytes: int = DEFAULT_MAX_INPUT) -> SnapshotSource:
        """Read files, directories and `-`; at most `max_bytes` of input in all (0: no limit)."""
        loaded: list[Loaded] = []
        budget = Budget(max_bytes)
        # Reading builds millions of long-lived containers for a big file and none of it is garbage,
        # so the cyclic collector is paused instead of rescanning them over and over.
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for file in expand_paths(paths):
                text = read_input(file, budget)
                loaded.extend(parse_documents(text, file, as_json=file.lower().endswith(".json")))
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

    def _kind_name(self, kind: str) -> str:
        k = kinds.lookup(kind)
        return k.kind if k is not None else kind

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        k = kinds.lookup(kind)
        if self.replay.rows:
            self.replay.check({"verb": "get", "kind": k.kind if k else kind, "namespace": namespace, "name": name})
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
        *,
        reduce: Callable[[Obj], Obj | None] | None = None,
    ) -> list[Obj]:
        """As the live list: the selectors as the API server applies them; `reduce` on each object (None
        drops it; the origin of an object the reducer copied is unknown)."""
        if self.replay.rows:
            self.replay.check({"verb": "list", "kind": self._kind_name(kind), "namespace": namespace,
                               "labelSelector": label_selector, "fieldSelector": field_selector})
        match_labels = parse_label_selector(label_selector)
        match_fields = parse_field_selector(field_selector)
        out = []
        for obj in self._by_kind.get(self._kind_name(kind), []):
            ns = namespace_of(obj)
            if namespace is not None and ns is not None and ns != namespace:
                continue
            if match_labels(labels_of(obj)) and match_fields(obj):
                kept = obj if reduce is None else reduce(obj)
                if kept is not None:
                    out.append(kept)
        return out

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        """Files hold objects, not a server's answers to paths: never a guessed answer (callers ask is_live)."""
        raise PdError(f"a snapshot serves no API paths ({resource or path})")

    def origin(self, obj: Obj) -> Origin:
        return self._origins.get(id(obj)) or Origin("<unknown>")

    def stored(self, kind: str) -> _Objs:
        """Every object of `kind` in the files (a header's refused reads not replayed: for input checks)."""
        return list(self._by_kind.get(self._kind_name(kind), []))



class Replay:
    """The reads a `kubectl pd snapshot` header says failed (or were not served), failed again the same way
    when a diagnosis replays them: a snapshot of a cluster where RBAC refused the events gives the same
    notes as the live run did, not a diagnosis that seems to have read them."""

    def __init__(self, headers: list[Obj]) -> None:
        self.rows: list[dict[str, Any]] = []
        self.not_served: set[str] = set()
        for h in headers:
            self.rows.extend(r for r in h.get("failed") or [] if isinstance(r, dict))
            self.not_served.update(p for p in h.get("notServed") or [] if isinstance(p, str))

    def check(self, read: dict[str, Any]) -> None:
        """Raise the recorded error of `read`, when it failed when the snapshot was taken."""
        want = {k: v for k, v in read.items() if v}
        for row in self.rows:
            if {k: row.get(k) for k in ("verb", "kind", "namespace", "name", "labelSelector", "fieldSelector",
                                        "path")} == {**dict.fromkeys(("verb", "kind", "namespace", "name",
                                                                      "labelSelector", "fieldSelector", "path")),
                                                     **want}:
                raise _error(row)

    def served(self, path: str) -> bool:
        return path not in self.not_served


def _error(row: dict[str, Any]) -> Exception:
    from kubectl_pd import errors

    message = str(row.get("message") or "")
    if row.get("error") == "ForbiddenError":
        return errors.ForbiddenError(message, verb=str(row.get("errorVerb") or ""),
                                     resource=str(row.get("resource") or ""),
                                     namespace=str(row.get("errorNamespace") or ""),
                                     refusal=str(row.get("refusal") or ""))
    if row.get("error") == "ApiUnavailable":
        return errors.ApiUnavailable(message)
    return errors.ClusterError(message)
