"""What a diagnosis is made of (the json/yaml shape follows these), and small readers shared by its parts."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from kubectl_pd.gpustack.model import ModelDeployment
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.quantity import card_count, format_cards, format_quantity, is_credits
from kubectl_pd.pending.say import Say as Say  # re-exported: the diagnosis speaks in these
from kubectl_pd.pending.say import say as say
from kubectl_pd.pending.target import Target
from kubectl_pd.records import dataclass, field
from kubectl_pd.registry import REASONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kubectl_pd.kueue.preempt_answer import Answer
    from kubectl_pd.registry import ReasonCode

CODES = tuple(e.id for e in REASONS)




_REASON_FIELDS = frozenset(("code", "message", "role", "workload", "kueue_message", "resource", "flavor", "requested",
                            "available", "needed", "hint", "params", "summary", "clauses"))


def amended(r: Reason, **changes: Any) -> Reason:
    """A new Reason: `r` with `changes` (its fields by keyword), as records.replace makes it but without a
    frozen __init__'s field-by-field assignment (a run makes thousands). `r` itself is unchanged."""
    unknown = changes.keys() - _REASON_FIELDS
    if unknown:
        raise TypeError(f"Reason has no field {min(unknown)!r}")
    new = object.__new__(Reason)
    fields = new.__dict__
    fields.update(r.__dict__)
    fields.update(changes)
    return new


def read_only(values: Mapping[str, Any] | None = None) -> MappingProxyType[str, Any]:
    """A read-only copy of `values`: what a Reason holds as its `params`."""
    return MappingProxyType(dict(values)) if values else _NO_PARAMS


_NO_PARAMS: MappingProxyType[str, Any] = MappingProxyType({})  # read-only, so every Reason without params shares it


@dataclass(frozen=True)
class Reason:
    """One thing that keeps the target from being admitted, with its numbers and Kueue's own words; what
    the screen says of it (`message`, `clauses`, `summary`) is said by pending/words.py. Frozen: a later step
    returns what it found and pending/compose.py builds the final Reason from both (nothing is patched)."""

    code: ReasonCode
    message: Say
    role: str | None = None
    workload: str | None = None
    kueue_message: str | None = None
    resource: str | None = None
    flavor: str | None = None
    requested: Fraction | None = None
    available: Fraction | None = None
    needed: Fraction | None = None
    hint: Say | None = None
    params: MappingProxyType[str, Any] = field(default_factory=read_only)  # the code's further parameters (registry
    # entry), read-only: build it with read_only({...})
    summary: Say | None = None  # the headline's clause, when shorter than the message
    clauses: tuple[Say, ...] = ()  # what the message goes on to say, in the order pending/compose.py documents


@dataclass
class RoleRow:
    """One role of the per-role table: pods have/want, request per pod, flavor, verdict."""

    name: str
    kind: str
    have: int
    want: int | None
    requests: dict[str, Fraction]  # per pod
    flavor: str | None
    verdict: str
    reserved: bool = False  # every pod set of the role holds a quota reservation
    assumed: bool = False  # `want` is --what-if's, not the deployment's


@dataclass
class Ahead:
    """One Workload ahead of ours in the ClusterQueue, with its requests when its Workload was read."""

    name: str
    namespace: str
    position: int  # 1-based, in the ClusterQueue
    priority: int | None
    local_queue: str | None
    requests: dict[str, Fraction] | None  # None = its Workload could not be read


@dataclass(frozen=True)
class Placement:
    """Where MultiKueue put one of the target's Workloads, as the manager's Workload says (status.clusterName,
    status.nominatedClusterNames)."""

    workload: str
    cluster: str | None
    nominated: tuple[str, ...]


@dataclass(frozen=True)
class WorkloadRow:
    """One of a deployment's Workloads on the screen of a deployment of many (an LWS group, a DisaggregatedSet
    role's group, a Deployment's Pod, a GPUStack per-replica group): `role` and `group` as the objects name them
    (None: not named), `admitted` from its QuotaReserved/Admitted conditions as read."""

    name: str
    role: str | None
    group: str | None
    admitted: bool


@dataclass(frozen=True)
class Held:
    """What admitted Workloads hold in one flavor, in the resource's own unit (kueue/quantity)."""

    flavor: str
    resource: str
    quantity: Fraction


