"""why-pending: gather (bounded reads), diagnose (pure), quota (pure arithmetic), render (views)."""

from __future__ import annotations

from kubectl_pd.cluster.protocols import Source


def explain(source: Source, target: str, namespace: str, *, color: bool = False) -> str:
    """The rendered text diagnosis of TARGET (`NAME`, `md/NAME`, `wl/NAME`, ...) in `namespace`.

    Raises NotFoundError when the target does not exist; `kubectl pd create --wait` calls this when
    its time runs out.
    """
    from kubectl_pd.errors import InputError
    from kubectl_pd.pending.diagnose import diagnose
    from kubectl_pd.pending.gather import gather
    from kubectl_pd.pending.render import render_text
    from kubectl_pd.pending.target import IncompleteError, Target, parse_target

    try:
        kind, name = parse_target(target)
    except ValueError as e:
        raise InputError(str(e)) from None
    try:
        facts = gather(source, Target(kind, name, namespace))
    except IncompleteError as e:
        from kubectl_pd.pending.words import incomplete_error

        raise incomplete_error(e.target, e.unread) from None
    return render_text(diagnose(facts), color=color)


__all__ = ["explain"]
