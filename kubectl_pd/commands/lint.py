"""`kubectl pd lint`: find ClusterQueues, Cohorts and ModelDeployments that Kueue or the GPUStack
webhook would refuse, point at file:line, and print the repair (--diff, --fix, --fix -o patch)."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.commands.common import namespace, open_files, open_live, to_json, to_yaml, use_color
from kubectl_pd.commands.options import COLOR, NO_HEADERS, SORT_BY, OutputType, cluster_options, output_spec
from kubectl_pd.errors import EXIT_FAILED, EXIT_OK, InputError, PdError
from kubectl_pd.kueue import versions
from kubectl_pd.lint import baseline as baseline_mod
from kubectl_pd.lint.context import LintContext, Malformed
from kubectl_pd.lint.engine import LintResult, lint_objects, ref_of
from kubectl_pd.lint.findings import format_path
from kubectl_pd.lint.fix import Fix, apply_fix, original_document, patch_of, plan_fix
from kubectl_pd.lint.gather import Gathered, gather_files, gather_live
from kubectl_pd.lint.limits import limits_for, parse_version
from kubectl_pd.lint.report import (
    join_documents,
    object_label,
    render_data,
    render_github,
    render_junit,
    render_sarif,
    render_text,
    unified_diff,
)

if TYPE_CHECKING:
    from kubectl_pd.output.printers import Printer, View

OUTPUTS = ("text", "json", "yaml", "sarif", "junit", "github", "patch", "name")
_STYLES: dict[str, dict[str, Any]] = {"error": {"fg": "red", "bold": True}, "warning": {"fg": "yellow", "bold": True},
           "bold": {"bold": True}, "dim": {"dim": True}}


_SGR = {"red": 31, "yellow": 33}


def _style(text: str, role: str) -> str:
    """click.style's sequences, marked as ours (kubectl_pd/termsafe.py: the edge escapes any other)."""
    from kubectl_pd.termsafe import sgr

    style = _STYLES.get(role, {})
    codes = ([_SGR[style["fg"]]] if "fg" in style else []) + ([1] if style.get("bold") else []) + \
        ([2] if style.get("dim") else [])
    return "".join(sgr(c) for c in codes) + text + sgr(0) if codes else text


