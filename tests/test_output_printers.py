"""The pure parts of kubectl_pd/output and the -o wide cells, table-driven (kubectl's own behaviour is
checked against the real binary in tests/test_output_kubectl.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_pd import memo, termsafe
from kubectl_pd.output.jsonpath import TemplateError, go_value, parse_template, relaxed
from kubectl_pd.output.printers import columns_from_file, parse_output, plain_table, sort_rows, tab_layout
from kubectl_pd.pending.render import _preempting, human_duration


@pytest.mark.parametrize(("path", "expected"), [
    ("a.b", "{.a.b}"), (".a.b", "{.a.b}"), ("{a.b}", "{.a.b}"), ("{.a.b}", "{.a.b}"), ("", ""),
    (".items[0].x", "{.items[0].x}"),
])
def test_relaxed(path: str, expected: str) -> None:
    assert relaxed(path) == expected


@pytest.mark.parametrize("path", ["{.a}{.b}", "{", ".", "{}"])
def test_relaxed_refuses(path: str) -> None:
    with pytest.raises(TemplateError):
        relaxed(path)


@pytest.mark.parametrize(("value", "kind"), [
    ("json", "json"), ("wide", "wide"), ("name", "name"), ("jsonpath={.a}", "jsonpath"),
    ("custom-columns=A:.a", "custom-columns"), ("jsonpath={.a=b}", "jsonpath"),
])
def test_parse_output(value: str, kind: str) -> None:
    assert parse_output(value).kind == kind


@pytest.mark.parametrize("value", ["jsonpath=", "custom-columns=", "custom-columns=A", "jsonpath={.a",
                                   "jsonpath={end}", "custom-columns=A:{.a}{.b}",
                                   "jsonpath={.a[x]}"])
def test_parse_output_refuses(value: str) -> None:
    with pytest.raises(TemplateError) as e:
        parse_output(value)
    assert "\n" not in e.value.message and e.value.exit_code == 1


@pytest.mark.parametrize(("text", "n"), [("NAME  CODE\n.a  .b\n", 2), ("A\n.a\n\n", 1)])
def test_columns_file(text: str, n: int) -> None:
    assert len(columns_from_file(text)) == n


@pytest.mark.parametrize("text", ["A B\n.a\n", "A\n", ""])
def test_columns_file_refused(text: str) -> None:
    with pytest.raises(TemplateError):
        columns_from_file(text)


@pytest.mark.parametrize(("value", "expected"), [
    (None, "<nil>"), ({"b": 1, "a": [1, "x"]}, "map[a:[1 x] b:1]"), ([], "[]"), (True, "true"), (0.5, "0.5"),
    (3, "3"), ("s", "s"), (1e21, "1e+21"),
])
def test_go_value(value: Any, expected: str) -> None:
    assert go_value(value) == expected


@pytest.mark.parametrize(("values", "expected"), [
    (["a10", "a9", "a1"], ["a1", "a9", "a10"]),  # natural order, as kubectl's
    ([3, 1, 2.5], [1, 2.5, 3]),
    ([None, "b", None, "a"], [None, None, "a", "b"]),  # rows where the path finds nothing first, stable
])
def test_sort_rows(values: list[Any], expected: list[Any]) -> None:
    rows = [{"v": v} if v is not None else {} for v in values]
    assert [r.get("v") for r in sort_rows(rows, ".v")] == expected


@pytest.mark.parametrize(("table", "expected"), [
    ([["A", "B"], ["xxxxxxxx", "y"]], "A          B\nxxxxxxxx   y\n"),
    ([["N", "M"], ["1", "2"]], "N     M\n1     2\n"),  # the minimum width (6)
    ([], ""),
])
def test_tab_layout(table: list[list[str]], expected: str) -> None:
    assert tab_layout(table) == expected


@pytest.mark.parametrize(("seconds", "expected"), [
    (-5, "<invalid>"), (-0.5, "0s"), (0, "0s"), (119, "119s"), (120, "2m"), (125, "2m5s"), (600, "10m"),
    (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"), (8 * 3600, "8h"), (47 * 3600, "47h"), (48 * 3600, "2d"),
    (50 * 3600, "2d2h"), (8 * 86400, "8d"), (2 * 365 * 86400, "2y"), (2 * 365 * 86400 + 86400, "2y1d"),
    (9 * 365 * 86400, "9y"),
])
def test_human_duration(seconds: float, expected: str) -> None:
    assert human_duration(seconds) == expected


@pytest.mark.parametrize(("item", "expected"), [
    ({"preemption": None}, "-"), ({}, "-"), ({"preemption": {"targets": []}}, "0"),
    ({"preemption": {"targets": [{}, {}]}}, "2"), ({"preemption": {"targets": None, "unknown": "x"}}, "<unknown>"),
])
def test_preempting_cell(item: dict[str, Any], expected: str) -> None:
    assert _preempting(item) == expected


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(("mode", "no_color", "tty", "expected"), [
    ("auto", "", True, True), ("auto", "1", True, False), ("auto", "", False, False),
    ("always", "1", False, True), ("always", "", False, True), ("never", "", True, False),
    ("never", "1", True, False), ("bogus", "", True, True),
])
def test_color_decision(mode: str, no_color: str, tty: bool, expected: bool, monkeypatch: Any) -> None:
    monkeypatch.setenv("NO_COLOR", no_color)
    with memo.run():  # --color is a setting of the run: it ends with the block (kubectl_pd/memo.py)
        termsafe.set_color_mode(mode)
        assert termsafe.color_on(_Stream(tty)) is expected
    assert termsafe.color_mode() == "auto"


def test_template_walks_maps_in_sorted_order() -> None:
    assert parse_template("{.*}").render({"b": 2, "a": 1}) == "1 2"


_CELL = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), max_codepoint=0x2FF)
                | st.sampled_from([" ", "-", "/", "…"]), max_size=12)


# the headers plain_table is given are the printers' column names: no surrounding white space (tabulate keeps
# such space in a header's width, and with no rows in its text, which no caller asks for)
_HEADER = _CELL.map(str.strip)


@given(st.integers(min_value=1, max_value=6).flatmap(
    lambda n: st.tuples(st.lists(st.lists(_CELL, min_size=n, max_size=n), max_size=8),
                        st.none() | st.lists(_HEADER, min_size=n, max_size=n))))
@settings(max_examples=300, deadline=None)
def test_plain_table_is_tabulate_s(case: tuple[list[list[str]], list[str] | None]) -> None:
    from tabulate import tabulate  # type: ignore[import-untyped]

    rows, headers = case
    if not rows and headers is None:
        return
    theirs = (tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True) if headers is not None
              else tabulate(rows, tablefmt="plain", disable_numparse=True))
    assert plain_table(rows, headers) == theirs
