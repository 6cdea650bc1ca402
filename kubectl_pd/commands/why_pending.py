"""`kubectl pd why-pending`: which role blocks a PD deployment, where, by how much, and what to do.

kubectl's command shape: click's arguments make a frozen `WhyPendingOptions` (usage checked there),
`complete()` resolves the namespace once, opens the Source and chooses the one printer, `run()` asks
pending/run.py for the answer and prints it. The pipeline itself (the target, its namespace, the reads,
the diagnosis) is pending/run.py's."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.options import COLOR, NO_HEADERS, SORT_BY, OutputType, cluster_options, output_spec
from kubectl_pd.errors import EXIT_FAILED, EXIT_OK, ClusterError
from kubectl_pd.output import stderr
from kubectl_pd.records import dataclass, field

if TYPE_CHECKING:  # the diagnosis, its renderers and tables load inside the command: Tab needs none of them
    from collections.abc import Callable

    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.kueue.preempt_answer import Context
    from kubectl_pd.multikueue.access import Access
    from kubectl_pd.multikueue.section import MultiKueuePart
    from kubectl_pd.output.printers import Printer, View
    from kubectl_pd.pending.diagnose import Diagnosis
    from kubectl_pd.pending.gather import Facts
    from kubectl_pd.pending.preempt import PreemptionPart
    from kubectl_pd.pending.run import Asked, Every
    from kubectl_pd.pending.target import Target

OUTPUTS = ("text", "json", "yaml", "wide", "name")
# What `--watch` sleeps with between diagnoses: the seam through which tests replace time.
SLEEP: Callable[[float], None] = time.sleep


def _complete_target(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """ModelDeployment names on Tab (live, within --request-timeout, silent on any error)."""
    from kubectl_pd.completion.live import modeldeployment_names

    return modeldeployment_names(ctx, param, incomplete)


@click.command("why-pending", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("target", required=False, metavar="[TARGET]", shell_complete=_complete_target)
@click.option("-A", "--all-namespaces", "all_namespaces", is_flag=True,
              help="With no TARGET: every namespace.")
@click.option("-f", "--from-file", "files", multiple=True, metavar="PATH", type=click.Path(allow_dash=True),
              help="Diagnose from a snapshot (kubectl get -o yaml output, Lists, directories, - for stdin). "
                   "Repeatable.")
@click.option("-o", "--output", type=OutputType(OUTPUTS), default="text", show_default=True,
              help="Output format: text, json, yaml, wide (the no-TARGET table with more columns), name, "
                   "jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC, custom-columns-file=FILE "
                   "(docs/output.md).")
@NO_HEADERS
@SORT_BY
@click.option("-l", "--selector", metavar="SELECTOR",
              help="With no TARGET: only the targets whose object (ModelDeployment, Workload, a pod group's first "
                   "Pod) has these labels, e.g. team=a,tier!=batch.")
@click.option("--field-selector", "field_selector", metavar="SELECTOR",
              help="With no TARGET: only the targets whose object matches, on metadata.name (a pod group's own "
                   "name) or metadata.namespace.")
@COLOR
@click.option("-w", "--watch", is_flag=True, help="Re-diagnose on change until admitted (Ctrl-C to stop).")
@click.option("--what-if", "what_if", multiple=True, metavar="ROLE=N",
              help="Re-diagnose as if ROLE had N replicas (repeatable); nothing is changed in the cluster.")
@click.option("--watch-interval", type=click.FloatRange(0.05, 600), default=2.0, hidden=True)
@click.option("--watch-rounds", type=click.IntRange(1), default=None, hidden=True)  # -A --watch: streams, for tests
@click.option("--kueue-config", "kueue_config", metavar="FILE", type=click.Path(dir_okay=False),
              help="Kueue's controller_manager_config.yaml (or its ConfigMap) for fair sharing and preemption "
                   "(default: read kueue-system/kueue-manager-config).")
@click.option("--holders", is_flag=True, help="List the admitted Workloads holding the quota a role waits for.")
@click.option("--worker-context", "worker_context", multiple=True, metavar="CLUSTER=CONTEXT",
              help="MultiKueue: read the worker CLUSTER (a MultiKueueCluster's name) through kubeconfig CONTEXT "
                   "(repeatable; without it a worker is not read). docs/multikueue.md.")
@click.option("--worker-contexts-by-name", "by_name", is_flag=True,
              help="MultiKueue: read each worker of the MultiKueueConfig through the kubeconfig context named like "
                   "its MultiKueueCluster (an opt-in: your credentials for that context are used).")
@cluster_options
def why_pending(cluster: ClusterOptions, target: str | None, all_namespaces: bool, files: tuple[str, ...],
                output: str, watch: bool, watch_interval: float, what_if: tuple[str, ...],
                kueue_config: str | None = None, holders: bool = False, no_headers: bool = False,
                sort_by: str | None = None, selector: str | None = None, field_selector: str | None = None,
                watch_rounds: int | None = None, worker_context: tuple[str, ...] = (), by_name: bool = False) -> int:
    """Explain why a deployment's pod group is not admitted.

    \b
    TARGET: NAME (a ModelDeployment, else the pod group, else the Workload of that name, else what a PD
    framework makes) | md/NAME | workload/NAME | wl/NAME | pod/NAME | podgroup/NAME | lws/NAME | ds/NAME |
    deploy/NAME | sts/NAME | llmisvc/NAME
    No TARGET: every pending deployment, pod group and Workload in the namespace (or -A).

    \b
    Exit codes: 0 a diagnosis was produced (pending or not), 1 the target does not exist, a read the
    verdict depends on failed (the diagnosis is incomplete) or, with no TARGET, a list was refused (what it
    holds is unknown, as kubectl's Forbidden), 2 usage.
    """
    try:
        if target is not None and (selector or field_selector):
            raise click.UsageError("-l and --field-selector choose among the targets of the list: not with a TARGET")
        from kubectl_pd.cluster.selectors import object_selector
        from kubectl_pd.commands.common import worker_contexts
        from kubectl_pd.output.printers import View

        view = View(output_spec(output), no_headers, sort_by, object_selector(selector, field_selector))
        o = WhyPendingOptions(target, all_namespaces, files, view, watch, watch_interval, watch_rounds, what_if,
                    kueue_config, holders, worker_contexts(worker_context, cluster, bool(files)), by_name)
        if o.watches_all:
            return _watch_all(cluster, all_namespaces, view, kueue_config, watch_rounds)
        return run(complete(cluster, o.checked()))
    except ClusterError as e:  # an IncompleteError keeps its reads typed up to here; the printer words them
        from kubectl_pd.pending.target import IncompleteError

        if not isinstance(e, IncompleteError):
            raise
        from kubectl_pd.pending.words import incomplete_error

        raise incomplete_error(e.target, e.unread) from None


@dataclass(frozen=True)
class WhyPendingOptions:
    """What the user asked, as click parsed it."""

    target: str | None
    all_namespaces: bool
    files: tuple[str, ...]
    view: View
    watch: bool
    watch_interval: float
    watch_rounds: int | None
    what_if: tuple[str, ...]
    kueue_config: str | None
    holders: bool
    workers: Mapping[str, str] = field(default_factory=dict)  # --worker-context (MultiKueue)
    by_name: bool = False  # --worker-contexts-by-name

    @property
    def watches_all(self) -> bool:
        """No TARGET with --watch: the pending table followed live (pending/watch_all.py)."""
        return self.watch and self.target is None and not self.files and not self.what_if

    def checked(self) -> WhyPendingOptions:
        """The combinations kubectl would refuse, refused before anything is read (exit 2)."""
        if self.target is not None and self.all_namespaces:
            raise click.UsageError("a TARGET lives in one namespace: use -n, not -A")
        if self.watch and self.files:
            raise click.UsageError("--watch follows a live cluster; a snapshot (--from-file) does not change")
        if self.what_if and self.target is None:
            raise click.UsageError("--what-if needs a TARGET")
        if self.view.kind == "wide" and self.target is not None:
            raise click.UsageError("-o wide widens the table of every pending target (no TARGET); a TARGET's "
                                   "screen already has every column: use -o text")
        return self


@dataclass(frozen=True)
class WhyPending:
    """The options with what they resolve to: the parsed target, the Source, the namespace (None: every
    namespace), --what-if's replicas, the run's one printer."""

    o: WhyPendingOptions
    asked: Asked
    source: Source
    namespace: str | None
    replicas: Mapping[str, int]
    printer: Printer
    workers: Access | None = None  # how MultiKueue's workers are reached: built once, here (None: no TARGET)
    head: Source | None = None  # a TARGET's first gather: `source` with the target's first reads already sent


def complete(cluster: ClusterOptions, o: WhyPendingOptions) -> WhyPending:
    from kubectl_pd.commands.common import namespace, open_source, parse_target, target_of, use_color

    replicas = _what_if(o.what_if)
    asked = parse_target(o.target)
    source = open_source(cluster, o.files)
    replayed: Mapping[str, Source] = {}  # MultiKueue's workers in a snapshot, by cluster
    if o.files:
        from kubectl_pd.multikueue.snapshots import split
        from kubectl_pd.pending.inputs import check

        check(source)
        source, replayed = split(source)  # a MultiKueue snapshot: the manager's objects, each worker's
    if asked.none:
        ns = None if o.all_namespaces else namespace(cluster)
        return WhyPending(o, asked, source, ns, replicas, _every_printer(o.view, ns))
    t = target_of(cluster, source, o.files, asked)
    from kubectl_pd.pending.run import head_start

    workers = _workers(cluster, o, replayed)
    # live: the first reads go out before the diagnosis code loads (with the MultiKueue manager's objects when
    # workers are to be read: their reads then start in the second round)
    head = head_start(source, asked, t.namespace, _multikueue_first(workers))
    color = o.view.kind == "text" and use_color()
    return WhyPending(o, asked, source, t.namespace, replicas, _one_printer(o.view, color), workers, head)


def _multikueue_first(workers: Access) -> tuple[Any, ...]:
    """The MultiKueue manager's objects, for the first round, when the user asked for workers to be read."""
    if not workers.reads:
        return ()
    from kubectl_pd.pending.plan import multikueue_reads

    return tuple(multikueue_reads())


def _workers(cluster: ClusterOptions, o: WhyPendingOptions, replayed: Mapping[str, Source]) -> Access:
    """MultiKueue's worker access, once: a snapshot's own workers by cluster, else the user's contexts (a snapshot
    with none opens no worker)."""
    from kubectl_pd.commands.common import worker_access

    if replayed:
        from kubectl_pd.multikueue.access import replayed as recorded

        return recorded(replayed)
    return worker_access(None if o.files else cluster, o.workers, o.by_name)


def run(c: WhyPending) -> int:
    if c.asked.none:
        from kubectl_pd.pending.preempt import context

        return _every_pending(c, context(c.source, c.o.kueue_config, c.o.holders))
    from kubectl_pd.pending import run as pr

    head = c.head or c.source
    try:
        from kubectl_pd.multikueue import section as mk  # MultiKueue: the manager's check, then its workers
        from kubectl_pd.pending.preempt import context
        from kubectl_pd.pending.target import Target

        ctx = context(c.source, c.o.kueue_config, c.o.holders)
        t = Target(c.asked.kind, c.asked.name, c.namespace or "")
        got = mk.reads(head, c.workers)  # read beside the manager's own reads, done before any decision
        d, facts, t = pr.one_named(head, t, c.replicas, ctx, c.asked.bare, got)
    finally:
        pr.head_done(head)
    _check_roles(d, c.replicas, c.asked.name)
    mkp = mk.part(got, facts)
    shown = _Shown.of(d, facts, mkp)
    last = c.printer.text(shown)
    _preemption_notes(c, shown)
    click.echo(last, nl=False)
    if c.o.watch:
        _watch_one(c, t, d, last)
    for line in mk.notes(mkp):
        click.echo(f"note: {line}", err=True)
    for line in mk.errors(mkp):  # a worker not read: named, the others still diagnosed; exit 1 as kubectl's errors
        stderr.error(line)
    return EXIT_FAILED if mkp.incomplete else EXIT_OK


@dataclass(frozen=True)
class _Shown:
    """One target's answer as printed: its diagnosis, the Facts it rests on, its preemption part (JSON keys,
    text block)."""

    d: Diagnosis
    facts: Facts
    preemption: PreemptionPart
    multikueue: MultiKueuePart | None = None

    @staticmethod
    def of(d: Diagnosis, facts: Facts, mkp: MultiKueuePart | None = None) -> _Shown:
        from kubectl_pd.pending.preempt import section

        return _Shown(d, facts, section(d), mkp)


def _watch_one(c: WhyPending, t: Target, d: Diagnosis, last: str) -> None:
    """--watch with a TARGET: diagnosed afresh each round (the form the first round found) until admitted; each
    change printed, under a time stamp (text) or a document separator (yaml). Ctrl-C ends it (exit 0)."""
    from kubectl_pd.pending import run as pr
    from kubectl_pd.pending.preempt import context

    try:
        while d.pending:
            SLEEP(c.o.watch_interval)
            ctx = context(c.source, c.o.kueue_config, c.o.holders)  # fresh reads each round
            from kubectl_pd.multikueue import section as mk

            got = mk.reads(c.source, c.workers)
            d, facts = pr.one(c.source, t, c.replicas, ctx, got)
            mkp = mk.part(got, facts)
            shown = _Shown.of(d, facts, mkp)
            text = c.printer.text(shown)
            if text != last:
                _preemption_notes(c, shown)
                stamp = datetime.now(UTC).strftime("%H:%M:%S")
                if c.o.view.kind == "text":
                    click.echo(f"--- {stamp}")
                elif c.o.view.kind == "yaml":
                    click.echo("---")
                click.echo(text, nl=False)
                last = text
    except KeyboardInterrupt:
        return


def _preemption_notes(c: WhyPending, s: _Shown) -> None:
    """The preemption part's notes on stderr, as every note (issue 37): with the text screen they belong to."""
    if c.o.view.kind == "text":
        for line in s.preemption.notes:
            click.echo(f"note: {line}", err=True)


def _one_printer(view: View, color: bool) -> Printer:
    """A TARGET's printer: its screen (text), its kind/name (name), else its -o json document."""
    from kubectl_pd.pending.render import object_name, render_text

    return view.to_printer({
        "text": lambda s: render_text(s.d, color=color) + s.preemption.text + _multikueue_text(s),
        "name": lambda s: object_name(s.d.target.kind, s.d.target.name) + "\n",
    }, _one_document)


def _one_document(s: _Shown) -> tuple[dict[str, Any], list[Any]]:
    """A TARGET's -o json document; it is also the one row of custom-columns."""
    from kubectl_pd.contract import WHY_PENDING
    from kubectl_pd.pending.render import to_dict

    data = {"schemaVersion": WHY_PENDING,
            **to_dict(s.d, placements=False),  # a TARGET's `multikueue` is the whole MultiKueue answer
            **s.preemption.json,  # top-level `preemption` (and `holders`, `preemptedBy`)
            **_multikueue_json(s)}
    if s.facts.incomplete:
        from kubectl_pd.pending.screen_words import incomplete
        from kubectl_pd.pending.words import read_text

        data["incomplete"] = incomplete((read_text(u.read), u.why) for u in s.facts.incomplete)
    return data, [data]


def _multikueue_text(s: _Shown) -> str:
    """MultiKueue's block of the screen, from its answer ("" when no MultiKueue check holds the target)."""
    if s.multikueue is None or s.multikueue.answer is None:
        return ""
    from kubectl_pd.multikueue.render import to_text

    return to_text(s.multikueue.answer)


def _multikueue_json(s: _Shown) -> dict[str, Any]:
    """MultiKueue's key of the document, from its answer (none when no MultiKueue check holds the target)."""
    if s.multikueue is None or s.multikueue.answer is None:
        return {}
    from kubectl_pd.multikueue.render import to_dict

    return {"multikueue": to_dict(s.multikueue.answer)}


def _what_if(values: tuple[str, ...]) -> dict[str, int]:
    """`--what-if decode=1` (repeatable) -> {"decode": 1}; a role's replicas, at least 1."""
    out: dict[str, int] = {}
    for v in values:
        role, sep, n = v.partition("=")
        if not sep or not role or not (n.isascii() and n.isdigit()) or not 1 <= int(n) <= 1024:
            raise click.BadParameter(f"{v!r}: expected ROLE=N with N replicas from 1 to 1024",
                                     param_hint="'--what-if'")
        out[role.strip()] = int(n)
    return out


def _check_roles(d: Diagnosis, replicas: Mapping[str, int], name: str) -> None:
    from kubectl_pd.pending.run import unknown_roles

    unknown = unknown_roles(d, replicas)
    if unknown:
        raise click.BadParameter(f"no role {', '.join(unknown)} in {name} (roles: "
                                 f"{', '.join(r.name for r in d.roles) or 'none'})", param_hint="'--what-if'")


# ------------------------------------------------------------------------------------------------ every target

def _every_pending(c: WhyPending, ctx: Context) -> int:
    """No TARGET: one row per pending deployment, pod group and Workload; the run's notes once. The admitted
    Workloads preemption depends on are read at most once per ClusterQueue for the whole run (`ctx`)."""
    from kubectl_pd.pending import run as pr

    view, kind = c.o.view, c.o.view.kind
    sorting = view.sort_by is not None
    # the JSON items; -o wide reads only their preemption keys (unless --sort-by reads more)
    every = pr.every(c.source, c.namespace, ctx, as_json=c.printer.structured or sorting, wide=kind == "wide",
                     select=view.select)
    if sorting:
        every = every.reordered(view.order(every.items))
    c.printer.write(every)
    if kind in ("text", "wide"):
        _notes(every)
    _errors(every, _where(c))
    return EXIT_OK


def _where(c: WhyPending) -> str:
    return "any namespace" if c.o.all_namespaces else f"namespace {c.namespace}"


def _notes(every: Every) -> None:
    from kubectl_pd.pending import words

    for n in every.notes:
        if n not in every.refused:  # said once, as the error below
            click.echo(f"note: {words.text(n)}", err=True)


def _errors(every: Every, where: str) -> None:
    """The targets whose verdict is unknown, then (kubectl's Forbidden: exit 1, never "nothing pending") the
    lists RBAC refused."""
    from kubectl_pd.pending import words

    for e in every.unknown[1 if not every.refused else 0:]:
        stderr.error(words.incomplete(e.target, e.unread))
    if every.refused:
        from kubectl_pd.errors import ForbiddenError
        from kubectl_pd.pending.screen_words import forbidden_lists

        raise ForbiddenError(forbidden_lists(where, [words.text(n) for n in every.refused]))
    if every.unknown:
        raise every.unknown[0]


def _every_printer(view: View, ns: str | None) -> Printer:
    """No TARGET's printer: the table (text), its wide form, the names, else the -o json document of items."""
    from kubectl_pd.pending.render import object_name

    where = "any namespace" if ns is None else f"namespace {ns}"
    no_headers = view.no_headers

    def table(every: Every) -> str:
        from kubectl_pd.pending.render import render_list

        if not every.pending:
            from kubectl_pd.pending.screen_words import nothing_pending

            return "" if every.unknown or every.refused else nothing_pending(where) + "\n"
        return render_list(every.pending, no_headers=no_headers, width=_detail_width())

    def wide(every: Every) -> str:
        from kubectl_pd.pending.render import WideRow, render_wide

        if not every.pending:
            return table(every)
        rows = [WideRow(ns, d, item, age) for (ns, d), item, age in zip(every.pending, every.items, every.ages,
                                                                         strict=True)]
        return render_wide(rows, no_headers=no_headers, width=_detail_width())

    def names(every: Every) -> str:
        # each object once, as kubectl's -o name: a PD framework's groups are rows of one owner (LWS, DisaggregatedSet)
        return "".join(dict.fromkeys(object_name(d.target.kind, d.target.name) + "\n" for _ns, d in every.pending))

    def document(every: Every) -> tuple[dict[str, Any], list[Any]]:
        from kubectl_pd.contract import WHY_PENDING
        from kubectl_pd.pending import words

        doc: dict[str, Any] = {"schemaVersion": WHY_PENDING, "items": every.items,
                               "notes": [words.text(n) for n in every.notes]}
        if every.refused:
            from kubectl_pd.pending.screen_words import incomplete, list_read

            doc["incomplete"] = incomplete((list_read(str(n.args["kind"]), ns), str(n.args["message"]))
                                           for n in every.refused)
        return doc, every.items

    return view.to_printer({"text": table, "wide": wide, "name": names}, document)


def _detail_width() -> int | None:
    """The DETAIL column is cut to fit a terminal; into a pipe or a file it is whole (kubectl cuts nothing)."""
    import sys

    from kubectl_pd.pending.render import DETAIL_WIDTH

    return DETAIL_WIDTH if sys.stdout.isatty() else None


# ------------------------------------------------------------------------------------------------ -A --watch

def _watch_all(cluster: ClusterOptions, all_namespaces: bool, view: View, kueue_config: str | None,
               rounds: int | None) -> int:
    """No TARGET with --watch: the pending table, then its changes as Workloads change (pending/watch_all.py);
    redrawn in place on a terminal, else one line per change; -l/--field-selector choose the targets as without
    --watch. Ctrl-C ends it (exit 0)."""
    from kubectl_pd.commands.common import namespace, open_live, use_color
    from kubectl_pd.pending import run as pr
    from kubectl_pd.pending import watch_render
    from kubectl_pd.pending.preempt import context
    from kubectl_pd.pending.render import one_line
    from kubectl_pd.pending.watch_all import Follow, Rows, changes, follow, rows_of
    from kubectl_pd.pending.words import message

    if view.kind != "text":
        raise click.UsageError("--watch with no TARGET prints the table: -o text only")
    source = open_live(cluster)
    ns = None if all_namespaces else namespace(cluster)
    tty = use_color()  # a terminal that keeps our redraw sequences (kubectl_pd/termsafe.py: not with NO_COLOR)
    drawn = [-1]  # lines of the table last drawn; -1: none yet

    def diagnose() -> Rows:
        every = pr.every(source, ns, context(source, kueue_config, False), as_json=False,  # fresh reads
                              select=view.select)
        if every.unknown:
            raise every.unknown[0]
        return rows_of(every.pending, lambda r: one_line(message(r), 90))

    def show(before: Rows, after: Rows) -> None:
        stamp = datetime.now(UTC).strftime("%H:%M:%S")
        if tty or drawn[0] < 0:
            text = watch_render.table(after, stamp)
            click.echo(watch_render.redraw(max(drawn[0], 0), text) if tty else text, nl=False)
            drawn[0] = len(text.splitlines())
            return
        for change, key, row in changes(before, after):
            click.echo(watch_render.line(stamp, change, key, row))

    try:
        follow(Follow(source, ns, _watch_seconds(cluster.request_timeout), rounds), diagnose, show)
    except KeyboardInterrupt:
        return EXIT_OK
    return EXIT_OK


def _watch_seconds(request_timeout: float | None) -> int:
    """A held watch's timeoutSeconds: 5 to 10 minutes at random, or half a shorter --request-timeout (the
    server must end it in time)."""
    from kubectl_pd.pending.watch_all import held_seconds

    held = held_seconds()
    if not request_timeout or request_timeout <= 0:
        return held
    return max(1, min(held, int(request_timeout // 2)))
