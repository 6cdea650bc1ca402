"""The English of `kubectl pd capacity`: the document (capacity/answer.py) as a screen. Nothing here decides."""

from __future__ import annotations

from typing import Any

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


def next_text(s: dict[str, Any] | None) -> str:
    """What stops the next copy, in one clause."""
    if s is None:
        return "nothing counted stops it (the count stopped at its limit)"
    if s["code"] == "PodsUnschedulable":
        return _node_text(s)
    why = _WHY.get(s["code"], s["code"])
    where = f"ClusterQueue {s['clusterQueue']}"
    if s.get("role"):
        where = f"role {s['role']} on {where}"
    if s.get("flavor"):
        where += f", flavor {s['flavor']}"
    nums = ""
    if s.get("resource") and s.get("shortfall") is not None:
        nums = (f": {s['resource']} asks {_amount(s, 'requested')}, {'at most' if s['never'] else 'free now'} "
                f"{_amount(s, 'capacity' if s['never'] else 'available')}, short by {_amount(s, 'shortfall')}")
    tail = " (never on this configuration)" if s["never"] else ""
    return f"{why}{tail}, {where}{nums}"


def _node_text(s: dict[str, Any]) -> str:
    """A pod set no Node holds: which resource, the largest Node's allocatable against one Pod's request."""
    why = _NODE_NEVER if s["never"] else _NODE_HERE
    where = f"ClusterQueue {s['clusterQueue']}"
    if s.get("role"):
        where = f"role {s['role']} on {where}"
    where += f", flavor {s['flavor']}"
    tail = " (never on this configuration)" if s["never"] else ""
    if s.get("node") is None:
        return (f"{why}{tail}, {where}: none of its {s.get('nodes')} Node(s) takes the Pod (its nodeSelector or "
                f"an untolerated taint)")
    return (f"{why}{tail}, {where}: {s['resource']} asks {_amount(s, 'requested')} a Pod, the largest of its "
            f"{s.get('nodes')} Node(s) ({s['node']}) allocates {_amount(s, 'capacity')}, "
            f"short by {_amount(s, 'shortfall')}")


def _nodes(doc: dict[str, Any]) -> list[str]:
    """Whether the Nodes were weighed: unknown when they could not be read; a flavor with none, not weighed."""
    if "nodes" not in doc:
        return []
    if doc["nodes"] is None:
        return ["Nodes:           unknown (they could not be read: no Pod was weighed against Node allocatable)"]
    empty = [n["flavor"] for n in doc["nodes"] if not n["nodes"]]
    if not empty:
        return []
    return [f"Nodes:           none read for flavor(s) {', '.join(empty)}: the Pods there are not weighed against "
            f"Node allocatable"]


def _amount(s: dict[str, Any], key: str) -> str:
    """A quantity as read; GPUStack credits also in cards."""
    text = str(s.get(key))
    if s.get(key) is not None and str(s.get("resource") or "").startswith("credits.gpustack.ai/"):
        from kubectl_pd.kueue.quantity import format_cards, parse

        text += f" ({format_cards(parse(s[key]))})"
    return text


def _target(doc: dict[str, Any]) -> str:
    t = doc["target"]
    shape = " + ".join(f"{r['name']} x{r['replicas']}" + (f" (size {r['size']})" if r["size"] > 1 else "")
                       + f" {r['accelerator']} card(s)/pod" for r in doc["roles"])
    name = f"{t['kind']} {t['name']}" if t.get("name") else "the request"
    if t.get("workloads"):  # a PD framework's deployment: one copy is one group, a Workload of each role
        modeled = ", ".join(f"{w['role']} like {w['workload']} ({w['groups']} read)" for w in t["workloads"])
        return (f"{name} in namespace {t['namespace']}: one more copy is one more group, a Workload of each role "
                f"as Kueue built it ({modeled}): {shape}")
    return f"{name} in namespace {t['namespace']} ({t['apiProfile']}): {shape}"


def render(doc: dict[str, Any]) -> str:
    lines = [_target(doc)]
    queues = sorted({(r["localQueue"] or "?", r["clusterQueue"] or "?") for r in doc["roles"]})
    lines += [f"  LocalQueue {lq} -> ClusterQueue {cq}" for lq, cq in queues]
    lines.append("")
    for f in doc["findings"]:
        lines.append(f"{f['severity']}: {f['message']}")
    if doc["findings"]:
        lines.append("")
    if doc["now"] is None and _unknown_stop(doc["next"]):  # the engine met a quota or usage of no known size
        lines.append(f"Now:             unknown ({next_text(doc['next']).removeprefix('unknown: ')})")
        lines += _per_role(doc)
        return "\n".join(lines) + "\n"
    if doc["now"] is None:
        lines.append("Now:             unknown (the copy could not be judged; see above)")
        return "\n".join(lines) + "\n"
    split = ""
    if doc["byBorrowing"]:
        split = (f" ({doc['withinNominal']} within nominal quota, {doc['byBorrowing']} by borrowing from the cohort:"
                 f" a reclaim can take those back)")
    lines.append(f"Now:             {copies(doc['now'], doc['atLeast'])}{split}")
    if doc["flavors"]:
        placed = ", ".join(dict.fromkeys(f"{f['podSet']} on {f['flavor']}" for f in doc["flavors"]))
        lines.append(f"                 (the first in: {placed})")
    lines += _preemption(doc.get("byPreemption"), doc["now"])
    lines.append(f"Next:            {next_text(doc['next'])}")
    lines += _nodes(doc)
    lines += _per_role(doc)
    return "\n".join(lines) + "\n"


def _unknown_stop(s: dict[str, Any] | None) -> bool:
    return s is not None and s.get("code") == "QuotaUnknown"


def _per_role(doc: dict[str, Any]) -> list[str]:
    """Each role alone; a count that stops at a quota of unknown size is `-` (none known) or `≥N`, never 0."""
    if not doc["perRole"]:
        return []
    lines = ["", "Each role alone, one replica at a time:"]
    width = max(len(r["role"]) for r in doc["perRole"])
    lines.append(f"  {'ROLE'.ljust(width)}  {'NOW':>6}  {'BORROWING':>9}  NEXT")
    for r in doc["perRole"]:
        now = "-" if r["now"] is None else ("≥" if r["atLeast"] else "") + str(r["now"])
        borrowing = "-" if r["byBorrowing"] is None else str(r["byBorrowing"])
        lines.append(f"  {r['role'].ljust(width)}  {now:>6}  {borrowing:>9}  {next_text(r['next'])}")
    return lines


def unknown_size(cluster_queue: str, flavor: str | None, resource: str | None) -> tuple[str, str]:
    """The `incomplete` row of a count stopped by a quota or usage of no size the engine can compute with."""
    return (f"ClusterQueue {cluster_queue} flavor {flavor or '?'} {resource or '?'}",
            "its quota or its usage has no size the engine can compute with: how many copies fit is unknown")


def _preemption(p: dict[str, Any] | None, start: int) -> list[str]:
    if p is None:
        return []
    if p.get("reason") == "policy-never":
        return ["By preemption:   none (the queue's preemption policies allow none)"]
    if p.get("unknown"):
        return [f"By preemption:   unknown (the admitted Workloads could not be weighed: {p['unknown']})"]
    out = [f"By preemption:   {copies(p['count'], p['atLeast'])}"]
    for i, c in enumerate(p["copies"]):
        who = ", ".join(f"{t['namespace']}/{t['name']} ({t['clusterQueue']}, priority {t['priority']}, "
                        f"{t['reason']})" for t in c["targets"]) or "nothing (what the copies before it freed)"
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
