"""A reader for the plain block YAML that kubeconfig files are written in, without importing PyYAML.

Importing PyYAML costs more than a quarter of a Tab press (it compiles its resolver's patterns at import;
`bench/bench_live.py`), and every live command reads a kubeconfig first. kubectl, `kubectl config` and
cloud CLIs write kubeconfigs as block mappings and sequences of plain or quoted scalars, which this
module reads, with the scalars kubectl's own YAML reader (go-yaml v2 through sigs.k8s.io/yaml) gives:
YAML 1.1 booleans including `y` and `n`, and plain scalars that start like numbers resolved by go-yaml v2's
rules (`goyaml.scalar`, the rule the PyYAML path uses too: `01` octal, `1:30` and a hex token text).
Everything else (anchors, tags, block scalars, flow collections other than `{}`/`[]`, multi-line scalars,
merges, more than one document) makes `load` return `UNSUPPORTED`, and the caller hands the text to
PyYAML set up the same way (`config.go_loader`): the answer is that reader's or nothing.
`tests/test_blockyaml.py` holds the two side by side.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any


UNSUPPORTED = object()

# go-yaml v2's words for booleans (kubectl's YAML reader: PyYAML's YAML 1.1 words and y, Y, n, N), and null
_BOOLS = {v: True for v in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")}
_BOOLS.update({v: False for v in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")})
_NULLS = {"~", "null", "Null", "NULL", ""}
# a plain scalar starting with one of these is a YAML indicator or may resolve to a non-string type
_INDICATORS = frozenset("&*!|>%@`{[]},#?'\"")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0", " ": " "}


class _Unsupported(Exception):
    """Raised inside the reader; `load` turns it into UNSUPPORTED."""


def load(text: str) -> Any:
    """The document in `text`, as `config.first_document` would give it, or UNSUPPORTED."""
    try:
        lines = _lines(text)
        if not lines:
            return None
        value, end = _node(lines, 0, lines[0][0])
        if end != len(lines):
            return UNSUPPORTED
        return value
    except _Unsupported:
        return UNSUPPORTED


def _lines(text: str) -> list[tuple[int, str]]:
    """(indentation, content) of every line that holds something; comments and a leading `---` dropped."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\t" in text or not text.replace("\n", "").isprintable():
        raise _Unsupported  # tabs, other line breaks, control or unusual characters: PyYAML's rules apply
    out: list[tuple[int, str]] = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        if body.startswith("%"):
            raise _Unsupported  # a directive
        if line.startswith(("---", "...")):
            if not out and line.rstrip(" ") == "---":
                continue  # the start of the (only) document
            raise _Unsupported
        out.append((len(line) - len(body), body.rstrip(" ")))
    return out


def _node(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[Any, int]:
    """The block collection starting at line i, whose entries sit at `indent`."""
    if lines[i][1] == "-" or lines[i][1].startswith("- "):
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent, None)


def _sequence(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    while i < len(lines) and lines[i][0] == indent and (lines[i][1] == "-" or lines[i][1].startswith("- ")):
        rest = lines[i][1][1:].lstrip(" ")
        inner = indent + len(lines[i][1]) - len(rest)
        if not rest:  # "-" alone: the item is the block below, or null
            if i + 1 < len(lines) and lines[i + 1][0] > indent:
                value, i = _node(lines, i + 1, lines[i + 1][0])
            else:
                value, i = None, i + 1
        elif rest.startswith("- "):
            raise _Unsupported  # a sequence inside a sequence on one line
        elif _key_of(rest) is not None:  # "- key: value": a mapping whose first entry is on this line
            value, i = _mapping(lines, i, inner, rest)
        else:
            value, i = _scalar(rest), i + 1
        items.append(value)
    if i < len(lines) and lines[i][0] > indent:
        raise _Unsupported
    return items, i


def _mapping(lines: list[tuple[int, str]], i: int, indent: int, first: str | None) -> tuple[dict[str, Any], int]:
    """A block mapping at `indent`; `first` is its first entry when it shares a line with a `- `."""
    out: dict[str, Any] = {}
    while i < len(lines):
        if first is not None:
            content, first = first, None
        elif lines[i][0] == indent:
            content = lines[i][1]
        else:
            break
        split = _key_of(content)
        if split is None:
            raise _Unsupported
        key, rest = split
        if rest:
            out[key] = _scalar(rest)
            i += 1
            if i < len(lines) and lines[i][0] > indent:
                raise _Unsupported  # a plain scalar that goes on to the next line
            continue
        i += 1
        # "key:" then a nested block; a sequence may sit at the key's own indentation (kubectl writes that)
        if i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and _is_item(lines[i][1]))):
            out[key], i = _node(lines, i, lines[i][0])
        else:
            out[key] = None
    if i < len(lines) and lines[i][0] > indent:
        raise _Unsupported
    return out, i


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


