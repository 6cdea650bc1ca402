"""kubectl's connection flags and the other options every command shares, as click declarations.

Command modules import `cluster_options` from here (not from cli.py, which imports them lazily), so the
dependency points down: cli -> commands -> options -> cluster.config. The flags are kubectl's, with its
meanings (docs/global-options.md): --kubeconfig, --context, -n/--namespace, --request-timeout, --cluster,
--user, -s/--server, --token, --as, --as-group and --as-user-extra (repeatable), --as-uid,
--certificate-authority, --insecure-skip-tls-verify, --tls-server-name, --client-certificate, --client-key
and --proxy-url.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from kubectl_pd.cluster.config import ClusterOptions, parse_duration
from kubectl_pd.errors import PdError


def checked_duration(value: str, flag: str) -> float | None:
    """A kubectl duration that kubectl itself would accept (cluster.config.parse_duration, which refuses
    what Go's time.Duration cannot hold, cluster.config.MAX_DURATION): None when not given, else seconds."""
    return parse_duration(value, flag)


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
    from kubectl_pd.completion.live import namespaces

    return namespaces(ctx, param, incomplete)


def _complete_contexts(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Context names from the kubeconfig (no request)."""
    from kubectl_pd.completion.live import kube_contexts

    return kube_contexts(ctx, param, incomplete)


def _complete_clusters(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from kubectl_pd.completion.live import kube_entries

    return kube_entries(ctx, "clusters", incomplete)


def _complete_users(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from kubectl_pd.completion.live import kube_entries

    return kube_entries(ctx, "users", incomplete)


# Go's strconv.ParseBool: what `--insecure-skip-tls-verify=VALUE` accepts
_GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_GO_FALSE = ("0", "f", "F", "FALSE", "false", "False")
BOOL_FLAGS = ("--insecure-skip-tls-verify",)


def normalize_bool_flags(args: list[str]) -> list[str]:
    """kubectl's boolean flags take `--flag=false` as well as `--flag`: rewrite the `=VALUE` form to what
    click understands (`--flag` for true, nothing for false); stop at `--`."""
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + args[i:]
        name, eq, value = arg.partition("=")
        if not eq or name not in BOOL_FLAGS:
            out.append(arg)
        elif value in _GO_TRUE:
            out.append(name)
        elif value not in _GO_FALSE:
            raise click.BadParameter(f"invalid argument {value!r} for {name}: use true or false")
    return out


def quick_short_options(parser: Any) -> Any:
    """PARSER (click's option parser of one command) with its short options matched without a detour: click tries
    every `-x` as a long option first, and the NoSuchOption it raises and catches on the way imports difflib and
    ranks every long option by similarity (under callgrind about 3.2M of the 227M instructions a `why-pending NAME
    -o json` spends before its first round goes out). A word that is not one of the long options and not
    `--`-prefixed goes to click's own short-option match here, as click's `_process_opts` would send it; anything
    else (an `=VALUE`, a long option, a token normaliser) is click's as before. A parser without these internals
    is left as it is."""
    process = getattr(parser, "_process_opts", None)
    longs, prefixes = getattr(parser, "_long_opt", None), getattr(parser, "_opt_prefixes", None)
    short = getattr(parser, "_match_short_opt", None)
    ctx = getattr(parser, "ctx", None)
    if process is None or short is None or not isinstance(longs, dict) or not isinstance(prefixes, set) or \
            (ctx is not None and ctx.token_normalize_func is not None):
        return parser

    def _process_opts(arg: str, state: Any) -> None:
        if "=" not in arg and arg not in longs and arg[:2] not in prefixes:
            short(arg, state)
        else:
            process(arg, state)

    parser._process_opts = _process_opts
    return parser


# (click declaration, the keyword it gives the wrapped command)
_CLUSTER_FLAGS: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
    click.option("--kubeconfig", metavar="PATH",
                 help="Path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)."),
    click.option("--context", "kube_context", metavar="NAME", shell_complete=_complete_contexts,
                 help="The kubeconfig context to use."),
    click.option("-n", "--namespace", metavar="NS", shell_complete=_complete_namespaces,
                 help="Namespace (default: the context's, else `default`)."),
    click.option("--request-timeout", metavar="DURATION", callback=_timeout, expose_value=True,
                 help="Wait at most this long for each API request, e.g. 5s, 1m (0: no limit)."),
    click.option("--cluster", "kube_cluster", metavar="NAME", shell_complete=_complete_clusters,
                 help="The kubeconfig cluster to use (instead of the context's)."),
    click.option("--user", "kube_user", metavar="NAME", shell_complete=_complete_users,
                 help="The kubeconfig user to use (instead of the context's)."),
    click.option("-s", "--server", metavar="URL", help="The address of the API server (overrides the kubeconfig)."),
    click.option("--token", metavar="TOKEN", help="Bearer token for the API server (overrides the kubeconfig)."),
    click.option("--as", "as_user", metavar="USER", help="Username to impersonate for the operation."),
    click.option("--as-group", "as_groups", metavar="GROUP", multiple=True,
                 help="Group to impersonate (repeat the flag for several groups)."),
    click.option("--as-uid", metavar="UID", help="UID to impersonate for the operation."),
    click.option("--as-user-extra", "as_user_extra", metavar="KEY=VALUE", multiple=True,
                 help="User extra to impersonate (repeat the flag for several values of a key)."),
    click.option("--client-certificate", metavar="PATH", help="Path to a client certificate file for TLS."),
    click.option("--client-key", metavar="PATH", help="Path to a client key file for TLS."),
    click.option("--proxy-url", metavar="URL", help="The proxy to reach the server through (overrides the "
                                                     "kubeconfig and the environment)."),
    click.option("--certificate-authority", metavar="PATH", help="Path to a CA file for the API server."),
    click.option("--insecure-skip-tls-verify", is_flag=True, default=False,
                 help="Do not verify the server's certificate (the connection is not secure)."),
    click.option("--tls-server-name", metavar="NAME",
                 help="Server name to use for certificate verification (default: the server's host)."),
]
_KEYWORDS = ("kubeconfig", "kube_context", "namespace", "request_timeout", "kube_cluster", "kube_user", "server",
             "token", "as_user", "as_groups", "as_uid", "as_user_extra", "certificate_authority",
             "insecure_skip_tls_verify", "tls_server_name", "client_certificate", "client_key", "proxy_url")


def options_of(params: dict[str, Any]) -> ClusterOptions:
    """ClusterOptions from the keywords the flags above give (missing ones unset)."""
    return ClusterOptions(
        kubeconfig=params.get("kubeconfig"), context=params.get("kube_context"), namespace=params.get("namespace"),
        request_timeout=params.get("request_timeout"), server=params.get("server"), token=params.get("token"),
        cluster=params.get("kube_cluster"), user=params.get("kube_user"), as_user=params.get("as_user"),
        as_groups=tuple(params.get("as_groups") or ()), as_uid=params.get("as_uid"),
        as_user_extra=tuple(params.get("as_user_extra") or ()),
        certificate_authority=params.get("certificate_authority"),
        insecure=bool(params.get("insecure_skip_tls_verify")), tls_server_name=params.get("tls_server_name"),
        client_certificate=params.get("client_certificate"), client_key=params.get("client_key"),
        proxy_url=params.get("proxy_url"))


def with_cluster_flags(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Declare kubectl's connection flags on `fn` (the flags' keywords are passed to it)."""
    for flag in reversed(_CLUSTER_FLAGS):
        fn = flag(fn)
    return fn


def cluster_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command kubectl's connection flags, collected into `cluster: ClusterOptions`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        mine = options_of({k: kwargs.pop(k, None) for k in _KEYWORDS})
        parent = click.get_current_context().find_object(ClusterOptions)
        return fn(*args, cluster=mine.merged(parent), **kwargs)

    command = with_cluster_flags(wrapper)
    if "files" in fn.__code__.co_varnames[: fn.__code__.co_argcount + fn.__code__.co_kwonlyargcount]:
        command = _INPUT_FLAG(_input_options(command))
    return command


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


class OutputType(click.ParamType):
    """`-o`: one of a command's formats, or (where `templated`) kubectl's `jsonpath=`, `jsonpath-file=`,
    `custom-columns=` and `custom-columns-file=` forms. A name not offered is a usage error (exit 2, as
    click.Choice); a template kubectl would refuse is `error: ...` and exit 1, as kubectl's."""

    name = "output"

    def __init__(self, choices: tuple[str, ...], templated: bool = True) -> None:
        self.choices = choices
        self.templated = templated

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        forms = "|jsonpath=...|custom-columns=..." if self.templated else ""
        return "[" + "|".join(self.choices) + forms + "]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from kubectl_pd.output.printers import TEMPLATED, split_output

        name, _arg = split_output(str(value))
        if name in self.choices and _arg is None:
            return name
        if self.templated and name in TEMPLATED:
            output_spec(str(value))  # refused here, before anything is read
            return str(value)
        forms = ", jsonpath=, jsonpath-file=, custom-columns=, custom-columns-file=" if self.templated else ""
        self.fail(f"{value!r} is not one of {', '.join(self.choices)}{forms}", param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem

        words = list(self.choices) + ([f + "=" for f in ("jsonpath", "jsonpath-file", "custom-columns",
                                                        "custom-columns-file")] if self.templated else [])
        return [CompletionItem(w) for w in words if w.startswith(incomplete)]


def output_spec(value: str) -> Any:
    """The parsed `-o` (kubectl_pd.output.printers.Output), its -file read."""
    from kubectl_pd.output.printers import parse_output, read_template_file

    return parse_output(value, read_template_file(value))


def _sort_by(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value:
        from kubectl_pd.output.jsonpath import parse_template, relaxed

        parse_template(relaxed(value))  # a TemplateError (exit 1) before anything is read
    return value or None


NO_HEADERS = click.option("--no-headers", "no_headers", is_flag=True, default=False,
                          help="Tables (text, wide, custom-columns): no header line.")
SORT_BY = click.option("--sort-by", "sort_by", metavar="JSONPATH", callback=_sort_by,
                       help="Sort the rows by this JSONPath of each row of the -o json document, e.g. "
                            "'{.queue.position}' (see docs/output.md).")


def _color(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from kubectl_pd import termsafe

    termsafe.set_color_mode(value)
    if value != "auto":  # click.echo strips colour off a non-terminal unless the context says otherwise
        ctx.color = value == "always"
    return value


COLOR = click.option("--color", "color_mode", type=click.Choice(["auto", "always", "never"]), default="auto",
                     show_default=True, expose_value=False, callback=_color, is_eager=True,
                     help="Colour the text output: auto (a terminal and NO_COLOR unset), always (even with "
                          "NO_COLOR), never.")
