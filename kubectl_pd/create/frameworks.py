"""Render `--target lws` (one LeaderWorkerSet per role) and `--target disaggregatedset` (one DisaggregatedSet of
the roles): pure, validated roles in, plain dicts out, the Kueue labels where each framework carries them.

Where the labels go (read in the Go module cache):
- a LeaderWorkerSet: `kueue.x-k8s.io/queue-name` (and `kueue.x-k8s.io/priority-class`) on the LWS's own
  metadata.labels, which Kueue's LWS integration reads (`jobframework.QueueNameForObject(lws)`,
  pkg/controller/jobs/leaderworkerset/leaderworkerset_reconciler.go:438@v0.19.2) and its webhook copies to both
  templates. Kueue makes one Workload per group, pod sets `leader` (1) and `worker` (size-1) when the LWS has a
  leader template, else one pod set `main` of `size` (same file, `podSets`, :400@v0.19.2).
- a DisaggregatedSet: on each role's `metadata.labels` (its LeaderWorkerSetTemplateSpec's metadata), which the
  set's controller puts on that role's LWS (`Labels: mergeLabels(config.ObjectMeta.Labels, ...)`,
  pkg/controllers/disaggregatedset/lws_manager.go:84@v0.9.0); labels on the set's own metadata reach no LWS.
  The role's LWS is named `<set>-<revision>-<role>` (pkg/utils/disaggregatedset/utils.go:93@v0.9.0), the
  revision 8 hex characters (:105).

A role of size 1 has no leader template (one pod set `main`, one Pod a group); a larger one has a leader and
workers, every Pod with the role's image and cards.
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_pd.create.flags import FRAMEWORK_TARGETS, INT32_MAX, CreateRequest, Role
from kubectl_pd.create.pods import ACCELERATOR_LABEL, COMPONENT, PRIORITY_CLASS, credits_resource, engine_container
from kubectl_pd.gpustack import names
from kubectl_pd.labels import INSTANCE_LABEL, QUEUE_LABEL

LWS = "lws"
DS = "disaggregatedset"
TARGETS = FRAMEWORK_TARGETS
LWS_API = "leaderworkerset.x-k8s.io/v1"
DS_API = "disaggregatedset.x-k8s.io/v1"
LWS_CRD = "leaderworkersets.leaderworkerset.x-k8s.io"
DS_CRD = "disaggregatedsets.disaggregatedset.x-k8s.io"
KIND = {LWS: "LeaderWorkerSet", DS: "DisaggregatedSet"}
CRD = {LWS: LWS_CRD, DS: DS_CRD}
GROUP = {LWS: "leaderworkerset.x-k8s.io", DS: "disaggregatedset.x-k8s.io"}
PROFILE = "lws-groups"  # the preflight's demand shape: one Workload per LWS group (create/preflight.role_demands)
DS_REVISION_LEN = 8  # pkg/utils/disaggregatedset/utils.go revisionLength@v0.9.0
DS_ROLES = (2, 10)  # the DisaggregatedSet CRD: spec.roles minItems 2, maxItems 10 (config/crd/bases@v0.9.0)
_DNS_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")


def lws_name(req: CreateRequest, role: Role) -> str:
    """The LWS of ROLE with --target lws: `<NAME>-<role>`."""
    return f"{req.name}-{role.name}"


def _pod_template(req: CreateRequest, role: Role, resource: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [engine_container(req, role, resource)]}
    if role.accelerator_key:
        spec["nodeSelector"] = {ACCELERATOR_LABEL + role.accelerator_key: "true"}
    return {"metadata": {"labels": _own_labels(req, role)}, "spec": spec}


def _own_labels(req: CreateRequest, role: Role) -> dict[str, str]:
    """What names the deployment and the role (why-pending reads the role from app.kubernetes.io/component)."""
    instance = req.name if names.is_label_value(req.name) else names.pod_group_name(req.namespace, req.name)
    return {INSTANCE_LABEL: instance, COMPONENT: role.name}


def _kueue_labels(req: CreateRequest, queue: str) -> dict[str, str]:
    return {QUEUE_LABEL: queue, **({PRIORITY_CLASS: req.priority_class} if req.priority_class else {})}


def lws_spec(req: CreateRequest, role: Role, resource: str | None) -> dict[str, Any]:
    """An LWS's spec: REPLICAS groups of SIZE Pods (a leader and SIZE-1 workers; one Pod and no leader template
    for size 1), each Pod with the role's cards."""
    size = role.size or 1
    lwt: dict[str, Any] = {"size": size}
    if size > 1:
        lwt["leaderTemplate"] = _pod_template(req, role, resource)
    lwt["workerTemplate"] = _pod_template(req, role, resource)
    return {"replicas": role.replicas, "leaderWorkerTemplate": lwt}


