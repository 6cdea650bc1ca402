"""`kubectl pd schema NAME`: the JSON Schema of a command's `-o json` document (docs/schema/NAME.json)."""

from __future__ import annotations

import click

from kubectl_pd.contract import VERSIONS


@click.command("schema", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("name", type=click.Choice(sorted(VERSIONS)))
def schema(name: str) -> int:
    """Print the JSON Schema of why-pending's, lint's or create --preflight's -o json document.

    Each document carries its schemaVersion (MAJOR.MINOR); docs/agents.md says what changes which.
    """
    from kubectl_pd.agent.schemas import text

    click.echo(text(name), nl=False)
    return 0
