"""echo_dump writes JSON in pieces (one top-level value or list item at a time): the text must be exactly
the standard library's `json.dumps(data, indent=2, ensure_ascii=False)`, over generated data."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd.commands.common import json_pieces

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=6), values, max_size=5) | st.dictionaries(st.integers(), values, max_size=3)
       | values)
def test_pieces_join_to_json_dumps(data: Any) -> None:
    assert "".join(json_pieces(data)) == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_the_shape_why_pending_writes() -> None:
    data = {"items": [{"target": {"kind": "Workload", "name": "a"}, "reasons": [], "notes": ["é"]}, {}],
            "notes": []}
    assert "".join(json_pieces(data)) == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
