"""The English of MultiKueue's answer: the manager's state in one line, each finding, each worker's read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubectl_pd.multikueue.answer import MultiKueueAnswer, MultiKueueFinding, Step


def _names(xs: Any) -> str:
    return ", ".join(str(x) for x in xs or ()) or "none"


def _duration(s: Any) -> str:
    if not isinstance(s, int):
        return "?"
    return f"{s // 60} min" if s >= 60 and s % 60 == 0 else f"{s} s"


STATE: Mapping[str, str] = {
    "QuotaPending": "waits for quota on the manager, before any dispatch",
    "CheckInactive": "its MultiKueue check is inactive: nothing is dispatched",
    "WaitingForOtherChecks": "quota reserved on the manager; dispatch waits for its other admission checks",
    "NotDispatched": "quota reserved on the manager; no worker nominated yet",
    "Dispatched": "dispatched: copies wait on the nominated workers",
    "DispatchRound": "dispatched to a first round of workers; the next round is not due yet",
    "Admitted": "admitted",
    "Retry": "the MultiKueue check asks for a retry",
    "Rejected": "the MultiKueue check rejected it",
    "Finished": "finished",
}


def state_line(a: MultiKueueAnswer) -> str:
    """The MultiKueue block's headline: the finding that decides the wait when one does, else the state."""
    if a.decisive is not None:
        return f"MultiKueue (check {a.admission_check}): {finding(a.decisive)}"
    where = f" on {a.dispatched_to}" if a.dispatched_to else (f" (nominated: {_names(a.nominated)})"
                                                              if a.nominated else "")
    return f"MultiKueue (check {a.admission_check}): {STATE.get(a.state, a.state)}{where}"


def step(s: Step) -> str:
    """One `next:` of the MultiKueue block."""
    if s.code == "worker":
        from kubectl_pd.pending.words import hint

        return f"on worker {s.params['cluster']}: {hint(s.params['hint'])}"
    if s.code == "worker-fits":
        return (f"on worker {s.params['cluster']}: by the figures read there {_names(s.params['roles'])} fit(s) its "
                f"quota, while Kueue's message says short: wait for Kueue's next try, or read the queue there again "
                f"(kubectl describe clusterqueue)")
    if s.code == "wait":
        return f"wait for {s.params['check']} to admit it on a worker (each worker's reasons above)"
    return (f"or delete Workload {s.params['namespace']}/{s.params['workload']} on the manager: until a worker can "
            f"hold it, it keeps the manager's quota (kueue #8602)")


