"""No function in kubectl_pd/pending/ or kubectl_pd/kueue/ takes more than six parameters (issue 29): values that
travel together are a small frozen record (kubectl_pd/records.py), as Kueue passes a podset's assignment or a
preemption's context. Read from the source with `ast`: every def, async def and lambda, nested ones included;
every parameter counts (positional-only, keyword-only, *args and **kwargs) except a method's self or cls."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "kubectl_pd"
PACKAGES = ("pending", "kueue")
LIMIT = 6

Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def count(fn: Function) -> int:
    """The parameters of `fn` that a caller passes: all of them but self and cls."""
    a = fn.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return sum(1 for n in names if n not in ("self", "cls"))


def _functions(source: str) -> list[Function]:
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, kinds)]


def _first(source: str) -> Function:
    return _functions(source)[0]


@pytest.mark.parametrize(("source", "want"), [
    ("def f(): pass", 0),
    ("def f(a, b=1, *, c): pass", 3),
    ("def f(a, /, b, *args, c, **kw): pass", 5),
    ("class C:\n    def m(self, a, b): pass", 2),
    ("class C:\n    @classmethod\n    def m(cls, *, a): pass", 1),
    ("async def f(a, b, c, d, e, f, g): pass", 7),
    ("g = lambda a, b: a", 2),
])
def test_count_takes_every_parameter_but_self_and_cls(source: str, want: int) -> None:
    assert count(_first(source)) == want


def _over_limit() -> list[tuple[str, int, str, int]]:
    out = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for fn in _functions(path.read_text(encoding="utf-8")):
                n = count(fn)
                if n > LIMIT:
                    out.append((str(path.relative_to(ROOT)), fn.lineno, getattr(fn, "name", "<lambda>"), n))
    return out


def test_the_packages_are_read() -> None:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    assert len(files) > 20 and sum(len(_functions(p.read_text(encoding="utf-8"))) for p in files) > 500


def test_no_function_in_pending_or_kueue_takes_more_than_six_parameters() -> None:
    assert _over_limit() == []
