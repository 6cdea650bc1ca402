"""The screen of `kubectl pd queues`: the document (capacity/queues_doc.py) as kubectl-style columns, a quota bar
per flavor on a terminal, the cohort tree with who borrows from whom, and the inactive queues with their reason.
Nothing here decides."""

from __future__ import annotations

from typing import Any

from kubectl_pd.kueue.quantity import format_cards, is_credits, parse
from kubectl_pd.output import bars

COLUMNS = ("CLUSTERQUEUE", "COHORT", "FLAVOR", "RESOURCE", "NOMINAL", "USED", "RESERVED", "BORROWED", "LENT", "FREE",
           "PENDING", "ADMITTED")
WIDE = ("BORROWINGLIMIT", "LENDINGLIMIT", "COHORTFREE", "BORROWABLE", "ACTIVE")


def _v(q: str | None, resource: str) -> str:
    """A quantity for the table: credits in cards, '-' for unknown."""
    if q is None:
        return "-"
    if is_credits(resource):
        return format_cards(parse(q)).replace(" cards", "").replace(" card", "") + "c"
    return q


def unknown_figures(cluster_queue: str, flavor: str, resource: str, fields: tuple[str, ...]) -> tuple[str, str]:
    """The `incomplete` row of a flavor whose figures are unknown (FIELDS: its quota fields of no known size;
    none: its usage could not be read): the row is left out, never shown as 0."""
    what = f"ClusterQueue {cluster_queue} flavor {flavor} {resource}"
    if fields:
        return what, f"{', '.join(fields)} has no size the engine can compute with: its figures are unknown"
    return what, "its usage (status.flavorsReservation, flavorsUsage) could not be read: its figures are unknown"


def _n(x: int | None) -> str:
    return "-" if x is None else str(x)


def bar(f: dict[str, Any]) -> str:
    """A document row's bar (output/bars.py, the one bar printer, in queues' style): used '#', reserved '=', free
    '.' over the nominal quota, '!' after it when the queue borrows; each symbol means what it means on
    why-pending's bars ('+' is what a pending Workload needs there)."""
    return bars.bar(bars.Figures(parse(f["nominal"]), parse(f["used"]), parse(f["reserved"]),
                                 borrowed=parse(f["borrowed"])), bars.QUEUES)


def rows(doc: dict[str, Any], wide: bool, bars: bool) -> list[list[str]]:
    out = []
    for q in doc["clusterQueues"]:
        flavors = q["flavors"] or [None]
        for f in flavors:
            res = f["resource"] if f else ""
            row = [q["name"], q["cohort"] or "-", f["flavor"] if f else "-", res or "-"]
            row += [_v(f[k], res) if f else "-" for k in ("nominal", "used", "reserved", "borrowed", "lent", "free")]
            row += [_n(q["pendingWorkloads"]), _n(q["admittedWorkloads"])]
            if wide:
                row += [_v(f[k], res) if f else "-" for k in ("borrowingLimit", "lendingLimit", "cohortFree",
                                                             "borrowable")]
                row.append({True: "True", False: "False", None: "Unknown"}[q["active"]])
            if bars:
                row.append(bar(f) if f else "")
            out.append(row)
    return out


def table(doc: dict[str, Any], wide: bool = False, bars: bool = False, header: bool = True) -> str:
    head = [*COLUMNS, *(WIDE if wide else ()), *(("QUOTA",) if bars else ())]
    body = rows(doc, wide, bars)
    all_rows = [head, *body] if header else body
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return "".join("   ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n" for r in all_rows)


