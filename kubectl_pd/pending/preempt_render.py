"""The English and JSON of the core's preemption answers (kubectl_pd/kueue/preempt_answer.py) for why-pending.

JSON contract (top level of why-pending -o json):
  `preemption`: null when admission needs no preemption; else {"targets": [{"namespace", "name",
  "clusterQueue", "priority", "reason"}]} with Kueue's reason words; `targets` is [] when preemption is
  needed and nothing can be preempted, and null with `unknown` (a code) when the candidates could not be
  read (never a guess).
  `holders` (when read): [{"namespace", "name", "clusterQueue", "priority", "flavor", "resource", "amount",
  "borrows"}]; `preemptedBy` (when a Workload was preempted): {"uid", "namespace", "name", "clusterQueue"}.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubectl_pd.kueue.preempt_answer import Answer
from kubectl_pd.kueue.quantity import format_quantity
from kubectl_pd.kueue.words import NOTE_TEXT, UNKNOWN_TEXT
from kubectl_pd.pending.model import fmt


def to_json(answers: Sequence[Answer]) -> dict[str, Any]:
    needed = [a for a in answers if a.needed]
    out: dict[str, Any] = {"preemption": None}
    if needed:
        unknown = next((a.unknown for a in needed if a.targets is None), None)
        if unknown is not None:
            out["preemption"] = {"targets": None, "unknown": unknown}
        else:
            seen: dict[tuple[str, str], dict[str, Any]] = {}
            for a in needed:
                for t in a.targets or ():
                    seen.setdefault((t.namespace, t.name), {"namespace": t.namespace, "name": t.name,
                                                            "clusterQueue": t.cluster_queue, "priority": t.priority,
                                                            "reason": t.reason})
            out["preemption"] = {"targets": list(seen.values())}
    holders = [h for a in answers for h in a.holders]
    if holders:
        out["holders"] = [{"namespace": h.namespace, "name": h.name, "clusterQueue": h.cluster_queue,
                           "priority": h.priority, "flavor": h.flavor, "resource": h.resource,
                           "amount": format_quantity(h.amount, h.resource), "borrows": h.borrows} for h in holders]
    by = next((a.preempted_by for a in answers if a.preempted_by is not None), None)
    if by is not None:
        out["preemptedBy"] = {"uid": by.uid, "namespace": by.namespace, "name": by.name,
                              "clusterQueue": by.cluster_queue}
    return out


def text(answers: Sequence[Answer], *, notes: bool = True) -> str:
    """The "would preempt" block; NOTES: with each answer's notes as `note:` lines (a MultiKueue worker's block keeps
    them in place), else without them (a target's notes reach stderr from `notes()`, never parsed out of this text)."""
    lines: list[str] = []
    for a in answers:
        if a.needed and a.targets is None:
            lines.append(f"Would preempt: unknown: {UNKNOWN_TEXT.get(a.unknown or '', a.unknown or '')}")
        elif a.needed and not a.targets and a.searched:
            lines.append(f"Would preempt: nothing (Workload {a.workload} needs preemption in ClusterQueue "
                         f"{a.cluster_queue}, but no admitted Workload can be preempted under its policies)")
        elif a.needed and a.targets:
            lines.append(f"Would preempt {len(a.targets)} Workload{'s' if len(a.targets) != 1 else ''} "
                         f"to admit {a.workload}:")
            lines += [f"  {t.namespace}/{t.name}  ClusterQueue {t.cluster_queue}  priority {t.priority}  "
                      f"({t.reason})" for t in a.targets]
        if a.holders:
            lines.append("Holding the quota:")
            lines += [f"  {h.namespace}/{h.name}  {fmt(h.amount, h.resource)} of "  # credits in cards, as the bars
                      f"{h.flavor}  ClusterQueue {h.cluster_queue}  priority {h.priority}"
                      + ("  (borrowing)" if h.borrows else "") for h in a.holders]
        by = a.preempted_by
        if by is not None:
            who = f"{by.namespace}/{by.name}" if by.name else f"Workload UID {by.uid} (not found)"
            lines.append(f"Preempted by {who}" + (f" in ClusterQueue {by.cluster_queue}" if by.cluster_queue else ""))
        if notes:
            lines += [f"note: {line}" for line in _notes_of(a)]
    return "".join("\n" + line + "\n" if i == 0 else line + "\n" for i, line in enumerate(dict.fromkeys(lines)))


def _notes_of(a: Answer) -> list[str]:
    return [NOTE_TEXT.get(n, n) for n in a.notes if a.needed and a.searched and a.targets is not None]


def note_texts(answers: Sequence[Answer]) -> tuple[str, ...]:
    """The notes `text(answers, notes=False)` leaves out, each once, in order."""
    return tuple(dict.fromkeys(line for a in answers for line in _notes_of(a)))
