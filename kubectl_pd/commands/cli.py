"""The click shell: global flags, lazy subcommands, and the one place that turns errors into exit codes."""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys
from typing import Any

from kubectl_pd.commands.startup import short_lived_gc

short_lived_gc()  # before click loads: its import is most of what start-up allocates

import click  # noqa: E402

from kubectl_pd import __version__, memo  # noqa: E402
from kubectl_pd.commands.options import (  # noqa: E402
    normalize_bool_flags,
    options_of,
    quick_short_options,
    with_cluster_flags,
)
from kubectl_pd.errors import EXIT_USAGE, PdError  # noqa: E402

PROG = "kubectl pd"

# name -> (module, attribute, one-line help). Modules load only when their command runs, so
# `--help` and completion never import what a command needs (the kubernetes client above all).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "create": ("kubectl_pd.commands.create", "create", "Scaffold a multi-role PD ModelDeployment, checked first."),
    "why-pending": ("kubectl_pd.commands.why_pending", "why_pending",
                    "Explain why a deployment's pod group is not admitted."),
    "lint": ("kubectl_pd.commands.lint", "lint", "Find ClusterQueues and ModelDeployments Kueue would refuse."),
    "snapshot": ("kubectl_pd.commands.snapshot", "snapshot", "Collect what why-pending reads, redacted, to replay."),
    "tree": ("kubectl_pd.commands.tree", "tree", "Show a deployment's groups, Workloads, Pods and Events."),
    "capacity": ("kubectl_pd.commands.capacity", "capacity",
                 "How many more copies of a deployment Kueue would admit now."),
    "queues": ("kubectl_pd.commands.queues", "queues", "Quota per ClusterQueue and flavor, and who borrows."),
    "mcp": ("kubectl_pd.commands.mcp", "mcp", "Serve the read-only tools to an MCP client over stdio."),
    "schema": ("kubectl_pd.commands.schema", "schema", "Print the JSON Schema of a command's -o json document."),
    "completion": ("kubectl_pd.commands.completion", "completion", "Print a shell completion script."),
    "__complete": ("kubectl_pd.commands.completion", "complete_words", "Complete words (kubectl protocol)."),
}
HIDDEN = {"__complete"}


class ClosedStdout(Exception):  # noqa: N818 - not an error: the reader of stdout went away (`| head`)
    """A write to stdout met EPIPE. Not an OSError, so that click does not turn it into exit 1 on the way."""


class LazyGroup(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:
        """click's main, inside a run of its own (kubectl_pd/memo.py) unless the caller opened one (`main`
        below does, so that its error lines are redacted and written within the run)."""
        if memo.current() is not None:
            return super().main(*args, **kwargs)
        with memo.run():
            return super().main(*args, **kwargs)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:  # eager options (--help, --version) print while the arguments are parsed
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError:
            raise ClosedStdout from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise ClosedStdout from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [n for n in COMMANDS if n not in HIDDEN]

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, normalize_bool_flags(args))

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                            list[str]]:
        """The subcommand's own words get kubectl's `--flag=false` form too (see normalize_bool_flags)."""
        name, cmd, rest = super().resolve_command(ctx, args)
        return name, cmd, normalize_bool_flags(rest)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module = importlib.import_module(spec[0])
        cmd: click.Command = getattr(module, spec[1])
        if "make_parser" not in vars(cmd):  # its short options matched directly (options.quick_short_options)
            made = cmd.make_parser
            cmd.make_parser = lambda c: quick_short_options(made(c))  # type: ignore[method-assign, assignment]
        return cmd

    def make_parser(self, ctx: click.Context) -> Any:
        return quick_short_options(super().make_parser(ctx))

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
@with_cluster_flags
@click.pass_context
def cli(ctx: click.Context, **flags: Any) -> None:
    """Prefill/decode deployments on Kubernetes, admitted all-or-nothing through Kueue.

    \b
    kubectl pd create NAME --model M --instance-type IT --prefill 1 --decode 2 \\
        --engine-version V --kv-cache-pool POOL --dry-run=client -o yaml
    kubectl pd why-pending NAME            explain a pending deployment
    kubectl pd lint -f queues.yaml         find ClusterQueues Kueue would refuse
    """
    ctx.obj = options_of(flags)
    if ctx.invoked_subcommand is None:  # bare `kubectl pd`: the help, as kubectl does (stdout, exit 0)
        click.echo(ctx.get_help())
        ctx.exit(0)


