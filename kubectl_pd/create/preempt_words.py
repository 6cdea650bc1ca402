"""create's sentence about what admitting the request would preempt, from the core's answers
(kubectl_pd/kueue/preempt_answer.py): the printer of create's preemption line."""

from __future__ import annotations

from collections.abc import Sequence

from kubectl_pd.kueue.preempt_answer import Answer
from kubectl_pd.kueue.words import UNKNOWN_TEXT

ORDER_UNKNOWN = "pod-set-order"  # create/preflight.ORDER_UNKNOWN (not imported: this printer loads no checks)


def create_line(answers: Sequence[Answer]) -> str | None:
    """create's sentence before it writes."""
    needed = [a for a in answers if a.needed]
    if not needed:
        return None
    if any(a.targets is None for a in needed):
        unknown = next(a.unknown for a in needed if a.targets is None) or ""
        if unknown == ORDER_UNKNOWN:
            return ("admitting this may need preemption, depending on the order Kueue gives the pod sets (which "
                    "cannot be known here); which Workloads is unknown")
        return "admitting this would need preemption; which Workloads is unknown (" + \
            UNKNOWN_TEXT.get(unknown, unknown) + ")"
    victims = [t for a in needed for t in a.targets or ()]
    if not victims:
        return "admitting this needs preemption, but no admitted Workload can be preempted: it would wait"
    names = ", ".join(f"{t.namespace}/{t.name}" for t in victims)
    return f"admitting this would preempt {len(victims)} Workload{'s' if len(victims) != 1 else ''}: {names}"
