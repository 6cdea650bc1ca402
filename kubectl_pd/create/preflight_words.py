"""The English of create's preflight: one sentence per finding, made from its sentence id and its values
(create/preflight.py decides and says which; nothing here decides)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue.quantity import format_cards, format_quantity, is_credits

SENTENCES: dict[str, Callable[..., str]] = {}


def _sentence(id: str) -> Callable[[Callable[..., str]], Callable[..., str]]:
    def register(fn: Callable[..., str]) -> Callable[..., str]:
        SENTENCES[id] = fn
        return fn
    return register


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


@_sentence("no-node-fits")
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


@_sentence("skipped")
def _skipped(what: str, reason: str, **_: Any) -> str:
    return f"could not check {what}: {reason}"


@_sentence("skipped.nodes")
def _skipped_nodes(what: str, reason: str, **_: Any) -> str:
    return (f"could not check {what}: {reason}; whether a Node could hold the roles' Pods is unknown (Node "
            f"allocatable not weighed)")
