"""Kubernetes' own CEL libraries (quantity, lists), declared in cel-expr-python with Python implementations.

The API server evaluates CRD rules with these functions beside standard CEL; cel-cpp knows none of them.
cel-expr-python takes extra function declarations with Python implementations, but its runtime cannot
carry an opaque Python object, so a Quantity travels as a tagged string holding its exact value
(`<tag><numerator>/<denominator>`): equal quantities are equal strings (`quantity("1") ==
quantity("1000m")`, as Kubernetes has it), and a plain string can never be mistaken for one. Parsing
is `kubectl_pd.kueue.quantity.parse`, the one quantity reader of this tool.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue.quantity import QuantityError, parse

_TAG = "k8s.io/quantity:"  # printable: the binding passes strings as C strings, so no NUL byte
_NANO = Fraction(1, 10**9)
_INT64 = (-(2**63), 2**63 - 1)


class CelFunctionError(ValueError):
    """Raised inside an implementation: cel-expr-python turns it into an evaluation error."""


def _encode(q: Fraction) -> str:
    # Kubernetes keeps 9 decimals and rounds a finer value up, away from zero ("0.1n" is 1n)
    if (q / _NANO).denominator != 1:
        q = Fraction(math.ceil(abs(q) / _NANO), 10**9) * (1 if q > 0 else -1)
    return f"{_TAG}{q.numerator}/{q.denominator}"


def _decode(value: Any) -> Fraction:
    if not isinstance(value, str) or not value.startswith(_TAG):
        raise CelFunctionError(f"no such overload: {value!r} is not a quantity")
    num, _, den = value[len(_TAG):].partition("/")
    return Fraction(int(num), int(den))


def quantity(text: str) -> str:
    # Kubernetes' parser takes no surrounding space, which parse() forgives: refuse it here
    if text != text.strip():
        raise CelFunctionError(f"quantities must match the regular expression: {text!r}")
    try:
        return _encode(parse(text))
    except QuantityError as e:
        raise CelFunctionError(str(e)) from None


def is_quantity(text: str) -> bool:
    try:
        quantity(text)
    except CelFunctionError:
        return False
    return True


def _sign(a: str) -> int:
    q = _decode(a)
    return (q > 0) - (q < 0)


def _is_integer(a: str) -> bool:
    q = _decode(a)
    return q.denominator == 1 and _INT64[0] <= q.numerator <= _INT64[1]


def _as_integer(a: str) -> int:
    if not _is_integer(a):
        raise CelFunctionError("cannot convert value to integer")
    return _decode(a).numerator


def _compare(a: str, b: str) -> int:
    x, y = _decode(a), _decode(b)
    return (x > y) - (x < y)


def _plus(a: str, b: str | int, sign: int) -> str:
    other = Fraction(b) if isinstance(b, int) else _decode(b)
    return _encode(_decode(a) + sign * other)


def _comparable(items: Sequence[Any]) -> list[Any]:
    values = list(items)
    kinds = {type(v) for v in values}
    if len(kinds) > 1 and not kinds <= {int, float}:
        raise CelFunctionError("no such overload: a list of mixed types is not comparable")
    if values and isinstance(values[0], str) and values[0].startswith(_TAG):
        return [_decode(v) for v in values]
    return values


def _is_sorted(items: Sequence[Any]) -> bool:
    values = _comparable(items)
    return all(a <= b for a, b in zip(values, values[1:], strict=False))


def _pick(items: Sequence[Any], choose: Callable[[list[Any]], Any]) -> Any:
    values = list(items)
    if not values:
        raise CelFunctionError("min/max of an empty list")
    keys = _comparable(values)
    return values[keys.index(choose(keys))]


def _sum(items: Sequence[Any]) -> Any:
    values = list(items)
    if values and isinstance(values[0], str) and values[0].startswith(_TAG):
        return _encode(sum(_comparable(values), Fraction(0)))
    return sum(values)


def _index_of(items: Sequence[Any], x: Any) -> int:
    values = list(items)
    return values.index(x) if x in values else -1


def _last_index_of(items: Sequence[Any], x: Any) -> int:
    values = list(items)
    return len(values) - 1 - values[::-1].index(x) if x in values else -1


def declarations(cel: Any) -> list[Any]:
    """The FunctionDecls of Kubernetes' quantity and lists libraries, for `cel.NewEnv(functions=...)`."""
    t = cel.Type
    q = t.STRING  # the runtime kind a quantity travels as
    dyn_list = t.List(t.DYN)
    scalars = (t.INT, t.UINT, t.DOUBLE, t.STRING, t.BOOL)

    def fn(name: str, *overloads: tuple[str, Any, list[Any], bool, Callable[..., Any]]) -> Any:
        return cel.FunctionDecl(name, [cel.Overload(oid, ret, params, is_member=member, impl=impl)
                                       for oid, ret, params, member, impl in overloads])

    return [
        fn("quantity", ("k8s_quantity_string", t.DYN, [t.STRING], False, quantity)),
        fn("isQuantity", ("k8s_is_quantity_string", t.BOOL, [t.STRING], False, is_quantity)),
        fn("sign", ("k8s_quantity_sign", t.INT, [q], True, _sign)),
        fn("isInteger", ("k8s_quantity_is_integer", t.BOOL, [q], True, _is_integer)),
        fn("asInteger", ("k8s_quantity_as_integer", t.INT, [q], True, _as_integer)),
        fn("asApproximateFloat", ("k8s_quantity_as_float", t.DOUBLE, [q], True, lambda a: float(_decode(a)))),
        fn("compareTo", ("k8s_quantity_compare_to", t.INT, [q, q], True, _compare)),
        fn("isGreaterThan", ("k8s_quantity_greater", t.BOOL, [q, q], True, lambda a, b: _compare(a, b) > 0)),
        fn("isLessThan", ("k8s_quantity_less", t.BOOL, [q, q], True, lambda a, b: _compare(a, b) < 0)),
        fn("add", ("k8s_quantity_add", t.DYN, [q, q], True, lambda a, b: _plus(a, b, 1)),
           ("k8s_quantity_add_int", t.DYN, [q, t.INT], True, lambda a, b: _plus(a, b, 1))),
        fn("sub", ("k8s_quantity_sub", t.DYN, [q, q], True, lambda a, b: _plus(a, b, -1)),
           ("k8s_quantity_sub_int", t.DYN, [q, t.INT], True, lambda a, b: _plus(a, b, -1))),
        fn("isSorted", ("k8s_list_is_sorted", t.BOOL, [dyn_list], True, _is_sorted)),
        fn("sum", ("k8s_list_sum", t.DYN, [dyn_list], True, _sum)),
        fn("min", ("k8s_list_min", t.DYN, [dyn_list], True, lambda xs: _pick(xs, min))),
        fn("max", ("k8s_list_max", t.DYN, [dyn_list], True, lambda xs: _pick(xs, max))),
        # the runtime matches arguments by kind, and a DYN parameter matches none: one overload per kind
        fn("indexOf", *[(f"k8s_list_index_of_{k.name()}", t.INT, [dyn_list, k], True, _index_of) for k in scalars]),
        fn("lastIndexOf", *[(f"k8s_list_last_index_of_{k.name()}", t.INT, [dyn_list, k], True, _last_index_of)
                            for k in scalars]),
    ]
