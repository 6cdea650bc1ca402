"""Every fact that depends on which Kueue a cluster runs, in one place (docs/architecture.md, principle 10).

What is here, by version (sources cited on each table):
- the `kueue.x-k8s.io` API versions served (v1beta1 is not served from 0.20);
- the resourceGroups limits (changed in 0.14) and ConcurrentAdmission's flavors per group (16, 32 from 0.20);
- the order of a plain pod group's pod sets (role hash, scheduling shape from 0.20);
- the QuotaReserved reason vocabulary (0.19's tokens, KEP-10852's on by default from 0.20).

Which version applies is decided once (`resolve`): `--kueue-version`, else what the cluster serves (API
discovery of kueue.x-k8s.io), else the newest release known here, marked as a default: a fact that would
*refuse* something (v1beta1 not served) is only asserted when the version is known, never on a default.
"""

from __future__ import annotations

import re

from kubectl_pd.records import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

Version = tuple[int, int]
KUEUE_GROUP = "kueue.x-k8s.io"

KNOWN: tuple[Version, ...] = ((0, 18), (0, 19), (0, 20), (0, 21))
NEWEST: Version = (0, 20)  # the newest release (0.21 is in release candidates: known, with 0.20's facts)
# CHANGELOG-0.20.md, Actions Required: "Kueue no longer serves kueue.x-k8s.io/v1beta1" (#14558)
V1BETA1_LAST: Version = (0, 19)

FLAG = "flag"  # --kueue-version
SERVED = "served"  # API discovery of kueue.x-k8s.io
DEFAULT = "default"  # nothing said: the newest known

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")


def parse_version(text: str) -> Version:
    """`0.18`, `v0.13.2`, `0.14.0-rc.1` -> (major, minor); ValueError otherwise."""
    m = _VERSION_RE.match(text.strip())
    if not m:
        raise ValueError(f"{text!r} is not a Kueue version such as 0.20 or v0.19.2")
    return int(m.group(1)), int(m.group(2))


def text(v: Version) -> str:
    return f"{v[0]}.{v[1]}"


# -- resourceGroups limits (reference/kueue.md §5; peers.md §4.2) -----------------------------------------------

@dataclass(frozen=True)
class Limits:
    groups: int = 16
    flavors_per_group: int = 64
    covered_per_group: int = 64
    flavors_total: int | None = 256  # None: no separate total check (before 0.14)
    covered_total: int | None = 256
    pairs_per_group: int | None = 512
    version_text: str = "Kueue 0.14+"


MODERN = Limits()
LEGACY = Limits(flavors_per_group=16, covered_per_group=16, flavors_total=None, covered_total=None,
                pairs_per_group=None, version_text="Kueue before 0.14")


def limits_for(version: Version | None) -> Limits:
    """The limits of a Kueue version; None (not given) means current Kueue."""
    if version is not None and version < (0, 14):
        return LEGACY
    return MODERN


# -- the version a run judges against ----------------------------------------------------------------------------

@dataclass(frozen=True)
class KueueLine:
    """The Kueue version facts are looked up for, and how it is known (FLAG, SERVED or DEFAULT).

    `version` None with SERVED: discovery said only "0.19 or older" (v1beta1 and v1beta2 both served)."""

    version: Version | None
    source: str = DEFAULT
    at_most: Version | None = None  # SERVED with both API versions: at most this release

    @property
    def known(self) -> bool:
        return self.source != DEFAULT

    @property
    def effective(self) -> Version:
        """The version whose facts apply: the given one, else the newest that fits what is known."""
        if self.version is not None:
            return self.version
        return self.at_most or NEWEST

    @property
    def label(self) -> str:
        if self.version is not None:
            return f"Kueue {text(self.version)}"
        if self.at_most is not None:
            return f"Kueue {text(self.at_most)} or older"
        return f"Kueue {text(NEWEST)}"


DEFAULT_TARGET = KueueLine(None)


def from_flag(value: str) -> KueueLine:
    """`--kueue-version`; ValueError for what is not a version."""
    return KueueLine(parse_version(value), FLAG)


def from_served(versions: Iterable[str]) -> KueueLine:
    """What API discovery of kueue.x-k8s.io says: v1beta2 alone is 0.20 or newer (no newer release is
    known than NEWEST, so NEWEST); v1beta1 next to v1beta2 is 0.19 or older; nothing served: DEFAULT."""
    served = set(versions)
    if "v1beta2" in served and "v1beta1" not in served:
        return KueueLine(NEWEST, SERVED)
    if "v1beta1" in served:
        return KueueLine(None, SERVED, V1BETA1_LAST)
    return DEFAULT_TARGET


def resolve(flag: str | None, served: Iterable[str] | None) -> KueueLine:
    """The flag wins; then discovery (None: not asked, e.g. files); else the default."""
    if flag is not None:
        return from_flag(flag)
    if served is not None:
        return from_served(served)
    return DEFAULT_TARGET


# -- API versions served ----------------------------------------------------------------------------------------

def serves_v1beta1(target: KueueLine) -> bool | None:
    """Does that Kueue serve kueue.x-k8s.io/v1beta1? None when the version is not known (a default)."""
    if not target.known:
        return None
    return target.effective <= V1BETA1_LAST


def stopped_serving(api_version: str) -> Version | None:
    """The release that stopped serving `kueue.x-k8s.io/<v>` (None: still served by every known release)."""
    return (0, 20) if api_version == "kueue.x-k8s.io/v1beta1" else None


