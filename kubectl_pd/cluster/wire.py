"""HTTP/1.1 on one socket: a request out, a response in, the connection kept for the next one.

Why not `http.client`: importing it imports the `email` package to parse headers, about a fifth of a Tab
press counted in instructions (docs/benchmarks.md), and the API server needs none of what it brings.
What an API client needs is here: Content-Length and chunked bodies, a body that runs to the close,
keep-alive, 1xx interim answers skipped, obs-fold header lines, a gzip body a middlebox added, a CONNECT
tunnel through a forward proxy, bounded line lengths, header counts and body sizes, and errors that say
which way the answer broke (`describe` in pool.py turns them into words).

Reading rules (Go's net/http, which kubectl uses, where it is stricter than http.client):
- a connection answers only what was sent on it: bytes that wait on an idle connection, or that follow
  a complete answer, make it unusable (`Connection.usable`, and keep-alive is refused after the answer);
- numbers are ASCII digits only (`str.isdigit` takes "²"), a status has exactly three, a length fits in
  a signed 64-bit integer and a chunk size in 16 hex digits;
- a body is read a piece at a time and never past MAX_BODY, whatever its length claims, into one growing
  buffer handed over as it is (a `bytearray`, never copied into `bytes`): a bad answer (a body cut at the
  bound, a gzip bomb, one huge chunk) costs the bound once, not a second time for a copy or a join (issue 42
  N7; tests/test_answer_memory_bound.py measures it).
The differential test against http.client is tests/test_http_wire_property.py.
"""

from __future__ import annotations

import socket

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

MAX_LINE = 65536  # http.client's own bounds
MAX_HEADERS = 100
MAX_INTERIM = 5  # Go's bound on 1xx answers before the real one
MAX_BODY = 512 << 20  # one answer, decoded (gzip inflated under it too): a page of 500 objects is far below;
#   KUBECTL_PD_MAX_RESPONSE_SIZE sets it (http.response_limit)
MAX_INT64 = (1 << 63) - 1  # Go's bound for a Content-Length
Body = bytes | bytearray  # an answer's body: the buffer it was read into, handed over uncopied
_PIECE = 1 << 16  # bytes asked of the socket at a time
_INFLATE_PIECE = 1 << 22  # bytes inflated at a time
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")


class ProtocolError(Exception):
    """The peer's bytes are not an HTTP answer we can read."""


class NotHttp(ProtocolError):
    """The status line is not `HTTP/1.x NNN ...`, or a header line is not `name: value`."""


class BadNumber(NotHttp):
    """A status code, Content-Length or chunk size that is not a number in range (ASCII digits only)."""


class LineTooLong(ProtocolError):
    """A status or header line, or a chunk size, longer than MAX_LINE (or too many headers)."""


class TooLarge(ProtocolError):
    """A body longer than MAX_BODY (announced or read)."""

    def __init__(self, size: int | None) -> None:
        super().__init__(f"more than {MAX_BODY} bytes" if size is None else f"{size} bytes")
        self.size = size


class Incomplete(ProtocolError):
    """The body ended before its length said it would."""


class BadEncoding(ProtocolError):
    """A Content-Encoding other than identity or gzip, or a gzip body that does not decode."""

    def __init__(self, encoding: str) -> None:
        super().__init__(encoding)
        self.encoding = encoding


class Closed(ConnectionResetError):
    """The server closed the connection before any answer (a kept-alive connection it dropped)."""


class TunnelRefused(OSError):
    """The proxy answered CONNECT with something other than 200."""

    def __init__(self, status: int) -> None:
        super().__init__(f"the proxy refused the tunnel ({status})")
        self.status = status


def ascii_uint(text: str, limit: int = MAX_INT64) -> int | None:
    """`text` as a non-negative integer when it is ASCII digits only and at most `limit`, else None
    (no sign, no underscore, no "²": what Go's strconv.ParseUint and the HTTP grammar accept)."""
    if not text or len(text) > 19 or not _DIGITS.issuperset(text):
        return None
    value = int(text)
    return value if value <= limit else None


