"""A held HTTP answer read as it arrives: the body of a watch (`why-pending -A --watch`), line by line.

cluster/http.Transport reads an answer whole, within a deadline; a watch's answer lasts minutes, so this opens
its own connection through the same pool route, TLS context and credentials, reads the status and headers
within the request deadline, then the body a piece at a time with a short socket timeout per recv (READ_SLICE),
so that the reader notices a stop within a fraction of a second while nothing arrives. A partial line is kept
until its end comes; a line longer than MAX_EVENT is refused (bounded memory). Chunked bodies,
Content-Length bodies and bodies that run to the close are read (Go's net/http reads all three).
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator

from kubectl_pd.cluster import wire
from kubectl_pd.cluster.pool import netloc
from kubectl_pd.cluster.urls import split

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

READ_SLICE = 0.25  # seconds one recv waits before the reader looks at its stop flag (and yields a tick)
MAX_EVENT = 16 << 20  # bytes of one line (one watch event): a Workload is far below


class Stopped(Exception):
    """The reader was asked to stop."""


class EventTooLarge(OSError):
    """One line of a watch (one event) past MAX_EVENT: its own bound, which KUBECTL_PD_MAX_RESPONSE_SIZE (the
    bound on a whole answer) does not change. Said as an OSError's text, as a failed stream's cause is."""

    def __init__(self) -> None:
        import errno

        super().__init__(errno.EMSGSIZE, f"one watch event (one line of the stream) past {MAX_EVENT} bytes, "
                                         f"the bound on one event")


class Held:
    """An answer whose status and headers were read; `lines()` reads its body as it comes, `close()` ends it."""

    def __init__(self, conn: wire.Connection, status: int, headers: dict[str, str]) -> None:
        self.conn, self.status, self.headers = conn, status, headers

    def whole(self, bound: int = 1 << 20) -> bytes:
        """The rest of a short answer (an error's Status), read to its end."""
        assert self.conn._in is not None
        self.conn.settimeout(10.0)
        try:
            data, _close = wire._body(self.conn._in, "GET", self.status, self.headers)
        finally:
            self.close()
        return bytes(data[:bound])

    def lines(self, stop: threading.Event | None) -> Iterator[bytes | None]:
        """Each complete line of the body as it arrives (without its ending), and None each READ_SLICE in which
        nothing came (a tick: the caller's clock runs). Ends at the body's end; Stopped when `stop` is set."""
        pending = bytearray()
        try:
            for piece in self._pieces(stop):
                if piece is None:
                    yield None
                    continue
                pending += piece
                while (end := pending.find(b"\n")) >= 0:
                    if end > MAX_EVENT:  # a whole line may come in one piece: bounded all the same
                        raise EventTooLarge()
                    line = bytes(pending[:end]).rstrip(b"\r")
                    del pending[:end + 1]
                    if line.strip():
                        yield line
                if len(pending) > MAX_EVENT:
                    raise EventTooLarge()
            if pending.strip():
                yield bytes(pending)
        finally:
            self.close()

    def _pieces(self, stop: threading.Event | None) -> Iterator[bytes | None]:
        reader = self.conn._in
        assert reader is not None
        self.conn.settimeout(READ_SLICE)
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            while True:
                size_line = yield from _patient(lambda: wire._line(reader), stop)
                if not size_line:
                    raise wire.Incomplete("chunk size")
                size = wire._chunk_size(size_line)
                if size == 0:
                    return
                if size > MAX_EVENT:
                    raise wire.TooLarge(size)
                chunk = yield from _patient(lambda n=size: reader.read(n), stop)
                if len(chunk) < size:
                    raise wire.Incomplete("chunk")
                end = yield from _patient(lambda: reader.read(2), stop)
                if end != b"\r\n":
                    raise wire.Incomplete("chunk end")
                yield chunk
        length = self.headers.get("content-length")
        left = wire.ascii_uint(length) if length is not None else None
        if length is not None and left is None:
            raise wire.BadNumber(b"content-length")
        while left is None or left > 0:
            if stop is not None and stop.is_set():
                raise Stopped
            if not reader.pending:
                try:
                    more = reader._fill()
                except TimeoutError:
                    yield None
                    continue
                if not more:
                    if left:
                        raise wire.Incomplete(f"{left} bytes short")
                    return
                continue
            piece = reader._take(len(reader.buf) if left is None else min(left, len(reader.buf)))
            if left is not None:
                left -= len(piece)
            yield piece

    def close(self) -> None:
        self.conn.close()


def _patient(fn: Any, stop: threading.Event | None) -> Generator[None, None, Any]:
    """fn() retried across socket timeouts (what was read stays in the reader's buffer), a tick yielded for
    each; Stopped when asked."""
    while True:
        if stop is not None and stop.is_set():
            raise Stopped
        try:
            return fn()
        except TimeoutError:
            yield None


def open_held(transport: Any, url: str) -> Held:
    """Send a GET on a fresh connection and read its status and headers within the request deadline."""
    seconds = transport.deadline_for("GET")
    auth = transport._credentials(seconds)
    pool = transport._pool()
    parts = split(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    route = pool.route
    headers = {"Accept": "application/json", "User-Agent": "kubectl-pd", **auth}
    if route.proxy_host and route.scheme == "http":
        target = f"http://{netloc(route.host, route.port)}{target}"
        if route.proxy_auth:
            headers["Proxy-Authorization"] = route.proxy_auth
    default_port = 443 if route.scheme == "https" else 80
    host = netloc(route.host, route.port if route.port != default_port else None)
    conn = pool._new()
    try:
        conn.open(seconds)
        lines = [f"GET {target} HTTP/1.1", f"Host: {host}", "Accept-Encoding: identity"]
        lines += [f"{k}: {v}" for k, vs in headers.items() for v in ([vs] if isinstance(vs, str) else vs)]
        if any("\r" in line or "\n" in line for line in lines):
            raise ValueError("a line break inside the request line or a header")
        assert conn.sock is not None and conn._in is not None
        conn.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        for _ in range(wire.MAX_INTERIM + 1):
            _version, status = wire._status_line(conn._in)
            found = wire._headers(conn._in)
            if not 100 <= status < 200 or status == 101:
                break
        else:
            raise wire.NotHttp(b"too many 1xx answers")
    except BaseException:
        conn.close()
        raise
    if found.get("content-encoding", "").strip().lower() not in ("", "identity"):
        conn.close()
        raise wire.BadEncoding(found["content-encoding"])
    return Held(conn, status, found)
