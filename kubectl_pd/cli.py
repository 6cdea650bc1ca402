"""The click shell: global flags, lazy subcommands, and the one place that turns errors into exit codes."""

from __future__ import annotations

import errno
import functools
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from kubectl_pd import __version__
from kubectl_pd.cluster.config import ClusterOptions, parse_duration
from kubectl_pd.errors import EXIT_USAGE, PdError

PROG = "kubectl pd"

# name -> (module, attribute, one-line help). Modules load only when their command runs, so
# `--help` and completion never import what a command needs (the kubernetes client above all).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "create": ("kubectl_pd.commands.create", "create", "Scaffold a multi-role PD ModelDeployment, checked first."),
    "why-pending": ("kubectl_pd.commands.why_pending", "why_pending",
                    "Explain why a deployment's pod group is not admitted."),
    "lint": ("kubectl_pd.commands.lint", "lint", "Find ClusterQueues and ModelDeployments Kueue would refuse."),
    "completion": ("kubectl_pd.commands.completion", "completion", "Print a shell completion script."),
    "__complete": ("kubectl_pd.commands.completion", "complete_words", "Complete words (kubectl protocol)."),
}
HIDDEN = {"__complete"}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [n for n in COMMANDS if n not in HIDDEN]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module = importlib.import_module(spec[0])
        return getattr(module, spec[1])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[Any]:
        """Subcommand names from the registry: Tab must not import every command's module."""
        from click.shell_completion import CompletionItem

        items: list[Any] = [CompletionItem(n, help=COMMANDS[n][2]) for n in self.list_commands(ctx)
                            if n.startswith(incomplete)]
        if incomplete.startswith("-") or not items:
            items.extend(click.Command.shell_complete(self, ctx, incomplete))
        return items

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, COMMANDS[n][2]) for n in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


# Go's time.Duration (int64 nanoseconds) cannot hold more: kubectl refuses longer durations too
MAX_DURATION = (2**63 - 1) / 1e9


def checked_duration(value: str, flag: str) -> float | None:
    """A kubectl duration that kubectl itself would accept: None for 0, else seconds."""
    seconds = parse_duration(value, flag)
    if seconds is not None and not seconds <= MAX_DURATION:  # also NaN and inf
        raise PdError(f"{flag}: {value} is longer than the longest duration kubectl accepts "
                      f"(2562047h47m16s)", exit_code=EXIT_USAGE)
    return seconds


def _timeout(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return checked_duration(value, "--request-timeout")
    except PdError as e:
        raise click.BadParameter(e.message.split(": ", 1)[-1]) from None


def _input_size(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """`--max-input-size 512Mi`: whole bytes, binary or decimal suffixes; 0 means no limit."""
    if value is None:
        return None
    from kubectl_pd.kueue.quantity import try_parse

    q = try_parse(value)
    if q is None or q < 0 or q.denominator != 1:
        raise click.BadParameter(f"{value!r} is not a size in bytes (e.g. 512Mi, 2Gi; 0 for no limit)")
    return int(q)


def _complete_namespaces(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Live namespace names on Tab; imported here so --help never loads the completion code."""
    from kubectl_pd.completion_live import namespaces

    return namespaces(ctx, param, incomplete)


def _complete_contexts(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Context names from the kubeconfig (no request)."""
    from kubectl_pd.completion_live import kube_contexts

    return kube_contexts(ctx, param, incomplete)


_CLUSTER_FLAGS: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
    click.option("--kubeconfig", metavar="PATH",
                 help="Path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)."),
    click.option("--context", "kube_context", metavar="NAME", shell_complete=_complete_contexts,
                 help="The kubeconfig context to use."),
    click.option("-n", "--namespace", metavar="NS", shell_complete=_complete_namespaces,
                 help="Namespace (default: the context's, else `default`)."),
    click.option("--request-timeout", metavar="DURATION", callback=_timeout, expose_value=True,
                 help="Wait at most this long for each API request, e.g. 5s, 1m (0: no limit)."),
]


def cluster_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command kubectl's connection flags, collected into `cluster: ClusterOptions`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, kubeconfig: str | None, kube_context: str | None, namespace: str | None,
                request_timeout: float | None, **kwargs: Any) -> Any:
        mine = ClusterOptions(kubeconfig, kube_context, namespace, request_timeout)
        parent = click.get_current_context().find_object(ClusterOptions)
        return fn(*args, cluster=mine.merged(parent), **kwargs)

    for flag in reversed(_CLUSTER_FLAGS):
        wrapper = flag(wrapper)
    if "files" in fn.__code__.co_varnames[: fn.__code__.co_argcount + fn.__code__.co_kwonlyargcount]:
        wrapper = _INPUT_FLAG(_input_options(wrapper))
    return wrapper


INPUT_LIMIT = "kubectl_pd.max_input_size"
_INPUT_FLAG = click.option(
    "--max-input-size", "max_input_size", metavar="SIZE", callback=_input_size,
    help="Refuse files (all together) larger than this, e.g. 1Gi (default 256Mi; 0: no limit).")


def _input_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Keep --max-input-size out of the command's signature: open_source reads it from the context."""

    @functools.wraps(fn)
    def wrapper(*args: Any, max_input_size: int | None, **kwargs: Any) -> Any:
        if max_input_size is not None:
            click.get_current_context().meta[INPUT_LIMIT] = max_input_size
        return fn(*args, **kwargs)

    return wrapper


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """click.version_option, without the gettext and locale lookups it pays at import time."""
    if value and not ctx.resilient_parsing:
        click.echo(f"kubectl-pd {__version__}")
        ctx.exit(0)


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS, invoke_without_command=True,
             subcommand_metavar="COMMAND [ARGS]...")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
