"""`--role name=N,kind=K,replicas=R,...`: the flag type create and capacity share (parsed by create/flags.py)."""

from __future__ import annotations

from typing import Any

import click

from kubectl_pd.create import flags
from kubectl_pd.create.flags import RoleSpec, RoleSyntaxError


class RoleType(click.ParamType):
    """`name=N,kind=K,replicas=R,...`; completes the keys, and the kinds after `kind=`."""

    name = "role"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> RoleSpec:
        if isinstance(value, RoleSpec):
            return value
        try:
            return flags.parse_role(str(value))
        except RoleSyntaxError as e:
            self.fail(str(e), param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter,
                       incomplete: str) -> list[click.shell_completion.CompletionItem]:
        from click.shell_completion import CompletionItem

        return [CompletionItem(c) for c in flags.complete_role(incomplete)]

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "name=N,kind=K,replicas=R[,...]"
