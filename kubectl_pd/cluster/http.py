"""Our own small HTTP path to the API server (no kubernetes client, no urllib3 on it: cluster/pool.py).

One pool per context: TLS (CA file or data, client certificates, insecure, tls-server-name), proxies
(kubeconfig `proxy-url`, else HTTPS_PROXY/NO_PROXY), bearer tokens, basic auth, impersonation and exec
plugins. A deadline bounds the whole request (connect, headers, a body trickled a byte at a time,
client-go style retries after `Retry-After`). Nothing here ever formats a header or credential into
a message; `Warning` headers from the server are printed to stderr as kubectl prints them.
"""

from __future__ import annotations

import base64
import os
import socket
import sys
import threading
import time
from collections.abc import Callable

from kubectl_pd import memo
from kubectl_pd.cluster import wire
from kubectl_pd.cluster.endpoint import Endpoint
from kubectl_pd.cluster.urls import split
from kubectl_pd.errors import BrokenAnswer, ClusterError, PdError
from kubectl_pd.lazyre import lazy
from kubectl_pd.records import dataclass
from kubectl_pd.termsafe import SECRETS as _SECRETS  # one registry of credentials, printed through termsafe
from kubectl_pd.termsafe import redact  # noqa: F401 - the one redaction (callers import it from here)

DEFAULT_READ_TIMEOUT = 60.0  # seconds per GET when --request-timeout is not given (read-only work)
MAX_RETRIES = 10  # client-go's maxRetries for a response with Retry-After
POOL_SIZE = 8
SLEEP = time.sleep  # the wait a Retry-After asks for; tests put a recorder here (no real waiting)

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

    import ssl

    from kubectl_pd.cluster import execcred