class Reader:
    """A byte buffer over a socket: lines and exact lengths, never more from the socket than one piece
    past what was asked, and what is left over stays visible (`pending`)."""

    __slots__ = ("sock", "buf")

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.buf = bytearray()

    def _fill(self) -> bool:
        data = self.sock.recv(_PIECE)
        if not data:
            return False
        self.buf += data
        return True

    def readline(self, limit: int) -> bytes:
        """One line with its ending, or up to `limit` bytes without one, or what is left at the close."""
        start = 0
        while True:
            end = self.buf.find(b"\n", start, limit)
            if end >= 0:
                return self._take(end + 1)
            if len(self.buf) >= limit:
                return self._take(limit)
            start = len(self.buf)
            if not self._fill():
                return self._take(len(self.buf))

    def read(self, n: int) -> bytes:
        """Up to `n` bytes: fewer only when the peer closed first. Read a piece at a time (the caller
        bounds n), so a length that lies allocates nothing ahead of the bytes that really came."""
        while len(self.buf) < n:
            if not self._fill():
                break
        return self._take(min(n, len(self.buf)))

    def read_all(self, bound: int) -> bytearray:
        """Everything up to the close, refused past `bound` bytes: the buffer itself, handed over uncopied."""
        while len(self.buf) <= bound:
            if not self._fill():
                out, self.buf = self.buf, bytearray()
                return out
        raise TooLarge(None)

    def move(self, n: int, out: bytearray) -> int:
        """Up to `n` bytes appended to `out` (fewer only when the peer closed first), a piece at a time: the
        buffer never holds more than one piece of them, so nothing is held twice. The count moved."""
        moved = 0
        while moved < n:
            if not self.buf and not self._fill():
                break
            take = min(n - moved, len(self.buf))
            with memoryview(self.buf) as view:
                out += view[:take]
            del self.buf[:take]  # from the front: bytearray moves its start, nothing is copied
            moved += take
        return moved

    def _take(self, n: int) -> bytes:
        if n >= len(self.buf):  # the whole buffer: one copy
            out = bytes(self.buf)
            self.buf.clear()
            return out
        with memoryview(self.buf) as view:
            out = bytes(view[:n])
        del self.buf[:n]
        return out

    @property
    def pending(self) -> bool:
        return bool(self.buf)


def idna_free(host: str) -> str | bytes:
    """`host` as `socket` and `ssl` would send it, as bytes when that needs no IDNA codec. Both encode a
    str host with the codec, and loading it (with `unicodedata` and `stringprep`) is about 5 M instructions,
    1.5% of a live diagnosis. For an ASCII name the codec gives its bytes unchanged, or refuses an empty
    label or one of 64 characters or more (UnicodeError): such a name stays a str, to be refused there."""
    if host.isascii():
        labels = host.split(".")
        if all(0 < len(label) < 64 for label in labels[:-1]) and len(labels[-1]) < 64:
            return host.encode("ascii")
    return host


class Connection:
    """One connection to `host:port`, opened on first use (TLS and a proxy tunnel included)."""

    def __init__(self, host: str, port: int, *, context: Any = None, sni: str | None = None,
                 tunnel: tuple[str, int] | None = None, tunnel_auth: str | None = None) -> None:
        self.host, self.port = host, port  # whom the socket dials: the server, or the proxy
        self.context, self.sni = context, sni
        self.tunnel, self.tunnel_auth = tunnel, tunnel_auth
        self.sock: socket.socket | None = None
        self._in: Reader | None = None

    def open(self, timeout: float | None) -> None:
        sock = socket.create_connection((idna_free(self.host), self.port), timeout=timeout)  # type: ignore[arg-type]
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tunnel is not None:
                _connect_tunnel(sock, self.tunnel, self.tunnel_auth)
            if self.context is not None:
                name = self.sni or (self.tunnel[0] if self.tunnel else self.host)
                sock = self.context.wrap_socket(sock, server_hostname=idna_free(name))
        except BaseException:
            sock.close()
            raise
        self.sock, self._in = sock, Reader(sock)

    def settimeout(self, timeout: float | None) -> None:
        if self.sock is not None:
            self.sock.settimeout(timeout)

    def usable(self) -> bool:
        """An idle open connection is usable only when nothing waits on it: not bytes the server sent
        unasked (they would be read as the next answer), not its close, not a 408 it sent while idle."""
        sock, reader = self.sock, self._in
        if sock is None or reader is None:
            return False
        if reader.pending:
            return False
        pending = getattr(sock, "pending", None)  # bytes TLS has decrypted and holds
        if pending is not None and pending():
            return False
        import select

        try:
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return not poller.poll(0)
        except (OSError, ValueError):
            return False

    def exchange(self, method: str, target: str, host_header: str, headers: dict[str, str],
                 body: bytes | None, timeout: float | None) -> tuple[int, dict[str, str], Body, bool]:
        """Send one request, read its answer: (status, headers lower-cased, body, keep-alive)."""
        lines = [f"{method} {target} HTTP/1.1", f"Host: {host_header}", "Accept-Encoding: identity"]
        lines += [f"{k}: {v}" for k, vs in headers.items() for v in ([vs] if isinstance(vs, str) else vs)]
        if any("\r" in line or "\n" in line for line in lines):  # as http.client: no header smuggled in
            raise ValueError("a line break inside the request line or a header")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        if self.sock is None:
            self.open(timeout)
        else:
            self.settimeout(timeout)
        assert self.sock is not None and self._in is not None
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        return read_answer(self._in, method)

    def close(self) -> None:
        reader, sock, self.sock, self._in = self._in, self.sock, None, None
        if reader is not None:
            reader.buf.clear()
        if sock is not None:
            sock.close()


