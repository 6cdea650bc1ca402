"""One run store, two idioms (issue 38, item 3; kubectl_pd/memo.py): a memo is found by value, never by an
object's identity, and none is kept on a record.

(a) `memo.matched` / `memo.by_value`, table-driven: a hit needs the key and an equal whole; a different whole
    under the same key is worked out afresh and replaces the entry; outside a run nothing is kept; the table
    stays bounded.
(b) The source: no `id(...)` in the run's gather and preemption modules, no `memo.kept`, no memo held in a
    `cached_property` of a frozen record (Snapshot.assignments, Fit.verdicts).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd import memo

PACKAGE = Path(__file__).resolve().parent.parent / "kubectl_pd"


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def make(self, value: Any) -> Any:
        def go() -> Any:
            self.calls += 1
            return value
        return go


@pytest.mark.parametrize(("asks", "answers", "calls"), [
    # (key, whole, value) asked in order -> the answers, and how many were worked out
    ([("k", {"a": 1}, "x"), ("k", {"a": 1}, "y")], ["x", "x"], 1),  # an equal whole: the first answer
    ([("k", {"a": 1}, "x"), ("k", {"a": 2}, "y")], ["x", "y"], 2),  # same key, another whole: afresh
    ([("k", {"a": 1}, "x"), ("k", {"a": 2}, "y"), ("k", {"a": 2}, "z")], ["x", "y", "y"], 2),  # replaced
    ([("k", {"a": 1}, "x"), ("j", {"a": 1}, "y")], ["x", "y"], 2),  # another key
    ([("k", (1, [2]), "x"), ("k", (1, [2]), "y")], ["x", "x"], 1),  # unhashable wholes compare by value
])
def test_matched_finds_by_key_and_equal_whole(asks: list[tuple[str, Any, str]], answers: list[str],
                                              calls: int) -> None:
    table: dict[Any, Any] = {}
    c = Counter()
    got = [memo.matched(table, k, whole, c.make(v), 16) for k, whole, v in asks]
    assert (got, c.calls) == (answers, calls)


def test_by_value_keeps_nothing_outside_a_run_and_is_bounded_within() -> None:
    c = Counter()
    assert [memo.by_value("t", "k", [1], c.make(i), 4) for i in range(2)] == [0, 1]  # no run: no memo
    with memo.run() as run:
        assert [memo.by_value("t", "k", [1], c.make(i), 4) for i in range(2)] == [0, 0]
        for i in range(10):
            memo.by_value("t", i, [i], c.make(i), 4)
        assert len(run.tables["t"]) <= 4
    assert memo.current() is None


RUN_MODULES = ["pending/gather.py", "kueue/preempt_answer.py", "kueue/admission.py", "kueue/verdicts.py",
               "kueue/model.py", "create/nodes.py"]


@pytest.mark.parametrize("rel", RUN_MODULES)
def test_no_identity_keys_and_no_memo_on_records(rel: str) -> None:
    tree = ast.parse((PACKAGE / rel).read_text())
    ids = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
           and n.func.id == "id"]
    kept = [n.lineno for n in ast.walk(tree) if (isinstance(n, ast.Attribute) and n.attr == "kept")
            or (isinstance(n, ast.ImportFrom) and n.module == "kubectl_pd.memo")]
    memos = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in ("assignments", "verdicts")
             and any(isinstance(d, ast.Name) and d.id == "cached_property" for d in n.decorator_list)]
    assert (ids, kept, memos) == ([], [], [])


def test_memo_has_no_kept() -> None:
    assert not hasattr(memo, "kept")
