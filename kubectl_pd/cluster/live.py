"""A Source over a live API server through the `kubernetes` client (imported only here, lazily).

Requests go through the client's configured connection pool (TLS, client certificates, exec and
token auth all come from `load_kube_config`); paths are built here so that Kueue, GPUStack, core,
discovery and visibility reads share one error mapping.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from kubectl_pd.cluster import kinds
from kubectl_pd.cluster.config import (
    ClusterOptions,
    kubeconfig_paths,
    proxy_for,
    read_kubeconfig,
    resolve_context,
)
from kubectl_pd.cluster.source import LIVE, Obj, Origin
from kubectl_pd.errors import (
    ApiUnavailable,
    ClusterError,
    ConflictError,
    ForbiddenError,
    InputError,
    NotFoundError,
    PdError,
)
from kubectl_pd.kueue.normalize import normalize

_NOT_INSTALLED = {
    kinds.KUEUE_GROUP: "Kueue is not installed in this cluster (the API group kueue.x-k8s.io is not served): "
    "install Kueue, or check the context",
    kinds.GPUSTACK_GROUP: "the ModelDeployment CRD is not installed in this cluster "
    "(modeldeployments.worker.gpustack.ai is not served): install the GPUStack operator, or check the context",
}


class Response:
    def __init__(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.status = status
        self.body = body
        self.headers = headers

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None


class LiveSource:
    """Reads (and, for `create`, writes) through one kubeconfig context."""

    is_live = True

    def __init__(self, opts: ClusterOptions) -> None:
        self.opts = opts
        config = read_kubeconfig(opts) if not _in_cluster_only(opts) else None
        self.context_name = ""
        if config is not None:
            ctx = resolve_context(opts, config)
            self.context_name = str(ctx.get("name"))
        self._cfg: Any = None
        self._pool: Any = None
        self._served: dict[str, list[str]] = {}
        self.requests: int = 0  # count of HTTP requests sent, for benchmarks

    # -- connection -------------------------------------------------------------------------
    def _connect(self) -> None:
        if self._cfg is not None:
            return
        from kubernetes import client as kclient  # lazy: keeps --help and file-only work fast
        from kubernetes import config as kconfig
        from kubernetes.config.config_exception import ConfigException

        cfg = kclient.Configuration()
        try:
            if _in_cluster_only(self.opts):
                kconfig.load_incluster_config(client_configuration=cfg)
            else:
                kconfig.load_kube_config(
                    config_file=os.pathsep.join(kubeconfig_paths(self.opts)),
                    context=self.context_name or None,
                    client_configuration=cfg,
                    persist_config=False,
                )
        except ConfigException as e:
            raise PdError(f"cannot use kubeconfig context {self.context_name!r}: {_first_line(e)}") from None
        except (OSError, ValueError) as e:
            raise PdError(f"cannot use kubeconfig context {self.context_name!r}: {_first_line(e)}") from None
        cfg.retries = False  # one attempt: a timeout means the timeout the user asked for
        if not getattr(cfg, "proxy", None):  # kubeconfig `proxy-url` wins, as in kubectl
            cfg.proxy = proxy_for(cfg.host)
        self._cfg = cfg
        self._pool = kclient.rest.RESTClientObject(cfg).pool_manager

    @property
    def server(self) -> str:
        self._connect()
        parts = urlsplit(self._cfg.host)
        return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")

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
        """Send one request; map transport failures and 401/403/5xx to one-line errors."""
        import urllib3

        self._connect()
        cfg = self._cfg
        if getattr(cfg, "refresh_api_key_hook", None) is not None:
            cfg.refresh_api_key_hook(cfg)
        headers = {"Accept": "application/json", "User-Agent": "kubectl-pd"}
        for auth in cfg.auth_settings().values():
            if auth.get("in") == "header" and auth.get("value"):
                headers[auth["key"]] = auth["value"]
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        url = cfg.host.rstrip("/") + path + (("?" + urlencode(query)) if query else "")
        t = self.opts.request_timeout
        timeout = urllib3.Timeout(connect=t, read=t) if t else urllib3.Timeout(connect=30, read=None)
        self.requests += 1
        try:
            r = self._pool.request(method, url, body=data, headers=headers, timeout=timeout, retries=False)
        except urllib3.exceptions.NewConnectionError as e:  # (a ConnectTimeoutError subclass: first)
            raise ClusterError(
                f"cannot reach the API server at {self.server} ({_reason(e)}): "
                f"is the cluster up, and is context {self.context_name!r} the right one?"
            ) from None
        except urllib3.exceptions.TimeoutError:
            raise ClusterError(
                f"the API server at {self.server} did not answer within {_secs(t)} "
                f"(--request-timeout): check the network or raise the timeout"
            ) from None
        except urllib3.exceptions.SSLError:
            raise ClusterError(
                f"TLS handshake with the API server at {self.server} failed: "
                f"check the cluster's certificate-authority in the kubeconfig"
            ) from None
        except urllib3.exceptions.HTTPError as e:
            raise ClusterError(
                f"cannot reach the API server at {self.server} ({_reason(e)}): "
                f"is the cluster up, and is context {self.context_name!r} the right one?"
            ) from None
        resp = Response(r.status, r.data, dict(r.headers))
        if resp.status == 401:
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
            raise ForbiddenError(
                f"forbidden: RBAC does not let {who} {verb or method.lower()} "
                f"{resource or path}{where}: ask for that permission, or work from a snapshot with --from-file",
                verb=verb,
                resource=resource,
                namespace=namespace or "",
            )
        if resp.status >= 500:
            raise ClusterError(f"the API server answered {resp.status} to {method} {path}: {_status_message(resp)}")
        return resp

    # -- discovery --------------------------------------------------------------------------
    def served_versions(self, group: str) -> list[str]:
        """Versions of `group` the server serves, preferred first; [] when the group is absent."""
        if group not in self._served:
            if group == "":
                self._served[group] = ["v1"]
            else:
                r = self.request("GET", f"/apis/{group}", verb="get", resource=f"apigroups/{group}")
                versions: list[str] = []
                doc = r.json() if r.status == 200 else None
                if isinstance(doc, dict):
                    pref = (doc.get("preferredVersion") or {}).get("version")
                    versions = [v.get("version") for v in doc.get("versions") or [] if v.get("version")]
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
            raise ApiUnavailable(_NOT_INSTALLED.get(kind.group, f"the API group {kind.group} is not served"))
        raise ApiUnavailable(
            f"{kind.resource} is served only at {', '.join(served)}, which kubectl-pd cannot read "
            f"(it reads {', '.join(kind.versions)})"
        )

    def path(self, kind: kinds.Kind, namespace: str | None, name: str | None = None) -> str:
        version = self.version_for(kind)
        base = f"/apis/{kind.group}/{version}" if kind.group else f"/api/{version}"
        if kind.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{kind.plural}"
        return base + (f"/{quote(name, safe='')}" if name else "")

    # -- Source -----------------------------------------------------------------------------
    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        k = _kind(kind)
        ns = namespace if k.namespaced else None
        r = self.request("GET", self.path(k, ns, name), verb="get", resource=k.resource, namespace=ns)
        if r.status == 404:
            if not _is_status(r):  # a bare 404 page: the resource type itself is gone
                raise ApiUnavailable(_NOT_INSTALLED.get(k.group, f"{k.resource} is not served"))
            return None
        _expect_ok(r, "GET", k.resource)
        return normalize(r.json())

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[Obj]:
        k = _kind(kind)
        ns = namespace if k.namespaced else None
        query: dict[str, Any] = {}
        if label_selector:
            query["labelSelector"] = label_selector
        if field_selector:
            query["fieldSelector"] = field_selector
        items: list[Obj] = []
        path = self.path(k, ns)
        while True:
            r = self.request("GET", path, query or None, verb="list", resource=k.resource, namespace=ns)
            if r.status == 404:
                raise ApiUnavailable(_NOT_INSTALLED.get(k.group, f"{k.resource} is not served"))
            _expect_ok(r, "GET", k.resource)
            doc = r.json() or {}
            api_version = doc.get("apiVersion", "")
            for item in doc.get("items") or []:
                item.setdefault("kind", k.kind)
                if api_version:
                    item.setdefault("apiVersion", api_version)
                items.append(normalize(item))
            cont = (doc.get("metadata") or {}).get("continue")
            if not cont:
                return items
            query = {**query, "continue": cont}

    def origin(self, obj: Obj) -> Origin:
        return LIVE

    # -- beyond reading ---------------------------------------------------------------------
    def get_raw(self, path: str, query: dict[str, Any] | None = None, *, resource: str = "",
                namespace: str | None = None) -> Any | None:
        """GET any path (visibility API, CRDs); None on 404."""
        r = self.request("GET", path, query, verb="get", resource=resource or path, namespace=namespace)
        if r.status == 404:
            return None
        _expect_ok(r, "GET", resource or path)
        return r.json()

    def create(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        """POST one object; `dry_run` asks the server to validate it without persisting (dryRun=All)."""
        k = _kind(str(obj.get("kind")))
        ns = (obj.get("metadata") or {}).get("namespace") if k.namespaced else None
        query = {"dryRun": "All"} if dry_run else None
        r = self.request("POST", self.path(k, ns), query, body=obj, verb="create", resource=k.resource,
                         namespace=ns)
        name = (obj.get("metadata") or {}).get("name", "")
        if r.status == 409:
            raise ConflictError(f'{k.resource} "{name}" already exists: kubectl-pd never overwrites; '
                                f"delete it first or choose another name")
        if r.status == 404 and not _is_status(r):
            raise ApiUnavailable(_NOT_INSTALLED.get(k.group, f"{k.resource} is not served"))
        if r.status in (400, 404, 422):
            raise PdError(f'the API server refused {k.resource} "{name}": {_status_message(r)}')
        _expect_ok(r, "POST", k.resource)
        return r.json()


def _kind(kind: str) -> kinds.Kind:
    k = kinds.lookup(kind)
    if k is None:
        raise InputError(f"unknown kind {kind!r}")
    return k


def _is_status(r: Response) -> bool:
    doc = r.json()
    return isinstance(doc, dict) and doc.get("kind") == "Status"


def _status_message(r: Response) -> str:
    doc = r.json()
    if isinstance(doc, dict) and doc.get("message"):
        return str(doc["message"]).splitlines()[0]
    return (r.body or b"").decode("utf-8", "replace").strip().splitlines()[0][:200] if r.body else "no detail"


def _expect_ok(r: Response, method: str, resource: str) -> None:
    if 200 <= r.status < 300:
        return
    if r.status == 404:
        raise NotFoundError(f"{resource}: not found")
    raise ClusterError(f"the API server answered {r.status} to {method} {resource}: {_status_message(r)}")


def _in_cluster_only(opts: ClusterOptions) -> bool:
    """Inside a Pod with no kubeconfig anywhere, use the service account like kubectl does."""
    if opts.kubeconfig or os.environ.get("KUBECONFIG"):
        return False
    paths = kubeconfig_paths(opts)
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and not any(os.path.exists(p) for p in paths)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _reason(e: BaseException) -> str:
    reason = getattr(e, "reason", None) or e
    text = str(reason)
    if "Connection refused" in text or "Errno 111" in text:
        return "connection refused"
    if "Name or service not known" in text or "nodename nor servname" in text or "Errno -2" in text:
        return "host name not found"
    if "timed out" in text:
        return "connection timed out"
    return type(reason).__name__


def _secs(t: float | None) -> str:
    if t is None:
        return "the default timeout"
    return f"{t:g}s"
