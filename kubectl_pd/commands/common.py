"""Pieces every command shares: opening a Source, the namespace, colour; the document forms (output/dump.py)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING

from kubectl_pd.cluster.config import ClusterOptions, default_namespace
from kubectl_pd.output.dump import dump, echo_dump, json_pieces, to_json, to_yaml

__all__ = ["dump", "echo_dump", "json_pieces", "namespace", "open_files", "open_live", "open_source",
           "parse_target", "target_of", "to_json", "to_yaml", "use_color"]

if TYPE_CHECKING:  # create --dry-run never needs it at run time
    from kubectl_pd.cluster.live import LiveSource
    from kubectl_pd.cluster.protocols import Source
    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.multikueue.access import Access
    from kubectl_pd.pending.run import Asked
    from kubectl_pd.pending.target import Target


def open_source(cluster: ClusterOptions, files: Sequence[str] = ()) -> Source:
    """Files when given (`-f`/`--from-file`), else the live cluster of the chosen context."""
    return open_files(files) if files else open_live(cluster)


def open_manager(cluster: ClusterOptions, files: Sequence[str] = ()) -> Source:
    """open_source, with a MultiKueue snapshot's worker copies set aside (objects marked with their worker's
    cluster): the commands that read one cluster (queues, capacity, tree) see the manager's objects only, never a
    worker's ClusterQueue as the manager's. why-pending replays the workers itself (multikueue/snapshots.split)."""
    source = open_source(cluster, files)
    if not files:
        return source
    from kubectl_pd.multikueue.snapshots import split

    return split(source)[0]


def open_files(files: Sequence[str]) -> SnapshotSource:
    """The snapshot in FILES (kubectl get -o yaml output, Lists, directories, - for stdin), within --max-input."""
    import click

    from kubectl_pd.cluster.snapshot import DEFAULT_MAX_INPUT, SnapshotSource
    from kubectl_pd.commands.options import INPUT_LIMIT

    ctx = click.get_current_context(silent=True)
    limit = ctx.meta.get(INPUT_LIMIT, DEFAULT_MAX_INPUT) if ctx is not None else DEFAULT_MAX_INPUT
    return SnapshotSource.from_paths(files, max_bytes=limit)


def open_live(cluster: ClusterOptions) -> LiveSource:
    """The live cluster of the chosen context."""
    from kubectl_pd.cluster.live import LiveSource

    return LiveSource(cluster)


def namespace(cluster: ClusterOptions) -> str:
    return default_namespace(cluster)


def parse_target(target: str | None, *, bare_forms: bool = True) -> Asked:
    """TARGET parsed (pending/run.py), a bad one refused as kubectl refuses a bad argument (exit 2)."""
    import click

    from kubectl_pd.pending.run import parse

    try:
        return parse(target, bare_forms=bare_forms)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'TARGET'") from None


def target_of(cluster: ClusterOptions, source: Source, files: Sequence[str], asked: Asked) -> Target:
    """The target in its namespace (pending/run.py's `target_of`: -n, the snapshot's, the context's); a target
    several namespaces of a snapshot hold is a usage error (choose one with -n)."""
    import click

    from kubectl_pd.pending.run import Ambiguous
    from kubectl_pd.pending.run import target_of as resolve

    try:
        return resolve(asked, source, cluster.namespace, tuple(files), lambda: namespace(cluster))
    except Ambiguous as e:
        raise click.UsageError(str(e)) from None


def use_color(stream: IO[str] | None = None) -> bool:
    """Colour as --color says (termsafe.color_on: auto is a terminal with NO_COLOR unset; always wins over
    NO_COLOR; never)."""
    from kubectl_pd.termsafe import color_on

    return color_on(stream or sys.stdout)


def worker_contexts(values: tuple[str, ...], cluster: ClusterOptions, offline: bool = False) -> dict[str, str]:
    """--worker-context CLUSTER=CONTEXT as a mapping, the same for every command that reads MultiKueue workers
    (why-pending, snapshot, mcp); a malformed value, or (live) a context the kubeconfig lacks, is a usage error
    before any read."""
    if not values:  # the usual run: nothing to check, nothing imported before the first read (issue 49)
        return {}
    import click

    from kubectl_pd.multikueue.section import mapping
    from kubectl_pd.multikueue.words import unmatched as said

    try:
        out = mapping(values)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--worker-context'") from None
    have = _contexts(cluster) if out and not offline else None
    missing = sorted({c for c in out.values() if c not in have}) if have is not None else []
    if missing:
        raise click.BadParameter(said(missing), param_hint="'--worker-context'")
    return out


def _contexts(cluster: ClusterOptions) -> frozenset[str] | None:
    """The context names of the user's kubeconfig; None when it cannot be read (its own error comes with the first
    read)."""
    from kubectl_pd.cluster.config import read_kubeconfig
    from kubectl_pd.errors import PdError

    try:
        return frozenset(str(c.get("name")) for c in read_kubeconfig(cluster)["contexts"] if isinstance(c, dict))
    except (PdError, OSError):
        return None


def worker_access(cluster: ClusterOptions | None, mapping: Mapping[str, str], by_name: bool) -> Access:
    """How MultiKueue's workers are reached, built once in a command's complete() (kueuectl's client getter): each
    worker a live Source of the user's context, with the same kubeconfig files and timeout and none of the manager's
    overrides (--server, --token, --as ... name the manager's cluster and user); the kubeconfig's context names read
    once, for --worker-contexts-by-name. CLUSTER None (a snapshot): no worker is opened."""
    from kubectl_pd.multikueue.access import Access, no_worker

    if cluster is None:
        return Access(no_worker, frozenset(), dict(mapping), by_name)
    kubeconfig, timeout = cluster.kubeconfig, cluster.request_timeout

    def open_worker(context: str) -> Source | None:
        from kubectl_pd.cluster.live import LiveSource

        return LiveSource(ClusterOptions(kubeconfig=kubeconfig, context=context, request_timeout=timeout))

    contexts = (_contexts(cluster) or frozenset()) if by_name else frozenset()
    return Access(open_worker, contexts, dict(mapping), by_name)
