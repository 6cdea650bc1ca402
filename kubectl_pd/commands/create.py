"""`kubectl pd create`: flags in, a ModelDeployment (or the seed's pod group) out, checked first.

The shell: parse flags, call the pure core in kubectl_pd.create, talk to the cluster, print, and pick
the exit code. Validation problems are exit 1 and come before any request; malformed flag syntax is
exit 2.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.common import namespace, use_color
from kubectl_pd.commands.options import OutputType, checked_duration, cluster_options, output_spec
from kubectl_pd.create import flags
from kubectl_pd.create.flags import CreateRequest, Role, RoleSpec
from kubectl_pd.create.role_flag import RoleType
from kubectl_pd.errors import ClusterError, ConflictError, ForbiddenError, InputError, PdError
from kubectl_pd.gpustack.lines import DEFAULT as DEFAULT_LINE
from kubectl_pd.gpustack.lines import NAMES as LINE_NAMES
from kubectl_pd.gpustack.lines import lines_help
from kubectl_pd.gpustack.profiles import API_VERSIONS, CRD_NAME, GROUP, ApiProfile, ProfileError, from_crd, offline
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.output import stderr
from kubectl_pd.records import dataclass

if TYPE_CHECKING:
    from kubectl_pd.cluster.live import LiveSource
    from kubectl_pd.output.printers import View

MD_RESOURCE = "modeldeployment.worker.gpustack.ai"
DEFAULT_WAIT = "5m"
POLL_INTERVAL = 1.0


def _env_pair(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for v in values:
        key, eq, val = v.partition("=")
        if not eq or not key:
            raise click.BadParameter(f"{v!r} is not K=V", ctx=ctx, param=param)
        out.append((key, val))
    return tuple(out)


def _fail(problems: list[str], suffix: str = "") -> None:
    """Every problem on its own `error:` line; the last one is raised so main() sets the exit code."""
    for p in problems[:-1]:
        stderr.error(p)
    raise PdError(problems[-1] + suffix)


def _warn(message: str) -> None:
    stderr.warning(message)


@click.command("create", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.argument("name")
@click.option("--model", required=True, metavar="MODEL", help="The model id the engine serves (spec.model.name).")
@click.option("--engine", default="vllm", show_default=True, metavar="vllm|sglang",
              help="Inference engine (spelled as the installed CRD spells it).")
@click.option("--engine-version", metavar="V", help="Engine version; needed when a role names no image.")
@click.option("--engine-image", metavar="IMAGE", help="The engine's runner image (spec.engine.image), which the v1 "
                                                      "API requires.")
@click.option("--role", "roles", multiple=True, type=RoleType(),
              help="A role (repeatable). Keys: name, kind (server|prefill|decode, default server), replicas, "
                   "instance-type, accelerator (cards per Pod, default 1), accelerator-key, size, image, arg "
                   "(repeatable), accelerator-type and topology (v1).")
@click.option("--prefill", metavar="R", help="Shortcut: a role named and kinded prefill with R replicas.")
@click.option("--decode", metavar="R", help="Shortcut: a role named and kinded decode with R replicas.")
@click.option("--instance-type", metavar="IT", help="InstanceType for roles that name none.")
@click.option("--accelerator-type", metavar="AT", help="acceleratorType for roles that name no pool (the v1 API "
                                                       "from GPUStack v0.11.2; instead of --instance-type).")
@click.option("--required-topology", "topology_level", metavar="LABEL",
              help="topology.requiredLevel for roles that name none (v1): every replica's Pods in one domain of "
                   "that level.")
@click.option("--kv-cache-pool", metavar="NAME", help="KVCachePoolBinding in the namespace (spec.kvCache).")
@click.option("--router", metavar="NAME", help="Request router (spec.router.name), per-replica API only.")
@click.option("--env", "env", multiple=True, metavar="K=V", callback=_env_pair,
              help="Environment variable for every role (repeatable).")
@click.option("--target", type=click.Choice(flags.TARGETS), default="modeldeployment", show_default=True,
              help="Write a ModelDeployment, the seed design's pod group as plain Pods, a LeaderWorkerSet per role "
                   "(lws), or one DisaggregatedSet of the roles (LWS v0.9+); Kueue admits each LWS group apart.")
@click.option("--local-queue", metavar="NAME", help="With --target pods|lws|disaggregatedset: the LocalQueue "
                                                     "(overrides the InstanceType's entrance).")
@click.option("--resource", "card_resource", metavar="NAME",
              help="With --target pods|lws|disaggregatedset: the resource one card requests (nvidia.com/gpu: 1 a card; "
                   "credits.gpustack.ai/VENDOR: 1,600,000 a card). Default: what the role's ClusterQueue covers, "
                   "else the accelerator key's credits; a role asking cards with neither is refused.")
@click.option("--api-profile", type=click.Choice(["auto", PD_ATOMIC, PER_REPLICA]), default="auto",
              show_default=True, help="ModelDeployment API shape; auto reads the installed CRD "
                                      "(pd-atomic when offline).")
@click.option("--api-version", type=click.Choice(["auto", *API_VERSIONS]), default=None,
              help="worker.gpustack.ai version to write. auto reads what the cluster serves (the CRD, or an "
                   "aggregated API's OpenAPI v3), with --dry-run=client too (read-only); v1alpha1|v1 offline, or "
                   "checked against the cluster.")
@click.option("--operator-version", type=click.Choice(LINE_NAMES), default=None, metavar="LINE",
              help=f"GPUStack operator line whose shape to write with nothing read (--dry-run=client; default "
                   f"{DEFAULT_LINE}, the newest documented); live, the served schema decides. Lines: {lines_help()}.")
@click.option("--dry-run", type=click.Choice(["none", "client", "server"]), default="none", is_flag=False,
              flag_value="client", show_default=True,
              help="client: print only, no request at all; server: validate with dryRun=All.")
@click.option("-o", "--output", type=OutputType(("yaml", "json", "name")),
              help="Print the object(s): yaml, json, name, jsonpath=, jsonpath-file=, custom-columns= (a row per "
                   "object), custom-columns-file= (docs/output.md).")
@click.option("--wait", "wait", is_flag=False, flag_value=DEFAULT_WAIT, default=None, metavar="[=DURATION]",
              help=f"Follow admission, a line per role (default {DEFAULT_WAIT}); on timeout explain and exit 1.")
@click.option("--priority-class", "priority_class", metavar="NAME",
              help="With --target pods|lws|disaggregatedset: Kueue's WorkloadPriorityClass (the Pods, or each "
                   "LWS, carry kueue.x-k8s.io/priority-class=NAME); the preflight judges preemption at its value.")
@click.option("--force", is_flag=True, help="Write even a deployment the quota can never admit.")
@click.option("--preflight", "preflight_only", is_flag=True,
              help="Check against the cluster and print the manifest and the verdict (-o json|yaml, default "
                   "yaml); write nothing; exit 1 when create would refuse.")
@cluster_options
def create(cluster: ClusterOptions, **flags_given: Any) -> int:
    """Scaffold a multi-role PD ModelDeployment that will be admitted, or say why it never could.

    \b
    kubectl pd create qwen --model Qwen/Qwen2.5-7B --engine-version 0.8.5 \\
        --kv-cache-pool shared-kv --instance-type gpustack--nvidia-h20-linux-amd64 \\
        --prefill 1 --decode 2 --dry-run=client -o yaml
    """
    return run(complete(cluster, CreateOptions(**flags_given).checked()))


@dataclass(frozen=True)
class CreateOptions:
    """create's flags as click parsed them (the names of the decorators above)."""

    name: str
    model: str
    engine: str
    engine_version: str | None
    roles: tuple[RoleSpec, ...]
    prefill: str | None
    decode: str | None
    instance_type: str | None
    kv_cache_pool: str | None
    router: str | None
    env: tuple[tuple[str, str], ...]
    target: str
    local_queue: str | None
    api_profile: str
    dry_run: str
    output: str | None
    wait: str | None
    force: bool
    preflight_only: bool = False
    accelerator_type: str | None = None
    topology_level: str | None = None
    api_version: str | None = None
    engine_image: str | None = None
    operator_version: str | None = None
    card_resource: str | None = None
    priority_class: str | None = None

    def checked(self) -> CreateOptions:
        """The flag combinations refused before anything is read (exit 2)."""
        if self.wait is not None and self.dry_run != "none":
            raise click.UsageError("--wait cannot be combined with --dry-run: nothing is created to wait for")
        _ = self.wait_seconds  # a DURATION kubectl would refuse, refused here
        if self.local_queue and self.target not in flags.POD_TARGETS:
            raise click.UsageError("--local-queue applies to --target pods, lws and disaggregatedset only")
        if self.card_resource is not None and self.target not in flags.POD_TARGETS:
            raise click.UsageError("--resource applies to --target pods, lws and disaggregatedset only (a "
                                   "ModelDeployment's operator chooses it)")
        if self.card_resource is not None and not _RESOURCE_NAME.fullmatch(self.card_resource):
            raise click.BadParameter(f"{self.card_resource!r} is not a resource name (e.g. nvidia.com/gpu)",
                                     param_hint="'--resource'")
        if self.priority_class is not None and self.target not in flags.POD_TARGETS:
            raise click.UsageError("--priority-class applies to --target pods, lws and disaggregatedset only (a "
                                   "ModelDeployment's operator makes its Workloads)")
        if self.priority_class is not None and not _DNS_SUBDOMAIN.fullmatch(self.priority_class):
            raise click.BadParameter(f"{self.priority_class!r} is not an object name (a DNS subdomain)",
                                     param_hint="'--priority-class'")
        if self.preflight_only and (self.dry_run != "none" or self.wait is not None or self.output == "name"):
            raise click.UsageError("--preflight writes nothing and prints a document: it takes -o json|yaml, not "
                                   "--dry-run, --wait or -o name")
        return self

    @property
    def wait_seconds(self) -> float | None:
        return None if self.wait is None else checked_duration(self.wait, "--wait") or 0.0