_HEADER_SAFE = lazy(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")


@dataclass
class Reply:
    status: int
    body: bytes | bytearray  # the buffer the answer was read into (wire.Body), never copied
    headers: dict[str, str]  # lower-case names


class Throttled(ClusterError):
    """The server kept answering 429 (or 5xx with Retry-After) past the retries or the deadline."""

    status = 429  # the last answer's status: a 5xx may have applied a write, a 429 did not


class Timeout(ClusterError):
    """The whole request did not finish within the deadline."""


class Transport:
    """Sends requests for one Endpoint; thread-safe (why-pending reads in parallel)."""

    def __init__(self, ep: Endpoint, timeout: float | None, *, exec_dir: str | None = None,
                 client_auth: Callable[[], dict[str, str]] | None = None) -> None:
        if os.environ.get(RESPONSE_LIMIT_ENV):
            wire.MAX_BODY = response_limit()
        self.ep = ep
        self.timeout = timeout  # None: not given (defaults apply); 0: no limit
        self.exec_dir = exec_dir
        self._client_auth = client_auth
        self._lock = threading.Lock()
        self._manager: Any = None
        self._auth: dict[str, str] | None = None
        self._token_read = 0.0
        self._exec: execcred.Credential | None = None
        self._refreshing = False
        self.withheld = False  # credentials exist but were not sent (plain http://)
        self.warned: set[str] = set()  # Warning header texts printed (once each, as kubectl does)

    # -- deadlines ------------------------------------------------------------------------------
    def deadline_for(self, method: str) -> float | None:
        """Seconds for one request: the flag; else the read default for GETs; none for writes."""
        if self.timeout is not None:
            return self.timeout or None
        return DEFAULT_READ_TIMEOUT if method == "GET" else None

    def _timeout_error(self, seconds: float) -> Timeout:
        if not seconds:  # no deadline of ours: the operating system's connect timeout
            return Timeout(f"the API server at {self.ep.origin} did not answer (connection timed out): "
                           f"check the network")
        how = "(--request-timeout)" if self.timeout else "(the default for reads; set --request-timeout)"
        return Timeout(f"the API server at {self.ep.origin} did not answer within {seconds:g}s {how}: "
                       f"check the network or raise the timeout")

    # -- credentials ----------------------------------------------------------------------------
    def _credentials(self, seconds: float | None) -> dict[str, str]:
        with self._lock:
            ep = self.ep
            if self._auth is not None and not (ep.token_file and time.monotonic() - self._token_read > 60):
                return self._auth
            headers: dict[str, Any] = {}
            token = ep.token
            if ep.token_file:
                token = _read_token(ep.token_file, ep.context)
                self._token_read = time.monotonic()
            if ep.exec_spec is not None and not (token or ep.cert_file or ep.cert_data):
                if self._exec is None:
                    from kubectl_pd.cluster import execcred

                    try:
                        self._exec = execcred.run(ep.exec_spec, cluster=ep.cluster, server=ep.server,
                                                  base_dir=self.exec_dir, timeout=seconds)
                    except ClusterError as e:
                        if not self._refreshing:
                            raise
                        raise ClusterError(f"the API server refused the exec credential (401 Unauthorized) and "
                                           f"its refresh failed: {e.message}") from None
                    self._refreshing = False
                token = token or self._exec.token
            if self._client_auth is not None:
                headers.update(_header_safe(self._client_auth(), ep.context))
            if token:
                token = token.strip()
                if not _HEADER_SAFE.fullmatch(token):
                    raise PdError(f"the token of user {ep.user!r} (context {ep.context!r}) contains characters "
                                  f"that an HTTP header cannot carry: check the kubeconfig user")
                headers["Authorization"] = f"Bearer {token}"
            elif ep.basic is not None and "Authorization" not in headers:
                raw = f"{ep.basic[0]}:{ep.basic[1]}".encode()
                headers["Authorization"] = "Basic " + base64.b64encode(raw).decode()
            for name, values in ep.impersonate.items():
                headers[name] = values  # one header line per value (wire.py), as client-go sends them
            if "Authorization" in headers and not ep.server.startswith("https://"):
                # kubectl (client-go) sends no credentials to a plain http:// server (it still sends the
                # request: `kubectl proxy` needs none); a 401 then says why
                del headers["Authorization"]
                self.withheld = True
            if "Authorization" in headers:
                _SECRETS.update((headers["Authorization"], headers["Authorization"].split(" ", 1)[-1]))
            if token:
                _SECRETS.add(token)
            if ep.basic is not None:
                _SECRETS.add(ep.basic[1])
            self._auth = headers
            return headers

    def refresh_exec(self) -> bool:
        """After a 401, forget an exec plugin's credential so the next request runs the plugin again
        (client-go does the same once: the cached token may have expired). False: nothing to refresh."""
        with self._lock:
            if self._exec is None:
                return False
            self._exec = None
            self._refreshing = True  # the plugin's next run is a refresh: its failure says so
            self._auth = None
            self._manager = None  # a client certificate lives in the pool's TLS context
            return True

    # -- the pool -------------------------------------------------------------------------------
    def ready(self) -> None:
        """The pool and its TLS context built now (LiveSource.ready), unless a credential plugin may yet add a
        client certificate to that context (an exec plugin, an auth-provider): then at the first request, as
        before."""
        if self.ep.exec_spec is None and self._client_auth is None:
            self._pool()

    def _pool(self) -> Any:
        with self._lock:
            if self._manager is None:
                self._manager = self._build()
            return self._manager

    def _build(self) -> Any:
        from kubectl_pd.cluster.pool import Pool, ProxyUnsupported, Route

        ep = self.ep
        context = None
        if ep.server.startswith("https://"):
            context = self._ssl_context()
            warned = memo.table("cluster.http.warned_insecure")  # once per server and run
            if ep.insecure and (warned is None or ep.origin not in warned):
                if warned is not None:
                    warned[ep.origin] = True
                _warn(f"not verifying the certificate of the API server at {ep.origin} (insecure-skip-tls-verify "
                      f"in context {ep.context!r}): the connection is not secure", flush=False)
        try:
            route = Route.of(ep.server, ep.proxy, None if ep.insecure else ep.tls_server_name)
        except ProxyUnsupported as e:
            raise PdError(f"context {ep.context!r}: proxy scheme {e.args[0]!r} is not supported by kubectl-pd "
                          f"(use an http:// proxy)") from None
        return Pool(route, context, POOL_SIZE)

    def _ssl_context(self) -> ssl.SSLContext:
        import ssl

        ep = self.ep
        try:
            if ep.ca_data:  # the kubeconfig's CA, and only it (like client-go)
                ctx = ssl.create_default_context(cadata=ep.ca_data.decode("ascii", "replace"))
            elif ep.ca_file:
                from kubectl_pd.cluster.config import read_bounded

                pem = read_bounded(ep.ca_file, f"context {ep.context!r}: certificate-authority")
                ctx = ssl.create_default_context(cadata=pem.decode("ascii", "replace"))
            else:
                ctx = ssl.create_default_context()
        except FileNotFoundError:
            raise PdError(f"context {ep.context!r}: certificate-authority {ep.ca_file}: no such file") from None
        except (ssl.SSLError, ValueError, OSError):
            raise PdError(f"context {ep.context!r}: the certificate-authority is not a PEM certificate") from None
        if ep.insecure:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        cert, key = ep.cert_data, ep.key_data
        if self._exec is not None and self._exec.cert_data:
            cert, key = self._exec.cert_data, self._exec.key_data
        if cert or ep.cert_file:
            _load_client_cert(ctx, ep, cert, key)
        return ctx

    # -- sending --------------------------------------------------------------------------------
    def send(self, method: str, url: str, *, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> Reply:
        """One request within its deadline, retried like client-go on 429/5xx with Retry-After."""
        seconds = self.deadline_for(method)
        started = time.monotonic()
        auth = self._credentials(seconds)  # before the pool: an exec plugin may give a client certificate
        pool = self._pool()
        all_headers = {"Accept": "application/json", "User-Agent": "kubectl-pd", **(headers or {}), **auth}
        try:
            if seconds is None:
                return self._attempts(pool, method, url, body, all_headers, None, started)
            left = seconds - (time.monotonic() - started)
            return _within(left, lambda: self._attempts(pool, method, url, body, all_headers, seconds, started),
                           lambda: self._timeout_error(seconds))
        except (Throttled, Timeout):
            raise
        except TimeoutError:
            raise self._timeout_error(seconds or 0) from None
        except OSError as e:
            import ssl

            if isinstance(e, ssl.SSLError | ssl.CertificateError):
                raise ClusterError(tls_failure(self.ep.origin, e)) from None
            if isinstance(e, wire.TunnelRefused):
                raise ClusterError(f"cannot reach the API server at {self.ep.origin} through the proxy "
                                   f"(it refused the tunnel): check HTTPS_PROXY/NO_PROXY or the kubeconfig's "
                                   f"proxy-url") from None
            if isinstance(e, ConnectionRefusedError | socket.gaierror) or not isinstance(e, ConnectionError):
                raise self._unreachable(e) from None
            raise self._broken(method, url, e) from None
        except wire.ProtocolError as e:
            raise self._broken(method, url, e) from None

    def _broken(self, method: str, url: str, e: BaseException) -> ClusterError:
        from kubectl_pd.cluster.pool import describe, format_bytes

        path = split(url).path
        if isinstance(e, wire.TooLarge):
            size = f" ({e.size} bytes announced)" if e.size is not None else ""
            return BrokenAnswer(f"the API server at {self.ep.origin} sent an answer to {method} {path} larger "
                                f"than {format_bytes(wire.MAX_BODY)}{size}, the bound on one answer: narrow the "
                                f"request (-n, a selector), or raise KUBECTL_PD_MAX_RESPONSE_SIZE if it is right")
        if isinstance(e, wire.ProtocolError) and not isinstance(e, wire.Incomplete):
            return BrokenAnswer(f"the API server at {self.ep.origin} sent an answer to {method} {path} that "
                                f"cannot be read ({describe(e)}): check for a proxy or middlebox in the way")
        return BrokenAnswer(f"the API server at {self.ep.origin} broke off its answer to {method} "
                            f"{path} ({describe(e)}): retry, or check the network")

    def _unasked_encoding(self, encoding: str) -> None:
        """A body encoded although the request asked for identity (a proxy or middlebox in the way): read
        inflated, under the same bound, as kubectl (which asks for gzip) reads it, and said once per run."""
        key = "\0content-encoding"  # not a Warning header's text
        if key in self.warned:
            return
        self.warned.add(key)
        shown = "".join(c if " " <= c <= "~" else "?" for c in encoding[:40])
        _warn(f"the API server at {self.ep.origin} sent its answer with Content-Encoding {shown} although "
              f"kubectl-pd asked for identity (a proxy or middlebox?): read it inflated", flush=True)

    def _unreachable(self, e: BaseException) -> ClusterError:
        from kubectl_pd.cluster.pool import describe

        return ClusterError(f"cannot reach the API server at {self.ep.origin} ({describe(e)}): "
                            f"is the cluster up, and is context {self.ep.context!r} the right one?")

    def _attempts(self, pool: Any, method: str, url: str, body: bytes | None, headers: dict[str, str],
                  seconds: float | None, started: float) -> Reply:
        for attempt in range(MAX_RETRIES + 1):
            left = None if seconds is None else max(0.05, seconds - (time.monotonic() - started))
            parts = split(url)
            status, rheaders, data = pool.request(method, parts.path + (f"?{parts.query}" if parts.query else ""),
                                                  body, headers, left)
            reply = Reply(status, data, rheaders)
            if "warning" in rheaders:
                print_warnings(rheaders["warning"], self.warned)
            if rheaders.get("content-encoding", "").strip().lower() not in ("", "identity"):
                self._unasked_encoding(rheaders["content-encoding"].strip())
            wait = _retry_after(reply)
            if wait is None:
                return reply
            if attempt == MAX_RETRIES or (seconds is not None and
                                          time.monotonic() - started + wait >= seconds):
                throttled = Throttled(_throttled(self.ep.origin, reply, method, url, attempt))
                throttled.status = reply.status
                raise throttled
            SLEEP(wait)
        raise AssertionError("unreachable")


RESPONSE_LIMIT_ENV = "KUBECTL_PD_MAX_RESPONSE_SIZE"
_UNITS = {"": 1, "k": 1000, "M": 1000**2, "G": 1000**3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def response_limit() -> int:
    """The bound on one answer's bytes (decoded): KUBECTL_PD_MAX_RESPONSE_SIZE (a byte count or a quantity:
    512Mi, 2Gi) or 512 MiB. A value that is not a positive size is an input error."""
    text = os.environ.get(RESPONSE_LIMIT_ENV, "").strip()
    if not text:
        return wire.MAX_BODY
    digits = text.rstrip("kKMGi")
    unit = text[len(digits):]
    n = wire.ascii_uint(digits)
    if n is None or n == 0 or unit not in _UNITS:
        from kubectl_pd.errors import InputError

        raise InputError(f"{RESPONSE_LIMIT_ENV}={text[:40]!r} is not a size (bytes, or e.g. 512Mi, 2Gi)")
    return n * _UNITS[unit]


_VERIFY = {  # OpenSSL's X509_V_ERR codes: what the server's certificate itself says
    9: "its certificate is not yet valid (check this machine's clock)",
    10: "its certificate has expired",
    18: "its certificate is self-signed and not the kubeconfig's certificate-authority",
    19: "its certificate chain ends in a certificate-authority the kubeconfig does not trust",
    20: "its certificate was signed by an authority the kubeconfig's certificate-authority does not include",
    21: "its certificate was signed by an authority the kubeconfig's certificate-authority does not include",
    62: "its certificate is for another name (check the server URL or tls-server-name)",
    64: "its certificate is for another address (check the server URL or tls-server-name)",
}


def tls_failure(origin: str, e: BaseException) -> str:
    """One line for a failed TLS handshake, naming the certificate's own problem when OpenSSL says it."""
    code = getattr(e, "verify_code", None)
    why = _VERIFY.get(code) if isinstance(code, int) else None
    if why is not None:
        return f"the API server at {origin} cannot be trusted: {why}"
    return (f"TLS handshake with the API server at {origin} failed: check the cluster's certificate-authority "
            f"(and the user's client certificate) in the kubeconfig")


def _warn(text: str, flush: bool) -> None:
    """A `warning:` line, one plain write to stderr (kubectl_pd/output/stderr.py; loaded only when a warning is
    said: a live Tab press imports nothing for it)."""
    from kubectl_pd.output import stderr

    stderr.say(stderr.WARNING, text, echo=False, flush=flush)


def _retry_after(reply: Reply) -> float | None:
    """client-go's checkWait: 429 or 5xx with an integer Retry-After means "try again after N s"."""
    if reply.status != 429 and reply.status < 500:
        return None
    seconds = wire.ascii_uint(reply.headers.get("retry-after", "").strip(), wire.MAX_INT64)
    if seconds is None:  # not ASCII digits ("²" included) or past Go's int: no wait, as in client-go
        return None
    return float(min(seconds, 3600))


def print_warnings(value: str, warned: set[str], out: Any = None) -> None:
    """Print each `299` warning of a Warning header as kubectl does (`Warning: <text>`, once per text:
    kubectl's NewKubectlCommand installs client-go's rest.NewWarningWriter with Deduplicate: true, k8s.io/
    kubectl/pkg/cmd/cmd.go), parsed like k8s.io/apimachinery's ParseWarningHeaders; a malformed value ends
    the parse quietly. `warned`: the texts already printed. Unlike kubectl, a credential of ours echoed in
    the text is redacted and control characters (terminal escapes) are shown as "?"."""
    for code, text in parse_warnings(value):
        if code != 299 or not text or text in warned:
            continue
        warned.add(text)
        shown = "".join(c if c >= " " or c == "\t" else "?" for c in redact(text))  # no terminal controls
        stream = out or sys.stderr
        stream.write(f"Warning: {shown}\n")
        stream.flush()


def parse_warnings(value: str) -> list[tuple[int, str]]:
    """(code, text) of each `code agent "text" ["date"]` in a comma-separated Warning header."""
    out: list[tuple[int, str]] = []
    rest = value.strip()
    while rest:
        parts = rest.split(" ", 2)
        if len(parts) != 3 or len(parts[0]) != 3 or wire.ascii_uint(parts[0]) is None or not parts[1] \
                or not parts[2].startswith('"'):
            return out
        text, rest = _quoted(parts[2])
        if text is None:
            return out
        rest = rest.lstrip(" ")
        if rest.startswith('"'):  # the optional warn-date
            _, rest = _quoted(rest)
            rest = rest.lstrip(" ")
        out.append((int(parts[0]), text.encode("latin-1", "replace").decode("utf-8", "replace")))
        if rest and not rest.startswith(","):
            return out
        rest = rest[1:].strip(" ")
    return out


def _quoted(s: str) -> tuple[str | None, str]:
    """The text of the quoted-string at the start of `s` (backslash escapes undone), and what follows."""
    chars: list[str] = []
    i = 1
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            chars.append(s[i + 1])
            i += 2
            continue
        if c == '"':
            return "".join(chars), s[i + 1:]
        chars.append(c)
        i += 1
    return None, ""


def _throttled(origin: str, reply: Reply, method: str, url: str, attempt: int) -> str:
    path = split(url).path
    what = "429 Too Many Requests" if reply.status == 429 else f"{reply.status} with Retry-After"
    tries = f" after {attempt + 1} tries" if attempt else ""
    return (f"the API server at {origin} is throttling requests ({what} to {method} {path}{tries}): "
            f"wait and retry, or raise --request-timeout")


def _within(seconds: float, fn: Callable[[], T], on_timeout: Callable[[], Exception]) -> T:
    """Run fn in a worker thread and give up after `seconds` (the worker is abandoned: a daemon thread
    whose socket timeouts end it). This bounds what socket timeouts cannot: a trickled body."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: B036 - handed back to the caller below
            box["error"] = e

    from kubectl_pd import interrupt

    worker = interrupt.thread(run, "kubectl-pd-request")  # never takes SIGINT: the main thread does
    interrupt.join(worker, max(seconds, 0.001))  # Ctrl-C seen within interrupt.SLICE seconds
    if worker.is_alive():
        raise on_timeout()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _header_safe(headers: dict[str, str], context: str) -> dict[str, str]:
    """The auth-provider's headers, refused when a value holds a control character (Go's net/http, under
    kubectl, refuses to send such a header: an invalid header field value). The value is never shown."""
    for name, value in headers.items():
        if any(c < " " and c != "\t" or c == "\x7f" for c in str(value)):
            raise PdError(f"the auth-provider of context {context!r} gave a header ({name}) with a control "
                          f"character in its value (a line break or other): it cannot be sent; check the "
                          f"kubeconfig user's auth-provider")
    return headers


def _read_token(path: str, context: str) -> str:
    from kubectl_pd.cluster.config import read_token_file

    return read_token_file(path, context)


def _load_client_cert(ctx: ssl.SSLContext, ep: Endpoint, cert: bytes | None, key: bytes | None) -> None:
    """ssl reads certificates from files only: in-memory data goes through memory files (never on disk) or,
    without them, private temporary files unlinked once loaded (cluster/clientauth.py: PrivateFiles)."""
    import ssl

    from kubectl_pd.cluster.clientauth import PrivateFiles

    tmp = PrivateFiles()
    try:
        cert_path, key_path = ep.cert_file, ep.key_file
        from kubectl_pd.cluster.config import read_bounded

        if cert is None and cert_path:  # read bounded here (a device or a silent pipe never reaches ssl)
            cert = read_bounded(str(cert_path), f"context {ep.context!r}: client-certificate")
        if key is None and key_path:
            key = read_bounded(str(key_path), f"context {ep.context!r}: client-key")
        if cert is not None:
            cert_path = tmp.add(cert)
        if key is not None:
            from kubectl_pd.termsafe import remember

            remember(*(ln for ln in key.decode("ascii", "replace").splitlines()
                       if len(ln) >= 16 and not ln.startswith("-----")))
            key_path = tmp.add(key)
        ctx.load_cert_chain(certfile=str(cert_path), keyfile=key_path)
    except FileNotFoundError as e:
        raise PdError(f"context {ep.context!r}: client certificate or key {e.filename}: no such file") from None
    except (ssl.SSLError, ValueError, OSError):
        raise PdError(f"context {ep.context!r}: the client certificate and key of user {ep.user!r} cannot be "
                      f"loaded (not PEM, or they do not match)") from None
    finally:
        tmp.__exit__(None, None, None)
