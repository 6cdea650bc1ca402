"""kubectl's connection flags and kubeconfig reading, without importing the kubernetes client."""

from __future__ import annotations

import os
from collections import namedtuple

from kubectl_pd import memo
from kubectl_pd.errors import InputError, PdError
from kubectl_pd.lazyre import lazy

TYPE_CHECKING = False  # typing stays unloaded on a Tab press (docs/architecture.md, start-up path)
if TYPE_CHECKING:
    from typing import Any

_DURATION_RE = lazy(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


# Go's time.Duration (int64 nanoseconds) holds at most 2562047h47m16.854775807s: kubectl refuses more
MAX_DURATION = (2**63 - 1) / 1e9


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


class ClusterOptions(namedtuple("ClusterOptions", "kubeconfig context namespace request_timeout server token cluster "
                                "user as_user as_groups as_uid as_user_extra certificate_authority insecure "
                                "tls_server_name client_certificate client_key proxy_url",
                                defaults=(None, None, None, None, None, None, None, None, None, (), None, (), None,
                                          False, None, None, None, None))):
    """The flags every command takes to reach a cluster, kubectl's names: kubeconfig, context, namespace (as
    given with -n; None means the context's), request_timeout in seconds, and the overrides of the
    kubeconfig (server, token, cluster, user, as_user/as_groups/as_uid/as_user_extra, certificate_authority,
    insecure, tls_server_name, client_certificate, client_key, proxy_url). A namedtuple: neither dataclasses
    nor typing is imported on a Tab press."""

    __slots__ = ()
    kubeconfig: str | None
    context: str | None
    namespace: str | None
    request_timeout: float | None
    server: str | None
    token: str | None
    cluster: str | None
    user: str | None
    as_user: str | None
    as_groups: tuple[str, ...]
    as_uid: str | None
    as_user_extra: tuple[str, ...]  # `key=value` as given
    certificate_authority: str | None
    insecure: bool
    tls_server_name: str | None
    client_certificate: str | None
    client_key: str | None
    proxy_url: str | None

    def merged(self, parent: ClusterOptions | None) -> ClusterOptions:
        """Values given on the subcommand win over those given before it."""
        if parent is None:
            return self
        mine = self._asdict()
        theirs = parent._asdict()
        out = {k: (v if v or (k == "request_timeout" and v is not None) else theirs[k]) for k, v in mine.items()}
        return ClusterOptions(**out)


def kubeconfig_paths(opts: ClusterOptions) -> list[str]:
    if opts.kubeconfig:
        return [opts.kubeconfig]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    return [os.path.join(os.path.expanduser("~"), ".kube", "config")]


def read_kubeconfig(opts: ClusterOptions) -> dict[str, Any]:
    """Merge kubeconfig files like kubectl: the first file to set a value (or named entry) wins; an empty
    value (`current-context: ""`) sets nothing. A file kubectl refuses is refused. Read once per run, as kubectl
    loads it once (the Source and the default namespace ask for it both); callers never change what it returns."""
    paths = kubeconfig_paths(opts)
    runs = memo.table("cluster.config.read_kubeconfig")
    key = (tuple(paths), opts.kubeconfig, bool(opts.server))
    if runs is not None and key in runs:
        return runs[key]  # type: ignore[no-any-return]
    merged = _merged(paths, opts)
    return merged if runs is None else memo.put(runs, key, merged, 8)


def _merged(paths: list[str], opts: ClusterOptions) -> dict[str, Any]:
    merged: dict[str, Any] = {"contexts": [], "clusters": [], "users": []}
    found = False
    origins: dict[tuple[str, Any], str] = {}
    for p in paths:
        data = _read_file(p, required=bool(opts.kubeconfig))
        if data is None:
            continue
        found = True
        if data.get("current-context") and not merged.get("current-context"):
            merged["current-context"] = data["current-context"]
        for section in ("contexts", "clusters", "users"):
            have = {e.get("name") for e in merged[section]}
            for entry in data.get(section) or []:
                if isinstance(entry, dict) and entry.get("name") not in have:
                    merged[section].append(entry)
                    origins[(section, entry.get("name"))] = os.path.dirname(os.path.abspath(p))
    if not found and not opts.server:  # kubectl works with --server alone and no kubeconfig at all
        raise PdError("no kubeconfig found: set --kubeconfig or KUBECONFIG" + offline_hint())
    merged["_origins"] = origins
    return merged


def offline_hint() -> str:
    """The way the running command works without a cluster, if it has one (issue 37 W10: advice that fits the
    command): a snapshot (`--from-file`/`-f`) for the read-only commands, `--dry-run=client` for create."""
    import sys

    click = sys.modules.get("click")  # loaded by the CLI; a library caller gets no command advice
    ctx = click.get_current_context(silent=True) if click is not None else None
    if ctx is None:
        return ""
    params = {p.name for p in ctx.command.params}
    if "files" in params:
        return ", or work offline with --from-file/-f"
    if "dry_run" in params and "preflight_only" in params and not ctx.params.get("preflight_only"):
        return ", or write the manifest offline with --dry-run=client"  # a preflight checks a cluster: none
    return ""


MAX_CREDENTIAL_FILE = 16 << 20  # a kubeconfig, token, certificate or key file: far past any real one
_PIPE_WAIT = 10.0  # seconds a pipe (`--kubeconfig <(...)`) may take to give its first bytes


def _not_a_file(mode: int) -> str | None:
    """What a path that is not a regular file is, in words (None for a regular file)."""
    import stat

    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    return "a socket" if stat.S_ISSOCK(mode) else "not a regular file"


def read_bounded(path: str, what: str, limit: int = MAX_CREDENTIAL_FILE, *, regular: str = "") -> bytes:
    """The bytes of a credential source (kubeconfig, tokenFile, certificate or key), read without blocking
    forever or growing without end: at most `limit` bytes, a FIFO without a writer read as empty, a pipe
    that gives nothing within _PIPE_WAIT seconds refused. OSError for what cannot be opened; InputError,
    one line, for a device such as /dev/zero, a silent pipe or a file past the bound. With `regular` (the
    reason, in words), anything but a regular file is refused before it is opened, and again once opened
    (a path swapped in between)."""
    import select
    import stat

    if regular:
        _refuse_unless_regular(os.stat(path).st_mode, path, what, regular)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO without a writer: opened, never waited on
    try:
        st = os.fstat(fd)
        if regular:
            _refuse_unless_regular(st.st_mode, path, what, regular)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{what} {path}: a directory, not a file")
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            raise InputError(f"{what} {path}: a device, not a file")
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise InputError(f"{what} {path}: {st.st_size:,} bytes, past the bound of {limit:,} for such a file")
        chunks: list[bytes] = []
        total = 0
        while True:
            try:
                piece = os.read(fd, 1 << 16)
            except BlockingIOError:  # a pipe whose writer has not written yet
                ready, _, _ = select.select([fd], [], [], _PIPE_WAIT)
                if not ready:
                    raise InputError(f"{what} {path}: a pipe that gave nothing within {_PIPE_WAIT:g}s") from None
                continue
            if not piece:
                break
            total += len(piece)
            if total > limit:
                raise InputError(f"{what} {path}: more than {limit:,} bytes, past the bound for such a file")
            chunks.append(piece)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _refuse_unless_regular(mode: int, path: str, what: str, reason: str) -> None:
    kind = _not_a_file(mode)
    if kind is not None:
        raise InputError(f"{what} {path}: {kind}, not a file: {reason}")


MAX_TOKEN_FILE = 1 << 20


def read_token_file(path: str, context: str) -> str:
    """A kubeconfig user's tokenFile as client-go reads it: trimmed, and refused before any request when it
    holds nothing (client-go's file token source: "read empty token from file"), where sending no token
    would only earn a 401 that blames the credentials. A regular file only: the token is read again every
    minute (client-go's cached file token source too), which a FIFO, a socket or a device cannot give, and a
    FIFO read once would hang kubectl or give nothing. One line each, never a wait."""
    what = f"context {context!r}: tokenFile"
    try:
        raw = read_bounded(path, what, MAX_TOKEN_FILE, regular="the token is read from it again every minute")
    except OSError as e:
        raise PdError(f"context {context!r}: cannot read tokenFile {path} ({e.strerror or e})") from None
    try:
        token = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise PdError(f"context {context!r}: tokenFile {path} is not UTF-8 text") from None
    if not token:
        held = "is empty" if not raw else f"holds only blanks ({len(raw)} bytes)"
        raise InputError(f"{what} {path} {held}: no token to send; write the token into it, or check the "
                         f"kubeconfig user")
    return token


def _read_file(p: str, *, required: bool) -> dict[str, Any] | None:
    """One kubeconfig file, checked as kubectl checks it; None when it does not exist (and need not)."""
    if not os.path.exists(p):
        if required:
            raise InputError(f"kubeconfig {p}: no such file")
        return None
    try:
        raw = read_bounded(p, "kubeconfig")
        data = _parse(decode(raw), p) or {}
    except (OSError, UnicodeDecodeError):
        raise InputError(f"kubeconfig {p}: cannot be read as YAML") from None
    from kubectl_pd.cluster import kcschema

    bad = kcschema.check(data)
    if bad is not None:
        where, expected, got = bad
        raise InputError(f"kubeconfig {p}: {where} must be {expected}, not {got} (kubectl refuses this file too)")
    odd = kcschema.non_finite(data)
    if odd is not None:
        raise InputError(f"kubeconfig {p}: {odd} is an infinite or NaN number, which kubectl cannot read "
                         f"(it refuses this file too)")
    dup = kcschema.duplicate_name(data)
    if dup is not None:
        raise InputError(f"kubeconfig {p}: {dup[0]} has two entries named {dup[1]!r} (kubectl refuses this file too)")
    return data


def decode(raw: bytes) -> str:
    """The file's text as the YAML reader kubectl uses detects it: UTF-16 by its byte order mark, else UTF-8."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    return raw.decode("utf-8")


def _parse(text: str, path: str) -> Any:
    """The kubeconfig's first YAML document, with kubectl's YAML 1.1 scalars (sigs.k8s.io/yaml): the plain
    block form kubectl writes is read without PyYAML (a quarter of a Tab press goes to importing it);
    anything else goes to PyYAML's C loader, set to resolve scalars as kubectl's YAML reader does."""
    from kubectl_pd.cluster import blockyaml

    data = blockyaml.load(text)
    if data is not blockyaml.UNSUPPORTED:
        return data
    import yaml  # type: ignore[import-untyped]

    try:
        return first_document(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        if "unhashable key" in str(getattr(e, "problem", "")):  # `? [a]: b`: kubectl refuses it too
            raise InputError(f"kubeconfig {path}{where}: a list or mapping used as a mapping key (YAML's "
                             f"`? ...`): a kubeconfig's keys are names") from None
        raise InputError(f"kubeconfig {path}{where}: cannot be read as YAML") from None


def first_document(text: str) -> Any:
    """The first document of `text` (kubectl ignores the others, even broken ones), with kubectl's scalars."""
    from kubectl_pd.cluster import goyaml

    return goyaml.first_document(text)


def origin_of(config: dict[str, Any], section: str, entry: dict[str, Any]) -> str | None:
    """The directory of the kubeconfig file that defined `entry`: its relative paths are relative to it."""
    return (config.get("_origins") or {}).get((section, entry.get("name")))


def resolve_context(opts: ClusterOptions, config: dict[str, Any]) -> dict[str, Any]:
    """The context entry to use, with a clear error when it does not exist. With flags that name the server
    (or the cluster) and no context at all, kubectl goes on without one: an empty context."""
    name = opts.context or config.get("current-context")
    names = [c.get("name") for c in config["contexts"]]
    if not name:
        if opts.server or opts.cluster:
            return {"name": "", "context": {}}
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
    body: dict[str, Any] = ctx["context"] if isinstance(ctx.get("context"), dict) else {}
    want = opts.cluster or body.get("cluster")
    cluster: dict[str, Any] | None = None
    for entry in config["clusters"]:
        if entry.get("name") == want and isinstance(entry.get("cluster"), dict):
            cluster = entry["cluster"]
    if cluster is None and not opts.server:
        raise PdError(f"context {ctx.get('name')!r} names a cluster the kubeconfig does not define")
    cluster = cluster or {}
    server = str(opts.server or cluster.get("server") or "")
    server = server if "://" in server else "https://" + server
    proxy = opts.proxy_url or cluster.get("proxy-url")
    return server, str(proxy) if proxy else proxy_for(server)


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
    """The proxy kubectl would use for `server` from the environment, as Go's net/http (httpproxy) decides:
    HTTPS_PROXY for https:// and HTTP_PROXY for http:// (upper case first, an empty value is unset);
    `localhost` and loopback addresses never; NO_PROXY as Go reads it (`proxy_exempt`).

    The kubeconfig's `proxy-url` is not decided here: it wins, for every host (loopback too)."""
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
    try:
        port = str(parts.port or (443 if parts.scheme == "https" else 80))
    except ValueError:
        return None
    return None if proxy_exempt(host, port, get("NO_PROXY")) else proxy


def proxy_exempt(host: str, port: str, no_proxy: str) -> bool:
    """Go's httpproxy: whether `host:port` (port always given, the scheme's default when the URL has none)
    goes direct. localhost and loopback IPs always do. NO_PROXY entries: `*`; a CIDR (any port); an IP,
    with or without `:port`; a name, with or without `:port`, matching itself and its subdomains;
    `.name` and `*.name` matching subdomains only."""
    import ipaddress  # only with a proxy to exempt from

    try:
        ip: Any = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    if host == "localhost" or (ip is not None and ip.is_loopback):
        return True
    return any(_entry_matches(entry, host, port, ip) for entry in (e.strip().lower() for e in no_proxy.split(","))
               if entry)


def _entry_matches(entry: str, host: str, port: str, ip: Any) -> bool:
    import ipaddress

    if entry == "*":
        return True
    if "/" in entry:
        try:
            return ip is not None and ip in ipaddress.ip_network(entry, strict=False)
        except ValueError:
            return False
    name, want_port = _split_host_port(entry)
    if not name:
        return False
    try:
        entry_ip = ipaddress.ip_address(name)
    except ValueError:
        entry_ip = None
    if entry_ip is not None:  # an IP entry matches that IP only, never a name
        return ip is not None and ip == entry_ip and want_port in ("", port)
    if name.startswith("*."):
        name = name[1:]
    exact = not name.startswith(".")
    suffix = name if not exact else "." + name
    return (host.endswith(suffix) or (exact and host == name)) and want_port in ("", port)


def _split_host_port(entry: str) -> tuple[str, str]:
    """Go's net.SplitHostPort, or the entry itself as the host when it has no port."""
    if entry.startswith("["):
        close = entry.find("]")
        if close > 0 and entry[close + 1:close + 2] == ":":
            return entry[1:close], entry[close + 2:]
        return entry.strip("[]"), ""
    if entry.count(":") == 1:
        name, _, port = entry.partition(":")
        return name, port
    return entry, ""
