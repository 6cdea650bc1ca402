"""Views of a Diagnosis: the text screen and the json/yaml dict (one shape, documented in README.md)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubectl_pd.kueue.quantity import cards, format_quantity, is_credits
from kubectl_pd.kueue.verdicts import FlavorBar
from kubectl_pd.output import bars
from kubectl_pd.pending import placements as mk_listing
from kubectl_pd.pending import words
from kubectl_pd.pending.model import Ahead, Diagnosis, Reason, RoleRow, short
from kubectl_pd.records import dataclass

_COLORS = {"fits": "32", "admitted": "32", "blocked": "31", "unknown": "33"}


def _q(q: Fraction | None, resource: str | None) -> str | None:
    return None if q is None else format_quantity(q, resource or "")


def to_dict(d: Diagnosis, *, placements: bool = True) -> dict[str, Any]:
    """The json/yaml shape: target, pending, reasons, roles, queue (+ notes and next). PLACEMENTS: the list's brief
    `multikueue` (where its Workloads went); a TARGET's document carries the whole MultiKueue answer instead."""
    return {
        "target": {"kind": d.target.kind, "name": d.target.name, "namespace": d.target.namespace},
        "pending": d.pending,
        "reasons": [_reason_dict(r) for r in d.reasons],
        "roles": [_role_dict(r) for r in d.roles],
        "queue": {"localQueue": d.local_queue, "clusterQueue": d.cluster_queue, "position": d.position,
                  "positionInLocalQueue": d.position_in_local_queue, "visibility": d.visibility,
                  "pendingInClusterQueue": d.cq_pending,
                  **({"ahead": [_ahead_dict(a) for a in d.ahead]} if d.ahead is not None else {})},
        "summary": words.story(d) or words.headline(d),
        "notes": [words.text(n) for n in d.notes],
        "next": [words.hint(h) for h in d.hints],
        "suggestions": [_suggestion_dict(s) for s in d.suggestions],
        "quota": [_bar_dict(b) for b in d.bars],
        **({"whatIf": dict(d.what_if), "whatIfVerdict": words.what_if_verdict(d)} if d.what_if else {}),
        **({"deployment": _deployment_dict(d)} if d.deployment is not None else {}),
        **(mk_listing.to_dict(d) if placements and d.placements else {}),  # `multikueue`: where its Workloads went
        **({"workloads": [{"name": w.name, "role": w.role, "group": w.group, "admitted": w.admitted}
                          for w in d.workloads]} if d.workloads else {}),  # a deployment of many Workloads
    }


def _deployment_dict(d: Diagnosis) -> dict[str, Any]:
    """What GPUStack's operator says of the whole deployment (status.phase, roleSummary, roles[]): None = not
    written (unknown, never zero)."""
    from kubectl_pd.pending.md_v1 import role_status
    from kubectl_pd.pending.operator import condition_rows

    md = d.deployment
    assert md is not None
    return {"apiVersion": md.api_version, "phase": md.phase or None, "phaseMessage": md.phase_message,
            "roleSummary": md.role_summary, "roles": role_status(md), "conditions": condition_rows(md)}


def _bar_dict(b: FlavorBar) -> dict[str, Any]:
    """One flavor's quota as the text view draws it; `cohort` and `borrowable` when the peers were read."""
    r = b.resource
    return {"flavor": b.flavor, "resource": r, "nominal": _q(b.nominal, r), "used": _q(b.used, r),
            "reserved": _q(b.reserved, r), "needed": _q(b.needed, r), "free": _q(b.free, r), "cohort": b.cohort,
            "cohortFree": _q(b.cohort_free, r), "borrowable": _q(b.borrowable, r),
            "borrowingLimit": _q(b.borrowing_limit, r), "borrowed": _q(b.borrowed, r),
            "lent": _q(b.lent, r) if b.lent_known else None}


def _ahead_dict(a: Ahead) -> dict[str, Any]:
    return {"name": a.name, "namespace": a.namespace, "position": a.position, "priority": a.priority,
            "localQueue": a.local_queue,
            "requests": None if a.requests is None else {k: format_quantity(v, k)
                                                         for k, v in sorted(a.requests.items())}}


