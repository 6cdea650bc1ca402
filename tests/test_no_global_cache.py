"""Nothing a run builds outlives it (issue 29; kubectl_pd/memo.py, docs/architecture.md): every memo and the
--color setting belong to one Run, opened by the CLI around each invocation and gone when it ends.

(a) Two invocations in one process (click's CliRunner, and the real entry point tests use): after each, no
    run is current and none is alive, and no module attribute of kubectl_pd.* grew (a dict, set or list, or an
    lru_cache's entries) from the first invocation to the second.
(b) The package's source holds no lru_cache / functools.cache, no module-level container written at run time
    and no module-level name a function rebinds with `global`, apart from the registries listed here
    (filled once with constant data, or the process's own: credentials to redact, child processes to end).
(c) Within a run the memos answer (the same object, not a recomputed one); outside a run nothing is kept.
"""

from __future__ import annotations

import ast
import gc
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kubectl_pd import memo
from tests.conftest import FIXTURES, run_cli

PACKAGE = Path(__file__).resolve().parent.parent / "kubectl_pd"
PENDING = FIXTURES / "pending"

# module-level containers that functions write, and why they are not caches of a run
ALLOWED = {
    ("cluster/prefetch.py", "_KINDS"),  # the prefetched kinds, filled at import
    ("pending/words.py", "SENTENCES"),  # the sentence registry, filled at import by its decorator
    ("pending/words.py", "ROLE_FIRST"),
    ("termsafe.py", "SECRETS"),  # the process's credentials: redacted from any message, after a run too
    ("interrupt.py", "_children"),  # the process's child processes, ended on Ctrl-C
    ("interrupt.py", "_state"),  # whether a Ctrl-C was seen: the process's signal state
    ("lint/schema/cel.py", "_env"),  # the CEL environment: constant declarations, built on first use
}


def _sizes() -> dict[str, int]:
    """len() of every dict, set and list that a kubectl_pd module holds, and of every lru_cache's entries."""
    out: dict[str, int] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("kubectl_pd") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, dict | set | list):
                out[f"{name}.{attr}"] = len(value)
            info = getattr(value, "cache_info", None)
            if callable(info):
                out[f"{name}.{attr}()"] = info().currsize
    return out


def _runs_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, memo.Run))


def _invocations() -> list[list[str]]:
    return [["why-pending", "-f", str(PENDING / "quota-exhausted.yaml"), "qwen-pd", "-o", "json"],
            ["why-pending", "-f", str(PENDING / "needs-preemption.yaml"), "-A", "-o", "json", "--color", "always"],
            ["lint", "-f", str(Path(__file__).resolve().parent.parent / "examples/lint/gpustack-70-flavors.yaml")]]


def test_fixtures_exist() -> None:
    for args in _invocations():
        assert Path(args[2]).is_file(), args


def test_two_runs_through_click_leave_nothing() -> None:
    from kubectl_pd.commands.cli import cli

    runner = CliRunner()
    first = [runner.invoke(cli, args) for args in _invocations()]
    assert [r.exception for r in first if not isinstance(r.exception, SystemExit | None)] == []
    assert memo.current() is None and _runs_alive() == 0
    before = _sizes()
    second = [runner.invoke(cli, args) for args in reversed(_invocations())]
    assert [r.exit_code for r in reversed(second)] == [r.exit_code for r in first]
    assert memo.current() is None and _runs_alive() == 0
    after = _sizes()
    assert {k: (before.get(k), n) for k, n in after.items() if n > before.get(k, 0)} == {}
    assert not [k for k in after if k.endswith("()")]  # no lru_cache at all


def test_two_runs_through_the_entry_point_leave_nothing() -> None:
    args = _invocations()[0]
    first = run_cli(args)
    assert first.stdout.startswith("{"), first.stderr
    before = _sizes()
    second = run_cli(args)
    assert (second.exit_code, second.stdout) == (first.exit_code, first.stdout)
    assert memo.current() is None and _runs_alive() == 0
    assert {k: n for k, n in _sizes().items() if n > before.get(k, 0)} == {}


