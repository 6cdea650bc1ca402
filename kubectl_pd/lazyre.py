"""Regular expressions compiled on first use.

A live why-pending imports every module that might read one of Kueue's messages, the scheduler's or an
event's, and compiling all their patterns at import cost about as much as the diagnosis itself; most
runs meet a handful of them. `lazy(...)` stands in for `re.compile(...)` at module level.
"""

from __future__ import annotations

TYPE_CHECKING = False  # neither re nor typing loads until a pattern is used (a Tab press uses none)
if TYPE_CHECKING:
    import re


class Lazy:
    """A pattern compiled on first use. `prefix` is the literal text every match starts with, so a table
    of patterns can pass over one without compiling it."""

    __slots__ = ("_args", "_pattern", "_prefix")

    def __init__(self, *args: object) -> None:
        self._args = args
        self._pattern: re.Pattern[str] | None = None
        self._prefix: str | None = None

    @property
    def prefix(self) -> str:
        if self._prefix is None:
            self._prefix = literal_prefix(self._args)
        return self._prefix

    def __getattr__(self, name: str) -> object:
        if self._pattern is None:
            import re

            self._pattern = re.compile(*self._args)  # type: ignore[call-overload]
        return getattr(self._pattern, name)


def literal_prefix(args: tuple[object, ...]) -> str:
    """The literal start of a pattern (after `^`) up to its first special character; "" when unsure."""
    import re

    pattern = args[0]
    flags = args[1] if len(args) > 1 else 0
    if not isinstance(pattern, str) or not isinstance(flags, int) or flags & ~re.DOTALL:
        return ""
    if _alternation_outside_groups(pattern):  # it would make the prefix optional
        return ""
    body = pattern[1:] if pattern.startswith("^") else pattern
    n = 0
    while n < len(body) and body[n] not in "\\.^$*+?{}[]|()":
        n += 1
    if n < len(body) and body[n] in "*?{":  # the last literal is optional or repeated
        n -= 1
    return body[:max(n, 0)]


def _alternation_outside_groups(pattern: str) -> bool:
    """Whether a `|` stands outside every group (escapes and character classes passed over)."""
    depth = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif c == "[":
            i = _class_end(pattern, i)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def _class_end(pattern: str, i: int) -> int:
    """The index of the `]` closing the character class opened at `i` (a `]` first in it is literal)."""
    j = i + 1
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j


def lazy(*args: object) -> re.Pattern[str]:
    """`re.compile(*args)`, compiled on first use."""
    return Lazy(*args)  # type: ignore[return-value]