@dataclass(frozen=True)
class PartlyAdmitted:
    """Some of one deployment's Workloads are admitted and others wait: the record behind the `PartlyAdmitted`
    headline and behind a role's verdict taken from all its Workloads (a role is waiting while any of its groups
    waits). Roles and groups as WorkloadRow names them; `held` is the quota the admitted ones hold while the
    deployment as a whole serves nothing."""

    admitted_roles: tuple[str, ...]
    waiting_roles: tuple[str, ...]
    waiting_workloads: tuple[str, ...]
    held: tuple[Held, ...]
    admitted_workloads: tuple[str, ...] = ()

    @property
    def lacking(self) -> tuple[str, ...]:
        """The waiting roles none of whose Workloads is admitted: without them the admitted ones serve nothing."""
        return tuple(r for r in self.waiting_roles if r not in self.admitted_roles)


@dataclass
class Diagnosis:
    """Everything the text screen and the json/yaml views show; built once, by keyword, at the end of
    pending/diagnose.diagnose, and no step sets a field of it (not frozen: `why-pending -A` makes thousands,
    and a frozen record's __init__ costs measurably more under callgrind; its Reasons are frozen)."""

    target: Target
    pending: bool
    reasons: list[Reason]
    roles: list[RoleRow]
    local_queue: str | None = None
    cluster_queue: str | None = None
    position: int | None = None  # 1-based position in the ClusterQueue (visibility API)
    position_in_local_queue: int | None = None
    bars: list[vd.FlavorBar] = field(default_factory=list)
    notes: list[Say] = field(default_factory=list)
    hints: list[Say] = field(default_factory=list)
    joint: dict[tuple[str, str], Fraction] = field(default_factory=dict)  # (flavor, resource) -> what the
    # pending roles need together beyond what is free
    shape: str = "single"  # pd-atomic | per-replica | single
    suggestions: list[Any] = field(default_factory=list)  # suggest.Suggestion: what would admit it now
    what_if: dict[str, int] = field(default_factory=dict)  # --what-if role=N the diagnosis assumed
    ahead: list[Ahead] | None = None  # the Workloads before ours (visibility API); None = not known
    visibility: str = "not-read"  # the ClusterQueue's pending Workloads: listed | not-listed | not-served | not-read
    cq_pending: int | None = None  # the ClusterQueue's status.pendingWorkloads
    deployment: ModelDeployment | None = None  # a v1 deployment whose operator wrote its phase or roleSummary
    placements: list[Placement] = field(default_factory=list)  # its Workloads a MultiKueue worker holds or admitted
    workloads: list[WorkloadRow] = field(default_factory=list)  # a deployment of many Workloads: one row each
    partly: PartlyAdmitted | None = None  # some of its Workloads admitted, others waiting
    preemption: tuple[Answer, ...] = ()  # frozen: its Workloads' preemption answers, each returned with its
    # assignment (kueue/preempt_answer.Judged), and who preempted each preempted one; the printers read them here

    @property
    def code(self) -> str:
        return self.reasons[0].code if self.reasons else "Unknown"


def fmt(q: Fraction | None, resource: str | None) -> str:
    """Quantities as Kubernetes prints them; GPUStack credits as cards too."""
    if q is None:
        return "?"
    if resource and is_credits(resource):
        return f"{format_cards(q)} ({format_quantity(q, resource)} {resource})"
    return f"{format_quantity(q, resource or '')} {resource or ''}".strip()


def short(q: Fraction | None, resource: str | None) -> str:
    if q is None:
        return "?"
    if resource and is_credits(resource):
        return format_cards(q)
    return f"{format_quantity(q, resource or '')} {resource or ''}".strip()


def amount_of(q: Fraction | None, resource: str) -> str:
    """`6` for 6 cards (the unit follows), else the quantity."""
    return card_count(q)[0] if q is not None and is_credits(resource) else short(q, resource)


def more(q: Fraction | None, resource: str | None) -> str:
    """`4 more cards`, `500m more cpu`."""
    if resource and is_credits(resource) and q is not None:
        n, unit = card_count(q)
        return f"{n} more {unit}"
    return f"{short(q, resource)} more"

