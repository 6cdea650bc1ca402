"""Values worked out of an immutable object, kept on the object itself: they live as long as the object
(a run's snapshot, its remembered assignments, its queues) and die with it, so nothing outlives a run
and no test resets anything. The objects are this package's frozen records, which have a `__dict__`;
the name is the value's attribute, written past the frozen `__setattr__` as `functools.cached_property`
does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


def kept(obj: K, name: str, make: Callable[[K], V]) -> V:
    """`make(obj)`, once per object: kept in the object's `__dict__` under `name`."""
    d: dict[str, Any] = obj.__dict__
    value = d.get(name, _MISSING)
    if value is _MISSING:
        value = d[name] = make(obj)
    return value  # type: ignore[no-any-return]


_MISSING: Any = object()
