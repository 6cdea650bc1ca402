"""A Source over a live API server, through our own HTTP transport (cluster/http.py).

The kubernetes package is not on this path: the kubeconfig is resolved by cluster/endpoint.py, exec
plugins run in cluster/execcred.py, and only an auth-provider user loads the package (clientauth.py).
Paths are built here so that Kueue, GPUStack, core, discovery and visibility reads share one error
mapping, and every answer is checked for being what was asked for: a list that is not a list of that
kind is an error, never "nothing there".
"""

from __future__ import annotations

import json
import re
import threading

from kubectl_pd.cluster import kinds
from kubectl_pd.cluster.config import ClusterOptions, read_kubeconfig
from kubectl_pd.cluster.endpoint import Endpoint, in_cluster_only, resolve
from kubectl_pd.cluster.source import LIVE, Obj, Origin, SourceDefaults
from kubectl_pd.cluster.urls import quote_part, split, urlencode
from kubectl_pd.errors import (
    AmbiguousWrite,
    ApiUnavailable,
    BrokenAnswer,
    ClusterError,
    ConflictError,
    FieldSelectorUnsupported,
    ForbiddenError,
    InputError,
    ListExpired,
    NotFoundError,
    PdError,
    ServerError,
)
from kubectl_pd.kueue.normalize import normalize

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Reducer = Callable[[Obj], Obj | None]
    Items = list[Obj]
    from collections.abc import Iterator

PAGE_SIZE = 500  # kubectl's chunk size for lists (--chunk-size)

_NOT_INSTALLED = {
    kinds.KUEUE_GROUP: "Kueue is not installed in this cluster (the API group kueue.x-k8s.io is not served): "
    "install Kueue, or check the context",
    kinds.GPUSTACK_GROUP: "the GPUStack operator's API is not installed in this cluster (the API group "
    "worker.gpustack.ai is not served, so {resource} is not): install the GPUStack operator, "
    "or check the context",
}


def _not_served(k: kinds.Kind, served: list[str] | None = None) -> str:
    """What a 404 for the resource type itself means, named from its group and resource (never a sentence of
    another resource of the group): the group not served at all, or served without this resource."""
    if served:
        return (f"{k.resource} is not served by this cluster (the API group {k.group} is, at "
                f"{', '.join(served)}): the installed version has no {k.kind}; check the installed version, "
                f"or the context")
    if k.kind == "ModelDeployment":
        return ("the ModelDeployment CRD is not installed in this cluster (modeldeployments.worker.gpustack.ai is "
                "not served): install the GPUStack operator, or check the context")
    text = _NOT_INSTALLED.get(k.group, f"the API group {k.group} is not served, so {{resource}} is not")
    return text.replace("{resource}", k.resource)


class Response:
    def __init__(self, status: int, body: bytes | bytearray, headers: dict[str, str], what: str = "") -> None:
        self.status = status
        self.body = body
        self.headers = headers
        self.what = what  # the request, for an error: `GET /apis/...`
        self._parsed: tuple[Any, bool] | None = None

    def parsed(self) -> tuple[Any, bool]:
        """(the body as JSON, True), or (None, False) when it is not JSON (or large and not an object); parsed
        once (cluster/answer.py). An answer whose text would be past the bound on one answer is BrokenAnswer."""
        if self._parsed is None:
            from kubectl_pd.cluster import answer, wire

            try:
                self._parsed = answer.parse(self.body or b"", wire.MAX_BODY)
            except answer.TextTooLarge as e:
                raise BrokenAnswer(_text_too_large(self.what, e.chars, e.width)) from None
            except RecursionError:  # the server's answer, not the user's input: said as such (issue 50 R5)
                raise BrokenAnswer(f"the API server's answer to {self.what or 'a request'} is JSON nested too deeply "
                                   f"to read (more levels than Python follows)") from None
        return self._parsed

    def json(self) -> Any:
        return self.parsed()[0]


class UnexpectedAnswer(ClusterError):
    """The server answered 2xx with something that is not what was asked for (HTML, cut JSON, null)."""


