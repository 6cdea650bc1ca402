"""Parsers for Kueue's own words (reference/kueue.md §3, §4.3, §6.4).

Kueue packs several reasons into one line and some reasons contain `, ` themselves, so nothing here
splits on commas: every reason is matched with an anchored pattern at the current position, and a
reason only ends where the next known reason begins (or the text ends). Anything unrecognised is
kept verbatim, so a caller can pass Kueue's text through rather than guess.
"""

from __future__ import annotations

import re
from fractions import Fraction

from kubectl_pd import memo
from kubectl_pd.kueue.quantity import try_parse
from kubectl_pd.lazyre import lazy as _lazy
from kubectl_pd.records import dataclass, field

# -- one flavor/resource reason inside "couldn't assign flavors to pod set X: ..." -----------------

INSUFFICIENT_QUOTA = "insufficient-quota"  # > maximum capacity: never fits as configured
INSUFFICIENT_UNUSED = "insufficient-unused"  # fits the queue, not its free quota now
NODE_AFFINITY = "node-affinity"
UNTOLERATED_TAINT = "untolerated-taint"
FLAVOR_NOT_FOUND = "flavor-not-found"
RESOURCE_UNAVAILABLE = "resource-unavailable"
TOPOLOGY = "topology"
SKIPPED = "skipped"
OTHER = "other"


@dataclass(frozen=True)
class FlavorReason:
    """One reason Kueue gave for one flavor (or resource) of one pod set."""

    kind: str
    text: str
    resource: str | None = None
    flavor: str | None = None
    requested: Fraction | None = None  # this pod set's request (insufficient-quota)
    previous: Fraction | None = None  # earlier pod sets of the same workload (insufficient-quota)
    capacity: Fraction | None = None  # maximum capacity; None when `<unlimited>` or not given
    needed: Fraction | None = None  # "N more needed"
    taint: str | None = None


_Q = r"[0-9A-Za-z.+\-]+"  # a printed quantity
_RES = r"[^\s,]+"
_FLV = r"[^\s,]+"

# where a new reason may begin: only at `, ` followed by one of these
_STARTS = (
    r"insufficient quota for ",
    r"insufficient unused quota for ",
    r"untolerated taint \{",
    r"flavor \S+ doesn't match node affinity",
    r"flavor \S+ not found",
    r"resource \S+ unavailable in ClusterQueue",
    r"skipping flavor ",
    r"could not assign \S+ flavor ",
    r"Flavor \"",
    r"topology \"",
    r"topology level not specified",
    r"no requested topology level",
    r"podset slice topology ",
    r"no topology domains at level",
    r"invalid podSetUpdate ",
    r"invalid node selectors",
    r"invalid affinity node selectors",
    r"cannot find replacement assignment",
)
_BOUNDARY = r"(?=, (?:" + "|".join(_STARTS) + r")|$)"

_REASONS: list[tuple[str, re.Pattern[str]]] = [
    (INSUFFICIENT_QUOTA, _lazy(
        rf"insufficient quota for (?P<res>{_RES}) in flavor (?P<flv>{_FLV}), previously considered podsets "
        rf"requests \((?P<prev>{_Q})\) \+ current podset request \((?P<req>{_Q})\) > maximum capacity "
        rf"\((?P<cap>{_Q}|<unlimited>)\)" + _BOUNDARY)),
    (INSUFFICIENT_UNUSED, _lazy(
        rf"insufficient unused quota for (?P<res>{_RES}) in flavor (?P<flv>{_FLV}), (?P<need>{_Q}) more needed"
        + _BOUNDARY)),
    (NODE_AFFINITY, _lazy(rf"flavor (?P<flv>{_FLV}) doesn't match node affinity" + _BOUNDARY)),
    (UNTOLERATED_TAINT, _lazy(rf"untolerated taint (?P<taint>\{{[^{{}}]*\}}) in flavor (?P<flv>{_FLV})"
                                   + _BOUNDARY)),
    (FLAVOR_NOT_FOUND, _lazy(rf"flavor (?P<flv>{_FLV}) not found" + _BOUNDARY)),
    (RESOURCE_UNAVAILABLE, _lazy(rf"resource (?P<res>{_RES}) unavailable in ClusterQueue" + _BOUNDARY)),
    (SKIPPED, _lazy(r"(?:skipping flavor (?P<flv>\S+) .*?|could not assign .*?)" + _BOUNDARY)),
    (TOPOLOGY, _lazy(r"(?:Flavor \"(?P<flv>[^\"]*)\" .*?|topology \"[^\"]*\" .*?|topology level .*?|"
                          r"no requested topology level.*?|podset slice topology .*?|no topology domains .*?|"
                          r"invalid podSetUpdate .*?|invalid node selectors.*?|invalid affinity node selectors.*?|"
                          r"cannot find replacement assignment.*?)" + _BOUNDARY)),
]
_ANY_REASON = _lazy(r".*?" + _BOUNDARY, re.DOTALL)


