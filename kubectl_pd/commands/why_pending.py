"""`kubectl pd why-pending`: which role blocks a PD deployment, where, by how much, and what to do."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.errors import EXIT_OK, NotFoundError
from kubectl_pd.options import COLOR, NO_HEADERS, SORT_BY, OutputType, cluster_options, output_spec

if TYPE_CHECKING:  # the diagnosis, its renderers and tables load inside the command: Tab needs none of them
    from collections.abc import Callable, Mapping

    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.kueue.preempt_answer import Context
    from kubectl_pd.output.printers import View
    from kubectl_pd.pending.diagnose import Diagnosis
    from kubectl_pd.pending.gather import Facts, Target

OUTPUTS = ("text", "json", "yaml", "wide", "name")
# What `--watch` sleeps with between diagnoses: the seam through which tests replace time.
SLEEP: Callable[[float], None] = time.sleep


def _snapshot_namespace(source: Source, kind: str, name: str) -> str | None:
    """With --from-file and no -n: the one namespace of the snapshot that holds the target."""
    from kubectl_pd.cluster.source import name_of, namespace_of
    from kubectl_pd.pending.gather import GROUP_LABEL

    found: set[str] = set()
    if kind == "PodGroup":
        for p in source.list("Pod", None, label_selector=f"{GROUP_LABEL}={name}"):
            found.add(namespace_of(p) or "default")
        for wl in source.list("Workload", None):
            if name_of(wl) == name:
                found.add(namespace_of(wl) or "default")
    else:
        for obj in source.list(kind, None):
            if name_of(obj) == name:
                found.add(namespace_of(obj) or "default")
    if len(found) > 1:
        raise click.UsageError(f"{name} exists in namespaces {', '.join(sorted(found))} of the snapshot: "
                               f"choose one with -n")
    return found.pop() if found else None


def _one(source: Source, target: Target, what_if: dict[str, int] | None = None,
         ctx: Context | None = None) -> tuple[Diagnosis, Facts]:
    """The diagnosis of one target; an IncompleteError when it would rest on a read that failed.

    On a live cluster the reads start first and the diagnosis code loads while they are in flight (its
    import costs about as much as the reads themselves)."""
    from kubectl_pd.pending.gather import IncompleteError, gather

    if getattr(source, "is_live", False):
        box: dict[str, Any] = {}

        def read() -> None:
            try:
                box["facts"] = gather(source, target, strict=False, preempt=ctx)
            except BaseException as e:  # noqa: B036 - handed back to the command below
                box["error"] = e

        from kubectl_pd import interrupt

        reader = interrupt.thread(read, "kubectl-pd-gather")  # never takes SIGINT: the main thread does
        _load_diagnosis()
        interrupt.join(reader)
        if "error" in box:
            raise box["error"]
        facts = box["facts"]
    else:
        facts = gather(source, target, strict=False, preempt=ctx)  # preemption's reads too: the diagnosis reads none
    from kubectl_pd.pending.diagnose import diagnose

    d = diagnose(facts, what_if=what_if, assign=ctx.assign) if ctx is not None else diagnose(facts, what_if=what_if)
    if not stands(d, facts):
        raise IncompleteError(target, facts.incomplete)
    return d, facts


BARE_FORMS = ("ModelDeployment", "PodGroup", "Workload")  # what a bare NAME may name, in the order tried


def _one_named(source: Source, target: Target, what_if: dict[str, int] | None, ctx: Context | None,
               bare: bool) -> tuple[Diagnosis, Facts, Target]:
    """A bare NAME is a ModelDeployment first; when none has that name (or the cluster serves no
    ModelDeployment API), the pod group, then the Workload of that name (what `create --target pods` makes).
    Nothing found: one not-found that names every form tried."""
    if not bare:
        return (*_one(source, target, what_if, ctx), target)
    from kubectl_pd.errors import ApiUnavailable
    from kubectl_pd.pending.gather import Target
    from kubectl_pd.pending.screen_words import bare_not_found

    missing: list[str] = []
    for kind in BARE_FORMS:
        t = Target(kind, target.name, target.namespace)
        try:
            return (*_one(source, t, what_if, ctx), t)
        except (NotFoundError, ApiUnavailable) as e:
            missing.append(kind if isinstance(e, NotFoundError) else f"{kind}!")
    raise NotFoundError(bare_not_found(target.name, target.namespace, missing))


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


def _load_diagnosis() -> None:
    import kubectl_pd.pending.diagnose  # noqa: F401 - loaded while the reads are in flight
    import kubectl_pd.pending.render  # noqa: F401


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


def _emit(d: Diagnosis, facts: Facts, output: str, color: bool,
          preemption: tuple[dict[str, Any], str] = ({}, ""), view: View | None = None) -> str:
    from kubectl_pd.commands.common import dump

    if output == "name":
        from kubectl_pd.pending.render import object_name

        return object_name(d.target.kind, d.target.name) + "\n"
    if output == "text":
        from kubectl_pd.pending.render import render_text

        return render_text(d, color=color) + preemption[1]  # the "would preempt" block
    from kubectl_pd.contract import WHY_PENDING
    from kubectl_pd.pending.render import to_dict

    data = {"schemaVersion": WHY_PENDING, **to_dict(d)}
    data.update(preemption[0])  # top-level `preemption` (and `holders`, `preemptedBy`)
    if facts.incomplete:
        from kubectl_pd.pending.words import read_text

        data["incomplete"] = [{"read": read_text(u.read), "error": u.why} for u in facts.incomplete]
    if view is not None and view.templated:
        return view.render(data, [data])  # a TARGET's document is the one row of custom-columns
    return dump(data, output)


def _complete_target(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """ModelDeployment names on Tab (live, within --request-timeout, silent on any error)."""
    from kubectl_pd.completion_live import modeldeployment_names

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
@cluster_options
def why_pending(cluster: ClusterOptions, target: str | None, all_namespaces: bool, files: tuple[str, ...],
                output: str, watch: bool, watch_interval: float, what_if: tuple[str, ...],
                kueue_config: str | None = None, holders: bool = False, no_headers: bool = False,
                sort_by: str | None = None, selector: str | None = None, field_selector: str | None = None,
                watch_rounds: int | None = None) -> int:
    """Explain why a deployment's pod group is not admitted.

    \b
    TARGET: NAME (a ModelDeployment, else the pod group, else the Workload of that name) | md/NAME |
    workload/NAME | wl/NAME | pod/NAME | podgroup/NAME
    No TARGET: every pending deployment, pod group and Workload in the namespace (or -A).

    \b
    Exit codes: 0 a diagnosis was produced (pending or not), 1 the target does not exist, a read the
    verdict depends on failed (the diagnosis is incomplete) or, with no TARGET, a list was refused (what it
    holds is unknown, as kubectl's Forbidden), 2 usage.
    """
    from kubectl_pd.pending.gather import IncompleteError
    from kubectl_pd.pending.words import incomplete_error

    try:
        from kubectl_pd.cluster.selectors import object_selector
        from kubectl_pd.output.printers import View

        if target is not None and (selector or field_selector):
            raise click.UsageError("-l and --field-selector choose among the targets of the list: not with a TARGET")
        view = View(output_spec(output), no_headers, sort_by, object_selector(selector, field_selector))
        if watch and target is None and not files and not what_if:
            return _watch_all(cluster, all_namespaces, view, kueue_config, watch_rounds)
        return _why_pending(cluster, target, all_namespaces, files, view.kind, watch, watch_interval, what_if,
                            kueue_config, holders, view)
    except IncompleteError as e:  # the reads stay typed up to here; the printer words them
        raise incomplete_error(e.target, e.unread) from None


def _why_pending(cluster: ClusterOptions, target: str | None, all_namespaces: bool, files: tuple[str, ...],
                 output: str, watch: bool, watch_interval: float, what_if: tuple[str, ...],
                 kueue_config: str | None, holders: bool, view: View | None = None) -> int:
    from kubectl_pd.commands.common import open_source, use_color
    from kubectl_pd.pending.gather import Target

    _check_usage(target, all_namespaces, files, watch, what_if)
    if output == "wide" and target is not None:
        raise click.UsageError("-o wide widens the table of every pending target (no TARGET); a TARGET's "
                               "screen already has every column: use -o text")
    replicas = _what_if(what_if)
    kind, name = _parse(target)
    source = open_source(cluster, files)
    if files:
        from kubectl_pd.pending.inputs import check

        check(source)
    color = output == "text" and use_color()
    from kubectl_pd.pending.preempt import context, section

    if target is None:
        return _every_pending(cluster, source, all_namespaces, output, context(source, kueue_config, holders),
                              view)
    bare = target is not None and "/" not in target
    t = Target(kind, name, _target_namespace(cluster, source, files, kind, name, bare))
    ctx = context(source, kueue_config, holders)
    d, facts, t = _one_named(source, t, replicas, ctx, bare)
    _check_roles(d, replicas, name)
    last = _emit(d, facts, output, color, section(ctx, facts), view)
    click.echo(last, nl=False)
    if not watch:
        return EXIT_OK
    try:
        while d.pending:
            SLEEP(watch_interval)
            ctx = context(source, kueue_config, holders)  # fresh reads each round
            d, facts = _one(source, t, replicas, ctx)  # the form the first round found
            text = _emit(d, facts, output, color, section(ctx, facts), view)
            if text != last:
                stamp = datetime.now(UTC).strftime("%H:%M:%S")
                if output == "text":
                    click.echo(f"--- {stamp}")
                elif output == "yaml":
                    click.echo("---")
                click.echo(text, nl=False)
                last = text
    except KeyboardInterrupt:
        return EXIT_OK
    return EXIT_OK


def _check_usage(target: str | None, all_namespaces: bool, files: tuple[str, ...], watch: bool,
                 what_if: tuple[str, ...]) -> None:
    if target is not None and all_namespaces:
        raise click.UsageError("a TARGET lives in one namespace: use -n, not -A")
    if watch and files:
        raise click.UsageError("--watch follows a live cluster; a snapshot (--from-file) does not change")
    if what_if and target is None:
        raise click.UsageError("--what-if needs a TARGET")


def _parse(target: str | None) -> tuple[str, str]:
    from kubectl_pd.pending.gather import parse_target

    if target is None:
        return "", ""
    try:
        return parse_target(target)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'TARGET'") from None


def _target_namespace(cluster: ClusterOptions, source: Source, files: tuple[str, ...], kind: str, name: str,
                      bare: bool = False) -> str:
    """-n, else (with --from-file) the one namespace of the snapshot that holds the target, else the context's.
    A bare NAME looks for each form it may name (BARE_FORMS)."""
    from kubectl_pd.commands.common import namespace

    ns = cluster.namespace
    if ns is None and files:
        for k in (BARE_FORMS if bare else (kind,)):
            ns = _snapshot_namespace(source, k, name)
            if ns is not None:
                break
        if ns is None and bare:
            from kubectl_pd.pending.screen_words import bare_not_found

            raise NotFoundError(bare_not_found(name, f"any namespace of the snapshot ({', '.join(files)})",
                                               list(BARE_FORMS)))
        if ns is None:
            what = {"ModelDeployment": "modeldeployment", "PodGroup": "pod group"}.get(kind, kind.lower())
            raise NotFoundError(f'{what} "{name}" not found in any namespace of the snapshot '
                                f"({', '.join(files)})")
    return ns or namespace(cluster)


def _check_roles(d: Diagnosis, replicas: dict[str, int], name: str) -> None:
    unknown = sorted(set(replicas) - {r.name for r in d.roles})
    if unknown:
        raise click.BadParameter(f"no role {', '.join(unknown)} in {name} (roles: "
                                 f"{', '.join(r.name for r in d.roles) or 'none'})", param_hint="'--what-if'")


def _every_pending(cluster: ClusterOptions, source: Source, all_namespaces: bool, output: str, ctx: Context,
                   view: View | None = None) -> int:
    """No TARGET: one row per pending deployment, pod group and Workload; the run's notes once. The admitted
    Workloads preemption depends on are read at most once per ClusterQueue for the whole run (`ctx`)."""
    from kubectl_pd.commands.common import echo_dump, namespace
    from kubectl_pd.pending import words
    from kubectl_pd.pending.render import render_list

    ns = None if all_namespaces else namespace(cluster)
    sorting = view is not None and view.sort_by is not None
    # the JSON items; -o wide reads only their preemption keys (unless --sort-by reads more)
    whole = output not in ("text", "name", "wide") or sorting
    every = every_verdict(source, ns, ctx, as_json=whole, wide=output == "wide",
                          select=view.select if view is not None else None)
    pending, items, ages, notes, unknown = every.pending, every.items, every.ages, every.notes, every.unknown
    refused = every.refused
    if view is not None and sorting:
        order = view.order(items)
        pending, items, ages = [pending[i] for i in order], [items[i] for i in order], [ages[i] for i in order]
    no_headers = view is not None and view.no_headers
    if output == "name":
        from kubectl_pd.pending.render import object_name

        click.echo("".join(object_name(d.target.kind, d.target.name) + "\n" for _ns, d in pending), nl=False)
    elif output == "wide" and pending:
        from kubectl_pd.pending.render import WideRow, render_wide

        click.echo(render_wide([WideRow(ns, d, item, age) for (ns, d), item, age in zip(pending, items, ages,
                                                                                         strict=True)],
                               no_headers=no_headers, width=_detail_width()), nl=False)
    elif output not in ("text", "wide"):
        from kubectl_pd.contract import WHY_PENDING

        doc = {"schemaVersion": WHY_PENDING, "items": items, "notes": [words.text(n) for n in notes]}
        if refused:
            from kubectl_pd.pending.screen_words import list_read

            doc["incomplete"] = [{"read": list_read(str(n.args["kind"]), ns), "error": str(n.args["message"])}
                                 for n in refused]
        if view is not None and view.templated:
            click.echo(view.render(doc, items), nl=False)
        else:
            echo_dump(doc, output)
    elif not pending and not unknown and not refused:
        where = "any namespace" if all_namespaces else f"namespace {ns}"
        click.echo(f"No pending deployments, pod groups or Workloads in {where}.")
    elif pending:
        click.echo(render_list(pending, no_headers=no_headers, width=_detail_width()), nl=False)
    if output in ("text", "wide"):
        for n in notes:
            if n not in refused:  # said once, as the error below
                click.echo(f"note: {words.text(n)}", err=True)
    for e in unknown[1 if not refused else 0:]:
        click.echo(f"error: {words.incomplete(e.target, e.unread)}", err=True)
    if refused:  # kubectl's Forbidden: exit 1, never "nothing pending"
        from kubectl_pd.errors import ForbiddenError
        from kubectl_pd.pending.screen_words import forbidden_lists

        where = "any namespace" if all_namespaces else f"namespace {ns}"
        raise ForbiddenError(forbidden_lists(where, [words.text(n) for n in refused]))
    if unknown:
        raise unknown[0]
    return EXIT_OK


def _detail_width() -> int | None:
    """The DETAIL column is cut to fit a terminal; into a pipe or a file it is whole (kubectl cuts nothing)."""
    import sys

    from kubectl_pd.pending.render import DETAIL_WIDTH

    return DETAIL_WIDTH if sys.stdout.isatty() else None


class Every:
    """What a run with no TARGET found: the pending diagnoses (namespace, diagnosis), the targets whose
    verdict rests on a failed read, the JSON items and ages (when asked) and the run's notes."""

    def __init__(self) -> None:
        self.pending: list[tuple[str, Any]] = []
        self.unknown: list[Any] = []
        self.items: list[dict[str, Any]] = []
        self.ages: list[float | None] = []
        self.notes: list[Any] = []
        self.refused: list[Any] = []  # the run's lists RBAC refused (their notes): what they hold is unknown


def every_verdict(source: Source, ns: str | None, ctx: Context, *, as_json: bool, wide: bool = False,
                  select: Callable[[dict[str, Any]], bool] | None = None) -> Every:
    """Every target of `ns` (None: every namespace) diagnosed, as why-pending with no TARGET does (the
    snapshot command and `-A --watch` call it too, so they read exactly what it reads). AS_JSON: the whole
    JSON items; WIDE: their preemption keys at least, and each target's age; SELECT: -l/--field-selector
    (on a live cluster sent to the server first, pending/narrow.py: the same rows, fewer namespaces read)."""
    from kubectl_pd.pending import narrow
    from kubectl_pd.pending.diagnose import diagnose
    from kubectl_pd.pending.gather import IncompleteError, gather_all, gather_preemption
    from kubectl_pd.pending.preempt import section
    from kubectl_pd.pending.render import to_dict

    sent = narrow.narrowable(source, select)
    got = narrow.gather_selected(source, ns, sent, _target_object) if sent is not None else None
    all_facts, notes = got if got is not None else gather_all(source, ns)
    gather_preemption(source, all_facts, ctx)  # the diagnoses below read nothing
    out = Every()
    out.notes = notes
    out.refused = list({n.args.get("kind"): n for n in notes if n.id == "note.unlisted"}.values())
    if any(n.args.get("kind") == "Workload" for n in out.refused):
        all_facts = []  # every verdict would rest on Workloads that could not be listed: none is given
    all_facts.reverse()
    while all_facts:  # each target's facts are let go once diagnosed: memory holds the answers, not the reads
        f = all_facts.pop()
        if select is not None and not select(_target_object(f)):
            continue
        d = diagnose(f, assign=ctx.assign)
        if not stands(d, f):
            out.unknown.append(IncompleteError(f.target, f.incomplete))
        elif d.pending:
            out.pending.append((f.target.namespace, d))
            if as_json or wide:
                out.items.append({**(to_dict(d) if as_json else {}), **section(ctx, f, text=False)[0]})
                out.ages.append(_age(f) if wide else None)
    return out


def _age(f: Facts) -> float | None:
    """Seconds since the oldest of the target's Workloads was created (None: no timestamp was read)."""
    from kubectl_pd.output.printers import parse_time

    stamps = [parse_time(w.created or "") for w in f.workloads.values() if w is not None]
    known = [t for t in stamps if t is not None]
    return datetime.now(UTC).timestamp() - min(known) if known else None


def _target_object(f: Facts) -> dict[str, Any]:
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


def _watch_all(cluster: ClusterOptions, all_namespaces: bool, view: View, kueue_config: str | None,
               rounds: int | None) -> int:
    """No TARGET with --watch: the pending table, then its changes as Workloads change (pending/watch_all.py);
    redrawn in place on a terminal, else one line per change; -l/--field-selector choose the targets as without
    --watch. Ctrl-C ends it (exit 0)."""
    from kubectl_pd.commands.common import namespace, open_source, use_color
    from kubectl_pd.pending import watch_render
    from kubectl_pd.pending.preempt import context
    from kubectl_pd.pending.render import _one_line
    from kubectl_pd.pending.watch_all import Follow, Rows, changes, follow, rows_of
    from kubectl_pd.pending.words import message

    if view.kind != "text":
        raise click.UsageError("--watch with no TARGET prints the table: -o text only")
    source = open_source(cluster)
    ns = None if all_namespaces else namespace(cluster)
    tty = use_color()  # a terminal that keeps our redraw sequences (kubectl_pd/termsafe.py: not with NO_COLOR)
    drawn = [-1]  # lines of the table last drawn; -1: none yet

    def diagnose() -> Rows:
        every = every_verdict(source, ns, context(source, kueue_config, False), as_json=False,  # fresh reads
                              select=view.select)
        if every.unknown:
            raise every.unknown[0]
        return rows_of(every.pending, lambda r: _one_line(message(r), 90))

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
