"""why-pending's preemption part: the core's answers (kubectl_pd/kueue/preempt_answer.py) for the target's
Workloads, turned into JSON keys and a text block by kubectl_pd/pending/preempt_render.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_pd.kueue import preempt_answer as pa

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source


def context(source: Source, config_file: str | None, want_holders: bool, live: bool | None = None) -> pa.PreemptionView:
    """One run's preemption view; `--kueue-config FILE` is read (and refused when unreadable) up front."""
    from kubectl_pd.kueue import config as kc

    cfg = kc.from_file(config_file) if config_file else None
    return pa.PreemptionView(None, cfg, want_holders=want_holders)  # its record: filled by gather_preemption


def section(ctx: pa.PreemptionView, facts: Any, *, text: bool = True) -> tuple[dict[str, Any], str]:
    """why-pending's preemption part for one target: (JSON keys, text block), from the answers its
    diagnosis recorded through `ctx.assign` (the same assignments its verdicts rest on). `text=False`: the
    JSON keys only (the block is "")."""
    from kubectl_pd.pending import preempt_render as pr

    if not any(o is not None for o in facts.workloads.values()):
        return {"preemption": None}, ""
    answers = ctx.for_facts(facts)
    return pr.to_json(answers), pr.text(answers) if text else ""
