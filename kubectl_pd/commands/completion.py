"""`kubectl pd completion` (not built yet)."""

from __future__ import annotations

import click

from kubectl_pd.errors import PdError


@click.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> int:
    """Print the completion script for SHELL (not built yet)."""
    raise PdError("kubectl pd completion is not built yet")


@click.command("__complete", hidden=True, context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
def complete_words(words: tuple[str, ...]) -> int:
    """kubectl's plugin completion protocol (not built yet)."""
    click.echo(":4")
    return 0
