"""The run's memo of reads. `Remembered`: a Source that reads each object, list and raw path through `inner` once
per run (reads asking the same at the same time wait for the first) and remembers a failure like a success; the one
memo every command's run uses (capacity/gather.Once, create/preflight's Node lists). `PrefetchedSource`, the memo of
`why-pending` with no TARGET (pending/gather.gather_all), is one with lists read up front that answer reads by
name and selector from memory, so N targets in a namespace cost its reads once.

In the cluster layer, below the diagnosis: it knows Sources, kinds and selectors, nothing of what a
diagnosis makes of them. A failed read is kept as a `FailedRead` (kind, name, namespace, purpose) for the
caller to report in its own terms. `together` (reads sent at the same time, bounded) is here as well: the
memo warms a run's namespaces with it, and pending/gather.py sends a diagnosis's independent reads with it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from kubectl_pd.cluster import kinds
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.selectors import parse_field_selector, parse_label_selector
from kubectl_pd.cluster.slim import slimmer
from kubectl_pd.cluster.source import Obj, Origin, Wrapper, labels_of, name_of, namespace_of
from kubectl_pd.errors import NotFoundError, PdError
from kubectl_pd.records import dataclass

PARALLEL = 8  # concurrent reads of one diagnosis to one live cluster (cluster/pool.py: at most 8 in flight, so 8
# connections; one target's first round (pending/plan.py) fits in it but for a bare NAME's last sets)
WIDEN_AT = 2  # no TARGET: from this many namespaces with targets, LocalQueues and LimitRanges are listed once
INVOLVED_NAME = "involvedObject.name"

T = TypeVar("T")

FailedPurpose = Literal["get", "list", "raw"]


@dataclass(frozen=True)
class FailedRead:
    """A read the memo sent that failed: the kind read ("" for a raw path), the object's name (a raw read's
    path; "" for a list), the namespace asked (None: cluster-wide) and what the read was."""

    kind: str
    name: str
    namespace: str | None
    purpose: FailedPurpose = "get"


def attempt(fn: Callable[[], T]) -> tuple[bool, Any]:
    try:
        return True, fn()
    except Exception as e:  # settled by the caller: PdError becomes a note, anything else is re-raised
        return False, e


def together(fns: list[Callable[[], Any]], live: bool) -> list[tuple[bool, Any]]:
    """Results of fns, in order; concurrently (bounded) when the source is a live cluster."""
    if len(fns) <= 1 or not live:
        return [attempt(f) for f in fns]
    return perform([Ask(_ONE, f) for f in fns])


_ONE = object()  # the one Source of `together`'s reads (a caller that names no Source)


@dataclass(frozen=True)
class Ask:
    """One read of a plan: the Source that answers it (a cluster; MultiKueue's manager and each worker are
    Sources of their own) and the call that reads it. `after`: the names of the asks whose results it needs
    (`in_waves` hands them to `then`); `name`: its own, for the asks after it."""

    source: object
    call: Callable[[], Any]
    name: str = ""
    after: tuple[str, ...] = ()


def perform(asks: list[Ask]) -> list[tuple[bool, Any]]:
    """One wave: every ask sent at once, at most PARALLEL at a time to each Source (each cluster its own
    bounded pool of keep-alive connections: cluster/pool.py), the results (ok, value or the error) in the
    order asked, whichever came first. A Source that is not a live cluster (`is_live` False: a snapshot)
    answers from memory, in the calling thread. Ctrl-C ends the wait within interrupt.SLICE seconds."""
    results: list[tuple[bool, Any]] = [(False, None)] * len(asks)
    by_source: dict[int, list[int]] = {}
    for i, a in enumerate(asks):
        if a.source is _ONE or getattr(a.source, "is_live", False):
            by_source.setdefault(id(a.source), []).append(i)
        else:
            results[i] = attempt(a.call)
    if not by_source:
        return results
    lock = threading.Lock()
    queues = {k: iter(v) for k, v in by_source.items()}

    def worker(key: int) -> None:  # plain threads: concurrent.futures would also load logging
        while True:
            with lock:
                i = next(queues[key], None)
            if i is None:
                return
            results[i] = attempt(asks[i].call)

    from kubectl_pd import interrupt

    # workers never take SIGINT, and the joins look for Ctrl-C every interrupt.SLICE seconds
    threads = [interrupt.thread(functools.partial(worker, key), "kubectl-pd-read")
               for key, idx in by_source.items() for _ in range(min(PARALLEL, len(idx)))]
    for t in threads:
        interrupt.join(t)
    return results


def in_waves(asks: list[Ask], then: Callable[[Ask, dict[str, tuple[bool, Any]]], Ask | None] | None = None,
             ) -> dict[str, tuple[bool, Any]]:
    """A plan performed in waves: each wave sends (`perform`) every ask whose `after` have all been answered;
    `then(ask, answers)`, when given, may turn an ask into the read it stands for once the answers it waits
    for are known (a LocalQueue names its ClusterQueue), or drop it (None: not needed). Answers by name;
    an ask whose dependency failed is still sent (its `then` sees the failure and decides)."""
    done: dict[str, tuple[bool, Any]] = {}
    waiting = list(asks)
    while waiting:
        ready = [a for a in waiting if all(d in done for d in a.after)]
        if not ready:
            raise ValueError(f"a plan that cannot finish: {sorted(a.name for a in waiting)}")
        waiting = [a for a in waiting if not all(d in done for d in a.after)]
        sent = [b for b in (then(a, done) if then is not None and a.after else a for a in ready) if b is not None]
        dropped = {a.name for a in ready} - {b.name for b in sent}
        done.update((n, (True, None)) for n in dropped)
        done.update((a.name, r) for a, r in zip(sent, perform(sent), strict=True))
    return done


Objs = list[Obj]  # (a method named `list` shadows the builtin inside the class below)


_KINDS: dict[str, str] = {}  # what the reads name a kind -> its Kind (`Event`, `pods`, ...)


class Remembered(Wrapper):
    """A Source over `inner` that reads each object, list and raw path once per run: a second identical read is
    answered from memory, a failure (a PdError: 403, 404, an API not served, ...) raised again exactly like the
    first time, without a request; reads asking the same at the same time wait for the first. Anything else that
    goes wrong is not remembered. A new instance per run: nothing is remembered across runs."""

    def __init__(self, inner: Source) -> None:
        self.inner = inner
        self.is_live = inner.is_live
        self.parallel = getattr(inner, "parallel", True)  # reads through it are worth threads as through inner
        self._memo: dict[tuple[Any, ...], tuple[bool, Any]] = {}
        self._locks: dict[tuple[Any, ...], threading.Lock] = {}

    def _fill(self, key: tuple[Any, ...], read: Callable[[], Any]) -> tuple[bool, Any]:
        """The result of `read`, (ok, value or its error), read once under `key`."""
        hit = self._memo.get(key)
        if hit is None:
            with self._locks.setdefault(key, threading.Lock()):  # reads that run together ask once
                hit = self._memo.get(key)
                if hit is None:
                    hit = attempt(read)
                    if not hit[0] and not isinstance(hit[1], PdError):
                        raise hit[1]  # not the cluster's answer: not remembered
                    self._memo[key] = hit
        return hit

    def _remembered(self, key: tuple[Any, ...], read: Callable[[], T]) -> T:
        ok, value = self._fill(key, read)
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        return self._remembered(("get", kind, name, namespace), lambda: self.inner.get(kind, name, namespace))

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *,
             reduce: Callable[[Obj], Obj | None] | None = None) -> Objs:
        return self._remembered(("list", kind, namespace, label_selector, field_selector, reduce is not None),
                                lambda: self.inner.list(kind, namespace, label_selector, field_selector,
                                                        reduce=reduce))

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        key = ("raw", path, tuple(sorted((query or {}).items())), resource, namespace)
        return self._remembered(key, lambda: self.inner.get_raw(path, query, resource=resource, namespace=namespace))

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)


class PrefetchedSource(Remembered):
    """The memo of one run with no TARGET: kinds listed up front answer from memory; every other read goes
    once through `inner` and is remembered, a failure (403, 404, an API not served, ...) exactly like a
    success, so N targets in a namespace cost its reads once, not N times. Events are listed once per
    namespace and filtered here by each target's field selector. A new instance per run (and per --watch
    tick): nothing is remembered across runs."""

    parallel = False  # reads one after another: most are answered from memory

    def __init__(self, inner: Source, prefetched: dict[str, list[Obj]]) -> None:
        super().__init__(inner)
        self.parallel = False
        self.prefetched = prefetched
        self._by_name: dict[str, dict[str, list[Obj]]] = {}  # kind -> name -> its objects (built on first get)
        self.failed: dict[FailedRead, PdError] = {}  # what failed -> the error, in order
        self._by_involved: dict[str, dict[str, list[Obj]]] = {}  # namespace -> involvedObject.name -> events
        self._got: dict[tuple[str, str, str | None], Obj | None] = {}  # (kind, name, namespace) -> get's answer
        self._by_namespace: dict[str, dict[str | None, list[Obj]]] = {}  # kind -> namespace -> its objects
        self._by_label: dict[tuple[str, str | None, str], dict[str, list[Obj]]] = {}  # (kind, ns, key) -> value ->

    def _kind(self, kind: str) -> str:
        k = _KINDS.get(kind)
        if k is None:
            found = kinds.lookup(kind)
            k = _KINDS[kind] = found.kind if found else kind
        return k

    def _once(self, key: tuple[Any, ...], what: Callable[[], FailedRead], read: Callable[[], T]) -> T:
        ok, value = self._fill(key, read)
        if not ok:  # a failure is the run's to report once a diagnosis has needed it (not when only warmed)
            if isinstance(value, PdError) and not isinstance(value, NotFoundError):
                self.failed.setdefault(what(), value)
            raise value
        return value  # type: ignore[no-any-return]

    def warm(self, namespaces: list[str], raw: list[str] | None = None) -> None:
        """Before the targets are diagnosed one after another: the reads every namespace of `namespaces`
        will ask for. Its LocalQueues and LimitRanges: with targets in more than one namespace, one
        cluster-wide list of each (few, small objects) answers them all; where such a list is refused or
        fails, each namespace is read as before. Its Events (one list per namespace, as before): read
        concurrently now, so a cluster's round-trip time is paid about once per PARALLEL namespaces, not once
        per namespace; a failure is remembered, and reported only if a diagnosis needs that read. With targets in one
        namespace, its LimitRanges beside them. `raw`: paths the diagnoses will read (the visibility API's
        listings), read beside them too (issue 49: -A in one round past its lists)."""
        if not self.is_live or not namespaces:
            return
        wide = [k for k in ("LocalQueue", "LimitRange") if k not in self.prefetched] \
            if len(namespaces) >= WIDEN_AT else []
        narrow = [ns for ns in namespaces if len(namespaces) < WIDEN_AT and "LimitRange" not in self.prefetched]
        results = together([functools.partial(self.inner.list, kind, reduce=slimmer(self.inner)) for kind in wide]
                            + [self._event_filler(ns) for ns in namespaces]
                            + [self._limit_range_filler(ns) for ns in narrow]
                            + [self._raw_filler(path) for path in raw or []], live=True)
        for kind, (ok, objs) in zip(wide, results, strict=False):
            if ok:
                self.prefetched[kind] = objs

    def _limit_range_filler(self, ns: str) -> Callable[[], tuple[bool, Any]]:
        return lambda: self._fill(("list", "LimitRange", ns, None, None), lambda: self.inner.list("LimitRange", ns))

    def _raw_filler(self, path: str) -> Callable[[], tuple[bool, Any]]:
        return lambda: self._fill(("raw", path), lambda: self.inner.get_raw(
            path, resource="clusterqueues/pendingworkloads"))

    def _event_filler(self, ns: str) -> Callable[[], tuple[bool, Any]]:
        return lambda: self._fill(("list", "Event", ns, None, None),
                                  lambda: self.inner.list("Event", ns, reduce=slimmer(self.inner)))

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        k = self._kind(kind)
        if k in self.prefetched:
            index = self._by_name.get(k)
            if index is None:  # one pass over the listed objects, not one per get
                index = {}
                for o in self.prefetched[k]:
                    index.setdefault(name_of(o), []).append(o)
                self._by_name[k] = index
            same = index.get(name, ())
            if len(same) > 1:  # a name in many namespaces (every namespace's LocalQueue `main`)
                return self._of_namespace(k, name, namespace, same)
            return same[0] if same and (namespace is None or namespace_of(same[0]) in (None, namespace)) else None
        key = ("get", k, name, namespace)
        hit = self._memo.get(key)
        if hit is not None and hit[0]:  # answered before: no closures to build
            return hit[1]  # type: ignore[no-any-return]
        return self._once(key, lambda: FailedRead(k, name, namespace), lambda: self.inner.get(kind, name, namespace))

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *,
             reduce: Callable[[Obj], Obj | None] | None = None) -> Objs:
        objs = self._list(kind, namespace, label_selector, field_selector)
        if reduce is None:
            return objs
        return [r for r in map(reduce, objs) if r is not None]

    def _list(self, kind: str, namespace: str | None, label_selector: str | None,
              field_selector: str | None) -> Objs:
        k = self._kind(kind)
        if k in self.prefetched:
            objs, exact = self._candidates(k, namespace, label_selector)
            return list(objs) if exact and field_selector is None else _select(objs, namespace, label_selector,
                                                                               field_selector)
        if k == "Event" and namespace is not None and label_selector is None:  # one list per namespace
            return self._events(kind, namespace, field_selector)
        return self._once(("list", k, namespace, label_selector, field_selector),
                          lambda: FailedRead(k, "", namespace, "list"),
                          lambda: self.inner.list(kind, namespace, label_selector, field_selector))

    def _of_namespace(self, k: str, name: str, namespace: str | None, same: Objs) -> Obj | None:
        """The first of the objects named `name` that is in `namespace` (or has none), remembered."""
        key = (k, name, namespace)
        if key not in self._got:
            self._got[key] = next((o for o in same if namespace is None or namespace_of(o) in (None, namespace)),
                                  None)
        return self._got[key]

    def _candidates(self, k: str, namespace: str | None, label_selector: str | None) -> tuple[Objs, bool]:
        """The listed objects of kind `k` that may match, in list order, and whether they are exactly the
        matches (the selector then need not run again): those of the namespace, and of those the ones with
        the label a one-term `key=value` selector names (indexed on first use: 2,000 targets select their
        Pods by group label without 2,000 scans of every Pod)."""
        objs = self.prefetched[k]
        if namespace is None:
            return objs, False
        by_ns = self._by_namespace.get(k)
        if by_ns is None:
            by_ns = self._by_namespace[k] = {}
            for o in objs:
                by_ns.setdefault(namespace_of(o), []).append(o)
        if None in by_ns and len(by_ns) > 1:  # namespaced and unnamespaced objects mixed: keep list order
            return objs, False
        objs = by_ns.get(namespace, by_ns.get(None, []))
        if not label_selector:
            return objs, True
        term = _one_equality(label_selector)
        if term is None:
            return objs, False
        key, value = term
        index = self._by_label.get((k, namespace, key))
        if index is None:
            index = self._by_label[(k, namespace, key)] = {}
            for o in objs:
                v = labels_of(o).get(key)
                if isinstance(v, str):
                    index.setdefault(v, []).append(o)
        return index.get(value, []), True

    def _events(self, kind: str, namespace: str, field_selector: str | None) -> Objs:
        memo_key = ("list", "Event", namespace, None, None)
        hit = self._memo.get(memo_key)
        every = hit[1] if hit is not None and hit[0] else self._once(
            memo_key, lambda: FailedRead("Event", "", namespace, "list"),
            lambda: self.inner.list(kind, namespace, reduce=slimmer(self.inner)))
        head, sep, name = (field_selector or "").partition("=")
        if head != INVOLVED_NAME or not sep or "," in name:
            return _select(every, namespace, None, field_selector)
        index = self._by_involved.get(namespace)
        if index is None:  # a thousand targets look up their events by name, not by a thousand scans
            index = {}
            for e in every:
                involved = e.get("involvedObject")
                key = involved.get("name") if isinstance(involved, dict) else None
                index.setdefault(key if isinstance(key, str) else "", []).append(e)
            self._by_involved[namespace] = index
        return list(index.get(name, []))

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        return self._once(("raw", path), lambda: FailedRead("", path, None, "raw"),
                          lambda: self.inner.get_raw(path, query, resource=resource, namespace=namespace))


def _one_equality(selector: str | None) -> tuple[str, str] | None:
    """(key, value) of a selector that is one `key=value` (or `key==value`) term, else None."""
    if not selector or any(c in selector for c in ",!()") or selector.count("=") not in (1, 2):
        return None
    key, _, value = selector.partition("=")
    value = value[1:] if value.startswith("=") else value
    key, value = key.strip(), value.strip()
    if not key or "=" in value or " " in key or " " in value:
        return None
    return key, value


def _select(objs: list[Obj], namespace: str | None, label_selector: str | None,
            field_selector: str | None) -> list[Obj]:
    lab, fld = parse_label_selector(label_selector), parse_field_selector(field_selector)
    return [o for o in objs if (namespace is None or namespace_of(o) in (None, namespace))
            and lab(labels_of(o)) and fld(o)]
