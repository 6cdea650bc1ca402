"""A small keep-alive connection pool over our HTTP/1.1 connections (wire.py) and the standard ssl.

Why not urllib3: importing it costs about as much as the whole completion budget of a Tab press, and a
kubectl-style client needs little of it: one host, keep-alive, TLS with our own context (SNI from
tls-server-name), a forward proxy for http:// and a CONNECT tunnel for https://, no redirects.
"""

from __future__ import annotations

import base64
import os
import socket
import threading
import time

from kubectl_pd.cluster import wire
from kubectl_pd.cluster.urls import split

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:  # mypy reads records' dataclass as the standard one (same semantics)
    from dataclasses import dataclass
else:
    from kubectl_pd.records import dataclass
if TYPE_CHECKING:
    import ssl


TRACE_ENV = "KUBECTL_PD_TRACE"  # a file: each request appended as one line (bench/bench_real_groups.py reads it)
_TRACE = os.environ.get(TRACE_ENV) or None  # read once: off (the default) costs one test per request


def trace_line(path: str, t0: float, t1: float, fresh: bool, status: int, method: str) -> None:
    """One traced request: its start and end (time.monotonic, seconds), whether it opened a connection (a TCP
    connect and, for https, a TLS handshake), its status; appended whole (O_APPEND) so threads do not mix."""
    if _TRACE is None:
        return
    line = f"{t0:.6f} {t1:.6f} {int(fresh)} {status} {method} {path}\n".encode("utf-8", "replace")
    fd = os.open(_TRACE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


class ProxyUnsupported(Exception):
    """A proxy scheme this pool cannot speak (socks5, https proxies)."""


@dataclass(frozen=True)
class Route:
    """How to reach the server: the target, and the proxy in between (if any)."""

    scheme: str
    host: str
    port: int
    sni: str | None = None  # tls-server-name: the name to send and to verify
    proxy_host: str | None = None
    proxy_port: int | None = None
    proxy_auth: str | None = None  # Proxy-Authorization header value

    @staticmethod
    def of(server: str, proxy: str | None, sni: str | None) -> Route:
        parts = split(server)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if not proxy:
            return Route(parts.scheme, parts.hostname or "", port, sni)
        p = split(proxy if "://" in proxy else "http://" + proxy)
        if p.scheme != "http":
            raise ProxyUnsupported(p.scheme)
        auth = None
        if p.username:
            from urllib.parse import unquote

            raw = f"{unquote(p.username)}:{unquote(p.password or '')}".encode()
            auth = "Basic " + base64.b64encode(raw).decode()
            from kubectl_pd.termsafe import remember

            remember(p.password, unquote(p.password or ""), auth, auth.split(" ", 1)[1])
        return Route(parts.scheme, parts.hostname or "", port, sni, p.hostname, p.port or 80, auth)


class Pool:
    """Keep-alive connections to one route, reused across requests, rounds and threads: at most `size` requests
    in flight at once (a request past it waits for one to end), so at most `size` connections are ever open for
    requests, and a request never opens one while an idle one waits: a connection is handed back before its
    slot is (a request that gets a slot finds the connection that freed it), and `opened` counts the connections
    opened (each a TCP connect and, for https, a TLS handshake). A held watch (stream.py) has its own."""

    def __init__(self, route: Route, context: ssl.SSLContext | None, size: int = 8) -> None:
        self.route = route
        self.context = context
        self.size = size
        self._idle: list[wire.Connection] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)
        self.opened = 0

    def _new(self) -> wire.Connection:
        r = self.route
        if r.proxy_host and r.scheme == "https":  # a CONNECT tunnel through the proxy, then TLS inside it
            return wire.Connection(r.proxy_host, r.proxy_port or 80, context=self.context, sni=r.sni,
                                   tunnel=(r.host, r.port), tunnel_auth=r.proxy_auth)
        if r.proxy_host:  # a forward proxy for plain http
            return wire.Connection(r.proxy_host, r.proxy_port or 80)
        return wire.Connection(r.host, r.port, context=self.context if r.scheme == "https" else None, sni=r.sni)

    def request(self, method: str, path: str, body: bytes | None, headers: dict[str, str],
                timeout: float | None) -> tuple[int, dict[str, str], wire.Body]:
        """One exchange; a kept-alive connection the server closed meanwhile is replaced once (GET only)."""
        r = self.route
        target = path
        headers = dict(headers)
        if r.proxy_host and r.scheme == "http":  # a forward proxy wants the absolute URI
            target = f"http://{netloc(r.host, r.port)}{path}"
            if r.proxy_auth:
                headers["Proxy-Authorization"] = r.proxy_auth
        default_port = 443 if r.scheme == "https" else 80
        host_header = netloc(r.host, r.port) if r.port != default_port else netloc(r.host, None)
        while not self._slots.acquire(timeout=0.1):  # a slice: the main thread sees Ctrl-C meanwhile
            pass
        try:
            return self._exchange(method, target, host_header, body, headers, timeout, path)
        finally:
            self._slots.release()

    def _exchange(self, method: str, target: str, host_header: str, body: bytes | None, headers: dict[str, str],
                  timeout: float | None, path: str) -> tuple[int, dict[str, str], wire.Body]:
        for fresh in (False, True):
            conn = self._take() if not fresh else self._open()
            reused = conn.sock is not None
            t0 = time.monotonic() if _TRACE is not None else 0.0
            try:
                status, found, data, keep = conn.exchange(method, target, host_header, headers, body, timeout)
                if _TRACE is not None:
                    trace_line(path, t0, time.monotonic(), not reused, status, method)
            except (wire.Closed, BrokenPipeError, ConnectionResetError):
                conn.close()
                if reused and method == "GET":
                    continue
                raise
            except BaseException:
                conn.close()
                raise
            if keep and status != 408:
                self._give(conn)
            else:
                conn.close()
            if status == 408 and reused and method == "GET" and not fresh:
                continue  # a kept-alive connection the server timed out: Go retries the GET on a fresh one
            return status, found, data
        raise AssertionError("unreachable")

    def _take(self) -> wire.Connection:
        """An idle connection that holds nothing (whatever waits on one would be read as the next
        answer: it is closed instead), else a new one."""
        while True:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return self._open()
            if conn.usable():
                return conn
            conn.close()

    def _give(self, conn: wire.Connection) -> None:
        with self._lock:
            if len(self._idle) < self.size:
                self._idle.append(conn)
                return
        conn.close()

    def _open(self) -> wire.Connection:
        with self._lock:
            self.opened += 1
        return self._new()