def read_answer(reader: Reader, method: str) -> tuple[int, dict[str, str], Body, bool]:
    """The answer to the one request just sent: (status, headers, decoded body, keep-alive). Keep-alive
    is refused when bytes follow the answer: they answer nothing that was asked."""
    for _ in range(MAX_INTERIM + 1):  # 1xx interim answers are skipped (101 is final), as Go does
        version, status = _status_line(reader)
        found = _headers(reader)
        if not 100 <= status < 200 or status == 101:
            break
    else:
        raise NotHttp(b"too many 1xx answers")
    data, to_close = _body(reader, method, status, found)
    encoding = found.get("content-encoding", "").strip().lower()
    if encoding and encoding != "identity" and data:
        data = _decode(data, encoding)
    keep = (not to_close and version == "HTTP/1.1" and "close" not in found.get("connection", "").lower()
            and not reader.pending)
    return status, found, data, keep


def _decode(data: Body, encoding: str) -> Body:
    """A gzip body (sent although we asked for identity: a middlebox), inflated under MAX_BODY into one
    growing buffer (no join of the pieces at the end: that would hold the answer twice)."""
    if encoding not in ("gzip", "x-gzip"):
        raise BadEncoding(encoding)
    import zlib

    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = bytearray()
    rest: Body = data
    try:
        while True:  # a piece at a time: a bomb is refused at the bound, holding no more than it
            piece = inflate.decompress(rest, _INFLATE_PIECE)
            if len(out) + len(piece) > MAX_BODY:
                raise TooLarge(None)
            out += piece
            del piece
            rest = inflate.unconsumed_tail
            if not rest:
                break
    except zlib.error:
        raise BadEncoding(encoding) from None
    if not inflate.eof or inflate.unused_data:
        raise BadEncoding(encoding)
    return out


def _connect_tunnel(sock: socket.socket, target: tuple[str, int], auth: str | None) -> None:
    host, port = target
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [f"CONNECT {where} HTTP/1.1", f"Host: {where}"] + ([f"Proxy-Authorization: {auth}"] if auth else [])
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    reader = Reader(sock)
    _, status = _status_line(reader)
    _headers(reader)
    if status != 200:
        raise TunnelRefused(status)
    if reader.pending:  # the proxy says nothing after its answer: TLS's client speaks first
        raise NotHttp(b"bytes after the proxy's answer")


def _line(reader: Reader) -> bytes:
    line = reader.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise LineTooLong("line")
    return line


def _status_line(reader: Reader) -> tuple[str, int]:
    line = _line(reader)
    if not line:
        raise Closed("the server closed the connection without an answer")
    parts = line.decode("latin-1").rstrip("\r\n").split(None, 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        raise NotHttp(line[:40])
    status = ascii_uint(parts[1], 999) if len(parts[1]) == 3 else None
    if status is None or status < 100:
        raise BadNumber(line[:40])
    return parts[0], status


def _headers(reader: Reader) -> dict[str, str]:
    """Header lines, names lower-cased; an obs-fold line continues the previous value (joined with a
    space, as Go's textproto does); a repeated name keeps the last value, except Warning, whose values
    are all kept (comma-joined, as a list header may be)."""
    found: dict[str, str] = {}
    last = ""
    for _ in range(MAX_HEADERS + 1):
        line = _line(reader)
        if line in (b"\r\n", b"\n", b""):
            return found
        text = line.decode("latin-1").rstrip("\r\n")
        if text[:1] in (" ", "\t"):
            if not last:
                raise NotHttp(line[:40])
            found[last] = (found[last] + " " + text.strip(" \t")).strip(" \t")
            continue
        name, sep, value = text.partition(":")
        name = name.strip().lower()
        if not sep or not name:
            raise NotHttp(line[:40])
        value = value.strip(" \t")
        if name == "warning" and found.get(name):
            value = found[name] + ", " + value
        found[name] = value
        last = name
    raise LineTooLong("headers")


def _body(reader: Reader, method: str, status: int, headers: dict[str, str]) -> tuple[Body, bool]:
    """The body, and whether the connection must close after it (a body that runs to the close)."""
    if method == "HEAD" or status in (204, 304):
        return b"", False
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return _chunked(reader), False
    length = headers.get("content-length")
    if length is not None:
        want = ascii_uint(length)
        if want is None:
            raise BadNumber(b"content-length")
        if want > MAX_BODY:
            raise TooLarge(want)
        data = bytearray()
        if reader.move(want, data) < want:
            raise Incomplete(f"{len(data)} of {want} bytes")
        return data, False
    return reader.read_all(MAX_BODY), True


def _chunk_size(line: bytes) -> int:
    digits = line.split(b";", 1)[0].strip(b" \t\r\n").decode("latin-1")
    if not digits or not _HEX.issuperset(digits):
        raise BadNumber(line[:40])
    if len(digits) > 16:  # Go: "http chunk length too large" (leading zeros count)
        raise BadNumber(line[:40])
    return int(digits, 16)


def _chunked(reader: Reader) -> bytearray:
    out = bytearray()
    while True:
        size_line = _line(reader)
        if not size_line:
            raise Incomplete("chunk size")
        size = _chunk_size(size_line)
        if size == 0:
            while _line(reader) not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return out
        if len(out) + size > MAX_BODY:
            raise TooLarge(None)
        if reader.move(size, out) < size:
            raise Incomplete("chunk")
        if reader.read(2) not in (b"\r\n",):
            raise Incomplete("chunk end")
