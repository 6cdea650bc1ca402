"""An object as read, and where it came from (`Origin`: file:line): the types every Source and its protocol share,
below both (cluster/protocols.py names them, cluster/source.py re-exports them)."""

from __future__ import annotations

from kubectl_pd.records import dataclass, field

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

    from kubectl_pd.cluster.finder import LineFinder

Obj = dict[str, "Any"]
PathT = tuple[str | int, ...]


# A compact line index of a parsed document: for a mapping, key -> (line of the key, index of its
# value); for a sequence, [(line of the item, index of the item)]; None for a scalar.
Lines = dict["Any", tuple[int, "Lines"]] | list[tuple[int, "Lines"]] | None


@dataclass
class Origin:
    """Where an object came from, so findings can point at `file:line`."""

    file: str  # a path, `-` for stdin, or `cluster` for a live object
    line: int | None = None  # 1-based line of the object's first key
    lines: Lines | LineFinder = field(default=None, repr=False)  # a line index or a finder, for `line_of`
    raw: Any = field(default=None, repr=False)  # the object exactly as written (before normalisation)

    def line_of(self, path: PathT) -> int | None:
        """1-based line of `path` inside the object (the nearest existing ancestor when it is absent)."""
        finder = getattr(self.lines, "line_of", None)  # a LineFinder (finder.py)
        if finder is not None:
            return finder(path)
        return descend(self.line, self.lines, path)[0]  # type: ignore[arg-type]  # not a LineFinder here

    def location(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


def descend(line: int | None, lines: Lines, path: PathT) -> tuple[int | None, Lines, bool]:
    """Follow `path` through a line index: the line reached, the index below it, and whether every
    step existed (when not, the line is the nearest existing ancestor's)."""
    for step in path:
        if isinstance(step, int) and isinstance(lines, list) and 0 <= step < len(lines):
            line, lines = lines[step]
        elif not isinstance(step, int) and isinstance(lines, dict) and step in lines:
            line, lines = lines[step]
        else:
            return line, None, False
    return line, lines, True


LIVE = Origin("cluster")
