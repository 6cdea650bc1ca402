"""Kubernetes resource quantities as exact fractions: quota arithmetic must not round."""

from __future__ import annotations

import re
from fractions import Fraction

from kubectl_pd import memo

_RE = re.compile(  # ASCII digits only: Kubernetes refuses `٣`, though Python's int() takes it
    r"^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?\Z")
_SUFFIX = {
    "": Fraction(1), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}

CREDITS_PER_CARD = 1_600_000
CREDITS_PREFIX = "credits.gpustack.ai/"


# Kubernetes caps a quantity at 2^63-1 of its unit and 3 decimals; these bounds are far beyond any
# real one and keep a hostile value (5,000 digits, 1e999999999) from costing time or raising.
MAX_DIGITS = 100
MAX_EXPONENT = 100


class QuantityError(ValueError):
    pass


# The run's memos of parse and format_quantity (kubectl_pd/memo.py: they die with the run), on immutable
# keys (a Fraction is immutable too); a run reads the same few quantities thousands of times (why-pending -A:
# `1`, `10`, `0` per Workload). Bounded: a hostile input of many distinct strings empties the memo instead
# of growing it, and no long string is a key. Outside a run, no memo.
MEMO_SIZE = 4096
PARSED = "kueue.quantity.parse"
FORMATTED = "kueue.quantity.format"


def parse(value: object) -> Fraction:
    """Parse `1600k`, `500m`, `10Gi`, `1e3`, 4 or 2.5 exactly; raise QuantityError otherwise."""
    if type(value) is str and len(value) <= MAX_DIGITS + 8:  # what objects hold; the same few recur
        known = memo.table(PARSED)
        if known is None:
            return _parse_text(value)
        try:
            return known[value]  # type: ignore[no-any-return]
        except KeyError:
            pass
        return memo.put(known, value, _parse_text(value), MEMO_SIZE)
    if isinstance(value, bool):
        raise QuantityError(f"{value!r} is not a quantity")
    if isinstance(value, int):
        if value.bit_length() > MAX_DIGITS * 4:
            raise QuantityError(f"an integer of {value.bit_length():,} bits is not a quantity")
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise QuantityError(f"{value!r} is not a quantity")
        return Fraction(str(value))
    if not isinstance(value, str):
        raise QuantityError(f"{_short(value)} is not a quantity")
    return _parse_text(value)


def _parse_text(value: str) -> Fraction:
    text = value.strip()
    if len(text) > MAX_DIGITS + 8:
        raise QuantityError(f"a {len(text):,}-character string is not a quantity")
    m = _RE.match(text)
    if not m:
        raise QuantityError(f"{value!r} is not a quantity")
    sign, number, exponent, suffix = m.groups()
    if exponent and abs(int(exponent[1:])) > MAX_EXPONENT:
        raise QuantityError(f"{value!r}: an exponent beyond {MAX_EXPONENT} is not a quantity")
    q = Fraction(number) * (Fraction(10) ** int(exponent[1:]) if exponent else _SUFFIX[suffix or ""])
    return -q if sign == "-" else q


_INT64 = (1 << 63) - 1


def api_parses(value: object) -> bool:
    """Whether the API server stores `value` as a quantity: what `parse` reads, or a decimal exponent past
    MAX_EXPONENT that still fits an int64 (`1e400`: resource.ParseQuantity takes any exponent that fits an
    int64). `parse` refuses the latter (its size is not computed); a snapshot holding one is not malformed,
    and its size is unknown to the engine as it is live."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return False
    if try_parse(value) is not None:
        return True
    if not isinstance(value, str) or len(value) > MAX_DIGITS + 30:
        return False
    m = _RE.match(value.strip())
    return m is not None and m.group(3) is not None and abs(int(m.group(3)[1:])) <= _INT64


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__} value"


def try_parse(value: object) -> Fraction | None:
    try:
        return parse(value)
    except QuantityError:
        return None


def format_quantity(q: Fraction, resource: str = "") -> str:
    """Render like Kubernetes would: cpu in cores or `m`, memory in binary units, else decimal."""
    known = memo.table(FORMATTED)
    if known is None:
        return _format(q, resource)
    key = (q.numerator, q.denominator, resource)  # a Fraction's own hash runs in Python: slower than this
    try:
        return known[key]  # type: ignore[no-any-return]
    except KeyError:
        pass
    return memo.put(known, key, _format(q, resource), MEMO_SIZE)


_DECIMAL = tuple((suffix, _SUFFIX[suffix].numerator) for suffix in ("E", "P", "T", "G", "M", "k"))
_BINARY = tuple((suffix, _SUFFIX[suffix].numerator) for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"))


def _format(q: Fraction, resource: str) -> str:
    """format_quantity without the memo."""
    if q < 0:
        return "-" + _format(-q, resource)
    if q.denominator == 1:
        n = q.numerator
        binary = resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")
        for suffix, unit in _BINARY if binary else _DECIMAL:
            if n >= unit and n % unit == 0:
                return f"{n // unit}{suffix}"
        return str(n)
    milli = q * 1000
    if milli.denominator == 1:
        return f"{milli.numerator}m"
    return f"{float(q):g}"


def is_credits(resource: str) -> bool:
    return resource.startswith(CREDITS_PREFIX)


def cards(q: Fraction) -> Fraction:
    """GPUStack credits as accelerator cards (1,600,000 credits per card)."""
    return q / CREDITS_PER_CARD


def format_cards(q: Fraction) -> str:
    return " ".join(card_count(q))


def card_count(q: Fraction) -> tuple[str, str]:
    """The cards of Q as a number and its noun: ("4", "cards"), ("1", "card")."""
    c = cards(q)
    return (str(c.numerator) if c.denominator == 1 else f"{float(c):.3g}"), ("card" if c == 1 else "cards")
