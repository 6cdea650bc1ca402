"""The reason codes of a MultiKueue answer, as data: code -> (severity, where it is decided, what it means).

The manager's silent waits (Kueue writes nothing in any status for them) and each worker's trouble; a worker
copy's own reasons are the single-cluster engine's codes (kubectl_pd/registry.py). English: words.py.
"""

from __future__ import annotations

from collections.abc import Mapping

ERROR, WARNING, INFO = "error", "warning", "info"

# code: (severity, scope: manager | worker)
CODES: Mapping[str, tuple[str, str]] = {
    "MultiKueueCheckInactive": (ERROR, "manager"),
    "MultiKueueConfigMissing": (ERROR, "manager"),
    "MultiKueueQuotaPending": (INFO, "manager"),
    "MultiKueueWaitingForOtherChecks": (INFO, "manager"),
    "MultiKueueNotDispatched": (INFO, "manager"),
    "MultiKueueDispatchRound": (INFO, "manager"),
    "MultiKueueWorkerLost": (WARNING, "manager"),
    "MultiKueueNoAdapter": (ERROR, "manager"),
    "MultiKueueOwnerNotManaged": (ERROR, "manager"),
    "MultiKueueCheckRetry": (WARNING, "manager"),
    "MultiKueueNoWorkerFits": (ERROR, "manager"),
    "MultiKueueWorkerNotConnected": (ERROR, "worker"),
    "MultiKueueWorkerUnknown": (ERROR, "worker"),
    "MultiKueueWorkerNotRead": (INFO, "worker"),
    "MultiKueueWorkerUnreachable": (ERROR, "worker"),
    "MultiKueueWorkerForbidden": (ERROR, "worker"),
    "MultiKueueWorkerCopyMissing": (WARNING, "worker"),
    "MultiKueueWorkerCopyForeign": (WARNING, "worker"),
}

# the manager's state, one word of: (the json's `multikueue.state`)
STATES = ("QuotaPending", "CheckInactive", "WaitingForOtherChecks", "NotDispatched", "Dispatched", "DispatchRound",
          "Admitted", "Retry", "Rejected", "Finished")

# what to do, one code each (answer.Step: the screen's `next:` under the MultiKueue block)
STEPS = ("worker", "worker-fits", "release", "wait")
