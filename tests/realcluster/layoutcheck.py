"""Every command against the real Kueue on generated layouts (issue 46, item 6; layouts.py makes the states).

For each layout, on a fresh instance of it each time (its own namespace and cluster-scoped names):
- **why-pending**: differential.run with the layout's kit (admitted or not, flavors, victims, the preemptor named,
  and the words: codes and shortfall against Kueue's condition, one set of figures on the screen);
- **queues**: `queues -o json`, before and after the copies below are admitted, against each ClusterQueue's
  status at the same moment (flavorsUsage, flavorsReservation and its borrowed, the Workload counts) and the
  Cohort objects (parent, members); lent bounded by the lending limit, by the unused nominal quota and by what
  the layout's queues borrow in all;
- **capacity**: `now` by creating that many copies (`create --target pods`), each admitted, and one more, which
  stays pending (or preempts exactly what capacity named); then `byPreemption` at priority 1000 by creating one
  copy of that priority: admitted if and only if capacity counted one, preempting what it named;
- **preflight**: create's `--preflight` verdict (fits, preempts these, waits, never fits) against what Kueue
  does with the group once created (createcase.verdict, test_create_real's reading of Kueue).

Every disagreement is a `Check` with what we said and what Kueue did; `save` keeps it under
tests/realcluster/cases/layouts/ with the snapshot it was judged on, for test_layout_replay.py.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubectl_pd.kueue.quantity import parse
from tests.realcluster import capacity_property as cp
from tests.realcluster import differential as df
from tests.realcluster import layouts as ly
from tests.realcluster import objs
from tests.realcluster.createcase import verdict
from tests.realcluster.plane import Plane, PlaneError, condition, is_true, wait_for

COMMANDS = ("why-pending", "why-pending.quota", "queues", "capacity", "capacity.byPreemption", "preflight")
TOP = ("pd-top", 1000)  # the higher-priority copy's class
CASES = Path(__file__).parent / "cases" / "layouts"


@dataclass
class Check:
    command: str
    seed: int
    agree: bool | None  # None: the tool said it cannot know, or the state is past what is created copy by copy
    ours: Any = None
    kueue: Any = None
    problems: list[str] = field(default_factory=list)
    snapshot: list[dict[str, Any]] = field(default_factory=list)


def ensure_priorities(plane: Plane) -> None:
    df.ensure_priorities(plane)
    plane.apply(objs.priority_class(*TOP))


# ---------------------------------------------------------------- queues

def _status(cq: dict[str, Any], key: str, flavor: str, resource: str) -> tuple[float, float]:
    for f in (cq.get("status") or {}).get(key) or []:
        if f["name"] == flavor:
            for r in f.get("resources") or []:
                if r["name"] == resource:
                    return float(parse(r.get("total", "0"))), float(parse(r.get("borrowed", "0")))
    return 0.0, 0.0


def _num(x: str | None) -> float | None:
    return None if x is None else float(parse(x))


def row_problems(r: dict[str, Any], cq: dict[str, Any], lay: ly.Layout, flavor: str, nominal: int) -> list[str]:
    """One flavor's figures (a queues row, or a why-pending quota bar) against the ClusterQueue's status."""
    used, _ = _status(cq, "flavorsUsage", flavor, lay.resource)
    reserved, borrowed = _status(cq, "flavorsReservation", flavor, lay.resource)
    nom = float(parse(lay.amount(nominal)))
    got = {k: _num(r.get(k)) for k in ("nominal", "used", "reserved", "borrowed", "free", "lent")}
    expect = {"nominal": nom, "used": used, "reserved": reserved - used, "borrowed": borrowed}
    out = [f"{k} {got[k]} != Kueue's {v}" for k, v in expect.items() if got[k] != v]
    # free: of the nominal quota, what neither the queue nor (what it lends) the cohort uses
    unused = max(0.0, nom - reserved)
    free = unused if got["lent"] is None else max(0.0, unused - got["lent"])
    if got["free"] is None or got["free"] > unused or (got["lent"] is not None and got["free"] != free):
        out.append(f"free {got['free']} (lent {got['lent']}) against unused {unused}")
    return out


def compare_bars(doc: dict[str, Any], snap: list[dict[str, Any]], lay: ly.Layout, n: df.Names) -> list[str]:
    """why-pending's quota bars (`quota[]`) against the target ClusterQueue's status in SNAP."""
    item = doc["items"][0] if doc.get("items") else doc
    cq = next((o for o in snap if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == n.cq(lay.target_queue)),
              None)
    if cq is None:
        return ["no ClusterQueue in the snapshot"]
    q = lay.queue(lay.target_queue)
    out = []
    for r in item.get("quota") or []:
        f = r["flavor"].removeprefix(n.prefix + "-")
        if r["resource"] != lay.resource or f not in q.quotas:
            continue
        out += [f"bar {f}: {p}" for p in row_problems(r, cq, lay, r["flavor"], q.quotas[f][0])]
    return out


def compare_queues(doc: dict[str, Any], snap: list[dict[str, Any]], lay: ly.Layout, n: df.Names) -> list[str]:
    """What breaks between `queues -o json` and the ClusterQueues and Cohorts of SNAP (read at the same moment)."""
    out: list[str] = []
    rows = {c["name"]: c for c in doc.get("clusterQueues") or []}
    cqs = {o["metadata"]["name"]: o for o in snap if o["kind"] == "ClusterQueue"}
    lent_all = borrowed_all = 0.0
    known_lent = True
    spare: dict[str, list[float]] = {}  # flavor -> each member's unused lendable quota not counted as lent
    for q in lay.queues:
        cq, row = cqs.get(n.cq(q.name)), rows.get(n.cq(q.name))
        if cq is None or row is None:
            out.append(f"{q.name}: {'no ClusterQueue read' if cq is None else 'no row'}")
            continue
        st = cq.get("status") or {}
        for k in ("pendingWorkloads", "reservingWorkloads", "admittedWorkloads"):
            if row.get(k) != st.get(k, 0):
                out.append(f"{q.name}: {k} {row.get(k)} != status {st.get(k, 0)}")
        want = ly.cohort_name(n, q.cohort) if q.cohort else None
        if row.get("cohort") != want:
            out.append(f"{q.name}: cohort {row.get('cohort')} != {want}")
        for f, (nominal, borrowing, lending) in q.quotas.items():
            fl = n.flavor(f)
            r = next((x for x in row.get("flavors") or [] if x["flavor"] == fl and x["resource"] == lay.resource), None)
            if r is None:
                out.append(f"{q.name}/{f}: no row")
                continue
            out += [f"{q.name}/{f}: {p}" for p in row_problems(r, cq, lay, fl, nominal)]
            got = {k: _num(r.get(k)) for k in ("lent",)}
            reserved, borrowed = _status(cq, "flavorsReservation", fl, lay.resource)
            nom = float(parse(lay.amount(nominal)))
            for k, lim in (("borrowingLimit", borrowing), ("lendingLimit", lending)):
                if _num(r.get(k)) != (None if lim is None else float(parse(lay.amount(lim)))):
                    out.append(f"{q.name}/{f}: {k} {r.get(k)} != spec {lim}")
            lent = got["lent"]
            known_lent = known_lent and lent is not None
            if lent is not None:
                lent_all += lent
                if lending is not None and lent > float(parse(lay.amount(lending))):
                    out.append(f"{q.name}/{f}: lent {lent} > lendingLimit {lending}")
                if lent > max(0.0, nom - reserved):
                    out.append(f"{q.name}/{f}: lent {lent} > its unused nominal {max(0.0, nom - reserved)}")
            borrowed_all += borrowed
            lendable = _num(r.get("lendable")) or 0.0
            if lendable > 0:
                spare.setdefault(f, []).append(lendable - (lent or 0.0))
    if lent_all > borrowed_all:
        out.append(f"lent {lent_all} in all > borrowed {borrowed_all} in all")
    own = sum(float(parse(lay.amount(q[0]))) for c in lay.cohorts for q in c.quotas.values())
    # A queue's `lent` is what it could not take back without a reclaim, alone (Kueue's arithmetic,
    # verdicts.lending). Where two members of a flavor have unused quota, each may take its own back while together
    # they cannot: Kueue attributes the borrowed quota to no one, the tool shows it `unattributed`
    # (kueue/figures.flows), and what is lent may be less than what is borrowed by up to their spare quota.
    shared = sum(sum(v) for v in spare.values() if len(v) > 1)
    if known_lent and borrowed_all > lent_all + own + shared:  # borrowed comes from members or Cohorts' own quota
        out.append(f"borrowed {borrowed_all} in all > lent {lent_all} + the Cohorts' own {own}")
    cohorts = {c["name"]: c for c in doc.get("cohorts") or []}
    for c in lay.cohorts:
        got_c = cohorts.get(ly.cohort_name(n, c.name))
        if got_c is None:
            out.append(f"cohort {c.name}: not shown")
            continue
        parent = ly.cohort_name(n, c.parent) if c.parent else None
        if got_c.get("parent") != parent:
            out.append(f"cohort {c.name}: parent {got_c.get('parent')} != {parent}")
        members = sorted(n.cq(q.name) for q in lay.queues if q.cohort == c.name)
        if sorted(got_c.get("clusterQueues") or []) != members:
            out.append(f"cohort {c.name}: members {got_c.get('clusterQueues')} != {members}")
    return out


def check_queues(plane: Plane, lay: ly.Layout, n: df.Names, when: str) -> Check:
    """queues live, then the objects it read, read again; repeated once when Kueue wrote a status in between."""
    with df.timed("queues"):
        return _check_queues(plane, lay, n, when)


def _check_queues(plane: Plane, lay: ly.Layout, n: df.Names, when: str) -> Check:
    problems: list[str] = []
    snap: list[dict[str, Any]] = []
    doc: dict[str, Any] = {}
    for _ in range(3):
        got = plane.pd("queues", "-o", "json")
        if got.returncode != 0:
            return Check("queues", lay.seed, False, problems=[f"{when}: exit {got.returncode}: {got.stderr[-300:]}"])
        doc = json.loads(got.stdout)
        snap = ly.snapshot(plane, n)
        problems = compare_queues(doc, snap, lay, n)
        if not problems:
            break
        time.sleep(1.0)
    return Check("queues", lay.seed, not problems, ours=_mine(doc, n), problems=[f"{when}: {p}" for p in problems],
                 snapshot=snap)


def _mine(doc: dict[str, Any], n: df.Names) -> dict[str, Any]:
    return {"clusterQueues": [c for c in doc.get("clusterQueues") or [] if c["name"].startswith(n.prefix + "-")],
            "cohorts": [c for c in doc.get("cohorts") or [] if c["name"].startswith(n.prefix + "-")]}


# ---------------------------------------------------------------- capacity

def _roles(lay: ly.Layout) -> list[str]:
    return cp._roles(lay)  # type: ignore[arg-type]  # the same roles tuple as the 4a state's


def copy_args(lay: ly.Layout, ns: str, name: str, *extra: str) -> list[str]:
    """`kubectl pd create` of one copy: a pod set per role, named by the role, as capacity counts them."""
    return ["create", name, "--model", "m", "--engine-version", "1", "-n", ns, "--target", "pods",
            "--local-queue", lay.target_queue, "--resource", lay.resource, *_roles(lay), *extra]


def top_copy_args(lay: ly.Layout, ns: str) -> list[str]:
    """The higher-priority copy byPreemption is judged against: created as the copies are, at TOP's class. Bare
    group Pods (layouts.target_pods) are not that copy: Kueue names a pod group's pod sets by role hash, so roles
    whose Pods ask the same merge into one pod set (seed 46008: one pod set of 3 x 3200k, which only fc held,
    so Kueue preempted copy1 there; capacity judged two pod sets, decode 6400k in fb, copy0)."""
    return copy_args(lay, ns, "top", "--force", "--priority-class", TOP[0])


def _create(plane: Plane, lay: ly.Layout, ns: str, name: str, *extra: str) -> Any:
    return plane.pd(*copy_args(lay, ns, name, *extra))


def check_capacity(plane: Plane, lay: ly.Layout, n: df.Names, admitted: list[str]) -> list[Check]:
    ns = n.namespace
    out = [check_queues(plane, lay, n, "before the copies")]
    got = plane.pd("capacity", "-n", ns, "--target", "pods", "--local-queue", lay.target_queue, *_roles(lay),
                   "-o", "json")
    if got.returncode not in (0, 1) or not got.stdout.strip():
        return [*out, Check("capacity", lay.seed, False, problems=[f"exit {got.returncode}: {got.stderr[-300:]}"])]
    doc = json.loads(got.stdout)
    snap = ly.snapshot(plane, n)
    pre = doc.get("byPreemption") or {}
    res = cp.Outcome(lay.seed, doc["now"], pre.get("count"))
    ours = {k: doc.get(k) for k in ("now", "atLeast", "byBorrowing", "withinNominal", "byPreemption", "next")}
    if doc["now"] is None and _held(doc):
        return [*out, _check_held(plane, lay, ns, ours, snap)]
    if doc["now"] is None or doc["now"] > cp.MAX_COPIES or doc.get("atLeast") or pre.get("unknown"):
        return [*out, Check("capacity", lay.seed, None, ours=ours, kueue="not created copy by copy")]
    if pre.get("copies"):
        res.named = [t["name"] for t in pre["copies"][0]["targets"]]
    before = _reserving(plane, n.cq(lay.target_queue))
    with df.timed("capacity.copies"):
        res.admitted = _copies(plane, lay, ns, doc["now"])
    if all(res.admitted) and doc["now"]:
        _copies_counted(plane, n.cq(lay.target_queue), before, doc["now"])  # the ClusterQueue's status after them
        out.append(check_queues(plane, lay, n, f"after {doc['now']} copies"))
    made = _create(plane, lay, ns, "one-more", "--force")
    if made.returncode != 0:
        raise PlaneError(f"create one-more: {made.stderr.strip()}")
    with df.timed("capacity.one-more"):
        res.one_more, res.preempted = cp._one_more(plane, ns)
    kueue = {"admitted": res.admitted, "oneMore": res.one_more, "preempted": res.preempted}
    out.append(Check("capacity", lay.seed, res.holds, ours=ours, kueue=kueue, snapshot=snap,
                     problems=[] if res.holds else [f"now {doc['now']}: copies admitted {res.admitted}, one more "
                                                    f"{res.one_more} {res.preempted} (named {res.named})"]))
    if res.one_more == "pending":
        with df.timed("capacity.byPreemption"):
            out.append(check_by_preemption(plane, lay, n))
    return out


def _group_pods(plane: Plane, lay: ly.Layout, ns: str, group: str) -> None:
    """The Pods `create GROUP` would write, applied as they are (for a queue create refuses even with --force)."""
    total = sum(c for _, c, _ in lay.roles)
    plane.apply(*[objs.group_pod(ns, f"{group}-{role}-{i}", group, total, lay.target_queue, role,
                                 {lay.resource: lay.amount(cards)})
                  for role, count, cards in lay.roles for i in range(count)], server_side=False)


def _held(doc: dict[str, Any]) -> bool:
    """capacity counted nothing because the queue admits nothing now: a stopped or inactive LocalQueue or
    ClusterQueue (an error of the preflight's queue checks)."""
    return any(f.get("severity") == "error" and f.get("check") in ("cluster-queue", "local-queue")
               for f in doc.get("findings") or [])


def _check_held(plane: Plane, lay: ly.Layout, ns: str, ours: dict[str, Any], snap: Any) -> Check:
    """A queue capacity calls not active: one copy created must stay pending (Kueue admits nothing there)."""
    if _create(plane, lay, ns, "one-more", "--force").returncode != 0:  # refused even with --force: the Pods
        _group_pods(plane, lay, ns, "one-more")  # create would write, so Kueue is what is judged
    with df.timed("capacity.one-more"):
        one_more, preempted = cp._one_more(plane, ns)
    ok = one_more == "pending"
    return Check("capacity", lay.seed, ok, ours=ours, kueue={"oneMore": one_more, "preempted": preempted},
                 snapshot=snap, problems=[] if ok else [f"queue not active, yet one more {one_more} {preempted}"])


def _copies(plane: Plane, lay: ly.Layout, ns: str, count: int) -> list[bool]:
    """COUNT copies created one by one, each tried by Kueue before the next: admitted or not, each."""
    out = []
    for i in range(count):
        made = _create(plane, lay, ns, f"copy{i}", "--force")  # the preflight's word is not what is judged here
        if made.returncode != 0:
            raise PlaneError(f"create copy{i}: {made.stderr.strip()}")
        w = wait_for(f"copy{i} tried", lambda i=i: (g := cp._group(plane, ns, f"copy{i}")) is not None and condition(
            g, "QuotaReserved") is not None and g, timeout=30)
        out.append(is_true(w, "QuotaReserved") or _admitted_once_quiet(plane, ns, f"copy{i}"))
    return out


def _admitted_once_quiet(plane: Plane, ns: str, name: str) -> bool:
    """A copy Kueue tried and did not admit at once: admitted later, or not once its Workloads stood still for
    SETTLE seconds (a first try can fail on a status not yet written: seen at 0.19.2 seed 46002 once the polls
    were quick, where a kubectl poll a second had always found the copy admitted)."""
    last, quiet = "", time.monotonic()
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        items = plane.get("workloads", namespace=ns)["items"]
        w = next((x for x in items if x["metadata"]["name"] == name), {})
        if is_true(w, "QuotaReserved"):
            return True
        key = json.dumps([(x["metadata"]["name"], [(c["type"], c["status"], c.get("reason"), c.get("message"))
                                                    for c in (x.get("status") or {}).get("conditions") or []])
                          for x in items], sort_keys=True)
        if key != last:
            last, quiet = key, time.monotonic()
        elif time.monotonic() - quiet > df.SETTLE:
            return False
        time.sleep(0.3)
    return False


def _reserving(plane: Plane, cq: str) -> int:
    return int((plane.get("clusterqueue", cq).get("status") or {}).get("reservingWorkloads", 0))


def _copies_counted(plane: Plane, cq: str, before: int, copies: int) -> None:
    """Until the ClusterQueue's status counts the copies admitted (Kueue writes it a little after each admission);
    at most 3 s, the fixed second this replaced and check_queues' own two retries."""
    try:
        wait_for("the copies counted", lambda: _reserving(plane, cq) >= before + copies, timeout=3)
    except PlaneError:
        pass  # check_queues reads again on a mismatch, and says what it saw


def check_by_preemption(plane: Plane, lay: ly.Layout, n: df.Names) -> Check:
    """capacity --priority 1000 against one copy of that priority: admitted iff capacity counted one."""
    ns = n.namespace
    got = plane.pd("capacity", "-n", ns, "--target", "pods", "--local-queue", lay.target_queue, *_roles(lay),
                   "--priority", str(TOP[1]), "-o", "json")
    if got.returncode not in (0, 1) or not got.stdout.strip():
        return Check("capacity.byPreemption", lay.seed, False, problems=[f"exit {got.returncode}"])
    doc = json.loads(got.stdout)
    snap = ly.snapshot(plane, n)
    pre = doc.get("byPreemption") or {}
    if pre.get("unknown") or pre.get("count") is None:
        return Check("capacity.byPreemption", lay.seed, None, ours=pre)
    count = int(pre["count"]) + int(doc.get("now") or 0)
    named = sorted(t["name"] for t in (pre.get("copies") or [{}])[0].get("targets") or []) if pre.get("copies") \
        else []
    made = plane.pd(*top_copy_args(lay, ns))
    if made.returncode != 0:
        raise PlaneError(f"create top: {made.stderr.strip()}")
    admitted, victims = _top(plane, ns)
    agree = (count >= 1) == admitted and (not admitted or not named or named == victims)
    return Check("capacity.byPreemption", lay.seed, agree, ours={"now": doc.get("now"), "byPreemption": pre},
                 kueue={"admitted": admitted, "preempted": victims}, snapshot=snap,
                 problems=[] if agree else [f"capacity at {TOP[1]}: {count} more (targets {named}); Kueue admitted "
                                            f"{admitted}, preempted {victims}"])


def _top(plane: Plane, ns: str) -> tuple[bool, list[str]]:
    """Kueue on the higher-priority copy: admitted or not, and what it preempted (evictions finished)."""
    victims: list[str] = []
    last, quiet = "", time.monotonic()
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        items = plane.get("workloads", namespace=ns)["items"]
        top = next((w for w in items if w["metadata"]["name"] == "top"), None)
        if top is not None:
            for w in items:
                name = w["metadata"]["name"]
                if name != "top" and df._preempted(w, top["metadata"]["uid"]) and name not in victims:
                    victims.append(name)
                    if name.startswith("run"):  # nothing owns ours; the copies' Pods are Kueue's to stop
                        df._finish_eviction(plane, ns, name, deactivate=True)
            if is_true(top, "QuotaReserved"):
                return True, sorted(victims)
        key = json.dumps([(w["metadata"]["name"], [(c["type"], c["status"]) for c in (w.get("status") or {}).get(
            "conditions") or []]) for w in items], sort_keys=True)
        if key != last:
            last, quiet = key, time.monotonic()
        elif top is not None and time.monotonic() - quiet > df.SETTLE + 2:
            return False, sorted(victims)
        time.sleep(0.3)
    raise PlaneError(f"namespace {ns}: the higher-priority copy did not settle in 40 s")


# ---------------------------------------------------------------- preflight

def check_preflight(plane: Plane, lay: ly.Layout, n: df.Names, admitted: list[str]) -> Check:
    ns = n.namespace
    pre = _create(plane, lay, ns, "qwen", "--preflight", "-o", "json")
    if pre.returncode not in (0, 1) or not pre.stdout.strip():
        return Check("preflight", lay.seed, False, problems=[f"exit {pre.returncode}: {pre.stderr[-300:]}"])
    doc = json.loads(pre.stdout)
    snap = ly.snapshot(plane, n)
    said, victims = verdict(doc)
    made = _create(plane, lay, ns, "qwen", *(["--force"] if said != "fits" else []))
    if made.returncode != 0 and said == "fits":
        raise PlaneError(f"create qwen: {made.stderr.strip()}")
    if made.returncode != 0:  # create refuses even with --force (a stopped queue): the Pods create would write
        _group_pods(plane, lay, ns, "qwen")
    with df.timed("preflight.kueue"):
        did, evicted = what_kueue_did(plane, ns, admitted)
    message = (condition(cp._group(plane, ns, "qwen") or {}, "QuotaReserved") or {}).get("message")
    target = next(q for q in lay.queues if q.name == lay.target_queue)
    did = kueue_waits_or_never(did, message, tuple(n.flavor(f) for f in target.quotas))
    agree = None if UNKNOWN in (said, did) else (said, victims) == (did, evicted)
    findings = [{k: f.get(k) for k in ("severity", "check", "params")} for f in doc.get("findings") or []]
    return Check("preflight", lay.seed, agree, ours={"said": said, "victims": victims, "findings": findings},
                 kueue={"did": did, "preempted": evicted, "message": message},
                 snapshot=snap,
                 problems=[] if agree is not False else [f"said {said} {victims}, Kueue {did} {evicted}"])


def what_kueue_did(plane: Plane, ns: str, admitted: list[str]) -> tuple[str, list[str]]:
    """test_create_real's reading of Kueue on the group qwen (fits, preempts these, never, blocked), waiting as
    differential._settle does: until it is admitted or nothing changed for SETTLE seconds, each eviction Kueue asks
    for finished (nothing owns our Workloads), where that test watches twenty fixed half-seconds."""
    wait_for("the pod group's Workload tried", lambda: (g := cp._group(plane, ns, "qwen")) is not None and condition(
        g, "QuotaReserved") is not None and g)
    victims: set[str] = set()
    wl: dict[str, Any] = {}
    last, quiet = "", time.monotonic()
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        items = plane.get("workloads", namespace=ns)["items"]
        wl = next((w for w in items if w["metadata"]["name"] == "qwen"), wl)
        if is_true(wl, "QuotaReserved"):
            break
        for w in items:
            if w["metadata"]["name"] in admitted and df._preempted(w) and w["metadata"]["name"] not in victims:
                victims.add(w["metadata"]["name"])
                df._finish_eviction(plane, ns, w["metadata"]["name"], deactivate=True)
        key = json.dumps([(w["metadata"]["name"], (w.get("status") or {}).get("admission"),
                           [(c["type"], c["status"], c.get("reason")) for c in (w.get("status") or {}).get(
                               "conditions") or []]) for w in items], sort_keys=True)
        if key != last:
            last, quiet = key, time.monotonic()
        elif time.monotonic() - quiet > df.SETTLE:
            break
        time.sleep(0.3)
    if victims:
        return "preempts", sorted(victims)
    if is_true(wl, "QuotaReserved"):
        return "fits", []
    msg = (condition(wl, "QuotaReserved") or {}).get("message", "")
    return ("never" if "maximum capacity" in msg else "blocked"), []


UNKNOWN = "unknown"  # Kueue's last message cannot tell waiting from never (a resumed scan's)


def kueue_waits_or_never(did: str, message: str | None, flavors: tuple[str, ...] = ()) -> str:
    """What Kueue did with a group it did not admit: `_what_kueue_did` says "never" when its message names a
    maximum capacity anywhere, but Kueue lists every flavor it tried for the pod set it could not place, and a
    flavor only short of unused quota ("insufficient unused quota ..., N more needed") is one the group waits for
    (flavorassigner.go:1350 maximum capacity, :1368 unused quota @v0.19.2; :1096, :1113 @v0.18.4): blocked, unless
    some pod set's every flavor is over its maximum (each pod set has a part of its own in the message)."""
    parts = re.split(r"; (?=couldn't assign flavors to pod set )", message or "")
    # per pod set: one whose every flavor tried is over its maximum never fits, whatever the others lack (0.19.2
    # seed 46003: decode short of unused quota in fa, prefill 4 + 2 over fa's maximum 4: never, as create said)
    if did == "never" and message and all("insufficient unused quota" in p for p in parts if "maximum capacity" in p):
        return "blocked"
    # a pod set over the maximum of every flavor its message names, but not every flavor of the queue (FLAVORS):
    # the message is a resumed scan's, which names only the flavors from where the scan resumed (0.19.2 seeds 46170
    # and 46187: decode's scan resumed at fc, maximum 0, while fa would hold it once quota frees; the first scan's
    # message names them all): Kueue's words say neither never nor waiting
    if did == "never" and flavors and any(
            not all(re.search(rf"in flavor {re.escape(f)}\b", p) for f in flavors)
            for p in parts if "maximum capacity" in p and "insufficient unused quota" not in p):
        return UNKNOWN
    return did


# ---------------------------------------------------------------- one layout, every command

def _fresh(plane: Plane, lay: ly.Layout, tag: str) -> tuple[df.Names, list[str]]:
    n = df.Names(plane.namespace(f"{ly.PREFIX}{tag}{lay.seed}"))
    return n, df.setup(plane, lay, n, ly.kit())


def check(plane: Plane, lay: ly.Layout, kueue_config: str | None = None,
          commands: tuple[str, ...] = ("why-pending", "capacity", "preflight")) -> tuple[list[Check], df.Record | None]:
    out: list[Check] = []
    rec = None
    for command in ("capacity", "preflight"):
        if command in commands:
            with df.timed(command):
                n, admitted = _fresh(plane, lay, command[0])
                try:
                    out += (check_capacity(plane, lay, n, admitted) if command == "capacity"
                            else [check_preflight(plane, lay, n, admitted)])
                except PlaneError as e:  # the harness failed on this command: said, never counted as agreement
                    out.append(Check(command, lay.seed, None, problems=[f"harness: {str(e)[:300]}"]))
                finally:
                    with df.timed("cleanup"):
                        ly.cleanup(plane, lay, n)
    if "why-pending" in commands:
        with df.timed("why-pending"):
            rec = df.run(plane, lay, kueue_config=kueue_config, kit=ly.kit())
        values = [*rec.agree.values(), *rec.preemptor.values(), *rec.words.values()]
        agree = False if rec.disagrees else (True if True in values else None)
        out.append(Check("why-pending", lay.seed, agree, ours=rec.predicted, kueue=rec.kueue_did,
                         problems=[] if agree is not False else [f"{rec.agree} preemptor={rec.preemptor} "
                                                                 f"words={rec.words} said={rec.said}"],
                         snapshot=rec.snapshot))
        out.append(check_bars(plane, lay, rec, kueue_config))
    return out, rec


def check_bars(plane: Plane, lay: ly.Layout, rec: df.Record, kueue_config: str | None) -> Check:
    """why-pending's quota bars on the snapshot it predicted from, against the ClusterQueue's status there."""
    ns = next(o["metadata"]["namespace"] for o in rec.snapshot if o["kind"] == "LocalQueue")
    n = df.Names(ns)
    args = ["why-pending", "podgroup/pd", "-n", ns, "-o", "json", "-f", "-"]
    got = plane.pd(*args, *(["--kueue-config", kueue_config] if kueue_config else []),
                   input=yaml.safe_dump_all(rec.snapshot, sort_keys=False))
    if got.returncode not in (0, 1) or not got.stdout.strip():
        return Check("why-pending.quota", lay.seed, False, problems=[f"exit {got.returncode}: {got.stderr[-300:]}"])
    doc = json.loads(got.stdout)
    problems = compare_bars(doc, rec.snapshot, lay, n)
    item = doc["items"][0] if doc.get("items") else doc
    return Check("why-pending.quota", lay.seed, not problems if item.get("quota") else None,
                 ours=item.get("quota"), problems=problems, snapshot=rec.snapshot)


def summary(checks: list[Check]) -> dict[str, dict[str, int]]:
    """Per command: states (checks made), agreements, disagreements, unknown."""
    out: dict[str, dict[str, int]] = {}
    for c in checks:
        row = out.setdefault(c.command, {"states": 0, "agree": 0, "disagree": 0, "unknown": 0, "harness": 0})
        row["states"] += 1
        harness = c.agree is None and any(p.startswith("harness") for p in c.problems)
        row["agree" if c.agree is True else "disagree" if c.agree is False else "harness" if harness else
            "unknown"] += 1
    return out


def case_path(line: str, command: str, seed: int, where: str = "open") -> Path:
    return CASES / where / f"kueue-{line}-{command}-seed-{seed}.yaml"


def known(line: str, command: str, seed: int) -> bool:
    return any(case_path(line, command, seed, w).exists() for w in ("open", "explained"))


def save(plane: Plane, lay: ly.Layout, c: Check, rec: df.Record | None = None) -> Path:
    """A disagreement kept for replay (cases/layouts/open/: a bug not yet fixed, listed in
    docs/real-cluster.md; once understood and not a bug it moves to explained/ with the why)."""
    line = ".".join(plane.version.lstrip("v").split(".")[:2])
    p = case_path(line, c.command, c.seed)
    p.parent.mkdir(parents=True, exist_ok=True)
    doc = {"kueue": plane.version, "command": c.command, "seed": c.seed, "problems": c.problems,
           "ours": c.ours, "kueueDid": c.kueue, "explained": None, "layout": lay.to_dict()}
    if rec is not None:
        doc["record"] = {k: v for k, v in asdict(rec).items() if k not in ("snapshot", "state")}
    doc["snapshot"] = c.snapshot
    p.write_text(yaml.safe_dump(json.loads(json.dumps(doc, default=str)), sort_keys=False))
    return p


def load_cases(where: str = "open") -> list[dict[str, Any]]:
    d = CASES / where
    return [dict(yaml.safe_load(p.read_text()), file=p.name) for p in sorted(d.glob("kueue-*.yaml"))]