def test_the_color_of_one_run_is_not_the_next_ones() -> None:
    from kubectl_pd import termsafe

    args = ["why-pending", "-f", str(PENDING / "quota-exhausted.yaml"), "qwen-pd"]
    assert "\x1b[" in run_cli([*args, "--color", "always"], env={"NO_COLOR": ""}).stdout
    assert termsafe.color_mode() == "auto"
    assert "\x1b[" not in run_cli(args, env={"NO_COLOR": ""}).stdout


# ---------------------------------------------------------------------------------------- (b) the source


def _module_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


MUTATORS = {"append", "add", "update", "setdefault", "clear", "pop", "popitem", "extend", "insert", "remove",
            "discard", "__setitem__"}


def _written_at_run_time(tree: ast.Module) -> set[str]:
    """Module-level names a function writes into (NAME[k] = v, NAME.add(...), ...) or rebinds (`global`)."""
    module = _module_names(tree)
    found: set[str] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        local = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Global):
                found.update(n for n in node.names if n in module)
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                local.update(t.id for t in targets if isinstance(t, ast.Name))
                found.update(t.value.id for t in targets if isinstance(t, ast.Subscript)
                             and isinstance(t.value, ast.Name) and t.value.id in module and t.value.id not in local)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in MUTATORS and isinstance(node.func.value, ast.Name)
                  and node.func.value.id in module and node.func.value.id not in local):
                found.add(node.func.value.id)
    return found


def _caches(tree: ast.Module) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out += [f"{node.name}: @{ast.unparse(d)}" for d in node.decorator_list
                    if any(w in ast.unparse(d) for w in ("lru_cache", "functools.cache", "cache("))
                    or ast.unparse(d) == "cache"]
        if isinstance(node, ast.ImportFrom) and node.module == "functools":
            out += [f"import {a.name}" for a in node.names if a.name in ("lru_cache", "cache")]
    return out


def _sources() -> list[tuple[str, ast.Module]]:
    return [(str(p.relative_to(PACKAGE)), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PACKAGE.rglob("*.py"))]


def test_the_source_walk_sees_the_package() -> None:
    sources = _sources()
    assert len(sources) > 100
    flagged = {(path, name) for path, tree in sources for name in _written_at_run_time(tree)}
    assert ("pending/words.py", "SENTENCES") in flagged  # the walk finds a registry a function fills
    probe = ast.parse("_M: dict = {}\nC = [0]\ndef f(x):\n    _M[x] = 1\n    C[0] = x\n"
                      "from functools import lru_cache\n@lru_cache(maxsize=2)\ndef g(): pass\n")
    assert _written_at_run_time(probe) == {"_M", "C"} and len(_caches(probe)) == 2


def test_no_lru_cache_in_the_package() -> None:
    assert {path: found for path, tree in _sources() if (found := _caches(tree))} == {}


def test_no_module_state_written_at_run_time_but_the_registries() -> None:
    flagged = {(path, name) for path, tree in _sources() for name in _written_at_run_time(tree)}
    assert sorted(flagged - ALLOWED) == []


# ---------------------------------------------------------------------------------------- (c) the memos hit


def test_a_run_remembers_and_nothing_outside_one() -> None:
    from kubectl_pd.kueue import messages, quantity

    text = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed"
    assert messages.parse_message(text) is not messages.parse_message(text)  # outside a run: parsed each time
    with memo.run() as run:
        first = messages.parse_message(text)
        assert messages.parse_message(text) is first
        assert quantity.parse("10Gi") is quantity.parse("10Gi") == Fraction(10 * 2**30)
        assert quantity.format_quantity(Fraction(3, 2), "cpu") == "1500m"
        assert {quantity.PARSED, quantity.FORMATTED} <= set(run.tables)
    assert memo.current() is None and not run.tables


@pytest.mark.parametrize("typed", [False, True])
def test_per_run_is_lru_cache_within_a_run(typed: bool) -> None:
    calls: list[Any] = []

    @memo.per_run(2, typed=typed)
    def double(x: Any) -> Any:
        calls.append(x)
        return x * 2

    with memo.run():
        assert [double(1), double(1), double(1.0), double(2), double(3)] == [2, 2, 2.0, 4, 6]
        assert calls == ([1, 1.0, 2, 3] if typed else [1, 2, 3])
        double(1)  # the table was full at 3: emptied, so 1 is worked out again
        assert calls[-1] == 1
    n = len(calls)
    double(1)
    double(1)
    assert len(calls) == n + 2  # outside a run: a plain call
