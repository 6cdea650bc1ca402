"""Answers broken servers and middleboxes send (issues 21 and 24), with kubectl (Go's net/http) as the reference.

- an answer is read only for a request sent on that connection: bytes after a complete answer, or waiting on
  an idle kept-alive connection, make the connection unusable (closed, a fresh one used);
- lengths, chunk sizes, status codes and Retry-After are ASCII numbers in range: a 1 PB length, one past
  2^63 or a "²" is one error, never MemoryError/OverflowError/ValueError; bodies are read a piece at a time;
- gzip bodies are read; obs-fold lines are joined; a 408 on a kept-alive connection is retried once (GET);
- Warning headers are printed as kubectl prints them, once each.
"""

from __future__ import annotations

import gzip
import io
import json
import select
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kubectl_pd.cluster import http, wire
from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.cluster.pool import Pool, Route
from kubectl_pd.errors import BrokenAnswer
from tests.apiserver import TOKEN, Fault, surplus_answer
from tests.conftest import run_kubectl
from tests.test_wire import exchange, serving

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}
CQ_LIST = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
PB = 10 ** 15


def ok(body: bytes, *extra: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\n" + b"".join(extra) + b"Content-Length: %d\r\n\r\n" % len(body) + body


# -- numbers and bounds: the error kind, never an internal error ------------------------------------

BAD_NUMBERS = [
    ("a Content-Length of 1 PB", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n{}" % PB, wire.TooLarge),
    ("a Content-Length past 2^63", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n{}" % (1 << 63), wire.BadNumber),
    ("a Content-Length of 10^5000", b"HTTP/1.1 200 OK\r\nContent-Length: 1" + b"0" * 5000 + b"\r\n\r\n",
     wire.BadNumber),
    ("a superscript two in Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: ²\r\n\r\n".encode("latin-1"),
     wire.BadNumber),
    ("a signed Content-Length", b"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n{}", wire.BadNumber),
    ("a superscript in the status code", "HTTP/1.1 2²0 OK\r\n\r\n".encode("latin-1"), wire.BadNumber),
    ("an underscore in the status code", b"HTTP/1.1 2_0 OK\r\n\r\n", wire.BadNumber),
    ("a chunk size past 2^63", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8000000000000000\r\n",
     wire.TooLarge),
    ("a chunk size of 17 hex digits", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1" + b"0" * 16 + b"\r\n",
     wire.BadNumber),
    ("a chunk size with 0x", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
     wire.BadNumber),
    ("chunks adding up past the bound", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
     + b"%x\r\n" % (wire.MAX_BODY + 1), wire.TooLarge),
    ("a content encoding we do not read", ok(b"{}", b"Content-Encoding: br\r\n"), wire.BadEncoding),
    ("a gzip body that does not inflate", ok(b"not gzip", b"Content-Encoding: gzip\r\n"), wire.BadEncoding),
    ("an obs-fold line first", b"HTTP/1.1 200 OK\r\n folded\r\nContent-Length: 0\r\n\r\n", wire.NotHttp),
    ("six 1xx answers", b"HTTP/1.1 103 Early Hints\r\n\r\n" * 6 + ok(b"{}"), wire.NotHttp),
]


@pytest.mark.parametrize(("answer", "error"), [(a, e) for _, a, e in BAD_NUMBERS], ids=[n for n, _, _ in BAD_NUMBERS])
def test_numbers_out_of_range_are_protocol_errors(answer: bytes, error: type[BaseException]) -> None:
    with serving(answer) as (port, _), pytest.raises(error):
        exchange(port)


def test_a_lying_length_allocates_only_what_came() -> None:
    """A length under the bound but far above what is sent: an Incomplete after the bytes that came, read a
    piece at a time (the reader's buffer never holds more than one piece past them)."""
    reader = wire.Reader(io.BytesIO(b"x" * 100))
    reader.sock.recv = reader.sock.read  # type: ignore[attr-defined]
    assert reader.read(wire.MAX_BODY) == b"x" * 100


def test_a_body_to_the_close_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "MAX_BODY", 1000)
    with serving(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 5000) as (port, _), pytest.raises(wire.TooLarge):
        exchange(port)


ASCII = [("5", 5), ("0", 0), (str((1 << 63) - 1), (1 << 63) - 1), (str(1 << 63), None), ("²", None), ("+5", None),
         ("-1", None), ("1_0", None), (" 5", None), ("", None), ("٣", None), ("1" * 20, None)]


@pytest.mark.parametrize(("text", "value"), ASCII)
def test_ascii_uint(text: str, value: int | None) -> None:
    assert wire.ascii_uint(text) == value


@pytest.mark.parametrize(("value", "wait"), [("3", 3.0), ("²", None), ("٣", None), ("9" * 30, None),
                                             ("99999", 3600.0), ("-1", None)])
def test_retry_after_reads_ascii_digits_only(value: str, wait: float | None) -> None:
    assert http._retry_after(http.Reply(429, b"", {"retry-after": value})) == wait


# -- what is read right ------------------------------------------------------------------------------

READ = [
    ("a gzip body", ok(gzip.compress(b'{"a":1}'), b"Content-Encoding: gzip\r\n"), b'{"a":1}'),
    ("a gzip body, chunked", b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
     + b"%x\r\n" % len(gzip.compress(b"[]")) + gzip.compress(b"[]") + b"\r\n0\r\n\r\n", b"[]"),
    ("identity spelled out", ok(b"{}", b"Content-Encoding: identity\r\n"), b"{}"),
    ("103 Early Hints skipped", b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok(b"{}"), b"{}"),
]


@pytest.mark.parametrize(("answer", "body"), [(a, b) for _, a, b in READ], ids=[n for n, _, _ in READ])
def test_answers_read(answer: bytes, body: bytes) -> None:
    with serving(answer) as (port, _):
        assert exchange(port)[:2] == (200, body)


def test_an_obs_fold_line_continues_the_header_as_go_joins_it() -> None:
    answer = b"HTTP/1.1 200 OK\r\nX-Long: one\r\n  two\r\n\tthree\r\nContent-Length: 2\r\n\r\n{}"
    with serving(answer) as (port, _):
        conn = wire.Connection("127.0.0.1", port)
        try:
            status, headers, body, _ = conn.exchange("GET", "/", "h", {}, None, 5.0)
        finally:
            conn.close()
    assert (status, headers["x-long"], body) == (200, "one two three", b"{}")


def test_repeated_warning_headers_are_all_kept() -> None:
    answer = ok(b"{}", b'Warning: 299 - "a"\r\n', b'Warning: 299 - "b"\r\n')
    with serving(answer) as (port, _):
        conn = wire.Connection("127.0.0.1", port)
        try:
            _, headers, _, _ = conn.exchange("GET", "/", "h", {}, None, 5.0)
        finally:
            conn.close()
    assert http.parse_warnings(headers["warning"]) == [(299, "a"), (299, "b")]


# -- a connection answers only what was sent on it -----------------------------------------------------

@contextmanager
def script(*answers: bytes, hold: threading.Event | None = None) -> Iterator[tuple[int, list[tuple[int, bytes]]]]:
    """A server that answers requests in order with `answers`, across connections: each request head is logged
    as (connection number, head). An answer of b"" closes that connection without answering."""
    listener = socket.create_server(("127.0.0.1", 0))
    log: list[tuple[int, bytes]] = []
    queue = list(answers)
    lock = threading.Lock()

    def serve(conn: socket.socket, number: int) -> None:
        with conn:
            while True:
                head = b""
                while b"\r\n\r\n" not in head:
                    more = conn.recv(4096)
                    if not more:
                        return
                    head += more
                with lock:
                    log.append((number, head))
                    answer = queue.pop(0) if queue else b""
                if not answer:
                    return
                conn.sendall(answer)

    def accept() -> None:
        number = 0
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn, number), daemon=True).start()
            number += 1

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1], log
    finally:
        listener.close()


