"""The English of `kubectl pd capacity`: the run's record (capacity/answer.py) as a screen, and its `incomplete`
rows. Nothing here decides."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.capacity import preempt as pe
from kubectl_pd.capacity import simulate as sim
from kubectl_pd.capacity.answer import UNKNOWN, Answer
from kubectl_pd.kueue.quantity import format_cards, format_quantity, is_credits

_WHY = {
    "QuotaExhausted": "waits for quota",
    "NeedsPreemption": "needs preemption",
    "QuotaExceedsCapacity": "never fits: more than the flavor can ever give",
    "NoMatchingFlavor": "never fits: no flavor of the queue takes it",
    "ResourceNotCovered": "never fits: a resource no resource group covers",
    "InvalidResources": "never fits: requests Kueue refuses",
    "ClusterQueueMissing": "never fits: its ClusterQueue does not exist",
    "QuotaUnknown": "unknown: a quota could not be read",
}
_NODE_NEVER = "never fits: no Node its flavors allow could hold one Pod"
_NODE_HERE = "admitted, but never runs: no Node of the flavor Kueue gives it could hold one Pod"


def copies(n: int | None, at_least: bool = False) -> str:
    if n is None:
        return "unknown"
    return f"{'at least ' if at_least else ''}{n} more cop{'y' if n == 1 else 'ies'}"


def next_text(s: sim.Stop | None) -> str:
    """What stops the next copy, in one clause."""
    if s is None:
        return "nothing counted stops it (the count stopped at its limit)"
    if s.code == sim.NODE_CODE:
        return _node_text(s)
    why = _WHY.get(s.code, s.code)
    where = f"ClusterQueue {s.cluster_queue}"
    if s.role:
        where = f"role {s.role} on {where}"
    if s.flavor:
        where += f", flavor {s.flavor}"
    nums = ""
    if s.resource and s.needed is not None:
        nums = (f": {s.resource} asks {_amount(s, s.requested)}, {'at most' if s.never else 'free now'} "
                f"{_amount(s, s.capacity if s.never else s.available)}, short by {_amount(s, s.needed)}")
    tail = " (never on this configuration)" if s.never else ""
    return f"{why}{tail}, {where}{nums}"


def _node_text(s: sim.Stop) -> str:
    """A pod set no Node holds: which resource, the largest Node's allocatable against one Pod's request."""
    why = _NODE_NEVER if s.never else _NODE_HERE
    where = f"ClusterQueue {s.cluster_queue}"
    if s.role:
        where = f"role {s.role} on {where}"
    where += f", flavor {s.flavor}"
    tail = " (never on this configuration)" if s.never else ""
    if s.node is None:
        return (f"{why}{tail}, {where}: none of its {s.nodes} Node(s) takes the Pod (its nodeSelector or "
                f"an untolerated taint)")
    return (f"{why}{tail}, {where}: {s.resource} asks {_amount(s, s.requested)} a Pod, the largest of its "
            f"{s.nodes} Node(s) ({s.node}) allocates {_amount(s, s.capacity)}, short by {_amount(s, s.needed)}")


def _nodes(a: Answer) -> list[str]:
    """Whether the Nodes were weighed: unknown when they could not be read; a flavor with none, not weighed."""
    if not a.weighed:
        return []
    if a.nodes is None:
        return ["Nodes:           unknown (they could not be read: no Pod was weighed against Node allocatable)"]
    empty = [f for f, n in a.nodes if not n]
    if not empty:
        return []
    return [f"Nodes:           none read for flavor(s) {', '.join(empty)}: the Pods there are not weighed against "
            f"Node allocatable"]


def _amount(s: sim.Stop, q: Fraction | None) -> str:
    """A quantity of the stop's resource as Kubernetes writes it; GPUStack credits also in cards."""
    if q is None:
        return "None"
    text = format_quantity(q, s.resource or "")
    if is_credits(s.resource or ""):
        text += f" ({format_cards(q)})"
    return text


def _target(a: Answer) -> str:
    t = a.target
    shape = " + ".join(f"{r.name} x{r.replicas}" + (f" (size {r.size})" if r.size > 1 else "")
                       + f" {r.accelerator} card(s)/pod" for r in a.roles)
    name = f"{t.kind} {t.name}" if t.name else "the request"
    if t.workloads:  # a PD framework's deployment: one copy is one group, a Workload of each role
        modeled = ", ".join(f"{w.role} like {w.workload} ({w.groups} read)" for w in t.workloads)
        return (f"{name} in namespace {t.namespace}: one more copy is one more group, a Workload of each role "
                f"as Kueue built it ({modeled}): {shape}")
    return f"{name} in namespace {t.namespace} ({t.api_profile}): {shape}"


