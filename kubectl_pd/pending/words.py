"""why-pending's English, in one place: what each reason says (keyed by the sentence ids the diagnosis
returns with its codes), the clauses later steps add, and the headline. The text screen and the message
field of -o json/yaml both read it; nothing in the diagnosis reads back what is written here.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kubectl_pd.pending.model import Diagnosis, Reason, Say, more, short

TARGET_WORDS = {"ModelDeployment": "modeldeployment", "Workload": "workload", "PodGroup": "pod group", "Pod": "pod"}


def text(x: Say | str | None) -> str:
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    return SENTENCES[x.id](**x.args)


def message(r: Reason) -> str:
    """The reason's message: its sentence, then what later steps added."""
    return text(r.message) + "".join(text(c) for c in r.clauses)


def _leads_with_role(x: Say | str, role: str) -> bool:
    if isinstance(x, str):
        return x.startswith(role)
    return x.id in ROLE_FIRST and not x.args.get("prefix")


def headline(d: Diagnosis) -> str:
    """`<kind> <ns>/<name> is pending (<Code>): <role>: <the first reason's clause>`."""
    t = d.target
    what = TARGET_WORDS.get(t.kind, t.kind)
    if not d.pending:
        return f"{what} {t.namespace}/{t.name} is not pending: {message(d.reasons[0]) if d.reasons else 'admitted'}"
    r = d.reasons[0]
    first = r.summary if r.summary is not None else r.message
    first_text = text(first) if r.summary is not None else message(r)
    who = f"{r.role}: " if r.role and not _leads_with_role(first, r.role) else ""
    return f"{what} {t.namespace}/{t.name} is pending ({r.code}): {who}{first_text}"


# Sentences whose text begins with the role's name (when no prefix such as "once composed, " is given).
ROLE_FIRST: set[str] = set()

SENTENCES: dict[str, Callable[..., str]] = {}


def _sentence(id: str, *, role_first: bool = False) -> Callable[[Callable[..., str]], Callable[..., str]]:  # noqa: A002
    def register(fn: Callable[..., str]) -> Callable[..., str]:
        SENTENCES[id] = fn
        if role_first:
            ROLE_FIRST.add(id)
        return fn
    return register


def _unused(**_kw: Any) -> str:
    return ""


# -- clauses that later steps add to a reason's message ------------------------------------------------

@_sentence("queue.position")
def _position(position: int, cq: str | None) -> str:
    return f"; position {position} in ClusterQueue {cq}" + (f" ({position - 1} ahead)" if position > 1 else " (next)")


@_sentence("queue.ahead-ask")
def _ahead_ask(requests: dict[str, Fraction]) -> str:
    return "; the Workloads ahead ask " + ", ".join(short(q, res) for res, q in sorted(requests.items()))


@_sentence("queue.blocks-once-composed")
def _blocks_once_composed() -> str:
    return " (it will block the group once Kueue composes it)"


@_sentence("preempted.by-our-own")
def _by_our_own(roles: list[str]) -> str:
    return f", one of this deployment's own Workloads ({', '.join(roles) or '?'})"


@_sentence("preempted.holders")
def _holders(holders: list[str], lost: list[str]) -> str:
    return (f"; {', '.join(holders)} still hold{'s' if len(holders) == 1 else ''} quota for nothing: "
            f"the pair cannot serve without {', '.join(lost) or 'the lost role'}")


@_sentence("preempted.all-lost")
def _all_lost(roles: list[str]) -> str:
    return f"; every role of the pair ({', '.join(roles)}) lost its quota together (atomic)"


@_sentence("ours.not-evaluated")
def _not_evaluated() -> str:
    return " (our arithmetic; no scheduler has evaluated this Workload yet)"


@_sentence("ours.fits-now")
def _fits_now(role: str, flavor: str | None) -> str:
    return f"; our arithmetic says {role} fits flavor {flavor} now (quota was freed since Kueue's last attempt)"


@_sentence("kueue.alone-says")
def _alone_says(role: str, needed: Fraction | None, resource: str | None, flavor: str | None) -> str:
    return f" (Kueue, counting {role} alone against what is free, says {more(needed, resource)} in flavor {flavor})"


@_sentence("kueue.preempting")
def _preempting(count: int) -> str:
    return f"; Kueue is preempting {count} workload(s) to make room"


# -- queues ---------------------------------------------------------------------------------------------

@_sentence("lq.missing")
def _lq_missing(lq: str, ns: str) -> str:
    return f"LocalQueue {lq} does not exist in namespace {ns}"


@_sentence("lq.stopped")
def _lq_stopped(lq: str, stop: str) -> str:
    return f"LocalQueue {lq} is stopped (stopPolicy {stop})"


@_sentence("cq.missing")
def _cq_missing(cq: str, lq: str) -> str:
    return f"ClusterQueue {cq} (named by LocalQueue {lq}) does not exist"


@_sentence("cq.stopped")
def _cq_stopped(cq: str, stop: str) -> str:
    return f"ClusterQueue {cq} is stopped (stopPolicy {stop})"


def _cause_text(c: dict[str, Any]) -> str:
    names = c["names"]
    if c["kind"] == "missing-flavors":
        return f"ResourceFlavor(s) {', '.join(names)} do not exist"
    if c["kind"] == "missing-checks":
        return f"AdmissionCheck(s) {', '.join(names)} do not exist"
    if c["kind"] == "inactive-checks":
        detail = [f"{n}: {m}" for n, m in c["detail"]]
        return f"AdmissionCheck(s) {', '.join(names)} are inactive" + (f" ({'; '.join(detail)})" if detail else "")
    if c["kind"] == "missing-topology":
        return f"Topology {names[0] if names else '?'} of a TAS flavor does not exist"
    if c["kind"] == "stopped":
        return "it is stopped"
    return str(c["text"])


@_sentence("cq.inactive")
def _cq_inactive(cq: str, causes: list[dict[str, Any]], reason: str) -> str:
    return f"ClusterQueue {cq} is inactive: " + ("; ".join(_cause_text(c) for c in causes) or reason or "not active")


def _miss_text(miss: tuple[str, ...]) -> str:
    if miss[0] == "null":
        return "the selector is null, which selects no namespace"
    if miss[0] == "label":
        return f"needs label {miss[1]}={miss[2]}"
    key, op, vals = miss[1], miss[2], list(miss[3:])
    return f"needs {key} {op} {vals}" if vals else f"needs {key} {op}"


@_sentence("cq.namespace-not-selected")
def _namespace_not_selected(cq: str, ns: str, miss: tuple[str, ...]) -> str:
    return f"ClusterQueue {cq}'s namespaceSelector does not select namespace {ns} ({_miss_text(miss)})"


_QUEUE_WORDS = {"LocalQueueMissing": "LocalQueue {} does not exist", "LocalQueueStopped": "LocalQueue {} is stopped",
                "ClusterQueueMissing": "ClusterQueue {} does not exist",
                "ClusterQueueStopped": "ClusterQueue {} is stopped",
                "ClusterQueueInactive": "ClusterQueue {} is inactive"}


@_sentence("queue.from-kueue")
def _from_kueue(code: str, subject: str | None) -> str:
    what = _QUEUE_WORDS.get(code, code + " {}")
    return what.format(subject or "?") + " (Kueue's words; the queue itself was not read)"