def _usage_text(e: click.UsageError) -> str:
    ctx = e.ctx
    where = ctx.command_path if ctx is not None else PROG
    msg = e.format_message().strip().replace("\n", " ")
    return f"{msg} (see '{where} --help')"


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every failure becomes one `error:` line and kubectl's exit codes (Ctrl-C: 130)."""
    from kubectl_pd import interrupt, termsafe

    _whole_writes()
    termsafe.install()  # every output redacted and its terminal controls neutralised (kubectl_pd/termsafe.py)
    # SIGINT: KeyboardInterrupt in this thread, never lost (kubectl_pd/interrupt.py); one run: its memo and
    # settings (--color), gone when it ends, so an MCP tool call or a test's invocation starts afresh (memo.py)
    with interrupt.handling(), memo.run():
        _main(argv)


def _whole_writes() -> None:
    """Unbuffered stdout (PYTHONUNBUFFERED, -u) writes straight to a FileIO, and the text layer drops what a
    short write left out (a pipe whose reader left mid-way: `| head`): the rest was lost without an error.
    Written whole here, so that such a reader's end is an EPIPE (ClosedStdout), not a silent cut."""
    inner = getattr(sys.stdout, "buffer", None)
    if not isinstance(inner, io.FileIO) or isinstance(inner, _WholeWrites) or not isinstance(sys.stdout,
                                                                                          io.TextIOWrapper):
        return
    old = sys.stdout
    sys.stdout = io.TextIOWrapper(_WholeWrites(inner.fileno(), "w", closefd=False), encoding=old.encoding,
                                  errors=old.errors, line_buffering=old.line_buffering, write_through=True)


class _WholeWrites(io.FileIO):
    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            n = super().write(view[done:])
            if n is None:  # a non-blocking stdout that is full: wait until it takes more
                import select

                select.select([], [self.fileno()], [])
                continue
            done += n
        return done


def _error(text: str) -> None:
    """The run's `error:` line (kubectl_pd/output/stderr.py: the MCP server's runs keep it as data). Loaded only
    when a run fails: start-up (help, Tab) imports nothing for it."""
    from kubectl_pd.output import stderr

    stderr.error(text)


def _main(argv: list[str] | None) -> None:
    debug = bool(os.environ.get("KUBECTL_PD_DEBUG"))
    if os.environ.get("_KUBECTL_PD_COMPLETE"):  # a shell's Tab: the shells' classes with one escaping
        from kubectl_pd.completion.shells import register

        register()
    try:
        rv = cli.main(args=argv, prog_name=PROG, complete_var="_KUBECTL_PD_COMPLETE", standalone_mode=False)
        sys.stdout.flush()  # a full disk shows here, not in the interpreter's exit
    except click.UsageError as e:  # includes BadParameter, NoSuchOption
        _error(_usage_text(e))
        sys.exit(EXIT_USAGE)
    except click.exceptions.Abort as e:  # click's own form of a KeyboardInterrupt (or EOF at a prompt)
        _error("interrupted" if isinstance(e.__context__, KeyboardInterrupt) else "aborted")
        sys.exit(130)
    except click.ClickException as e:
        _error(e.format_message())
        sys.exit(e.exit_code)
    except PdError as e:
        _error(e.message)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        _error("interrupted")
        sys.exit(130)
    except (BrokenPipeError, ClosedStdout):
        # the reader went away (`| head`): not an error worth a message; exit 0 as kubectl's `get` ends
        _drop_stdout()
        sys.exit(0)
    except RecursionError:  # nothing of ours recurses without bound but the input's own nesting
        _error("the input is nested too deeply to process (more levels than Python follows)")
        sys.exit(EXIT_USAGE)
    except OSError as e:
        if e.errno not in _WRITE_ERRORS:
            _internal(e, debug)
        _drop_stdout()
        _error(f"cannot write the output: {e.strerror or e} (is the disk full?)")
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
    _error(f"internal error ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
           "rerun with KUBECTL_PD_DEBUG=1 for a traceback and report it")
    sys.exit(1)