# -- ConcurrentAdmission ----------------------------------------------------------------------------------------

def concurrent_admission_flavors(target: KueueLine) -> int:
    """Most flavors in the one ResourceGroup of a ClusterQueue with a concurrentAdmissionPolicy:
    16 (clusterqueue_webhook.go:231@v0.18.4), 32 from 0.20 (CHANGELOG-0.20.md, Feature, ConcurrentAdmission:
    "Increased the maximum number of ResourceFlavors per ResourceGroup from 16 to 32", #15949)."""
    return 32 if target.effective >= (0, 20) else 16


# -- the admission engine ---------------------------------------------------------------------------------------

ENGINE_DEFAULT: Version = (0, 18)  # the version the seed deploys (0.18.4), the engine's default


def no_candidates_ranks_last(kueue: Version) -> bool:
    """0.19 and later: a flavor with nothing to preempt ranks below every viable one (flavorassigner.go@v0.19.2)."""
    return kueue >= (0, 19)


# -- the pod sets of a plain pod group --------------------------------------------------------------------------

# roles (pod sets) one pod group may have: 10 in 0.18, 18 in 0.19 (pod_controller.go@v0.18.4, @v0.19.2)
MAX_ROLES: dict[Version, int] = {(0, 18): 10, (0, 19): 18}

ROLE_HASH = "role-hash"  # constructGroupPodSets sorts by name = role hash (pod_controller.go:828@v0.19.2)
SCHEDULING_SHAPE = "scheduling-shape"  # PodGroupSchedulingShapeOrdering, Beta on by default (CHANGELOG-0.20.md #14809)


def pod_set_order(target: KueueLine) -> str:
    return SCHEDULING_SHAPE if target.effective >= (0, 20) else ROLE_HASH


def pod_set_orders(target: KueueLine, role_hashes: Iterable[str]) -> list[tuple[str, ...]]:
    """The orders a pod group's pod sets (named by role hash) may take on that Kueue. Before 0.20 one: sorted by
    name. From 0.20 the sort key is a hash of each role's scheduling shape (kubernetes-sigs/kueue#14809: "sort pod
    sets by shape-derived hash"), which cannot be computed here, so every order is possible: a caller (create's
    preflight) judges each and says "depends on the order" when they disagree, never one order as Kueue's."""
    names = tuple(dict.fromkeys(role_hashes))
    if pod_set_order(target) == ROLE_HASH:
        return [tuple(sorted(names))]
    from itertools import permutations

    return sorted(set(permutations(names)))


# -- the QuotaReserved=False reason vocabulary ------------------------------------------------------------------

# Kueue's reason token -> our reason code. 0.19's granular tokens (UnadmittedWorkloadsObservability, alpha) and
# KEP-10852's, on by default from 0.20 (CHANGELOG-0.20.md, Observability, #13063); the token constants are
# apis/kueue/v1beta2/workload_types.go@ff69552e79ad21652c36caa97038382e55625cf7 (WorkloadQuotaReservedReason*,
# WorkloadAdmissionGated, WorkloadOnHold); DRAResourcesUnresolved is CHANGELOG-0.20.md, Feature, DRA (#16123).
# A token's message is parsed first (the same words as 0.18's Inadmissible ones, e.g. `LocalQueue %s doesn't
# exist` under Misconfigured): the code here is what the token alone says.
TOKENS_019: dict[str, str] = {
    "NoMatchingFlavor": "NoMatchingFlavor", "WaitingForQuota": "QuotaExhausted",
    "ExceedsMaxQuota": "QuotaExceedsCapacity", "TopologyPlacementFailed": "NoMatchingFlavor",
    "WaitingForPreemptedWorkloads": "PreemptionInProgress", "PendingEvaluation": "WaitingInQueue",
    "WaitingForPodsReady": "WaitingForPodsReady", "Waiting": "WaitingForPodsReady", "Deactivated": "Deactivated",
}
TOKENS_020: dict[str, str] = {
    **TOKENS_019,
    "Misconfigured": "Misconfigured",  # missing LocalQueue/ClusterQueue, invalid namespace selector, admissibility
    "Suspended": "QueueSuspended",  # a LocalQueue or ClusterQueue stopPolicy, or an inactive LocalQueue
    "AdmissionGated": "AdmissionGated",  # the kueue.x-k8s.io/admission-gated-by annotation
    "OnHold": "OnHold",  # quota released on purpose, not requeued (StatefulSet scaled to zero)
    "DRAResourcesUnresolved": "DRAResourcesUnresolved",
}


def reason_tokens(target: KueueLine) -> dict[str, str]:
    """The tokens a Kueue of that version writes. A token a later release added is still read on an older
    target (a cluster may run a patch release with it): the vocabulary only grows."""
    return TOKENS_020


# Causes of an eviction new in 0.20 (status.schedulingStats.evictions[].reason / underlyingCause, the Evicted
# condition's reason) -> our reason code.
# WaitForScheduling: "Workloads whose required Pods remain unscheduled are evicted after
# waitForPodsReady.unscheduledTimeout" (CHANGELOG-0.20.md, Feature, WaitForPodsReady, #15402; the reason
# WorkloadWaitForScheduling, #15434).
EVICTION_CAUSES_020: dict[str, str] = {
    "WaitForScheduling": "PodsUnscheduledTimeout",
}
