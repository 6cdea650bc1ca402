"""The English of create's preflight: one sentence per finding, made from its sentence id and its values
(create/preflight.py decides and says which; nothing here decides)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue import resources as rs
from kubectl_pd.kueue.quantity import CREDITS_PER_CARD, format_cards, format_quantity, is_credits


def text(say: str, values: dict[str, Any]) -> str:
    """The sentence `say` with its values (a finding's params and the words it alone needs)."""
    return SENTENCES[say](**values)


def amount(q: Fraction | None, resource: str | None) -> str:
    """A quantity of `resource` as a user reads it: credits with their cards, anything else as Kubernetes writes it."""
    if q is None:
        return "?"
    if is_credits(resource or ""):
        return f"{_credits(q)} ({format_cards(q)})"
    return format_quantity(q, resource or "")


def _credits(q: Fraction) -> str:
    return f"{int(q):,}" if q.denominator == 1 else f"{float(q):,.3f}"


def _no_node_fits(role: str, clusterQueue: str, flavor: str, nodes: int, resource: str | None = None,
                  requested: Fraction | None = None, largest: Fraction | None = None, node: str | None = None,
                  **_: Any) -> str:
    where = f"flavor {flavor} of ClusterQueue {clusterQueue!r}"
    if resource is None:
        why = (f"none of the {nodes} Node(s) of {where} takes its Pods (their nodeSelector or an untolerated "
               f"taint)")
    else:
        why = (f"one Pod asks {amount(requested, resource)} {resource}, and the largest of the {nodes} Node(s) "
               f"of {where}, {node}, allocates {amount(largest, resource)}")
    return (f"role {role!r}: {why}: Kueue would admit it and no Node could ever run it (why-pending would say "
            f"PodsUnschedulable; use fewer cards per Pod or another instanceType; --force writes it anyway)")


def _skipped_nodes(what: str, reason: str, **_: Any) -> str:
    return (f"could not check {what}: {reason}; whether a Node could hold the roles' Pods is unknown (Node "
            f"allocatable not weighed)")


def _integration_off(framework: str, frameworks: Any, source: str, **_: Any) -> str:
    where = "its ConfigMap" if source == "configmap" else "--kueue-config"
    listed = ", ".join(frameworks) if frameworks else "none"
    return (f"Kueue's configuration ({where}) does not enable the {framework!r} integration (integrations.frameworks: "
            f"{listed}): Kueue would not manage these objects, so no Workload would hold them to the queue's quota "
            f"and their Pods would run outside it; add {framework!r} to integrations.frameworks (--force writes "
            f"them anyway)")


def _who(roles: Any) -> str:
    return ", ".join(repr(r) for r in roles)


def _instance_type(roles: Any, instanceType: str, **_: Any) -> str:
    return (f"role(s) {_who(roles)}: InstanceType {instanceType!r} does not exist (spec.roles[].instanceType): "
            f"see `kubectl get instancetypes`")


def _accelerator_type(role: str, acceleratorType: str, **_: Any) -> str:
    return (f"role {role!r} names acceleratorType {acceleratorType!r}, not an InstanceType: AcceleratorTypes are "
            f"not read here, so its queue and quota are not weighed")


def _no_entrance(instanceType: str, localQueue: str, **_: Any) -> str:
    return f"InstanceType {instanceType!r} has no status.entrance yet: assuming LocalQueue {localQueue!r}"


def _lq_missing(roles: Any, localQueue: str, namespace: str, instanceType: str | None = None, **_: Any) -> str:
    of = f" (the entrance of InstanceType {instanceType!r})" if instanceType else ""
    return (f"role(s) {_who(roles)}: LocalQueue {localQueue!r}{of} does not exist in namespace {namespace!r}: "
            f"GPUStack creates it in every non-system namespace; reserved namespaces have none")


def _detail(reason: str, message: str) -> str:
    """The Active condition's reason and message, as Kueue wrote them."""
    return ": ".join(x for x in (reason, message) if x)


def _lq_inactive(roles: Any, localQueue: str, reason: str, message: str, **_: Any) -> str:
    return f"role(s) {_who(roles)}: LocalQueue {localQueue!r} is not active ({_detail(reason, message)})"


def _cq_missing(roles: Any, clusterQueue: str, **_: Any) -> str:
    return f"role(s) {_who(roles)}: ClusterQueue {clusterQueue!r} does not exist"


def _cq_inactive(roles: Any, clusterQueue: str, reason: str, message: str, **_: Any) -> str:
    return f"role(s) {_who(roles)}: ClusterQueue {clusterQueue!r} is not active ({_detail(reason, message)})"


def _cq_stopped(roles: Any, clusterQueue: str, stopPolicy: str, **_: Any) -> str:
    return f"role(s) {_who(roles)}: ClusterQueue {clusterQueue!r} is stopped (spec.stopPolicy {stopPolicy})"


def _cq_no_condition(clusterQueue: str, **_: Any) -> str:
    return f"ClusterQueue {clusterQueue!r} has not reported an Active condition yet"


def _joint_check(clusterQueue: str, admissionCheck: str, **_: Any) -> str:
    return (f"ClusterQueue {clusterQueue!r} does not reference the AdmissionCheck {admissionCheck!r}: its "
            f"replica groups are admitted one by one, not together with the other roles")


def _accelerator_key(role: str, acceleratorKey: str, clusterQueue: str, offered: Any, **_: Any) -> str:
    return (f"role {role!r}: acceleratorKey {acceleratorKey!r} is not offered by any flavor of ClusterQueue "
            f"{clusterQueue!r} (offered: {', '.join(offered) or 'none'}); Kueue would drop the selector, admit, "
            f"and the Pod would hang at the scheduler")


def _unit(perReplica: bool, podSet: str | None = None) -> str:
    if podSet is not None:  # a pod set of an LWS group (create --target lws|disaggregatedset)
        return f"pod set {podSet!r} of each group of role"
    return "each replica of role" if perReplica else "role"


def _formula(count: int, size: int, perPod: Fraction, perReplica: bool, resource: str = "") -> str:
    """How a role's request adds up: replicas x Pods x cards (x credits a card, for GPUStack's credits)."""
    what = f"{count} Pod(s)" if perReplica else f"{count // max(size, 1)} replica(s)"
    if size > 1 and not perReplica:
        what += f" x {size} Pod(s)"
    k = rs.per_card(resource)
    if k is None:
        return f"{what} x {format_quantity(perPod, resource)}"
    return f"{what} x {_maybe(perPod / k)} card(s)" + (f" x {k:,}" if k != 1 else "")


def _cards(q: Fraction | None, resource: str) -> str:
    """A quantity in cards where the resource counts cards (else as Kubernetes writes it)."""
    c = rs.cards_of(resource, q or Fraction(0))
    if c is None:
        return format_quantity(q or Fraction(0), resource)
    return format_cards(c * CREDITS_PER_CARD)


def _maybe(q: Fraction | None) -> str:
    return "?" if q is None else _credits(q)


def _asks(role: str, resource: str, asked: Fraction | None, count: int, size: int, perPod: Fraction,
          perReplica: bool, previous: Fraction | None = None, podSet: str | None = None) -> str:
    """'role X asks N resource (formula = cards)', and what the roles before it take."""
    ahead = "the pod sets and groups before it" if podSet is not None else "the roles before it"
    before = f" next to {_maybe(previous)} for {ahead}" if previous else ""
    return (f"{_unit(perReplica, podSet)} {role!r} asks {_maybe(asked)} {resource} "
            f"({_formula(count, size, perPod, perReplica, resource)} = {_cards(asked, resource)}){before}")


_ASKS = ("role", "resource", "asked", "count", "size", "perPod", "perReplica", "previous", "podSet")


def _asked(values: dict[str, Any]) -> str:
    return _asks(**{k: values[k] for k in _ASKS if k in values})


def _never_fits(flavor: str, clusterQueue: str, capacity: Fraction | None, nominal: Fraction | None,
                **values: Any) -> str:
    cap = capacity or Fraction(0)
    lent = f"nominal {_maybe(nominal)} + {_maybe(cap - (nominal or 0))} its cohort may lend" \
        if nominal is not None and cap > nominal else "its nominal quota"
    return (f"{_asked(values)}, but flavor {flavor} of ClusterQueue {clusterQueue!r} can give at most "
            f"{_maybe(cap)} ({_cards(cap, values.get('resource', ''))}: {lent}): it can never be admitted "
            f"(why-pending would say "
            f"QuotaExceedsCapacity; use another instanceType, fewer replicas or cards; --force writes it anyway)")


def _no_matching_flavor(role: str, clusterQueue: str, attempts: Any, perReplica: bool, podSet: str | None = None,
                        **_: Any) -> str:
    from kubectl_pd.kueue.words import attempt_text

    parts = "; ".join(attempt_text(x) for x in attempts)
    return (f"{_unit(perReplica, podSet)} {role!r}: no flavor of ClusterQueue {clusterQueue!r} takes it ({parts}): "
            f"it can never be admitted (--force writes it anyway)")


def _waits(code: str, flavor: str, available: Fraction | None, needed: Fraction | None, **values: Any) -> str:
    how = "by preempting other Workloads" if code == "NeedsPreemption" else "once quota frees"
    return (f"{_asked(values)}; flavor {flavor} has {_maybe(available)} unused now: it will stay pending until it "
            f"gets {_maybe(needed)} more ({_cards(needed, values.get('resource', ''))}), {how} (why-pending would say "
            f"{code})")


def _fit_unknown(role: str, clusterQueue: str, perReplica: bool, unread: str | None = None, podSet: str | None = None,
                 **_: Any) -> str:
    what = "its cohort could not be read" if unread == "cohort" else "a quota could not be read"
    return f"{_unit(perReplica, podSet)} {role!r}: whether it fits ClusterQueue {clusterQueue!r} is unknown: {what}"


def _order_unknown(clusterQueue: str, orders: dict[str, list[str]], **_: Any) -> str:
    said = "; ".join(f"pod sets {o}: {', '.join(c)}" for o, c in orders.items())
    return (f"whether it fits ClusterQueue {clusterQueue!r} now depends on the order Kueue gives the pod sets, which "
            f"Kueue 0.20 and later derive from each role's scheduling shape and which cannot be known here ({said})")


def _skipped_read(kind: str, reason: str, name: str | None = None, **_: Any) -> str:
    return f"could not check {kind} {name!r}: {reason}" if name is not None else \
        f"could not check {kind} objects: {reason}"


def _admitted_apart(kind: str, workloads: dict[str, int], fits: list[str], waits: list[str], unknown: list[str],
                    partly: bool, held: list[dict[str, str]], **_: Any) -> str:
    each = "each group of each role's LeaderWorkerSet" if kind == "DisaggregatedSet" else \
        "each group of each LeaderWorkerSet"
    count = ", ".join(f"{n} for {r!r}" for r, n in workloads.items())
    head = (f"Kueue admits this {kind} apart: {each} is its own Workload ({count}), admitted or kept waiting on its "
            f"own, never together")
    if partly:
        holds = "; ".join(f"{h['quantity']} {h['resource']} for {h['role']!r}" for h in held)
        held_part = f", holding {holds}," if holds else ""
        return (f"{head}. Now, taken in the order create writes them, {_who(fits)} would be admitted{held_part} "
                f"while {_who(waits)} wait(s): the deployment would serve nothing until every role runs (one pod "
                f"group, `--target pods`, is admitted whole)")
    now = ""
    if waits and not fits and not unknown:
        now = f"; now no role fits: every role waits ({_who(waits)})"
    elif fits and not waits and not unknown:
        now = "; now every role fits"
    elif unknown:
        now = f"; whether {_who(unknown)} fit(s) is unknown"
    return (f"{head}{now}. Should one role be admitted while another waits, the admitted one holds its quota and "
            f"the deployment serves nothing (one pod group, `--target pods`, is admitted whole)")


# sentence id -> its sentence: a constant table (create/preflight.py names the ids)
def _priority_class_missing(priorityClass: str, **_: Any) -> str:
    return (f"WorkloadPriorityClass {priorityClass!r} does not exist: Kueue would not admit the group's Workload "
            f"(see `kubectl get workloadpriorityclasses`)")


SENTENCES: dict[str, Callable[..., str]] = {
    "no-node-fits": _no_node_fits,
    "skipped.nodes": _skipped_nodes,
    "instance-type": _instance_type,
    "accelerator-type": _accelerator_type,
    "local-queue.no-entrance": _no_entrance,
    "local-queue.missing": _lq_missing,
    "local-queue.inactive": _lq_inactive,
    "cluster-queue.missing": _cq_missing,
    "cluster-queue.inactive": _cq_inactive,
    "cluster-queue.stopped": _cq_stopped,
    "cluster-queue.no-condition": _cq_no_condition,
    "joint-check": _joint_check,
    "accelerator-key": _accelerator_key,
    "never-fits": _never_fits,
    "no-matching-flavor": _no_matching_flavor,
    "waits-for-quota": _waits,
    "fit-unknown.quota": _fit_unknown,
    "fit-unknown.order": _order_unknown,
    "skipped.read": _skipped_read,
    "priority-class.missing": _priority_class_missing,
    "admitted-apart": _admitted_apart,
    "integration-off": _integration_off,
}
