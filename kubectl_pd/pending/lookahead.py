"""A pod group's queue chain, read from its Workload while its Pods list is still in flight (issue 38, speed).

One pod group's reads depend on each other in a chain: its Workload names its LocalQueue, which names its
ClusterQueue, which names its flavors and the visibility API's listing, which names the Workloads ahead. The
Pods of the group are listed beside the Workload, by label selector; with kube-apiserver's watch cache off, that
list reads every Pod of the namespace from etcd (hundreds of milliseconds with a few thousand Pods), while the
Workload's GET answers in a few. gather.py plans the chain once both have answered (the Pods may name a queue
or a deployment too), so the chain used to wait for the slowest read of the first wave.

`Lookahead` is a Source over the live one: when the Workload answers and is plainly pending (no quota reserved,
not admitted, not finished), it sends the reads gather.py's plan will make for such a Workload, one link after
another, in a thread of its own: the LocalQueue, the ClusterQueue, then together the ClusterQueue's flavors,
the namespace's LimitRanges, the Workload's Events and the visibility API's pending Workloads, then the
Workloads ahead of it. Each read is kept under its call (kind, name, namespace, selectors, path) and handed
once to the plan's identical call, which waits for it if it is still in flight; any other call goes through to
the live Source. So the plan and its results are the same as before, and so are the requests, only sooner.
Each read's key is known before the answer it depends on is handed over (a ClusterQueue's flavors are expected
before the plan sees the ClusterQueue), so the plan never sends a read the chain is about to send.
A read the chain sent that the plan does not make (the Pods name another queue first) is one request more; a
failed read is handed over as it failed, and settled by the plan where it was asked. `close` waits for the chain:
when gather returns, nothing more is read.

`head_start` sends a target's first reads (the ones gather.py's plan begins with for its kind) before the
diagnosis code is even imported, and a pod group's chain after them in the same thread: the command's imports
(about as long as the first reads on an idle machine) and the server's answers overlap. Every other attribute is
the live Source's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_pd.cluster.prefetch import INVOLVED_NAME, attempt, together
from kubectl_pd.cluster.source import Wrapper

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.cluster.source import Obj, Origin
    from kubectl_pd.kueue.model import Workload

Key = tuple[Any, ...]


class _Sent:
    """One read sent ahead: its result (ok, value or the error) once `done` is set; None when the chain stopped
    before sending it (the call then reads it itself)."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: tuple[bool, Any] | None = None