def tree(doc: dict[str, Any]) -> list[str]:
    """The cohort tree: roots first, children indented, member queues; then who borrows from whom."""
    cohorts = {c["name"]: c for c in doc["cohorts"]}
    lines: list[str] = []

    def walk(name: str, depth: int) -> None:
        c = cohorts[name]
        lines.append(f"{'  ' * depth}cohort {name}: " + (", ".join(c["clusterQueues"]) or "no ClusterQueue"))
        for q in c.get("quota") or ():
            if q["nominal"] not in (None, "0"):  # a Cohort's own quota, and the pool it is part of
                res = q["resource"]
                lines.append(f"{'  ' * depth}  own quota {q['flavor']}/{res} {_v(q['nominal'], res)} (pool "
                             f"{_v(q['subtree'], res)}, in use {_v(q['used'], res)}, free {_v(q['free'], res)})")
        for child in c["cohorts"]:
            if child in cohorts:
                walk(child, depth + 1)

    for name, c in cohorts.items():
        if (c["parent"] is None or c["parent"] not in cohorts) and not c.get("cycle"):
            walk(name, 0)
    for name, c in cohorts.items():  # never dropped: a Cohort whose parent chain loops, and the queues under it
        if c.get("cycle"):
            lines.append(f"cohort {name}: " + (", ".join(c["clusterQueues"]) or "no ClusterQueue")
                         + f" (its parent chain loops through {c['parent']}: Kueue says \"cohort has a cycle\" "
                           f"and admits nothing under it)")
    for f in doc["borrowing"]:
        lines.append(f"  {f['flavor']}/{f['resource']}: {_flow(doc, f)}")
    if not doc["cohortsKnown"]:
        lines.append("cohorts: not all read; borrowing and lending are unknown")
    return lines


def _flow(doc: dict[str, Any], f: dict[str, Any]) -> str:
    """Who borrows, and where it comes from so that it adds up: borrowed = lent by the members (each queue's LENT
    of the table) + what comes from the cohort's pool (its own quota, or lendable quota still free)."""
    res = f["resource"]
    who = ", ".join(f"{b['clusterQueue']} {_v(b['amount'], res)}" for b in f["borrowers"])
    if "lent" not in f:  # a document without the sums: the lenders as they were given
        kind = "lent" if f["attributed"] else "unused"
        frm = ", ".join(f"{x['clusterQueue']} ({_v(x['amount'], res)} {kind})" for x in f["lenders"])
        return f"{who} borrowed, from {frm or 'the cohort' + chr(39) + 's own quota'}"
    members = {q["name"] for q in doc["clusterQueues"] if q["cohort"] is not None}
    lent_by = [(q["name"], r["lent"]) for q in doc["clusterQueues"] if q["name"] in members
               for r in q["flavors"] if (r["flavor"], r["resource"]) == (f["flavor"], res)
               and r["lent"] not in (None, "0")]
    parts = [f"{_v(a, res)} lent by {q}" for q, a in lent_by]
    rest, own = f.get("unattributed"), f.get("cohortQuota")
    if rest not in (None, "0"):
        why = f"its own quota {_v(own, res)}, and " if own not in (None, "0") else ""
        parts.append(f"{_v(rest, res)} from the cohort's pool ({why}lendable quota its members could still take back)")
    return f"{who} borrowed = " + (" + ".join(parts) or "0")


def inactive(doc: dict[str, Any]) -> list[str]:
    out = []
    looped = {c["name"] for c in doc["cohorts"] if c.get("cycle")}
    for q in doc["clusterQueues"]:
        if q["cohort"] in looped:
            out.append(f"ClusterQueue {q['name']} admits nothing: its cohort {q['cohort']} has a cycle (Kueue keeps "
                       f"it out of scheduling whatever its Active condition says)")
        if q["active"] is False:
            why = ": ".join(x for x in (q["reason"], q["message"]) if x) or "no reason given"
            out.append(f"ClusterQueue {q['name']} is inactive ({why})")
    return out


def render(doc: dict[str, Any], wide: bool = False, bars: bool = False) -> str:
    if not doc["clusterQueues"]:
        return "No ClusterQueues found.\n"
    text = table(doc, wide, bars)
    extra = tree(doc)
    if extra:
        text += "\n" + "\n".join(extra) + "\n"
    off = inactive(doc)
    if off:
        text += "\n" + "\n".join(off) + "\n"
    return text
