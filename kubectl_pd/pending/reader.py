"""The reader one why-pending target's reads go through (pending/gather.py and pending/owners.py call it): a Source
wrapped so that an optional read that fails becomes a note, one the verdict depends on `Facts.incomplete`, and
independent reads go out together on a live cluster; what it reads is parsed into the Facts (pending/facts.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kubectl_pd.cluster.prefetch import attempt, together
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.source import Obj
from kubectl_pd.errors import ForbiddenError, NotFoundError, PdError
from kubectl_pd.pending.facts import PARSE, Call, Facts
from kubectl_pd.pending.say import Read, say
from kubectl_pd.pending.target import Unread

if TYPE_CHECKING:
    from kubectl_pd.kueue.preempt_answer import PreemptionView

T = TypeVar("T")
R = TypeVar("R")


class FactReader:
    """Wraps a Source: turns optional-read failures into notes (and, for reads the verdict depends on,
    into `Facts.incomplete`), and runs independent reads together on a live cluster."""

    def __init__(self, source: Source, facts: Facts, preempt: PreemptionView | None = None) -> None:
        self.source = source
        self.facts = facts
        self.preempt = preempt  # the run's preemption view, whose record the reads fill (gather_preemption)
        self.deployment: Call | None = None  # the deployment of a group's Pods, read with its LocalQueues
        self.deferred = False  # ... or with what explains the target (_read_local_queues)
        self.first: Callable[[Facts], None] | None = None  # told once the target's Workloads and queues are in
        self.ahead_page: tuple[str, dict[str, Obj]] | None = None  # (namespace, its Workloads by name): one page

    def optional(self, what: Read, fn: Callable[[], T], default: T, *, dependent: bool = False) -> tuple[T, bool]:
        return self._settle(what, attempt(fn), default, dependent)

    def _settle(self, what: Read, result: tuple[bool, Any], default: T, dependent: bool) -> tuple[T, bool]:
        ok, value = result
        if ok:
            return value, True
        if isinstance(value, NotFoundError):
            return default, True
        if not isinstance(value, PdError):
            raise value
        message = cause(value)
        note = say("note.unread", what=what, message=message)
        if note not in self.facts.notes:  # reads of the same thing that ran together fail together
            self.facts.notes.append(note)
        if dependent:
            self.facts.incomplete.append(Unread(what, message))
        return default, False

    def many(self, calls: list[Call]) -> list[tuple[Any, bool]]:
        """Run (what, fn, default, dependent) calls together; settle them in the order given."""
        if not (self.facts.live and parallel(self.source)) or len(calls) <= 1:  # one after another
            return [self._settle(what, attempt(fn), default, dep) for what, fn, default, dep in calls]
        results = together([c[1] for c in calls], True)
        return [self._settle(what, r, default, dep) for (what, _fn, default, dep), r in zip(calls, results,
                                                                                              strict=True)]

    def get_many(self, table: dict[str, R | None], kind: str, names: list[str], namespace: str | None,
                 what: Callable[[str], Read], *, dependent: bool = False) -> None:
        """GET each name not yet in `table`, together; a name is added only when its read succeeded, as the
        kind's typed record (PARSE) made once for the run."""
        todo = [n for n in dict.fromkeys(names) if n not in table]
        if not todo:
            return
        calls: list[Call] = [(what(n), getter(self.source, kind, n, namespace), None, dependent) for n in todo]
        make = PARSE.get(kind)
        for n, (obj, ok) in zip(todo, self.many(calls), strict=True):
            if ok:
                table[n] = self.facts.run.parse(kind, obj, make) if obj is not None and make is not None else obj


def parallel(source: Source) -> bool:
    """Whether reads through `source` are worth threads: not through a run's memo (PrefetchedSource),
    where nearly every read is answered from memory (2,000 targets started 8,000 threads for it)."""
    return source.parallel


def getter(source: Source, kind: str, name: str, namespace: str | None) -> Callable[[], Obj | None]:
    return lambda: source.get(kind, name, namespace)


def cause(e: PdError) -> str:
    """Why a read failed, for a note that names the read: RBAC's refusal without its remedy, else the error."""
    return e.refusal if isinstance(e, ForbiddenError) else e.message
