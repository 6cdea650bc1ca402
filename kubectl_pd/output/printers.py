"""kubectl's `-o` forms over a command's `-o json` document: jsonpath, custom-columns (and their -file
variants), the sort of --sort-by, the tab layout of kubectl's tables. Pure: the commands read files through
`read_template_file` and print what these return."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kubectl_pd.records import dataclass

if TYPE_CHECKING:  # the jsonpath engine loads with a template, an -o file or --sort-by: -o json needs none of it
    from kubectl_pd.output.jsonpath import Template

# the -o values that take an argument (`-o jsonpath=TEMPLATE`), kubectl's names
TEMPLATED = ("jsonpath", "jsonpath-file", "custom-columns", "custom-columns-file")


@dataclass(frozen=True)
class Column:
    header: str
    path: str
    template: Template


@dataclass(frozen=True)
class Output:
    """A parsed `-o`: `kind` is the base name (`jsonpath` for both jsonpath forms, `custom-columns` for
    both column forms), with its template or columns."""

    kind: str
    template: Template | None = None
    columns: tuple[Column, ...] = ()

    @property
    def document(self) -> bool:
        """True when the output is computed from the -o json document."""
        return self.kind in ("json", "yaml", "jsonpath", "custom-columns")


def split_output(value: str) -> tuple[str, str | None]:
    """`jsonpath=T` -> ("jsonpath", "T"); `json` -> ("json", None)."""
    name, eq, arg = value.partition("=")
    if eq and name in TEMPLATED:
        return name, arg
    return value, None


def parse_output(value: str, file_text: str | None = None) -> Output:
    """`-o VALUE` (for the -file forms, `file_text` is the file's content); a TemplateError when kubectl
    would refuse the template."""
    name, arg = split_output(value)
    if arg is None and name not in TEMPLATED:
        return Output(name)  # json, yaml, text...: no template, so no jsonpath engine
    from kubectl_pd.output.jsonpath import TemplateError, parse_template

    if arg is None:
        if name in TEMPLATED:
            what = "template" if name.startswith("jsonpath") else "custom columns"
            raise TemplateError(f"{name} format specified but no {what} given")
        return Output(name)
    text = file_text if name.endswith("-file") else arg
    if name.startswith("jsonpath"):
        if not text:
            raise TemplateError("template format specified but no template given")
        return Output("jsonpath", template=parse_template(text or ""))
    cols = columns_from_file(text or "") if name.endswith("-file") else columns_from_spec(text or "")
    return Output("custom-columns", columns=cols)


def columns_from_spec(spec: str) -> tuple[Column, ...]:
    """`NAME:.path,OTHER:.path2` (kubectl's custom-columns)."""
    from kubectl_pd.output.jsonpath import TemplateError

    if not spec:
        raise TemplateError("custom-columns format specified but no custom columns given")
    out = []
    for part in spec.split(","):
        header, sep, path = part.partition(":")
        if not sep:
            raise TemplateError(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        out.append(_column(header, path))
    return tuple(out)


def columns_from_file(text: str) -> tuple[Column, ...]:
    """kubectl's custom-columns-file: a line of headers, a line of paths, split on white space."""
    from kubectl_pd.output.jsonpath import TemplateError

    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 2:
        raise TemplateError(f"unexpected custom-columns file: expected 2 lines (headers, paths), got {len(lines)}")
    headers, paths = lines[0].split(), lines[1].split()
    if len(headers) != len(paths):
        raise TemplateError(f"expected {len(headers)} columns, got {len(paths)} paths")
    return tuple(_column(h, p) for h, p in zip(headers, paths, strict=True))


def _column(header: str, path: str) -> Column:
    from kubectl_pd.output.jsonpath import parse_template, relaxed

    return Column(header, path, parse_template(relaxed(path)))


def render(out: Output, doc: Any, rows: list[Any], *, no_headers: bool = False) -> str:
    """-o jsonpath of `doc`, or -o custom-columns with one line per row (a document without rows is one)."""
    if out.kind == "jsonpath" and out.template is not None:
        return out.template.render(doc)
    return custom_columns(out.columns, rows, no_headers=no_headers)


def custom_columns(columns: tuple[Column, ...], rows: list[Any], *, no_headers: bool = False) -> str:
    table = [] if no_headers else [[c.header for c in columns]]
    for row in rows:
        table.append([cell(c.template, row) for c in columns])
    return tab_layout(table)


def cell(t: Template, row: Any) -> str:
    """A column's values in a row: `<none>` when the path finds nothing, several joined by `,`."""
    from kubectl_pd.output.jsonpath import go_value

    found = t.results(row)
    values = found[0] if found else []
    return ",".join(go_value(v) for v in values) if values else "<none>"


def tab_layout(table: list[list[str]]) -> str:
    """kubectl's tabwriter (minimum width 6, padding 3, the last column not padded)."""
    if not table:
        return ""
    n = max(len(r) for r in table)
    widths = [max(6, max(len(r[i]) for r in table if i < len(r)) + 3) for i in range(n - 1)]
    lines = []
    for r in table:
        cells = [c.ljust(widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)]
        lines.append("".join(cells))
    return "\n".join(lines) + "\n"


def sort_rows(rows: list[Any], path: str) -> list[Any]:
    """--sort-by=PATH: rows ordered by the first value PATH finds in each, as kubectl sorts (numbers by
    value, strings in natural order); rows where it finds nothing first, in their order."""
    return [rows[i] for i in sort_order(rows, path)]


def sort_order(rows: list[Any], path: str) -> list[int]:
    """The indices of `rows` in --sort-by order (a stable sort)."""
    from kubectl_pd.output.jsonpath import parse_template, relaxed

    t = parse_template(relaxed(path))
    keys = []
    for row in rows:
        found = t.results(row)
        values = found[0] if found else []
        keys.append(_sort_key(values[0] if values else None))
    return sorted(range(len(rows)), key=lambda i: (keys[i], i))


def _sort_key(v: Any) -> tuple[Any, ...]:
    from kubectl_pd.output.jsonpath import go_value

    if v is None:
        return (0,)
    if isinstance(v, bool):
        return (1, int(v))
    if isinstance(v, (int, float)):
        return (2, v)
    if isinstance(v, str):
        return (3, _natural(v))
    return (4, _natural(go_value(v)))


def _natural(s: str) -> tuple[tuple[int, Any], ...]:
    """Digit runs compared as numbers (kubectl's sortorder.NaturalLess)."""
    parts: list[tuple[int, Any]] = []
    i = 0
    while i < len(s):
        j = i
        digits = s[i].isdigit()
        while j < len(s) and s[j].isdigit() == digits:
            j += 1
        chunk = s[i:j]
        parts.append((1, int(chunk)) if digits else (0, chunk))
        i = j
    return tuple(parts)


def read_template_file(value: str) -> str | None:
    """The file of `-o jsonpath-file=F` / `custom-columns-file=F` (None for the other forms)."""
    name, arg = split_output(value)
    if arg is None or not name.endswith("-file"):
        return None
    from kubectl_pd.output.jsonpath import TemplateError

    try:
        raw = _read_regular(arg)
    except OSError as e:
        raise TemplateError(f"error reading template {arg}: {e.strerror or e}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TemplateError(f"error reading template {arg}: not UTF-8 text") from None


MAX_TEMPLATE_FILE = 16 << 20  # far past any template or column spec


def _read_regular(path: str) -> bytes:
    """A template file's bytes: a regular file only, refused by `stat` before it is opened and again once opened
    (a path swapped in between), so a FIFO (no writer, or a silent one) never hangs the run and a device such as
    /dev/zero never fills memory; at most MAX_TEMPLATE_FILE bytes."""
    import os

    from kubectl_pd.output.jsonpath import TemplateError

    _regular_only(os.stat(path).st_mode, path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO put in its place: opened, never waited on
    with open(fd, "rb") as fh:
        _regular_only(os.fstat(fd).st_mode, path)
        data = fh.read(MAX_TEMPLATE_FILE + 1)
    if len(data) > MAX_TEMPLATE_FILE:
        raise TemplateError(f"error reading template {path}: more than {MAX_TEMPLATE_FILE:,} bytes, past the "
                            f"bound for a template file")
    return data


def _regular_only(mode: int, path: str) -> None:
    import stat

    from kubectl_pd.output.jsonpath import TemplateError

    if stat.S_ISREG(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device")
    raise TemplateError(f"error reading template {path}: {kind}, not a file: give a template file")


@dataclass(frozen=True)
class View:
    """How a command prints its rows: the parsed -o, --no-headers, --sort-by."""

    out: Output
    no_headers: bool = False
    sort_by: str | None = None
    select: Any = None  # -l / --field-selector: a predicate over a row's object (None: every row)

    @property
    def kind(self) -> str:
        return self.out.kind

    @property
    def templated(self) -> bool:
        return self.out.kind in ("jsonpath", "custom-columns")

    def render(self, doc: Any, rows: list[Any]) -> str:
        return render(self.out, doc, rows, no_headers=self.no_headers)

    def order(self, rows: list[Any]) -> list[int]:
        """The indices of `rows` in --sort-by order (all of them, unchanged, without --sort-by)."""
        if not self.sort_by:
            return list(range(len(rows)))
        return sort_order(rows, self.sort_by)

    def to_printer(self, human: Mapping[str, Callable[[Any], str]],
                   document: Callable[[Any], tuple[Any, list[Any]]]) -> Printer:
        """The one printer of a run, chosen once (kubectl's `PrintFlags.ToPrinter()`): the command's own human
        form of this -o (text, wide, name, sarif, ...), else a document form every command shares: json, yaml,
        jsonpath and custom-columns over the -o json document `document(record)` gives with its rows."""
        form = human.get(self.kind)
        if form is None and not self.out.document:
            raise ValueError(f"no printer for -o {self.kind}")  # a command's -o choices name only its forms
        return Printer(self, form, document)


@dataclass(frozen=True)
class Printer:
    """What a run prints its record with: `text(record)` is the whole output, `write(record)` sends it to
    stdout (a json document in pieces, so a long list is never held whole)."""

    view: View
    human: Callable[[Any], str] | None
    document: Callable[[Any], tuple[Any, list[Any]]]

    @property
    def structured(self) -> bool:
        """The record goes out as its -o json document (json, yaml, jsonpath, custom-columns)."""
        return self.human is None

    def text(self, record: Any) -> str:
        if self.human is not None:
            return self.human(record)
        doc, rows = self.document(record)
        if self.view.templated:
            return self.view.render(doc, rows)
        from kubectl_pd.output.dump import dump

        return dump(doc, self.view.kind)

    def write(self, record: Any) -> None:
        if self.human is not None or self.view.templated or self.view.kind != "json":
            import click

            click.echo(self.text(record), nl=False)
            return
        from kubectl_pd.output.dump import echo_dump

        echo_dump(self.document(record)[0], "json")


def parse_time(stamp: str) -> float | None:
    """An RFC 3339 timestamp (metadata.creationTimestamp) as POSIX seconds; None when it is not one."""
    from datetime import datetime

    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def plain_table(rows: list[list[str]], headers: list[str] | None = None) -> str:
    """`tabulate(rows, headers, tablefmt="plain", disable_numparse=True)` for text cells without terminal
    sequences or wide characters (the why-pending list's): cells stripped, columns left-aligned and two spaces
    apart, a column at least its header's width plus 2, each line's trailing space dropped. The library takes
    0.22 s of CPU for the 2,000 rows of `-A -o wide`; this takes 5 ms (a differential test against tabulate:
    tests/test_output_printers.py)."""
    body = [[str(c).strip() for c in r] for r in rows]
    head = [h.strip() for h in headers] if headers else None
    n = max([len(r) for r in body] + [len(head) if head else 0])
    widths = [max([len(r[i]) for r in body if i < len(r)] + ([len(head[i]) + 2] if head and i < len(head) else [0]))
              for i in range(n)]
    lines = [head] if head else []
    lines += body
    return "\n".join("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in lines)