def _ahead_text(d: Diagnosis) -> str | None:
    """`ahead: team-b/llama-70b (4 cards)` — how much quota stands before ours."""
    if not d.ahead:
        return None
    parts = []
    for a in d.ahead[:5]:
        req = ("requests unknown" if a.requests is None else
               ", ".join(short(v, k) for k, v in sorted(a.requests.items())) or "no requests")
        parts.append(f"#{a.position} {a.namespace}/{a.name} ({req})")
    total = d.position - 1 if d.position else len(d.ahead)  # the list holds the queue's first few of them
    more_ = f", and {total - 5} more" if total > 5 else ""
    return "  ahead: " + "; ".join(parts) + more_


def _suggestion_dict(s: Any) -> dict[str, Any]:
    params = {k: format_quantity(v, s.params.get("resource", "")) if isinstance(v, Fraction) else v
              for k, v in s.params.items()}
    src, dst = (format_quantity(v, s.params.get("resource", "")) if isinstance(v, Fraction) else v
                for v in (s.source, s.target))
    return {"kind": s.kind, "role": s.role, "from": src, "to": dst, **params}


def suggestion_text(s: Any, code: str = "") -> str:
    """One suggestion in English; the engine checked that it would admit the deployment now. CODE: the
    verdict's (a NeedsPreemption verdict is admitted by preemption, which "nothing short of more quota" denies)."""
    if s.kind == "scale":
        return (f"scale {s.role} from {s.source} to {s.target} replica{'s' if s.target != 1 else ''}: "
                f"then every role fits now")
    if s.kind == "queue" and getattr(s, "reach", None) == "instance-type":
        return (f"InstanceType {s.target} (its ClusterQueue, which GPUStack's entrance LocalQueue of the namespace "
                f"reaches) has room for every role now")
    if s.kind == "queue":  # plain Kueue: reached only through a LocalQueue of the namespace, which was not read
        return (f"ClusterQueue {s.target} has room for every role now, if a LocalQueue of the namespace points at "
                f"it (none was read: kubectl get localqueues; a ClusterQueue no LocalQueue reaches admits nothing "
                f"of it)")
    if s.kind == "borrowing-limit":
        res = s.params.get("resource", "")
        return (f"raise borrowingLimit of {res} in flavor {s.params.get('flavor')} from "
                f"{short(s.source, res)} to {short(s.target, res)}: the cohort can lend it now")
    if code in ("NeedsPreemption", "PreemptionInProgress"):
        return "no fewer replicas, other queue or borrowing admits it now: only preemption or more quota"
    return "nothing short of more quota admits it now: no fewer replicas, other queue or borrowing would"



def _reason_dict(r: Reason) -> dict[str, Any]:
    res = r.resource
    return {
        "code": r.code, "role": r.role, "workload": r.workload, "message": words.message(r),
        "kueueMessage": r.kueue_message, "resource": res, "flavor": r.flavor,
        "requested": _q(r.requested, res), "available": _q(r.available, res), "needed": _q(r.needed, res),
        "params": {k: _plain(v, res) for k, v in r.params.items()},
    }


def _plain(v: Any, resource: str | None) -> Any:
    """Quantities (also nested ones) as Kubernetes prints them."""
    if isinstance(v, Fraction):
        return format_quantity(v, resource or "")
    if type(v) is str or v is None:
        return v
    if isinstance(v, dict):
        return {k: _plain(x, resource) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x, resource) for x in v]
    return v


def _role_dict(r: RoleRow) -> dict[str, Any]:
    return {
        "name": r.name, "kind": r.kind,
        "pods": {"have": r.have, "want": r.want, **({"assumed": True} if r.assumed else {})},
        "requests": {k: format_quantity(v, k) for k, v in sorted(r.requests.items())},
        "flavor": r.flavor, "verdict": r.verdict,
    }


def _paint(text: str, code: str, color: bool) -> str:
    from kubectl_pd.termsafe import sgr

    return f"{sgr(code)}{text}{sgr(0)}" if color else text


