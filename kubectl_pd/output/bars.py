"""The one quota bar: a flavor's figures (nominal, used, reserved, needed, borrowed, borrowable, in one unit) drawn
as `[####==++....]`. why-pending's screen and `kubectl pd queues` print it with their own `Style` (their
widths and scales differ, their symbols mean the same: `#` used, `=` reserved, `+` needed, `.` free, `!` over
nominal, `~` borrowed within what the cohort lends); the same figures and style give the same string."""

from __future__ import annotations

from fractions import Fraction

from kubectl_pd.records import dataclass

_ZERO = Fraction(0)


@dataclass(frozen=True)
class Figures:
    """What one bar draws, every figure in the resource's own unit."""

    nominal: Fraction
    used: Fraction  # admitted
    reserved: Fraction  # reserved but not admitted
    needed: Fraction = _ZERO  # what the pending Workloads ask of it
    borrowed: Fraction = _ZERO  # in use beyond the nominal quota
    borrowable: Fraction | None = None  # what the queue may take beyond its nominal now (None: not known)


@dataclass(frozen=True)
class Style:
    """How a screen draws its bars. GROW: the bar spans the nominal quota or everything drawn, whichever is more,
    cells rounded, what lies past the nominal quota marked inside (`~`, `!`); else it spans the nominal quota,
    cells cut down (floor) and clipped, an empty string for no nominal quota. SUFFIX: a `!` after the bar when the
    queue borrows. UNICODE: block characters."""

    width: int
    grow: bool = True
    suffix: bool = False
    unicode: bool = False


WHY_PENDING = Style(24)
WHY_PENDING_UNICODE = Style(24, unicode=True)
QUEUES = Style(12, grow=False, suffix=True)

_ASCII = ("#", "=", "+", ".", "!")
_UNICODE = ("\u2588", "\u2593", "\u2591", "\u00b7", "\u2592")
BORROWED = "~"


def bar(f: Figures, style: Style) -> str:
    """The figures as a bar of `style.width` cells: used, reserved, needed, then free."""
    total = f.used + f.reserved + f.needed
    scale = max(f.nominal, total) if style.grow else f.nominal
    w = style.width
    if scale <= 0:
        return "[" + " " * w + "]" if style.grow else ""

    def cell(q: Fraction) -> int:
        x = q / scale * w
        return round(x) if style.grow else min(w, int(x))

    chars = _UNICODE if style.unicode else _ASCII
    cells: list[str] = []
    acc = _ZERO
    for part, ch in ((f.used, chars[0]), (f.reserved, chars[1]), (f.needed, chars[2])):
        start, acc = acc, acc + part
        cells.extend(ch * (cell(acc) - cell(start)))
    cells.extend(chars[3] * (w - len(cells)))
    nominal_at = round(f.nominal / scale * w) if total > f.nominal else w
    lent_to = round((f.nominal + f.borrowable) / scale * w) if f.borrowable else nominal_at
    for i in range(nominal_at, w):
        if cells[i] != chars[3]:
            cells[i] = BORROWED if i < lent_to else chars[4]  # what the cohort lends is not over the limit
    return "[" + "".join(cells[:w]) + "]" + ("!" if style.suffix and f.borrowed > 0 else "")
