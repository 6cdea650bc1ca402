"""An answer's body read as JSON without holding it more times than needed (issue 42 N7).

The body arrives as one buffer (wire.Body, never copied). Reading it as JSON costs its text too: Python
decodes the whole body into a str before parsing, at one to four bytes a character, the widest character
deciding for all (PEP 393): 120 MiB of ASCII with one emoji is a 480 MiB str, and its parsed strings as much
again. So:
- a body whose first non-blank byte is not `{` is parsed only when small (every answer of the API is an
  object; a large string, list or page of text is described from its first byte, never decoded);
- the text a body would take is counted before it is decoded (`text_size`, without a copy of the body) and
  refused past the bound on one answer, as a body past that bound is refused by the wire;
- the parse is done once per answer and kept (`Parsed`), never again for each question asked of it.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SMALL = 1 << 20  # a body that is not an object is parsed (to name what it is) only up to this size
_BLANK = b" \t\r\n"
_ASTRAL = re.compile(rb"[\xf0-\xf4]")  # the lead byte of a character past U+FFFF: 4 bytes a character
_WIDE = re.compile(rb"[\xc4-\xef]")  # a lead byte of U+0100..U+FFFF: 2 bytes a character
_CONTINUATION = bytes(range(0x80, 0xC0))
_SLICE = 4 << 20


def first(body: bytes | bytearray) -> int:
    """The index of the first byte that is not a JSON blank (len(body) when there is none)."""
    m = re.compile(rb"[ \t\r\n]*").match(body)
    return m.end() if m else 0


def stripped_size(body: bytes | bytearray, start: int) -> int:
    """The size without the blanks around it (trailing blanks counted off the last 4 KiB only: no copy)."""
    end = len(body)
    floor = max(start, end - 4096)
    while end > floor and body[end - 1] in _BLANK:
        end -= 1
    return end - start


def text_size(body: bytes | bytearray) -> tuple[int, int]:
    """(characters, bytes a character) of the str Python would decode `body` into, counted without copying
    the body (a slice of 4 MiB at a time when the characters must be counted)."""
    if body.isascii():
        return len(body), 1
    width = 4 if _ASTRAL.search(body) else 2 if _WIDE.search(body) else 1
    chars = 0
    with memoryview(body) as view:
        for i in range(0, len(body), _SLICE):
            chars += len(bytes(view[i:i + _SLICE]).translate(None, _CONTINUATION))
    return chars, width


class TextTooLarge(Exception):
    """A body whose text, as Python would hold it to parse it, is past the bound on one answer."""

    def __init__(self, chars: int, width: int) -> None:
        super().__init__(chars * width)
        self.chars, self.width = chars, width


def parse(body: bytes | bytearray, bound: int) -> tuple[Any, bool]:
    """(the document, True) when `body` is JSON; (None, False) when it is not, or when it is large and not an
    object (never decoded then). TextTooLarge when its text would be past `bound` bytes."""
    start = first(body)
    if start >= len(body):
        return None, False
    if body[start] != 0x7B and len(body) - start > SMALL:  # not `{`: described, never decoded
        return None, False
    if len(body) > bound // 4:  # a small body can never decode past the bound: not counted
        chars, width = text_size(body)
        if chars * width > bound:
            raise TextTooLarge(chars, width)
    try:
        return json.loads(body), True
    except ValueError:
        return None, False
