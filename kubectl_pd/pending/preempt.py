"""why-pending's preemption part: the answers its Diagnosis carries (kubectl_pd/kueue/preempt_answer.py, each
returned with its Workload's assignment), turned into JSON keys, a text block and its notes by
kubectl_pd/pending/preempt_render.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_pd.kueue import preempt_answer as pa
from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.pending.model import Diagnosis


def context(source: Source, config_file: str | None, want_holders: bool, live: bool | None = None) -> pa.PreemptionView:
    """One run's preemption view; `--kueue-config FILE` is read (and refused when unreadable) up front."""
    from kubectl_pd.kueue import config as kc

    cfg = kc.from_file(config_file) if config_file else None
    return pa.PreemptionView(None, cfg, want_holders=want_holders)  # its record: filled by gather_preemption


@dataclass(frozen=True)
class PreemptionPart:
    """why-pending's preemption part for one target, as data: its JSON keys (`preemption`, `holders`,
    `preemptedBy`), its text block (without notes) and its notes (for stderr, as every note)."""

    json: dict[str, Any]
    text: str = ""
    notes: tuple[str, ...] = ()


def section(d: Diagnosis, *, text: bool = True) -> PreemptionPart:
    """why-pending's preemption part for one target, from the answers its Diagnosis carries (returned with the
    assignments its verdicts rest on). `text=False`: the JSON keys only."""
    from kubectl_pd.pending import preempt_render as pr

    answers = list(d.preemption)
    if not text:
        return PreemptionPart(pr.to_json(answers))
    return PreemptionPart(pr.to_json(answers), pr.text(answers, notes=False), pr.note_texts(answers))
