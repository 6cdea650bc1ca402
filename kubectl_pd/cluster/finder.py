"""What answers `file:line` questions about one object (cluster/parse.py's finders): a typing.Protocol, apart from
cluster/objects.py, which a Tab press loads without typing."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class LineFinder(Protocol):
    """Answers `file:line` questions about one object, building what it needs only when asked."""

    def line_of(self, path: tuple[str | int, ...]) -> int | None: ...

    def at(self, path: tuple[str | int, ...]) -> LineFinder: ...