@dataclass(frozen=True)
class Create:
    """The options resolved: the request in its namespace, its roles checked, --wait in seconds."""

    o: CreateOptions
    cluster: ClusterOptions
    req: CreateRequest
    roles: list[Role]
    wait_seconds: float | None


def complete(cluster: ClusterOptions, o: CreateOptions) -> Create:
    """The request built and checked by the rules that need no request (flags, the named design's)."""
    wait_seconds = o.wait_seconds
    req = CreateRequest(
        name=o.name, namespace=namespace(cluster), model=o.model, engine=o.engine, engine_version=o.engine_version,
        roles=flags.all_role_specs(o.roles, o.prefill, o.decode),
        instance_type=o.instance_type, kv_cache_pool=o.kv_cache_pool, router=o.router, env=o.env, target=o.target,
        local_queue=o.local_queue, accelerator_type=o.accelerator_type, topology_level=o.topology_level,
        engine_image=o.engine_image, resource=o.card_resource, priority_class=o.priority_class)
    checked = flags.check_request(req)
    if checked.problems:
        _fail(checked.problems)
    role_list = checked.roles
    if o.target in flags.POD_TARGETS and o.engine_image:  # a role naming no image runs the engine's image
        role_list = [r if r.image else r._replace(image=o.engine_image) for r in role_list]
    if o.target == "pods" and o.api_profile == PER_REPLICA:
        raise PdError("--target pods renders the seed's pd-atomic pod group: --api-profile per-replica has "
                      "one group per replica, written by the operator")
    if (o.api_profile == PD_ATOMIC and o.target == "modeldeployment") or o.target == "pods":  # the design's rule
        early = flags.instance_type_rule(role_list) if not (o.target == "pods" and o.local_queue) else []
        if early:
            _fail(early)
    if o.target == "pods" and o.api_version == "v1":
        raise PdError("--target pods renders the seed's pod group: --api-version v1 is the per-replica "
                      "ModelDeployment API")
    return Create(o, cluster, req, role_list, wait_seconds)


