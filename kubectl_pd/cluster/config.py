"""kubectl's connection flags and kubeconfig reading, without importing the kubernetes client."""

from __future__ import annotations

import os
from collections import namedtuple

from kubectl_pd.errors import InputError, PdError
from kubectl_pd.lazyre import lazy

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

_DURATION_RE = lazy(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


MAX_DURATION = 2562047 * 3600.0  # Go's time.Duration tops out at about 2562047h: kubectl refuses more


def parse_duration(text: str, flag: str = "--request-timeout") -> float | None:
    """kubectl durations: `0` (no timeout: 0.0), `30` (seconds), `5s`, `1m30s`, `500ms`, `1h`.

    "" gives None (not given); `0` gives 0.0 so that callers can tell "no limit" from "not given".
    """
    t = text.strip()
    if t == "":
        return None
    if t.isascii() and t.isdigit():
        return _bounded(float(t), text, flag)
    pos, total = 0, 0.0
    for m in _DURATION_RE.finditer(t):
        if m.start() != pos:
            break
        value, unit = float(m.group(1)), m.group(2)
        total += value * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
        pos = m.end()
    if pos != len(t) or pos == 0:
        raise InputError(
            f"invalid {flag} value {text!r}: use a duration like 5s, 1m or 500ms (0 means no timeout)"
        )
    return _bounded(total, text, flag)


def _bounded(seconds: float, text: str, flag: str) -> float:
    if seconds > MAX_DURATION:
        raise InputError(f"invalid {flag} value {text!r}: longer than the longest duration kubectl accepts "
                         f"(about 2562047h)")
    return seconds


class ClusterOptions(namedtuple("ClusterOptions", "kubeconfig context namespace request_timeout",
                                defaults=(None, None, None, None))):
    """The flags every command takes to reach a cluster: kubeconfig, context, namespace (as given with
    -n; None means the context's) and request_timeout in seconds. A namedtuple: neither dataclasses nor
    typing is imported on a Tab press."""

    __slots__ = ()
    kubeconfig: str | None
    context: str | None
    namespace: str | None
    request_timeout: float | None

    def merged(self, parent: ClusterOptions | None) -> ClusterOptions:
        """Values given on the subcommand win over those given before it."""
        if parent is None:
            return self
        return ClusterOptions(
            kubeconfig=self.kubeconfig or parent.kubeconfig,
            context=self.context or parent.context,
            namespace=self.namespace or parent.namespace,
            request_timeout=self.request_timeout if self.request_timeout is not None else parent.request_timeout,
        )


def kubeconfig_paths(opts: ClusterOptions) -> list[str]:
    if opts.kubeconfig:
        return [opts.kubeconfig]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    return [os.path.join(os.path.expanduser("~"), ".kube", "config")]


def read_kubeconfig(opts: ClusterOptions) -> dict[str, Any]:
    """Merge kubeconfig files like kubectl: the first file to set a value (or named entry) wins."""
    paths = kubeconfig_paths(opts)
    merged: dict[str, Any] = {"contexts": [], "clusters": [], "users": []}
    found = False
    origins: dict[tuple[str, Any], str] = {}
    for p in paths:
        if not os.path.exists(p):
            if opts.kubeconfig:
                raise InputError(f"kubeconfig {p}: no such file")
            continue
        try:
            with open(p, encoding="utf-8") as fh:
                data = _parse(fh.read(), p) or {}
        except (OSError, UnicodeDecodeError):
            raise InputError(f"kubeconfig {p}: cannot be read as YAML") from None
        if not isinstance(data, dict):
            raise InputError(f"kubeconfig {p}: not a kubeconfig (expected a mapping)")
        found = True
        if "current-context" in data and "current-context" not in merged:
            merged["current-context"] = data["current-context"]
        for section in ("contexts", "clusters", "users"):
            have = {e.get("name") for e in merged[section]}
            for entry in data.get(section) or []:
                if isinstance(entry, dict) and entry.get("name") not in have:
                    merged[section].append(entry)
                    origins[(section, entry.get("name"))] = os.path.dirname(os.path.abspath(p))
    if not found:
        raise PdError(
            "no kubeconfig found: set --kubeconfig or KUBECONFIG, or work offline with --from-file/-f"
        )
    merged["_origins"] = origins
    return merged


def _parse(text: str, path: str) -> Any:
    """The kubeconfig's YAML: the plain block form kubectl writes is read without PyYAML (a quarter of a
    Tab press goes to importing it); anything else goes to PyYAML's C loader, as before."""
    from kubectl_pd.cluster import blockyaml

    data = blockyaml.load(text)
    if data is not blockyaml.UNSUPPORTED:
        return data
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"kubeconfig {path}{where}: cannot be read as YAML") from None


