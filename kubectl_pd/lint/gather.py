"""Collect what lint reads from a Source: the objects to check and the context they are checked in.

Live: every ClusterQueue, Cohort, ResourceFlavor and AdmissionCheck (cluster scope) and the
ModelDeployments of one namespace or all. Files: everything in them. Only GET requests are sent.
A missing ModelDeployment CRD, or RBAC that hides flavors or checks, narrows the lint (with a note)
instead of failing it; Kueue missing is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.source import name_of, namespace_of
from kubectl_pd.errors import ApiUnavailable, ForbiddenError
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.lint.context import LintContext
from kubectl_pd.lint.engine import context_from
from kubectl_pd.lint.frameworks import FRAMEWORK_KINDS, needs_queue
from kubectl_pd.records import dataclass, field

if TYPE_CHECKING:
    from kubectl_pd.cluster.snapshot import SnapshotSource

Obj = dict[str, Any]
MD_CRD = "modeldeployments.worker.gpustack.ai"


@dataclass
class Gathered:
    objects: list[Obj]
    ctx: LintContext
    notes: list[str] = field(default_factory=list)


def roles_have_size(crd: Obj) -> bool:
    """Does any served version of the ModelDeployment CRD give roles a `size` (the per-replica API)?"""
    versions = (crd.get("spec") or {}).get("versions") or []
    for v in versions if isinstance(versions, list) else []:
        try:
            roles = v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["roles"]
            props = roles["items"]["properties"]
        except (KeyError, TypeError):
            continue
        if isinstance(props, dict) and "size" in props:
            return True
    return False


def choose_profile(requested: str, source: Source, notes: list[str]) -> str:
    """`auto`: per-replica when the installed (or given) CRD has roles[].size, else pd-atomic."""
    if requested != "auto":
        return requested
    try:
        crd = source.get("CustomResourceDefinition", MD_CRD)
    except (ForbiddenError, ApiUnavailable) as e:
        notes.append(f"cannot read the ModelDeployment CRD ({e.message.split(':')[0]}): "
                     f"using --api-profile {PD_ATOMIC}")
        return PD_ATOMIC
    if crd is None:
        return PD_ATOMIC
    return PER_REPLICA if roles_have_size(crd) else PD_ATOMIC


def gather_files(source: SnapshotSource, ctx: LintContext, requested_profile: str) -> Gathered:
    """Everything in the files; PD111/PD112 only when they hold ResourceFlavors / AdmissionChecks."""
    objects = list(source.all_objects())
    notes: list[str] = []
    context_from(objects, ctx)
    if ctx.local_queues is None:
        ctx.local_queues = {}  # a LocalQueue not among the files is unknown, never missing
    if any(o.get("kind") == "ModelDeployment" for o in objects):
        ctx.profile = choose_profile(requested_profile, source, notes)
    return Gathered(objects, ctx, notes)


def gather_live(source: Source, ctx: LintContext, requested_profile: str,
                md_namespace: str | None) -> Gathered:
    """The cluster's Kueue objects and the ModelDeployments of `md_namespace` (None: all namespaces)."""
    notes: list[str] = []
    queues = source.list("ClusterQueue")  # Kueue missing or forbidden: the command fails here
    objects: list[Obj] = list(queues)
    try:
        cohorts = source.list("Cohort")
        objects.extend(cohorts)
        context_from(cohorts, ctx)  # every Cohort's parent: PD413 (a cycle) among all of them
    except ApiUnavailable:
        notes.append("this Kueue serves no Cohort API: Cohorts not linted")
    except ForbiddenError:
        notes.append("RBAC hides Cohorts: Cohorts not linted")
    try:
        flavors = source.list("ResourceFlavor")
        ctx.flavors = {name_of(f): f for f in flavors}
    except ForbiddenError:
        notes.append("RBAC hides ResourceFlavors: PD111 flavor-not-found and the PD306 pool check skipped")
    try:
        ctx.admission_checks = {name_of(a) for a in source.list("AdmissionCheck")}
    except (ForbiddenError, ApiUnavailable):
        notes.append("cannot list AdmissionChecks: PD112 admission-check-not-found skipped")
    ctx.queues = {name_of(q): q for q in queues}
    try:
        deployments = source.list("ModelDeployment", md_namespace)
    except ApiUnavailable:
        notes.append(f"the ModelDeployment CRD ({MD_CRD}) is not installed: ModelDeployments skipped")
        deployments = []
    except ForbiddenError:
        where = f'namespace "{md_namespace}"' if md_namespace else "all namespaces"
        notes.append(f"RBAC hides ModelDeployments in {where}: ModelDeployments skipped")
        deployments = []
    if deployments:
        ctx.profile = choose_profile(requested_profile, source, notes)
    objects.extend(deployments)
    objects.extend(gather_frameworks(source, ctx, md_namespace, notes))
    return Gathered(objects, ctx, notes)


def _where(namespace: str | None) -> str:
    return f'namespace "{namespace}"' if namespace else "all namespaces"


def gather_frameworks(source: Source, ctx: LintContext, namespace: str | None, notes: list[str]) -> list[Obj]:
    """The PD frameworks' objects of NAMESPACE (None: all) and, when one names a queue, the LocalQueues there.

    A kind whose API is not served (its CRD is not installed) has nothing to lint and is passed over in silence;
    a read RBAC refuses leaves its part unknown: a note, and `ctx.unread` (exit 1)."""
    from kubectl_pd.cluster.prefetch import together

    ctx.live = True
    found: list[Obj] = []
    calls = [_lister(source, kind, namespace) for kind in FRAMEWORK_KINDS]
    # one after another, as lint's other reads: one connection (one proxy tunnel, tests/test_proxy.py)
    for kind, (ok, got) in zip(FRAMEWORK_KINDS, together(calls, False), strict=True):
        if ok:
            found.extend(got)
        elif isinstance(got, ForbiddenError):
            text = f"RBAC hides {kind}s in {_where(namespace)}: {kind}s not linted (PD414-PD416 unknown for them)"
            notes.append(text)
            ctx.unread.append(text)
        elif not isinstance(got, ApiUnavailable):  # its CRD not installed: nothing of that kind to lint
            raise got
    context_from(found, ctx)
    if any(needs_queue(o) for o in found):
        try:
            lqs = source.list("LocalQueue", namespace)
            ctx.local_queues = {(namespace_of(q) or "", name_of(q)): q for q in lqs}
        except (ForbiddenError, ApiUnavailable) as e:
            text = (f"cannot list LocalQueues in {_where(namespace)} ({e.message.split(':')[0]}): PD416 "
                    f"group-never-fits not judged")
            notes.append(text)
            ctx.unread.append(text)
            ctx.local_queues_why = "its LocalQueue could not be read"
    return found


def _lister(source: Source, kind: str, namespace: str | None) -> Callable[[], list[Obj]]:
    return lambda: source.list(kind, namespace)