def pool_for(port: int) -> Pool:
    return Pool(Route.of(f"http://127.0.0.1:{port}", None, None), None)


def test_surplus_bytes_after_an_answer_are_never_the_next_answer() -> None:
    """The first answer carries a second complete answer after its Content-Length (an empty list): the next
    GET goes out on a fresh connection and reads its own answer (kubectl does the same)."""
    fake = surplus_answer({"kind": "PodList", "items": []})
    with script(ok(b'{"first":1}') + fake, ok(b'{"second":2}')) as (port, log):
        pool = pool_for(port)
        assert pool.request("GET", "/a", None, {}, 5.0)[2] == b'{"first":1}'
        assert pool.request("GET", "/b", None, {}, 5.0)[2] == b'{"second":2}'
    assert [n for n, _ in log] == [0, 1]


def test_bytes_that_arrive_on_an_idle_connection_make_it_unusable() -> None:
    """Bytes sent after the answer, while the connection waits in the pool (a 408 a server sends on an idle
    connection, or garbage): the connection is closed, the request goes out on a fresh one."""
    late = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    with serving(ok(b"{}"), close_after=False) as (port, _):
        pool = pool_for(port)
        pool.request("GET", "/a", None, {}, 5.0)
        idle = pool._idle[0]
    # the same connection object, reconnected to a server that talks first, stands for that moment
    with script(ok(b'{"fresh":1}')) as (port2, log):
        talker = socket.create_server(("127.0.0.1", 0))
        client = socket.create_connection(talker.getsockname()[:2])
        server_side, _ = talker.accept()
        server_side.sendall(late)
        assert select.select([client], [], [], 5.0)[0]  # wait for the bytes, not for the clock
        idle.sock, idle._in = client, wire.Reader(client)
        pool = pool_for(port2)
        pool._idle.append(idle)
        assert pool.request("GET", "/b", None, {}, 5.0)[2] == b'{"fresh":1}'
        assert idle.sock is None and len(log) == 1
        server_side.close()
        talker.close()


