"""The one call a why-pending run makes into MultiKueue: `part` returns the answer with its json and text
blocks (the manager's own diagnosis already leaves out MultiKueue's normal gated Pods: pending/diagnose.py
_multikueue_gated); `mapping` parses --worker-context. Zero requests for a target whose Workloads wait on no
admission check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.multikueue.answer import MultiKueueAnswer
    from kubectl_pd.multikueue.reads import Access
    from kubectl_pd.pending.gather import Facts


@dataclass(frozen=True)
class MultiKueuePart:
    answer: MultiKueueAnswer | None
    json: Mapping[str, Any]  # {"multikueue": {...}} or {}
    text: str  # "" when no MultiKueue check holds the target
    unread: str = ""  # a manager read MultiKueue needed failed: its part is unknown (words.manager_unread)
    note: str = ""  # the AdmissionChecks could not be listed: whether MultiKueue holds it is not known

    @property
    def incomplete(self) -> bool:
        """A worker that had to be read was not (unreachable, refused), or a manager read MultiKueue needed
        failed: that part is unknown (exit 1)."""
        return bool(self.unread) or (self.answer is not None and not self.answer.complete)


NONE = MultiKueuePart(None, {}, "")


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


def not_listed(ans: MultiKueueAnswer | None, workers: Mapping[str, str]) -> str:
    """A note when --worker-context names a cluster the MultiKueueConfig does not list ("" otherwise)."""
    from kubectl_pd.multikueue import words

    if ans is None or not workers:
        return ""
    extra = sorted(c for c in workers if c not in ans.listed)
    return words.not_listed(extra, ans.config) if extra else ""


def part(source: Source, facts: Facts, access: Access | None) -> MultiKueuePart:
    """ACCESS: how the workers are reached (None: no worker is read)."""
    from kubectl_pd.multikueue import words
    from kubectl_pd.multikueue.reads import NO_WORKERS, ManagerUnread
    from kubectl_pd.multikueue.render import to_dict, to_text
    from kubectl_pd.multikueue.run import candidates, explain

    if not candidates(facts):
        return NONE
    try:
        ans = explain(source, facts, access or NO_WORKERS)
    except ManagerUnread as e:
        if e.what == "AdmissionCheck":  # not known to be MultiKueue's: the manager's answer stands alone
            return MultiKueuePart(None, {}, "", note=words.checks_unread(str(e.error)))
        return MultiKueuePart(None, {}, "", unread=words.manager_unread(e.what, str(e.error)))
    if ans is None:
        return NONE
    note = not_listed(ans, access.mapping if access else {})
    return MultiKueuePart(ans, {"multikueue": to_dict(ans)}, to_text(ans), note=note)


def errors(p: MultiKueuePart) -> list[str]:
    """One line per worker whose read failed (unreachable, refused): what the exit code 1 stands for."""
    from kubectl_pd.multikueue.words import finding

    if p.unread:
        return [p.unread]
    if p.answer is None:
        return []
    return [f"{w.cluster}: {finding(f)}" for w in p.answer.workers for f in w.findings
            if f.code in ("MultiKueueWorkerUnreachable", "MultiKueueWorkerForbidden")]
