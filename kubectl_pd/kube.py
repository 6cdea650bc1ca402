"""Small typed views of the core Kubernetes objects the commands read beside Kueue's (Pods, Events, Nodes,
Namespaces).

Like `kueue.model`, a view is parsed once where it is read and never raises: a field that is absent or
holds something else reads as empty (or None where "not there" and "empty" differ).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from kubectl_pd.kueue.model import Condition, PodSet, SpecMemo, Taint, conditions_of, pod_set_of_spec, to_int
from kubectl_pd.kueue.quantity import try_parse
from kubectl_pd.records import dataclass, field


def _d(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _str_map(x: Any) -> dict[str, str]:
    return {str(k): v for k, v in _d(x).items() if isinstance(v, str)}


@dataclass(frozen=True)
class Owner:
    kind: str
    name: str
    uid: str
    controller: bool = False


def owners_of(meta: Mapping[str, Any]) -> tuple[Owner, ...]:
    refs = meta.get("ownerReferences")
    return tuple(Owner(str(r.get("kind") or ""), str(r.get("name") or ""), str(r.get("uid") or ""),
                       bool(r.get("controller"))) for r in (refs if isinstance(refs, list) else [])
                 if isinstance(r, dict))


@dataclass(frozen=True)
class Pod:
    name: str
    namespace: str | None
    uid: str | None
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    phase: str | None = None
    deleting: bool = False  # metadata.deletionTimestamp is set
    node_name: str | None = None
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    owners: tuple[Owner, ...] = ()
    created: str = ""  # metadata.creationTimestamp
    label_keys: frozenset[str] = frozenset()  # every key of metadata.labels, whatever its value holds
    template: PodSet = PodSet("", 1, {})  # the PodSpec as the pod set it makes (name "", count 1): what a Pod asks
    node_selector: Mapping[str, str] = field(default_factory=dict)  # spec.nodeSelector, as text
    gate_names: tuple[object, ...] = ()  # spec.schedulingGates[].name as written (one per gate)
    unschedulable: str | None = None  # PodScheduled=False/Unschedulable: the scheduler's message
    waiting: bool = False  # not on a node yet, not finished (spec.nodeName empty, phase absent or Pending)
    finalizers: tuple[str, ...] = ()  # metadata.finalizers: what holds a deleted Pod until its controller lets go

    @property
    def gates(self) -> tuple[str, ...]:
        return tuple(map(str, self.gate_names))

    @property
    def ready(self) -> bool:
        c = self.conditions.get("Ready")
        return c is not None and c.true


def _list(value: Any) -> list[Any]:
    """A list field as read; anything else (a scrambled file's `true`) holds nothing."""
    return value if isinstance(value, list) else []


def _gates(spec: dict[str, Any]) -> tuple[object, ...]:
    return tuple(_d(g).get("name") for g in _list(spec.get("schedulingGates")) if _d(g))


def _unschedulable(status: dict[str, Any]) -> str | None:
    """The message of the first PodScheduled=False condition whose reason is Unschedulable."""
    for c in _list(status.get("conditions")):
        c = _d(c)
        if c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "Unschedulable":
            return str(c.get("message") or "")
    return None


def pod(obj: Any, specs: SpecMemo | None = None) -> Pod:
    """`specs`: the run's SpecMemo (kueue.model.pod_set_of_spec)."""
    obj = _d(obj)
    meta, spec, status = _d(obj.get("metadata")), _d(obj.get("spec")), _d(obj.get("status"))
    phase, node = status.get("phase"), spec.get("nodeName")
    return Pod(str(meta.get("name") or ""), meta.get("namespace") if isinstance(meta.get("namespace"), str) else None,
               str(meta["uid"]) if meta.get("uid") else None, _str_map(meta.get("labels")),
               _str_map(meta.get("annotations")), phase if isinstance(phase, str) else None,
               bool(meta.get("deletionTimestamp")), node if isinstance(node, str) and node else None,
               conditions_of(obj), owners_of(meta), str(meta.get("creationTimestamp") or ""),
               frozenset(map(str, _d(meta.get("labels")))), pod_set_of_spec("", 1, spec, memo=specs),
               {str(k): str(v) for k, v in _d(spec.get("nodeSelector")).items()}, _gates(spec),
               _unschedulable(status), not spec.get("nodeName") and status.get("phase") in (None, "Pending"),
               tuple(str(f) for f in _list(meta.get("finalizers")) if isinstance(f, str)))


@dataclass(frozen=True)
class Event:
    """A core/v1 or events.k8s.io/v1 Event: the object it is about, why, and how often."""

    involved_name: str | None
    involved_kind: str | None
    reason: str | None
    message: str | None  # `message`, else events.k8s.io's `note`
    count: int | None = None
    first_timestamp: str | None = None
    type: str | None = None  # Normal | Warning
    when: str = ""  # its last time: lastTimestamp, else eventTime, firstTimestamp, creationTimestamp ("": none)


def event(obj: Any) -> Event:
    obj = _d(obj)
    inv = _d(obj.get("involvedObject")) or _d(obj.get("regarding"))  # core/v1, else events.k8s.io/v1
    msg = obj.get("message") or obj.get("note")
    first = obj.get("firstTimestamp")

    def s(x: Any) -> str | None:
        return x if isinstance(x, str) else None

    return Event(s(inv.get("name")), s(inv.get("kind")), s(obj.get("reason")), msg if isinstance(msg, str) else None,
                 to_int(obj.get("count")), str(first) if first else None, s(obj.get("type")), _when(obj))


def _when(obj: dict[str, Any]) -> str:
    meta = _d(obj.get("metadata"))
    for v in (obj.get("lastTimestamp"), obj.get("eventTime"), obj.get("firstTimestamp"), meta.get("creationTimestamp")):
        if isinstance(v, str) and v:
            return v
    return ""


@dataclass(frozen=True)
class Node:
    """A Node as a flavor's fit is judged: its labels, allocatable and taints (why-pending's checks and capacity's
    "never" read the one record)."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    allocatable: Mapping[str, Fraction | None] = field(default_factory=dict)  # None: not a quantity
    taints: tuple[Taint, ...] = ()


def node(obj: Any) -> Node:
    obj = _d(obj)
    meta = _d(obj.get("metadata"))
    raw = _d(obj.get("spec")).get("taints")
    taints = tuple(Taint(str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or ""))
                   for t in (raw if isinstance(raw, list) else []) if isinstance(t, dict) and t)
    return Node(str(meta.get("name") or ""), {str(k): str(v) for k, v in _d(meta.get("labels")).items()},
                {str(k): try_parse(v) for k, v in _d(_d(obj.get("status")).get("allocatable")).items()}, taints)


@dataclass(frozen=True)
class Namespace:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


def namespace(obj: Any) -> Namespace:
    obj = _d(obj)
    meta = _d(obj.get("metadata"))
    labels = meta.get("labels")
    return Namespace(str(meta.get("name") or ""), labels if isinstance(labels, dict) else {})


@dataclass(frozen=True)
class WatchEvent:
    """One event of a held watch as the watcher reads it: its type (ADDED, MODIFIED, DELETED, BOOKMARK) and
    the resourceVersion it brings (None: none readable). Nothing else of the object is kept."""

    type: str
    resource_version: str | None = None


def watch_event(typ: Any, obj: Any) -> WatchEvent:
    rv = _d(_d(obj).get("metadata")).get("resourceVersion")
    return WatchEvent(typ if isinstance(typ, str) else "", rv if isinstance(rv, str) and rv else None)
