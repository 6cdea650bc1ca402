"""kubectl_pd.cluster.wire: what one HTTP/1.1 exchange reads from the bytes a server sends.

Each case is a canned answer served once on a loopback socket, and what `Connection.exchange` makes of
it: (status, body, keep-alive), or the error kind a caller turns into words.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from kubectl_pd.cluster import wire


@contextmanager
def serving(*answers: bytes, close_after: bool = True) -> Iterator[tuple[int, list[bytes]]]:
    """A loopback server that reads one request head per answer, sends the answer, and records the heads."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    heads: list[bytes] = []

    def run() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:  # closed without a connection: the client refused to send (a test of that)
            return
        with conn:
            for answer in answers:
                head = b""
                while b"\r\n\r\n" not in head:
                    more = conn.recv(4096)
                    if not more:
                        return
                    head += more
                heads.append(head)
                conn.sendall(answer)
            if not close_after:
                conn.recv(1)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        yield port, heads
    finally:
        listener.close()
        worker.join(5)


def exchange(port: int, method: str = "GET") -> tuple[int, bytes, bool]:
    conn = wire.Connection("127.0.0.1", port)
    try:
        status, _, body, keep = conn.exchange(method, "/api", "127.0.0.1", {"Accept": "application/json"},
                                              None, 5.0)
    finally:
        conn.close()
    return status, body, keep


OK_CASES = [
    ("content-length", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", (200, b"hello", True)),
    ("chunked, with an extension and a trailer",
     b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nhel\r\n2\r\nlo\r\n0\r\nX-T: 1\r\n\r\n",
     (200, b"hello", True)),
    ("a body that runs to the close", b"HTTP/1.1 200 OK\r\n\r\nhello", (200, b"hello", False)),
    ("Connection: close", b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", (200, b"ok", False)),
    ("HTTP/1.0 closes", b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", (200, b"ok", False)),
    ("an interim 100 is skipped", b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n",
     (201, b"", True)),
    ("204 has no body", b"HTTP/1.1 204 No Content\r\n\r\n", (204, b"", True)),
    ("a status without a reason", b"HTTP/1.1 429\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n", (429, b"", True)),
]


@pytest.mark.parametrize(("answer", "expected"), [(a, e) for _, a, e in OK_CASES], ids=[n for n, _, _ in OK_CASES])
def test_answers_read(answer: bytes, expected: tuple[int, bytes, bool]) -> None:
    with serving(answer) as (port, _):
        assert exchange(port) == expected


ERROR_CASES = [
    ("nothing at all", b"", wire.Closed),
    ("not HTTP", b"SSH-2.0-OpenSSH_9.6\r\n", wire.NotHttp),
    ("a status that is not a number", b"HTTP/1.1 OK fine\r\n\r\n", wire.NotHttp),
    ("a header line without a colon", b"HTTP/1.1 200 OK\r\nbroken\r\n\r\n", wire.NotHttp),
    ("a body shorter than its length", b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", wire.Incomplete),
    ("a chunk cut short", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nabc", wire.Incomplete),
    ("a chunk size that is not hex", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", wire.NotHttp),
    ("a negative chunk size", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", wire.NotHttp),
    ("a header line past the bound", b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000 + b"\r\n\r\n", wire.LineTooLong),
    ("too many headers", b"HTTP/1.1 200 OK\r\n" + b"X: 1\r\n" * 101 + b"\r\n", wire.LineTooLong),
    ("a length that is not a number", b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", wire.NotHttp),
]


@pytest.mark.parametrize(("answer", "error"), [(a, e) for _, a, e in ERROR_CASES], ids=[n for n, _, _ in ERROR_CASES])
def test_broken_answers_raise_their_kind(answer: bytes, error: type[BaseException]) -> None:
    with serving(answer) as (port, _), pytest.raises(error):
        exchange(port)


def test_keep_alive_reuses_the_socket_and_sends_what_kubectl_sends() -> None:
    one = b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"
    with serving(one, one, close_after=False) as (port, heads):
        conn = wire.Connection("127.0.0.1", port)
        try:
            first = conn.exchange("GET", "/a?x=1", "h:6443", {"Authorization": "Bearer t"}, None, 5.0)
            sock = conn.sock
            second = conn.exchange("POST", "/b", "h:6443", {}, b"{}", 5.0)
            assert conn.sock is sock
        finally:
            conn.close()
    assert (first[0], first[2], first[3]) == (200, b"a", True) and second[2] == b"a"
    lines = [h.split(b"\r\n") for h in heads]
    assert lines[0][:4] == [b"GET /a?x=1 HTTP/1.1", b"Host: h:6443", b"Accept-Encoding: identity",
                            b"Authorization: Bearer t"]
    assert b"Content-Length: 2" in lines[1] and heads[1].endswith(b"\r\n\r\n{}")


def test_a_tunnel_the_proxy_refuses() -> None:
    with serving(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n") as (port, heads):
        conn = wire.Connection("127.0.0.1", port, tunnel=("kube.example", 6443), tunnel_auth="Basic eDp5")
        with pytest.raises(wire.TunnelRefused) as refused:
            conn.open(5.0)
    assert refused.value.status == 407
    assert heads[0].split(b"\r\n")[:3] == [b"CONNECT kube.example:6443 HTTP/1.1", b"Host: kube.example:6443",
                                           b"Proxy-Authorization: Basic eDp5"]


def test_a_line_break_in_a_header_is_refused_before_sending() -> None:
    with serving(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") as (port, heads):
        conn = wire.Connection("127.0.0.1", port)
        try:
            with pytest.raises(ValueError):
                conn.exchange("GET", "/api", "h", {"Authorization": "Bearer t\r\nX-Evil: 1"}, None, 5.0)
        finally:
            conn.close()
    assert heads == []
