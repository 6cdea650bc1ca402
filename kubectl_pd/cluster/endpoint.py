"""Where to send requests and with which credentials, read from the kubeconfig without the kubernetes client.

An `Endpoint` is one context resolved the way client-go resolves it: file paths relative to the kubeconfig
file that named them, `tokenFile` over `token` (both trimmed), `*-data` over files, `proxy-url` over the
environment. Only an `auth-provider` user needs the kubernetes package (`needs_client`).
"""

from __future__ import annotations

import os

from kubectl_pd.cluster.config import (
    ClusterOptions,
    kubeconfig_paths,
    origin_of,
    proxy_for,
    read_kubeconfig,
    resolve_context,
)
from kubectl_pd.cluster.kcschema import decode_bytes
from kubectl_pd.cluster.urls import split
from kubectl_pd.errors import PdError
from kubectl_pd.lazyre import lazy

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:  # mypy reads records' dataclass as the standard one (same semantics)
    from dataclasses import dataclass, field
    from typing import Any
else:
    from kubectl_pd.records import dataclass, field

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
        parts = split(self.server)
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
        from kubectl_pd.cluster.config import offline_hint

        raise PdError("no kubeconfig found and no service account token in this Pod: set --kubeconfig or "
                      "KUBECONFIG" + offline_hint())
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
    data = decode_bytes(str(value))
    if data is None:  # read_kubeconfig refuses it first; a config handed in directly lands here
        raise PdError(f"context {context!r}: {what} is not valid base64")
    return data


def _body(entry: dict[str, Any] | None, key: str) -> dict[str, Any]:
    value = (entry or {}).get(key)
    return value if isinstance(value, dict) else {}


def _entries(opts: ClusterOptions, config: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any] | None,
                                                                      dict[str, Any] | None]:
    """(context name, context body, cluster entry, user entry): --cluster and --user pick other entries than
    the context's, and must exist when given (as in kubectl)."""
    ctx = resolve_context(opts, config)
    name = str(ctx.get("name") or "")
    body = _body(ctx, "context")
    cl_entry = _named(config, "clusters", opts.cluster or body.get("cluster"))
    if opts.cluster and cl_entry is None:
        raise PdError(f'cluster "{opts.cluster}" does not exist in the kubeconfig (--cluster)')
    if cl_entry is None and not opts.server:
        raise PdError(f"context {name!r} names cluster {body.get('cluster')!r}, which the kubeconfig does not "
                      f"define")
    user_entry = _named(config, "users", opts.user or body.get("user"))
    if opts.user and user_entry is None:
        raise PdError(f'user "{opts.user}" does not exist in the kubeconfig (--user)')
    return name, body, cl_entry, user_entry


def merged_cluster(opts: ClusterOptions, cluster: dict[str, Any], base: str | None) -> dict[str, Any]:
    """The cluster entry with the flags applied as kubectl applies them; relative paths made absolute (a
    flag's relative to the working directory, the kubeconfig's to its file)."""
    out = dict(cluster)
    if out.get("certificate-authority"):
        out["certificate-authority"] = _path(out["certificate-authority"], base)
    if opts.server:
        out["server"] = opts.server
    if opts.proxy_url:
        out["proxy-url"] = opts.proxy_url
    if opts.insecure or opts.certificate_authority:  # either flag replaces all three settings
        out["insecure-skip-tls-verify"] = bool(opts.insecure)
        out["certificate-authority"] = _path(opts.certificate_authority, None)
        out.pop("certificate-authority-data", None)
    if opts.server or opts.tls_server_name:  # --server drops the kubeconfig's tls-server-name
        out["tls-server-name"] = opts.tls_server_name or None
    return out


def merged_user(opts: ClusterOptions, user: dict[str, Any]) -> dict[str, Any]:
    """The user entry with --token, the client certificate and the impersonation flags applied, as kubectl
    merges them: each replaces the kubeconfig's (a certificate or key file replaces its data too), and
    --as-user-extra replaces the values of the keys it names."""
    out = dict(user)
    for key, value in (("token", opts.token), ("as", opts.as_user), ("as-uid", opts.as_uid),
                       ("as-groups", list(opts.as_groups) or None)):
        if value:
            out[key] = value
    for key, path in (("client-certificate", opts.client_certificate), ("client-key", opts.client_key)):
        if path:
            out[key] = os.path.abspath(os.path.expanduser(path))
            out.pop(key + "-data", None)
    extra = flag_extra(opts.as_user_extra)
    if extra:
        out["as-user-extra"] = {**(out.get("as-user-extra") or {}), **extra}
    return out