def _per_pod(req: dict[str, Fraction]) -> str:
    if not req:
        return "-"
    parts = []
    for k, v in sorted(req.items(), key=lambda kv: (not is_credits(kv[0]), kv[0])):
        parts.append(short(v, k) if is_credits(k) else f"{k}={format_quantity(v, k)}")
    return ", ".join(parts)


def bar(b: FlavorBar, *, unicode: bool) -> str:
    """used / reserved / needed against nominal, e.g. `[####==++++......]`; overflow past nominal in `!`, what the
    cohort lends in `~` (output/bars.py: the one bar printer, queues' too)."""
    return bars.bar(bars.Figures(b.nominal, b.used, b.reserved, b.needed, b.borrowed, b.borrowable),
                    bars.WHY_PENDING_UNICODE if unicode else bars.WHY_PENDING)


def _amount(q: Fraction, resource: str) -> str:
    if is_credits(resource):
        c = cards(q)
        return str(c.numerator) if c.denominator == 1 else f"{float(c):.3g}"
    return format_quantity(q, resource)


def render_text(d: Diagnosis, *, color: bool = False, unicode: bool | None = None) -> str:
    """The one screen: headline, roles, quota bars, reasons with Kueue's words, next steps."""
    uni = color if unicode is None else unicode
    state = _paint("PENDING", "1;31", color) if d.pending else _paint("NOT PENDING", "1;32", color)
    if d.what_if:
        state = _paint("WHAT-IF", "1;33", color)
    out = [f"{state}  {words.headline(d)}"]
    if d.what_if:
        out.append(f"  {words.real_state(d)}")
    story = words.story(d)
    if story:
        out.append(f"  {story}")
    out += _queue_lines(d)
    out += _role_table(d, color)
    out += _workload_table(d, color)
    out += _bar_lines(d, uni)
    out += _reason_lines(d, color)
    hints = list(dict.fromkeys([suggestion_text(s, d.code) for s in d.suggestions]
                               + [words.hint(h) for h in d.hints]))  # a step said once
    if hints:
        out.append("")
        out.extend(f"  next: {h}" for h in hints[:5])
    return "\n".join(out) + "\n"


def _queue_lines(d: Diagnosis) -> list[str]:
    q = []
    if d.local_queue:
        q.append(f"LocalQueue {d.local_queue}")
    if d.cluster_queue:
        q.append(f"ClusterQueue {d.cluster_queue}")
    if d.position is not None:
        q.append(f"position {d.position}" + (f" (#{d.position_in_local_queue} in its LocalQueue)"
                                             if d.position_in_local_queue else ""))
    out = ["  queue: " + " -> ".join(q[:2]) + (f", {', '.join(q[2:])}" if q[2:] else "")] if q else []
    ahead = _ahead_text(d)
    return out + [ahead] if ahead else out


def _role_table(d: Diagnosis, color: bool) -> list[str]:
    if not d.roles:
        return []
    rows = []
    for r in d.roles:
        pods = f"{r.have}/{r.want}" if r.want is not None else str(r.have)
        if r.assumed:
            pods = f"{r.want} (what-if)"
        verdict = _paint(r.verdict, _COLORS.get(r.verdict, "0"), color)
        rows.append([r.name, r.kind, pods, _per_pod(r.requests), r.flavor or "-", verdict])
    from tabulate import tabulate  # text output only: -o json never pays for it

    table = tabulate(rows, headers=["ROLE", "KIND", "PODS", "REQUEST/POD", "FLAVOR", "VERDICT"],
                     tablefmt="plain", disable_numparse=True)
    return [""] + ["  " + line for line in table.splitlines()]


def _workload_table(d: Diagnosis, color: bool) -> list[str]:
    """A deployment of many Workloads (what a PD framework makes): one row per Workload, admitted or waiting and
    the code of its first reason."""
    from kubectl_pd.pending.target import OWNER_KINDS

    if d.target.kind not in OWNER_KINDS or not d.workloads:
        return []
    first: dict[str, str] = {}
    for r in d.reasons:
        if r.workload is not None:
            first.setdefault(r.workload, r.code)
    rows = []
    for w in d.workloads:
        state = "admitted" if w.admitted else f"waiting ({first.get(w.name, 'Unknown')})"
        rows.append([w.name, w.role or "-", w.group if w.group is not None else "-",
                     _paint(state, _COLORS["admitted" if w.admitted else "blocked"], color)])
    from tabulate import tabulate

    table = tabulate(rows, headers=["WORKLOAD", "ROLE", "GROUP", "STATE"], tablefmt="plain", disable_numparse=True)
    return [""] + ["  " + line for line in table.splitlines()]