def _first(table: list[tuple[str, re.Pattern[str]]], text: str, pos: int = 0,
           *, advance: bool = False) -> tuple[str, re.Match[str]] | None:
    """The first (kind, match) of an ordered pattern table at `pos`; `advance` skips empty matches."""
    for kind, pat in table:
        if not text.startswith(getattr(pat, "prefix", ""), pos):
            continue  # cannot match here: not compiled
        m = pat.match(text, pos)
        if m and (not advance or m.end() > pos):
            return kind, m
    return None


def parse_flavor_reasons(text: str) -> list[FlavorReason]:
    """The reasons of one pod set, in Kueue's order (sorted by Kueue), each matched by an anchored pattern."""
    out: list[FlavorReason] = []
    pos = 0
    n = len(text)
    while pos < n:
        hit = _first(_REASONS, text, pos, advance=True)
        if hit is not None:
            out.append(_reason(*hit))
            pos = hit[1].end()
        else:
            m = _ANY_REASON.match(text, pos)
            end = m.end() if m and m.end() > pos else n
            out.append(FlavorReason(OTHER, text[pos:end]))
            pos = end
        if text.startswith(", ", pos):
            pos += 2
        elif pos < n:  # cannot happen with the boundary lookahead; keep the rest verbatim
            out.append(FlavorReason(OTHER, text[pos:]))
            break
    return out


def _reason(kind: str, m: re.Match[str]) -> FlavorReason:
    g = m.groupdict()
    cap = g.get("cap")
    return FlavorReason(
        kind=kind,
        text=m.group(0),
        resource=g.get("res"),
        flavor=g.get("flv"),
        requested=try_parse(g["req"]) if g.get("req") else None,
        previous=try_parse(g["prev"]) if g.get("prev") else None,
        capacity=try_parse(cap) if cap and cap != "<unlimited>" else None,
        needed=try_parse(g["need"]) if g.get("need") else None,
        taint=g.get("taint"),
    )


# -- a whole QuotaReserved=False message ----------------------------------------------------------------

@dataclass
class PodSetFailure:
    pod_set: str
    reasons: list[FlavorReason]
    text: str


@dataclass
class Message:
    """A parsed non-admission message. `kind` names the shape; unknown text has kind `unknown`."""

    kind: str
    text: str
    subject: str | None = None  # the LocalQueue / ClusterQueue / pod set the message names
    detail: str | None = None  # the %v part
    pod_sets: list[PodSetFailure] = field(default_factory=list)
    preempting: int | None = None  # ". Pending the preemption of N workload(s)"
    preemption_failed: int | None = None


_PREEMPT_SUFFIX = _lazy(r"\. Pending the preemption of (\d+) workload\(s\)$")
_PREEMPT_FAILED_SUFFIX = _lazy(r"\. Preempting (\d+) workload\(s\) failed, will retry\.$")
_MIGRATION_SUFFIX = _lazy(r"\. Pending the migration of \d+ workload\(s\)$")
_CHUNK_HEAD = _lazy(r"couldn't assign flavors to pod set (?P<ps>[^\s:]+): ")
_CHUNK_SEP = "; couldn't assign flavors to pod set "