_SAY: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "MultiKueueCheckInactive": lambda p: f"AdmissionCheck {p['check']} is not Active ({p['reason'] or '?'}: "
                                         f"{p['message'] or 'no message'})",
    "MultiKueueConfigMissing": lambda p: f"AdmissionCheck {p['check']} names MultiKueueConfig {p['config'] or '?'}, "
                                         f"which was not found",
    "MultiKueueQuotaPending": lambda p: "the manager's own ClusterQueue has not reserved quota: an ordinary "
                                        "single-cluster wait (the reasons above)",
    "MultiKueueWaitingForOtherChecks": lambda p: f"{p['check']} nominates no worker until every other check is "
                                                 f"Ready; not Ready yet: {_names(p['checks'])} (Kueue says this "
                                                 f"in its log only)",
    "MultiKueueNotDispatched": lambda p: f"no worker nominated yet by the dispatcher {p['dispatcher']}",
    "MultiKueueDispatchRound": lambda p: f"the incremental dispatcher nominated {_names(p['nominated'])}; the next "
                                         f"round ({_names(p['next'])}) comes at most "
                                         f"{_duration(p['roundSeconds'])} after this round began",
    "MultiKueueWorkerLost": lambda p: (f"the admitting worker {p['cluster']} was lost; Kueue retries the dispatch"
                                       if p.get("passed") else
                                       f"the admitting worker {p['cluster']} is not connected ({p.get('reason') or '?'}"
                                       f"); Kueue keeps it admitted until {_duration(p['timeoutSeconds'])} have "
                                       f"passed (lost for {_duration(p.get('lostSeconds'))})"),
    "MultiKueueNoAdapter": lambda p: f"MultiKueue has no adapter for the owner ({_names(p['owners'])}): "
                                     f"{p['message']}",
    "MultiKueueOwnerNotManaged": lambda p: str(p["message"]),
    "MultiKueueCheckRetry": lambda p: f"the check is {p['state']}: {p['message'] or 'no message'}",
    "MultiKueueNoWorkerFits": lambda p: f"no nominated worker can ever hold it ({_names(p['clusters'])}), while the "
                                        f"manager holds its quota (kueue #8602)",
    "MultiKueueWorkerNotConnected": lambda p: f"MultiKueueCluster {p['cluster']} is not connected "
                                              f"({p['reason'] or '?'}: {p['message'] or 'no message'})",
    "MultiKueueWorkerUnknown": lambda p: f"{p['cluster']}: " + (
        "no MultiKueueCluster of that name" if not p["clusterObject"] else "not in the MultiKueueConfig"),
    "MultiKueueWorkerNotRead": lambda p: (
        "not read: not in the MultiKueueConfig of the MultiKueue check its ClusterQueue uses (a name the Workload "
        "gives selects no credentials)" if p.get("why") == "not-in-config" else
        f"not read: no context given for it (--worker-context {p['cluster']}=CONTEXT, or --worker-contexts-by-name "
        f"for a context named like it)"),
    "MultiKueueWorkerUnreachable": lambda p: f"not reachable through context {p['context']}: {p['error']}",
    "MultiKueueWorkerForbidden": lambda p: f"read refused through context {p['context']}: {p['error']}",
    "MultiKueueWorkerCopyMissing": lambda p: f"no Workload {p['namespace']}/{p['workload']} there (the copy is not "
                                             f"created yet, or was removed)",
    "MultiKueueWorkerCopyForeign": lambda p: f"the Workload there carries origin {p['origin'] or 'none'}, not "
                                             f"{p['expected']}: not this manager's copy",
}


def finding(f: MultiKueueFinding) -> str:
    return _SAY[f.code](f.params)


def checks_unread(error: str) -> str:
    return f"the AdmissionChecks could not be listed ({error}): whether MultiKueue holds it is not known"


def unmatched(contexts: list[str]) -> str:
    """--worker-context names a context the kubeconfig lacks (a usage error, before anything is read)."""
    return f"no context {', '.join(contexts)} in the kubeconfig"


def not_listed(clusters: list[str], config: str | None) -> str:
    """--worker-context names a cluster the MultiKueueConfig does not list: the mapping was not used."""
    return (f"--worker-context {', '.join(clusters)}: not a cluster of MultiKueueConfig {config or '?'}; not used")


def manager_unread(what: str, error: str) -> str:
    return f"MultiKueue: the manager's {what} could not be read ({error}): its dispatch and workers are not known"


READ: Mapping[str, str] = {"read": "read", "no-context": "not read", "unreachable": "unreachable",
                           "forbidden": "forbidden", "not-nominated": "not nominated"}

def older(message: str) -> str:
    """A worker row's WHY when Kueue's words claim a shortfall the worker's own figures do not show: the
    disagreement said, neither side called stale."""
    return f"Kueue's message, which the figures read there do not bear out (they say it fits): {message}"


def worker_label(cluster: str) -> str:
    """The line above a worker's own preemption answer."""
    return f"On worker {cluster}:"


VERDICT_PENDING = "pending"
VERDICT_ADMITTED = "admitted"
VERDICT_UNKNOWN = "unknown"
WORKER_HEADER = ("WORKER", "CONTEXT", "READ", "ROLE", "VERDICT", "FLAVOR", "SHORT", "WHY")
WORKER_COLUMN = "WORKER"
