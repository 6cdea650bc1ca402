"""PyYAML set up to give the scalars kubectl's YAML reader gives (go-yaml v2 under sigs.k8s.io/yaml).

kubectl turns a kubeconfig's YAML into JSON before decoding it into typed fields, so what matters is which
plain scalars are booleans, numbers, null or strings. go-yaml v2 differs from PyYAML's YAML 1.1 resolver:
`y`/`Y`/`n`/`N` are booleans; a number is whatever Go's strconv reads once `_` are dropped (`0o17`, `012`
octal, `0x1f`, `0b101`, `1e3`) and nothing else (`1:30` is a string, not sexagesimal 90); a date stays a
string. Quoted scalars are always strings. `tests/test_kubeconfig_scalars.py` holds this next to kubectl.
"""

from __future__ import annotations

import re

from kubectl_pd import memo

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

STR = "tag:yaml.org,2002:str"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
MERGE = "tag:yaml.org,2002:merge"

_WORDS: dict[str, tuple[str, Any]] = {"": (NULL, None), "~": (NULL, None), "<<": (MERGE, "<<")}  # a value `<<` is text
for _w in ("null", "Null", "NULL"):
    _WORDS[_w] = (NULL, None)
for _w in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"):
    _WORDS[_w] = (BOOL, True)
for _w in ("n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"):
    _WORDS[_w] = (BOOL, False)
for _w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
    _WORDS[_w] = (FLOAT, float("inf"))
for _w in ("-.inf", "-.Inf", "-.INF"):
    _WORDS[_w] = (FLOAT, float("-inf"))
for _w in (".nan", ".NaN", ".NAN"):
    _WORDS[_w] = (FLOAT, float("nan"))

_GO_INT = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_BIG = 1 << 64


def go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64), then ParseUint: base prefixes, a leading 0 for octal; None if not."""
    if not _GO_INT.fullmatch(text):
        return None
    sign = -1 if text[0] == "-" else 1
    digits = text[1:] if text[0] in "+-" else text
    prefix = digits[1:2].lower()
    if digits[0] == "0" and prefix in ("x", "o", "b"):
        value = int(digits[2:], {"x": 16, "o": 8, "b": 2}[prefix])
    else:
        value = int(digits, 8 if digits[0] == "0" else 10)
    value *= sign
    return value if -(1 << 63) <= value < _BIG else None


def scalar(text: str) -> tuple[str, Any]:
    """(tag, value) of a plain scalar as go-yaml v2 resolves it; value None for strings."""
    if text in _WORDS:
        return _WORDS[text]
    first = text[:1]
    if first == "." or first.isdigit() or first in "+-":
        plain = text.replace("_", "") if first != "." else text
        as_int = go_int(plain)
        if as_int is not None:
            return INT, as_int
        if _YAML_FLOAT.fullmatch(plain):
            return FLOAT, float(plain)
    return STR, None


@memo.per_run(1)  # built once per run (kubectl_pd/memo.py)
def loader() -> Any:
    """The PyYAML loader class (C-accelerated when available) that resolves plain scalars with `scalar`."""
    import yaml  # type: ignore[import-untyped]

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class GoYamlLoader(base):  # type: ignore[misc,valid-type]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is yaml.ScalarNode and implicit[0]:
                return scalar(value)[0]
            return super().resolve(kind, value, implicit)

    def construct(loader: Any, node: Any) -> Any:
        return scalar(node.value)[1]

    for tag in (BOOL, NULL, INT, FLOAT, MERGE):  # (a merge key never reaches a constructor)
        GoYamlLoader.add_constructor(tag, construct)
    return GoYamlLoader


def first_document(text: str) -> Any:
    """The first document of `text` (kubectl ignores the others, even broken ones), read like kubectl."""
    reader = loader()(text)
    try:
        return reader.get_data() if reader.check_data() else None
    finally:
        reader.dispose()
