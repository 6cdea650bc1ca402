"""PD201-PD203: what a GPUStack instance-type queue must look like (gpustack-modeldeployment.md §2.2, §4).

GPUStack's operator builds one ClusterQueue per InstanceType, labelled
`resource.gpustack.ai/type: instancetypes`, covering exactly one resource: the manufacturer's credits
(1,600,000 per card) for an accelerated pool, or `cpu`. One resource means one resource group.
"""

from __future__ import annotations

import copy
import re
from fractions import Fraction
from typing import Any

from kubectl_pd import memo
from kubectl_pd.cluster.source import labels_of
from kubectl_pd.gpustack.names import parse_queue_name
from kubectl_pd.kueue.quantity import CREDITS_PER_CARD, is_credits
from kubectl_pd.lint.context import ACCEL_LABEL_PREFIX
from kubectl_pd.lint.findings import Finding, ObjectRef
from kubectl_pd.lint.limits import MODERN, Limits
from kubectl_pd.lint.resource_groups import GROUPS, QUANTITY_FIELDS, flavor_key, groups_of, quantity

Obj = dict[str, Any]
TYPE_LABEL = "resource.gpustack.ai/type"
TYPE_INSTANCETYPES = "instancetypes"
_CREDITS_RE = re.compile(r"^credits\.gpustack\.ai/[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def is_gpustack_queue(obj: Obj) -> bool:
    return obj.get("kind") == "ClusterQueue" and labels_of(obj).get(TYPE_LABEL) == TYPE_INSTANCETYPES


def expected_manufacturer(obj: Obj) -> str | None:
    """The manufacturer of the queue's accelerator key label (`acceleratable.feature.gpustack.ai/nvidia-h20`)."""
    for label in labels_of(obj):
        if isinstance(label, str) and label.startswith(ACCEL_LABEL_PREFIX):
            key = label[len(ACCEL_LABEL_PREFIX):]
            if "-" in key and "." not in key:
                return key.split("-", 1)[0]
    return None


def _cards(q: Fraction) -> str:
    c = q / CREDITS_PER_CARD
    return f"{float(c):.4g}"


@memo.per_run(4096)  # the run's memo (kubectl_pd/memo.py)
def _whole_cards(key: tuple[Any, ...]) -> bool:
    """Whether every credits quota among these resources (a `flavor_key`) is a whole number of cards:
    checked once per flavor shape, as in resource_groups."""
    for items, _ in key:
        r = dict(items)
        if not isinstance(r.get("name"), str) or not is_credits(r["name"]):
            continue
        for fname in QUANTITY_FIELDS:
            if _fractional_cards(quantity(r.get(fname))):
                return False
    return True


def _fractional_cards(q: Fraction | None) -> bool:
    """A credits quota that is not a whole number of cards (an absent or negative one is another rule's)."""
    return not (q is None or q < 0 or (q.denominator == 1 and q.numerator % CREDITS_PER_CARD == 0))


def check_gpustack_queue(obj: Obj, ref: ObjectRef, limits: Limits = MODERN) -> list[Finding]:
    """PD201-PD203 of one GPUStack instance-type ClusterQueue, rule by rule."""
    groups = groups_of(obj)
    covers = [list(g.get("coveredResources") or []) for g in groups]
    out = _one_group(ref, groups, covers, limits)
    out += _one_resource(ref, covers, expected_manufacturer(obj))
    out += _whole_card_quotas(ref, groups)
    return out


def _one_group(ref: ObjectRef, groups: list[Obj], covers: list[list[str]], limits: Limits) -> list[Finding]:
    """PD201: more than one resource group, and why (the old 16-flavor split, when it looks like one)."""
    if len(groups) <= 1:
        return []
    same = all(sorted(c) == sorted(covers[0]) for c in covers)
    split16 = same and all(len(g.get("flavors") or []) == 16 for g in groups[:-1])
    total = sum(len(g.get("flavors") or []) for g in groups)
    why = ""
    if same:
        cause = ("the split the old buildResourceGroups made every 16 flavors" if split16
                 else "the groups cover the same resource")
        if total <= limits.flavors_per_group:
            remedy = f"one group of {total} flavors is what the queue should hold"
        else:
            remedy = (f"{total} flavors exceed the {limits.flavors_per_group} one group may hold, so the pool "
                      f"needs coarser flavors or several queues")
        why = f": {cause}; {remedy}"
    return [Finding(
        "PD201", ref, (*GROUPS, 1),
        f"a GPUStack queue covers one resource, so it can have only one resource group; this one has "
        f"{len(groups)} groups with {total} flavors in all{why}")]


def _one_resource(ref: ObjectRef, covers: list[list[str]], manufacturer: str | None) -> list[Finding]:
    """PD202: a group that does not cover exactly credits or cpu, or credits of another manufacturer."""
    out: list[Finding] = []
    for i, cov in enumerate(covers):
        path = (*GROUPS, i, "coveredResources")
        ok = len(cov) == 1 and (cov[0] == "cpu" or bool(_CREDITS_RE.match(cov[0])))
        if not ok:
            out.append(Finding(
                "PD202", ref, path,
                f"coveredResources [{', '.join(cov)}]: a GPUStack queue covers exactly one resource, "
                f"credits.gpustack.ai/<manufacturer> for an accelerated pool or cpu otherwise"))
        elif manufacturer and is_credits(cov[0]) and cov[0] != f"credits.gpustack.ai/{manufacturer}":
            out.append(Finding(
                "PD202", ref, path,
                f"coveredResources [{cov[0]}] does not match the queue's accelerator label "
                f"({ACCEL_LABEL_PREFIX}{manufacturer}-...): expected credits.gpustack.ai/{manufacturer}"))
    return out


def _whole_card_quotas(ref: ObjectRef, groups: list[Obj]) -> list[Finding]:
    """PD203: a credits quota that is not a whole number of cards (flavor shapes known whole are skipped)."""
    out: list[Finding] = []
    for i, g in enumerate(groups):
        for j, fl in enumerate(g.get("flavors") or []):
            resources = fl.get("resources") or []
            key = flavor_key(resources)
            if key is not None and _whole_cards(key):
                continue
            for k, r in enumerate(resources):
                if not is_credits(r["name"]):
                    continue
                for fname in QUANTITY_FIELDS:
                    q = quantity(r.get(fname))
                    if q is None or not _fractional_cards(q):
                        continue
                    out.append(Finding(
                        "PD203", ref, (*GROUPS, i, "flavors", j, "resources", k, fname),
                        f"{fname} {r[fname]} of {r['name']} is {_cards(q)} cards: GPUStack counts 1,600,000 "
                        f"credits per card, so a quota is a whole number of cards (1600k each)"))
    return out


def drop_limits_without_cohort(obj: Obj, groups: list[Obj]) -> tuple[list[Obj], list[str]]:
    """PD109's fix on a GPUStack queue: the operator's auto-derived queues are isolated (no cohortName), yet one OLDER
    era of it set `lendingLimit: 0` on every quota (gpustack/gpustack-operator
    pkg/worker/controllers/worker/nodequeue.go@000eb15f, `isolate`; its queues are named `gpustack-<key>-<os>-<arch>`),
    which Kueue's webhook refuses ("must be nil when cohort is empty"). The later NodeQueueReconciler
    (pkg/worker/controllers/worker/node_queue.go, the stored version id 68873985490, `buildResourceGroups`) sets no
    limit and says why: Kueue rejects a limit on a queue in no cohort. That it is the later one is inferred from that
    comment and its TAS-aware flavors (the stored versions carry no dates), and the v0.11.2 docs spell the queues
    `gpustack--<key>-<os>-<arch>`. With no cohort there is nothing to lend to or borrow from, so the limit is dropped
    (not a cohort invented).
    `groups` (already rewritten) is not modified; the new groups and a sentence per change come back."""
    spec: Obj = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
    if not is_gpustack_queue(obj) or spec.get("cohortName") or spec.get("cohort"):
        return groups, []
    out, changes = copy.deepcopy(groups), []
    parts = parse_queue_name(str((obj.get("metadata") or {}).get("name") or ""))
    what = (f"GPUStack's auto-derived queue for {parts['key']} ({parts['os']}/{parts['arch']})" if parts
            else "a GPUStack queue")
    for i, g in enumerate(out):
        for j, fl in enumerate(g.get("flavors") or [] if isinstance(g, dict) else []):
            for r in fl.get("resources") or [] if isinstance(fl, dict) else []:
                for limit in ("lendingLimit", "borrowingLimit"):
                    if isinstance(r, dict) and limit in r:
                        del r[limit]
                        changes.append(f"dropped {limit} of {r.get('name')!r} in resourceGroups[{i}].flavors[{j}]: "
                                       f"{what} has no cohort, so there is nothing to "
                                       f"{'lend to' if limit == 'lendingLimit' else 'borrow from'}")
    return out, changes
