"""why-pending's preemption part: the core's answers (kubectl_pd/kueue/preempt_answer.py) for the target's
Workloads, turned into JSON keys and a text block by kubectl_pd/pending/preempt_render.py."""

from __future__ import annotations

from typing import Any

from kubectl_pd.kueue import preempt_answer as pa
from kubectl_pd.kueue.model import Snapshot


def section(source: Any, facts: Any, config_file: str | None, want_holders: bool) -> tuple[dict[str, Any], str]:
    """why-pending's preemption part: (JSON keys, text block). Reads Kueue's configuration only when a
    Workload needs preemption or holders are asked for."""
    from kubectl_pd.kueue import config as kc
    from kubectl_pd.pending import preempt_render as pr

    cfg = kc.from_file(config_file) if config_file else None
    if not any(isinstance(o, dict) for o in facts.workloads.values()):
        return {"preemption": None}, ""
    snap = Snapshot.read(facts.cluster_queues, facts.flavors, facts.peer_queues, facts.cohorts,
                         from_file=not facts.live)
    if cfg is None:
        cfg = kc.read(source) if facts.live else kc.KueueConfig(note=kc.NOTE_DEFAULTS_UNREAD)
    answers = pa.for_facts(source, facts, snap, cfg, want_holders=want_holders)
    return pr.to_json(answers), pr.text(answers)