def flag_extra(given: tuple[str, ...]) -> dict[str, list[str]]:
    """--as-user-extra key=value (repeatable; a key given twice gets both values), as kubectl reads it: the
    first `=` splits, and a value without `=` is ignored."""
    out: dict[str, list[str]] = {}
    for item in given:
        key, eq, value = item.partition("=")
        if eq:
            out.setdefault(key, []).append(value)
    return out


def resolve(opts: ClusterOptions, config: dict[str, Any] | None = None) -> Endpoint:
    """The Endpoint of the chosen context (or the in-cluster service account), flags applied."""
    if config is None and in_cluster_only(opts):
        return in_cluster_with(opts)
    config = config if config is not None else read_kubeconfig(opts)
    name, body, cl_entry, user_entry = _entries(opts, config)
    cluster = merged_cluster(opts, _body(cl_entry, "cluster"), origin_of(config, "clusters", cl_entry or {}))
    user = merged_user(opts, _body(user_entry, "user"))
    user_name = str(opts.user or body.get("user") or "")
    server = str(cluster.get("server") or "")
    if not server:
        raise PdError(f"context {name!r}: cluster {body.get('cluster')!r} has no server")
    ep = Endpoint(server=server if "://" in server else "https://" + server, context=name, user=user_name,
                  cluster=cluster)
    ep.server = ep.server.rstrip("/")
    _tls(ep, cluster, name)
    _credentials(ep, user, origin_of(config, "users", user_entry or {}), name)
    check_user(user_name, user)
    ep.impersonate = impersonation_headers(user)
    proxy = cluster.get("proxy-url")
    ep.proxy = str(proxy) if proxy else proxy_for(ep.server)
    return ep


def in_cluster_with(opts: ClusterOptions, sa_dir: str = SERVICE_ACCOUNT_DIR) -> Endpoint:
    """In a Pod, kubectl takes --server, --token and --certificate-authority over the service account's."""
    ep = in_cluster(sa_dir)
    if opts.server:
        ep.server = opts.server.rstrip("/")
    if opts.token:
        ep.token, ep.token_file = opts.token, None
        from kubectl_pd.termsafe import remember

        remember(opts.token)
    if opts.certificate_authority:
        ep.ca_file = opts.certificate_authority
    return ep


def _tls(ep: Endpoint, cluster: dict[str, Any], name: str) -> None:
    ep.insecure = cluster.get("insecure-skip-tls-verify") is True
    ep.ca_data = _data(cluster.get("certificate-authority-data"), "certificate-authority-data", name)
    ep.ca_file = None if ep.ca_data else cluster.get("certificate-authority") or None
    if ep.insecure and (ep.ca_data or ep.ca_file):  # client-go refuses this combination too
        raise PdError(f"context {name!r}: specifying a root certificates file with the insecure flag is not "
                      f"allowed (certificate-authority and insecure-skip-tls-verify both set)")
    ep.tls_server_name = cluster.get("tls-server-name") or None


def _credentials(ep: Endpoint, user: dict[str, Any], base: str | None, name: str) -> None:
    ep.cert_data = _data(user.get("client-certificate-data"), "client-certificate-data", name)
    ep.key_data = _data(user.get("client-key-data"), "client-key-data", name)
    ep.cert_file = None if ep.cert_data else _path(user.get("client-certificate"), base)
    ep.key_file = None if ep.key_data else _path(user.get("client-key"), base)
    ep.token_file = _path(user.get("tokenFile"), base)
    ep.token = str(user.get("token")).strip() if user.get("token") and not ep.token_file else None
    if user.get("username") and user.get("password") is not None:
        ep.basic = (str(user["username"]), str(user["password"]))
    if isinstance(user.get("exec"), dict):
        ep.exec_spec = user["exec"]
    if isinstance(user.get("auth-provider"), dict):
        ep.needs_client = True
    _remember(ep, user)


_SECRET_FLAG = lazy(r"(?i)secret|token|passw|key|credential")


def _remember(ep: Endpoint, user: dict[str, Any]) -> None:
    """Every credential of the user, redacted from all output from now on (kubectl_pd/termsafe.py):
    the token, the password and the Basic header's base64, the client key's lines, an exec plugin's
    argument values and environment, an auth-provider's config values."""
    import base64

    from kubectl_pd.termsafe import remember

    remember(ep.token)
    if ep.basic is not None:
        raw = f"{ep.basic[0]}:{ep.basic[1]}"
        remember(ep.basic[1], raw, base64.b64encode(raw.encode()).decode())
    if ep.key_data:
        remember(*(line for line in ep.key_data.decode("ascii", "replace").splitlines()
                   if len(line) >= 16 and not line.startswith("-----")))
    spec = ep.exec_spec or {}
    args = [a for a in spec.get("args") or [] if isinstance(a, str)]
    for before, arg in zip([""] + args, args, strict=False):
        if "=" in arg:
            remember(arg.split("=", 1)[1])
        elif before.startswith("-") and "=" not in before and _SECRET_FLAG.search(before):
            remember(arg)  # `--client-secret VALUE`
    for entry in spec.get("env") or []:
        if isinstance(entry, dict) and isinstance(entry.get("value"), str):
            remember(entry["value"])
    provider = user.get("auth-provider")
    if isinstance(provider, dict) and isinstance(provider.get("config"), dict):
        for key, value in provider["config"].items():
            if isinstance(value, str) and key not in ("idp-issuer-url", "client-id", "cmd-path"):
                remember(value)


