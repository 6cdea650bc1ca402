"""`why-pending -A --watch`: list, then one held watch of Workloads from the list's resourceVersion (with
bookmarks), read event by event; the first change after a quiet moment, and those within QUIET seconds of it
(BURST at most), are followed by one diagnosis. The server ending the stream is answered by a new one from the
last resourceVersion; a 410 (the version is too old) by listing again: at once the first time, then after a
pause that doubles (client-go's reflector: 800 ms, doubling to 30 s, with up to as much again of jitter), until a
stream brings a change or two minutes pass without a 410: a server that answers every watch with 410 gets a
relist every 30 to 60 seconds, not thousands a second.

What is held is bounded: the resourceVersion and the last rows shown (one short row per pending target), never
the watched objects nor an event history. The stream is read in a worker thread that never takes SIGINT (its
socket waits at most cluster/stream.READ_SLICE per recv, then looks at the stop flag); the main thread waits
for it in slices (kubectl_pd/interrupt.py), so Ctrl-C stops within a second.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

from kubectl_pd.errors import ListExpired
from kubectl_pd.kube import WatchEvent, watch_event
from kubectl_pd.pending.target import OWNER_KINDS

if TYPE_CHECKING:
    from kubectl_pd.cluster.live import LiveSource

Row = tuple[str, str, str, str]  # (role, code, detail, name shown) of one pending target
Rows = dict[tuple[str, str, str], Row]  # (namespace, kind, name) -> its row
HELD = 300  # a watch's timeoutSeconds is HELD to 2*HELD (client-go's reflector: 5-10 min); then it resumes
QUIET = 0.5  # seconds without another change before a burst of changes is diagnosed
BURST = 2.0  # seconds at most from a burst's first change to its diagnosis
SILENT = 30  # seconds past timeoutSeconds a stream may stay silent before it is given up and resumed
QUICK = 0.2  # a stream that ends sooner than this with nothing in it: a short pause before the next
RELIST_FIRST = 0.8  # seconds before the second relist in a row (client-go's reflector: 800 ms) ...
RELIST_CAP = 30.0  # ... doubling up to this, then up to as much again of jitter (its jitter factor 1.0)
RELIST_RESET = 120.0  # seconds without a 410 after which the pause starts over (its backoff reset: 2 min)


class RelistBackoff:
    """How long to wait before a relist after a 410: nothing for the first; then RELIST_FIRST doubling to
    RELIST_CAP, each with a random extra of up to as much again; back to nothing after a change was streamed
    or RELIST_RESET seconds without a 410. Pure: the clock and the random draw are given."""

    def __init__(self, rand: Callable[[], float] | None = None) -> None:
        import random

        self.rand = rand or random.random
        self.step = 0
        self.last: float | None = None

    def reset(self) -> None:
        self.step = 0

    def pause(self, now: float) -> float:
        if self.last is not None and now - self.last > RELIST_RESET:
            self.step = 0
        self.last = now
        step, self.step = self.step, min(self.step + 1, 32)
        if step == 0:
            return 0.0
        base = min(RELIST_CAP, RELIST_FIRST * 2 ** (step - 1))
        return float(base * (1.0 + self.rand()))


def rows_of(pending: list[tuple[str, Any]], message: Callable[[Any], str]) -> Rows:
    """The rows of the pending diagnoses: what a change is measured against."""
    out: Rows = {}
    for ns, d in pending:
        r = d.reasons[0]
        if len(d.workloads) == 1 and d.target.kind in OWNER_KINDS:  # a framework's group (pending/owners.as_owner):
            w = d.workloads[0]  # keyed by its Workload, shown as its owner's row with its role and group
            role = f"{w.role or r.role or '-'}" + (f"[{w.group}]" if w.group is not None else "")
            out[(ns, d.target.kind, w.name)] = (role, r.code, message(r), d.target.name)
            continue
        out[(ns, d.target.kind, d.target.name)] = (r.role or "-", r.code, message(r), d.target.name)
    return out


def changes(before: Rows, after: Rows) -> list[tuple[str, tuple[str, str, str], Row | None]]:
    """("pending" | "changed" | "not-pending", key, the new row) for every target whose row changed."""
    out: list[tuple[str, tuple[str, str, str], Row | None]] = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            out.append(("not-pending", key, None))
        elif key not in before:
            out.append(("pending", key, after[key]))
        elif before[key][:2] != after[key][:2]:
            out.append(("changed", key, after[key]))
    return out


def held_seconds() -> int:
    """A watch's timeoutSeconds, as client-go's reflector picks it: a random 5 to 10 minutes (so many
    watchers do not all come back at once)."""
    import random

    return random.randint(HELD, 2 * HELD)


class Follow:
    """The state of one watch: the stream held open, the resourceVersion to resume from, and counts. Holds
    nothing of what the events carried but the last resourceVersion."""

    def __init__(self, source: LiveSource, namespace: str | None, seconds: int = HELD, rounds: int | None = None,
                 clock: Callable[[], float] = time.monotonic, pause: Callable[[float], Any] | None = None) -> None:
        self.source = source
        self.namespace = namespace
        self.seconds = seconds
        self.rounds = rounds  # streams to read before the watch ends (tests); None: until Ctrl-C
        self.version = ""
        self.relists = 0
        self.streams = 0  # watch requests sent
        self.stop = threading.Event()
        self._events: _typed | None = None
        self._opened = self._heard = 0.0
        self._quick = 0  # streams in a row that ended at once, with nothing in them: the pause grows
        self.clock = clock
        self.pause = pause or self.stop.wait  # Ctrl-C (the stop flag) ends a pause at once
        self.backoff = RelistBackoff()
        self.paused: list[float] = []  # the pauses before relists after a 410, in seconds

    def relist(self) -> None:
        self.version = self.source.list_version("Workload", self.namespace)
        self.relists += 1

    def relist_expired(self) -> None:
        """A 410: list again, after the backoff's pause (none the first time)."""
        wait = self.backoff.pause(self.clock())
        if wait:
            self.paused.append(wait)
            self.pause(wait)
            if self.stop.is_set():
                return
        self.relist()

    def close(self) -> None:
        """The stream ends: at once when no worker reads it, else within a recv's slice (its stop flag)."""
        self.stop.set()
        events, self._events = self._events, None
        if events is not None:
            try:
                events.close()
            except ValueError:  # a worker is inside it (Ctrl-C): it sees the stop flag and closes it itself
                pass

    def next_change(self) -> bool:
        """Read the stream until a Workload was added, changed or deleted (or a 410 made us list again), and
        the burst of changes that follows within QUIET seconds (at most BURST) is read too: True, diagnose
        now. False: the rounds are done and nothing changed since the last diagnosis."""
        first = last = 0.0
        while True:
            if self.stop.is_set():
                return False
            now = time.monotonic()
            if first and (now - last >= QUIET or now - first >= BURST):
                return True
            if self._events is None:
                if self.rounds is not None and self.streams >= self.rounds:
                    return bool(first)
                if not self._open():
                    first, last = first or time.monotonic(), time.monotonic()
                continue
            try:
                event = next(self._events)
            except StopIteration:
                self._ended()
                continue
            except ListExpired:
                self._events = None
                self.relist_expired()
                first, last = first or time.monotonic(), time.monotonic()
                continue
            if event is None:
                if time.monotonic() - self._heard > self.seconds + SILENT:  # a stream gone quiet past its end
                    self._drop()
                continue
            self._heard = time.monotonic()
            self._quick = 0
            if event.resource_version is not None:
                self.version = event.resource_version
            if event.type in ("ADDED", "MODIFIED", "DELETED"):
                self.backoff.reset()  # the server streams changes from our version again
                first, last = first or time.monotonic(), time.monotonic()

    def _open(self) -> bool:
        """Open the next stream from the last resourceVersion; False when a 410 made us list again."""
        if not self.version:
            self.relist()
        self.streams += 1
        self._opened = self._heard = time.monotonic()
        try:
            events = self.source.watch("Workload", self.namespace, self.version, self.seconds, stop=self.stop)
            first = next(events)  # the request is sent here (a generator): its 410 comes back now
        except StopIteration:
            self._events = None
            self._ended()
            return True
        except ListExpired:
            self.relist_expired()
            return False
        self._events = _typed(_prepend(first, events))
        return True

    def _drop(self) -> None:
        """A stream that says nothing past its timeoutSeconds (a connection lost on the way): closed, resumed."""
        events, self._events = self._events, None
        if events is not None:
            events.close()

    def _ended(self) -> None:
        """The server ended the stream: the next resumes from the last version (after a pause that grows
        when streams keep ending at once)."""
        self._events = None
        if time.monotonic() - self._opened < QUICK:
            self._quick += 1
            self.stop.wait(min(2.0, 0.05 * 2 ** self._quick))


