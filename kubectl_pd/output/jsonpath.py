"""kubectl's JSONPath templates (`-o jsonpath=`, custom-columns, --sort-by) over plain JSON data.

The template layer is ours: text and `{...}` actions, `{range EXPR}...{end}` (nested), `{"literal"}` with
Go's escapes, results printed as kubectl prints them (k8s.io/client-go/util/jsonpath: strings raw, numbers
and booleans as Go's fmt does, maps and lists as compact json.Marshal with sorted keys and HTML-escaped
`<>&`, several results of one action separated by a space, a missing key printing nothing as
`--allow-missing-template-keys=true`, kubectl get's default, does). The expressions inside an action are
kubectl's (`.a.b`, `['a.b']`, `[*]`, `[0:2]`, `[-1]`, `[?(@.x=="y")]`, `..name`, unions), rewritten into the
dialect of jsonpath-ng (its `ext` parser: filters and slices) and evaluated by it. Maps are walked in sorted
key order, as kubectl walks Go maps. tests/test_output_jsonpath.py compares the output with the real
kubectl's on the same documents.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from kubectl_pd.errors import PdError
from kubectl_pd.records import dataclass


class TemplateError(PdError):
    """A template kubectl would refuse: exit 1, as kubectl's `error: error parsing jsonpath ...`."""


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Action:
    expr: str
    compiled: Any  # a jsonpath-ng expression


@dataclass(frozen=True)
class Range:
    expr: str
    compiled: Any
    body: tuple[Any, ...]


@dataclass(frozen=True)
class Template:
    source: str
    nodes: tuple[Any, ...]

    def render(self, data: Any) -> str:
        """The template applied to `data` (a plain JSON value), as kubectl prints it."""
        out: list[str] = []
        _run(self.nodes, _sorted(data), out)
        return "".join(out)

    def results(self, data: Any) -> list[list[Any]]:
        """Each action's values (custom-columns and --sort-by read these), maps in sorted key order."""
        doc = _sorted(data)
        return [[m.value for m in n.compiled.find(doc)] for n in self.nodes if isinstance(n, Action)]


def parse_template(text: str) -> Template:
    """A kubectl JSONPath template; a TemplateError names what is wrong, in one line."""
    try:
        nodes, rest = _parse_nodes(_actions(text), 0, in_range=False)
    except _Bad as e:
        raise TemplateError(f"error parsing jsonpath {text}, {e}") from None
    if rest is not None:
        raise TemplateError(f"error parsing jsonpath {text}, not in range, nothing to end")
    return Template(text, nodes)


def relaxed(path: str) -> str:
    """kubectl's RelaxedJSONPathExpression (custom-columns, --sort-by): `a.b`, `.a.b`, `{a.b}` and `{.a.b}`
    all mean `{.a.b}`; "" stays ""."""
    if not path:
        return path
    inner = path[1:-1] if path.startswith("{") and path.endswith("}") else path
    if "{" in inner or "}" in inner or not inner.strip("."):
        raise TemplateError(f"unexpected path string {path!r}, expected a 'name1.name2' or '.name1.name2' or "
                            "'{name1.name2}' or '{.name1.name2}'")
    return "{." + (inner[1:] if inner.startswith(".") else inner) + "}"


class _Bad(Exception):
    pass


def _actions(text: str) -> list[tuple[bool, str]]:
    """(is_action, text) pieces: `{...}` (quotes respected: a `}` inside a string literal does not close)."""
    pieces: list[tuple[bool, str]] = []
    i, n = 0, len(text)
    while i < n:
        start = text.find("{", i)
        if start < 0:
            pieces.append((False, text[i:]))
            break
        if start > i:
            pieces.append((False, text[i:start]))
        j = next((k for k, c in _outside_quotes(text, start + 1) if c == "}"), n)
        if j >= n:
            raise _Bad("unclosed action")
        pieces.append((True, text[start + 1:j]))
        i = j + 1
    return pieces