def netloc(host: str, port: int | None) -> str:
    name = f"[{host}]" if ":" in host else host
    return name if port is None else f"{name}:{port}"


def format_bytes(n: int) -> str:
    for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return f"{n} bytes"


def describe(e: BaseException) -> str:
    """A short cause, never the error's text wholesale (it may carry a URL with userinfo)."""
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, socket.gaierror):
        return "host name not found"
    if isinstance(e, TimeoutError):
        return "connection timed out"
    if isinstance(e, wire.Incomplete):
        return "the body ended early"
    if isinstance(e, wire.TooLarge):
        return (f"an answer of {e.size} bytes" if e.size is not None else "an answer") + \
            f" past the bound of {format_bytes(wire.MAX_BODY)} (KUBECTL_PD_MAX_RESPONSE_SIZE)"
    if isinstance(e, wire.BadNumber):
        return "a status code, length or chunk size that is not a number in range"
    if isinstance(e, wire.BadEncoding):
        if e.encoding in ("gzip", "x-gzip"):
            return "a gzip body that does not inflate"
        return f"a body in content encoding {e.encoding[:40]!r}, which kubectl-pd does not read"
    if isinstance(e, ConnectionResetError | BrokenPipeError):
        return "connection closed"
    if isinstance(e, wire.ProtocolError):
        return "not an HTTP answer"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror.lower()
    return type(e).__name__