def _bar_lines(d: Diagnosis, uni: bool) -> list[str]:
    if not d.bars:
        return []
    lends = any(b.cohort is not None for b in d.bars)
    legend = ("\u2588 used \u2593 reserved \u2591 needed \u00b7 free \u2592 over nominal" if uni
              else "# used  = reserved  + needed  . free  ! over nominal")
    out = ["", "  quota (" + legend + ("  ~ borrowed from the cohort" if lends else "") + "):"]
    for b in d.bars:
        unit = " cards" if is_credits(b.resource) else f" {b.resource}"
        out.append(f"  {b.flavor}")
        out.append(f"    {bar(b, unicode=uni)}  used {_amount(b.used, b.resource)}"
                   f" + reserved {_amount(b.reserved, b.resource)} + needed {_amount(b.needed, b.resource)}"
                   f" of {_amount(b.nominal, b.resource)}{unit} (free {_amount(b.free, b.resource)}"
                   + (f"; {_amount(b.lent, b.resource)} lent to the cohort" if b.lent else "") + ")")
        if b.cohort is not None:
            out.append(f"    {words.lending(b, _amount)}")
    return out


def _reason_lines(d: Diagnosis, color: bool) -> list[str]:
    out = ["", "  reasons:"]
    for r in d.reasons:
        who = f" [{r.role}]" if r.role else ""
        out.append(f"  - {_paint(r.code, '1', color)}{who}: {words.message(r)}")
        if r.kueue_message:
            out.append(f"      kueue: {one_line(r.kueue_message)}")
        if r.params.get("schedulerMessage"):
            out.append(f"      scheduler: {one_line(r.params['schedulerMessage'])}")
    out.extend(f"  note: {words.text(n)}" for n in d.notes)
    return out


def one_line(text: str, limit: int = 600) -> str:
    t = " ".join(text.split())
    return t if len(t) <= limit else t[: limit - 4] + " ..."


LIST_HEADERS = ["NAMESPACE", "TARGET", "ROLE", "REASON", "DETAIL"]
# -o wide: the columns after DETAIL (kubectl's wide adds columns at the end)
WIDE_HEADERS = ["QUEUE", "FLAVOR", "SHORTFALL", "POSITION", "AGE", "PREEMPTING"]
UNKNOWN = "<unknown>"


DETAIL_WIDTH = 90  # the DETAIL column on a terminal; into a pipe or a file it is never cut


def _list_row(ns: str, d: Diagnosis, width: int | None = DETAIL_WIDTH, worker: bool = False) -> list[str]:
    r = d.reasons[0]
    from kubectl_pd.pending.target import OWNER_KINDS

    kind = {"ModelDeployment": "md", "Workload": "wl", "PodGroup": "podgroup"}.get(d.target.kind, d.target.kind)
    kind = kind.lower() if kind in OWNER_KINDS else kind  # kubectl's KIND/NAME: leaderworkerset/qwen
    detail = one_line(words.message(r), width) if width else " ".join(words.message(r).split())
    role = r.role or "-"
    if d.target.kind in OWNER_KINDS and len(d.workloads) == 1:  # a framework's group (pending/owners.as_owner)
        w = d.workloads[0]
        role = f"{w.role or role}[{w.group}]" if w.group is not None else (w.role or role)
    return [ns, f"{kind}/{d.target.name}", role, *([mk_listing.cell(d)] if worker else []), r.code, detail]


def _headers(worker: bool) -> list[str]:
    """The list's headers; WORKER after ROLE when a row's Workload names a MultiKueue worker."""
    return LIST_HEADERS[:3] + [mk_listing.HEADER] + LIST_HEADERS[3:] if worker else LIST_HEADERS