# (kind, anchored pattern); the first full match wins
_WHOLE: list[tuple[str, re.Pattern[str]]] = [(k, _lazy(p, re.DOTALL)) for k, p in [
    ("failed-admission-checks", r"^The workload has failed admission checks$"),
    ("cq-inactive", r"^ClusterQueue (?P<s>\S+) is inactive$"),
    ("cq-not-found", r"^ClusterQueue (?P<s>\S+) not found$"),
    ("cq-missing", r"^ClusterQueue (?P<s>\S+) doesn't exist$"),
    ("cq-missing", r"^ClusterQueue (?P<s>\S+) is terminating or missing$"),
    ("cq-stopped", r"^ClusterQueue (?P<s>\S+) is stopped$"),
    ("lq-missing", r"^LocalQueue (?P<s>\S+) doesn't exist$"),
    ("lq-missing", r"^LocalQueue (?P<s>\S+) is terminating or missing$"),
    ("lq-stopped", r"^LocalQueue (?P<s>\S+) is inactive$"),
    ("lq-stopped", r"^LocalQueue (?P<s>\S+) is stopped$"),
    ("namespace-mismatch", r"^[Ww]orkload namespace doesn't match ClusterQueue selector$"),
    ("namespace-missing", r"^workload namespace (?P<s>\"[^\"]*\") does not exist: (?P<d>.*)$"),
    ("namespace-error", r"^Could not obtain workload namespace: (?P<d>.*)$"),
    ("invalid-resources", r"^resources validation failed: (?P<d>.*)$"),
    ("invalid-resources", r"^resources didn't satisfy LimitRange constraints: (?P<d>.*)$"),
    ("invalid-resources", r"^Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled$"),
    ("invalid-resources", r"^KueueDRAIntegration feature does not support use of resource claims$"),
    ("overlapping-preemption", r"^Workload has overlapping preemption targets with another workload"
                               r"(?P<d>, but will fit after these preemptions complete)?$"),
    ("no-longer-fits", r"^Workload no longer fits after processing another workload$"),
    ("preemption-gated", r"^Workload requires preemption, but it's gated$"),
    ("waiting-pods-ready", r"^waiting for all admitted workloads to be in PodsReady condition$"),
    ("admit-failed", r"^Failed to admit workload: (?P<d>.*)$"),
    ("pending-evaluation", r"^Workload is pending evaluation in the scheduling queue$"),
    ("bypassed", r"^Bypassed scheduling evaluation because an equivalent workload recently failed$"),
    ("variant-admitted", r"^A more favorable variant is already admitted$"),
    ("below-last-flavor", r"^Target flavor is below LastAcceptableFlavorName$"),
    ("admission-gated", r"^Admission is gated by: (?P<d>.*)$"),
    ("gate-cleared", r"^AdmissionGatedBy cleared, waiting for quota reservation$"),
    ("hard-error", r"^failed to assign flavors to pod set (?P<s>[^\s:]+): (?P<d>.*)$"),
    ("deactivated", r"^The workload is deactivated(?: due to (?P<d>.*))?$"),
]]


def parse_message(text: object) -> Message:
    """Parse a QuotaReserved=False message (or the same text on a `Pending` event). The result is shared by
    every caller that passes the same text (thousands of pending Workloads often carry a few messages):
    read it, never change it."""
    if not isinstance(text, str):
        return Message("unknown", "" if text is None else str(text))
    return _parse_text(text)


@memo.per_run(1024)  # the run's memo (kubectl_pd/memo.py): it dies with the run
def _parse_text(text: str) -> Message:
    body = text.strip()
    hit = _first(_WHOLE, body)
    if hit is not None:
        g = hit[1].groupdict()
        return Message(hit[0], text, subject=g.get("s"), detail=g.get("d"))
    msg = Message("unknown", text)
    rest = body
    for pat, attr in ((_PREEMPT_SUFFIX, "preempting"), (_PREEMPT_FAILED_SUFFIX, "preemption_failed")):
        m = pat.search(rest)
        if m:
            setattr(msg, attr, int(m.group(1)))
            rest = rest[: m.start()]
    m = _MIGRATION_SUFFIX.search(rest)
    if m:
        rest = rest[: m.start()]
    if _CHUNK_HEAD.match(rest):
        msg.kind = "flavors"
        for chunk in _chunks(rest):
            head = _CHUNK_HEAD.match(chunk)
            if head is None:
                continue
            reasons_text = chunk[head.end():]
            msg.pod_sets.append(PodSetFailure(head.group("ps"), parse_flavor_reasons(reasons_text), chunk))
    return msg


def _chunks(text: str) -> list[str]:
    """Split at `; couldn't assign flavors to pod set ` only (TAS reasons carry `; ` of their own)."""
    out, start = [], 0
    while True:
        i = text.find(_CHUNK_SEP, start)
        if i < 0:
            out.append(text[start:])
            return out
        out.append(text[start:i])
        start = i + 2


# -- ClusterQueue Active=False message (§4.3) -------------------------------------------------------------

@dataclass
class InactiveCause:
    kind: str  # stopped | missing-flavors | missing-checks | inactive-checks | missing-topology | multikueue | other
    text: str
    names: list[str] = field(default_factory=list)


_CQ_HEAD = _lazy(r"^Can't admit new workloads(?::\s(?P<parts>.*?))?\.?$", re.DOTALL)
_CQ_PART_STARTS = (r"is stopped", r"references missing ResourceFlavor\(s\): ",
                   r"references missing AdmissionCheck\(s\): ", r"references inactive AdmissionCheck\(s\): ",
                   r"there is no Topology ", r"Cannot ")
