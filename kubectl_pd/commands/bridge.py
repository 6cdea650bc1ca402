"""`kubectl_complete-pd`: kubectl (1.26+) runs it with the words typed after `kubectl pd`.

It answers in Cobra's `__complete` format through the hidden `kubectl pd __complete` command. The most
common live Tab, a why-pending target right after the command (`kubectl pd why-pending <TAB>`, with only
connection flags around), is answered here without loading click or the command tree: a Tab press
should cost little more than kubectl's own. Everything else goes through the real command tree.
"""

from __future__ import annotations

import os
import sys

from kubectl_pd.commands.startup import short_lived_gc as short_lived_gc  # the entry points' one start
from kubectl_pd.completion import DEFAULT_TIMEOUT

TYPE_CHECKING = False  # typing stays unloaded on a Tab press
if TYPE_CHECKING:
    from typing import Any

    from kubectl_pd.cluster.config import ClusterOptions

# flags of why-pending that take a value, and the ClusterOptions field each sets
_VALUE_FLAGS = {"-n": "namespace", "--namespace": "namespace", "--context": "context",
                "--kubeconfig": "kubeconfig", "--request-timeout": "request_timeout", "--cluster": "cluster",
                "--user": "user", "-s": "server", "--server": "server", "--token": "token", "--as": "as_user",
                "--as-uid": "as_uid", "--certificate-authority": "certificate_authority",
                "--tls-server-name": "tls_server_name", "--client-certificate": "client_certificate",
                "--client-key": "client_key", "--proxy-url": "proxy_url"}
_REPEATED = {"--as-group": "as_groups", "--as-user-extra": "as_user_extra"}
_DIRECTIVE_NO_FILE_COMP = 4




def fast_target(words: list[str]) -> list[str] | None:
    """Cobra lines for `why-pending [connection flags] <incomplete target>`, or None: not this case."""
    if len(words) < 2 or words[0] != "why-pending" or words[-1].startswith("-"):
        return None
    found: dict[str, Any] = {}
    everywhere = False
    rest = words[1:-1]
    i = 0
    while i < len(rest):
        w = rest[i]
        if w in ("-A", "--all-namespaces"):
            everywhere = True
        elif w == "--insecure-skip-tls-verify":
            found["insecure"] = True
        elif w in _REPEATED and i + 1 < len(rest):
            found[_REPEATED[w]] = (*found.get(_REPEATED[w], ()), rest[i + 1])
            i += 1
        elif w in _VALUE_FLAGS and i + 1 < len(rest):
            found[_VALUE_FLAGS[w]] = rest[i + 1]
            i += 1
        else:  # a positional already given, `--flag=value`, `--`, or anything else: the full path decides
            return None
        i += 1
    if not _any_kubeconfig(found.get("kubeconfig")) and not found.get("server"):  # nothing to ask or load
        return [f":{_DIRECTIVE_NO_FILE_COMP}"]
    from kubectl_pd.cluster.config import ClusterOptions, parse_duration

    try:
        timeout = parse_duration(str(found["request_timeout"])) if "request_timeout" in found else None
    except Exception:
        timeout = None
    found["request_timeout"] = timeout or DEFAULT_TIMEOUT
    opts = ClusterOptions(**found)
    names: list[str] = []
    try:
        if _reachable(opts):  # only then the lookup's own modules load
            from kubectl_pd.completion.live import deployment_names

            names = deployment_names(opts, everywhere, words[-1])
    except Exception:
        names = []
    from kubectl_pd.completion.safe import cobra_line  # the escaping __complete shares

    return [line for n in names if (line := cobra_line(n)) is not None] + [f":{_DIRECTIVE_NO_FILE_COMP}"]


def _any_kubeconfig(flag: str | None) -> bool:
    """kubeconfig_paths' rule with nothing but `os` loaded: --kubeconfig, $KUBECONFIG, ~/.kube/config;
    inside a Pod the service account counts too."""
    env = os.environ.get("KUBECONFIG")
    paths = [flag] if flag else [p for p in env.split(os.pathsep) if p] if env else \
        [os.path.join(os.path.expanduser("~"), ".kube", "config")]
    return any(os.path.exists(p) for p in paths) or bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def _reachable(opts: ClusterOptions) -> bool:  # noqa: F821 - imported by the caller, only when needed
    """A cheap check before the HTTP and TLS machinery loads: with no proxy in the way, the server accepts a
    TCP connection. Failing gives what the full lookup would: no names."""
    from kubectl_pd.cluster.config import server_and_proxy

    if not opts.kubeconfig and not os.environ.get("KUBECONFIG") and os.environ.get("KUBERNETES_SERVICE_HOST"):
        return True  # perhaps in a Pod: the full lookup decides
    server, proxy = server_and_proxy(opts)
    if proxy:
        return True
    import socket

    where = _host_port(server)
    if where is None:  # userinfo, an IPv6 literal, ...: read as the HTTP path itself reads it
        from kubectl_pd.cluster.pool import Route

        route = Route.of(server, None, None)
        where = route.host, route.port
    host, port = where
    try:
        # an ASCII name as bytes: str would load the IDNA codec first (unicodedata, stringprep)
        socket.create_connection((host.encode() if host.isascii() else host, port),  # type: ignore[arg-type]
                                 timeout=opts.request_timeout).close()
    except OSError:
        return False
    return True


def _host_port(server: str) -> tuple[str, int] | None:
    """(host, port) of a plain `scheme://host[:port][/path]`, without loading urllib.parse (and with it
    ipaddress) on a Tab press; None for any other shape."""
    scheme, sep, rest = server.partition("://")
    netloc = rest.split("/", 1)[0].split("?", 1)[0]
    if not sep or not netloc or "@" in netloc or "[" in netloc:
        return None
    host, _, port = netloc.partition(":")
    if not host or (port and not (port.isascii() and port.isdigit())):
        return None
    return host.lower(), int(port) if port else (443 if scheme == "https" else 80)


def main() -> None:
    short_lived_gc()
    words = sys.argv[1:]
    lines = fast_target(words)
    if lines is not None:
        sys.stdout.write("\n".join(lines) + "\n")
        return
    from kubectl_pd.commands.cli import main as cli_main

    cli_main(["__complete", *words])
