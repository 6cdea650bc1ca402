"""One resource model: the unit of whatever a ClusterQueue covers, for every command.

A quota is kept in the unit of its resource, and nothing here guesses another: GPUStack's credit keys
(`credits.gpustack.ai/<vendor>`) count credits, 1,600,000 a card; a device plugin's extended resource
(`nvidia.com/gpu`, `amd.com/gpu`, any `vendor/name` that is not a native resource) counts devices, one a card;
cpu, memory, storage, Pods and huge pages count in their own units and are never cards. create renders a card of
a Pod as `per_card` of the resource its queue covers; capacity, create's preflight, queues and why-pending weigh
the same request back with `cards_of`. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from kubectl_pd.kueue.quantity import CREDITS_PER_CARD, CREDITS_PREFIX, try_parse

CREDIT = "credit"  # GPUStack's credits: CREDITS_PER_CARD a card
CARD = "card"  # a device plugin's count: one a card
NATIVE = "native"  # cpu, memory, storage, Pods, huge pages: their own units, never cards

_NATIVE = ("cpu", "memory", "ephemeral-storage", "pods", "storage")


def is_credits(resource: str) -> bool:
    return resource.startswith(CREDITS_PREFIX)


def is_native(resource: str) -> bool:
    return resource in _NATIVE or resource.startswith(("hugepages-", "requests.", "limits."))


def is_card(resource: str) -> bool:
    """A device count: an extended resource (vendor/name) that is neither native nor GPUStack's credits."""
    return "/" in resource and not is_native(resource) and not is_credits(resource)


def is_accelerator(resource: str) -> bool:
    """A resource a card of a Pod may request: GPUStack's credits or a device count."""
    return is_credits(resource) or is_card(resource)


def unit(resource: str) -> str:
    if is_credits(resource):
        return CREDIT
    if is_card(resource):
        return CARD
    return NATIVE


def per_card(resource: str) -> int | None:
    """How much of RESOURCE one card is (credits: 1,600,000; a device: 1); None: the resource is not a card."""
    if is_credits(resource):
        return CREDITS_PER_CARD
    if is_card(resource):
        return 1
    return None


def request_of(resource: str, n_cards: int) -> Fraction:
    """What a Pod of N_CARDS requests of RESOURCE (an accelerator resource; a native one asks N_CARDS as is)."""
    return Fraction(n_cards * (per_card(resource) or 1))


def cards_of(resource: str, q: Fraction | None) -> Fraction | None:
    """A quantity of RESOURCE in cards; None when the resource does not count cards (or q is unknown)."""
    k = per_card(resource)
    return None if k is None or q is None else q / k


def pod_cards(requests: Mapping[str, object]) -> tuple[str | None, Fraction]:
    """The accelerator resource a Pod's requests name (credits first) and how many cards they ask of it
    ((None, 0): none)."""
    found = sorted(((not is_credits(r), r), q) for r, v in requests.items()
                   if is_accelerator(str(r)) and (q := try_parse(v)) is not None and q > 0)
    if not found:
        return None, Fraction(0)
    (_, resource), q = found[0]
    return resource, cards_of(resource, q) or Fraction(0)


def accelerators(covered: Iterable[str]) -> list[str]:
    """The resources of COVERED a card may request, in the order the queue covers them, credits first."""
    names = list(covered)
    return [r for r in names if is_credits(r)] + [r for r in names if is_card(r)]
