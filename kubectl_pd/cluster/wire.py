"""HTTP/1.1 on one socket: a request out, a response in, the connection kept for the next one.

Why not `http.client`: importing it imports the `email` package to parse headers, about a fifth of a Tab
press counted in instructions (docs/benchmarks.md), and the API server needs none of what it brings.
What an API client needs is here: Content-Length and chunked bodies, a body that runs to the close,
keep-alive, 1xx interim answers skipped, a CONNECT tunnel through a forward proxy, bounded line lengths
and header counts, and errors that say which way the answer broke (`describe` in pool.py turns them
into words).
"""

from __future__ import annotations

import socket

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

MAX_LINE = 65536  # http.client's own bounds
MAX_HEADERS = 100


class ProtocolError(Exception):
    """The peer's bytes are not an HTTP answer we can read."""


class NotHttp(ProtocolError):
    """The status line is not `HTTP/1.x NNN ...`."""


class LineTooLong(ProtocolError):
    """A status or header line, or a chunk size, longer than MAX_LINE (or too many headers)."""


class Incomplete(ProtocolError):
    """The body ended before its length said it would."""


class Closed(ConnectionResetError):
    """The server closed the connection before any answer (a kept-alive connection it dropped)."""


class TunnelRefused(OSError):
    """The proxy answered CONNECT with something other than 200."""

    def __init__(self, status: int) -> None:
        super().__init__(f"the proxy refused the tunnel ({status})")
        self.status = status


class Connection:
    """One connection to `host:port`, opened on first use (TLS and a proxy tunnel included)."""

    def __init__(self, host: str, port: int, *, context: Any = None, sni: str | None = None,
                 tunnel: tuple[str, int] | None = None, tunnel_auth: str | None = None) -> None:
        self.host, self.port = host, port  # whom the socket dials: the server, or the proxy
        self.context, self.sni = context, sni
        self.tunnel, self.tunnel_auth = tunnel, tunnel_auth
        self.sock: socket.socket | None = None
        self._in: Any = None

    def open(self, timeout: float | None) -> None:
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tunnel is not None:
                _connect_tunnel(sock, self.tunnel, self.tunnel_auth)
            if self.context is not None:
                name = self.sni or (self.tunnel[0] if self.tunnel else self.host)
                sock = self.context.wrap_socket(sock, server_hostname=name)
        except BaseException:
            sock.close()
            raise
        self.sock, self._in = sock, sock.makefile("rb")

    def settimeout(self, timeout: float | None) -> None:
        if self.sock is not None:
            self.sock.settimeout(timeout)

    def exchange(self, method: str, target: str, host_header: str, headers: dict[str, str],
                 body: bytes | None, timeout: float | None) -> tuple[int, dict[str, str], bytes, bool]:
        """Send one request, read its answer: (status, headers lower-cased, body, keep-alive)."""
        if self.sock is None:
            self.open(timeout)
        else:
            self.settimeout(timeout)
        assert self.sock is not None
        lines = [f"{method} {target} HTTP/1.1", f"Host: {host_header}", "Accept-Encoding: identity"]
        lines += [f"{k}: {v}" for k, vs in headers.items() for v in ([vs] if isinstance(vs, str) else vs)]
        if any("\r" in line or "\n" in line for line in lines):  # as http.client: no header smuggled in
            raise ValueError("a line break inside the request line or a header")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        while True:
            version, status = _status_line(self._in)
            found = _headers(self._in)
            if not 100 <= status < 200:
                break
        data, to_close = _body(self._in, method, status, found)
        keep = not to_close and version == "HTTP/1.1" and "close" not in found.get("connection", "").lower()
        return status, found, data, keep

    def close(self) -> None:
        reader, sock, self.sock, self._in = self._in, self.sock, None, None
        if reader is not None:
            reader.close()
        if sock is not None:
            sock.close()


def _connect_tunnel(sock: socket.socket, target: tuple[str, int], auth: str | None) -> None:
    host, port = target
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [f"CONNECT {where} HTTP/1.1", f"Host: {where}"] + ([f"Proxy-Authorization: {auth}"] if auth else [])
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    reader = sock.makefile("rb")  # the proxy says nothing after its answer: TLS's client speaks first
    try:
        _, status = _status_line(reader)
        _headers(reader)
    finally:
        reader.close()  # the socket stays open
    if status != 200:
        raise TunnelRefused(status)


def _line(reader: Any) -> bytes:
    line = reader.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise LineTooLong("line")
    return line


def _status_line(reader: Any) -> tuple[str, int]:
    line = _line(reader)
    if not line:
        raise Closed("the server closed the connection without an answer")
    parts = line.decode("latin-1").rstrip("\r\n").split(None, 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or len(parts[1]) != 3 or not parts[1].isdigit():
        raise NotHttp(line[:40])
    return parts[0], int(parts[1])


def _headers(reader: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    for _ in range(MAX_HEADERS + 1):
        line = _line(reader)
        if line in (b"\r\n", b"\n", b""):
            return found
        name, sep, value = line.decode("latin-1").partition(":")
        if not sep:
            raise NotHttp(line[:40])
        found[name.strip().lower()] = value.strip()
    raise LineTooLong("headers")


def _body(reader: Any, method: str, status: int, headers: dict[str, str]) -> tuple[bytes, bool]:
    """The body, and whether the connection must close after it (a body that runs to the close)."""
    if method == "HEAD" or status in (204, 304):
        return b"", False
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return _chunked(reader), False
    length = headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise NotHttp(b"content-length")
        want = int(length)
        data = reader.read(want)
        if len(data) < want:
            raise Incomplete(f"{len(data)} of {want} bytes")
        return data, False
    return reader.read(), True


def _chunked(reader: Any) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = _line(reader)
        if not size_line:
            raise Incomplete("chunk size")
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise NotHttp(size_line[:40]) from None
        if size < 0:
            raise NotHttp(size_line[:40])
        if size == 0:
            while _line(reader) not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(parts)
        chunk = reader.read(size)
        if len(chunk) < size:
            raise Incomplete("chunk")
        parts.append(chunk)
        if reader.read(2) not in (b"\r\n",):
            raise Incomplete("chunk end")