def run(c: Create) -> int:
    o, req, role_list = c.o, c.req, c.roles
    if o.dry_run == "client":
        return _client_dry_run(c)
    from kubectl_pd.cluster.live import LiveSource  # noqa: F811 - at run time, loaded here

    source = LiveSource(c.cluster)
    profile = _read_profile(source, o.api_profile, o.api_version) if o.target == "modeldeployment" else \
        offline(PD_ATOMIC)
    _check_shape(req, role_list, profile)

    from kubectl_pd.create import frameworks, preflight

    if o.target in frameworks.TARGETS:
        _framework_served(source, o.target)
    shape = frameworks.PROFILE if o.target in frameworks.TARGETS else profile.name
    report = preflight.run(source, req, role_list, shape, req.namespace)
    if o.preflight_only:
        return _print_preflight(req, role_list, profile, report, o.force, o.output or "yaml")
    _refuse_or_warn(report, o.force)
    created = _write(source, req, role_list, report, profile, o.dry_run == "server")
    _print_created(created, o.output, " (server dry run)" if o.dry_run == "server" else "")
    if c.wait_seconds is None:
        return 0
    # the operator (and our pods render) label every Pod app.kubernetes.io/instance=<name>, or the
    # hashed group name when NAME is too long for a label value
    from kubectl_pd.gpustack import names

    label = req.name if names.is_label_value(req.name) else names.pod_group_name(req.namespace, req.name)
    try:
        return _wait(source, req, role_list, label, c.wait_seconds)
    except KeyboardInterrupt:
        raise PdError(_interrupted(req, created), exit_code=130) from None


