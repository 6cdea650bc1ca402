"""`--wait`: follow a new deployment until every role is admitted, one progress line per role.

The counting is pure (Pods and Workloads in, per-role progress out); `follow` is the small loop
around it, with the clock, the sleep and the printer passed in so tests need no real time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kubectl_pd import interrupt
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.source import annotations_of, labels_of, meta, name_of
from kubectl_pd.create.pods import COMPONENT, GROUP_NAME, INSTANCE
from kubectl_pd.errors import ApiUnavailable, ClusterError, ForbiddenError
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


def pod_group(pod: Obj) -> str | None:
    """Kueue reads the annotation first, then the label."""
    return annotations_of(pod).get(GROUP_NAME) or labels_of(pod).get(GROUP_NAME)


def _condition(obj: Obj, kind: str) -> Obj | None:
    for c in ((obj.get("status") or {}).get("conditions") or []):
        if isinstance(c, dict) and c.get("type") == kind:
            return c
    return None


def is_admitted(workload: Obj) -> bool:
    c = _condition(workload, "Admitted")
    return bool(c and str(c.get("status")) == "True")


def _pod_ready(pod: Obj) -> bool:
    c = _condition(pod, "Ready")
    return bool(c and str(c.get("status")) == "True")


def progress(roles: list[tuple[str, int]], pods: list[Obj], workloads: list[Obj]) -> list[RoleProgress]:
    """Per role: Pods present, Pods whose group's Workload is admitted, Pods ready."""
    by_name = {name_of(w): w for w in workloads}
    by_owner: dict[str, Obj] = {}
    for w in workloads:
        for ref in meta(w).get("ownerReferences") or []:
            if isinstance(ref, dict) and ref.get("uid"):
                by_owner[str(ref["uid"])] = w
    out = []
    for role, want in roles:
        mine = [p for p in pods if labels_of(p).get(COMPONENT) == role and not meta(p).get("deletionTimestamp")]
        admitted = ready = 0
        note = ""
        for p in mine:
            group = pod_group(p)
            wl = (by_name.get(group) if group else None) or by_owner.get(str(meta(p).get("uid") or ""))
            if wl is not None and is_admitted(wl):
                admitted += 1
            elif wl is None and not note:
                note = f"no Workload for group {group!r} yet" if group else "Pods carry no pod group"
            elif wl is not None and not note:
                qr = _condition(wl, "QuotaReserved")
                msg = str((qr or {}).get("message") or "").strip()
                note = f"Workload {name_of(wl)!r}: {msg}" if msg else f"Workload {name_of(wl)!r} not admitted yet"
            if _pod_ready(p):
                ready += 1
        if len(mine) < want:
            note = (f"{len(mine)} of {want} Pods exist: Kueue composes no Workload for an incomplete group"
                    if mine else "no Pods yet")
        out.append(RoleProgress(role, want, len(mine), min(admitted, want), min(ready, want), note))
    return out


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
    while True:
        try:
            rows = observe(source, namespace, selector, roles)
        except (ForbiddenError, ApiUnavailable):
            raise
        except ClusterError as e:
            left = deadline - clock()
            if left <= 0:
                raise ClusterError(f"could not observe the new deployment's admission: {e.message}") from None
            sleep(min(interval, left))
            continue
        emit(rows)
        if all(r.done for r in rows):
            return True, rows
        left = deadline - clock()
        if left <= 0:
            return False, rows
        sleep(min(interval, left))


def instance_selector(label_value: str) -> str:
    return f"{INSTANCE}={label_value}"