def test_a_408_on_a_kept_alive_connection_is_retried_once_for_a_get() -> None:
    timed_out = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    with script(ok(b"1"), timed_out, ok(b"2")) as (port, log):
        pool = pool_for(port)
        pool.request("GET", "/a", None, {}, 5.0)
        assert pool.request("GET", "/b", None, {}, 5.0)[:1] == (200,)
    assert [n for n, _ in log] == [0, 0, 1]


def test_a_408_to_a_post_is_not_retried() -> None:
    timed_out = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    with script(ok(b"1"), timed_out, ok(b"2")) as (port, log):
        pool = pool_for(port)
        pool.request("GET", "/a", None, {}, 5.0)
        assert pool.request("POST", "/b", b"{}", {}, 5.0)[0] == 408
    assert len(log) == 2


def test_a_408_on_a_fresh_connection_is_the_answer() -> None:
    timed_out = b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n"
    with script(timed_out, ok(b"2")) as (port, log):
        assert pool_for(port).request("GET", "/a", None, {}, 5.0)[0] == 408
    assert len(log) == 1


# -- through the live source: one error of one class ----------------------------------------------------

def _source(port: int, tmp_path: Path) -> LiveSource:
    kc = tmp_path / "kc"
    kc.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "raw",
        "clusters": [{"name": "raw", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": "raw", "context": {"cluster": "raw", "user": "u"}}]}))
    return LiveSource(ClusterOptions(kubeconfig=str(kc), request_timeout=5.0))


@pytest.mark.parametrize(("answer", "error"), [(a, e) for _, a, e in BAD_NUMBERS], ids=[n for n, _, _ in BAD_NUMBERS])
def test_each_broken_answer_is_a_broken_answer_error(tmp_path: Path, answer: bytes, error: type) -> None:
    with serving(answer) as (port, _), pytest.raises(BrokenAnswer) as caught:
        _source(port, tmp_path).list("Namespace")
    assert "\n" not in caught.value.message


def test_the_cli_says_one_line_for_a_petabyte_length(cli: Callable, tmp_path: Path) -> None:
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n{}" % PB
    with serving(answer) as (port, _):
        src = _source(port, tmp_path)
        r = cli(["lint", "--request-timeout", "5s"], env={"KUBECONFIG": src.opts.kubeconfig or ""})
    lines = [ln for ln in r.stderr.splitlines() if ln]
    assert r.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr
    assert str(PB) in lines[0]


# -- Warning headers, as kubectl prints them ------------------------------------------------------------

WARNINGS = [
    ('299 - "a"', [(299, "a")]),
    ('299 - "a", 299 - "b"', [(299, "a"), (299, "b")]),
    ('299 kube-apiserver "x \\"q\\" y" "Mon, 01 Jan 2026 00:00:00 GMT"', [(299, 'x "q" y')]),
    ('199 agent "misc"', [(199, "misc")]),
    ('299 - "ok", garbage', [(299, "ok")]),
    ('299 - unquoted', []),
    ('29 - "short code"', []),
    ('299 - "caf\xc3\xa9"', [(299, "café")]),
]


@pytest.mark.parametrize(("value", "parsed"), WARNINGS)
def test_warning_headers_parse_like_apimachinery(value: str, parsed: list[tuple[int, str]]) -> None:
    assert http.parse_warnings(value) == parsed


def test_warnings_are_printed_once_each_and_only_299() -> None:
    out, warned = io.StringIO(), set[str]()
    http.print_warnings('299 - "a", 199 - "b", 299 - "a", 299 - ""', warned, out)
    http.print_warnings('299 - "a", 299 - "c\x1b[31m"', warned, out)
    assert out.getvalue().splitlines() == ["Warning: a", "Warning: c?[31m"]


def test_warnings_through_the_cli_match_kubectl(cli: Callable, apiserver: Callable) -> None:
    text = "kueue.x-k8s.io/v1beta1 ClusterQueue is deprecated"
    _, env = apiserver(CQ, headers={"Warning": f'299 - "{text}"'})
    ours = cli(["lint", "--request-timeout", "5s"], env=env)
    theirs = run_kubectl(["get", "clusterqueues.kueue.x-k8s.io", "--kubeconfig", env["KUBECONFIG"]])
    assert theirs.returncode == 0
    assert [ln for ln in theirs.stderr.splitlines() if ln.startswith("Warning")] == [f"Warning: {text}"]
    assert [ln for ln in ours.stderr.splitlines() if ln.startswith("Warning")] == [f"Warning: {text}"]


def test_a_gzip_answer_through_the_cli(cli: Callable, apiserver: Callable) -> None:
    _, plain = apiserver(CQ)
    _, zipped = apiserver(CQ, gzip=True)
    a, b = cli(["lint", "-o", "json"], env=plain), cli(["lint", "-o", "json"], env=zipped)
    assert (a.exit_code, a.stdout) == (b.exit_code, b.stdout) and "error" not in b.stderr
    # read, and said once (issue 30: gzip never asked for is no longer inflated without a word)
    said = [ln for ln in b.stderr.splitlines() if "Content-Encoding gzip" in ln]
    assert len(said) == 1 and said[0].startswith("warning: ") and "Content-Encoding" not in a.stderr


def test_a_fault_with_surplus_bytes_leaves_the_answer_right(apiserver: Callable, tmp_path: Path) -> None:
    fake = surplus_answer({"kind": "ClusterQueueList", "apiVersion": "kueue.x-k8s.io/v1beta2", "items": []})
    body = {"kind": "ClusterQueueList", "apiVersion": "kueue.x-k8s.io/v1beta2", "metadata": {}, "items": [CQ]}
    server, env = apiserver(CQ, faults=[Fault(CQ_LIST, body=body, surplus=fake)])
    src = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"]))
    assert [len(src.list("ClusterQueue")) for _ in range(3)] == [1, 1, 1]
    assert server.count(CQ_LIST) == 3


@pytest.mark.parametrize(("answer", "error"), [(a, e) for _, a, e in BAD_NUMBERS[:10]],
                         ids=[n for n, _, _ in BAD_NUMBERS[:10]])
def test_kubectl_refuses_the_same_answers(cli: Callable, apiserver: Callable, answer: bytes, error: type) -> None:
    """Through the loopback server (HTTPS, the real kubeconfig): the same refusal from kubectl and from us."""
    _, env = apiserver(CQ, faults=[Fault(CQ_LIST, raw=answer)])
    theirs = run_kubectl(["get", "clusterqueues.kueue.x-k8s.io", "--kubeconfig", env["KUBECONFIG"],
                          "--request-timeout", "10s"])
    ours = cli(["lint", "--request-timeout", "10s"], env=env)
    lines = [ln for ln in ours.stderr.splitlines() if ln]
    assert theirs.returncode == 1 and theirs.stdout == ""
    assert ours.exit_code == 1 and ours.stdout == "" and len(lines) == 1 and lines[0].startswith("error: ")
    assert TOKEN not in ours.stderr + theirs.stderr


def test_a_warning_that_echoes_the_token_is_redacted(cli: Callable, apiserver: Callable) -> None:
    """kubectl prints a Warning header as the server wrote it; we never print a credential of ours."""
    _, env = apiserver(CQ, headers={"Warning": f'299 - "bad token {TOKEN}"'})
    r = cli(["lint"], env=env)
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("Warning")] == ["Warning: bad token <redacted>"]
    assert TOKEN not in r.stdout + r.stderr


def test_kubectl_and_we_ignore_surplus_bytes(cli: Callable, apiserver: Callable) -> None:
    fake = surplus_answer({"kind": "ClusterQueueList", "apiVersion": "kueue.x-k8s.io/v1beta2", "metadata": {},
                           "items": []})
    _, env = apiserver(CQ, surplus=fake)
    theirs = run_kubectl(["get", "clusterqueues.kueue.x-k8s.io", "-o", "name", "--kubeconfig", env["KUBECONFIG"]])
    assert theirs.returncode == 0 and theirs.stdout.split() == ["clusterqueue.kueue.x-k8s.io/gpu"]
    src = LiveSource(ClusterOptions(kubeconfig=env["KUBECONFIG"]))
    assert [[o["metadata"]["name"] for o in src.list("ClusterQueue")] for _ in range(3)] == [["gpu"]] * 3


def test_the_request_log_keeps_repeated_headers(apiserver: Callable) -> None:
    """The loopback server's log keeps every request header as sent (one Impersonate-Group per group)."""
    import http.client as std
    import ssl

    server, _ = apiserver()
    ctx = ssl.create_default_context(cafile=str(server.tls.ca))
    host, port = server.url.removeprefix("https://").split(":")
    conn = std.HTTPSConnection(host, int(port), context=ctx)
    try:
        conn.putrequest("GET", "/api")
        for name, value in (("Impersonate-Group", "dev"), ("Impersonate-Group", "ops"), ("Authorization",
                                                                                         f"Bearer {TOKEN}")):
            conn.putheader(name, value)
        conn.endheaders()
        assert conn.getresponse().read()
    finally:
        conn.close()
    assert [v for k, v in server.requests[-1].headers if k.lower() == "impersonate-group"] == ["dev", "ops"]
