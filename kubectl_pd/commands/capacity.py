"""`kubectl pd capacity`: how many more copies of a deployment (and replicas of each role) Kueue would admit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.commands.options import COLOR, cluster_options, output_spec
from kubectl_pd.create.flags import RoleSpec
from kubectl_pd.create.role_flag import RoleType
from kubectl_pd.errors import EXIT_OK, PdError
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.labels import GROUP_LABEL

if TYPE_CHECKING:
    from kubectl_pd.capacity.answer import Answer


def _complete_target(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """ModelDeployment names on Tab; after lws/, ds/, deploy/, sts/, llmisvc/ the names of that kind (live, within
    --request-timeout, silent on any error)."""
    from kubectl_pd.completion.live import modeldeployment_names

    return modeldeployment_names(ctx, param, incomplete)


@click.command("capacity", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.argument("target", metavar="[TARGET]", required=False, shell_complete=_complete_target)
@click.option("--role", "roles", multiple=True, type=RoleType(),
              help="A role as create takes it (repeatable): name=N,kind=K,replicas=R,instance-type=IT,accelerator=A,"
                   "accelerator-key=K,size=S.")
@click.option("--prefill", metavar="R", help="Shortcut: a role named and kinded prefill with R replicas.")
@click.option("--decode", metavar="R", help="Shortcut: a role named and kinded decode with R replicas.")
@click.option("--instance-type", metavar="IT", help="InstanceType for roles that name none.")
@click.option("--target", "shape_target", type=click.Choice(("modeldeployment", "pods")), default="modeldeployment",
              show_default=True, help="A ModelDeployment's Workloads, or the seed design's pod group.")
@click.option("--local-queue", metavar="NAME", help="With --target pods: the LocalQueue.")
@click.option("--api-profile", type=click.Choice([PD_ATOMIC, PER_REPLICA]), default=None,
              help="How the operator makes Workloads: one per deployment (pd-atomic, the default for flags) or one "
                   "per replica group (per-replica; an md/NAME's own API decides).")
@click.option("--manifest", "manifest", metavar="PATH", type=click.Path(allow_dash=True),
              help="A manifest to weigh (not yet created): one ModelDeployment, or the Pods of one pod group as "
                   "`create --target pods -o yaml` writes them.")
@click.option("-f", "--from-file", "files", multiple=True, metavar="PATH", type=click.Path(allow_dash=True),
              help="Read a snapshot (kubectl get -o yaml output, kubectl pd snapshot, directories, -). Repeatable.")
@click.option("--max", "limit", type=click.IntRange(1, 100_000), default=1000, show_default=True,
              help="Count at most this many copies now (past it the answer is 'at least').")
@click.option("--max-preemption", "preempt_limit", type=click.IntRange(0, 1000), default=20, show_default=True,
              help="Judge at most this many further copies by preemption (0: none).")
@click.option("--priority", type=int, default=None,
              help="The copies' Workload priority (default 0; a PD framework's target: its Workloads' own).")
@click.option("-o", "--output", type=click.Choice(("text", "json", "yaml")), default="text", show_default=True,
              help="Output format.")
@COLOR
@cluster_options
def capacity(cluster: ClusterOptions, target: str | None, roles: tuple[RoleSpec, ...], prefill: str | None,
             decode: str | None, instance_type: str | None, shape_target: str, local_queue: str | None,
             api_profile: str | None, manifest: str | None, files: tuple[str, ...], limit: int,
             preempt_limit: int, priority: int | None, output: str) -> int:
    """How many more copies of a deployment Kueue would admit now, by borrowing and by preemption, and what
    stops the next one; and how many more replicas of each role alone.

    \b
    kubectl pd capacity --instance-type gpu-h20 --prefill 1 --decode 2
    kubectl pd capacity md/qwen -n team-a
    kubectl pd capacity podgroup/qwen -n team-a
    kubectl pd capacity lws/qwen -n team-a      (also ds/, deploy/, sts/, llmisvc/: one more group of each role)
    kubectl pd capacity --role name=p,kind=prefill,replicas=1,accelerator=2 --instance-type gpu-h20 -f snap.yaml

    \b
    TARGET: md/NAME, podgroup/NAME, or what a PD framework made: lws/NAME, ds/NAME, deploy/NAME, sts/NAME,
    llmisvc/NAME (their long names too); a bare NAME is tried in that order.
    Copies are placed one after another as Kueue would (its flavor order, fungibility and pod-set order),
    each against the queues with the ones before it admitted.
    Exit codes: 0 answered, 1 a read failed or the shape could not be judged, 2 usage.
    """
    from kubectl_pd.commands.common import namespace, open_manager

    shape_given = bool(roles or prefill or decode)
    if sum((shape_given, bool(target), bool(manifest))) != 1:
        raise click.UsageError("give the shape once: create's flags (--role, --prefill/--decode), md/NAME, or "
                               "--manifest PATH")
    if local_queue and shape_target != "pods":
        raise click.UsageError("--local-queue applies to --target pods only")
    source = open_manager(cluster, files)
    ns = namespace(cluster)
    from kubectl_pd.capacity import shape
    from kubectl_pd.capacity.answer import Target

    found: Any = None
    kind, name = "", ""
    if target:
        kind, name, found = _resolve(source, target, ns)
    if kind not in ("", "ModelDeployment", "PodGroup"):
        from kubectl_pd.capacity.run import run_owner

        answer, _plan = run_owner(source, kind, name, ns, limit=limit, preempt_limit=preempt_limit,
                                  priority=priority)
        return _answer(answer, output)
    if shape_given:
        req, role_list, profile = shape.from_flags(ns, roles, prefill, decode, instance_type, shape_target,
                                                   local_queue, api_profile or PD_ATOMIC)
        tgt = Target("PodGroup" if shape_target == "pods" else shape.KIND_REQUEST, None, ns, profile)
    elif kind == "PodGroup":
        req, role_list, profile = shape.from_pod_group(found, name, ns)
        tgt = Target("PodGroup", name, ns, profile)
    elif manifest:
        req, role_list, profile, mkind = _manifest(manifest, ns, api_profile)
        tgt = Target(mkind, req.name, req.namespace, profile)
    else:
        req, role_list, profile = shape.from_model_deployment(found, ns, api_profile)
        tgt = Target("ModelDeployment", req.name, ns, profile)
    from kubectl_pd.capacity.run import run

    answer, _plan = run(source, req, role_list, profile, tgt, limit=limit, preempt_limit=preempt_limit,
                        priority=priority or 0)
    return _answer(answer, output)


def _answer(answer: Answer, output: str) -> int:
    """Print the record; a read that failed or a copy not judged is exit 1, after it."""
    from kubectl_pd.capacity.document import to_dict
    from kubectl_pd.capacity.words import render, unread
    from kubectl_pd.output.printers import View

    View(output_spec(output)).to_printer({"text": render}, lambda a: (to_dict(a), [to_dict(a)])).write(answer)
    if not answer.complete:
        from kubectl_pd.pending.screen_words import could_not_read

        raise PdError(f"the answer is incomplete: {could_not_read(unread(answer))}")
    if answer.copies.now is None:
        raise PdError("the deployment could not be judged: " + (
            "; ".join(f.message for f in answer.findings if f.severity == "error")
            or "no role asks for an accelerator a queue covers (GPUStack's credits, or a device such as "
               "nvidia.com/gpu)"))
    return EXIT_OK


def _manifest(path: str, ns: str, api_profile: str | None) -> tuple[Any, Any, str, str]:
    """A manifest not yet created: one ModelDeployment, or the Pods of one pod group (as `create --target pods`
    renders them). (request, roles, profile, the target's kind)."""
    from kubectl_pd.capacity import shape
    from kubectl_pd.cluster.snapshot import SnapshotSource

    snap = SnapshotSource.from_paths([path])
    mds = list(snap.list("ModelDeployment"))
    pods = [p for p in snap.list("Pod") if ((p.get("metadata") or {}).get("labels") or {}).get(GROUP_LABEL)]
    groups = {p["metadata"]["labels"][GROUP_LABEL] for p in pods}
    if len(mds) == 1 and not pods:
        return (*shape.from_model_deployment(mds[0], ns, api_profile), "ModelDeployment")
    if not mds and len(groups) == 1:
        name = groups.pop()
        pod_ns = {str((p.get("metadata") or {}).get("namespace") or ns) for p in pods}
        return (*shape.from_pod_group(pods, name, pod_ns.pop() if len(pod_ns) == 1 else ns), "PodGroup")
    raise PdError(f"--manifest {path}: expected one ModelDeployment or the Pods of one pod group, found "
                  f"{len(mds)} ModelDeployment(s) and {len(groups)} pod group(s)")


GROUP_SELECTOR = GROUP_LABEL + "={}"


def _resolve(source: Any, target: str, ns: str) -> tuple[str, str, Any]:
    """TARGET -> (kind, name, what was read for it): a ModelDeployment (the object), a pod group (its Pods), or a
    PD framework's object (pending/target.OWNER_KINDS: lws/, ds/, deploy/, sts/, llmisvc/ and their long names;
    read by capacity/owner.py). A bare NAME is a ModelDeployment, else a pod group, else the first framework kind
    that holds it, all asked in one wave as why-pending does (pending/owners.probe)."""
    from kubectl_pd.errors import ApiUnavailable, NotFoundError
    from kubectl_pd.pending.target import OWNER_KINDS, parse_target

    if "/" in target:
        try:
            kind, name = parse_target(target)
        except ValueError:
            kind, name = "", ""
        if kind in OWNER_KINDS:
            return kind, name, None
        if kind == "PodGroup":
            return kind, name, source.list("Pod", ns, label_selector=GROUP_SELECTOR.format(name))
        if kind != "ModelDeployment":
            raise click.UsageError(f"TARGET {target!r}: expected md/NAME, podgroup/NAME, lws/NAME, ds/NAME, "
                                   "deploy/NAME, sts/NAME, llmisvc/NAME or NAME")
        return kind, name, _model_deployment(source, name, ns)
    missing: list[str] = []
    try:
        if (md := source.get("ModelDeployment", target, ns)) is not None:
            return "ModelDeployment", target, md
        missing.append("ModelDeployment")
    except NotFoundError:
        missing.append("ModelDeployment")
    except ApiUnavailable:
        missing.append("ModelDeployment!")
    pods = source.list("Pod", ns, label_selector=GROUP_SELECTOR.format(target))
    if pods:
        return "PodGroup", target, pods
    from kubectl_pd.pending.owners import probe

    found, absent = probe(source, target, ns)
    if found:
        return found[0], target, None
    from kubectl_pd.pending.screen_words import bare_not_found

    raise NotFoundError(bare_not_found(target, ns, [*missing, "PodGroup", *absent]))


def _model_deployment(source: Any, name: str, ns: str) -> dict[str, Any]:
    obj = source.get("ModelDeployment", name, ns)
    if obj is None:
        from kubectl_pd.errors import NotFoundError

        raise NotFoundError(f'modeldeployments.worker.gpustack.ai "{name}" not found in namespace {ns}')
    return obj  # type: ignore[no-any-return]
