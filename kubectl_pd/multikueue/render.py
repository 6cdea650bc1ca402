"""The MultiKueue part of a why-pending answer: its text block (the manager's state in one line, its findings,
then one row per worker and role) and its json block (`multikueue`, why-pending contract 1.4)."""

from __future__ import annotations

from typing import Any

from kubectl_pd.multikueue import words
from kubectl_pd.multikueue.answer import MultiKueueAnswer, MultiKueueFinding, WorkerAnswer


def _finding_dict(f: MultiKueueFinding) -> dict[str, Any]:
    return {"code": f.code, "message": words.finding(f), "params": dict(f.params)}


def _worker_dict(w: WorkerAnswer) -> dict[str, Any]:
    from kubectl_pd.pending import preempt_render as pr
    from kubectl_pd.pending.render import _reason_dict

    preemption = pr.to_json(list(w.preemption))  # the worker's own answer, as a single-cluster one's keys
    return {"cluster": w.cluster, "context": w.context, "read": w.read, "nominated": w.nominated,
            "connected": w.connected, "pending": w.pending,
            "reasons": [_finding_dict(f) for f in w.findings] + [_reason_dict(r) for r in w.reasons],
            "preemption": preemption["preemption"],
            **{k: preemption[k] for k in ("holders", "preemptedBy") if k in preemption}}


def _step_dicts(a: MultiKueueAnswer) -> list[dict[str, Any]]:
    """The block's `next:` as data (contract 1.8), each step once as the text says it: its code, its sentence, its
    params (a worker step's hint is its sentence's input, not data: its reason's code stands for it)."""
    out: dict[str, dict[str, Any]] = {}
    for s in a.steps:
        text = words.step(s)
        out.setdefault(text, {"code": s.code, "message": text,
                              "params": {k: v for k, v in s.params.items() if k != "hint"}})
    return list(out.values())


def to_dict(a: MultiKueueAnswer) -> dict[str, Any]:
    return {"admissionCheck": a.admission_check, "state": a.state, "message": words.state_line(a),
            "dispatchedTo": a.dispatched_to, "nominated": list(a.nominated),
            "reasons": [_finding_dict(f) for f in a.findings], "workers": [_worker_dict(w) for w in a.workers],
            "next": _step_dicts(a)}


def _verdict(w: WorkerAnswer) -> str:
    if w.pending is None:
        return words.VERDICT_UNKNOWN
    return words.VERDICT_PENDING if w.pending else words.VERDICT_ADMITTED


def _rows(w: WorkerAnswer) -> list[list[str]]:
    from kubectl_pd.pending import words as pw
    from kubectl_pd.pending.model import short

    head = [w.cluster, w.context or "-", words.READ.get(w.read, w.read)]
    trouble = "; ".join(words.finding(f) for f in w.findings)
    rows = [[*head, r.role or "-", _verdict(w), r.flavor or "-", short(r.needed, r.resource) if w.short(r) else "-",
             f"{r.code}: {_why(w, r, ' '.join(pw.message(r).split()))}"] for r in w.reasons]
    if trouble or not rows:
        rows.insert(0, [*head, "-", _verdict(w), "-", "-", trouble or "-"])
    return rows


def _why(w: WorkerAnswer, r: Any, message: str) -> str:
    """A worker row's WHY: the copy's reason there, said as Kueue's older words when the worker's own figures say
    its role fits now (the row then shows no shortfall: one set of figures per row)."""
    return words.older(message) if w.older(r) else message


def to_text(a: MultiKueueAnswer) -> str:
    from kubectl_pd.output.printers import plain_table

    lines = ["", f"  {words.state_line(a)}"]
    lines += [f"  - {f.code}: {words.finding(f)}" for f in a.findings]
    table = [row for w in a.workers for row in _rows(w)]
    lines += ["  " + ln for ln in plain_table(table, list(words.WORKER_HEADER)).splitlines()]
    lines += [f"  next: {step}" for step in dict.fromkeys(words.step(s) for s in a.steps)]
    lines += _preemption_lines(a)
    return "\n".join(lines) + "\n"


def _preemption_lines(a: MultiKueueAnswer) -> list[str]:
    """Each worker's preemption answer, as single-cluster why-pending words it, under the worker's name."""
    from kubectl_pd.pending import preempt_render as pr

    out: list[str] = []
    for w in a.workers:
        block = pr.text(list(w.preemption)).strip("\n")
        if block.strip():
            out += [f"  {words.worker_label(w.cluster)}", *("    " + ln for ln in block.splitlines())]
    return out