def _parse_nodes(pieces: list[tuple[bool, str]], i: int, *, in_range: bool) -> tuple[tuple[Any, ...], int | None]:
    nodes: list[Any] = []
    while i < len(pieces):
        is_action, body = pieces[i]
        i += 1
        if not is_action:
            nodes.append(Text(body))
            continue
        word = body.strip()
        if word == "end":
            if not in_range:
                raise _Bad("not in range, nothing to end")
            return tuple(nodes), i
        if word.startswith("range ") or word.startswith("range\t"):
            expr = word[5:].strip()
            inner, nxt = _parse_nodes(pieces, i, in_range=True)
            nodes.append(Range(expr, _compile(expr), inner))
            if nxt is None:  # kubectl runs a range left open to the end of the template
                return tuple(nodes), None
            i = nxt
        elif word[:1] in "\"'" and len(word) >= 2 and word[-1] == word[0]:
            nodes.append(Text(_unquote(word)))
        elif not word:
            continue  # `{}` prints nothing, as kubectl
        else:
            nodes.append(Action(word, _compile(word)))
    if in_range:
        return tuple(nodes), None
    return tuple(nodes), None


def _unquote(word: str) -> str:
    """A Go string literal (strconv.Unquote: `\\n`, `\\t`, `\\"`, `\\u00e9`...)."""
    if word[0] == "'":
        word = '"' + word[1:-1].replace('"', '\\"') + '"'
    try:
        value = json.loads(word)
    except ValueError:
        raise _Bad(f"invalid string literal {word}") from None
    return str(value)