class Lookahead(Wrapper):
    """A Source over `inner` that hands each read sent ahead to the first identical call, once; what it does not
    read ahead, and what `inner` says of itself, are `inner`'s."""

    parallel = True

    def __init__(self, inner: Source) -> None:
        self.inner = inner
        self.is_live = inner.is_live
        self._sent: dict[Key, _Sent] = {}
        self._every: list[_Sent] = []
        self._lock = threading.Lock()
        self._chain: threading.Thread | None = None

    # -- the head start -------------------------------------------------------------------------
    def head_start(self, kind: str, name: str, namespace: str) -> Lookahead:
        """Send the first reads gather's plan makes for a target of `kind` now, in a thread (then a pod group's
        chain, as `from_workload`); the plan takes them by their calls. Returns self."""
        wave = self._expect_all(_first_reads(self.inner, kind, name, namespace))
        if not wave:
            return self
        from kubectl_pd import interrupt

        self._chain = interrupt.thread(lambda: self._head(wave, kind, name, namespace), "kubectl-pd-head")
        return self

    def _head(self, wave: list[tuple[Key, Callable[[], Any], _Sent]], kind: str, name: str, namespace: str) -> None:
        try:
            results = together([call for _key, call, _sent in wave], True)
            chain = None
            if kind in ("PodGroup", "Workload"):
                ok, obj = results[0]
                chain = self._pending_workload(obj, namespace) if ok else None
            for (_key, _call, sent), r in zip(wave, results, strict=True):
                _hand(sent, r)
            if chain is not None:
                self._links(chain[0], name, namespace, chain[1])
        except BaseException:  # noqa: BLE001, B036, S110 - as _follow: the plan reads (and reports) the rest
            pass
        finally:
            for sent in self._every:
                if not sent.done.is_set():
                    sent.done.set()

    # -- the chain ------------------------------------------------------------------------------
    def _pending_workload(self, obj: Obj | None, namespace: str) -> tuple[Workload, _Sent] | None:
        """A plainly pending Workload as read, with its LocalQueue's read expected (None: no chain to follow)."""
        if obj is None:
            return None
        from kubectl_pd.kueue.model import workload

        try:
            wl = workload(obj)
        except Exception:  # noqa: BLE001 - an object the model cannot read: the plan reads (and says) it
            return None
        if not _plainly_pending(wl) or not wl.queue_name:
            return None
        lq = self._expect(("get", "LocalQueue", wl.queue_name, namespace))
        return None if lq is None else (wl, lq)

    def from_workload(self, obj: Obj | None, group: str, namespace: str) -> Obj | None:
        """The pod group's Workload as read (handed back unchanged); a plainly pending one starts the chain."""
        if self._chain is not None:
            return obj
        chain = self._pending_workload(obj, namespace)
        if chain is None:
            return obj
        from kubectl_pd import interrupt

        wl, lq = chain
        self._chain = interrupt.thread(lambda: self._follow(wl, group, namespace, lq), "kubectl-pd-lookahead")
        return obj

    def _follow(self, wl: Workload, group: str, namespace: str, lq: _Sent) -> None:
        try:
            self._links(wl, group, namespace, lq)
        except BaseException:  # noqa: BLE001, B036, S110 - the plan reads what the chain did not hand over, and
            pass  # meets (and reports) the same trouble there: a worker thread prints nothing of its own
        finally:  # whatever stopped the chain, no call waits for a read it did not send
            for sent in self._every:
                if not sent.done.is_set():
                    sent.done.set()

    def _links(self, wl: Workload, group: str, namespace: str, lq: _Sent) -> None:
        from kubectl_pd.kueue.model import cluster_queue, local_queue

        queue_name = wl.queue_name or ""
        answer = attempt(lambda: self.inner.get("LocalQueue", queue_name, namespace))
        ok, obj = answer
        cq_name = local_queue(obj).cluster_queue if ok and obj is not None else None
        cq = self._expect(("get", "ClusterQueue", cq_name, None)) if cq_name else None
        _hand(lq, answer)
        if cq is None or not cq_name:
            return
        answer = attempt(lambda: self.inner.get("ClusterQueue", cq_name, None))
        ok, obj = answer
        wave = self._explanations(cluster_queue(obj).flavor_names, cq_name, group, namespace) if ok and obj else []
        _hand(cq, answer)
        if not wave:
            return
        results = together([call for _key, call, _sent in wave], True)
        vis = next(((sent, r) for (key, _c, sent), r in zip(wave, results, strict=True) if key[0] == "raw"), None)
        ahead = self._ahead(vis[1], wl, group, namespace, cq_name) if vis is not None else []
        for (_key, _call, sent), r in zip(wave, results, strict=True):
            _hand(sent, r)
        if ahead:
            for (_k, _c, sent), r in zip(ahead, together([c for _k, c, _s in ahead], True), strict=True):
                _hand(sent, r)

    def _explanations(self, flavors: tuple[str, ...], cq: str, group: str,
                      namespace: str) -> list[tuple[Key, Callable[[], Any], _Sent]]:
        """What gather's plan reads to explain a plainly pending Workload of this ClusterQueue: its flavors
        (gather.MAX_FLAVORS), the namespace's LimitRanges, the Workload's Events, the visibility API's listing."""
        from kubectl_pd.cluster import kinds
        from kubectl_pd.pending.gather import MAX_FLAVORS

        inner = self.inner
        path = f"/apis/{kinds.VISIBILITY_GROUP}/v1beta2/clusterqueues/{cq}/pendingworkloads"
        field = f"{INVOLVED_NAME}={group}"
        wanted: list[tuple[Key, Callable[[], Any]]] = [
            (("get", "ResourceFlavor", f, None), _get(inner, "ResourceFlavor", f, None))
            for f in dict.fromkeys(flavors[:MAX_FLAVORS])]
        wanted += [(("list", "LimitRange", namespace, None, None), lambda: inner.list("LimitRange", namespace)),
                   (("list", "Event", namespace, None, field),
                    lambda: inner.list("Event", namespace, field_selector=field)),
                   (("raw", path), lambda: inner.get_raw(path, resource="clusterqueues/pendingworkloads"))]
        return self._expect_all(wanted)

    def _ahead(self, vis: tuple[bool, Any], wl: Workload, group: str, namespace: str,
               cq: str) -> list[tuple[Key, Callable[[], Any], _Sent]]:
        """The Workloads ahead of ours in the listing (gather.ahead_of_ours over what the chain read)."""
        ok, doc = vis
        if not ok or not isinstance(doc, dict):
            return []
        from kubectl_pd.kueue.model import pending_view
        from kubectl_pd.pending.gather import MAX_AHEAD, Facts, ahead_of_ours
        from kubectl_pd.pending.target import Target

        facts = Facts(Target("PodGroup", group, namespace), groups=[group], pending={cq: pending_view(doc)})
        inner = self.inner
        return self._expect_all([(("get", "Workload", n, w), _get(inner, "Workload", n, w))
                                 for w, n in ahead_of_ours(facts, MAX_AHEAD)])

    def _expect(self, key: Key) -> _Sent | None:
        """A read about to be sent ahead, under its key; None when that key is sent already."""
        with self._lock:
            if key in self._sent:
                return None
            sent = self._sent[key] = _Sent()
            self._every.append(sent)
            return sent

    def _expect_all(self, wanted: list[tuple[Key, Callable[[], Any]]]) -> list[tuple[Key, Callable[[], Any], _Sent]]:
        out = []
        for key, call in wanted:
            sent = self._expect(key)
            if sent is not None:
                out.append((key, call, sent))
        return out

    def close(self) -> None:
        """Wait for the chain (Ctrl-C seen within interrupt.SLICE): once gather returns, nothing is read. What no
        call took is dropped: a later read (the next --watch round) is sent afresh, never handed an old answer."""
        if self._chain is not None:
            from kubectl_pd import interrupt

            interrupt.join(self._chain)
        with self._lock:
            self._sent.clear()

    # -- the Source -----------------------------------------------------------------------------
    def _take(self, key: Key) -> tuple[bool, Any] | None:
        """The result of the read sent ahead under `key` (waited for), once; None: read it here."""
        with self._lock:
            sent = self._sent.pop(key, None)
        if sent is None:
            return None
        sent.done.wait()  # the chain hands over every read it sent (a failure too), and ends with the rest
        return sent.result

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        got = self._take(("get", kind, name, namespace))
        if got is None:
            return self.inner.get(kind, name, namespace)
        obj: Obj | None = _value(got)
        return obj

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, *,
             reduce: Callable[[Obj], Obj | None] | None = None) -> list[Obj]:
        got = self._take(("list", kind, namespace, label_selector, field_selector)) if reduce is None else None
        if got is None:
            return self.inner.list(kind, namespace, label_selector, field_selector, reduce=reduce)
        objs: list[Obj] = _value(got)
        return objs

    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Obj | None:
        got = self._take(("raw", path)) if query is None else None
        if got is None:
            return self.inner.get_raw(path, query, resource=resource, namespace=namespace)
        doc: Obj | None = _value(got)
        return doc

    def origin(self, obj: Obj) -> Origin:
        return self.inner.origin(obj)