def _client_dry_run(c: Create) -> int:
    """--dry-run=client: the manifest, no request at all; with --api-version auto, the served API is read (when
    there is a cluster), nothing else."""
    o = c.o
    if o.api_version != "auto":
        profile = _offline_profile(o.api_profile, o.api_version, o.operator_version)
    else:
        profile = _client_profile(c.cluster, o.api_profile) if o.target == "modeldeployment" else offline(PD_ATOMIC)
    _check_shape(c.req, c.roles, profile)
    return _emit_offline(c.req, c.roles, profile, o.output, c.cluster)


def _refuse_or_warn(report: Any, force: bool) -> None:
    """The preflight's warnings, then its errors (nothing is written); what admitting it would preempt."""
    for f in report.warnings(force):
        _warn(f.message)
    errors = report.errors(force)
    if errors:
        _fail([f.message for f in errors], "; nothing was written")
    from kubectl_pd.create.preempt_words import create_line  # what admitting it would preempt

    if (line := create_line(report.preemption)) is not None:
        _warn(line)


def _write(source: LiveSource, req: CreateRequest, roles: list[Role], report: Any, profile: ApiProfile,
           server_dry: bool) -> list[dict[str, Any]]:
    """The one write: the pod group's Pods, or the ModelDeployment (a Ctrl-C after its POST says what may exist)."""
    if req.target == "pods":
        return _create_pods(source, req, roles, report, server_dry)
    if req.target in flags.FRAMEWORK_TARGETS:
        return _create_framework(source, req, roles, report, server_dry)
    from kubectl_pd.create.scaffold import render_model_deployment

    obj = render_model_deployment(req, roles, profile)
    try:
        return [source.create(obj, dry_run=server_dry)]
    except KeyboardInterrupt:  # the POST was sent: the server may have stored it before the Ctrl-C
        if server_dry:
            raise
        ref, ns = f"{MD_RESOURCE}/{req.name}", req.namespace
        raise PdError(f"interrupted while creating {ref} in namespace {ns}: it may exist now; check with "
                      f"`kubectl get {ref} -n {ns}`, remove it with `kubectl delete {ref} -n {ns}`",
                      exit_code=130) from None


def _interrupted(req: CreateRequest, created: list[dict[str, Any]]) -> str:
    """Ctrl-C stops the wait, not the deployment: say what exists now and how to follow or remove it."""
    from kubectl_pd.gpustack import names

    ns = req.namespace
    if req.target == "pods":
        group = names.pod_group_name(ns, req.name)
        return (f"interrupted: the {len(created)} Pods of pod group {group} were created and remain in namespace "
                f"{ns}; follow them with `kubectl pd why-pending podgroup/{group} -n {ns}`, remove them with "
                f"`kubectl delete pods -l kueue.x-k8s.io/pod-group-name={group} -n {ns}`")
    if req.target in flags.FRAMEWORK_TARGETS:
        refs = " ".join(_ref(c) for c in created)
        return (f"interrupted: {refs} remain in namespace {ns}; follow them with `kubectl pd why-pending "
                f"{_pending_target(req)} -n {ns}`, remove them with `kubectl delete {refs} -n {ns}`")
    ref = _ref(created[0]) if created else f"{MD_RESOURCE}/{req.name}"
    return (f"interrupted: {ref} was created and remains in namespace {ns}; follow it with "
            f"`kubectl pd why-pending md/{req.name} -n {ns}`, remove it with `kubectl delete {ref} -n {ns}`")


def _check_shape(req: CreateRequest, roles: list[Role], profile: ApiProfile) -> None:
    if req.target in flags.FRAMEWORK_TARGETS:
        from kubectl_pd.create.frameworks import check

        problems = check(req, roles)
    else:
        problems = flags.check_pods(req, roles) if req.target == "pods" else flags.check_profile(req, roles, profile)
    if problems:
        _fail(problems)


def _offline_profile(wanted: str, version: str | None, line: str | None = None) -> ApiProfile:
    """--api-profile and --api-version with nothing read: v1 is per-replica, auto is pd-atomic otherwise; with
    --operator-version, that line's shape (gpustack/lines.py)."""
    if line is not None:
        from kubectl_pd.gpustack.lines import LineError, offline_profile

        try:
            return offline_profile(line, wanted, version)
        except LineError as e:
            raise PdError(str(e)) from None
    name = (PER_REPLICA if version == "v1" else PD_ATOMIC) if wanted == "auto" else wanted
    try:
        return offline(name, version)
    except ProfileError as e:
        raise PdError(str(e)) from None