def _compile(expr: str) -> Any:
    from jsonpath_ng.exceptions import JsonPathLexerError, JsonPathParserError
    from jsonpath_ng.ext import parse

    try:
        return parse(_translate(expr))
    except (JsonPathLexerError, JsonPathParserError, Exception) as e:  # the library raises plain Exceptions too
        if isinstance(e, _Bad):
            raise
        raise _Bad(f"unrecognized expression {expr}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
            from None


def _translate(expr: str) -> str:
    """kubectl's expression -> jsonpath-ng's: `$` first, every plain field name quoted (names may hold `-`,
    `/` or an escaped `\\.`), brackets passed as written (indices, slices, filters, quoted unions)."""
    out = ["$"]
    i, n = 0, len(expr)
    if expr.startswith("$") or expr.startswith("@"):
        i = 1
    elif expr[:1] not in (".", "["):
        raise _Bad(f"unrecognized character in action: {expr[:1]!r}")
    while i < n:
        c = expr[i]
        if c == ".":
            if expr.startswith("..", i):
                out.append("..")
                i += 2
            else:
                out.append(".")
                i += 1
            name, i = _field(expr, i)
            if name == "*":
                out.append("*")
            elif name:
                out.append("'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'")
            elif out[-1] == "..":
                raise _Bad("invalid recursive descent: '..' must be followed by a field")
            elif i < n and expr[i] == "[":
                out.pop()  # `.[0]`: the index of the current value
            else:
                raise _Bad(f"invalid field: {expr}")
        elif c == "[":
            j = _bracket_end(expr, i)
            out.append(_bracket(expr[i:j + 1]))
            i = j + 1
        else:
            raise _Bad(f"unrecognized character in action: {c!r}")
    return "".join(out)


def _field(expr: str, i: int) -> tuple[str, int]:
    name: list[str] = []
    while i < len(expr) and expr[i] not in ".[":
        if expr[i] == "\\" and i + 1 < len(expr):
            i += 1
        name.append(expr[i])
        i += 1
    return "".join(name), i


def _bracket_end(expr: str, i: int) -> int:
    depth = 0
    for j, c in _outside_quotes(expr, i):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j
    raise _Bad("unterminated array")


def _outside_quotes(text: str, j: int) -> Iterator[tuple[int, str]]:
    """Each character of `text` from `j` on, with its index, that is not inside a string literal (the quotes, and a
    backslash's escaped character, stepped over): where an action or a bracket may end."""
    quote = ""
    while j < len(text):
        c = text[j]
        if quote:
            if c == "\\":
                j += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        else:
            yield j, c
        j += 1


def _bracket(text: str) -> str:
    """`[...]` for jsonpath-ng: `[?(...)]` and numeric forms as written; `['a.b']` and `['a','b']` as unions
    of quoted names (jsonpath-ng reads `'a.b'` as one name)."""
    inner = text[1:-1].strip()
    if not inner:
        raise _Bad("empty array index")
    if inner.startswith("?"):
        return "[" + inner + "]"
    if inner[0] in "\"'":
        names = [p.strip() for p in _split_union(inner)]
        if any(len(p) < 2 or p[0] not in "\"'" or p[-1] != p[0] for p in names):
            raise _Bad(f"invalid array index {text}")
        return "[" + ",".join("'" + p[1:-1].replace("'", "\\'") + "'" for p in names) + "]"
    if inner == "*" or all(ch.isdigit() or ch in "-:, " for ch in inner):
        return "[" + inner + "]"
    raise _Bad(f"invalid array index {text}")


def _split_union(inner: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    quote = ""
    for c in inner:
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == ",":
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    parts.append("".join(cur))
    return parts


def _run(nodes: tuple[Any, ...], data: Any, out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.text)
        elif isinstance(node, Action):
            out.append(" ".join(go_text(m.value) for m in node.compiled.find(data)))
        else:
            for m in node.compiled.find(data):
                _run(node.body, m.value, out)


def _sorted(v: Any) -> Any:
    """The same data with every map's keys in sorted order (the order kubectl walks Go maps in)."""
    if isinstance(v, dict):
        return {k: _sorted(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_sorted(x) for x in v]
    return v


def go_text(v: Any) -> str:
    """One result as kubectl's jsonpath prints it."""
    if isinstance(v, (dict, list)):
        return go_json(v)
    if v is None:
        return "null"
    return go_scalar(v)


def go_scalar(v: Any) -> str:
    """A string, number or boolean as Go's fmt.Sprint prints it."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        return _go_float(v)
    return str(v)


def _go_float(f: float) -> str:
    """fmt's %v of a float64: the shortest repr, exponent form below 1e-4 and from 1e21."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == int(f) and abs(f) < 1e21:
        return str(int(f))
    r = repr(f)  # Python's shortest repr uses the exponent form below 1e-4 as Go does (and 1e16+ is integral)
    if "e" in r:
        mant, _, exp = r.partition("e")
        return f"{mant}e{'-' if exp.startswith('-') else '+'}{exp.lstrip('+-').rjust(2, '0')}"
    return r


def go_json(v: Any) -> str:
    """Go's json.Marshal: compact, map keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, floats as
    ECMAScript writes them (no exponent from 1e-6 to below 1e21)."""
    from json.encoder import encode_basestring

    if isinstance(v, dict):
        return "{" + ",".join(_go_string(encode_basestring(str(k))) + ":" + go_json(v[k]) for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(go_json(x) for x in v) + "]"
    if isinstance(v, str):
        return _go_string(encode_basestring(v))
    if isinstance(v, float) and not isinstance(v, bool):
        return _json_float(v)
    return json.dumps(v)


def _go_string(encoded: str) -> str:
    for raw, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                     ("\u2029", "\\u2029")):
        encoded = encoded.replace(raw, esc)
    return encoded


def _json_float(f: float) -> str:
    if math.isnan(f) or math.isinf(f):
        raise TemplateError(f"json: unsupported value: {f}")
    a = abs(f)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        mant, _, exp = repr(f).partition("e") if "e" in repr(f) else f"{f:e}".partition("e")
        sign = "-" if exp.startswith("-") else "+"
        return f"{mant}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    if f == int(f):
        return str(int(f))
    from decimal import Decimal

    return format(Decimal(repr(f)), "f")


def go_value(v: Any) -> str:
    """Go's `%v` of a decoded JSON value (custom-columns cells): `map[a:1 b:x]`, `[a b]`, `<nil>`."""
    if v is None:
        return "<nil>"
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{go_value(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(go_value(x) for x in v) + "]"
    return go_scalar(v)
