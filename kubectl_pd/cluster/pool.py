"""A small keep-alive connection pool over the standard library's http.client and ssl.

Why not urllib3: importing it costs about as much as the whole completion budget of a Tab press, and a
kubectl-style client needs little of it: one host, keep-alive, TLS with our own context (SNI from
tls-server-name), a forward proxy for http:// and a CONNECT tunnel for https://, no redirects.
"""

from __future__ import annotations

import base64
import http.client
import socket
import ssl
import threading
from urllib.parse import unquote, urlsplit

from kubectl_pd.records import dataclass


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
        parts = urlsplit(server)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if not proxy:
            return Route(parts.scheme, parts.hostname or "", port, sni)
        p = urlsplit(proxy if "://" in proxy else "http://" + proxy)
        if p.scheme != "http":
            raise ProxyUnsupported(p.scheme)
        auth = None
        if p.username:
            raw = f"{unquote(p.username)}:{unquote(p.password or '')}".encode()
            auth = "Basic " + base64.b64encode(raw).decode()
        return Route(parts.scheme, parts.hostname or "", port, sni, p.hostname, p.port or 80, auth)


class _TLSConnection(http.client.HTTPSConnection):
    """HTTPS whose SNI and verified name may differ from the host dialled (tls-server-name)."""

    def __init__(self, *args: object, sni: str | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._sni = sni

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)  # TCP (and the proxy's CONNECT tunnel)
        name = self._sni or self._tunnel_host or self.host
        self.sock = self._context.wrap_socket(self.sock, server_hostname=name)  # type: ignore[attr-defined]


class Pool:
    """Idle connections to one route, reused across requests and threads."""

    def __init__(self, route: Route, context: ssl.SSLContext | None, size: int = 8) -> None:
        self.route = route
        self.context = context
        self.size = size
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def _new(self, timeout: float | None) -> http.client.HTTPConnection:
        r = self.route
        host, port = (r.proxy_host, r.proxy_port) if r.proxy_host else (r.host, r.port)
        if r.scheme == "https":
            conn: http.client.HTTPConnection = _TLSConnection(host, port, timeout=timeout, context=self.context,
                                                              sni=r.sni)
            if r.proxy_host:
                headers = {"Proxy-Authorization": r.proxy_auth} if r.proxy_auth else None
                conn.set_tunnel(r.host, r.port, headers=headers)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        return conn

    def request(self, method: str, path: str, body: bytes | None, headers: dict[str, str],
                timeout: float | None) -> tuple[int, dict[str, str], bytes]:
        """One exchange; a kept-alive connection the server closed meanwhile is replaced once (GET only)."""
        r = self.route
        target = path
        headers = dict(headers)
        if r.proxy_host and r.scheme == "http":  # a forward proxy wants the absolute URI
            target = f"http://{_netloc(r.host, r.port)}{path}"
            if r.proxy_auth:
                headers["Proxy-Authorization"] = r.proxy_auth
        for fresh in (False, True):
            conn = self._take(timeout) if not fresh else self._new(timeout)
            reused = not fresh and conn.sock is not None
            try:
                conn.request(method, target, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                conn.close()
                if reused and method == "GET":
                    continue
                raise
            except BaseException:
                conn.close()
                raise
            if resp.will_close:
                conn.close()
            else:
                self._give(conn)
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        raise AssertionError("unreachable")

    def _take(self, timeout: float | None) -> http.client.HTTPConnection:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            return self._new(timeout)
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _give(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < self.size:
                self._idle.append(conn)
                return
        conn.close()


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def describe(e: BaseException) -> str:
    """A short cause, never the error's text wholesale (it may carry a URL with userinfo)."""
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, socket.gaierror):
        return "host name not found"
    if isinstance(e, TimeoutError):
        return "connection timed out"
    if isinstance(e, http.client.IncompleteRead):
        return "the body ended early"
    if isinstance(e, http.client.RemoteDisconnected | ConnectionResetError | BrokenPipeError):
        return "connection closed"
    if isinstance(e, http.client.BadStatusLine | http.client.LineTooLong):
        return "not an HTTP answer"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror.lower()
    return type(e).__name__
