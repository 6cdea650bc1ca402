"""The screen of `kubectl pd queues`: the record (queues/answer.py) as kubectl-style columns, a quota bar
per flavor on a terminal, the cohort tree with who borrows from whom, and the inactive queues with their reason.
Nothing here decides."""

from __future__ import annotations

from fractions import Fraction

from kubectl_pd.kueue import figures as fg
from kubectl_pd.kueue.quantity import format_cards, format_quantity, is_credits
from kubectl_pd.output import bars
from kubectl_pd.queues.answer import Answer

COLUMNS = ("CLUSTERQUEUE", "COHORT", "FLAVOR", "RESOURCE", "NOMINAL", "USED", "RESERVED", "BORROWED", "LENT", "FREE",
           "PENDING", "ADMITTED")
WIDE = ("BORROWINGLIMIT", "LENDINGLIMIT", "COHORTFREE", "BORROWABLE", "ACTIVE")


def _v(q: Fraction | None, resource: str) -> str:
    """A quantity for the table: credits in cards, '-' for unknown."""
    if q is None:
        return "-"
    if is_credits(resource):
        return format_cards(q).replace(" cards", "").replace(" card", "") + "c"
    return format_quantity(q, resource)


def unknown_figures(cluster_queue: str, flavor: str, resource: str, fields: tuple[str, ...]) -> tuple[str, str]:
    """The `incomplete` row of a flavor whose figures are unknown (FIELDS: its quota fields of no known size;
    none: its usage could not be read): the row is left out, never shown as 0."""
    what = f"ClusterQueue {cluster_queue} flavor {flavor} {resource}"
    if fields:
        return what, f"{', '.join(fields)} has no size the engine can compute with: its figures are unknown"
    return what, "its usage (status.flavorsReservation, flavorsUsage) could not be read: its figures are unknown"


def unread(a: Answer) -> list[tuple[str, str]]:
    """The record's `incomplete` rows (what, why), in one place: the lists that failed, then each flavor of unknown
    figures."""
    return [*a.unread, *(unknown_figures(u.cluster_queue, u.flavor, u.resource, u.fields) for u in a.unknown)]


def _n(x: int | None) -> str:
    return "-" if x is None else str(x)


def bar(f: fg.FlavorFigures) -> str:
    """A flavor's bar (output/bars.py, the one bar printer, in queues' style): used '#', reserved '=', free '.' over
    the nominal quota, '!' after it when the queue borrows; each symbol means what it means on why-pending's bars
    ('+' is what a pending Workload needs there)."""
    return bars.bar(bars.Figures(f.nominal, f.used, f.reserved, borrowed=f.borrowed), bars.QUEUES)


_FIGURES = ("nominal", "used", "reserved", "borrowed", "lent", "free")
_WIDE_FIGURES = ("borrowing_limit", "lending_limit", "cohort_free", "borrowable")


def rows(a: Answer, wide: bool, bars: bool) -> list[list[str]]:
    out = []
    for q in a.cluster_queues:
        flavors: tuple[fg.FlavorFigures | None, ...] = q.flavors or (None,)
        for f in flavors:
            res = f.resource if f else ""
            row = [q.name, q.cohort or "-", f.flavor if f else "-", res or "-"]
            row += [_v(getattr(f, k), res) if f else "-" for k in _FIGURES]
            row += [_n(q.pending_workloads), _n(q.admitted_workloads)]
            if wide:
                row += [_v(getattr(f, k), res) if f else "-" for k in _WIDE_FIGURES]
                row.append({True: "True", False: "False", None: "Unknown"}[q.active])
            if bars:
                row.append(bar(f) if f else "")
            out.append(row)
    return out


def table(a: Answer, wide: bool = False, bars: bool = False, header: bool = True) -> str:
    head = [*COLUMNS, *(WIDE if wide else ()), *(("QUOTA",) if bars else ())]
    body = rows(a, wide, bars)
    all_rows = [head, *body] if header else body
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return "".join("   ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n" for r in all_rows)