_NAMES = r"(?P<n>[^\s,]+(?:,[^\s,]+)*)"  # a list joined with `,` and no space
_CQ_BOUNDARY = r"(?=, (?:" + "|".join(_CQ_PART_STARTS) + r")|$)"
_CQ_PARTS: list[tuple[str, re.Pattern[str]]] = [
    ("stopped", _lazy(r"is stopped" + _CQ_BOUNDARY)),
    ("missing-flavors", _lazy(r"references missing ResourceFlavor\(s\): " + _NAMES + _CQ_BOUNDARY)),
    ("missing-checks", _lazy(r"references missing AdmissionCheck\(s\): " + _NAMES + _CQ_BOUNDARY)),
    ("inactive-checks", _lazy(r"references inactive AdmissionCheck\(s\): " + _NAMES + _CQ_BOUNDARY)),
    ("missing-topology", _lazy(r"there is no Topology \"(?P<t>[^\"]*)\" for TAS flavor \"(?P<f>[^\"]*)\""
                                    + _CQ_BOUNDARY)),
    ("multikueue", _lazy(r"Cannot .*?" + _CQ_BOUNDARY)),
]
_CQ_ANY = _lazy(r".*?" + _CQ_BOUNDARY, re.DOTALL)


def parse_cq_inactive(text: object) -> list[InactiveCause]:
    """The causes listed in `Can't admit new workloads: <parts>.`; [] when the text has another shape."""
    if not isinstance(text, str):
        return []
    m = _CQ_HEAD.match(text.strip())
    if not m:
        return []
    parts = m.group("parts")
    if not parts:
        return []
    parts = parts.removesuffix(".")
    out: list[InactiveCause] = []
    pos = 0
    while pos < len(parts):
        hit = _first(_CQ_PARTS, parts, pos, advance=True)
        if hit is not None:
            kind, pm = hit
            g = pm.groupdict()
            names = g["n"].split(",") if g.get("n") else [x for x in (g.get("t"), g.get("f")) if x]
            out.append(InactiveCause(kind, pm.group(0), names))
            pos = pm.end()
        else:
            am = _CQ_ANY.match(parts, pos)
            end = am.end() if am and am.end() > pos else len(parts)
            out.append(InactiveCause("other", parts[pos:end]))
            pos = end
        if parts.startswith(", ", pos):
            pos += 2
        elif pos < len(parts):
            out.append(InactiveCause("other", parts[pos:]))
            break
    return out


# -- pod-group compose events (§6.4) and admission-check texts (§3.3) ------------------------------------

@dataclass
class ComposeError:
    kind: str  # fewer-pods | queue-mismatch | count-mismatch | too-many-roles | name-conflict | other
    text: str
    group: str | None = None
    values: tuple[str, ...] = ()


_COMPOSE: list[tuple[str, re.Pattern[str]]] = [(k, _lazy(p, re.DOTALL)) for k, p in [
    ("fewer-pods", r"^(?:.*: )?'(?P<g>[^']*)' group has fewer runnable pods than expected$"),
    ("queue-mismatch", r"^(?:.*: )?pods '(?P<a>[^']*)' and '(?P<b>[^']*)' has different queue names: "
                       r"(?P<x>.*)!=(?P<y>.*)$"),
    ("count-mismatch", r"^(?:.*: )?pods '(?P<a>[^']*)' and '(?P<b>[^']*)' has different "
                       r"'kueue\.x-k8s\.io/pod-group-total-count' values: (?P<x>-?\d+)!=(?P<y>-?\d+)$"),
    ("too-many-roles", r"^(?:.*: )?pod group can't include more than (?P<x>\d+) roles$"),
    ("name-conflict", r"^A Workload named (?P<g>\"[^\"]*\") already exists but is not a pod group workload; "
                      r"this pod group cannot be admitted$"),
    ("label-conflict", r"^(?:.*: )?constructing workload: pods have different label values.*$"),
]]


def parse_compose_error(text: object) -> ComposeError:
    if not isinstance(text, str):
        return ComposeError("other", "" if text is None else str(text))
    body = text.strip()
    hit = _first(_COMPOSE, body)
    if hit is None:
        return ComposeError("other", text)
    g = hit[1].groupdict()
    group = g.get("g")
    if group and group.startswith('"'):
        group = group[1:-1]
    vals = tuple(v for v in (g.get("a"), g.get("b"), g.get("x"), g.get("y")) if v is not None)
    return ComposeError(hit[0], text, group, vals)


_CHECKS_MSG = _lazy(r"^(?:(?:Deactivated|Evicted|The workload is deactivated) due to )?"
                         r"AdmissionChecks? in (?P<state>\w+) state: (?P<items>.*)$", re.DOTALL)
