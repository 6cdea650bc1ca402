"""A small, real HTTP Kubernetes API server on loopback, for integration tests.

It serves discovery, GET/list (namespaced, cluster-scoped and all-namespaces) with label and field
selectors and pagination, POST with 409 and dryRun, Status bodies for 401/403/404/409, raw paths
(the visibility API), and keeps a log of every request so a test can assert "only GETs were sent"
or "no request at all". kubectl-pd and the real kubectl talk to it through a real kubeconfig, over
HTTPS by default.

Knobs (fields of FakeApiServer; other helpers' tests use them):
- `forbid=[Forbid(verb, plural, namespace)]`: 403 with the API server's Status for that verb on that
  plural, in one namespace or (namespace=None) everywhere.
- `faults=[Fault(...)]`: a canned answer for matching requests (see Fault: status, body, headers, trickle,
  close_after, hang, surplus, times; `raw=b"HTTP/1.1 ..."` sends those bytes verbatim and closes, for
  answers the server's own framing cannot make: a Content-Length of "²", a chunk size past 2^63).
- `page_size`: the largest page a list answers, whatever `limit` asks. Lists honour `limit` and answer
  with `metadata.continue` while objects remain, as the API server does; a list without `limit` is whole
  unless page_size is set.
- `expire_continues=N`: the next N list requests that carry a `continue` token answer 410 Expired
  (the Status the API server sends when a token is too old).
- `refuse_fields={"status.admission.clusterQueue"}`: a list whose field selector names one of these
  labels answers 400 BadRequest "field label not supported: <label>" (a server whose CRD does not declare
  the selectable field, e.g. a Kueue older than v0.18). Kueue's own kinds are always selected as the API
  server selects custom resources: metadata.name, metadata.namespace and the fields the CRD declares for
  that version (CRD_SELECTABLE: Workloads' `status.admission.clusterQueue` at v1beta2 only, so a v1beta1-only
  server refuses it); any other label is 400. An absent field is "" (what a CRD's selectable field
  evaluates to), so `status.admission.clusterQueue=q` selects the Workloads admitted to q.
- `surplus=b"..."`: bytes sent right after every answer, in the same write, beyond its Content-Length (a
  broken server or middlebox; `surplus_answer(...)` makes them a second complete answer). A client must
  not read them as the answer to its next request.
- `headers={...}`: headers added to every answer (e.g. `Warning: 299 - "text"`).
- `gzip=True`: every body gzip-compressed with Content-Encoding: gzip (though the client asked for
  identity, as some middleboxes do).
- `delay`, `token`, `tls`, `anonymous`, `groups`, `raw`: see the fields below.
Request log: `requests` (every request, in order: method, path, query, body, and the request headers as sent,
repeated names kept, e.g. one Impersonate-Group per group); `count(path_glob, method)`
counts those whose path matches; `lists(plural)` the list requests of one resource.
"""

from __future__ import annotations

import base64
import copy
import fnmatch
import gzip
import json
import socket
import ssl
import tempfile
import threading
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

from kubectl_pd.cluster import kinds as product_kinds
from kubectl_pd.cluster.selectors import parse_field_selector, parse_label_selector

TOKEN = "loopback-test-token-do-not-print"
USER = "system:serviceaccount:pd-tests:reader"

DEFAULT_GROUPS: dict[str, list[str]] = {
    "": ["v1"],
    "kueue.x-k8s.io": ["v1beta2", "v1beta1"],
    "worker.gpustack.ai": ["v1alpha1"],
    "apiextensions.k8s.io": ["v1"],
    "visibility.kueue.x-k8s.io": ["v1beta2", "v1beta1"],
}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: Any = None
    headers: list[tuple[str, str]] = field(default_factory=list)  # as sent, in order, repeated names kept


CLUSTER_WIDE = ""  # Forbid(..., namespace=CLUSTER_WIDE): the list across all namespaces only


@dataclass
class Forbid:
    """Answer 403 to `verb` on `plural` (in `namespace`, or anywhere when None, or only to the request across
    all namespaces when CLUSTER_WIDE)."""

    verb: str
    plural: str
    namespace: str | None = None