def _prepend(first: Any, rest: Iterator[Any]) -> Generator[Any, None, None]:
    yield first
    yield from rest


class _typed:  # noqa: N801 - an iterator, named as the generator it replaces
    """The stream's (type, object) events parsed where they arrive (kube.watch_event), None (a quiet moment)
    as it is; closing it closes the stream."""

    def __init__(self, events: Generator[Any, None, None]) -> None:
        self.events = events

    def __iter__(self) -> _typed:
        return self

    def __next__(self) -> WatchEvent | None:
        e = next(self.events)
        return None if e is None else watch_event(*e)

    def close(self) -> None:
        self.events.close()


def follow(state: Follow, diagnose: Callable[[], Rows], show: Callable[[Rows, Rows], None]) -> None:
    """Show the first rows, then after every burst of changes diagnose again and show what differs, until
    the state's rounds are done (or Ctrl-C)."""
    rows = diagnose()
    show({}, rows)
    state.relist()
    try:
        while True:
            box = _next(state)
            if "error" in box:
                raise box["error"]
            if not box["changed"]:
                return
            new = diagnose()
            if new != rows:
                show(rows, new)
                rows = new
    finally:
        state.close()


def _next(state: Follow) -> dict[str, Any]:
    """The next burst, read in a worker thread (it never takes SIGINT; the main thread looks for Ctrl-C every
    interrupt.SLICE seconds): {"changed": bool} or {"error": e}."""
    from kubectl_pd import interrupt

    box: dict[str, Any] = {}

    def one() -> None:
        try:
            box["changed"] = state.next_change()
        except BaseException as e:  # noqa: B036 - handed back to the main thread
            box["error"] = e

    interrupt.join(interrupt.thread(one, "kubectl-pd-watch"))
    return box
