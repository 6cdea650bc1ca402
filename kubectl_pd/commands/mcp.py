"""`kubectl pd mcp`: serve the four read-only tools to an MCP client over stdio (docs/agents.md).

The connection (kubeconfig, context, namespace, identity, --request-timeout) is the one this command is started
with, for the server's lifetime; a tool call cannot change it. Needs the `mcp` extra; without it: one line, exit 2.
"""

from __future__ import annotations

import os

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.options import cluster_options
from kubectl_pd.errors import EXIT_USAGE, PdError

DEFAULT_TIMEOUT = "30s"  # each API read of a tool call ends by then unless --request-timeout says otherwise
SDK_SPEC = "mcp>=2.3,<3"
SDK_ENV = "KUBECTL_PD_MCP_SDK"  # a directory holding the SDK (pip install --target DIR), for the krew archive


def sdk_dir() -> str:
    """Where the krew archive's plugin looks for the SDK when the interpreter has none: KUBECTL_PD_MCP_SDK, else
    the plugin's cache (~/.cache/kubectl-pd, $XDG_CACHE_HOME/kubectl-pd) under this Python's version (the SDK
    needs compiled modules: pydantic-core)."""
    import sys

    given = os.environ.get(SDK_ENV)
    if given:
        return given
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "kubectl-pd", f"mcp-sdk-py{sys.version_info[0]}.{sys.version_info[1]}")


def missing() -> str:
    import shlex
    import sys

    return (f"kubectl pd mcp needs the MCP SDK: pip install 'kubectl-pd[mcp]'; from the krew archive, one "
            f"command installs it where the plugin looks: {shlex.quote(sys.executable or 'python3')} -m pip install "
            f"--target {shlex.quote(sdk_dir())} '{SDK_SPEC}'")


def _import_sdk() -> bool:
    """Whether the SDK imports: from the interpreter's packages, else from sdk_dir()."""
    import importlib
    import sys

    try:
        importlib.import_module("mcp")
        return True
    except ImportError:
        pass
    where = sdk_dir()
    if not os.path.isdir(where) or where in sys.path:
        return False
    sys.path.append(where)
    importlib.invalidate_caches()
    try:
        importlib.import_module("mcp")
        return True
    except ImportError:
        return False


def connection_flags(c: ClusterOptions) -> list[str]:
    """The server's connection as the flags every run is given (in this process: no argv is visible to others)."""
    out: list[str] = []
    pairs = (("--kubeconfig", c.kubeconfig), ("--context", c.context), ("--namespace", c.namespace),
             ("--server", c.server), ("--token", c.token), ("--cluster", c.cluster), ("--user", c.user),
             ("--as", c.as_user), ("--as-uid", c.as_uid), ("--certificate-authority", c.certificate_authority),
             ("--tls-server-name", c.tls_server_name), ("--client-certificate", c.client_certificate),
             ("--client-key", c.client_key), ("--proxy-url", c.proxy_url))
    out += [f"{flag}={value}" for flag, value in pairs if value is not None]
    out += [f"--as-group={g}" for g in c.as_groups]
    out += [f"--as-user-extra={x}" for x in c.as_user_extra]
    if c.insecure:
        out.append("--insecure-skip-tls-verify")
    seconds = c.request_timeout
    out.append(f"--request-timeout={DEFAULT_TIMEOUT if seconds is None else f'{seconds!r}s'}")
    return out


def _workers(values: tuple[str, ...], cluster: ClusterOptions, by_name: bool) -> tuple[str, ...]:
    """The worker mapping every why-pending call gets, as flags; a context the kubeconfig lacks: usage error."""
    from kubectl_pd.commands.common import worker_contexts

    flags = [f"--worker-context={c}={ctx}" for c, ctx in worker_contexts(values, cluster).items()]
    return (*flags, *(["--worker-contexts-by-name"] if by_name else []))


@click.command("mcp", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--allow-file", "allow", multiple=True, metavar="DIR", type=click.Path(file_okay=False),
              help="A directory whose files tools may read (snapshots, manifests, CRDs); repeatable. Default: none.")
@click.option("--call-timeout", "call_timeout", default="2m", show_default=True, metavar="DURATION",
              help="How long one tool call may take, all its reads together; then it is stopped (e.g. 30s, 5m).")
@click.option("--worker-context", "worker_context", multiple=True, metavar="CLUSTER=CONTEXT",
              help="MultiKueue: read the worker CLUSTER through kubeconfig CONTEXT, for every call (repeatable); no "
                   "tool argument can add one.")
@click.option("--worker-contexts-by-name", "by_name", is_flag=True,
              help="MultiKueue: read each worker through the context named like its MultiKueueCluster (an opt-in).")
@cluster_options
def mcp(cluster: ClusterOptions, allow: tuple[str, ...], call_timeout: str, worker_context: tuple[str, ...] = (),
        by_name: bool = False) -> int:
    """Serve kubectl-pd's tools to an MCP client over stdio (read-only).

    \b
    Tools: pd_why_pending, pd_lint, pd_create_preflight, pd_who_preempted; each returns the
    -o json document of the same command. Each call runs in a process of its own, stopped at
    --call-timeout; the server exits when its client closes stdin. Register it with a client as the command
    `kubectl pd mcp [--context C] [--as U] [--allow-file DIR]` (docs/agents.md).
    """
    if not _import_sdk():
        raise PdError(missing(), exit_code=EXIT_USAGE)
    for d in allow:
        if not os.path.isdir(d):
            raise click.BadParameter(f"{d} is not a directory", param_hint="'--allow-file'")
    from kubectl_pd.commands.options import checked_duration

    try:
        deadline = checked_duration(call_timeout, "--call-timeout")
    except PdError as e:
        raise click.BadParameter(e.message.split(": ", 1)[-1], param_hint="'--call-timeout'") from None
    if not deadline or deadline <= 0:
        raise click.BadParameter("must be more than 0", param_hint="'--call-timeout'")
    workers = _workers(worker_context, cluster, by_name)
    from kubectl_pd.agent.server import serve
    from kubectl_pd.agent.tools import Guard

    serve(Guard(tuple(os.path.realpath(d) for d in allow), workers), connection_flags(cluster), deadline)
    return 0
