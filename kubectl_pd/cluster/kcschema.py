"""The kubeconfig's typed fields, checked the way kubectl's loader checks them.

kubectl turns the YAML into JSON (sigs.k8s.io/yaml: YAML 1.1 scalars, so `n` and `off` are booleans and
`"false"` is a string) and decodes that into typed Go structs (clientcmd/api/v1): a string where a boolean
belongs, a number where a string belongs, or base64 that does not decode refuses the whole file. Unknown
fields are ignored and `null` is the zero value. `check` returns the first such problem as
(path, expected, found), or None; the caller words the error.
"""

from __future__ import annotations

import base64
import binascii

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

STR, BOOL, BYTES, RAW = "string", "boolean", "base64 data", "any"
STRLIST = ("list", STR)
STRMAP = ("map", STR)
EXTRA = ("map", STRLIST)  # as-user-extra: map[string][]string

_EXTENSIONS = ("list", {"name": STR, "extension": RAW})
CLUSTER = {"server": STR, "tls-server-name": STR, "insecure-skip-tls-verify": BOOL, "certificate-authority": STR,
           "certificate-authority-data": BYTES, "proxy-url": STR, "disable-compression": BOOL,
           "extensions": _EXTENSIONS}
EXEC = {"command": STR, "args": STRLIST, "env": ("list", {"name": STR, "value": STR}), "apiVersion": STR,
        "installHint": STR, "provideClusterInfo": BOOL, "interactiveMode": STR}
USER = {"client-certificate": STR, "client-certificate-data": BYTES, "client-key": STR, "client-key-data": BYTES,
        "token": STR, "tokenFile": STR, "as": STR, "as-uid": STR, "as-groups": STRLIST, "as-user-extra": EXTRA,
        "username": STR, "password": STR, "auth-provider": {"name": STR, "config": STRMAP}, "exec": EXEC,
        "extensions": _EXTENSIONS}
CONTEXT = {"cluster": STR, "user": STR, "namespace": STR, "extensions": _EXTENSIONS}
CONFIG = {"kind": STR, "apiVersion": STR, "preferences": {"colors": BOOL, "extensions": _EXTENSIONS},
          "clusters": ("list", {"name": STR, "cluster": CLUSTER}),
          "users": ("list", {"name": STR, "user": USER}),
          "contexts": ("list", {"name": STR, "context": CONTEXT}),
          "current-context": STR, "extensions": _EXTENSIONS}

SECTIONS = {"clusters": "cluster", "users": "user", "contexts": "context"}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "a " + type(value).__name__


def decode_bytes(value: str) -> bytes | None:
    """Go's encoding/json reading of a []byte: standard base64 with padding (line breaks skipped); None if not."""
    try:
        return base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return None


def check(value: Any, schema: Any = None, path: str = "") -> tuple[str, str, str] | None:
    """The first field whose value kubectl's typed decoding refuses: (path, expected, what was found)."""
    schema = CONFIG if schema is None else schema
    if value is None or schema == RAW:
        return None
    if isinstance(schema, dict):
        return _struct(value, schema, path)
    if isinstance(schema, tuple):
        return _collection(value, schema, path)
    return _scalar(value, schema, path)


def _scalar(value: Any, schema: str, path: str) -> tuple[str, str, str] | None:
    if schema == BOOL:
        return None if isinstance(value, bool) else (path, "a boolean", _kind(value))
    if not isinstance(value, str):
        return path, "a string", _kind(value)
    if schema == BYTES and decode_bytes(value) is None:
        return path, "base64 data", "text that is not valid base64"
    return None


def _struct(value: Any, schema: dict[str, Any], path: str) -> tuple[str, str, str] | None:
    if not isinstance(value, dict):
        return path or "the document", "a mapping", _kind(value)
    for key, sub in schema.items():
        if key in value:
            found = check(value[key], sub, f"{path}.{key}" if path else key)
            if found is not None:
                return found
    return None


def _collection(value: Any, schema: tuple[str, Any], path: str) -> tuple[str, str, str] | None:
    shape, sub = schema
    if shape == "list":
        if not isinstance(value, list):
            return path, "a list", _kind(value)
        items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
    else:
        if not isinstance(value, dict):
            return path, "a mapping", _kind(value)
        items = [(f"{path}.{k}", v) for k, v in value.items()]
    for where, item in items:
        if sub == STR and item is None:
            continue  # a null list element decodes as ""
        found = check(item, sub, where)
        if found is not None:
            return found
    return None


def non_finite(value: Any, path: str = "") -> str | None:
    """The path of an infinite or NaN number anywhere in the document (unknown fields too): kubectl turns the
    whole document into JSON first, which cannot hold them, and refuses the file."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return path or "the document"
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = non_finite(item, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def duplicate_name(data: dict[str, Any]) -> tuple[str, str] | None:
    """(section, name) of a name used twice in one file's section: kubectl refuses such a file."""
    for section in SECTIONS:
        seen: set[str] = set()
        for entry in data.get(section) or []:
            name = str((entry or {}).get("name") or "")
            if name in seen:
                return section, name
            seen.add(name)
    return None
