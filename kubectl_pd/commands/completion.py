"""`kubectl pd completion SHELL` and the hidden `__complete` that answers kubectl's plugin completion.

Both are computed from the real click command tree, so subcommands, flags, `-o` choices and every
parameter type's own `shell_complete` (e.g. `--role` keys and kinds) complete without a second list.
kubectl (1.26+) runs `kubectl_complete-pd WORDS... INCOMPLETE` and reads Cobra's format: one candidate
per line (`value<TAB>description`), then `:<directive>` on the last line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # mypy reads records' dataclass as the standard one (same semantics)
    from dataclasses import dataclass
else:
    from kubectl_pd.records import dataclass

PROG_NAME = "kubectl-pd"
COMPLETE_VAR = "_KUBECTL_PD_COMPLETE"
SHELLS = ("bash", "zsh", "fish")

# Cobra's ShellCompDirective bits: the shells kubectl generates act on them.
DIRECTIVE_DEFAULT = 0  # no candidates: let the shell complete file names
DIRECTIVE_ERROR = 1
DIRECTIVE_NO_SPACE = 2
DIRECTIVE_NO_FILE_COMP = 4
DIRECTIVE_FILTER_DIRS = 16


@dataclass(frozen=True)
class Completion:
    """One completion, as click's CompletionItem gives it (kind = click's item type)."""

    value: str
    kind: str = "plain"  # plain | file | dir
    help: str | None = None
    no_space: bool = False  # the word goes on (`name=`, `kind=prefill,`): no space after it


def split_words(words: Sequence[str]) -> tuple[list[str], str]:
    """kubectl passes the complete words and then the word being completed (`""` for a new one)."""
    if not words:
        return [], ""
    return list(words[:-1]), words[-1]


def _description(text: str | None) -> str:
    if not text:
        return ""
    first = text.strip().splitlines()[0] if text.strip() else ""
    return " ".join(first.replace("\t", " ").split())


def render(candidates: Iterable[Completion]) -> list[str]:
    """Cobra's `__complete` output for these candidates: lines, the directive last."""
    from kubectl_pd.completion.safe import cobra_line

    items = list(candidates)
    plain = [c for c in items if c.kind not in ("file", "dir")]
    if not plain:
        if any(c.kind == "file" for c in items):
            return [f":{DIRECTIVE_DEFAULT}"]
        if any(c.kind == "dir" for c in items):
            return [f":{DIRECTIVE_FILTER_DIRS}"]
    directive = DIRECTIVE_NO_FILE_COMP
    lines: list[str] = []
    seen: set[str] = set()
    for c in plain:  # completion/safe.py: the one escaping the bridge's fast path shares
        line = cobra_line(c.value, _description(c.help))
        if line is None or c.value in seen:
            continue
        seen.add(c.value)
        if c.no_space or c.value.endswith(("=", ",")):
            directive |= DIRECTIVE_NO_SPACE
        lines.append(line)
    lines.append(f":{directive}")
    return lines


def candidates_for(words: Sequence[str], root: click.Command | None = None) -> list[Completion]:
    """Ask the command tree (the real one by default) what may come next; lazy subcommands load as needed."""
    from click.shell_completion import ShellComplete

    if root is None:
        from kubectl_pd.commands.cli import cli

        root = cli

    args, incomplete = split_words(words)
    completer = ShellComplete(root, {}, PROG_NAME, COMPLETE_VAR)
    return [_candidate(item) for item in completer.get_completions(args, incomplete)]


def _candidate(item: Any) -> Completion:
    return Completion(
        value=str(item.value),
        kind=str(item.type or "plain"),
        help=item.help,
        no_space=bool(getattr(item, "no_space", False)),
    )


def script(shell: str) -> str:
    """click's completion script for `kubectl-pd` in SHELL (same text on every machine)."""
    from click.shell_completion import get_completion_class

    from kubectl_pd.commands.cli import cli
    from kubectl_pd.completion.shells import register

    register()
    cls = get_completion_class(shell)
    if cls is None or shell not in SHELLS:
        raise click.BadParameter(f"unsupported shell {shell!r} (use {', '.join(SHELLS)})")
    completer = cls(cli, {}, PROG_NAME, COMPLETE_VAR)
    # The template directly: BashComplete.source() would also probe the local bash version.
    return cls.source_template % completer.source_vars()


@click.command("completion", short_help="Print a shell completion script (bash, zsh, fish).")
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> int:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
    bash:  source <(kubectl pd completion bash)        (in ~/.bashrc)
    zsh:   kubectl pd completion zsh > "${fpath[1]}/_kubectl-pd"
    fish:  kubectl pd completion fish > ~/.config/fish/completions/kubectl-pd.fish

    The script completes `kubectl-pd ...`. For `kubectl pd <TAB>`, put the kubectl_complete-pd
    executable on PATH (kubectl 1.26+ runs it for plugin words).
    """
    text = script(shell)
    click.echo(text, nl=not text.endswith("\n"))
    return 0


class _RawWords(click.Command):
    """Takes its words verbatim: kubectl's words may be `-n`, `--`, `--help` or anything else."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.params["words"] = tuple(args)
        return []


@click.command("__complete", cls=_RawWords, hidden=True, add_help_option=False)
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
def complete_words(words: tuple[str, ...]) -> int:
    """Complete WORDS for kubectl's plugin completion (`kubectl_complete-pd`)."""
    try:
        lines = render(candidates_for(words))
    except Exception:  # completion must never spill a traceback into the user's shell
        if os.environ.get("KUBECTL_PD_DEBUG"):
            raise
        lines = [f":{DIRECTIVE_ERROR}"]
    click.echo("\n".join(lines))
    return 0