def _first_reads(source: Source, kind: str, name: str, namespace: str) -> list[tuple[Key, Callable[[], Any]]]:
    """The reads gather.py's plan begins with for a target of `kind` (_read_deployment, _read_group_members,
    _read_pod): the object, and the Pods beside it."""
    from kubectl_pd.labels import GROUP_LABEL, INSTANCE_LABEL

    if kind == "ModelDeployment":
        pods = f"{INSTANCE_LABEL}={name}"
        return [(("get", "ModelDeployment", name, namespace), _get(source, "ModelDeployment", name, namespace)),
                (("list", "Pod", namespace, pods, None), lambda: source.list("Pod", namespace, label_selector=pods))]
    if kind in ("PodGroup", "Workload"):
        pods = f"{GROUP_LABEL}={name}"
        return [(("get", "Workload", name, namespace), _get(source, "Workload", name, namespace)),
                (("list", "Pod", namespace, pods, None), lambda: source.list("Pod", namespace, label_selector=pods))]
    if kind == "Pod":
        return [(("get", "Pod", name, namespace), _get(source, "Pod", name, namespace))]
    return []


def _plainly_pending(wl: Workload) -> bool:
    """Waiting for quota in its LocalQueue's ClusterQueue: what gather's plan explains with the whole chain."""
    return wl.cluster_queue is None and not (wl.reserved or wl.admitted or wl.finished)


def _get(source: Source, kind: str, name: str, namespace: str | None) -> Callable[[], Any]:
    return lambda: source.get(kind, name, namespace)


def _hand(sent: _Sent, result: tuple[bool, Any]) -> None:
    sent.result = result
    sent.done.set()


def _value(result: tuple[bool, Any]) -> Any:
    ok, value = result
    if not ok:
        raise value
    return value
