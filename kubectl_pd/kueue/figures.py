"""One record per ClusterQueue, flavor and resource: the quota figures every screen shows.

The figures are why-pending's quota bars' (kueue/verdicts: `quota_rows` for nominal, used and reserved,
`lending` for what the cohort has free and what the queue may borrow), so `kubectl pd queues` and why-pending
never disagree; what the bars do not carry (lent, who borrows from whom) is worked out here from the same
cohort tree (kueue/admission.Tree). Pure: typed records in, frozen records out.

`lent` is why-pending's (the bars'): what of the queue's unused nominal quota others of its cohort use now, so
that the queue could not take it back without a reclaim; `free` excludes it. Who lends to whom (`lends`, for the
flows) is another figure: Kueue does not attribute a borrower's use to a lender, so it is exact when nobody
borrows (0) or when one member alone has unused quota to lend and no Cohort holds quota of its own for that
flavor; otherwise it is None (unknown), never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from kubectl_pd.kueue import admission as ad
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import ClusterQueue, FlavorResource, Snapshot
from kubectl_pd.records import dataclass

_ZERO = Fraction(0)


@dataclass(frozen=True)
class FlavorFigures:
    cluster_queue: str
    flavor: str
    resource: str
    nominal: Fraction
    used: Fraction  # admitted (status.flavorsUsage)
    reserved: Fraction  # reserved but not admitted (status.flavorsReservation - flavorsUsage)
    free: Fraction  # of its own nominal quota, unused (the bars' `free`)
    borrowed: Fraction  # in use beyond its nominal quota
    lent: Fraction | None  # of its unused nominal quota, what others of its cohort use now (the bars' `lent`)
    lendable: Fraction  # of its nominal quota, unused and within its lendingLimit: what the cohort may take
    borrowing_limit: Fraction | None = None  # None: no limit
    lending_limit: Fraction | None = None
    cohort: str | None = None
    cohort_free: Fraction | None = None  # the cohort's free quota of this flavor/resource (None: not known)
    borrowable: Fraction | None = None  # what the queue may take beyond its nominal now (None: not known)
    lends: Fraction | None = None  # what it lends to the borrowers of the flows (None: not attributable)

    @property
    def in_use(self) -> Fraction:
        return self.used + self.reserved


@dataclass(frozen=True)
class Flow:
    """Who borrows from whom in one cohort tree, for one flavor and resource."""

    cohort: str  # the tree's root
    flavor: str
    resource: str
    borrowers: tuple[tuple[str, Fraction], ...]  # (ClusterQueue, borrowed)
    lenders: tuple[tuple[str, Fraction], ...]  # (ClusterQueue, lent; or lendable when not attributable)
    attributed: bool  # lenders' amounts are what they lend now (else what they could lend)
    lent: Fraction = _ZERO  # the members' `lent` (each bounded by its lendingLimit), summed
    cohort_quota: Fraction = _ZERO  # the Cohorts' own quota in the tree (spec.resourceGroups of Cohort objects)
    unattributed: Fraction = _ZERO  # borrowed - lent: from the cohorts' own quota or lendable quota still free


@dataclass(frozen=True)
class CohortFigures:
    """A Cohort of a tree as Kueue's resourceNode counts it, for one flavor and resource: its own quota (0: none),
    the quota its subtree puts in it (own + what members and child cohorts lend it), what they use of that, and
    what is free there (Kueue's `available` at the cohort; resource_node.go:100-121, 217-229@v0.19.2)."""

    cohort: str
    flavor: str
    resource: str
    nominal: Fraction
    subtree: Fraction
    used: Fraction
    free: Fraction
    lending_limit: Fraction | None = None
    borrowing_limit: Fraction | None = None


def _rows(cq: ClusterQueue, tree: ad.Tree | None, snap_cycle: bool = False) -> list[FlavorFigures]:
    out = []
    if tree is not None and snap_cycle:  # Kueue builds no tree for a cohort with a cycle: lending unknown
        tree = None
    node = tree.nodes.get(cq.name) if tree is not None else None
    for key, nominal, used, reserved in vd.quota_rows(cq):
        bar = vd.FlavorBar(key[0], key[1], nominal, used, reserved, _ZERO)
        if tree is not None and node is not None and node.parent is not None:
            bar = vd.lending(bar, cq, tree, key)
        q = cq.quota(*key)
        lending = q.lending_limit if q is not None else None
        in_use = used + reserved
        unused = max(_ZERO, nominal - in_use)
        out.append(FlavorFigures(
            cq.name, key[0], key[1], nominal, used, reserved, bar.free, max(in_use - nominal, _ZERO),
            bar.lent if bar.cohort is not None else (None if cq.cohort else _ZERO),  # outside a cohort: none
            min(unused, lending) if lending is not None else unused,
            q.borrowing_limit if q is not None else None, lending, cq.cohort, bar.cohort_free,
            bar.borrowable))
    return out


def figures(snap: Snapshot) -> dict[str, tuple[FlavorFigures, ...]]:
    """Every ClusterQueue's figures, by name; one cohort tree for all (when every peer was read)."""
    tree = ad.Tree(snap) if snap.peers_complete else None
    rows = {name: _rows(cq, tree, snap.cycle_of(cq.cohort) is not None) for name, cq in snap.cluster_queues.items()}
    if tree is not None:
        _attribute(snap, tree, rows)
    return {name: tuple(r) for name, r in rows.items()}


def _attribute(snap: Snapshot, tree: ad.Tree, rows: dict[str, list[FlavorFigures]]) -> None:
    """Fill `lent` where it is exact (see the module's words)."""
    own_quota = {fr for c in snap.cohorts.values() for g in c.resource_groups for f in g.flavors
                 for fr in ((f.name, r.name) for r in f.resources)}
    for members in _trees(snap, tree).values():
        by_fr: dict[FlavorResource, list[tuple[int, FlavorFigures, str]]] = {}
        for name in members:
            for i, r in enumerate(rows.get(name, ())):
                by_fr.setdefault((r.flavor, r.resource), []).append((i, r, name))
        for fr, entries in by_fr.items():
            borrowed = sum((r.borrowed for _, r, _ in entries), _ZERO)
            lenders = [(i, r, n) for i, r, n in entries if r.lendable > 0]
            for i, r, n in entries:
                lent: Fraction | None = None
                if borrowed == 0 or r.lendable == 0:  # nobody borrows, or nothing of its quota is unused
                    lent = _ZERO
                elif fr not in own_quota and len(lenders) == 1:
                    lent = min(borrowed, r.lendable) if lenders[0][2] == n else _ZERO
                rows[n][i] = _with_lent(r, lent)


def _with_lent(r: FlavorFigures, lent: Fraction | None) -> FlavorFigures:
    from kubectl_pd.records import replace

    return replace(r, lends=lent)


def _trees(snap: Snapshot, tree: ad.Tree) -> dict[str, list[str]]:
    """Root cohort -> its ClusterQueues, in name order; queues outside any cohort are left out."""
    out: dict[str, list[str]] = {}
    for name in sorted(snap.cluster_queues):
        node = tree.nodes[name]
        if node.parent is not None and snap.cycle_of(snap.cluster_queues[name].cohort) is None:
            out.setdefault(node.root().name, []).append(name)
    return out


def flows(snap: Snapshot, rows: Mapping[str, tuple[FlavorFigures, ...]]) -> tuple[Flow, ...]:
    """Per cohort tree and flavor/resource where someone borrows: the borrowers and the lenders."""
    if not snap.peers_complete:
        return ()
    tree = ad.Tree(snap)
    out = []
    for root, members in sorted(_trees(snap, tree).items()):
        by_fr: dict[FlavorResource, list[FlavorFigures]] = {}
        for name in members:
            for r in rows.get(name, ()):
                by_fr.setdefault((r.flavor, r.resource), []).append(r)
        for (flavor, resource), entries in sorted(by_fr.items()):
            borrowers = tuple((r.cluster_queue, r.borrowed) for r in entries if r.borrowed > 0)
            if not borrowers:
                continue
            attributed = all(r.lends is not None for r in entries)
            lenders = tuple((r.cluster_queue, r.lends if attributed and r.lends is not None else r.lendable)
                            for r in entries if (r.lends if attributed else r.lendable))
            borrowed = sum((b for _, b in borrowers), _ZERO)
            lent = sum((r.lent or _ZERO for r in entries), _ZERO)
            own = sum((c.nominal for c in cohort_figures(snap, tree, root) if (c.flavor, c.resource) ==
                       (flavor, resource)), _ZERO)
            out.append(Flow(root, flavor, resource, borrowers, lenders, attributed, lent, own,
                            max(borrowed - lent, _ZERO)))
    return tuple(out)


def cohort_figures(snap: Snapshot, tree: ad.Tree | None = None, root: str | None = None,
                   ) -> tuple[CohortFigures, ...]:
    """Every Cohort of the trees (or of the tree ROOT), each flavor/resource its subtree holds, by name: what
    `kubectl pd queues` shows of a Cohort's own quota. Empty when the peers were not all read."""
    if not snap.peers_complete:
        return ()
    tree = tree or ad.Tree(snap)
    out: list[CohortFigures] = []
    for r in sorted(tree.roots, key=lambda n: n.name):
        if (root is not None and r.name != root) or snap.cycle_of(r.name) is not None:
            continue  # a cycle: Kueue builds no tree for it
        stack = [r]
        while stack:
            node = stack.pop()
            stack += [c for c in node.children if not c.is_cq]
            for fr in sorted(set(node.subtree) | set(node.nominal)):
                if tree.unreadable(node, fr):
                    continue
                q = node.quotas.get(fr)
                out.append(CohortFigures(node.name, fr[0], fr[1], node.nominal.get(fr, _ZERO),
                                         node.subtree.get(fr, _ZERO), node.usage.get(fr, _ZERO),
                                         tree.available(node, fr), q.lending_limit if q is not None else None,
                                         q.borrowing_limit if q is not None else None))
    return tuple(sorted(out, key=lambda c: (c.cohort, c.flavor, c.resource)))
