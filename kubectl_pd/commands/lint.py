"""`kubectl pd lint` (not built yet)."""

from __future__ import annotations

import click

from kubectl_pd.cli import cluster_options
from kubectl_pd.errors import PdError


@click.command("lint", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@cluster_options
def lint(cluster: object) -> int:
    """Not built yet."""
    raise PdError("kubectl pd lint is not built yet")
