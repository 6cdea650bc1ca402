"""`kubectl pd snapshot`: collect exactly what `why-pending` reads for a target (or -A), redacted, for
`why-pending --from-file` to replay with the same verdict."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.options import cluster_options
from kubectl_pd.errors import EXIT_OK
from kubectl_pd.output import stderr

if TYPE_CHECKING:
    from kubectl_pd.multikueue.access import Access
    from kubectl_pd.snapshot.out import Recorder

KUEUE_DEPLOYMENT = "/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager"


@click.command("snapshot", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("target", required=False, metavar="[TARGET]")
@click.option("-A", "--all-namespaces", "all_namespaces", is_flag=True, help="With no TARGET: every namespace.")
@click.option("-o", "--output", "path", required=True, metavar="FILE|DIR",
              help="Where to write: a file (.yaml, or .json for a List), or a directory (one file per kind).")
@click.option("--kueue-config", "kueue_config", metavar="FILE", type=click.Path(dir_okay=False),
              help="As for why-pending: Kueue's configuration from a file (then its ConfigMap is not read).")
@click.option("--holders", is_flag=True, help="Also read what why-pending --holders reads.")
@click.option("--worker-context", "worker_context", multiple=True, metavar="CLUSTER=CONTEXT",
              help="As for why-pending: read the MultiKueue worker CLUSTER through kubeconfig CONTEXT (repeatable).")
@click.option("--worker-contexts-by-name", "by_name", is_flag=True,
              help="As for why-pending: each MultiKueue worker through the context named like it (an opt-in).")
@cluster_options
def snapshot(cluster: ClusterOptions, target: str | None, all_namespaces: bool, path: str,
             kueue_config: str | None, holders: bool, worker_context: tuple[str, ...] = (),
             by_name: bool = False) -> int:
    """Collect the objects a why-pending diagnosis reads, redacted, into FILE or DIR.

    \b
    TARGET: as for why-pending (NAME, md/NAME, workload/NAME, pod/NAME, podgroup/NAME); no TARGET: every
    pending deployment of the namespace (or -A). Replay: kubectl pd why-pending [TARGET] -f FILE|DIR.
    What a diagnosis reads is kept: no Secret, no container args, command, env, probes or lifecycle, no
    annotation but Kueue's, the operator's and ours; credentials in texts redacted. A directory must be new,
    empty or an earlier snapshot's. The first document says what was read, when, from which context.

    \b
    Exit codes: 0 written (reads that failed are listed in the header and on stderr), 1 the target does not
    exist or the file cannot be written, 2 usage.
    """
    from kubectl_pd.commands.common import open_source, worker_access, worker_contexts
    from kubectl_pd.snapshot.out import Recorder

    if target is not None and all_namespaces:
        raise click.UsageError("a TARGET lives in one namespace: use -n, not -A")
    into_dir = path.endswith("/") or os.path.isdir(path)
    if into_dir:
        _owned_files(path)  # refused before anything is read: not ours to write into
    workers = worker_access(cluster, worker_contexts(worker_context, cluster), by_name)  # once: each worker's Source
    started = datetime.now(UTC)
    rec = Recorder(open_source(cluster))
    read_workers: list[dict[str, str]] = []
    unread = _diagnose(cluster, rec, target, all_namespaces, kueue_config, holders,
                       (workers, read_workers))
    header = _header(cluster, rec, target, all_namespaces, started, unread)
    if read_workers:  # which context was read for which MultiKueue worker
        header["workers"] = read_workers
    written = _write(path, header, rec, into_dir)
    from kubectl_pd.snapshot import words as snapshot_words

    for text in snapshot_words.unread_warnings(header):
        stderr.warning(text)
    click.echo(snapshot_words.written(path, written, header))
    return EXIT_OK


Workers = tuple["Access", list[dict[str, str]]]  # how the workers are reached, the workers read (filled)


def _diagnose(cluster: ClusterOptions, rec: Recorder, target: str | None, all_namespaces: bool,
              kueue_config: str | None, holders: bool, workers: Workers | None = None) -> list[dict[str, str]]:
    """The diagnosis why-pending would make, through the recorder; the reads it could not make."""
    from kubectl_pd.commands.common import namespace, parse_target, target_of
    from kubectl_pd.pending import run as pr
    from kubectl_pd.pending.preempt import context
    from kubectl_pd.pending.target import IncompleteError
    from kubectl_pd.pending.words import read_text

    ctx = context(rec, kueue_config, holders)
    unread: list[dict[str, str]] = []
    if target is None:
        every = pr.every(rec, None if all_namespaces else namespace(cluster), ctx, as_json=True)
        for e in every.unknown:
            unread.extend({"read": read_text(u.read), "error": u.why} for u in e.unread)
        return unread
    asked = parse_target(target)
    try:
        _d, facts, _t = pr.one_named(rec, target_of(cluster, rec, (), asked), None, ctx, asked.bare)
    except IncompleteError as e:
        return [{"read": read_text(u.read), "error": u.why} for u in e.unread]
    from kubectl_pd.multikueue.snapshots import record  # MultiKueue: every worker read, into the same file

    access, read = workers or (None, [])
    failed = record(rec, facts, access, read)
    return [{"read": read_text(u.read), "error": u.why} for u in facts.incomplete] + failed


def _header(cluster: ClusterOptions, rec: Recorder, target: str | None, all_namespaces: bool,
            started: datetime, unread: list[dict[str, str]]) -> dict[str, Any]:
    from kubectl_pd import __version__
    from kubectl_pd.cluster import kinds
    from kubectl_pd.cluster.snapshot import HEADER_API_VERSION as API_VERSION
    from kubectl_pd.cluster.snapshot import HEADER_KIND
    from kubectl_pd.commands.common import namespace

    counts: dict[str, int] = {}
    for kind, _ns, _name in rec.objects:
        counts[kind] = counts.get(kind, 0) + 1
    scope = {"target": target, "namespace": namespace(cluster)} if target else \
        {"allNamespaces": True} if all_namespaces else {"namespace": namespace(cluster)}
    return {
        "apiVersion": API_VERSION, "kind": HEADER_KIND, "metadata": {"name": "snapshot"},
        "createdAt": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "collectedBy": f"kubectl-pd {__version__}",
        "context": str(getattr(rec.inner, "context_name", "") or ""),
        "server": _bare_server(str(getattr(rec.inner, "server", "") or "")),
        **scope,
        "kueue": {"apiVersions": _served(rec, kinds.KUEUE_GROUP), "version": _kueue_version(rec)},
        "read": dict(sorted(counts.items())),
        "notServed": list(rec.not_served),
        "unread": _unique(unread),
        "failed": list(rec.failed),
    }


def _scrub_header(header: dict[str, Any], tally: Any) -> None:
    """Every error and status text of the header through the snapshot's redaction (the run's credentials, and
    credentials by shape): a server may echo the request's token in a refusal."""
    from kubectl_pd.snapshot.out import scrub_text

    for row in (*header.get("failed", ()), *header.get("unread", ())):
        for key, value in list(row.items()):
            if isinstance(value, str):
                row[key] = scrub_text(value, tally)