# The two failures that mean "no cluster to ask" (cluster/config.py, cluster/endpoint.py and cluster/http.py raise
# them as plain PdError and ClusterError): every other failure (403, 5xx, a broken answer) is a cluster that answered.
_NO_CLUSTER = ("no kubeconfig found", "cannot reach the API server")


def _no_cluster(e: PdError) -> bool:
    return type(e) in (PdError, ClusterError) and e.message.startswith(_NO_CLUSTER)


def _client_profile(cluster: ClusterOptions, wanted: str) -> ApiProfile:
    """--dry-run=client --api-version auto: the API the cluster serves. kubectl's client dry run needs no server, so
    with no cluster to ask (no kubeconfig, or the server unreachable) the newest built-in profile of the asked
    --api-profile is written, and one stderr line says so; any other failure stays an error."""
    from kubectl_pd.cluster.live import LiveSource

    try:
        return _read_profile(LiveSource(cluster), wanted, "auto")
    except PdError as e:
        if not _no_cluster(e):
            raise
        why = e.message.split(": ", 1)[0]
    fallback = offline(PD_ATOMIC) if wanted == PD_ATOMIC else offline(PER_REPLICA, API_VERSIONS[-1])
    _warn(f"--api-version auto: no cluster to read ({why}): writing {fallback.describe()}, the newest built-in "
          f"profile, offline; pass --api-version {' or '.join(reversed(API_VERSIONS))} to choose")
    return fallback


def _read_profile(source: LiveSource, wanted: str, version: str | None = None) -> ApiProfile:
    """The installed API decides the shape; an explicit --api-profile or --api-version must agree with it."""
    profile = _served_profile(source, wanted, None if version == "auto" else version)
    if version not in (None, "auto") and profile.version != version:
        raise PdError(f"--api-version {version} does not match the installed API ({profile.describe()}, from "
                      f"{profile.source}): use --api-version auto or {profile.version}")
    return profile


def _served_profile(source: LiveSource, wanted: str, version: str | None) -> ApiProfile:
    """The CRD's schema; when there is no CRD but the group is served (an aggregated API server), the served
    version's OpenAPI v3 document."""
    try:
        crd = source.get("CustomResourceDefinition", CRD_NAME)
    except ForbiddenError as e:
        fallback = _offline_profile(wanted, version)
        _warn(f"cannot read the CRD {CRD_NAME} ({e.message.split(':', 1)[0]}): using the built-in "
              f"{fallback.name} profile; pass --api-profile to choose")
        if not source.served_versions("worker.gpustack.ai"):
            raise PdError(f"the ModelDeployment CRD is not installed in this cluster ({CRD_NAME} is not served): "
                          f"install the GPUStack operator, or check the context") from None
        return fallback
    try:
        if crd is None:
            profile = _aggregated_profile(source, version)
        else:
            # describe the version the POST will go to, so body and path agree
            from kubectl_pd.cluster.kinds import KINDS
            from kubectl_pd.gpustack.profiles import crd_serves

            prefer = version or source.version_for(KINDS["ModelDeployment"])
            if prefer == "v1" and not crd_serves(crd, "v1") and "v1" in source.served_versions(GROUP):
                profile = _aggregated_profile(source, "v1", crd)  # v1 from an APIService beside the CRD (the source)
            else:
                profile = from_crd(crd, prefer)
    except ProfileError as e:
        raise PdError(str(e)) from None
    if wanted != "auto" and wanted != profile.name:
        raise PdError(f"--api-profile {wanted} does not match the installed CRD ({profile.describe()}: roles "
                      f"{'have acceleratorKey' if profile.name == PD_ATOMIC else 'have no acceleratorKey'}): "
                      f"use --api-profile auto or {profile.name}")
    return profile