class LiveSource(SourceDefaults):
    """Reads (and, for `create`, writes) through one kubeconfig context."""

    is_live = True

    def __init__(self, opts: ClusterOptions) -> None:
        self.opts = opts
        if in_cluster_only(opts):
            self.endpoint: Endpoint = resolve(opts)  # the service account, with the flags kubectl applies
            config: dict[str, Any] | None = None
        else:
            config = read_kubeconfig(opts)
            self.endpoint = resolve(opts, config)
        self.context_name = self.endpoint.context
        self._config = config
        self._transport: Any = None
        self._served: dict[str, list[str]] = {}
        self._discovery = threading.Lock()
        self._connecting = threading.Lock()
        self.requests: int = 0  # count of HTTP requests sent, for benchmarks
        self.run_id = _run_id()  # marks what this run writes (CREATE_ID)

    # -- connection -------------------------------------------------------------------------
    def _connect(self) -> Any:
        transport = self._transport
        if transport is not None:
            return transport
        with self._connecting:  # the first requests come from several threads at once: one transport for all
            if self._transport is None:
                self._transport = self._new_transport()
            return self._transport

    def ready(self) -> None:
        """Make now what the first request would make on its way out (the HTTP modules, the transport, its TLS
        context and pool: cluster/http.Transport.ready), so that the head start's requests (pending/run.head_start)
        go straight to their connections instead of sharing the interpreter with the imports that follow them.
        A failure here is left where it was met before: the first request makes the same again and reports it."""
        try:
            self._connect().ready()
        except Exception:  # noqa: BLE001, S110 - met again, and reported, by the first request
            pass

    def _new_transport(self) -> Any:
        """The HTTP transport: one TLS context (with the kubeconfig's CA) and one pool of connections."""
        from kubectl_pd.cluster.config import origin_of
        from kubectl_pd.cluster.http import Transport

        ep = self.endpoint
        client_auth = None
        if ep.needs_client:
            from kubectl_pd.cluster.clientauth import provider_headers

            def client_auth() -> dict[str, str]:
                return provider_headers(self.opts, ep.context, self._config)
        exec_dir = None
        if self._config is not None and ep.exec_spec is not None:
            user: dict[str, Any] = next((u for u in self._config["users"] if u.get("name") == ep.user), {})
            exec_dir = origin_of(self._config, "users", user)
        return Transport(ep, self.opts.request_timeout, exec_dir=exec_dir, client_auth=client_auth)

    @property
    def server(self) -> str:
        return self.endpoint.origin

    def request(
        self,
        method: str,
        path: str,
        query: dict[str, Any] | None = None,
        body: Any = None,
        *,
        verb: str = "",
        resource: str = "",
        namespace: str | None = None,
    ) -> Response:
        """Send one request; map transport failures and 401/403/429/3xx/5xx to one-line errors."""
        transport = self._connect()
        data = None
        headers: dict[str, str] = {}
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        url = self.endpoint.server + path + (("?" + urlencode(query)) if query else "")
        self.requests += 1
        r = transport.send(method, url, body=data, headers=headers)
        if r.status == 401 and transport.refresh_exec():  # an exec credential that expired: once more
            self.requests += 1
            r = transport.send(method, url, body=data, headers=headers)
        return self._checked(Response(r.status, r.body, r.headers, f"{method} {path}"), method, path, verb, resource,
                             namespace)

    def _checked(self, resp: Response, method: str, path: str, verb: str, resource: str,
                 namespace: str | None) -> Response:
        """401/403/429/3xx/5xx as one-line errors; any other answer handed back."""
        transport = self._connect()
        what = f"{method} {resource or path}"
        if resp.status == 401:
            if transport.withheld:
                raise ClusterError(
                    f"the API server at {self.server} asks for credentials (401 Unauthorized), and those of "
                    f"context {self.context_name!r} are not sent over plain http:// (kubectl does not either): "
                    f"use the server's https:// URL"
                )
            raise ClusterError(
                f"the API server at {self.server} rejected the credentials of context "
                f"{self.context_name!r} (401 Unauthorized): log in again or refresh the kubeconfig user"
            )
        if resp.status == 403:
            where = f' in namespace "{namespace}"' if namespace else " at cluster scope"
            doc = resp.json()
            detail = str(doc.get("message") or "") if isinstance(doc, dict) else ""
            user = re.search(r'User "([^"]*)"', detail)
            who = f'user "{user.group(1)}"' if user else "your user"
            refusal = f"forbidden: RBAC does not let {who} {verb or method.lower()} {resource or path}{where}"
            raise ForbiddenError(
                f"{refusal}: ask for that permission, or work from a snapshot with --from-file",
                verb=verb,
                resource=resource,
                namespace=namespace or "",
                refusal=refusal,
            )
        if resp.status == 429:
            from kubectl_pd.cluster.http import Throttled

            raise Throttled(f"the API server at {self.server} is throttling requests (429 Too Many Requests to "
                            f"{what}): wait and retry")
        if 300 <= resp.status < 400:
            to = split(resp.headers.get("location", "")).hostname
            raise ClusterError(f"the API server at {self.server} answered {resp.status} (a redirect"
                               + (f" to {to}" if to else "") + f") to {what}: a proxy or login page is in the "
                               f"way; check the server of context {self.context_name!r}")
        if resp.status >= 500:
            raise ServerError(f"the API server answered {resp.status} to {what}: {_status_message(resp)}")
        return resp

    # -- discovery --------------------------------------------------------------------------
    def served_versions(self, group: str) -> list[str]:
        """Versions of `group` the server serves, preferred first; [] only when the server says 404."""
        if group in self._served:
            return self._served[group]
        with self._discovery:  # reads that run together ask once
            return self._discover(group)

    def _discover(self, group: str) -> list[str]:
        if group not in self._served:
            if group == "":
                self._served[group] = ["v1"]
            else:
                path = f"/apis/{group}"
                r = self.request("GET", path, verb="get", resource=f"apigroups/{group}")
                if r.status == 404:
                    self._served[group] = []
                    return []
                _expect_ok(r, "GET", path)
                doc = _json_object(r, "GET", path, "an APIGroup")
                versions: list[str] = [v["version"] for v in doc.get("versions") or []
                                       if isinstance(v, dict) and isinstance(v.get("version"), str)]
                if doc.get("kind") not in (None, "APIGroup") or not isinstance(doc.get("versions"), list):
                    raise UnexpectedAnswer(f"the API server answered GET {path} with {_describe(r)}, not an "
                                           f"APIGroup: check the server of context {self.context_name!r}")
                pref = (doc.get("preferredVersion") or {}).get("version") \
                    if isinstance(doc.get("preferredVersion"), dict) else None
                if pref in versions:
                    versions.remove(pref)
                    versions.insert(0, pref)
                self._served[group] = versions
        return self._served[group]

    def version_for(self, kind: kinds.Kind) -> str:
        """Our preferred version that the server serves (v1beta2, else v1beta1 for old Kueue)."""
        served = self.served_versions(kind.group)
        for v in kind.versions:
            if v in served:
                return v
        if not served:
            raise ApiUnavailable(_not_served(kind))
        raise ApiUnavailable(
            f"{kind.resource} is served only at {', '.join(served)}, which kubectl-pd cannot read "
            f"(it reads {', '.join(kind.versions)})"
        )

    def path(self, kind: kinds.Kind, namespace: str | None, name: str | None = None,
             version: str | None = None) -> str:
        version = version or self.version_for(kind)
        base = f"/apis/{kind.group}/{version}" if kind.group else f"/api/{version}"
        if kind.namespaced and namespace:
            base += f"/namespaces/{quote_part(namespace)}"
        base += f"/{kind.plural}"
        return base + (f"/{quote_part(name)}" if name else "")

    def _read(self, k: kinds.Kind, ns: str | None, name: str | None,
              query: dict[str, Any] | None) -> tuple[Response, str]:
        """GET at our preferred version without asking discovery first (kubectl's discovery is cached on
        disk; ours would be a request per group per run). Only a bare 404 there, the answer of a version
        that is not served, sends us to discovery: v1beta1 on old Kueue, or "not installed"."""
        guessed = bool(k.group) and k.group not in self._served
        version = k.versions[0] if guessed else self.version_for(k)
        verb = "get" if name else "list"
        path = self.path(k, ns, name, version)
        r = self.request("GET", path, query, verb=verb, resource=k.resource, namespace=ns)
        if guessed and r.status == 404 and not _is_status(r):
            served = self.version_for(k)  # raises ApiUnavailable when the group is not served at all
            if served != version:
                path = self.path(k, ns, name, served)
                r = self.request("GET", path, query, verb=verb, resource=k.resource, namespace=ns)
        return r, path

    # -- Source -----------------------------------------------------------------------------
    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        k = _kind(kind)
        ns = namespace if k.namespaced else None
        r, _ = self._read(k, ns, name, None)
        if r.status == 404:
            if not _is_status(r):  # a bare 404 page: the resource type itself is gone
                raise ApiUnavailable(_not_served(k, self.served_versions(k.group) if k.group else None))
            return None
        _expect_ok(r, "GET", k.resource)
        doc = _json_object(r, "GET", f'{k.resource} "{name}"', f"a {k.kind}")
        if doc.get("kind") not in (None, k.kind) or not isinstance(doc.get("metadata"), dict):
            raise UnexpectedAnswer(f'the API server answered GET {k.resource} "{name}" with {_describe(r)}, '
                                   f"not a {k.kind}")
        return normalize(doc)

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        *,
        reduce: Reducer | None = None,
    ) -> list[Obj]:
        """Every object of `kind`, paged as kubectl pages (`limit=500`, following `continue`). A 410 on a
        `continue` (the token expired) restarts the list once from the start; a second one is ListExpired.
        A field selector the server refuses is FieldSelectorUnsupported (the caller may list unfiltered).
        `reduce` is applied to each object as its page arrives (None drops it): keep only what you need
        (after a restart it sees the first pages' objects again)."""
        k = _kind(kind)
        ns = namespace if k.namespaced else None
        query: dict[str, Any] = {"limit": PAGE_SIZE}
        if label_selector:
            query["labelSelector"] = label_selector
        if field_selector:
            query["fieldSelector"] = field_selector
        for restart in (False, True):
            items = self._pages(k, ns, query, reduce)
            if items is not None:
                return items
            if restart:
                raise ListExpired(f"the list of {k.resource} changed faster than it could be read: its continue "
                                  f"token expired twice (410 Expired), also after one restart: retry, or narrow "
                                  f"it with -n")
        raise AssertionError("unreachable")

    def list_within(self, kind: str, namespace: str | None, most: int) -> Items | None:
        """Every object of `kind` when one page of `most` holds them all (one request); None when there are more
        (the caller reads what it needs by name instead). Errors as `list`'s."""
        k = _kind(kind)
        ns = namespace if k.namespaced else None
        query: dict[str, Any] = {"limit": most}
        r, _path = self._read(k, ns, None, query)
        self._check_list(r, k, query)
        doc, found = _list_page(r, k)
        meta = doc.get("metadata")
        if isinstance(meta, dict) and meta.get("continue"):
            return None
        api_version = doc.get("apiVersion", "")
        for item in found:
            item.setdefault("kind", k.kind)
            if api_version:
                item.setdefault("apiVersion", api_version)
        return [normalize(item) for item in found]

    def _pages(self, k: kinds.Kind, ns: str | None, query: dict[str, Any],
               reduce: Reducer | None) -> Items | None:
        """One paged list from the start; None when a continue token expired (410)."""
        items: Items = []
        seen: set[str] = set()
        pages, most, size = 0, MAX_PAGES, 0
        announced: object = None
        r, path = self._read(k, ns, None, query)
        while True:
            pages += 1
            size += len(r.body or b"")
            self._check_list(r, k, query)
            if size > list_bound():  # the pages of one list together, whatever they announce
                raise UnexpectedAnswer(_past_list_bound(k, pages, size, len(items)))
            doc, found = _list_page(r, k)
            api_version = doc.get("apiVersion", "")
            for item in found:
                item.setdefault("kind", k.kind)
                if api_version:
                    item.setdefault("apiVersion", api_version)
                obj = normalize(item)
                kept = obj if reduce is None else reduce(obj)
                if kept is not None:
                    items.append(kept)
            meta = doc.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            cont = meta.get("continue")
            cont = cont if isinstance(cont, str) else None
            if not cont:
                return items
            if cont in seen:  # a server that hands the same page token back would be followed forever
                raise UnexpectedAnswer(f"the API server answered list {k.resource} with a continue token it had "
                                       f"already given: the list cannot be read to its end")
            if pages == 1:
                most = _most_pages(meta, len(found), int(query.get("limit") or PAGE_SIZE))
                announced = meta.get("remainingItemCount")
            if pages >= most:  # a new token on every page, without end: stop rather than follow it forever
                raise UnexpectedAnswer(_endless(k, pages, len(items), announced))
            seen.add(cont)
            r = self.request("GET", path, {**query, "continue": cont}, verb="list", resource=k.resource,
                             namespace=ns)
            if r.status == 410:
                return None

    def _check_list(self, r: Response, k: kinds.Kind, query: dict[str, Any]) -> None:
        if r.status == 404:
            raise ApiUnavailable(_not_served(k, self.served_versions(k.group) if k.group else None))
        if r.status == 400 and query.get("fieldSelector") and "field label not supported" in _status_message(r):
            raise FieldSelectorUnsupported(
                f"the API server does not select {k.resource} by field ({query['fieldSelector']!r}): the CRD "
                f"it serves declares no such selectable field", resource=k.resource,
                selector=str(query["fieldSelector"]))
        _expect_ok(r, "GET", k.resource)

    def origin(self, obj: Obj) -> Origin:
        return LIVE

    # -- watching (why-pending -A --watch) ---------------------------------------------------
    def list_version(self, kind: str, namespace: str | None = None) -> str:
        """The resourceVersion a list of `kind` is at now (one object's page: a watch resumes from it)."""
        k = _kind(kind)
        ns = namespace if k.namespaced else None
        r, _path = self._read(k, ns, None, {"limit": 1})
        self._check_list(r, k, {})
        meta = _json_object(r, "list", k.resource, f"a list of {k.resource}").get("metadata")
        rv = meta.get("resourceVersion") if isinstance(meta, dict) else None
        if not isinstance(rv, str) or not rv:
            raise UnexpectedAnswer(f"the API server answered list {k.resource} without a resourceVersion: it "
                                   f"cannot be watched")
        return rv

    def watch(self, kind: str, namespace: str | None, resource_version: str, seconds: int,
              stop: threading.Event | None = None) -> Iterator[tuple[str, Obj] | None]:
        """One held watch: `watch=1&allowWatchBookmarks=true&resourceVersion=RV&timeoutSeconds=N`, its events
        as (type, object) one at a time as they arrive (objects normalised, BOOKMARKs included), and None for
        each moment in which nothing came (cluster/stream.READ_SLICE: the caller's clock and stop flag run).
        Ends when the server ends the answer; Stopped when `stop` is set. A 410 (the resourceVersion is too
        old), as a status or as an ERROR event in the stream, is ListExpired: relist."""
        from kubectl_pd.cluster import stream

        k = _kind(kind)
        ns = namespace if k.namespaced else None
        query = {"watch": "1", "allowWatchBookmarks": "true", "resourceVersion": resource_version,
                 "timeoutSeconds": str(seconds)}
        path = self.path(k, ns)
        transport = self._connect()
        self.requests += 1
        try:
            held = stream.open_held(transport, self.endpoint.server + path + "?" + urlencode(query))
        except (OSError, wire_errors()) as e:
            raise _stream_failure(transport, path, e) from None
        if held.status != 200:
            r = self._checked(Response(held.status, held.whole(), held.headers), "GET", path, "watch",
                              k.resource, ns)
            if r.status == 410:
                raise ListExpired(f"the watch of {k.resource} from resourceVersion {resource_version} expired (410)")
            self._check_list(r, k, query)
            raise UnexpectedAnswer(f"the API server answered the watch of {k.resource} with {_describe(r)}")
        try:
            for line in held.lines(stop):
                if line is None:
                    yield None
                    continue
                event = _event(line, k)
                if event is not None:
                    yield event
        except (OSError, wire_errors()) as e:
            raise _stream_failure(transport, path, e) from None
        finally:
            held.close()

    # -- beyond reading ---------------------------------------------------------------------
    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Any | None:
        """GET any path (visibility API, CRDs); None on 404."""
        r = self.request("GET", path, query, verb="get", resource=resource or path, namespace=namespace)
        if r.status == 404:
            return None
        _expect_ok(r, "GET", resource or path)
        return _json_object(r, "GET", resource or path, "a JSON object")

    def _body_version(self, k: kinds.Kind, obj: Obj) -> str | None:
        """The version the body is written in, when the server serves it and it is one of the kind's (the POST
        path must agree with the body's apiVersion); None: our preferred served version."""
        group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
        if group != k.group or version not in k.versions or version == k.versions[0]:
            return None
        return version if version in self.served_versions(k.group) else None

    def create(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        """POST one object; `dry_run` asks the server to validate it without persisting (dryRun=All).

        A real write carries this run's mark (annotation CREATE_ID), so that what it wrote can be told from
        what another run or user did. When the answer is lost (no answer within the deadline, a closed
        connection, a 5xx, a success that cannot be read), the object is read back once: ours is success
        (with a warning saying so), absent is "not created", and a failed read is AmbiguousWrite, naming the
        kubectl commands that settle it. A 409 meeting our own object (a POST retried after a 503 with
        Retry-After that the server had applied) is success, not a conflict."""
        k = _kind(str(obj.get("kind")))
        ns = (obj.get("metadata") or {}).get("namespace") if k.namespaced else None
        name = (obj.get("metadata") or {}).get("name", "")
        query = {"dryRun": "All"} if dry_run else None
        if not dry_run:
            obj = marked(obj, self.run_id)
        try:
            r = self.request("POST", self.path(k, ns, version=self._body_version(k, obj)), query, body=obj,
                             verb="create", resource=k.resource, namespace=ns)
            if r.status == 409:
                mine = None if dry_run else self._read_back(k, ns, name, None)
                if mine is not None:
                    return mine
                raise ConflictError(f'{k.resource} "{name}" already exists: kubectl-pd never overwrites; '
                                    f"delete it first or choose another name")
            if r.status == 404 and not _is_status(r):
                raise ApiUnavailable(_NOT_INSTALLED.get(k.group, f"{k.resource} is not served"))
            if r.status in (400, 404, 422):
                raise PdError(f'the API server refused {k.resource} "{name}": {_status_message(r)}')
            _expect_ok(r, "POST", k.resource)
            return _json_object(r, "POST", k.resource, f"the {k.kind} created")
        except ClusterError as e:
            if dry_run or not _maybe_applied(e):
                raise
            found = self._read_back(k, ns, name, e)
            if found is None:
                raise
            return found

    def _read_back(self, k: kinds.Kind, ns: str | None, name: str, lost: PdError | None) -> Obj | None:
        """After a lost answer (`lost`) or a 409 (None): the object as stored when this run wrote it, else
        None after a 409; after a lost answer, a PdError saying what was found."""
        ref = f"{k.resource}/{name}"
        where = f" -n {ns}" if ns else ""
        settle = f"check with `kubectl get {ref}{where}`, remove it with `kubectl delete {ref}{where}`"
        try:
            found = self.get(k.kind, name, ns)
        except PdError as e:
            if lost is None:
                return None
            raise AmbiguousWrite(f"{ref} may have been created: the answer to its POST was lost ({_first(lost)}), "
                                 f"and reading it back failed ({_first(e)}); {settle}") from None
        ours = found is not None and ((found.get("metadata") or {}).get("annotations") or {}).get(
            CREATE_ID) == self.run_id
        if lost is None:
            return found if ours else None
        if found is None:
            raise PdError(f"{ref} was not created: the answer to its POST was lost ({_first(lost)}), and reading it "
                          f"back finds no such object") from None
        if not ours:
            raise ConflictError(f"{ref} exists but was not written by this run: the answer to its POST was lost "
                                f"({_first(lost)}) and another writer holds the name; {settle}") from None
        from kubectl_pd.output import stderr  # rare: kept off the start-up path

        uid = (found.get("metadata") or {}).get("uid") or "unknown"
        stderr.say(stderr.WARNING, f"the answer to the POST of {ref} was lost ({_first(lost)}); reading it back "
                   f"finds it created by this run (uid {uid})", echo=False, flush=False)
        return found


def _run_id() -> str:
    import os

    return os.urandom(12).hex()


CREATE_ID = "kubectl-pd.io/create-id"  # the run that wrote an object (LiveSource.create)


def marked(obj: Obj, run_id: str) -> Obj:
    """`obj` with this run's CREATE_ID annotation (a copy: the caller's object is unchanged)."""
    meta = dict(obj.get("metadata") or {})
    meta["annotations"] = {**(meta.get("annotations") or {}), CREATE_ID: run_id}
    return {**obj, "metadata": meta}


def _maybe_applied(e: PdError) -> bool:
    """Whether a failed POST may have been applied by the server."""
    from kubectl_pd.cluster.http import Throttled, Timeout

    if isinstance(e, Throttled):
        return e.status >= 500
    return isinstance(e, ServerError | BrokenAnswer | UnexpectedAnswer | Timeout) and not isinstance(e, AmbiguousWrite)


def _first(e: PdError) -> str:
    return e.message.split(": check", 1)[0].split(": retry", 1)[0]


MAX_PAGES = 2_000  # pages of one list when the first announces no count: a million objects at 500 a page
LIST_BOUND_ANSWERS = 2  # the pages of one list together: at most this many times the bound on one answer


def list_bound() -> int:
    """The bytes the pages of one list may hold together: twice the bound on one answer (1 GiB by default,
    KUBECTL_PD_MAX_RESPONSE_SIZE scales both). A server that hands out page after page (a new continue
    token each time) stops there, in memory and time, as a single answer stops at its own bound."""
    from kubectl_pd.cluster import wire

    return LIST_BOUND_ANSWERS * wire.MAX_BODY


def _endless(k: kinds.Kind, pages: int, objects: int, announced: object) -> str:
    """A list that goes on past its page bound: what its first page announced, else MAX_PAGES."""
    past = (f"past what its first page announced ({announced:,} objects to come)" if type(announced) is int
            and announced >= 0 else f"past the bound of {MAX_PAGES:,} pages on a list whose first page announces "
            f"no count")
    return (f"the API server answered list {k.resource} with page after page ({pages:,} pages, {objects:,} "
            f"objects) {past}: the list cannot be read to its end; retry, or narrow it with -n or a selector")


def _text_too_large(what: str, chars: int, width: int) -> str:
    from kubectl_pd.cluster import wire
    from kubectl_pd.cluster.pool import format_bytes

    return (f"the API server's answer to {what or 'a request'} holds {chars:,} characters, {chars * width:,} bytes "
            f"as text to parse ({width} bytes a character), past the bound of {format_bytes(wire.MAX_BODY)} on one "
            f"answer: narrow the request (-n, a selector), or raise KUBECTL_PD_MAX_RESPONSE_SIZE if it is right")


def _past_list_bound(k: kinds.Kind, pages: int, size: int, objects: int) -> str:
    from kubectl_pd.cluster.pool import format_bytes

    return (f"the API server answered list {k.resource} with {pages:,} pages of {size:,} bytes together "
            f"({objects:,} objects read), past the bound of {format_bytes(list_bound())} on one list (twice "
            f"the bound on one answer): narrow it with -n or a selector, or raise KUBECTL_PD_MAX_RESPONSE_SIZE "
            f"if it is right")


def _most_pages(meta: dict[str, Any], first: int, limit: int) -> int:
    """How many pages one list may take: what the first page's remainingItemCount allows (twice over, and
    ten more: objects are created while we read), else MAX_PAGES."""
    remaining = meta.get("remainingItemCount")
    if type(remaining) is not int or remaining < 0:
        return MAX_PAGES
    return min(MAX_PAGES, 2 * (1 + -(-remaining // max(1, limit))) + 10)


def wire_errors() -> type[Exception]:
    from kubectl_pd.cluster.wire import ProtocolError

    return ProtocolError


def _stream_failure(transport: Any, path: str, e: BaseException) -> ClusterError:
    """A held answer that failed, in the words Transport.send uses for any request."""
    import socket
    import ssl

    from kubectl_pd.cluster.http import tls_failure

    if isinstance(e, TimeoutError):
        error: ClusterError = transport._timeout_error(transport.deadline_for("GET") or 0)
        return error
    if isinstance(e, ssl.SSLError | ssl.CertificateError):
        return ClusterError(tls_failure(transport.ep.origin, e))
    if isinstance(e, ConnectionRefusedError | socket.gaierror):
        error = transport._unreachable(e)
        return error
    error = transport._broken("GET", path, e)
    return error


def _event(line: bytes, k: kinds.Kind) -> tuple[str, Obj] | None:
    """One line of a watch: (type, object normalised); None for a line that is no event; ERROR raises."""
    try:
        ev = json.loads(line)
    except ValueError:
        raise UnexpectedAnswer(f"the API server answered the watch of {k.resource} with a line that is not JSON: "
                               f"nothing more was read") from None
    typ, obj = (ev.get("type"), ev.get("object")) if isinstance(ev, dict) else (None, None)
    if not isinstance(typ, str) or not isinstance(obj, dict):
        return None
    if typ == "ERROR":
        if obj.get("code") == 410:
            raise ListExpired(f"the watch of {k.resource} expired (410 Gone)")
        raise UnexpectedAnswer(f"the watch of {k.resource} failed: {obj.get('message') or obj}")
    obj.setdefault("kind", k.kind)
    return typ, normalize(obj)


def _kind(kind: str) -> kinds.Kind:
    k = kinds.lookup(kind)
    if k is None:
        raise InputError(f"unknown kind {kind!r}")
    return k


def _is_status(r: Response) -> bool:
    doc = r.json()
    return isinstance(doc, dict) and doc.get("kind") == "Status"


def _status_message(r: Response) -> str:
    from kubectl_pd.cluster.http import redact

    doc = r.json()
    if isinstance(doc, dict) and doc.get("message"):
        return redact(str(doc["message"]).splitlines()[0][:300])
    return _describe(r)


def _expect_ok(r: Response, method: str, resource: str) -> None:
    if 200 <= r.status < 300:
        return
    if r.status == 404:
        raise NotFoundError(f"{resource}: not found")
    raise ClusterError(f"the API server answered {r.status} to {method} {resource}: {_status_message(r)}")


def _list_page(r: Response, k: kinds.Kind) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One page of a list: the document and its items, or UnexpectedAnswer when it is no list of objects."""
    doc = _json_object(r, "list", k.resource, f"a list of {k.resource}")
    found = doc.get("items")
    if not isinstance(found, list) or not str(doc.get("kind") or "List").endswith("List") \
            or not all(isinstance(i, dict) for i in found):
        raise UnexpectedAnswer(f"the API server answered list {k.resource} with {_describe(r)}, not a "
                               f"list of {k.resource}: nothing was read")
    return doc, found


def _describe(r: Response) -> str:
    """What came back, in a few words (never the body itself: it may be a login page or worse), from the one
    parse of the answer (the body is never copied, nor decoded again)."""
    from kubectl_pd.cluster.answer import SMALL, first, stripped_size

    body = r.body or b""
    start = first(body)
    ctype = r.headers.get("content-type", "").split(";")[0].strip()
    if start >= len(body):
        return "an empty body"
    size, lead = stripped_size(body, start), body[start:start + 1]
    if ctype == "text/html" or lead == b"<":
        return f"an HTML page ({size} bytes)"
    doc, ok = r.parsed()
    if not ok and lead != b"{" and size > SMALL:
        return f"text that is not a JSON object ({ctype or 'no content type'}, {size} bytes, not parsed)"
    if not ok:
        if lead in (b"{", b"["):
            return f"JSON cut short ({size} bytes)"
        return f"text that is not JSON ({ctype or 'no content type'}, {size} bytes)"
    if doc is None:
        return "null"
    if isinstance(doc, dict):
        kind = doc.get("kind")
        return f"a {kind}" if isinstance(kind, str) and kind else "a JSON object without a kind"
    return f"a JSON {type(doc).__name__}"


def _json_object(r: Response, verb: str, what: str, wanted: str) -> dict[str, Any]:
    doc = r.json()
    if not isinstance(doc, dict):
        raise UnexpectedAnswer(f"the API server answered {verb} {what} with {_describe(r)}, not {wanted}")
    return doc