def _echoed(f: Fault, headers: dict[str, str]) -> Fault:
    auth = headers.get("authorization", "")
    user = ""
    if auth.startswith("Basic "):
        user = base64.b64decode(auth[6:]).decode("utf-8", "replace")
    message = (f.echo or "").replace("{auth}", auth).replace("{user}", user)
    return replace(f, echo=None, body={"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                       "message": message, "reason": "Forbidden", "code": f.status})


def _kind_info(kind: str, api_version: str) -> tuple[str, str, bool]:
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    k = product_kinds.KINDS.get(kind)
    if k is not None:
        return group, k.plural, k.namespaced
    return group, kind.lower() + "s", True


@dataclass
class Fault:
    """Answer matching requests with a fault instead of the real answer (fault-injection tests).

    `path` is an exact path or an fnmatch pattern; `times` limits how often the fault fires (then the real
    answer comes). A body is sent as is (bytes) or as JSON; `trickle` sends it a byte at a time with that
    pause; `close_after` promises the whole body in Content-Length, sends that many bytes and closes;
    `hang` waits before answering at all.
    """

    path: str
    status: int = 200
    body: Any = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    method: str = "GET"
    times: int | None = None
    trickle: float = 0.0
    close_after: int | None = None
    hang: float = 0.0
    before_auth: bool = False  # a proxy's answer: sent whatever the credentials
    surplus: bytes = b""  # sent right after the body, in the same write (not covered by Content-Length)
    raw: bytes | None = None  # the whole answer verbatim (status line, headers, body), then the close
    echo: str | None = None  # a Status body whose message is this, with {auth} (the Authorization header as
    #   sent) and {user} (a Basic header's user:password decoded) filled in: a hostile server or proxy
    stored: bool = False  # a POST: store the object first (as the API server did), then answer the fault
    length: int | None = None  # a Content-Length announced over `body`, whatever its length
    endless: bool = False  # a chunked body that never ends (chunks of `body` until the client leaves)
    skip: int = 0  # let this many matching requests through first (the third of four POSTs: skip=2)

    def matches(self, method: str, path: str) -> bool:
        return method == self.method and (path == self.path or fnmatch.fnmatchcase(path, self.path))


@dataclass
class Streamed:
    """An answer body `handle` returns to have it sent chunked, piece by piece as `pieces` yields them (a held
    watch: tests/apiserver_watch.Held)."""

    pieces: Iterable[bytes]


@dataclass
class TLS:
    """Serve HTTPS with this certificate; with `client_ca`, a client certificate it signed authenticates.

    `ca`: the CA that signed `cert`; when set, `write_kubeconfig` trusts it (certificate-authority-data).
    """

    cert: Path
    key: Path
    client_ca: Path | None = None
    ca: Path | None = None


_DEFAULT_TLS: list[TLS | None] = []


def default_tls() -> TLS | None:
    """A CA and a certificate for 127.0.0.1 and localhost, made once per process (tests/pki.py).

    The loopback server speaks HTTPS by default, as API servers do: kubectl (like client-go) does not send
    a bearer token to a plain http:// server, and neither do we.
    """
    if _DEFAULT_TLS:
        return _DEFAULT_TLS[0]
    from tests import pki

    made = pki.make(Path(tempfile.mkdtemp(prefix="loopback-pki-")))
    tls = TLS(made["server"], made["server_key"], ca=made["ca"])
    _DEFAULT_TLS.append(tls)
    return tls


@dataclass
class FakeApiServer:
    objects: list[dict[str, Any]] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=lambda: copy.deepcopy(DEFAULT_GROUPS))
    forbid: list[Forbid] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)  # path -> JSON body (200)
    delay: float = 0.0  # seconds to wait before answering any request
    token: str = TOKEN
    page_size: int | None = None  # paginate lists with `continue` when set
    faults: list[Fault] = field(default_factory=list)
    tls: TLS | bool | None = True  # True: HTTPS with the default test CA; False/None: plain HTTP
    anonymous: bool = False  # like `kubectl proxy`: a request without credentials is served
    expire_continues: int = 0  # the next N list requests with a `continue` token answer 410 Expired
    refuse_fields: set[str] = field(default_factory=set)  # field labels a list refuses with 400
    surplus: bytes = b""  # bytes after every answer, beyond its Content-Length
    headers: dict[str, str] = field(default_factory=dict)  # added to every answer
    basic: tuple[str, str] | None = None  # also accept HTTP basic auth with this user and password
    endless_pages: bool = False  # every list page hands out a new continue token (and says 1,000 remain)
    gzip: bool = False  # every body gzip-compressed (Content-Encoding: gzip)

    def __post_init__(self) -> None:
        if self.tls is True:
            self.tls = default_tls()
        elif self.tls is False:
            self.tls = None
        self.requests: list[Request] = []
        self.header_log: list[list[tuple[str, str]]] = []  # every request's header lines, repeats kept
        self._lock = threading.Lock()
        # a slow answer (delay, hang, trickle) waits on this, so stop() ends it instead of a real sleep
        self._stopping = threading.Event()
        self._store: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        self._namespaced: dict[tuple[str, str], bool] = {}
        for obj in self.objects:
            self.put(obj)
        self._httpd: ThreadingHTTPServer | None = None

    # -- object store ---------------------------------------------------------------------
    def put(self, obj: dict[str, Any]) -> None:
        group, plural, namespaced = _kind_info(obj["kind"], obj["apiVersion"])
        meta = obj.setdefault("metadata", {})
        ns = meta.get("namespace", "default") if namespaced else ""
        if namespaced:
            meta["namespace"] = ns
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("resourceVersion", "1")
        with self._lock:
            self._namespaced[(group, plural)] = namespaced
            self._store[(group, plural, ns, meta["name"])] = copy.deepcopy(obj)

    def delete(self, kind: str, api_version: str, name: str, namespace: str = "") -> None:
        group, plural, _ = _kind_info(kind, api_version)
        with self._lock:
            self._store.pop((group, plural, namespace, name), None)

    def stored(self, kind: str, api_version: str, name: str, namespace: str = "") -> dict[str, Any] | None:
        group, plural, _ = _kind_info(kind, api_version)
        with self._lock:
            obj = self._store.get((group, plural, namespace, name))
            return copy.deepcopy(obj) if obj else None

    @property
    def methods(self) -> list[str]:
        return [r.method for r in self.requests]

    def count(self, path: str = "*", method: str | None = None) -> int:
        """Requests whose path is `path` or matches it as an fnmatch pattern (and whose method is `method`)."""
        return sum(1 for r in list(self.requests) if (method is None or r.method == method)
                   and (r.path == path or fnmatch.fnmatchcase(r.path, path)))

    def lists(self, plural: str) -> list[Request]:
        """The list requests (GET on a collection) of one resource, in order."""
        return [r for r in list(self.requests) if r.method == "GET" and r.path.rstrip("/").endswith("/" + plural)]

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> FakeApiServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = 1 << 16  # one write per response: no Nagle/delayed-ACK stall per request
            disable_nagle_algorithm = True  # as Go's API server does (TLS handshakes write several records)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.header_log.append(list(self.headers.items()))
                if isinstance(server.tls, TLS) and server.tls.client_ca is not None:
                    peer = self.connection.getpeercert()  # type: ignore[attr-defined]
                    if peer:
                        headers["x-client-cert"] = "verified"
                sent = list(self.headers.items())
                fault = server.fault_for(self.command, self.path, headers, sent)
                if fault is not None:
                    if fault.stored:  # the request was applied; fault_for has logged it already
                        server.handle(self.command, self.path, headers, raw, sent)
                        server.requests.pop()
                    if fault.echo is not None:
                        fault = _echoed(fault, headers)
                    self._fault(fault)
                    return
                status, body, ctype = server.handle(self.command, self.path, headers, raw, sent)
                if isinstance(body, Streamed):
                    self._stream(status, ctype, body)
                    return
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    if server.gzip:
                        data = gzip.compress(data)
                        self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in server.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data + server.surplus)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _stream(self, status: int, ctype: str, body: Streamed) -> None:
                """A chunked answer sent as it is made: each piece `body` yields goes out (and is flushed) at
                once, as kube-apiserver sends a watch's events; the answer ends when the pieces do."""
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.wfile.flush()
                    for piece in body.pieces:
                        if piece:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                            self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except OSError:
                    self.close_connection = True

            def _fault(self, f: Fault) -> None:
                if f.hang and server._stopping.wait(f.hang):
                    return
                if f.raw is not None:
                    try:
                        self.wfile.write(f.raw)
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                data = f.body if isinstance(f.body, bytes) else json.dumps(f.body).encode()
                if f.endless or f.length is not None:
                    self._unbounded(f, data)
                    return
                try:
                    self.send_response(f.status)
                    self.send_header("Content-Type", f.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in f.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if f.close_after is not None:
                        self.wfile.write(data[:f.close_after])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    if f.trickle:
                        self.wfile.flush()
                        for i in range(len(data)):
                            self.wfile.write(data[i:i + 1])
                            self.wfile.flush()
                            if server._stopping.wait(f.trickle):
                                break
                        return
                    self.wfile.write(data + f.surplus)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    self.close_connection = True

            def _unbounded(self, f: Fault, data: bytes) -> None:
                """A body announced as `f.length` bytes, or chunked without end: `data` over and over."""
                piece = data or b" " * 65536
                try:
                    self.send_response(f.status)
                    self.send_header("Content-Type", f.content_type)
                    for k, v in f.headers.items():
                        self.send_header(k, v)
                    if f.endless:
                        self.send_header("Transfer-Encoding", "chunked")
                    else:
                        self.send_header("Content-Length", str(f.length))
                    self.end_headers()
                    sent = 0
                    while not server._stopping.is_set() and (f.endless or sent < (f.length or 0)):
                        chunk = piece if f.endless else piece[:max(0, (f.length or 0) - sent)]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if f.endless else chunk)
                        sent += len(chunk)
                except OSError:
                    pass
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.socket.listen(128)  # a real server's backlog: 5 drops the SYN of a client's 7th connection (1 s)
        if isinstance(self.tls, TLS):
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(str(self.tls.cert), str(self.tls.key))
            if self.tls.client_ca is not None:
                ctx.load_verify_locations(str(self.tls.client_ca))
                ctx.verify_mode = ssl.CERT_OPTIONAL
            self._httpd.socket = ctx.wrap_socket(self._httpd.socket, server_side=True)
        self._httpd.daemon_threads = True
        serve = self._httpd.serve_forever
        threading.Thread(target=serve, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def fault_for(self, method: str, target: str, headers: dict[str, str],
                  sent: list[tuple[str, str]] | None = None) -> Fault | None:
        """The first fault rule that fires for this request (counted, and logged like any request)."""
        path = urlsplit(target).path
        authorised = self._authorised(headers)
        for f in self.faults:
            if f.matches(method, path) and (f.before_auth or authorised) and (f.times is None or f.times > 0):
                if f.skip > 0:
                    f.skip -= 1
                    continue
                if f.times is not None:
                    f.times -= 1
                self.requests.append(Request(method, path, {k: v[-1] for k, v in
                                                            parse_qs(urlsplit(target).query).items()},
                                             headers=sent or []))
                return f
        return None

    def _authorised(self, headers: dict[str, str]) -> bool:
        if self.anonymous and "authorization" not in headers:
            return True
        if self.basic is not None and headers.get("authorization") == "Basic " + base64.b64encode(
                ":".join(self.basic).encode()).decode():
            return True
        return headers.get("authorization") == f"Bearer {self.token}" or headers.get("x-client-cert") == "verified"

    # -- kubeconfig -----------------------------------------------------------------------
    def write_kubeconfig(self, path: Path, *, namespace: str | None = None, token: str | None = None,
                         context: str = "loopback", user: dict[str, Any] | None = None,
                         cluster: dict[str, Any] | None = None) -> Path:
        """A kubeconfig for this server; `user` replaces the token user, `cluster` adds to the cluster."""
        ctx: dict[str, Any] = {"cluster": "loopback", "user": "tester"}
        if namespace:
            ctx["namespace"] = namespace
        trust: dict[str, Any] = {}
        tls_keys = ("certificate-authority", "certificate-authority-data", "insecure-skip-tls-verify")
        if isinstance(self.tls, TLS) and self.tls.ca is not None and not any(k in (cluster or {}) for k in tls_keys):
            trust["certificate-authority-data"] = base64.b64encode(self.tls.ca.read_bytes()).decode()
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "loopback", "cluster": {"server": self.url, **trust, **(cluster or {})}}],
            "users": [{"name": "tester", "user": user if user is not None else
                       {"token": token if token is not None else self.token}}],
            "contexts": [{"name": context, "context": ctx}],
            "current-context": context,
        }
        path.write_text(yaml.safe_dump(doc))
        return path

    # -- request handling -----------------------------------------------------------------
    def handle(self, method: str, target: str, headers: dict[str, str], raw: bytes,
               sent: list[tuple[str, str]] | None = None) -> tuple[int, Any, str]:
        parts = urlsplit(target)
        path = parts.path
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        body = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
        self.requests.append(Request(method, path, query, body, sent or []))
        if self.delay:
            self._stopping.wait(self.delay)
        if not self._authorised(headers):
            return 401, _status(401, "Unauthorized", "Unauthorized"), "application/json"
        if path in self.raw:
            if method != "GET":
                return 405, _status(405, "MethodNotAllowed", "method not allowed"), "application/json"
            value = self.raw[path]
            if isinstance(value, tuple):  # (status, body)
                return value[0], value[1], "application/json"
            return 200, value, "application/json"
        segs = [unquote(s) for s in path.strip("/").split("/") if s]
        if segs == ["api"]:
            return 200, {"kind": "APIVersions", "versions": ["v1"]}, "application/json"
        if segs == ["apis"]:
            return 200, self._group_list(), "application/json"
        if len(segs) == 2 and segs[0] == "apis":
            if segs[1] not in self.groups or segs[1] == "":
                return 404, b"404 page not found\n", "text/plain"
            return 200, self._group(segs[1]), "application/json"
        if segs[:1] == ["api"] and len(segs) >= 2:
            group, version, rest = "", segs[1], segs[2:]
        elif segs[:1] == ["apis"] and len(segs) >= 3:
            group, version, rest = segs[1], segs[2], segs[3:]
        else:
            return 404, b"404 page not found\n", "text/plain"
        if version not in self.groups.get(group, []):
            return 404, b"404 page not found\n", "text/plain"
        if not rest:
            return 200, _resources(group, version), "application/json"
        ns = ""
        if rest[0] == "namespaces" and len(rest) >= 3:
            ns, rest = rest[1], rest[2:]
        plural, name = rest[0], (rest[1] if len(rest) > 1 else None)
        if len(rest) > 2:
            return 404, b"404 page not found\n", "text/plain"
        verb = {"GET": "get" if name else "list", "POST": "create", "PUT": "update", "PATCH": "patch",
                "DELETE": "delete"}.get(method, method.lower())
        for rule in self.forbid:
            if rule.verb == verb and rule.plural == plural and (rule.namespace in (None, ns or None)
                                                                 or rule.namespace == CLUSTER_WIDE and not ns):
                return 403, self._forbidden(verb, plural, group, ns), "application/json"
        if method == "GET" and name:
            with self._lock:
                obj = self._store.get((group, plural, ns, name))
            if obj is None:
                return 404, _status(404, "NotFound", f'{_res(plural, group)} "{name}" not found',
                                    details={"name": name, "group": group, "kind": plural}), "application/json"
            return 200, obj, "application/json"
        if method == "GET":
            return self._list_answer(group, version, plural, ns, query)
        if method == "POST" and not name:
            return self._create(group, plural, ns, query, body)
        return 405, _status(405, "MethodNotAllowed", f"{method} is not supported by this test server"), \
            "application/json"

    def _list_answer(self, group: str, version: str, plural: str, ns: str,
                     query: dict[str, str]) -> tuple[int, Any, str]:
        selector = query.get("fieldSelector") or ""
        for term in (t for t in selector.split(",") if t.strip()):
            label = term.split("!=")[0].split("=")[0].strip()
            if label in self.refuse_fields or not _selectable(group, version, plural, label):
                msg = (f'Unable to find "{group}/{version}, Resource={plural}" that match label selector '
                       f'"{query.get("labelSelector", "")}", field selector "{selector}": field label not '
                       f"supported: {label}")
                return 400, _status(400, "BadRequest", msg), "application/json"
        if query.get("continue"):
            with self._lock:
                expire = self.expire_continues > 0
                self.expire_continues -= 1 if expire else 0
            if expire:
                msg = ("The provided continue parameter is too old to display a consistent list result. You can "
                       "start a new list without the continue parameter, or use the continue token in this "
                       "response to retrieve the remainder of the results.")
                return 410, _status(410, "Expired", msg), "application/json"
        return 200, self._list(group, version, plural, ns, query), "application/json"

    def _list(self, group: str, version: str, plural: str, ns: str, query: dict[str, str]) -> dict[str, Any]:
        labels = parse_label_selector(query.get("labelSelector"))
        fields = parse_field_selector(query.get("fieldSelector"))
        with self._lock:  # filtered first, sorted and copied after: a list costs what it returns
            chosen = sorted(((k, o) for k, o in self._store.items()
                             if k[0] == group and k[1] == plural and (not ns or k[2] == ns)), key=lambda kv: kv[0])
        items = [o for _, o in chosen if labels(o["metadata"].get("labels") or {}) and fields(o)]
        meta: dict[str, Any] = {"resourceVersion": "1"}
        if self.endless_pages:
            meta.update({"continue": str(uuid.uuid4()), "remainingItemCount": 1000})
            items = [copy.deepcopy(o) for o in items[:int(query.get("limit") or 500)]]
            return {"kind": "List", "apiVersion": _gv(group, version), "metadata": meta, "items": items}
        sizes = [n for n in (self.page_size or 0, int(query.get("limit") or 0)) if n > 0]
        if sizes:
            start = int(query.get("continue") or 0)
            end = start + min(sizes)
            if end < len(items):
                meta["continue"] = str(end)
                meta["remainingItemCount"] = len(items) - end
            items = items[start:end]
        items = [copy.deepcopy(o) for o in items]
        kind = items[0]["kind"] + "List" if items else "List"
        return {"kind": kind, "apiVersion": _gv(group, version), "metadata": meta, "items": items}

    def _create(self, group: str, plural: str, ns: str, query: dict[str, str], body: Any) -> tuple[int, Any, str]:
        if not isinstance(body, dict) or "metadata" not in body:
            return 400, _status(400, "BadRequest", "the body is not an object"), "application/json"
        name = body["metadata"].get("name")
        key = (group, plural, ns, name)
        with self._lock:
            exists = key in self._store
        if exists:
            return 409, _status(409, "AlreadyExists", f'{_res(plural, group)} "{name}" already exists',
                                details={"name": name, "group": group, "kind": plural}), "application/json"
        obj = copy.deepcopy(body)
        if ns:
            obj["metadata"]["namespace"] = ns
        obj["metadata"].setdefault("uid", str(uuid.uuid4()))
        obj["metadata"].setdefault("creationTimestamp", "2026-11-29T12:00:00Z")
        if query.get("dryRun") != "All":
            with self._lock:
                self._store[key] = copy.deepcopy(obj)
        return 201, obj, "application/json"

    def _forbidden(self, verb: str, plural: str, group: str, ns: str) -> dict[str, Any]:
        scope = f'in the namespace "{ns}"' if ns else "at the cluster scope"
        msg = (f'{_res(plural, group)} is forbidden: User "{USER}" cannot {verb} resource "{plural}" '
               f'in API group "{group}" {scope}')
        return _status(403, "Forbidden", msg, details={"group": group, "kind": plural})

    def _group(self, group: str) -> dict[str, Any]:
        versions = [{"groupVersion": _gv(group, v), "version": v} for v in self.groups[group]]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": versions,
                "preferredVersion": versions[0]}

    def _group_list(self) -> dict[str, Any]:
        return {"kind": "APIGroupList", "apiVersion": "v1",
                "groups": [self._group(g) for g in self.groups if g]}


