"""Where to send requests and with which credentials, read from the kubeconfig without the kubernetes client.

An `Endpoint` is one context resolved the way client-go resolves it: file paths relative to the kubeconfig
file that named them, `tokenFile` over `token` (both trimmed), `*-data` over files, `proxy-url` over the
environment. Only an `auth-provider` user needs the kubernetes package (`needs_client`).
"""

from __future__ import annotations

import base64
import binascii
import os
from urllib.parse import urlsplit

from kubectl_pd.cluster.config import (
    ClusterOptions,
    kubeconfig_paths,
    origin_of,
    proxy_for,
    read_kubeconfig,
    resolve_context,
)
from kubectl_pd.errors import PdError
from kubectl_pd.records import dataclass, field

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


@dataclass
class Endpoint:
    """One context, resolved: server, TLS material, credentials, proxy."""

    server: str
    context: str = ""
    user: str = ""
    ca_file: str | None = None
    ca_data: bytes | None = None
    insecure: bool = False
    tls_server_name: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    cert_data: bytes | None = None
    key_data: bytes | None = None
    token: str | None = None
    token_file: str | None = None
    basic: tuple[str, str] | None = None
    proxy: str | None = None
    impersonate: dict[str, list[str]] = field(default_factory=dict)
    exec_spec: dict[str, Any] | None = None
    cluster: dict[str, Any] = field(default_factory=dict)  # the raw cluster entry (exec provideClusterInfo)
    needs_client: bool = False  # an auth-provider (OIDC, GCP, Azure): the kubernetes package resolves it

    @property
    def origin(self) -> str:
        """scheme://host[:port], the form error messages name."""
        parts = urlsplit(self.server)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")


def in_cluster_only(opts: ClusterOptions) -> bool:
    """Inside a Pod with no kubeconfig anywhere, use the service account like kubectl does."""
    if opts.kubeconfig or os.environ.get("KUBECONFIG"):
        return False
    paths = kubeconfig_paths(opts)
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and not any(os.path.exists(p) for p in paths)


def in_cluster(sa_dir: str = SERVICE_ACCOUNT_DIR) -> Endpoint:
    """The Pod's service account (client-go's InClusterConfig): the token file is re-read as it rotates."""
    host = os.environ.get("KUBERNETES_SERVICE_HOST", "")
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    token_file = os.path.join(sa_dir, "token")
    if not host or not os.path.exists(token_file):
        raise PdError("no kubeconfig found and no service account token in this Pod: set --kubeconfig or "
                      "KUBECONFIG, or work offline with --from-file/-f")
    if ":" in host:
        host = f"[{host}]"
    ca = os.path.join(sa_dir, "ca.crt")
    return Endpoint(server=f"https://{host}:{port}", context="in-cluster", user="service account",
                    ca_file=ca if os.path.exists(ca) else None, token_file=token_file)


def _named(config: dict[str, Any], section: str, name: Any) -> dict[str, Any] | None:
    for entry in config.get(section) or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
    return None


def _path(value: Any, base: str | None) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    value = os.path.expanduser(value)
    if base and not os.path.isabs(value):
        return os.path.join(base, value)
    return value


def _data(value: Any, what: str, context: str) -> bytes | None:
    if not value:
        return None
    try:
        return base64.b64decode(str(value), validate=False)
    except (binascii.Error, ValueError):
        raise PdError(f"context {context!r}: {what} is not valid base64") from None


def resolve(opts: ClusterOptions, config: dict[str, Any] | None = None) -> Endpoint:
    """The Endpoint of the chosen context (or the in-cluster service account)."""
    if config is None and in_cluster_only(opts):
        return in_cluster()
    config = config if config is not None else read_kubeconfig(opts)
    ctx = resolve_context(opts, config)
    name = str(ctx.get("name"))
    body = ctx.get("context") if isinstance(ctx.get("context"), dict) else {}
    cl_entry = _named(config, "clusters", body.get("cluster"))
    if cl_entry is None:
        raise PdError(f"context {name!r} names cluster {body.get('cluster')!r}, which the kubeconfig does not "
                      f"define")
    user_name = body.get("user")
    user_entry = _named(config, "users", user_name) or {}
    cluster = cl_entry.get("cluster") if isinstance(cl_entry.get("cluster"), dict) else {}
    user = user_entry.get("user") if isinstance(user_entry.get("user"), dict) else {}
    cbase, ubase = origin_of(config, "clusters", cl_entry), origin_of(config, "users", user_entry)
    server = str(cluster.get("server") or "")
    if not server:
        raise PdError(f"context {name!r}: cluster {body.get('cluster')!r} has no server")
    if "://" not in server:
        server = "https://" + server
    ep = Endpoint(server=server.rstrip("/"), context=name, user=str(user_name or ""), cluster=cluster)
    ep.insecure = bool(cluster.get("insecure-skip-tls-verify"))
    ep.ca_data = _data(cluster.get("certificate-authority-data"), "certificate-authority-data", name)
    ep.ca_file = None if ep.ca_data else _path(cluster.get("certificate-authority"), cbase)
    if ep.insecure and (ep.ca_data or ep.ca_file):  # client-go refuses this combination too
        raise PdError(f"context {name!r}: specifying a root certificates file with the insecure flag is not "
                      f"allowed (certificate-authority and insecure-skip-tls-verify both set)")
    ep.tls_server_name = cluster.get("tls-server-name") or None
    ep.cert_data = _data(user.get("client-certificate-data"), "client-certificate-data", name)
    ep.key_data = _data(user.get("client-key-data"), "client-key-data", name)
    ep.cert_file = None if ep.cert_data else _path(user.get("client-certificate"), ubase)
    ep.key_file = None if ep.key_data else _path(user.get("client-key"), ubase)
    ep.token_file = _path(user.get("tokenFile"), ubase)
    ep.token = str(user.get("token")).strip() if user.get("token") and not ep.token_file else None
    if user.get("username") and user.get("password") is not None:
        ep.basic = (str(user["username"]), str(user["password"]))
    if isinstance(user.get("exec"), dict):
        ep.exec_spec = user["exec"]
    if isinstance(user.get("auth-provider"), dict):
        ep.needs_client = True
    for key, header in (("as", "Impersonate-User"), ("as-uid", "Impersonate-Uid")):
        if user.get(key):
            ep.impersonate[header] = [str(user[key])]
    if isinstance(user.get("as-groups"), list):
        ep.impersonate["Impersonate-Group"] = [str(g) for g in user["as-groups"]]
    proxy = cluster.get("proxy-url")
    ep.proxy = str(proxy) if proxy else proxy_for(ep.server)
    return ep
