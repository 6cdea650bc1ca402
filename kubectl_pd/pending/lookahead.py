"""One target's first round of reads, sent ahead (issue 38, the head start; issue 49, two rounds for one target).

`Lookahead` is a Source over the live one. `send(keys)` sends the reads `pending/plan.py` names for the first
round (the target's objects, for a bare NAME every form's, and the bounded sets), together, in a thread of their
own: why-pending's `complete()` calls it (pending/run.head_start) as soon as the Source is open, so the server's
answers and the diagnosis code's imports overlap. Gather then reads as it always did, by its calls:

- a call sent ahead under the same key (kind, name, namespace, selectors, path) is handed its result once,
  waiting for it if it is still in flight; a failed read is handed over as it failed, and settled by gather
  where it was asked;
- a read by name of a kind whose set was read in the first round (a LocalQueue, a ClusterQueue, a flavor...) is
  answered from that set, as often as it is asked, and so is the set's own list: the object read by name is the
  one the list held (an absent name is absent, as a 404 says). A set that failed, or did not fit in one page
  (plan.MOST), answers nothing: the read goes to the cluster, as before;
- every other call goes through to the live Source.

No plan is written here: what to send is plan.py's, what to do with the answers is gather's. `close` waits for
the thread: when gather returns, nothing more is read, and what no call took is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_pd.cluster.prefetch import attempt, together
from kubectl_pd.cluster.source import Wrapper, name_of, namespace_of
from kubectl_pd.pending import plan

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.cluster.source import Obj, Origin

Key = plan.Key


class _Sent:
    """One read sent ahead: its result (ok, value or the error) once `done` is set; None when the thread stopped
    before it was answered (the call then reads it itself)."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: tuple[bool, Any] | None = None


class Lookahead(Wrapper):
    """A Source over `inner` that hands each read sent ahead to the first identical call, once, and answers reads
    by name from the sets sent ahead; what it did not send, and what `inner` says of itself, are `inner`'s."""

    parallel = True

    def __init__(self, inner: Source) -> None:
        self.inner = inner
        self.is_live = inner.is_live
        self._sent: dict[Key, _Sent] = {}  # taken once
        self._sets: dict[tuple[str, str | None], _Sent] = {}  # (kind, namespace or None) -> its list, kept
        self._every: list[_Sent] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- the first round ------------------------------------------------------------------------
    def send(self, keys: list[Key]) -> Lookahead:
        """Send the reads of `keys` now, together, in a thread; returns self."""
        wave: list[tuple[Key, _Sent]] = []
        with self._lock:
            for key in keys:
                if key in self._sent or (plan.is_set(key) and (key[1], key[2]) in self._sets):
                    continue
                sent = _Sent()
                if plan.is_set(key):
                    self._sets[(key[1], key[2])] = sent
                else:
                    self._sent[key] = sent
                self._every.append(sent)
                wave.append((key, sent))
        if not wave:
            return self
        from kubectl_pd import interrupt

        self._thread = interrupt.thread(lambda: self._first(wave), "kubectl-pd-head")
        return self

    def _first(self, wave: list[tuple[Key, _Sent]]) -> None:
        try:  # each answer handed over as it arrives: a call waits for its own read, not for the round's slowest
            together([_handing(plan.call(self.inner, key), sent) for key, sent in wave], True)
        except BaseException:  # noqa: BLE001, B036, S110 - gather reads (and reports) what was not handed over:
            pass  # a worker thread prints nothing of its own
        finally:  # whatever stopped it, no call waits for a read that was not answered
            for _key, sent in wave:
                sent.done.set()

    def close(self) -> None:
        """Wait for the first round (Ctrl-C seen within interrupt.SLICE): once gather returns, nothing is read. What
        no call took is dropped: a later read (the next --watch round) is sent afresh, never handed an old answer."""
        if self._thread is not None:
            from kubectl_pd import interrupt

            interrupt.join(self._thread)
        with self._lock:
            self._sent.clear()
            self._sets.clear()

    # -- the Source -----------------------------------------------------------------------------
    def _take(self, key: Key) -> tuple[bool, Any] | None:
        """The result of the read sent ahead under `key` (waited for), once; None: read it here."""
        with self._lock:
            sent = self._sent.pop(key, None)
        if sent is None:
            return None
        sent.done.wait()
        return sent.result

    def _set(self, kind: str, namespace: str | None) -> list[Obj] | None:
        """The set of `kind` read in the first round (waited for); None: not read, failed, or past one page."""
        with self._lock:
            sent = self._sets.get((kind, namespace if kind in plan.NAMESPACED else None))
        if sent is None or (kind in plan.NAMESPACED and namespace is None):
            return None
        sent.done.wait()
        ok, objs = sent.result or (False, None)
        return objs if ok and isinstance(objs, list) else None

    def holds(self, kind: str, namespace: str | None) -> bool:
        """Whether reads of `kind` by name (in `namespace`) are answered from its set (waited for)."""
        return kind in plan.SETS and self._set(kind, namespace) is not None

    def within(self, kind: str, namespace: str | None, most: int) -> list[Obj] | None:
        """Every object of `kind` when one page of `most` holds them all (a live cluster's LiveSource.list_within);
        None when there are more, or when the Source under this one cannot read one page (then the caller reads
        what it needs by name). Errors as a list's."""
        if not plan.pages(self.inner):
            return None
        got: list[Obj] | None = self.inner.list_within(kind, namespace, most)  # type: ignore[attr-defined]
        return got

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        if kind in plan.SETS:
            objs = self._set(kind, namespace)
            if objs is not None:
                return next((o for o in objs if name_of(o) == name
                             and (namespace is None or namespace_of(o) in (None, namespace))), None)
        got = self._take(plan.get(kind, name, namespace))
        if got is None:
            return self.inner.get(kind, name, namespace)
        obj: Obj | None = _value(got)
        return obj

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *,
             reduce: Callable[[Obj], Obj | None] | None = None) -> list[Obj]:
        if kind in plan.SETS and label_selector is None and field_selector is None:
            objs = self._set(kind, namespace)
            if objs is not None:
                return list(objs) if reduce is None else [r for r in map(reduce, objs) if r is not None]
        got = self._take(plan.listed(kind, namespace, label_selector, field_selector)) if reduce is None else None
        if got is None:
            return self.inner.list(kind, namespace, label_selector, field_selector, reduce=reduce)
        objs_: list[Obj] = _value(got)
        return objs_

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        got = self._take(plan.raw(path)) if query is None else None
        if got is None:
            return self.inner.get_raw(path, query, resource=resource, namespace=namespace)
        doc: Obj | None = _value(got)
        return doc

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)


def _handing(call: Callable[[], Any], sent: _Sent) -> Callable[[], None]:
    def read() -> None:
        sent.result = attempt(call)
        sent.done.set()

    return read


def _value(result: tuple[bool, Any]) -> Any:
    ok, value = result
    if not ok:
        raise value
    return value