def _aggregated_profile(source: LiveSource, version: str | None, crd: dict[str, Any] | None = None) -> ApiProfile:
    """ModelDeployment from an aggregated API server (APIService), described by its OpenAPI v3; when it publishes
    none, the v1alpha1 CRD's schema (`crd`), which GPUStack's source re-declares as v1 (profiles.redeclared)."""
    from kubectl_pd.gpustack.profiles import from_openapi, openapi_path, redeclared

    served = source.served_versions(GROUP)
    pick = version if version in served else next((v for v in ("v1", "v1alpha1") if v in served), None)
    doc = source.get_raw(openapi_path(pick), resource=f"openapi/v3 {GROUP}/{pick}") if pick else None
    if crd is not None and pick:
        try:
            return from_openapi(doc, pick) if doc is not None else redeclared(crd, pick)
        except ProfileError:
            return redeclared(crd, pick)
    if doc is None:  # neither a CRD nor an aggregated API that describes itself
        raise PdError(f"the ModelDeployment CRD is not installed in this cluster ({CRD_NAME} not found): "
                      f"install the GPUStack operator, check the context, or use --dry-run=client")
    return from_openapi(doc, pick or "")


def _emit_offline(req: CreateRequest, roles: list[Role], profile: ApiProfile, output: str | None,
                  cluster: ClusterOptions | None = None) -> int:
    """--dry-run=client: render and print; nothing written. Pods whose cards name no resource (no --resource, no
    accelerator key) read which resource their queues cover, as kubectl's client dry run still reads: GETs only, and
    a cluster that cannot be read leaves the refusal as it was."""
    if req.target == "pods":
        from kubectl_pd.create.pods import offline_queues, render_pods, unresolved

        covered, queues = (_covered_by_queues(req, roles, cluster) if cluster is not None and unresolved(req, roles)
                           else (None, {}))
        _check_resource(req, roles, covered)
        objs = render_pods(req, roles, {**offline_queues(req, roles), **queues}, covered)
    elif req.target in flags.FRAMEWORK_TARGETS:
        from kubectl_pd.create import frameworks
        from kubectl_pd.create.pods import offline_queues, unresolved

        covered, queues = (_covered_by_queues(req, roles, cluster) if cluster is not None and unresolved(req, roles)
                           else (None, {}))
        _check_resource(req, roles, covered)
        objs = frameworks.render(req, roles, {**offline_queues(req, roles), **queues}, covered)
    else:
        from kubectl_pd.create.scaffold import render_model_deployment

        objs = [render_model_deployment(req, roles, profile)]
    _print_created(objs, output, " (dry run)")
    return 0


def _covered_by_queues(req: CreateRequest, roles: list[Role],
                       cluster: ClusterOptions) -> tuple[dict[str, str] | None, dict[str, str]]:
    """(role -> the resource a card is, role -> its LocalQueue) as the preflight reads them; (None, {}) when the
    cluster cannot be read."""
    from kubectl_pd.cluster.live import LiveSource  # noqa: F811 - at run time, loaded here
    from kubectl_pd.create import preflight

    try:
        report = preflight.run(LiveSource(cluster), req, roles, PD_ATOMIC, req.namespace)
    except PdError:
        return None, {}
    return report.covered, report.queues


_REFS = {"Pod": "pod", "LeaderWorkerSet": "leaderworkerset.leaderworkerset.x-k8s.io",
         "DisaggregatedSet": "disaggregatedset.disaggregatedset.x-k8s.io"}


def _ref(obj: dict[str, Any]) -> str:
    """kind.group/name, as kubectl prints an object it created."""
    name = (obj.get("metadata") or {}).get("name", "")
    return f"{_REFS.get(str(obj.get('kind')), MD_RESOURCE)}/{name}"


def _view(output: str | None) -> View:
    """The -o given (none: kubectl's "created" line per object, the form it prints without -o)."""
    from kubectl_pd.output.printers import Output, View  # noqa: F811 - at run time, loaded here

    return View(output_spec(output) if output else Output("created"))


