"""Watch support for the loopback API server (tests/apiserver.py): a scripted sequence of watch windows.

`script(server, batches)` makes every `?watch=1` request on a collection answer the next batch: a list of
(type, object) events, applied to the server's store as they are served (ADDED/MODIFIED put, DELETED removes;
APPLY puts an object of another kind without streaming it) and followed by a BOOKMARK at the new
resourceVersion; "gone" (a 410 status), or "error-gone" (a 200 whose stream is one ERROR event with code 410,
what kube-apiserver sends when the version is compacted mid-watch). When the script is done, every window is a
bookmark alone. `Script.watches` keeps each watch's query."""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.apiserver import FakeApiServer, Streamed

GONE = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410,
        "message": "too old resource version"}


class _WatchHook:
    """Takes over a FakeApiServer's watch requests (any other request goes to the server as before); each watch
    is logged and authorised as a plain request, and its query kept in `watches`."""

    def __init__(self, server: FakeApiServer) -> None:
        self.server = server
        self.watches: list[dict[str, str]] = []
        self.version = 100
        self._handle = server.handle
        server.handle = self.handle  # type: ignore[method-assign]

    def handle(self, method: str, target: str, headers: dict[str, str], raw: bytes,
               sent: list[tuple[str, str]] | None = None) -> tuple[int, Any, str]:
        query = {k: v[-1] for k, v in parse_qs(urlsplit(target).query).items()}
        if method != "GET" or query.get("watch") not in ("1", "true"):
            return self._handle(method, target, headers, raw, sent)
        self._handle(method, target.split("?")[0], headers, raw, sent)  # logged (and authorised) as a request
        self.watches.append(query)
        return self.watch()

    def watch(self) -> tuple[int, Any, str]:
        raise NotImplementedError


class Script(_WatchHook):
    def __init__(self, server: FakeApiServer, batches: list[Any], hold: float = 0.0) -> None:
        super().__init__(server)
        self.hold = hold  # seconds a window with nothing scripted is held open, as a real server holds it
        self.batches = list(batches)

    def watch(self) -> tuple[int, Any, str]:
        batch = self.batches.pop(0) if self.batches else []
        if not batch and self.hold:
            self.server._stopping.wait(self.hold)
        if batch == "gone":
            return 410, GONE, "application/json"
        if batch == "error-gone":
            return 200, (json.dumps({"type": "ERROR", "object": GONE}) + "\n").encode(), "application/json"
        lines = []
        for typ, obj in batch:
            self.version += 1
            obj = copy.deepcopy(obj)
            obj.setdefault("metadata", {})["resourceVersion"] = str(self.version)
            if typ == "APPLY":  # a change to another kind, made at this point of the script, not streamed
                self.server.put(obj)
                continue
            if typ == "DELETED":
                self.server.delete(obj["kind"], obj["apiVersion"], obj["metadata"]["name"],
                                   obj["metadata"].get("namespace", ""))
            else:
                self.server.put(obj)
            lines.append(json.dumps({"type": typ, "object": obj}))
        bookmark = {"kind": "Workload", "apiVersion": "kueue.x-k8s.io/v1beta2",
                    "metadata": {"resourceVersion": str(self.version)}}
        lines.append(json.dumps({"type": "BOOKMARK", "object": bookmark}))
        return 200, ("\n".join(lines) + "\n").encode(), "application/json"


def script(server: FakeApiServer, batches: list[Any], hold: float = 0.0) -> Script:
    return Script(server, batches, hold)


class Held(_WatchHook):
    """Watches answered as kube-apiserver answers them: one chunked stream held open, its events sent one at a
    time as the script reaches them. `steps` run in order across the watch requests:

    - ("event", TYPE, obj): applied to the store (as Script does) and sent at the next resourceVersion;
    - ("apply", obj): a change to another kind, stored, not sent;
    - ("bookmark",): a BOOKMARK at the current resourceVersion;
    - ("pause", seconds): nothing sent for that long;
    - ("close",): the server ends this stream (the next watch request goes on with the next step);
    - ("error-gone",): an ERROR event with code 410 in the stream, then its end;
    - ("gone",): the next watch request is answered 410 (a status, no stream).

    When the steps are done the stream is held open without a byte until the server stops. `watches` keeps
    each watch's query, `sent` the (time.monotonic(), type, name) of every event as it was flushed."""

    def __init__(self, server: FakeApiServer, steps: list[tuple[Any, ...]]) -> None:
        super().__init__(server)
        self.steps = list(steps)
        self.sent: list[tuple[float, str, str]] = []

    def watch(self) -> tuple[int, Any, str]:
        if self.steps and self.steps[0][0] == "gone":
            self.steps.pop(0)
            return 410, GONE, "application/json"
        return 200, Streamed(self._pieces()), "application/json"

    def _line(self, typ: str, obj: dict[str, Any]) -> bytes:
        return (json.dumps({"type": typ, "object": obj}) + "\n").encode()

    def _pieces(self) -> Any:
        import time

        while self.steps:
            step = self.steps.pop(0)
            what = step[0]
            if what == "pause":
                if self.server._stopping.wait(step[1]):
                    return
            elif what == "close":
                return
            elif what == "error-gone":
                yield self._line("ERROR", GONE)
                return
            elif what == "bookmark":
                yield self._line("BOOKMARK", {"kind": "Workload", "apiVersion": "kueue.x-k8s.io/v1beta2",
                                              "metadata": {"resourceVersion": str(self.version)}})
            elif what in ("event", "apply"):
                obj = copy.deepcopy(step[-1])
                self.version += 1
                obj.setdefault("metadata", {})["resourceVersion"] = str(self.version)
                if what == "apply":
                    self.server.put(obj)
                    continue
                typ = step[1]
                if typ == "DELETED":
                    self.server.delete(obj["kind"], obj["apiVersion"], obj["metadata"]["name"],
                                       obj["metadata"].get("namespace", ""))
                else:
                    self.server.put(obj)
                line = self._line(typ, obj)
                half = len(line) // 2  # an event split across two chunks: the reader keeps the partial line
                yield line[:half]
                yield line[half:]
                self.sent.append((time.monotonic(), typ, obj["metadata"]["name"]))
        self.server._stopping.wait()