_CHECK_ITEM = _lazy(r"\"(?P<n>(?:[^\"\\]|\\.)*)\"(?: \((?P<m>.*?)\))?(?=; \"|$)", re.DOTALL)


def parse_checks_message(text: object) -> tuple[str, list[tuple[str, str]]] | None:
    """`AdmissionCheck(s) in <state> state: "a" (msg); "b"` -> (state, [(name, message)]), else None."""
    if not isinstance(text, str):
        return None
    m = _CHECKS_MSG.match(text.strip())
    if not m:
        return None
    items: list[tuple[str, str]] = []
    rest, pos = m.group("items"), 0
    while pos < len(rest):
        im = _CHECK_ITEM.match(rest, pos)
        if not im:
            break
        items.append((im.group("n"), im.group("m") or ""))
        pos = im.end()
        if rest.startswith("; ", pos):
            pos += 2
    return m.group("state"), items


PARKED_MARKER = "parked rather than held"

_PREEMPTED = _lazy(r"^Preempted to accommodate a workload \(UID: (?P<uid>[^,]*), JobUID: (?P<job>[^)]*)\) "
                        r"due to (?P<why>.*?); preemptor path: (?P<a>.*?); preemptee path: (?P<b>.*?)(?:;.*)?$",
                        re.DOTALL)


def parse_preempted(text: object) -> str | None:
    """The cause in a Preempted eviction message (`prioritization in the ClusterQueue`, ...), else None."""
    if not isinstance(text, str):
        return None
    m = _PREEMPTED.match(text.strip())
    return m.group("why") if m else None


_GATED_BY = _lazy(r"^Admission is gated by: (?P<g>.+)$")


def admission_gated_by(text: str | None) -> tuple[str, ...]:
    """The gates of `Admission is gated by: %s` (workload_controller.go:1987@ff69552e79ad21652c36caa97038382e55625cf7,
    the kueue.x-k8s.io/admission-gated-by annotation: comma-separated names); () for other words."""
    m = _GATED_BY.match((text or "").strip())
    return tuple(g.strip() for g in m.group("g").split(",") if g.strip()) if m else ()


# TAS exclusion stats (tasExclusionStats.formatReasons, pkg/cache/scheduler/tas_flavor_snapshot.go:500-521
# @ff69552e79ad21652c36caa97038382e55625cf7): `nodeSelector: %d`, `affinity: %d`, `topologyDomain: %d`,
# `schedulerLibraryNoFit: %d`, `taint %q: %d`, `resource %q: %d`, sorted and joined by ", ".
_EXCLUSION = _lazy(r'(?:(?P<kind>nodeSelector|affinity|topologyDomain|schedulerLibraryNoFit)|'
                   r'(?P<what>taint|resource) "(?P<name>(?:[^"\\]|\\.)*)"): (?P<n>\d+)(?:, |$)')


def parse_exclusions(text: str) -> dict[str, object] | None:
    """`nodeSelector: 2, resource "cpu": 4` -> {"nodeSelector": 2, "resources": {"cpu": 4}}; None when any part
    is not one of Kueue's exclusion reasons (then nothing is claimed from them)."""
    out: dict[str, object] = {}
    taints: dict[str, int] = {}
    resources: dict[str, int] = {}
    pos = 0
    while pos < len(text):
        m = _EXCLUSION.match(text, pos)
        if m is None or m.end() == pos:
            return None
        if m.group("kind"):
            out[m.group("kind")] = int(m.group("n"))
        else:
            (taints if m.group("what") == "taint" else resources)[m.group("name")] = int(m.group("n"))
        pos = m.end()
    if taints:
        out["taints"] = taints
    if resources:
        out["resources"] = resources
    return out


def no_single_node_fits(total_nodes: int, exclusions: dict[str, object]) -> bool:
    """Every node of the flavor is excluded and some for lack of a resource: no single node can take one pod
    (with TASNodeFeasibilityForAllLevels, Beta and on in Kueue 0.20, also for topologies without a hostname
    level; CHANGELOG-0.20.md #14191 "Workloads that fit a domain's total capacity but no single node are no
    longer admitted"). The reasons are counted once per node (fillLeafCounts, tas_flavor_snapshot.go:1915@
    ff69552e79ad21652c36caa97038382e55625cf7)."""
    resources = exclusions.get("resources")
    if not isinstance(resources, dict) or not resources or total_nodes <= 0:
        return False
    counted = sum(v for v in exclusions.values() if isinstance(v, int))
    counted += sum(sum(d.values()) for d in exclusions.values() if isinstance(d, dict))
    return counted >= total_nodes
