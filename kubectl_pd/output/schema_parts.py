"""The building blocks of every `-o json` contract's JSON Schema (draft 2020-12): what agent/schemas.py and each
wing's own schema part (multikueue/schema.py) compose, below both of them."""

from __future__ import annotations

from typing import Any

S: dict[str, Any] = {"type": "string"}
NS: dict[str, Any] = {"type": ["string", "null"]}
NI: dict[str, Any] = {"type": ["integer", "null"]}
STRS: dict[str, Any] = {"type": "array", "items": S}
QUANTITY: dict[str, Any] = {"type": "string", "description": "a Kubernetes quantity, as kubectl prints it"}
NQUANTITY: dict[str, Any] = {"type": ["string", "null"], "description": QUANTITY["description"]}
OPEN: dict[str, Any] = {"type": "object"}


def closed(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props) if required is None else required,
            "additionalProperties": False, **extra}
