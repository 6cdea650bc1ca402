"""A bounded memo keyed by an object's identity, for values worked out of immutable objects that a run
shares (why-pending -A: thousands of diagnoses over one queue snapshot and its remembered assignments).
The entry keeps the object, so an identity is never reused while its answer is held; a full memo is
emptied rather than grown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    __slots__ = ("_entries", "_size")

    def __init__(self, size: int) -> None:
        self._entries: dict[int, tuple[K, V]] = {}
        self._size = size

    def get(self, obj: K, make: Callable[[K], V]) -> V:
        """`make(obj)`, once per object while it is remembered."""
        hit = self._entries.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = make(obj)
        if len(self._entries) >= self._size:
            self._entries.clear()
        self._entries[id(obj)] = (obj, value)
        return value