EXEC_MODES = ("Never", "IfAvailable", "Always")


def check_user(name: str, user: dict[str, Any]) -> None:
    """What kubectl's validation refuses in the user it is about to use, refused the same way."""
    if (user.get("as-uid") or user.get("as-groups") or user.get("as-user-extra")) and not user.get("as"):
        raise PdError(f"user {name!r}: impersonation groups, uid or extra fields need a user to impersonate "
                      f"(as, or --as): kubectl refuses this too")
    if (user.get("token") or user.get("tokenFile")) and (user.get("username") or user.get("password")):
        raise PdError(f"user {name!r} has both a token and a username/password: only one authentication method "
                      f"is allowed (kubectl refuses this too)")
    for have, need in (("client-certificate", "client-key"), ("client-key", "client-certificate")):
        if (user.get(have) or user.get(have + "-data")) and not (user.get(need) or user.get(need + "-data")):
            raise PdError(f"user {name!r} has a {have} but no {need} (kubectl refuses this too)")
    exec_spec = user.get("exec")
    if isinstance(exec_spec, dict):
        _check_exec(name, exec_spec)


def _check_exec(name: str, spec: dict[str, Any]) -> None:
    mode = spec.get("interactiveMode") or ""
    if not spec.get("command"):
        raise PdError(f"user {name!r}: the exec credential plugin has no command")
    if not spec.get("apiVersion"):
        raise PdError(f"user {name!r}: the exec credential plugin has no apiVersion")
    if not mode and spec.get("apiVersion") == "client.authentication.k8s.io/v1":
        raise PdError(f"user {name!r}: an exec credential plugin of client.authentication.k8s.io/v1 needs "
                      f"interactiveMode (Never, IfAvailable or Always): kubectl refuses it without")
    if mode and mode not in EXEC_MODES:
        raise PdError(f"user {name!r}: interactiveMode {mode!r} is not one of Never, IfAvailable, Always")
    for env in spec.get("env") or []:
        if not (env or {}).get("name"):
            raise PdError(f"user {name!r}: an env entry of the exec credential plugin has no name")


def impersonation_headers(user: dict[str, Any]) -> dict[str, list[str]]:
    """client-go's impersonation headers: one Impersonate-Group per group, one Impersonate-Extra-<key> per
    value (the key escaped as client-go escapes it). Only with a user to impersonate (`as`)."""
    if not user.get("as"):
        return {}
    out: dict[str, list[str]] = {"Impersonate-User": [_wire(user["as"], "as (--as)")]}
    if user.get("as-uid"):
        out["Impersonate-Uid"] = [_wire(user["as-uid"], "as-uid (--as-uid)")]
    groups = [_wire(g, "as-groups (--as-group)") for g in user.get("as-groups") or []]
    if groups:
        out["Impersonate-Group"] = groups
    for key, values in (user.get("as-user-extra") or {}).items():
        if values:
            out["Impersonate-Extra-" + escape_header_key(str(key))] = [
                _wire(v, f"as-user-extra {str(key)[:40]!r}") for v in values]
    return out


def _wire(value: Any, what: str = "impersonation") -> str:
    """A header value whose latin-1 encoding (what the HTTP layer sends) is the UTF-8 of the text, as Go
    sends a string: `josé` reaches the API server as josé. A control character (CR, LF, NUL...) cannot
    stand in a header: refused in one line, as Go's transport refuses it ("invalid header field value")."""
    text = str(value or "")
    if any(c < " " and c != "\t" or c == "\x7f" for c in text):
        raise PdError(f"impersonation {what}: the value contains a control character (a line break or "
                      f"similar), which an HTTP header cannot carry")
    return text.encode("utf-8").decode("latin-1")


_TOKEN_CHARS = frozenset("!#$&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def escape_header_key(key: str) -> str:
    """Percent-encode every byte that may not stand in an HTTP header name, and `%` itself (client-go's
    headerKeyEscape), so that any extra key survives the trip."""
    return "".join(chr(b) if chr(b) in _TOKEN_CHARS else f"%{b:02X}" for b in key.encode("utf-8"))