def origin_of(config: dict[str, Any], section: str, entry: dict[str, Any]) -> str | None:
    """The directory of the kubeconfig file that defined `entry`: its relative paths are relative to it."""
    return (config.get("_origins") or {}).get((section, entry.get("name")))


def resolve_context(opts: ClusterOptions, config: dict[str, Any]) -> dict[str, Any]:
    """The context entry to use, with a clear error when it does not exist."""
    name = opts.context or config.get("current-context")
    names = [c.get("name") for c in config["contexts"]]
    if not name:
        raise PdError("the kubeconfig has no current context: pass --context NAME")
    for c in config["contexts"]:
        if c.get("name") == name:
            return c
    avail = ", ".join(str(n) for n in names) or "none"
    raise PdError(f'context "{name}" not found in the kubeconfig (available: {avail})')


def server_and_proxy(opts: ClusterOptions) -> tuple[str, str | None]:
    """The chosen context's server URL and the proxy in front of it (kubeconfig proxy-url, else the
    environment's), read without resolving credentials: Tab's cheap reachability check."""
    config = read_kubeconfig(opts)
    ctx = resolve_context(opts, config)
    body = ctx.get("context") if isinstance(ctx.get("context"), dict) else {}
    for entry in config["clusters"]:
        if entry.get("name") == body.get("cluster") and isinstance(entry.get("cluster"), dict):
            server = str(entry["cluster"].get("server") or "")
            server = server if "://" in server else "https://" + server
            proxy = entry["cluster"].get("proxy-url")
            return server, str(proxy) if proxy else proxy_for(server)
    raise PdError(f"context {ctx.get('name')!r} names a cluster the kubeconfig does not define")


def default_namespace(opts: ClusterOptions) -> str:
    """-n if given, else the context's namespace, else `default` (also when no kubeconfig exists)."""
    if opts.namespace:
        return opts.namespace
    try:
        ctx = resolve_context(opts, read_kubeconfig(opts))
    except PdError:
        return "default"
    return str((ctx.get("context") or {}).get("namespace") or "default")


def proxy_for(server: str, env: dict[str, str] | None = None) -> str | None:
    """The proxy kubectl would use for `server`: HTTPS_PROXY/HTTP_PROXY unless NO_PROXY exempts the host.

    kubectl honours both the kubeconfig's `proxy-url` (which wins) and the environment. NO_PROXY
    entries are host suffixes, IPs, CIDRs, optional `:port`, or `*`.
    """
    env = dict(os.environ) if env is None else env

    def get(name: str) -> str:
        return env.get(name) or env.get(name.lower()) or ""

    if not get("HTTPS_PROXY") and not get("HTTP_PROXY"):
        return None  # the common case, decided before the URL parser loads (a Tab press pays for it)
    from urllib.parse import urlsplit

    parts = urlsplit(server)
    proxy = get("HTTPS_PROXY") if parts.scheme == "https" else get("HTTP_PROXY")
    host = (parts.hostname or "").lower()
    if not proxy or not host:
        return None
    import ipaddress  # only with a proxy to exempt from

    for entry in (e.strip().lower() for e in get("NO_PROXY").split(",")):
        if not entry:
            continue
        if entry == "*":
            return None
        name, _, port = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if port and parts.port is not None and port != str(parts.port):
            continue
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(name, strict=False):
                return None
            continue
        except ValueError:
            pass
        name = name.lstrip("*").lstrip(".")
        if host == name or host.endswith("." + name):
            return None
    return proxy
