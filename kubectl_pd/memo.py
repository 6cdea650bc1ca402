"""What a run remembers, and nothing that outlives it (issue 29, issue 38; docs/architecture.md).

One run store, `Run`: one command invocation's memo tables and settings (its --color). The CLI opens one
around each invocation (`with memo.run():` in cli.LazyGroup.main, so `kubectl pd ...`, click's CliRunner and
every MCP tool call each get their own) and it is gone when the invocation ends: a ContextVar holds it, reset
at the end. Threads the run starts belong to it (interrupt.thread runs them in the run's context). Outside any
run (a library call, a test of a pure function) there is no memo: every call works its answer out, and
`set_color_mode` has nothing to set. Every table is bounded: one past its size empties it, so a hostile input
of many distinct values does not grow a run's memory. Nothing is keyed by an object's identity and nothing is
kept on a record: a memo is found by value, in one of two idioms.

1. By the arguments: `per_run(maxsize)` is `functools.lru_cache` made of the run's table for a function of
   hashable arguments (a quantity and its resource). `table(name)` is that table, for a caller that builds
   its keys itself.
2. By a summary, checked against the whole: `by_value(name, key, whole, make, maxsize)` for a value worked out
   of something unhashable (an engine Snapshot, an API object, a Workload record). `key` is a cheap hashable
   summary of it (names, a read's key: kind, namespace, name, resourceVersion); the entry keeps `whole`, and a
   hit must be equal to it (`==`, which costs nothing when the run hands the same object again), else the
   value is worked out afresh and replaces the entry. `matched` is the same over a dict the caller owns: the
   gather pipeline's records of one run (pending/gather.Typed), made by the run and handed down as a value.
"""
from __future__ import annotations

from contextvars import ContextVar

TYPE_CHECKING = False  # not typing's: a Tab press never imports typing (bench/bench_live.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ParamSpec, TypeVar

    V = TypeVar("V")
    P = ParamSpec("P")
    R = TypeVar("R")


class Run:
    """One invocation's memo tables (name -> dict) and settings."""

    __slots__ = ("tables", "color")

    def __init__(self) -> None:
        self.tables: dict[str, dict[Any, Any]] = {}
        self.color = "auto"  # --color: auto | always | never (termsafe.set_color_mode)


_RUN: ContextVar[Run | None] = ContextVar("kubectl_pd.memo.run", default=None)


class run:  # noqa: N801 - used as a context manager, like contextlib's
    """`with run() as r:` the code inside belongs to a fresh Run, which ends with the block (the previous
    one, if any, is current again: an MCP tool call inside the server's own invocation)."""

    __slots__ = ("scope", "_token")

    def __init__(self) -> None:
        self.scope = Run()

    def __enter__(self) -> Run:
        self._token = _RUN.set(self.scope)
        return self.scope

    def __exit__(self, *exc: object) -> None:
        _RUN.reset(self._token)
        self.scope.tables.clear()


def current() -> Run | None:
    """The run the caller belongs to; None outside any."""
    return _RUN.get()


def table(name: str) -> dict[Any, Any] | None:
    """The current run's memo table `name` (made empty on first use); None outside a run: no memo."""
    scope = _RUN.get()
    if scope is None:
        return None
    found = scope.tables.get(name)
    if found is None:
        found = scope.tables[name] = {}
    return found


def put(memo: dict[Any, Any], key: Any, value: V, maxsize: int) -> V:
    """`memo[key] = value`, the table emptied first when it is full; returns `value`."""
    if len(memo) >= maxsize:
        memo.clear()
    memo[key] = value
    return value


def per_run(maxsize: int, *, typed: bool = False) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """`functools.lru_cache(maxsize, typed=typed)` over positional arguments, in the current run's table
    (emptied when full rather than least-recently-used); outside a run, a plain call."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        name = f"{fn.__module__}.{fn.__qualname__}"

        def memoised(*args: P.args, **kwargs: P.kwargs) -> R:
            scope = _RUN.get()
            if scope is None or kwargs:
                return fn(*args, **kwargs)
            memo = scope.tables.get(name)
            if memo is None:
                memo = scope.tables[name] = {}
            key: Any = (args if len(args) != 1 else args[0]) if not typed else (args, tuple(map(type, args)))
            try:
                return memo[key]  # type: ignore[no-any-return]
            except KeyError:
                pass
            return put(memo, key, fn(*args, **kwargs), maxsize)

        memoised.__name__, memoised.__qualname__, memoised.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        memoised.__module__ = fn.__module__
        memoised.__wrapped__ = fn  # type: ignore[attr-defined]
        return memoised

    return wrap


def matched(memo: dict[Any, Any], key: Any, whole: Any, make: Callable[[], V], maxsize: int) -> V:
    """`make()`, remembered in `memo` under the hashable summary `key` for a `whole` equal to this one."""
    hit = memo.get(key)
    if hit is not None and (hit[0] is whole or hit[0] == whole):
        return hit[1]  # type: ignore[no-any-return]
    value = make()
    put(memo, key, (whole, value), maxsize)
    return value


def by_value(name: str, key: Any, whole: Any, make: Callable[[], V], maxsize: int) -> V:
    """`matched` in the current run's table `name`; outside a run, `make()`."""
    memo = table(name)
    return make() if memo is None else matched(memo, key, whole, make, maxsize)