# The selectable fields Kueue's CRDs declare, per version (config/components/crd/bases/
# kueue.x-k8s.io_workloads.yaml:19139@v0.18.4: `.status.admission.clusterQueue`, on v1beta2 only). A custom
# resource is selected by metadata.name, metadata.namespace and these; the API server refuses any other label.
CRD_SELECTABLE: dict[tuple[str, str, str], set[str]] = {
    ("kueue.x-k8s.io", "v1beta2", "workloads"): {"status.admission.clusterQueue"},
}


def _selectable(group: str, version: str, plural: str, label: str) -> bool:
    if group != product_kinds.KUEUE_GROUP:  # core kinds and GPUStack's: not modelled, every label accepted
        return True
    return label in ("metadata.name", "metadata.namespace") or label in CRD_SELECTABLE.get((group, version, plural), ())


def _resources(group: str, version: str) -> dict[str, Any]:
    """The APIResourceList kubectl's discovery reads, for the kinds this project knows in that group."""
    resources = [{"name": k.plural, "singularName": k.kind.lower(), "namespaced": k.namespaced, "kind": k.kind,
                  "verbs": ["get", "list", "create"], "shortNames": [a for a in k.aliases if len(a) <= 3]}
                 for k in product_kinds.KINDS.values() if k.group == group and version in k.versions]
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": _gv(group, version),
            "resources": resources}