def tree(a: Answer) -> list[str]:
    """The cohort tree: roots first, children indented, member queues; then who borrows from whom."""
    cohorts = {c.name: c for c in a.cohorts}
    lines: list[str] = []

    def walk(name: str, depth: int) -> None:
        c = cohorts[name]
        lines.append(f"{'  ' * depth}cohort {name}: " + (", ".join(c.cluster_queues) or "no ClusterQueue"))
        for q in c.quota:
            if q.nominal != 0:  # a Cohort's own quota, and the pool it is part of
                res = q.resource
                lines.append(f"{'  ' * depth}  own quota {q.flavor}/{res} {_v(q.nominal, res)} (pool "
                             f"{_v(q.subtree, res)}, in use {_v(q.used, res)}, free {_v(q.free, res)})")
        for child in c.cohorts:
            if child in cohorts:
                walk(child, depth + 1)

    for name, c in cohorts.items():
        if (c.parent is None or c.parent not in cohorts) and not c.cycle:
            walk(name, 0)
    for name, c in cohorts.items():  # never dropped: a Cohort whose parent chain loops, and the queues under it
        if c.cycle:
            lines.append(f"cohort {name}: " + (", ".join(c.cluster_queues) or "no ClusterQueue")
                         + f" (its parent chain loops through {c.parent}: Kueue says \"cohort has a cycle\" "
                           f"and admits nothing under it)")
    for f in a.borrowing:
        lines.append(f"  {f.flavor}/{f.resource}: {_flow(a, f)}")
    if not a.cohorts_known:
        lines.append("cohorts: not all read; borrowing and lending are unknown")
    return lines


def _flow(a: Answer, f: fg.Flow) -> str:
    """Who borrows, and where it comes from so that it adds up: borrowed = lent by the members (each queue's LENT
    of the table) + what comes from the cohort's pool (its own quota, or lendable quota still free)."""
    res = f.resource
    who = ", ".join(f"{q} {_v(amount, res)}" for q, amount in f.borrowers)
    lent_by = [(q.name, r.lent) for q in a.cluster_queues if q.cohort is not None
               for r in q.flavors if (r.flavor, r.resource) == (f.flavor, res) and r.lent is not None and r.lent != 0]
    parts = [f"{_v(amount, res)} lent by {q}" for q, amount in lent_by]
    if f.unattributed != 0:
        why = f"its own quota {_v(f.cohort_quota, res)}, and " if f.cohort_quota != 0 else ""
        parts.append(f"{_v(f.unattributed, res)} from the cohort's pool ({why}lendable quota its members could still "
                     f"take back)")
    return f"{who} borrowed = " + (" + ".join(parts) or "0")


def inactive(a: Answer) -> list[str]:
    out = []
    looped = {c.name for c in a.cohorts if c.cycle}
    for q in a.cluster_queues:
        if q.cohort in looped:
            out.append(f"ClusterQueue {q.name} admits nothing: its cohort {q.cohort} has a cycle (Kueue keeps "
                       f"it out of scheduling whatever its Active condition says)")
        if q.active is False:
            why = ": ".join(x for x in (q.reason, q.message) if x) or "no reason given"
            out.append(f"ClusterQueue {q.name} is inactive ({why})")
    return out


def render(a: Answer, wide: bool = False, bars: bool = False) -> str:
    if not a.cluster_queues:
        return "No ClusterQueues found.\n"
    text = table(a, wide, bars)
    extra = tree(a)
    if extra:
        text += "\n" + "\n".join(extra) + "\n"
    off = inactive(a)
    if off:
        text += "\n" + "\n".join(off) + "\n"
    return text


def changed(a: Answer, names: set[str]) -> Answer:
    """The record with only the queues NAMES (a --watch round's rows that changed)."""
    from kubectl_pd.records import replace

    return replace(a, cluster_queues=tuple(q for q in a.cluster_queues if q.name in names))
