"""One why-pending run, whoever asks for it: why-pending (one target, every target, --watch), tree, snapshot and
the MCP tools. The target is parsed and its namespace resolved here, once; `one` and `every` gather the reads
the target needs (pending/gather.py plans and performs them) and hand the closed, typed Facts to a diagnosis that
reads nothing (pending/diagnose.py). No click, no printing: the commands print what these return."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from kubectl_pd.errors import ApiUnavailable, NotFoundError
from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.kueue.preempt_answer import Context
    from kubectl_pd.pending.diagnose import Diagnosis
    from kubectl_pd.pending.gather import Facts
    from kubectl_pd.pending.model import Reason
    from kubectl_pd.pending.target import IncompleteError, Target

BARE_FORMS = ("ModelDeployment", "PodGroup", "Workload")  # what a bare NAME may name, in the order tried


class Alongside(Protocol):
    """Reads another part of the answer makes beside the target's own (MultiKueue's workers): `first` once the
    target's Workloads and queues are read (its dependent reads start then, beside gather's next round), `rest` once
    gather is done (what is still in flight is waited for). Both before any decision: the diagnosis reads nothing."""

    def first(self, facts: Facts) -> None: ...

    def rest(self, facts: Facts) -> None: ...

    def checks(self, facts: Facts) -> Mapping[str, Reason | None]:
        """What this part decided of the target's admission checks, by check name, once its reads are done: the
        reason the diagnosis gives for that check instead of waiting on it (MultiKueue: no worker can ever hold
        the group), or None (the wait stands; its next steps are this part's own). Decided from what was read,
        before the diagnosis chooses its headline."""
        ...


class Ambiguous(ValueError):
    """The target exists in more than one namespace of a snapshot: the user chooses one with -n."""


@dataclass(frozen=True)
class Asked:
    """What the user named: TARGET parsed (kind, name; both "" with no TARGET), whether it was a bare NAME."""

    kind: str
    name: str
    bare: bool

    @property
    def none(self) -> bool:
        return not self.name


def parse(target: str | None, *, bare_forms: bool = True) -> Asked:
    """TARGET as typed; a ValueError (the command's usage error) when it names no form we read. BARE_FORMS:
    a bare NAME may name any of BARE_FORMS (why-pending, snapshot), else only a ModelDeployment (tree)."""
    from kubectl_pd.pending.target import parse_target

    if target is None:
        return Asked("", "", False)
    kind, name = parse_target(target)
    return Asked(kind, name, bare_forms and "/" not in target)


def target_of(asked: Asked, source: Source, flag_namespace: str | None, files: tuple[str, ...],
              default_namespace: Callable[[], str]) -> Target:
    """The target with its namespace: -n, else (a snapshot, no -n) the one namespace of the snapshot that holds it,
    else the context's (`default_namespace`, called only then). A bare NAME looks for each form it may name."""
    from kubectl_pd.pending.target import Target

    ns = flag_namespace
    if ns is None and files:
        ns = _snapshot_home(asked, source, files)
    return Target(asked.kind, asked.name, ns or default_namespace())


def _snapshot_home(asked: Asked, source: Source, files: tuple[str, ...]) -> str:
    from kubectl_pd.pending.target import OWNER_KINDS

    for k in ((*BARE_FORMS, *OWNER_KINDS) if asked.bare else (asked.kind,)):
        ns = snapshot_namespace(source, k, asked.name)
        if ns is not None:
            return ns
    from kubectl_pd.pending.screen_words import bare_not_found, not_in_snapshot

    where = f"any namespace of the snapshot ({', '.join(files)})"
    if asked.bare:
        raise NotFoundError(bare_not_found(asked.name, where, [*BARE_FORMS, *OWNER_KINDS]))
    raise NotFoundError(not_in_snapshot(asked.kind, asked.name, files))


def snapshot_namespace(source: Source, kind: str, name: str) -> str | None:
    """The one namespace of a snapshot that holds `kind` NAME (None: none does); Ambiguous when several do."""
    from kubectl_pd.cluster.source import name_of, namespace_of
    from kubectl_pd.labels import GROUP_LABEL, MANAGED_LABEL
    from kubectl_pd.pending.meta import annotation

    found: set[str] = set()
    if kind == "PodGroup":
        for p in source.list("Pod", None, label_selector=f"{GROUP_LABEL}={name}"):
            found.add(namespace_of(p) or "default")
        for p in source.list("Pod", None, label_selector=MANAGED_LABEL):  # Kueue 0.18+: named by annotation
            if annotation(p, GROUP_LABEL) == name:
                found.add(namespace_of(p) or "default")
        for wl in source.list("Workload", None):
            if name_of(wl) == name:
                found.add(namespace_of(wl) or "default")
    else:
        for obj in source.list(kind, None):
            if name_of(obj) == name:
                found.add(namespace_of(obj) or "default")
    if len(found) > 1:
        from kubectl_pd.pending.screen_words import ambiguous_in_snapshot

        raise Ambiguous(ambiguous_in_snapshot(name, sorted(found)))
    return found.pop() if found else None


# ------------------------------------------------------------------------------------------------ one target

def head_start(source: Source, asked: Asked, namespace: str, more: tuple[Any, ...] = ()) -> Source:
    """On a live cluster, the target's first round of reads (pending/plan.py: its objects, every form of a bare
    NAME, MORE (MultiKueue's), and the bounded sets) sent now, before the diagnosis code loads
    (pending/lookahead.py): the Source to gather the target from."""
    if not source.is_live or asked.none:
        return source
    from kubectl_pd.pending import plan
    from kubectl_pd.pending.lookahead import Lookahead

    forms = BARE_FORMS if asked.bare else (asked.kind,)
    ready = getattr(source, "ready", None)  # a live cluster's transport made here: its requests leave at once
    if callable(ready):
        ready()
    return Lookahead(source).send(plan.first_round(forms, asked.name, namespace, list(more)))


def head_done(source: Source) -> None:
    """Wait for what `head_start` sent: once the target is gathered, nothing is read."""
    from kubectl_pd.pending.lookahead import Lookahead

    if isinstance(source, Lookahead):
        source.close()


def one(source: Source, target: Target, what_if: Mapping[str, int] | None = None,
        ctx: Context | None = None, alongside: Alongside | None = None) -> tuple[Diagnosis, Facts]:
    """The diagnosis of one target; an IncompleteError when it would rest on a read that failed.

    On a live cluster the reads start first and the diagnosis code loads while they are in flight (its
    import costs about as much as the reads themselves). ALONGSIDE's reads are made with the target's, and done
    before the diagnosis."""
    from kubectl_pd.pending.target import IncompleteError

    facts = _gathered(source, target, ctx, alongside)
    if alongside is not None:
        alongside.rest(facts)
    from kubectl_pd.pending.diagnose import diagnose

    replicas = dict(what_if) if what_if else None
    decided = alongside.checks(facts) if alongside is not None else None  # before the headline is chosen
    d = diagnose(facts, what_if=replicas, preempt=ctx, decided=decided) if ctx is not None else \
        diagnose(facts, what_if=replicas, decided=decided)
    if not stands(d, facts):
        raise IncompleteError(target, facts.incomplete)
    return d, facts


def _gathered(source: Source, target: Target, ctx: Context | None, alongside: Alongside | None = None) -> Facts:
    """The target's Facts, preemption's reads with them (the diagnosis reads none)."""
    from kubectl_pd.pending.gather import gather

    first = alongside.first if alongside is not None else None
    if not source.is_live:
        return gather(source, target, strict=False, preempt=ctx, first=first)
    box: dict[str, Any] = {}

    def read() -> None:
        try:
            box["facts"] = gather(source, target, strict=False, preempt=ctx, first=first)
        except BaseException as e:  # noqa: B036 - handed back to the caller below
            box["error"] = e

    from kubectl_pd import interrupt

    reader = interrupt.thread(read, "kubectl-pd-gather")  # never takes SIGINT: the main thread does
    _load_diagnosis()
    interrupt.join(reader)
    if "error" in box:
        raise box["error"]
    facts: Facts = box["facts"]
    return facts


def _load_diagnosis() -> None:
    import kubectl_pd.pending.diagnose  # noqa: F401 - loaded while the reads are in flight
    import kubectl_pd.pending.render  # noqa: F401


def one_named(source: Source, target: Target, what_if: Mapping[str, int] | None, ctx: Context | None,
              bare: bool, alongside: Alongside | None = None) -> tuple[Diagnosis, Facts, Target]:
    """A bare NAME is a ModelDeployment first; when none has that name (or the cluster serves no
    ModelDeployment API), the pod group, then the Workload of that name (what `create --target pods` makes).
    Nothing found: one not-found that names every form tried."""
    if not bare:
        return (*one(source, target, what_if, ctx, alongside), target)
    from kubectl_pd.pending.screen_words import bare_not_found
    from kubectl_pd.pending.target import Target

    missing: list[str] = []
    for kind in BARE_FORMS:
        t = Target(kind, target.name, target.namespace)
        try:
            return (*one(source, t, what_if, ctx, alongside), t)
        except (NotFoundError, ApiUnavailable) as e:
            missing.append(kind if isinstance(e, NotFoundError) else f"{kind}!")
    from kubectl_pd.pending.owners import probe

    found, absent = probe(source, target.name, target.namespace)  # the frameworks' kinds, in one wave
    if found:
        t = Target(found[0], target.name, target.namespace)
        return (*one(source, t, what_if, ctx, alongside), t)
    missing += absent  # a framework whose API is not served is not named
    raise NotFoundError(bare_not_found(target.name, target.namespace, missing))


def stands(d: Diagnosis, facts: Facts) -> bool:
    """A verdict stands without the reads that failed only if it is "pending" because of a Workload that
    was read (a failed read is never evidence of "admitted" or "missing"; doubt means no verdict)."""
    if not facts.incomplete:
        return True
    if not d.pending:
        return False
    unread = {u.read.name for u in facts.incomplete if u.read.kind == "Workload" and u.read.purpose == "get"}
    return any(r.code not in ("NotPending", "Unknown", "WorkloadMissing") and r.workload is not None
               and r.workload not in unread for r in d.reasons)


def unknown_roles(d: Diagnosis, what_if: Mapping[str, int]) -> list[str]:
    """The roles --what-if names that the target does not have."""
    return sorted(set(what_if) - {r.name for r in d.roles})


# ------------------------------------------------------------------------------------------------ every target

@dataclass
class Every:
    """What a run with no TARGET found: the pending diagnoses (namespace, diagnosis), the targets whose
    verdict rests on a failed read, the JSON items and ages (when asked), the run's notes and the lists RBAC
    refused (their notes: what they hold is unknown)."""

    pending: list[tuple[str, Any]]
    unknown: list[IncompleteError]
    items: list[dict[str, Any]]
    ages: list[float | None]
    notes: list[Any]
    refused: list[Any]

    def reordered(self, order: list[int]) -> Every:
        """The same answer with its rows in `order` (--sort-by)."""
        return Every([self.pending[i] for i in order], self.unknown, [self.items[i] for i in order],
                     [self.ages[i] for i in order], self.notes, self.refused)


def every(source: Source, ns: str | None, ctx: Context, *, as_json: bool, wide: bool = False,
          select: Callable[[dict[str, Any]], bool] | None = None) -> Every:
    """Every target of `ns` (None: every namespace) diagnosed, as why-pending with no TARGET does (the
    snapshot command and `-A --watch` call it too, so they read exactly what it reads). AS_JSON: the whole
    JSON items; WIDE: their preemption keys at least, and each target's age; SELECT: -l/--field-selector
    (on a live cluster sent to the server first, pending/narrow.py: the same rows, fewer namespaces read)."""
    from kubectl_pd.pending import narrow
    from kubectl_pd.pending.diagnose import diagnose
    from kubectl_pd.pending.gather import gather_all, gather_preemption
    from kubectl_pd.pending.owners import as_owner
    from kubectl_pd.pending.preempt import section
    from kubectl_pd.pending.render import to_dict
    from kubectl_pd.pending.target import IncompleteError

    sent = narrow.narrowable(source, select)
    got = narrow.gather_selected(source, ns, sent, target_object) if sent is not None else None
    all_facts, notes = got if got is not None else gather_all(source, ns)
    gather_preemption(source, all_facts, ctx)  # the diagnoses below read nothing
    out = Every([], [], [], [], notes, list({n.args.get("kind"): n for n in notes if n.id == "note.unlisted"}.values()))
    if any(n.args.get("kind") == "Workload" for n in out.refused):
        all_facts = []  # every verdict would rest on Workloads that could not be listed: none is given
    all_facts.reverse()
    while all_facts:  # each target's facts are let go once diagnosed: memory holds the answers, not the reads
        f = all_facts.pop()
        if select is not None and not select(target_object(f)):
            continue
        d = diagnose(f, preempt=ctx)
        if not stands(d, f):
            out.unknown.append(IncompleteError(f.target, f.incomplete))
        elif d.pending:
            d = as_owner(d, f)  # a framework's group: a row of its LWS, DisaggregatedSet or Deployment
            out.pending.append((f.target.namespace, d))
            if as_json or wide:
                out.items.append({**(to_dict(d) if as_json else {}), **section(d, text=False).json})
                out.ages.append(_age(f) if wide else None)
    return out


def _age(f: Facts) -> float | None:
    """Seconds since the oldest of the target's Workloads was created (None: no timestamp was read)."""
    from kubectl_pd.output.printers import parse_time

    stamps = [parse_time(w.created or "") for w in f.workloads.values() if w is not None]
    known = [t for t in stamps if t is not None]
    return datetime.now(UTC).timestamp() - min(known) if known else None


def target_object(f: Facts) -> dict[str, Any]:
    """The object -l and --field-selector look at: the ModelDeployment, the Workload, a pod group by its own name
    (the name the TARGET column shows) with its first Pod's labels."""
    t = f.target
    if t.kind == "ModelDeployment" and f.deployment is not None:
        return _metadata_shape(f.deployment.name, f.deployment.namespace, f.deployment.labels)
    wl = f.workloads.get(t.name) if t.kind == "Workload" else None
    if wl is not None:
        return _metadata_shape(wl.name, wl.namespace or None, wl.labels)
    if f.pods:  # a pod group: its own name (the TARGET column's), its first Pod's labels
        name = t.name if t.kind == "PodGroup" else f.pods[0].name
        return _metadata_shape(name, f.pods[0].namespace, f.pods[0].labels)
    return {"metadata": {"name": t.name, "namespace": t.namespace}}


def _metadata_shape(name: str, namespace: str | None, labels: Mapping[str, str]) -> dict[str, Any]:
    """A typed record's name, namespace and labels in the shape selectors.py matches (metadata.*)."""
    meta: dict[str, Any] = {"name": name, "labels": dict(labels)}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"metadata": meta}
