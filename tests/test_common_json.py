"""The JSON output (`to_json`, and `echo_dump`'s pieces of one top-level value or list item at a time) is
written by common._indented instead of the standard library's indenting encoder: the text must be exactly
`json.dumps(data, indent=2, ensure_ascii=False)`, and its errors the library's, over generated data."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.commands.common import json_pieces, to_json


class Level(enum.IntEnum):
    HIGH = 7


class Name(str):
    pass


scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
           | st.sampled_from([math.inf, -math.inf, math.nan, -0.0, 1e300, 5e-324, Level.HIGH, Name("x"), "\u2028",
                              "\x00\x1f\"\\/", "\U0001f600", 2**70]))
keys = st.text(max_size=6) | st.sampled_from(["name", "kind", "é", "\n"])
values = st.recursive(
    scalars, lambda inner: (st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
                            | st.dictionaries(keys, inner, max_size=4)
                            | st.dictionaries(st.integers() | st.booleans() | st.none() | st.floats(), inner,
                                              max_size=2)
                            | st.dictionaries(keys, inner, max_size=2).map(OrderedDict)),
    max_leaves=20)


def library(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@settings(max_examples=600, deadline=None)
@given(st.dictionaries(keys, values, max_size=5) | st.dictionaries(st.integers(), values, max_size=3) | values)
def test_text_is_json_dumps(data: Any) -> None:
    assert to_json(data) == library(data)
    assert "".join(json_pieces(data)) == library(data)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, st.lists(values, max_size=4), max_size=4))
def test_pieces_of_lists_at_the_top(data: Any) -> None:
    assert "".join(json_pieces(data)) == library(data)


def test_the_shape_why_pending_writes() -> None:
    data = {"items": [{"target": {"kind": "Workload", "name": "a"}, "reasons": [], "notes": ["é"],
                       "queue": {"position": None, "pending": True, "ahead": [{"requests": {"cpu": "1"}}]},
                       "whatIf": {"main": 2}}, {}],
            "notes": []}
    assert "".join(json_pieces(data)) == to_json(data) == library(data)


def nested(depth: int) -> Any:
    data: Any = ["leaf", {"k": 1.5}]
    for i in range(depth):
        data = {"d": data, "n": i} if i % 2 else [data, i]
    return data


@pytest.mark.parametrize("depth", [1, 63, 64, 65, 100, 300])
def test_deep_nesting(depth: int) -> None:
    assert to_json(nested(depth)) == library(nested(depth))


def errors_of(write: Any, data: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(Exception) as got:
        write(data)
    return got.type, str(got.value)


@pytest.mark.parametrize("case", ["circular-list", "circular-dict", "object", "set", "bad-key", "bytes"])
def test_errors_are_the_librarys(case: str) -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    d: dict[str, Any] = {}
    d["self"] = [d]
    data = {"circular-list": loop, "circular-dict": d, "object": {"a": [object]}, "set": [{"x": {1}}],
            "bad-key": {"a": {(1, 2): 3}}, "bytes": {"b": b"x"}}[case]
    theirs = errors_of(lambda x: json.dumps(x, indent=2, ensure_ascii=False), data)
    assert errors_of(to_json, data) == theirs
    assert errors_of(lambda x: "".join(json_pieces(x)), data) == theirs


def test_the_engines_str_enums_print_as_their_strings() -> None:
    """The records carry Kueue's words as str enums (kueue/admission.py): -o json and -o yaml print the string."""
    from kubectl_pd.commands.common import to_yaml
    from kubectl_pd.kueue.admission import Mode, Outcome, Possibility

    data = {"mode": Mode.PREEMPT, "outcome": Outcome.EXCEEDS, "oracle": [Possibility.NO_CANDIDATES]}
    plain = {"mode": "Preempt", "outcome": "exceeds-capacity", "oracle": ["NoCandidates"]}
    assert to_json(data) == to_json(plain) == json.dumps(plain, indent=2) + "\n"
    assert "".join(json_pieces(data)) == to_json(plain)
    assert to_yaml(data) == to_yaml(plain)