def _gv(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def _res(plural: str, group: str) -> str:
    return f"{plural}.{group}" if group else plural


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message, "reason": reason, "code": code}
    if details:
        out["details"] = details
    return out


def load_objects(*paths: Path) -> list[dict[str, Any]]:
    """Every object in fixture files (multi-document YAML or Lists)."""
    out: list[dict[str, Any]] = []
    for p in paths:
        for doc in yaml.safe_load_all(Path(p).read_text()):
            if not doc:
                continue
            if doc.get("kind", "").endswith("List") and isinstance(doc.get("items"), list):
                out.extend(doc["items"])
            else:
                out.append(doc)
    return out


def unrelated_workloads(n: int, *, namespace: str = "team-a", queue: str = "batch",
                        message: str = "ClusterQueue batch is inactive") -> list[dict[str, Any]]:
    """`n` pending single-pod-set group Workloads that have nothing to do with the target: the noise a
    bounded diagnosis must not read (request-count tests and benchmarks)."""
    base = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"namespace": namespace, "annotations": {"kueue.x-k8s.io/is-group-workload": "true"}},
            "spec": {"queueName": queue, "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                                       "message": message}]}}
    out = []
    for i in range(n):
        wl = copy.deepcopy(base)
        wl["metadata"]["name"] = f"batch-{i:05d}"
        out.append(wl)
    return out


def surplus_answer(body: Any, status: int = 200) -> bytes:
    """A second complete HTTP answer, for `surplus=`: what a desynchronised connection would hand the
    next request if the client read it."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return (f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
            .encode() + data)


def objects_of(docs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [copy.deepcopy(d) for d in docs]


class ConnectProxy:
    """A forward proxy that answers `CONNECT host:port` with a byte tunnel (how HTTPS goes through a proxy);
    with `auth`, it wants that Proxy-Authorization value. `tunnels` logs the targets it connected. With
    `upstream`, every tunnel goes there whatever host it names (route tests: a server URL with any host name
    reaches the loopback server, and whether a client went via the proxy is `bool(tunnels)`)."""

    def __init__(self, auth: str | None = None, upstream: tuple[str, int] | None = None) -> None:
        self.auth = auth
        self.upstream = upstream
        self.tunnels: list[str] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def stop(self) -> None:
        self._sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(4096)
            if not chunk:
                client.close()
                return
            head += chunk
        lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        method, target = lines[0].split()[:2]
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        if method != "CONNECT" or (self.auth and headers.get("proxy-authorization") != self.auth):
            client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
            client.close()
            return
        host, _, port = target.rpartition(":")
        upstream = socket.create_connection(self.upstream or (host.strip("[]"), int(port)))
        self.tunnels.append(target)
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")

        def pipe(a: socket.socket, b: socket.socket) -> None:
            try:
                while data := a.recv(65536):
                    b.sendall(data)
            except OSError:
                pass
            finally:
                for s in (a, b):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
        pipe(client, upstream)
