"""`--wait`: follow a new deployment until every role is admitted, one progress line per role.

The counting is pure (Pods and Workloads in, per-role progress out); `follow` is the small loop
around it, with the clock, the sleep and the printer passed in so tests need no real time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kubectl_pd import interrupt, kube
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.create.pods import COMPONENT
from kubectl_pd.errors import ApiUnavailable, ClusterError, ForbiddenError
from kubectl_pd.kueue import model
from kubectl_pd.labels import GROUP_LABEL, INSTANCE_LABEL
from kubectl_pd.records import dataclass

Obj = dict[str, Any]

# The clock and the sleep `follow` uses when none is passed: the seam through which tests of
# `create --wait` replace time (tests/clock.py), so that no test waits in real time.
default_clock: Callable[[], float] = time.monotonic
default_sleep: Callable[[float], None] = interrupt.sleep  # time.sleep that notices Ctrl-C within 0.1 s


@dataclass(frozen=True)
class RoleProgress:
    role: str
    want: int  # Pods the role should have
    present: int
    admitted: int
    ready: int
    note: str = ""  # why it is not admitted yet, when we can tell

    @property
    def done(self) -> bool:
        return self.admitted >= self.want


def _group_of(p: kube.Pod) -> str | None:
    return p.annotations.get(GROUP_LABEL) or p.labels.get(GROUP_LABEL)


def _by_owner(workloads: list[model.Workload]) -> dict[str, model.Workload]:
    return {uid: w for w in workloads for _kind, _name, uid in w.owners if uid}


def _not_admitted_note(wl: model.Workload | None, group: str | None) -> str:
    if wl is None:
        return f"no Workload for group {group!r} yet" if group else "Pods carry no pod group"
    qr = wl.condition("QuotaReserved")
    msg = (qr.message if qr is not None else "").strip()
    return f"Workload {wl.name!r}: {msg}" if msg else f"Workload {wl.name!r} not admitted yet"


def _role_progress(role: str, want: int, mine: list[kube.Pod], by_name: dict[str, model.Workload],
                   by_owner: dict[str, model.Workload]) -> RoleProgress:
    admitted = ready = 0
    note = ""
    for p in mine:
        group = _group_of(p)
        wl = (by_name.get(group) if group else None) or by_owner.get(p.uid or "")
        if wl is not None and wl.admitted:
            admitted += 1
        elif not note:
            note = _not_admitted_note(wl, group)
        if p.ready:
            ready += 1
    if len(mine) < want:
        note = (f"{len(mine)} of {want} Pods exist: Kueue composes no Workload for an incomplete group"
                if mine else "no Pods yet")
    return RoleProgress(role, want, len(mine), min(admitted, want), min(ready, want), note)


def progress(roles: list[tuple[str, int]], pods: list[Obj], workloads: list[Obj]) -> list[RoleProgress]:
    """Per role: Pods present, Pods whose group's Workload is admitted, Pods ready."""
    wls = [model.workload(w) for w in workloads]
    by_name = {w.name: w for w in wls}
    by_owner = _by_owner(wls)
    views = [kube.pod(p) for p in pods]
    return [_role_progress(role, want, [p for p in views if p.labels.get(COMPONENT) == role and not p.deleting],
                           by_name, by_owner) for role, want in roles]


def line(p: RoleProgress, width: int = 0) -> str:
    state = "admitted" if p.done else "pending"
    return (f"{p.role:<{width}}  pods {p.present}/{p.want}  admitted {p.admitted}/{p.want}  "
            f"ready {p.ready}/{p.want}  {state}")


def fallback_summary(name: str, namespace: str, rows: list[RoleProgress]) -> str:
    """What we can say ourselves when the why-pending diagnosis is unavailable."""
    lines = [f"{name} in namespace {namespace}: not every role is admitted"]
    for p in rows:
        if not p.done:
            lines.append(f"  role {p.role}: {p.admitted}/{p.want} admitted; {p.note or 'waiting'}")
    lines.append(f"  next: kubectl pd why-pending {name} -n {namespace}")
    return "\n".join(lines) + "\n"


def observe(source: Source, namespace: str, selector: str, roles: list[tuple[str, int]]) -> list[RoleProgress]:
    pods = source.list("Pod", namespace, label_selector=selector)
    workloads = source.list("Workload", namespace)
    return progress(roles, pods, workloads)


def follow(
    source: Source,
    namespace: str,
    selector: str,
    roles: list[tuple[str, int]],
    *,
    timeout: float,
    interval: float,
    emit: Callable[[list[RoleProgress]], None],
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> tuple[bool, list[RoleProgress]]:
    """Poll until every role is admitted (True) or `timeout` seconds pass (False).

    A poll that fails (throttling, a 5xx, a broken answer) is not an observation: it is tried again until
    the time is up, then the failure itself is the error (never the last rows as a verdict).
    """
    clock = clock or default_clock
    sleep = sleep or default_sleep
    deadline = clock() + timeout
    last: list[RoleProgress] | None = None
    while True:
        try:
            rows = _within(deadline - clock(), lambda: observe(source, namespace, selector, roles))
        except PollLate:  # the deadline is across requests: a poll still unanswered then ends the wait
            if last is not None:
                return False, last
            raise ClusterError("could not observe the new deployment's admission: the API server did not answer "
                               "before the --wait deadline") from None
        except (ForbiddenError, ApiUnavailable):
            raise
        except ClusterError as e:
            left = deadline - clock()
            if left <= 0:
                raise ClusterError(f"could not observe the new deployment's admission: {e.message}") from None
            sleep(min(interval, left))
            continue
        emit(rows)
        last = rows
        if all(r.done for r in rows):
            return True, rows
        left = deadline - clock()
        if left <= 0:
            return False, rows
        sleep(min(interval, left))


class PollLate(Exception):
    """A poll still unanswered at the --wait deadline (its thread is left to the request's own timeout)."""


def _within(left: float, poll: Callable[[], list[RoleProgress]]) -> list[RoleProgress]:
    """POLL's answer if it comes within LEFT seconds (at least a moment: a poll at the deadline still gets its
    answer when it is quick), else PollLate; its own error is raised as it was."""
    from kubectl_pd import interrupt

    box: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            box.append((True, poll()))
        except BaseException as e:  # noqa: B036 - handed to the caller as it was
            box.append((False, e))

    worker = interrupt.thread(run, "kubectl-pd-wait-poll")
    interrupt.join(worker, max(left, 0.05))
    if not box:
        raise PollLate()
    ok, value = box[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]


def instance_selector(label_value: str) -> str:
    return f"{INSTANCE_LABEL}={label_value}"