def _table(table: list[list[str]], headers: list[str], no_headers: bool) -> str:
    """tabulate's "plain" table (output.printers.plain_table, its faster equal for these cells)."""
    from kubectl_pd.output.printers import plain_table

    if no_headers:
        return (plain_table(table) + "\n") if table else ""
    return plain_table(table, headers) + "\n"


def render_list(rows: list[tuple[str, Diagnosis]], *, no_headers: bool = False,
                width: int | None = DETAIL_WIDTH) -> str:
    """No TARGET: one row per pending deployment / pod group / Workload; DETAIL cut at WIDTH (None: whole)."""
    worker = mk_listing.shown([d for _ns, d in rows])
    return _table([_list_row(ns, d, width, worker) for ns, d in rows], _headers(worker), no_headers)


@dataclass(frozen=True)
class WideRow:
    """What -o wide adds to a row: its -o json item (queue, preemption) and the age of its Workloads."""

    namespace: str
    diagnosis: Diagnosis
    item: dict[str, Any]
    age: float | None  # seconds since the oldest of its Workloads was created; None = not known


def render_wide(rows: list[WideRow], *, no_headers: bool = False, width: int | None = DETAIL_WIDTH) -> str:
    """-o wide: the list's columns, then queue, flavor, shortfall, position, age and preempting."""
    worker = mk_listing.shown([w.diagnosis for w in rows])
    return _table([_list_row(w.namespace, w.diagnosis, width, worker) + _wide_cells(w) for w in rows],
                  _headers(worker) + WIDE_HEADERS, no_headers)


def _wide_cells(w: WideRow) -> list[str]:
    d = w.diagnosis
    blocker = next((r for r in d.reasons if r.needed is not None), None)
    flavor = next((r.flavor for r in d.reasons if r.flavor), None) or next((r.flavor for r in d.roles if r.flavor),
                                                                          None)
    shortfall = short(blocker.needed, blocker.resource) if blocker is not None else "-"
    if blocker is not None and blocker.needed is not None and blocker.needed < 0:
        shortfall = "contradicts"  # Kueue's message and its numbers disagree: no shortfall to show (issue 46)
    return [d.local_queue or d.cluster_queue or "-", flavor or "-", shortfall,
            str(d.position) if d.position is not None else "-",
            human_duration(w.age) if w.age is not None else UNKNOWN, _preempting(w.item)]


def _preempting(item: dict[str, Any]) -> str:
    """How many Workloads admitting it would preempt: `-` none needed, `<unknown>` unread candidates."""
    p = item.get("preemption")
    if not isinstance(p, dict):
        return "-"
    targets = p.get("targets")
    return UNKNOWN if targets is None else str(len(targets))


def human_duration(seconds: float) -> str:
    """An age as kubectl's AGE column writes it (k8s.io/apimachinery duration.HumanDuration)."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes, hours = s // 60, s // 3600
    if minutes < 10:
        return f"{minutes}m" + (f"{s % 60}s" if s % 60 else "")
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h" + (f"{minutes % 60}m" if minutes % 60 else "")
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        return f"{days}d" + (f"{hours % 24}h" if hours % 24 else "")
    if hours < 24 * 365 * 2:
        return f"{days}d"
    if hours < 24 * 365 * 8:
        return f"{days // 365}y" + (f"{days % 365}d" if days % 365 else "")
    return f"{days // 365}y"


# -o name: the resource as kubectl names it (`kubectl get -o name`), which TARGET also accepts
_NAME_KIND = {"ModelDeployment": "modeldeployment.worker.gpustack.ai", "Workload": "workload.kueue.x-k8s.io",
              "PodGroup": "podgroup", "Pod": "pod",
              # what the PD frameworks make, as `kubectl get -o name` names them (why-pending accepts each back)
              "LeaderWorkerSet": "leaderworkerset.leaderworkerset.x-k8s.io",
              "DisaggregatedSet": "disaggregatedset.disaggregatedset.x-k8s.io", "Deployment": "deployment.apps",
              "StatefulSet": "statefulset.apps", "LLMInferenceService": "llminferenceservice.serving.kserve.io"}


def object_name(kind: str, name: str) -> str:
    return f"{_NAME_KIND.get(kind, kind.lower())}/{name}"