def render(a: Answer) -> str:
    lines = [_target(a)]
    queues = sorted({(r.local_queue or "?", r.cluster_queue or "?") for r in a.roles})
    lines += [f"  LocalQueue {lq} -> ClusterQueue {cq}" for lq, cq in queues]
    lines.append("")
    for f in a.findings:
        lines.append(f"{f.severity}: {f.message}")
    if a.findings:
        lines.append("")
    c = a.copies
    if c.now is None and c.next is not None and c.next.code == UNKNOWN:  # a quota or usage of no known size
        lines.append(f"Now:             unknown ({next_text(c.next).removeprefix('unknown: ')})")
        lines += _per_role(a)
        return "\n".join(lines) + "\n"
    if c.now is None:
        lines.append("Now:             unknown (the copy could not be judged; see above)")
        return "\n".join(lines) + "\n"
    split = ""
    if c.by_borrowing:
        split = (f" ({c.within_nominal} within nominal quota, {c.by_borrowing} by borrowing from the cohort:"
                 f" a reclaim can take those back)")
    lines.append(f"Now:             {copies(c.now, c.at_least)}{split}")
    if c.flavors:
        placed = ", ".join(dict.fromkeys(f"{pod_set} on {flavor}" for _w, pod_set, _r, flavor in c.flavors))
        lines.append(f"                 (the first in: {placed})")
    lines += _preemption(a.by_preemption, c.now)
    lines.append(f"Next:            {next_text(c.next)}")
    lines += _nodes(a)
    lines += _per_role(a)
    return "\n".join(lines) + "\n"


def _per_role(a: Answer) -> list[str]:
    """Each role alone; a count that stops at a quota of unknown size is `-` (none known) or `≥N`, never 0."""
    if not a.per_role:
        return []
    lines = ["", "Each role alone, one replica at a time:"]
    width = max(len(name) for name, _t in a.per_role)
    lines.append(f"  {'ROLE'.ljust(width)}  {'NOW':>6}  {'BORROWING':>9}  NEXT")
    for name, t in a.per_role:
        now = "-" if t.now is None else ("≥" if t.at_least else "") + str(t.now)
        borrowing = "-" if t.by_borrowing is None else str(t.by_borrowing)
        lines.append(f"  {name.ljust(width)}  {now:>6}  {borrowing:>9}  {next_text(t.next)}")
    return lines


def unknown_size(cluster_queue: str, flavor: str | None, resource: str | None) -> tuple[str, str]:
    """The `incomplete` row of a count stopped by a quota or usage of no size the engine can compute with."""
    return (f"ClusterQueue {cluster_queue} flavor {flavor or '?'} {resource or '?'}",
            "its quota or its usage has no size the engine can compute with: how many copies fit is unknown")


def unread(a: Answer) -> list[tuple[str, str]]:
    """The record's `incomplete` rows (what, why), in one place: the reads that failed, the counts stopped at the
    run's deadline ("at least"), the count stopped at a quota of unknown size."""
    out = [*a.unread, *(timed_out(n, sim.DEFAULT_DEADLINE_S, role) for role, n in a.timed_out)]
    if a.unknown is not None:
        out.append(unknown_size(a.unknown.cluster_queue, a.unknown.flavor, a.unknown.resource))
    return out


def _preemption(p: pe.PreemptCount | None, start: int) -> list[str]:
    if p is None:
        return []
    if p.reason == pe.NOT_ALLOWED:
        return ["By preemption:   none (the queue's preemption policies allow none)"]
    if p.unknown:
        return [f"By preemption:   unknown (the admitted Workloads could not be weighed: {p.unknown})"]
    out = [f"By preemption:   {copies(len(p.copies), p.capped)}"]
    for i, c in enumerate(p.copies):
        who = ", ".join(f"{t.namespace}/{t.name} ({t.cluster_queue}, priority {t.priority}, "
                        f"{t.reason})" for t in c.targets) or "nothing (what the copies before it freed)"
        out.append(f"  copy {start + i + 1} preempts {who}")
    return out


def counting(n: int) -> str:
    """The progress line on a terminal while copies are counted."""
    return f"counting copies: {n} so far ..."


def timed_out(n: int, seconds: float, role: str | None = None) -> tuple[str, str]:
    """The `incomplete` row of a count stopped at the run's deadline (ROLE: that role's count alone)."""
    what = f"the count of role {role} alone" if role else "the count of copies"
    return what, f"stopped at the run's {seconds:g}s deadline after {n}: at least that many fit"


# -- a PD framework's deployment (capacity/owner.py) ---------------------------------------------------------------

def local_queue_read(namespace: str, name: str) -> str:
    """The `incomplete[].read` of a LocalQueue."""
    return f"LocalQueue {namespace}/{name}"


def unread_reads(unread: list[Any]) -> list[tuple[str, str]]:
    """The target's reads that failed (pending/target.Unread), as `incomplete` rows."""
    from kubectl_pd.pending.words import read_text

    return [(read_text(u.read), u.why) for u in unread]


def no_queue(role: str, workload: str) -> tuple[str, str]:
    """The `incomplete` row of a role whose Workload names no LocalQueue: where its copy would go is unknown."""
    return f"the LocalQueue of role {role}", f"its Workload {workload} names none (spec.queueName)"


def no_workloads(kind: str, name: str, namespace: str) -> str:
    """A framework's deployment with no Workload Kueue built: nothing to model a copy on."""
    return (f"{kind} {namespace}/{name} has no Workload to weigh a copy by (none was found, or every one has "
            f"finished): Kueue builds them only for what carries a kueue.x-k8s.io/queue-name label (or when it "
            f"manages objects without one)")
