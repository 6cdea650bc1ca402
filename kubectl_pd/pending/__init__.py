"""why-pending: gather (bounded reads), diagnose (pure), quota (pure arithmetic), render (views); one run for
every caller (run.py: why-pending, tree, snapshot, MCP, and `explain` for create --wait)."""

from __future__ import annotations

from kubectl_pd.cluster.protocols import Source


def explain(source: Source, target: str, namespace: str, *, color: bool = False) -> str:
    """The rendered text diagnosis of TARGET (`NAME`, `md/NAME`, `wl/NAME`, ...) in `namespace`, made by
    why-pending's own run (pending/run.one).

    Raises NotFoundError when the target does not exist; `kubectl pd create --wait` calls this when
    its time runs out.
    """
    from kubectl_pd.errors import InputError
    from kubectl_pd.pending import run
    from kubectl_pd.pending.render import render_text
    from kubectl_pd.pending.target import IncompleteError, Target, parse_target

    try:
        kind, name = parse_target(target)
    except ValueError as e:
        raise InputError(str(e)) from None
    try:
        d, _facts = run.one(source, Target(kind, name, namespace))
    except IncompleteError as e:
        from kubectl_pd.pending.words import incomplete_error

        raise incomplete_error(e.target, e.unread) from None
    return render_text(d, color=color)


__all__ = ["explain"]