@click.option("--kubeconfig", metavar="PATH", help="Path to the kubeconfig file.")
@click.option("--context", "kube_context", metavar="NAME", shell_complete=_complete_contexts,
              help="The kubeconfig context to use.")
@click.option("-n", "--namespace", metavar="NS", shell_complete=_complete_namespaces,
              help="Namespace (default: the context's, else `default`).")
@click.option("--request-timeout", metavar="DURATION", callback=_timeout, help="Per-request timeout, e.g. 5s.")
@click.pass_context
def cli(ctx: click.Context, kubeconfig: str | None, kube_context: str | None, namespace: str | None,
        request_timeout: float | None) -> None:
    """Prefill/decode deployments on Kubernetes, admitted all-or-nothing through Kueue.

    \b
    kubectl pd create NAME --model M --instance-type IT --prefill 1 --decode 2 \\
        --engine-version V --kv-cache-pool POOL --dry-run=client -o yaml
    kubectl pd why-pending NAME            explain a pending deployment
    kubectl pd lint -f queues.yaml         find ClusterQueues Kueue would refuse
    """
    ctx.obj = ClusterOptions(kubeconfig, kube_context, namespace, request_timeout)
    if ctx.invoked_subcommand is None:  # bare `kubectl pd`: the help, as kubectl does (stdout, exit 0)
        click.echo(ctx.get_help())
        ctx.exit(0)


def _usage_line(e: click.UsageError) -> str:
    ctx = e.ctx
    where = ctx.command_path if ctx is not None else PROG
    msg = e.format_message().strip().replace("\n", " ")
    return f"error: {msg} (see '{where} --help')"


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every failure becomes one `error:` line and kubectl's exit codes (Ctrl-C: 130)."""
    from kubectl_pd import interrupt

    with interrupt.handling():  # SIGINT: KeyboardInterrupt in this thread, never lost (kubectl_pd/interrupt.py)
        _main(argv)


def _main(argv: list[str] | None) -> None:
    debug = bool(os.environ.get("KUBECTL_PD_DEBUG"))
    try:
        rv = cli.main(args=argv, prog_name=PROG, complete_var="_KUBECTL_PD_COMPLETE", standalone_mode=False)
        sys.stdout.flush()  # a full disk shows here, not in the interpreter's exit
    except click.UsageError as e:  # includes BadParameter, NoSuchOption
        click.echo(_usage_line(e), err=True)
        sys.exit(EXIT_USAGE)
    except click.exceptions.Abort as e:  # click's own form of a KeyboardInterrupt (or EOF at a prompt)
        click.echo("error: interrupted" if isinstance(e.__context__, KeyboardInterrupt) else "error: aborted",
                   err=True)
        sys.exit(130)
    except click.ClickException as e:
        click.echo(f"error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    except PdError as e:
        click.echo(f"error: {e.message}", err=True)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # the reader went away (`| head`): not an error worth a message
        _drop_stdout()
        sys.exit(0)
    except RecursionError:  # nothing of ours recurses without bound but the input's own nesting
        click.echo("error: the input is nested too deeply to process (more levels than Python follows)", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as e:
        if e.errno not in _WRITE_ERRORS:
            _internal(e, debug)
        _drop_stdout()
        click.echo(f"error: cannot write the output: {e.strerror or e} (is the disk full?)", err=True)
        sys.exit(1)
    except Exception as e:  # a bug of ours: still one line, the traceback only on request
        _internal(e, debug)
    sys.exit(rv if isinstance(rv, int) else 0)


# Errors only writing can raise: reading files and the network turn theirs into PdErrors first.
_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush does not fail a second time."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _internal(e: BaseException, debug: bool) -> None:
    if debug:
        raise e
    click.echo(
        f"error: internal error ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
        "rerun with KUBECTL_PD_DEBUG=1 for a traceback and report it",
        err=True,
    )
    sys.exit(1)