def _print_created(objs: list[dict[str, Any]], output: str | None, suffix: str) -> None:
    """The objects written (or that would be): a line each, their names, else the -o json document (the one object,
    or a List of them) with a row per object."""

    def document(objs: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
        from kubectl_pd.create.pods import as_list

        return (objs[0] if len(objs) == 1 else as_list(objs)), objs

    _view(output).to_printer({
        "name": lambda objs: "".join(_ref(o) + "\n" for o in objs),
        "created": lambda objs: "".join(f"{_ref(o)} created{suffix}\n" for o in objs),
    }, document).write(objs)


_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_RESOURCE_NAME = re.compile(r"(?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")


def _check_resource(req: CreateRequest, roles: list[Role], covered: dict[str, str] | None) -> None:
    """Refuse Pods that would ask cards of no resource: Kueue would admit them on no quota at all."""
    from kubectl_pd.create.pods import unresolved

    missing = unresolved(req, roles, covered)
    if missing:
        raise InputError(f"role(s) {', '.join(missing)} ask for cards, but nothing says which resource a card is "
                         f"(no queue covering one was read, no accelerator-key=): pass --resource, e.g. "
                         f"--resource nvidia.com/gpu or --resource credits.gpustack.ai/nvidia; Pods without it "
                         f"would request nothing and use no quota")


def _pods_of(req: CreateRequest, roles: list[Role], report: Any) -> list[dict]:
    from kubectl_pd.create.pods import offline_queues, render_pods

    _check_resource(req, roles, report.covered)

    return render_pods(req, roles, {**offline_queues(req, roles), **report.queues}, report.covered)


def _print_preflight(req: CreateRequest, roles: list[Role], profile: ApiProfile, report: Any, force: bool,
                     output: str) -> int:
    """--preflight: the manifest create would write and the checks' verdict, as one document; nothing written."""
    from kubectl_pd.commands.preflight_doc import document

    shape = profile.name
    if req.target == "pods":
        from kubectl_pd.create.pods import as_list

        manifest = as_list(_pods_of(req, roles, report))
        kind = "PodGroup"
    elif req.target in flags.FRAMEWORK_TARGETS:
        from kubectl_pd.create import frameworks
        from kubectl_pd.create.pods import as_list

        objs = _framework_objects(req, roles, report)
        manifest = objs[0] if req.target == frameworks.DS else as_list(objs)
        kind = frameworks.KIND[req.target]
        shape = frameworks.PROFILE
    else:
        from kubectl_pd.create.scaffold import render_model_deployment

        manifest = render_model_deployment(req, roles, profile)
        kind = "ModelDeployment"
    doc = document(req.name, req.namespace, kind, shape, report, force, manifest)
    _view(output).to_printer({}, lambda d: (d, [d])).write(doc)
    return 0 if doc["wouldCreate"] else 1


def _create_pods(source: LiveSource, req: CreateRequest, roles: list[Role], report: Any, dry: bool) -> list[dict]:
    """All or nothing as far as a client can: refuse before the first POST if any Pod exists."""
    pods = _pods_of(req, roles, report)
    for p in pods:
        if source.get("Pod", p["metadata"]["name"], req.namespace) is not None:
            raise ConflictError(f'pods "{p["metadata"]["name"]}" already exists: kubectl-pd never overwrites; '
                                f"delete the old group first or choose another name; nothing was written")
    created: list[dict] = []
    try:
        for p in pods:
            created.append(source.create(p, dry_run=dry))
    except PdError as e:
        if not created or dry:
            raise
        from kubectl_pd.errors import AmbiguousWrite
        from kubectl_pd.gpustack import names

        group, ns = names.pod_group_name(req.namespace, req.name), req.namespace
        made = ", ".join(str(c["metadata"]["name"]) for c in created)
        maybe = (f" (and perhaps {pods[len(created)]['metadata']['name']}, whose answer was lost)"
                 if isinstance(e, AmbiguousWrite) else "")
        raise PdError(f"{e.message.rstrip('.')}; {len(created)} of the {len(pods)} Pods of pod group {group} were "
                      f"created before it: {made}{maybe}; they remain in namespace {ns} and Kueue admits no "
                      f"incomplete group: remove them with "
                      f"`kubectl delete pods -l kueue.x-k8s.io/pod-group-name={group} -n {ns}`",
                      exit_code=e.exit_code) from None
    except KeyboardInterrupt:
        if not created or dry:
            raise
        from kubectl_pd.gpustack import names

        group, ns = names.pod_group_name(req.namespace, req.name), req.namespace
        raise PdError(f"interrupted after {len(created)} of the {len(pods)} Pods of pod group {group} were created; "
                      f"they remain in namespace {ns} and Kueue admits no incomplete group: remove them with "
                      f"`kubectl delete pods -l kueue.x-k8s.io/pod-group-name={group} -n {ns}`",
                      exit_code=130) from None
    return created


def _framework_served(source: LiveSource, target: str) -> None:
    """The framework's CRD is installed (a refused read: the group served, by discovery); else one line and exit 1,
    as for a missing ModelDeployment CRD."""
    from kubectl_pd.create import frameworks

    crd, group = frameworks.CRD[target], frameworks.GROUP[target]
    try:
        found = source.get("CustomResourceDefinition", crd) is not None
    except ForbiddenError:
        found = bool(source.served_versions(group))
    if not found:
        need = "LeaderWorkerSet v0.9.0 or later (it ships DisaggregatedSet)" if target == frameworks.DS else \
            "LeaderWorkerSet (sigs.k8s.io/lws)"
        raise PdError(f"the {frameworks.KIND[target]} CRD is not installed in this cluster ({crd} not found): "
                      f"install {need}, check the context, or use --dry-run=client")


def _framework_objects(req: CreateRequest, roles: list[Role], report: Any) -> list[dict[str, Any]]:
    from kubectl_pd.create import frameworks
    from kubectl_pd.create.pods import offline_queues

    _check_resource(req, roles, report.covered)
    return frameworks.render(req, roles, {**offline_queues(req, roles), **report.queues}, report.covered)


def _create_framework(source: LiveSource, req: CreateRequest, roles: list[Role], report: Any,
                      dry: bool) -> list[dict[str, Any]]:
    """The LeaderWorkerSets (or the DisaggregatedSet): refused before the first POST if any exists; a failure
    after some were written names them (each LWS is its own deployment: nothing is half a group)."""
    objs = _framework_objects(req, roles, report)
    for o in objs:
        if source.get(str(o["kind"]), o["metadata"]["name"], req.namespace) is not None:
            raise ConflictError(f"{_ref(o)} already exists: kubectl-pd never overwrites; delete it first or choose "
                                f"another name; nothing was written")
    created: list[dict[str, Any]] = []
    try:
        for o in objs:
            created.append(source.create(o, dry_run=dry))
    except (PdError, KeyboardInterrupt) as e:
        if not created or dry:
            raise
        made = " ".join(_ref(c) for c in created)
        why = e.message.rstrip(".") if isinstance(e, PdError) else "interrupted"
        raise PdError(f"{why}; {made} were created before it and remain in namespace {req.namespace}: remove "
                      f"them with `kubectl delete {made} -n {req.namespace}`",
                      exit_code=e.exit_code if isinstance(e, PdError) else 130) from None
    return created


def _pending_target(req: CreateRequest, rows: list[Any] | None = None) -> str:
    """What why-pending names the deployment by: ds/NAME, or the LWS of the first role not admitted."""
    from kubectl_pd.create import frameworks

    if req.target == frameworks.DS:
        return f"ds/{req.name}"
    waiting = [r.role for r in rows or [] if not r.done]
    role = waiting[0] if waiting else req.roles[0].name or ""
    return f"lws/{req.name}-{role}"


def _wait(source: LiveSource, req: CreateRequest, roles: list[Role], label: str, seconds: float) -> int:
    from kubectl_pd.create import wait as waiting

    wanted = [(r.name, r.pods) for r in roles]
    width = max(len(r.name) for r in roles)
    from kubectl_pd.termsafe import csi

    tty = use_color(sys.stderr)  # redraw in place only on a terminal
    shown: dict[str, str] = {}
    state = {"drawn": 0}

    def emit(rows: list[waiting.RoleProgress]) -> None:
        lines = [waiting.line(r, width) for r in rows]
        if tty:  # redraw the block in place
            if state["drawn"]:
                click.echo(csi(f"{state['drawn']}F"), err=True, nl=False)
            for text in lines:
                click.echo(f"{csi('2K')}{text}", err=True)
            state["drawn"] = len(lines)
            return
        for r, text in zip(rows, lines, strict=True):
            if shown.get(r.role) != text:
                click.echo(text, err=True)
                shown[r.role] = text

    ok, rows = waiting.follow(source, req.namespace, waiting.instance_selector(label), wanted,
                              timeout=seconds, interval=POLL_INTERVAL, emit=emit)
    if ok:
        click.echo(f"{req.name}: every role admitted", err=True)
        return 0
    from kubectl_pd.gpustack import names

    target = (f"md/{req.name}" if req.target == "modeldeployment"
              else f"podgroup/{names.pod_group_name(req.namespace, req.name)}" if req.target == "pods"
              else _pending_target(req, rows))
    click.echo(_diagnose(source, target, req, rows), nl=False)
    raise PdError(f"timed out after {seconds:g}s waiting for {req.name} to be admitted")


def _diagnose(source: LiveSource, target: str, req: CreateRequest, rows: list[Any]) -> str:
    """The why-pending diagnosis (why-pending's own run, through pending.explain); our own short summary when the
    diagnosis itself fails."""
    from kubectl_pd.create.wait import fallback_summary
    from kubectl_pd.pending import explain

    try:
        text = explain(source, target, req.namespace, color=False)
    except PdError:
        return fallback_summary(req.name, req.namespace, rows)
    return text if text.endswith("\n") else text + "\n"
