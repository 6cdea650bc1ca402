"""`why-pending -A --watch`: list, then watch Workloads from the list's resourceVersion (with bookmarks), and
diagnose again when one changed; a 410 (the version is too old) is answered by listing again.

What is held between windows is bounded: the resourceVersion and the last rows shown (one short row per pending
target), never the watched objects nor an event history. The watch runs in a worker thread that never takes
SIGINT; the main thread waits for it in slices (kubectl_pd/interrupt.py), so Ctrl-C stops within a second.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubectl_pd.errors import ListExpired

Row = tuple[str, str, str, str]  # (role, code, detail, kind/name) of one pending target
Rows = dict[tuple[str, str, str], Row]  # (namespace, kind, name) -> its row
WINDOW = 5  # seconds of one watch request (timeoutSeconds); the server ends it, the next resumes


def rows_of(pending: list[tuple[str, Any]], message: Callable[[Any], str]) -> Rows:
    """The rows of the pending diagnoses: what a change is measured against."""
    out: Rows = {}
    for ns, d in pending:
        r = d.reasons[0]
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


class Follow:
    """The state of one watch: the resourceVersion to resume from, and what the windows saw."""

    def __init__(self, source: Any, namespace: str | None, window: int = WINDOW) -> None:
        self.source = source
        self.namespace = namespace
        self.window = window
        self.version = ""
        self.relists = 0

    def relist(self) -> None:
        self.version = self.source.list_version("Workload", self.namespace)
        self.relists += 1

    def window_changed(self) -> bool:
        """One watch window; whether a Workload was added, changed or deleted (or the watch had to relist)."""
        if not self.version:
            self.relist()
        try:
            events = self.source.watch("Workload", self.namespace, self.version, self.window)
        except ListExpired:
            self.relist()
            return True
        changed = False
        for typ, obj in events:
            rv = (obj.get("metadata") or {}).get("resourceVersion") if isinstance(obj, dict) else None
            if isinstance(rv, str) and rv:
                self.version = rv
            changed = changed or typ in ("ADDED", "MODIFIED", "DELETED")
        return changed


def follow(state: Follow, diagnose: Callable[[], Rows], show: Callable[[Rows, Rows], None],
           rounds: int | None = None) -> None:
    """Show the first rows, then after every window in which something changed diagnose again and show what
    differs; `rounds` windows at most (None: until Ctrl-C)."""
    rows = diagnose()
    show({}, rows)
    state.relist()
    n = 0
    while rounds is None or n < rounds:
        n += 1
        box = _window(state)
        if "error" in box:
            raise box["error"]
        if box.get("changed"):
            new = diagnose()
            if new != rows:
                show(rows, new)
                rows = new


def _window(state: Follow) -> dict[str, Any]:
    """One window in a worker thread (it never takes SIGINT): {"changed": bool} or {"error": e}."""
    from kubectl_pd import interrupt

    box: dict[str, Any] = {}

    def one() -> None:
        try:
            box["changed"] = state.window_changed()
        except BaseException as e:  # noqa: B036 - handed back to the main thread
            box["error"] = e

    interrupt.join(interrupt.thread(one, "kubectl-pd-watch"))
    return box