def _key_of(content: str) -> tuple[str, str] | None:
    """("key", "rest") for `key: rest` or `key:`; None when the line is not a mapping entry."""
    if content[0] in "\"'":
        key, after = _quoted(content)
        if not after.startswith(":") or after[1:2] not in ("", " "):
            return None
        return key, after[1:].strip(" ")
    at = content.find(": ")
    if at < 0:
        if not content.endswith(":"):
            return None
        at = len(content) - 1
    key = content[:at]
    if (not key or key != key.strip(" ") or key[0] in _INDICATORS or key[0] in "-:" or ":" in key or " #" in key
            or key in _NULLS or key in _BOOLS or _maybe_number(key) or key in ("<<", "=")):
        raise _Unsupported  # a key PyYAML reads differently, or as something other than a string
    return key, content[at + 1:].strip(" ")


def _scalar(text: str) -> Any:
    if text[0] in "\"'":
        value, after = _quoted(text)
        if after and not (after.startswith(" ") and after.lstrip(" ").startswith("#")):
            raise _Unsupported
        return value
    if text in ("{}", "[]"):
        return {} if text == "{}" else []
    if text[0] in _INDICATORS or text.startswith(("- ", "? ", ": ")) or text == "-":
        raise _Unsupported
    if " #" in text or ": " in text or text.endswith(":"):
        raise _Unsupported
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    if text in ("<<", "="):
        raise _Unsupported
    if _maybe_number(text):
        return _number_or_text(text)
    return text


def _number_or_text(text: str) -> Any:
    """A plain scalar that starts like a number, as the PyYAML loader of `config.go_loader` resolves it: that
    loader hands every plain scalar to goyaml.scalar (go-yaml v2's rules), so the answer is the same; a hex
    token that starts with a digit (`5ad3...`) stays text, as in the kubeconfigs PyYAML itself writes."""
    digits = text[1:] if text[0] in "+-" else text
    if digits.isascii() and digits.isdigit() and (digits == "0" or not digits.startswith("0")) and len(digits) < 19:
        return int(text)  # the common case, without the import (past int64, Go reads a float: goyaml's rule)
    from kubectl_pd.cluster import goyaml

    tag, value = goyaml.scalar(text)
    if tag == goyaml.FLOAT and value != value:
        raise _Unsupported  # NaN: never equal to itself, let PyYAML give it
    return text if tag == goyaml.STR else value


def _maybe_number(text: str) -> bool:
    """Whether YAML 1.1 might read this plain scalar as an int, a float or a timestamp."""
    rest = text[1:] if text[0] in "+-" else text
    return bool(rest) and rest[0] in "0123456789."


def _quoted(text: str) -> tuple[str, str]:
    """A single- or double-quoted scalar that ends on this line: (value, what follows the quote)."""
    q = text[0]
    out: list[str] = []
    i = 1
    while i < len(text):
        c = text[i]
        if q == "'" and c == "'":
            if text[i + 1: i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), text[i + 1:]
        if q == '"' and c == '"':
            return "".join(out), text[i + 1:]
        if q == '"' and c == "\\":
            e = text[i + 1: i + 2]
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
                i += 2
                continue
            if e == "u" and len(text) >= i + 6 and all(h in "0123456789abcdefABCDEF" for h in text[i + 2:i + 6]):
                code = int(text[i + 2:i + 6], 16)
                if 0xD800 <= code <= 0xDFFF:
                    raise _Unsupported
                out.append(chr(code))
                i += 6
                continue
            raise _Unsupported
        out.append(c)
        i += 1
    raise _Unsupported  # the quote goes on to another line