def _kueue_version(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    try:
        return parse_version(value)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--kueue-version'") from None


def _served_target(source: Source) -> versions.KueueLine:
    """The Kueue version by API discovery (one GET /apis/kueue.x-k8s.io, cached by the source); any failure
    leaves the default, which asserts nothing that needs the version."""
    try:
        served = source.served_versions(versions.KUEUE_GROUP)
    except PdError:
        return versions.DEFAULT_TARGET
    return versions.DEFAULT_TARGET if served is None else versions.from_served(served)


def _check_flags(output: str | None, diff: bool, fix: bool, baseline: str | None = None,
                 write_baseline: str | None = None) -> str:
    if diff and fix:
        raise click.UsageError("--diff and --fix do not go together: --diff shows the fix, --fix prints it")
    # refused rather than half-applied: a fix rewrites whole objects (every finding of a queue's resource
    # groups at once), so "fix only the new findings" has no honest meaning, and ignoring the flag would
    # print fixes of baselined findings to a user who asked not to hear about them
    for flag, given in (("--baseline", baseline), ("--write-baseline", write_baseline)):
        if given and (fix or diff):
            raise click.UsageError(f"{flag} does not go with {'--fix' if fix else '--diff'}: a fix rewrites "
                                   f"whole objects, baselined findings included; run them separately")
    if write_baseline == "-" and output is not None:
        raise click.UsageError(f"--write-baseline - writes the baseline to stdout: it does not go with -o {output}")
    if fix:
        if output in (None, "yaml", "json", "patch"):
            return output or "yaml"
        raise click.UsageError(f"--fix prints yaml, json or patch, not {output}")
    if output == "patch":
        raise click.UsageError("-o patch needs --fix (kubectl pd lint --fix -o patch)")
    if diff and output not in (None, "text"):
        raise click.UsageError("--diff prints a unified diff; leave out -o")
    return output or "text"


@contextmanager
def loading_heap() -> Iterator[None]:
    """Build a large, long-lived object graph without the cyclic GC rescanning it.

    Reading builds millions of containers for 2,000 queues (data and its line index); each full
    collection walks them all. Nothing read is garbage, so collection is paused while reading and
    what was read is frozen out of later collections, while the rules run.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


def _note(text: str) -> None:
    click.echo(f"note: {text}", err=True)


def _run_checks(gathered: Gathered, source: Source) -> LintResult:
    try:
        return lint_objects(gathered.objects, gathered.ctx, origin_of=source.origin)
    except Malformed as e:
        origin = source.origin(e.obj)
        line = origin.line_of(e.path)
        where = origin.file if line is None else f"{origin.file}:{line}"
        raise InputError(f"{where}: {object_label(ref_of(e.obj))}: {e.message}") from None


def _before_after(fix: Fix, source: Source) -> tuple[dict, dict]:
    """The object as written (or as served) and the same with the fix applied."""
    before = original_document(fix.before, source.origin(fix.before).raw)
    return before, apply_fix(fix, before)


def _manifest(fix: Fix, source: Source) -> dict:
    obj = _before_after(fix, source)[1]
    if source.is_live:
        obj = {k: v for k, v in obj.items() if k != "status"}
        meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
        obj["metadata"] = meta
    return obj


def _plan(gathered: Gathered, result: LintResult) -> list[Fix]:
    """A fix plan for every object with a finding, in the order they were read."""
    flagged = {f.obj for f in result.findings}
    return [plan_fix(o, gathered.ctx) for o in gathered.objects if ref_of(o) in flagged]


def _report_unfixable(fixes: list[Fix]) -> bool:
    """Say which errors no rewrite repairs; True when any remain."""
    any_left = False
    for fx in fixes:
        if not fx.remaining:
            continue
        any_left = True
        if fx.after is None and fx.changes:
            _note(f"{object_label(fx.ref)}: no automatic fix: after the rewrite ({'; '.join(fx.changes)}) "
                  f"these errors remain and need a decision:")
        elif fx.after is None:
            _note(f"{object_label(fx.ref)}: no automatic fix; these errors need a decision:")
        elif fx.changed:
            _note(f"{object_label(fx.ref)}: the fix leaves errors about other objects:")
        else:
            _note(f"{object_label(fx.ref)}: nothing to rewrite, but it refers to objects that do not exist:")
        for f in fx.remaining:
            click.echo(f"  {f.rule_id} {f.rule.name} {format_path(f.path)}: {f.message}", err=True)
    return any_left


@click.command("lint")
@click.option("-f", "--filename", "--from-file", "files", multiple=True, metavar="PATH",
              type=click.Path(allow_dash=True),
              help="Files, directories (recursive *.yaml|*.yml|*.json) or - for stdin. Default: the cluster.")
@click.option("-A", "--all-namespaces", is_flag=True,
              help="Live: ModelDeployments and the PD frameworks' objects of every namespace.")
@click.option("-o", "--output", type=OutputType(OUTPUTS), default=None,
              help="text (default), json, yaml, sarif, junit, github, name (the objects with findings), "
                   "jsonpath=, jsonpath-file=, custom-columns= (a row per finding), custom-columns-file= "
                   "(docs/output.md); with --fix: yaml (default), json or patch.")
@NO_HEADERS
@SORT_BY
@COLOR
@click.option("--diff", is_flag=True, help="Print a unified diff of each object the fix changes.")
@click.option("--fix", is_flag=True, help="Print the fixed manifests (or a JSON patch with -o patch).")
@click.option("--kueue-version", metavar="VERSION",
              help="The Kueue to lint for, e.g. 0.19 or 0.20 (default: live, what the cluster serves; files, the "
                   "newest known). 0.20+: v1beta1 is refused (PD412), ConcurrentAdmission allows 32 flavors; "
                   "below 0.14: 16 flavors per group.")
@click.option("--api-profile", type=click.Choice(["auto", "pd-atomic", "per-replica"]), default="auto",
              show_default=True,
              help="ModelDeployment API: auto picks per-replica when the installed CRD (or one in the "
                   "files) gives roles a size, else pd-atomic.")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option("--baseline", "baseline", metavar="FILE", type=click.Path(dir_okay=False),
              help="Report and fail only on findings this baseline does not record (rule, object, path); "
                   "not with --fix or --diff.")
@click.option("--write-baseline", "write_baseline", metavar="FILE", type=click.Path(dir_okay=False),
              help="Record today's findings in FILE (then use --baseline FILE); exits 0.")
@click.option("--crd", "crds", multiple=True, metavar="PATH", type=click.Path(allow_dash=False),
              help="CRD files (kubectl get crd NAME -o yaml) whose schema and CEL rules objects are checked "
                   "against (PD501/PD502). Repeatable. Live mode reads the installed CRDs.")
@click.option("--feature-gates", "feature_gates", metavar="GATES",
              help="Kueue's feature gates as the cluster runs them, e.g. ConcurrentAdmission=true: "
                   "gated rules (PD410) run only when their gate is on.")
@cluster_options
def lint(cluster: ClusterOptions, files: tuple[str, ...], all_namespaces: bool, output: str | None,
         diff: bool, fix: bool, kueue_version: str | None, api_profile: str, strict: bool,
         baseline: str | None = None, write_baseline: str | None = None, feature_gates: str | None = None,
         crds: tuple[str, ...] = (), no_headers: bool = False, sort_by: str | None = None) -> int:
    """Find ClusterQueues, Cohorts and ModelDeployments Kueue or the webhook would refuse.

    \b
    kubectl pd lint -f queues.yaml             findings with file:line
    kubectl pd lint -f queues.yaml --diff      the repair as a unified diff
    kubectl pd lint --fix -o patch             JSON patches for kubectl patch --type=json
    kubectl pd lint -A -o sarif > lint.sarif   the live cluster, for code scanning

    Exit status: 0 no error finding (no warning either with --strict), 1 error findings (with
    --fix: errors no rewrite repairs; with --diff: any difference), 2 bad flags or malformed input.
    """
    from kubectl_pd.output.printers import View  # noqa: F811 - at run time, loaded here

    spec = output_spec(output) if output else None
    fmt = _check_flags(spec.kind if spec else None, diff, fix, baseline, write_baseline)
    view = View(spec or output_spec(fmt), no_headers, sort_by)  # the one printer's choice (_findings_printer)
    ctx = LintContext(limits=limits_for(_kueue_version(kueue_version)), feature_gates=_gates(feature_gates))
    if kueue_version is not None:
        ctx.kueue = versions.from_flag(kueue_version)
    known = _read_baseline(baseline) if baseline else None
    if api_profile != "auto":
        ctx.profile = api_profile
    try:
        with loading_heap():
            source: Source
            if files:
                source = snapshot = open_files(files)
                gathered = gather_files(snapshot, ctx, api_profile)
            else:
                source = open_live(cluster)
                ns = None if all_namespaces else namespace(cluster)
                gathered = gather_live(source, ctx, api_profile, ns)
                if kueue_version is None:
                    ctx.kueue = _served_target(source)
            _load_schemas(gathered, source, crds, live=not files)
        for n in gathered.notes:
            _note(n)
        result = _run_checks(gathered, source)
        if not result.linted and files:
            _note("the input holds no ClusterQueue, Cohort or ModelDeployment to lint "
                  "(e.g. kubectl get clusterqueues -o yaml > queues.yaml)")
        for u in result.unknown_suppressions:
            _note(f"unknown rule in kubectl-pd.io/ignore on {u}")
        _note_unchecked(result.unchecked)
        for u in result.unjudged:
            _note(f"not checked on {u}")
        if fix or diff:
            return _repair(gathered, result, source, view, diff)
        if write_baseline:
            _write_baseline(write_baseline, result)
        if known is not None:
            _apply_baseline(result, known, baseline or "")
        if write_baseline == "-":  # stdout holds the baseline, and only it
            return EXIT_OK
        code = _report(result, view, strict)
        return EXIT_OK if write_baseline else code
    finally:
        gc.unfreeze()  # for callers that run the command in process (tests); free in a real run


def _note_unchecked(unchecked: list[tuple[str, str]]) -> None:
    """One note per CEL rule that could not run, naming the object, or how many objects it concerns."""
    by_rule: dict[str, list[str]] = {}
    for obj, rest in unchecked:
        by_rule.setdefault(rest, []).append(obj)
    for rest, objs in by_rule.items():
        who = objs[0] if len(objs) == 1 else f"{len(objs)} objects ({objs[0]}, ...)"
        _note(f"not checked on {who}: {rest}")


def _load_schemas(gathered: Gathered, source: Source, crds: tuple[str, ...], live: bool) -> None:
    """CRD schemas for PD501/PD502: --crd files, then (live) the installed CRDs; lazily imported."""
    if not crds and not live:
        return
    from kubectl_pd.lint.schema import sources

    ctx = gathered.ctx
    if crds:
        ctx.schemas = sources.from_files(crds, ctx.schemas)
    if live:
        kinds = {str(o.get("kind")) for o in gathered.objects}
        ctx.schemas = sources.from_cluster(source, kinds, ctx.schemas, gathered.notes)


def _gates(text: str | None) -> dict[str, bool]:
    """`A=true,B=false` (Kueue's --feature-gates syntax) -> {A: True, B: False}."""
    out: dict[str, bool] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if not sep or value.strip().lower() not in ("true", "false") or not name.strip():
            raise click.BadParameter(f"{item!r} is not NAME=true|false", param_hint="'--feature-gates'")
        out[name.strip()] = value.strip().lower() == "true"
    return out


def _read_baseline(file: str) -> Counter[baseline_mod.Key]:
    from kubectl_pd import atomic

    if atomic.same_as_stdout(file):
        raise InputError(f"{file}: the baseline is also the standard output (the shell emptied it before "
                         f"kubectl-pd ran): redirect the output to another file")
    try:
        with open(file, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        raise InputError(f"{file}: cannot read the baseline: {e.strerror}") from None
    return baseline_mod.parse(text, file)


def _write_baseline(file: str, result: LintResult) -> None:
    """The baseline replaced atomically (kubectl_pd/atomic.py): a kill, Ctrl-C or full disk while writing
    leaves the old one whole. `-`: stdout, and then nothing else is printed there."""
    from kubectl_pd import atomic

    text = baseline_mod.render(result.findings)
    try:
        atomic.write(file, text)
    except OSError as e:
        if file == "-":
            raise
        raise InputError(f"{file}: cannot write the baseline: {e.strerror or e} (the old file, if any, is "
                         f"unchanged)") from None
    n = len(result.findings)
    _note(f"wrote {n} finding{'s' if n != 1 else ''} to {'stdout' if file == '-' else file}")


def _apply_baseline(result: LintResult, known: Counter[baseline_mod.Key], file: str) -> None:
    """Keep only new findings; say how many recorded ones are gone (fixed: the baseline can shrink)."""
    applied = baseline_mod.apply(result.findings, known)
    result.findings = applied.new
    result.baselined = applied.known
    if applied.gone:
        _note(f"{applied.gone} finding{'s' if applied.gone != 1 else ''} in {file} no longer occur: "
              f"refresh it with --write-baseline {file}")


def _report(result: LintResult, view: View, strict: bool) -> int:
    """Findings in the chosen format; exit 1 on errors (and on warnings with --strict)."""
    _findings_printer(view).write(result)
    if result.errors or result.unread or (strict and result.warnings):  # a refused read: its part is unknown
        return EXIT_FAILED
    return EXIT_OK


def _findings_printer(view: View) -> Printer:
    """The findings' printer: lint's own forms (text, sarif, junit, github, name), else its -o json document with
    the findings in --sort-by order (a row per finding for jsonpath and custom-columns)."""

    def text(result: LintResult) -> str:
        return render_text(result, _style) if use_color() else render_text(result)

    def document(result: LintResult) -> tuple[dict[str, Any], list[Any]]:
        data = render_data(result)
        findings = data["findings"]
        data["findings"] = [findings[i] for i in view.order(findings)]
        return data, data["findings"]

    def names(result: LintResult) -> str:
        """Each object with findings once, as kubectl names it."""
        from kubectl_pd.cluster import kinds

        out = []
        for f in document(result)[1]:
            obj = f["object"]
            k = kinds.lookup(str(obj["kind"]))
            out.append(f"{obj['kind'].lower()}{'.' + k.group if k is not None and k.group else ''}/{obj['name']}")
        return "".join(n + "\n" for n in dict.fromkeys(out))

    return view.to_printer({"text": text, "name": names, "sarif": lambda r: to_json(render_sarif(r)),
                            "junit": render_junit, "github": render_github}, document)


def _repair(gathered: Gathered, result: LintResult, source: Source, view: View, diff: bool) -> int:
    """--diff or --fix: the rewrite of every object that has one, and a note for what remains."""
    fixes = _plan(gathered, result)
    changed = [fx for fx in fixes if fx.changed]
    if diff:
        for fx in changed:
            before, after = _before_after(fx, source)
            click.echo(unified_diff(to_yaml(before), to_yaml(after), object_label(fx.ref)), nl=False)
    else:
        _fixes_printer(view, source).write(changed)
    for fx in changed:
        _note(f"{object_label(fx.ref)}: " + "; ".join(fx.changes))
    left = _report_unfixable(fixes)
    if not changed and not left:
        _note("nothing to fix")
    if diff:  # kubectl diff's convention: 1 when there is a difference
        return EXIT_FAILED if changed or left else EXIT_OK
    return EXIT_FAILED if left else EXIT_OK


def _fixes_printer(view: View, source: Source) -> Printer:
    """--fix's printer: the rewritten objects as YAML documents (the default), their JSON patches (-o patch), or
    a List of them (-o json)."""

    def documents(changed: list[Fix]) -> str:
        return join_documents(to_yaml(_manifest(fx, source)) for fx in changed)

    def patches(changed: list[Fix]) -> str:
        return to_json([{"apiVersion": fx.before.get("apiVersion"), "kind": fx.ref.kind, "name": fx.ref.name,
                         "namespace": fx.ref.namespace, "patch": patch_of(fx, _before_after(fx, source)[0])}
                        for fx in changed])

    def document(changed: list[Fix]) -> tuple[dict[str, Any], list[Any]]:
        items = [_manifest(fx, source) for fx in changed]
        return {"apiVersion": "v1", "kind": "List", "items": items}, items

    return view.to_printer({"yaml": documents, "patch": patches}, document)