def render_lws(req: CreateRequest, roles: list[Role], queues: dict[str, str],
               covered: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One LeaderWorkerSet per role, the queue label on its own metadata."""
    out = []
    for role in roles:
        resource = credits_resource(role, (covered or {}).get(role.name), req.resource)
        out.append({
            "apiVersion": LWS_API,
            "kind": "LeaderWorkerSet",
            "metadata": {"name": lws_name(req, role), "namespace": req.namespace,
                         "labels": {**_own_labels(req, role), **_kueue_labels(req, queues[role.name])}},
            "spec": lws_spec(req, role, resource),
        })
    return out


def render_ds(req: CreateRequest, roles: list[Role], queues: dict[str, str],
              covered: dict[str, str] | None = None) -> dict[str, Any]:
    """One DisaggregatedSet: each role's queue label on the role's metadata, which its LWS receives (never on the
    set's own metadata, where nothing carries it down)."""
    instance = _own_labels(req, roles[0])[INSTANCE_LABEL] if roles else req.name
    out_roles = []
    for role in roles:
        resource = credits_resource(role, (covered or {}).get(role.name), req.resource)
        out_roles.append({"name": role.name,
                          "metadata": {"labels": {COMPONENT: role.name, **_kueue_labels(req, queues[role.name])}},
                          "spec": lws_spec(req, role, resource)})
    return {"apiVersion": DS_API, "kind": "DisaggregatedSet",
            "metadata": {"name": req.name, "namespace": req.namespace, "labels": {INSTANCE_LABEL: instance}},
            "spec": {"roles": out_roles}}


def render(req: CreateRequest, roles: list[Role], queues: dict[str, str],
           covered: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The objects create writes for REQ's framework target."""
    if req.target == DS:
        return [render_ds(req, roles, queues, covered)]
    return render_lws(req, roles, queues, covered)


def workloads_of(roles: list[Role]) -> dict[str, int]:
    """How many Workloads Kueue makes per role: one per LWS group, so the role's replicas (each role its own LWS,
    both targets); a role asking no cards is still its own Workloads."""
    return {r.name: r.replicas for r in roles}


def check(req: CreateRequest, roles: list[Role]) -> list[str]:
    """The rules of the framework targets that need no cluster."""
    what = KIND[req.target]
    problems: list[str] = []
    for i, r in enumerate(roles):
        if r.image is None:
            problems.append(f"{r.flag}: spec.roles[{i}].image is required with --target {req.target}: no operator "
                            f"assembles an image for a {what} (image= on the role, or --engine-image for every "
                            f"role that names none) [rule image]")
        if r.pods > INT32_MAX:
            problems.append(f"{r.flag}: {r.replicas:,} replicas x {r.size or 1} Pods is {r.pods:,} Pods: the "
                            f"LeaderWorkerSet webhook refuses more than {INT32_MAX:,} [rule replicas]")
        problems += _name_rule(req, r)
    if req.target == DS and not DS_ROLES[0] <= len(roles) <= DS_ROLES[1]:
        problems.append(f"a DisaggregatedSet has {DS_ROLES[0]} to {DS_ROLES[1]} roles (spec.roles of its CRD), "
                        f"not {len(roles)}: use --target lws for a single role [rule roles-count]")
    for flag, given in (("--router", req.router), ("--kv-cache-pool", req.kv_cache_pool)):
        if given is not None:
            problems.append(f"{flag}: a {what} has no such field; use --target modeldeployment [rule api-field]")
    return problems


def _name_rule(req: CreateRequest, r: Role) -> list[str]:
    """Each role's LWS name is a label value on its Pods (leaderworkerset.sigs.k8s.io/name) and its headless
    Service's name: a DNS-1035 label of at most 63 characters."""
    if req.target == DS:
        name, how = f"{req.name}-{'x' * DS_REVISION_LEN}-{r.name}", "<NAME>-<8-character revision>-<role>"
    else:
        name, how = lws_name(req, r), "<NAME>-<role>"
    if len(name) <= 63 and _DNS_1035.fullmatch(name):
        return []
    return [f"{r.flag}: the role's LeaderWorkerSet name ({how}, {len(name)} characters) must be a DNS-1035 label: "
            f"at most 63 characters, starting with a letter [rule name]"]
