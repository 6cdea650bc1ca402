"""What a why-pending run asks of MultiKueue: `reads` (made beside the manager's own reads), then `part` (the
decision: the answer as a record; the printer renders it: render.py; the manager's own diagnosis already leaves
out MultiKueue's normal gated Pods: pending/diagnose.py _multikueue_gated); `mapping` parses --worker-context.
Zero requests for a target whose Workloads wait on no admission check."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from kubectl_pd.multikueue.run import Reads
from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.multikueue.access import Access
    from kubectl_pd.multikueue.answer import MultiKueueAnswer
    from kubectl_pd.pending.gather import Facts
    from kubectl_pd.pending.model import Reason


@dataclass(frozen=True)
class MultiKueuePart:
    """MultiKueue's part of one TARGET's answer, as data: the answer (None: no MultiKueue check holds the target,
    or its part is unknown), and what the run's stderr says of it (worded by the printer: `notes`, `errors`)."""

    answer: MultiKueueAnswer | None
    unread: tuple[str, str] | None = None  # (what, error): a manager read MultiKueue needed failed: unknown
    checks_error: str | None = None  # the AdmissionChecks could not be listed: whether MultiKueue holds it is unknown
    not_listed: tuple[str, ...] = ()  # --worker-context clusters the MultiKueueConfig does not list: not used

    @property
    def incomplete(self) -> bool:
        """A worker that had to be read was not (unreachable, refused), or a manager read MultiKueue needed
        failed: that part is unknown (exit 1)."""
        return self.unread is not None or (self.answer is not None and not self.answer.complete)


NONE = MultiKueuePart(None)


def mapping(values: tuple[str, ...] | list[str]) -> dict[str, str]:
    """`--worker-context CLUSTER=CONTEXT` (repeatable) -> {CLUSTER: CONTEXT}; ValueError (usage) otherwise."""
    out: dict[str, str] = {}
    for v in values:
        cluster, sep, context = v.partition("=")
        if not sep or not cluster.strip() or not context.strip():
            raise ValueError(f"{v!r}: expected CLUSTER=CONTEXT (a MultiKueueCluster's name and a kubeconfig context)")
        if cluster.strip() in out:
            raise ValueError(f"{cluster.strip()!r} is given twice")
        out[cluster.strip()] = context.strip()
    return out


def _not_listed(ans: MultiKueueAnswer, workers: Mapping[str, str]) -> tuple[str, ...]:
    """The clusters --worker-context names that the MultiKueueConfig does not list."""
    return tuple(sorted(c for c in workers if c not in ans.listed))


class PartReads(Reads):
    """MultiKueue's reads for one TARGET (run.Reads: pending/run.Alongside's `first` and `rest`), and its decision
    made once per Facts: `checks` hands the manager's diagnosis what the record decides of its check (before the
    headline is chosen), `part` the same record for the printer."""

    def __init__(self, source: Source, access: Access) -> None:
        super().__init__(source, access)
        self.decided: tuple[Facts, MultiKueuePart] | None = None

    def part(self, facts: Facts) -> MultiKueuePart:
        if self.decided is None or self.decided[0] is not facts:
            self.decided = (facts, _part(self, facts, None))
        return self.decided[1]

    def checks(self, facts: Facts) -> Mapping[str, Reason | None]:
        return manager_reasons(self.part(facts))


def reads(source: Source, access: Access | None) -> PartReads:
    """MultiKueue's reads for one TARGET, made beside the manager's (pending/run.one's `alongside`); ACCESS: how
    the workers are reached (None: no worker is read)."""
    from kubectl_pd.multikueue.access import NO_WORKERS

    return PartReads(source, access or NO_WORKERS)


def part(got: Reads, facts: Facts, now: datetime | None = None) -> MultiKueuePart:
    """The decision, with no I/O: MultiKueue's part of the answer from what `got` read (the record the manager's
    diagnosis took its reasons from, when `got` made it: PartReads)."""
    if now is None and isinstance(got, PartReads):
        return got.part(facts)
    return _part(got, facts, now)


def _part(got: Reads, facts: Facts, now: datetime | None) -> MultiKueuePart:
    from kubectl_pd.multikueue.reads import ManagerUnread
    from kubectl_pd.multikueue.run import candidates, decide

    if not candidates(facts):
        return NONE
    try:
        mgr, workers = got.got()
    except ManagerUnread as e:
        if e.what == "AdmissionCheck":  # not known to be MultiKueue's: the manager's answer stands alone
            return MultiKueuePart(None, checks_error=str(e.error))
        return MultiKueuePart(None, unread=(e.what, str(e.error)))
    ans = decide(mgr, workers, now) if mgr is not None else None
    if ans is None:
        return NONE
    return MultiKueuePart(ans, not_listed=_not_listed(ans, got.access.mapping))


def manager_reasons(p: MultiKueuePart) -> dict[str, Reason | None]:
    """What MultiKueue's record decides of the manager's own wait on its check (issue 46, finding 6), by check
    name: when every nominated worker was read and none can ever hold the group (the deciding finding), the
    manager's reason for that check is that finding, not a wait, so its headline, reasons and `next:` come from
    the record the worker table shows; otherwise (None) the wait stands, its `next:` the MultiKueue block's steps
    (never the manager's generic wait, which names no worker)."""
    a = p.answer
    if a is None:
        return {}
    f = a.decisive
    if f is None:
        return {a.admission_check: None}
    from kubectl_pd.pending.model import Reason, read_only
    from kubectl_pd.pending.say import say

    clusters = list(f.params.get("clusters", ()))
    return {a.admission_check: Reason("MultiKueueNoWorkerFits",
                                      say("check.no-worker-fits", check=a.admission_check, clusters=clusters),
                                      workload=a.workload or None,
                                      params=read_only({"check": a.admission_check, "clusters": clusters}))}


def notes(p: MultiKueuePart) -> list[str]:
    """The part's notes, worded (stderr: `note: ...`)."""
    from kubectl_pd.multikueue import words

    out = [words.checks_unread(p.checks_error)] if p.checks_error is not None else []
    if p.not_listed and p.answer is not None:
        out.append(words.not_listed(list(p.not_listed), p.answer.config))
    return out


def errors(p: MultiKueuePart) -> list[str]:
    """One line per worker whose read failed (unreachable, refused): what the exit code 1 stands for."""
    from kubectl_pd.multikueue import words
    from kubectl_pd.multikueue.words import finding

    if p.unread is not None:
        return [words.manager_unread(*p.unread)]
    if p.answer is None:
        return []
    return [f"{w.cluster}: {finding(f)}" for w in p.answer.workers for f in w.findings
            if f.code in ("MultiKueueWorkerUnreachable", "MultiKueueWorkerForbidden")]