def _unique(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for r in rows:
        if r not in out:
            out.append(r)
    return out


def _bare_server(url: str) -> str:
    """The server URL without any user:password@ part (a kubeconfig may hold one)."""
    from urllib.parse import urlsplit, urlunsplit

    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _served(rec: Recorder, group: str) -> list[str]:
    from kubectl_pd.errors import PdError

    served = getattr(rec.inner, "served_versions", None)
    if served is None:
        return []
    try:
        return list(served(group))
    except PdError:
        return []


def _kueue_version(rec: Recorder) -> str:
    """The tag of Kueue's controller image (kueue-system/kueue-controller-manager), else "unknown"."""
    from kubectl_pd.errors import PdError

    if not rec.inner.is_live:  # a snapshot of a snapshot: no server to ask
        return "unknown"
    try:
        doc = rec.inner.get_raw(KUEUE_DEPLOYMENT, resource="deployments", namespace="kueue-system")
    except PdError:
        return "unknown"
    containers = ((((doc or {}).get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers")
    for c in containers if isinstance(containers, list) else []:
        image = c.get("image") if isinstance(c, dict) else None
        if isinstance(image, str) and "kueue" in image and ":" in image.rsplit("/", 1)[-1]:
            return image.rsplit(":", 1)[-1]
    return "unknown"


MARKER = "kubectl-pd-snapshot.list"  # in a snapshot directory: the files the last snapshot wrote there


def _owned_files(path: str) -> list[str]:
    """The files of an earlier snapshot in directory `path` (none when it is new or empty). A directory that
    holds anything else (no marker, or a file the marker does not list) is refused: a snapshot never mixes
    with other files, whose objects a replay would read as the cluster's."""
    from kubectl_pd.errors import PdError
    from kubectl_pd.snapshot import words as snapshot_words

    try:
        entries = sorted(os.listdir(path))
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise PdError(snapshot_words.not_a_directory(path)) from None
    except OSError as e:
        raise PdError(f"cannot write {path}: {e.strerror or e}") from None
    if not [e for e in entries if not _our_temporary(e, [])]:
        return []  # empty, or only what a run killed while writing the marker left
    if MARKER not in entries:
        raise PdError(snapshot_words.not_ours(path, entries))
    try:
        with open(os.path.join(path, MARKER), encoding="utf-8") as fh:
            owned = [ln.strip() for ln in fh.read(1 << 16).splitlines() if ln.strip() and not ln.startswith("#")]
    except (OSError, UnicodeDecodeError) as e:
        raise PdError(f"cannot read {os.path.join(path, MARKER)}: {getattr(e, 'strerror', None) or e}") from None
    owned = [n for n in owned if n not in (".", "..", MARKER) and os.sep not in n and "/" not in n]
    foreign = [e for e in entries if e != MARKER and e not in owned and not _our_temporary(e, owned)]
    if foreign:
        raise PdError(snapshot_words.not_ours(path, foreign))
    return [e for e in entries if e in owned]


def _our_temporary(entry: str, owned: list[str]) -> bool:
    """A temporary file a killed snapshot left (kubectl_pd/atomic.py: `.NAME.*.tmp`) beside a file it owns."""
    return entry.endswith(".tmp") and any(entry.startswith(f".{n}.") for n in (*owned, MARKER))


def _write(path: str, header: dict[str, Any], rec: Recorder, into_dir: bool) -> dict[str, int]:
    """The header and the redacted objects, to a file or (an existing directory, or a path ending in /) one
    file per kind; every file replaced atomically. How many objects and redacted values were written."""
    from kubectl_pd import atomic
    from kubectl_pd.commands.common import to_json, to_yaml
    from kubectl_pd.errors import PdError
    from kubectl_pd.snapshot.out import objects

    objs, tally = objects(rec)
    _scrub_header(header, tally)
    header["redactedValues"] = sum(tally.redacted.values())
    header["redaction"] = tally.header()
    try:
        if into_dir:
            _write_dir(path, header, objs, to_yaml)
        elif path.lower().endswith(".json"):
            atomic.write(path, to_json({"apiVersion": "v1", "kind": "List", "items": [header, *objs]}))
        else:
            atomic.write(path, _yaml_stream([header, *objs], to_yaml))
    except OSError as e:
        raise PdError(f"cannot write {path}: {e.strerror or e}") from None
    return {"objects": len(objs), "redacted": header["redactedValues"], "dropped": sum(tally.dropped.values())}


def _write_dir(path: str, header: dict[str, Any], objs: list[Any], to_yaml: Any) -> None:
    """00-snapshot.yaml and a file per kind; the marker lists them (and, while they are written, the older
    snapshot's too, so a kill leaves nothing unlisted); an older snapshot's files not written again removed."""
    from kubectl_pd import atomic

    old = _owned_files(path)  # again: the directory may have changed while the cluster was read
    os.makedirs(path, exist_ok=True)
    by_kind: dict[str, list[Any]] = {}
    for o in objs:
        by_kind.setdefault(str(o["kind"]), []).append(o)
    files = {"00-snapshot.yaml": to_yaml(header)}
    for kind, items in by_kind.items():
        files[f"{kind.lower()}.yaml"] = _yaml_stream(items, to_yaml)
    marker = os.path.join(path, MARKER)
    atomic.write(marker, _marker_text(sorted(set(old) | set(files))))
    for name, text in files.items():
        atomic.write(os.path.join(path, name), text)
    for name in old:
        if name not in files:
            try:
                os.unlink(os.path.join(path, name))
            except FileNotFoundError:
                pass
    atomic.write(marker, _marker_text(sorted(files)))


def _marker_text(names: list[str]) -> str:
    return "# kubectl pd snapshot: the files of the snapshot in this directory\n" + "".join(f"{n}\n" for n in names)


def _yaml_stream(docs: list[Any], to_yaml: Any) -> str:
    """One YAML stream, every document opened by `---` (one dump for all: not one per object)."""
    import yaml  # type: ignore[import-untyped]

    from kubectl_pd.output.dump import yaml_dumper

    return str(yaml.dump_all(docs, Dumper=yaml_dumper(), sort_keys=False, default_flow_style=False,
                             allow_unicode=True, width=1_000_000, explicit_start=True))
