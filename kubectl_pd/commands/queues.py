"""`kubectl pd queues`: quota per ClusterQueue and flavor, the cohort tree and who borrows from whom."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.options import COLOR, cluster_options, output_spec
from kubectl_pd.errors import EXIT_OK, ForbiddenError, PdError

if TYPE_CHECKING:
    from kubectl_pd.queues.answer import Answer

# What `--watch` sleeps with between reads: the seam through which tests replace time.
SLEEP: Callable[[float], None] = time.sleep


@click.command("queues", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-A", "--all-namespaces", "all_namespaces", is_flag=True, default=True,
              help="Every ClusterQueue (the default: ClusterQueues are cluster-scoped).")
@click.option("-f", "--from-file", "files", multiple=True, metavar="PATH", type=click.Path(allow_dash=True),
              help="Read a snapshot (kubectl get -o yaml output, kubectl pd snapshot, directories, -). Repeatable.")
@click.option("-o", "--output", type=click.Choice(("text", "wide", "json", "yaml")), default="text",
              show_default=True, help="Output format.")
@click.option("-w", "--watch", is_flag=True, help="After the table, print the rows that change (Ctrl-C to stop).")
@click.option("--watch-interval", type=click.FloatRange(0.05, 600), default=2.0, hidden=True)
@click.option("--watch-rounds", type=click.IntRange(1), default=None, hidden=True)
@COLOR
@cluster_options
def queues(cluster: ClusterOptions, all_namespaces: bool, files: tuple[str, ...], output: str, watch: bool,
           watch_interval: float, watch_rounds: int | None) -> int:
    """Quota per ClusterQueue and flavor: nominal, used, reserved, borrowed, lent, free, pending and admitted
    Workloads; the cohort tree with who borrows from whom; inactive queues with their reason.

    \b
    The figures are why-pending's quota bars'. On a terminal each flavor gets a bar over its nominal quota:
    '#' admitted, '=' reserved, '.' free, '!' after it when the queue borrows (why-pending's symbols).
    Exit codes: 0 printed, 1 a read failed, 2 usage.
    """
    from kubectl_pd.commands.common import open_manager

    if watch and (files or output in ("json", "yaml")):
        raise click.UsageError("--watch follows a live cluster in the text or wide output")
    source = open_manager(cluster, files)
    answer = read(source)
    from kubectl_pd.output.printers import View
    from kubectl_pd.queues.document import to_dict

    View(output_spec(output)).to_printer({"text": lambda a: _table(a, False), "wide": lambda a: _table(a, True)},
                                         lambda a: (to_dict(a), [to_dict(a)])).write(answer)
    _fail_if_incomplete(answer)
    if watch:
        try:
            return _watch(source, answer, output == "wide", watch_interval, watch_rounds)
        except KeyboardInterrupt:  # Ctrl-C ends the watch: exit 0, as why-pending --watch ends (both forms)
            return EXIT_OK
    return EXIT_OK


def read(source: Any) -> Answer:
    """Every ClusterQueue and Cohort, one list each (paged by the Source), into the run's one record."""
    from kubectl_pd.cluster import engine_reads
    from kubectl_pd.queues.answer import answer

    unread: list[tuple[str, str]] = []

    def lister(kind: str) -> list[Any] | None:
        if kind == "ClusterQueue":
            return source.list(kind)  # type: ignore[no-any-return]  # refused: the whole answer fails, as kubectl get
        try:
            return source.list(kind)  # type: ignore[no-any-return]
        except (ForbiddenError, PdError) as e:
            unread.append(("Cohorts", e.message))
            return None

    got = engine_reads.read(lister, source.is_live, list_flavors=False)  # every queue; the list is every peer
    assert got is not None  # the ClusterQueue list raises when refused
    return answer(got.snapshot(), unread)


def _table(a: Answer, wide: bool) -> str:
    """The table (bars on a terminal); none, as kubectl says on stderr, when there is no ClusterQueue."""
    from kubectl_pd.queues.words import render

    if not a.cluster_queues:
        click.echo("No resources found", err=True)
        return ""
    import sys

    return render(a, wide, sys.stdout.isatty())


def _fail_if_incomplete(a: Answer) -> None:
    from kubectl_pd.queues.words import unread

    if rows := unread(a):
        from kubectl_pd.pending.screen_words import could_not_read

        raise PdError(could_not_read(rows))


def _watch(source: Any, answer: Answer, wide: bool, interval: float, rounds: int | None) -> int:
    """Re-read every `interval` seconds and print each row that changed, as `kubectl get -w` prints updates."""
    from kubectl_pd.queues.words import changed, rows, table

    seen = {tuple(r[:4]): r for r in rows(answer, wide, False)}
    n = 0
    while rounds is None or n < rounds:
        n += 1
        SLEEP(interval)
        now = read(source)
        new = [r for r in rows(now, wide, False) if seen.get(tuple(r[:4])) != r]
        if new:
            click.echo(table(changed(now, {r[0] for r in new}), wide, False, header=False), nl=False)
            seen.update({tuple(r[:4]): r for r in new})
    return EXIT_OK
