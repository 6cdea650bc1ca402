"""why-pending against what the real Kueue does (issue 28, 4a).

A seeded generator makes a state: flavors, ClusterQueues in a cohort of their own (nominal, borrowing and
lending limits, flavor fungibility, the preemption policies, fair-sharing weights), admitted Workloads of
several priorities, and one pending two-role pod group held from admission by its LocalQueue's
`stopPolicy: Hold`. The cluster is snapshotted as `kubectl get -o yaml` writes it, the hold is lifted in the
snapshot and `why-pending --from-file` predicts; then the hold is lifted in the cluster, Kueue acts, and the
two are compared: admitted or not, the flavor of every pod set, the Workloads preempted, and, on each of
them, the preemptor `why-pending` names. The live `why-pending` on the settled state is kept too.

The pure half (generate, lift, predict, outcome, compare) needs no cluster; `run` drives one state on a
Plane. Standalone Workloads hold the admitted quota (Kueue admits a Workload that has no owner, as in its own
integration tests); when Kueue preempts one, nothing owns it to stop, so `run` finishes the eviction the
way Kueue's test utilities do (the quota reservation cleared), and Kueue then admits the preemptor.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import yaml

from kubectl_pd.kueue.quantity import parse
from tests.realcluster import objs
from tests.realcluster.plane import Plane, PlaneError, condition, is_true, wait_for

PRIORITIES = {"pd-low": 10, "pd-mid": 50, "pd-high": 100}
POLICIES_WITHIN = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")
POLICIES_RECLAIM = ("Never", "LowerPriority", "Any")
SETTLE = 4.0  # seconds with nothing changing after the hold is lifted: Kueue's verdict is in

_PHASES = threading.local()  # this thread's seconds per phase (timed), while `timings` collects them


@contextlib.contextmanager
def timings() -> Iterator[dict[str, float]]:
    """Collect, on this thread, the seconds spent in each `timed` phase (a state runs on one thread)."""
    out: dict[str, float] = {}
    _PHASES.d = out
    try:
        yield out
    finally:
        _PHASES.d = None


@contextlib.contextmanager
def timed(phase: str) -> Iterator[None]:
    t0 = time.monotonic()
    try:
        yield
    finally:
        d = getattr(_PHASES, "d", None)
        if d is not None:
            d[phase] = round(d.get(phase, 0.0) + time.monotonic() - t0, 2)


@dataclass
class QueueSpec:
    name: str
    quotas: dict[str, tuple[int, int | None, int | None]]  # flavor -> (nominal, borrowingLimit, lendingLimit)
    within: str = "Never"
    reclaim: str = "Never"
    borrow_within: str | None = None  # borrowWithinCohort policy (LowerPriority) or None
    when_borrow: str = "MayStopSearch"
    when_preempt: str = "TryNextFlavor"
    weight: str | None = None


@dataclass
class Running:
    name: str
    queue: str
    priority: str
    count: int
    gpus: int


@dataclass
class State:
    seed: int
    flavors: list[str]
    queues: list[QueueSpec]
    running: list[Running]
    target_queue: str
    target_priority: str
    roles: list[tuple[str, int, int]]  # (role, pods, gpus per pod)
    fair_sharing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def generate(seed: int, fair_sharing: bool = False) -> State:
    rnd = random.Random(seed)
    flavors = ["fa", "fb"][: rnd.choice((1, 2, 2))]
    queues = []
    count = rnd.choice((1, 2, 2, 3))
    for i in range(count):
        quotas = {}
        for f in flavors:
            nominal = rnd.choice((0, 2, 4, 4, 6, 8))
            # limits only in a cohort (Kueue refuses them without one); a lone queue has no cohort
            borrowing = rnd.choice((None, None, 0, 2, 4)) if count > 1 else None
            lending = rnd.choice((None, None, None, 0, 2)) if count > 1 else None
            if lending is not None:
                lending = min(lending, nominal)
            quotas[f] = (nominal, borrowing, lending)
        reclaim = rnd.choice(POLICIES_RECLAIM)
        queues.append(QueueSpec(
            name=f"q{i}", quotas=quotas, within=rnd.choice(POLICIES_WITHIN), reclaim=reclaim,
            # Kueue refuses borrowWithinCohort unless reclaimWithinCohort is other than Never
            borrow_within=rnd.choice((None, None, "LowerPriority")) if reclaim != "Never" else None,
            when_borrow=rnd.choice(("MayStopSearch", "TryNextFlavor")),
            when_preempt=rnd.choice(("MayStopSearch", "TryNextFlavor")),
            weight=rnd.choice((None, "0", "1", "2")) if fair_sharing else None))
    running = [Running(f"run{j}", rnd.choice(queues).name, rnd.choice(list(PRIORITIES)), rnd.choice((1, 1, 2)),
                       rnd.choice((1, 2, 2, 4))) for j in range(rnd.randint(0, 5))]
    roles = [("prefill", rnd.choice((1, 1, 2)), rnd.choice((1, 2))), ("decode", rnd.choice((1, 2, 2)),
                                                                      rnd.choice((1, 2, 4)))]
    return State(seed, flavors, queues, running, target_queue=rnd.choice(queues).name,
                 target_priority=rnd.choice(list(PRIORITIES)), roles=roles, fair_sharing=fair_sharing)


# ---------------------------------------------------------------- objects

@dataclass
class Names:
    """The cluster names of one state (cluster-scoped names are unique per state)."""

    namespace: str  # the state's own namespace; its name prefixes the cluster-scoped names too

    @property
    def prefix(self) -> str:
        return self.namespace

    def flavor(self, f: str) -> str:
        return f"{self.prefix}-{f}"

    def cq(self, q: str) -> str:
        return f"{self.prefix}-{q}"

    @property
    def cohort(self) -> str:
        return f"{self.prefix}-cohort"


def queue_objects(state: State, n: Names) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [objs.flavor(n.flavor(f)) for f in state.flavors]
    for q in state.queues:
        preemption: dict[str, Any] = {"withinClusterQueue": q.within, "reclaimWithinCohort": q.reclaim}
        if q.borrow_within:
            preemption["borrowWithinCohort"] = {"policy": q.borrow_within}
        flavors = []
        for f in state.flavors:
            nominal, borrowing, lending = q.quotas[f]
            flavors.append((n.flavor(f), [objs.quota(objs.GPU, str(nominal),
                                                     None if borrowing is None else str(borrowing),
                                                     None if lending is None else str(lending))]))
        cohort = n.cohort if len(state.queues) > 1 else None
        out.append(objs.cluster_queue(n.cq(q.name), flavors, cohort=cohort, preemption=preemption,
                                      fungibility={"whenCanBorrow": q.when_borrow, "whenCanPreempt": q.when_preempt},
                                      weight=q.weight))
        out.append(objs.local_queue(n.namespace, q.name, n.cq(q.name)))
    hold = objs.local_queue(n.namespace, "target", n.cq(state.target_queue))
    hold["spec"]["stopPolicy"] = "Hold"
    out.append(hold)
    return out


def running_objects(state: State, n: Names) -> list[dict[str, Any]]:
    return [objs.workload(n.namespace, r.name, r.queue, [("main", r.count, {objs.GPU: str(r.gpus)})],
                          priority=(r.priority, PRIORITIES[r.priority])) for r in state.running]


def target_pods(state: State, n: Names) -> list[dict[str, Any]]:
    total = sum(c for _, c, _ in state.roles)
    return [objs.group_pod(n.namespace, f"pd-{role}-{i}", "pd", total, "target", role, {objs.GPU: str(gpus)},
                           priority_class=state.target_priority)
            for role, count, gpus in state.roles for i in range(count)]


# ---------------------------------------------------------------- the snapshot and its lifted hold

SNAPSHOT_KINDS = ("resourceflavors", "clusterqueues", "cohorts", "workloadpriorityclasses")
NAMESPACED_KINDS = ("localqueues", "workloads", "pods")


def snapshot(plane: Plane, n: Names) -> list[dict[str, Any]]:
    """What `kubectl get -o yaml` writes, for the cluster-scoped objects of this state and its namespace."""
    items: list[dict[str, Any]] = []
    cluster = yaml.safe_load(plane.kubectl("get", ",".join(SNAPSHOT_KINDS), "-o", "yaml").stdout)["items"]
    items += [o for o in cluster if o["kind"] == "WorkloadPriorityClass"
              or o["metadata"]["name"].startswith(n.prefix + "-")]
    items += yaml.safe_load(plane.kubectl("get", ",".join(NAMESPACED_KINDS), "-n", n.namespace, "-o",
                                          "yaml").stdout)["items"]
    return items


def lift(snap: list[dict[str, Any]], target_workload: str) -> list[dict[str, Any]]:
    """The hold lifted in the snapshot: the LocalQueue without its stopPolicy (and active), the target's
    Workload as a scheduler would first meet it (no condition from the hold)."""
    out = []
    for o in snap:
        o = json.loads(json.dumps(o))
        if o["kind"] == "LocalQueue" and o["spec"].get("stopPolicy") == "Hold":
            del o["spec"]["stopPolicy"]
            for c in (o.get("status") or {}).get("conditions") or []:
                if c.get("type") == "Active":
                    c.update(status="True", reason="Ready", message="Can submit new workloads to localQueue")
        if o["kind"] == "Workload" and o["metadata"]["name"] == target_workload:
            (o.setdefault("status", {})).pop("conditions", None)
        out.append(o)
    return out


# ---------------------------------------------------------------- verdicts

@dataclass
class Verdict:
    admitted: bool | None  # None: the tool would not say
    flavors: dict[str, str] = field(default_factory=dict)  # pod set (role) -> flavor of the GPU
    preempted: list[str] | None = None  # None: not known
    codes: list[str] = field(default_factory=list)


def predict(doc: dict[str, Any], n: Names) -> Verdict:
    item = doc["items"][0] if "items" in doc else doc  # a named target is one document
    codes = [r["code"] for r in item["reasons"]]
    flavors = {r["name"]: _short(r.get("flavor"), n) for r in item["roles"] if r.get("flavor")}
    pre = item.get("preemption") or {}
    targets = pre.get("targets")
    if not item["pending"] or codes == ["WaitingInQueue"]:
        return Verdict(True, flavors, [], codes)
    if codes and all(c == "NeedsPreemption" for c in codes):
        names = None if targets is None else sorted(t["name"] for t in targets)
        # no target Kueue could preempt: not admitted; targets unknown: the tool does not say
        return Verdict(None if names is None else bool(names), flavors if names else {}, names, codes)
    if any(c in ("QuotaExhausted", "NoMatchingFlavor", "QuotaExceedsCapacity", "ResourceNotCovered",
                 "ClusterQueueStopped", "ClusterQueueInactive") for c in codes):
        return Verdict(False, {}, [], codes)
    return Verdict(None, flavors, None, codes)


def _short(flavor: str | None, n: Names) -> str:
    return (flavor or "").removeprefix(n.prefix + "-")


def outcome(target: dict[str, Any], running: list[dict[str, Any]], n: Names, roles: dict[str, str],
            resource: str = objs.GPU) -> Verdict:
    """What Kueue did: ROLES maps Kueue's pod-set names to our role names."""
    uid = target["metadata"].get("uid")
    preempted = sorted(w["metadata"]["name"] for w in running if _preempted(w, uid))
    admission = (target.get("status") or {}).get("admission")
    if admission and is_true(target, "QuotaReserved"):
        flavors = {roles.get(a["name"], a["name"]): _short(a.get("flavors", {}).get(resource), n)
                   for a in admission["podSetAssignments"]}
        return Verdict(True, flavors, preempted)
    return Verdict(bool(preempted) or False, {}, preempted)


def _preempted(w: dict[str, Any], by: str | None = None) -> bool:
    """Evicted by preemption (by the Workload of UID BY, when given: a Workload whose eviction the test
    finished queues again and may preempt others in turn, which is not the target's doing)."""
    ev = condition(w, "Evicted")
    pre = condition(w, "Preempted")
    hit = [c for c in (ev, pre) if c is not None and (c.get("reason") == "Preempted" or (
        c is pre and c.get("status") == "True"))]
    return bool(hit) and (by is None or any(f"(UID: {by}," in (c.get("message") or "") for c in hit))


def compare(p: Verdict, k: Verdict) -> dict[str, bool | None]:
    """Per aspect: True agree, False disagree, None the tool said it cannot know (never counted as agreement)."""
    out: dict[str, bool | None] = {"admission": None if p.admitted is None else p.admitted == k.admitted}
    if k.admitted and not k.preempted and p.admitted:
        out["flavor"] = p.flavors == k.flavors
    out["targets"] = None if p.preempted is None else sorted(p.preempted) == sorted(k.preempted or [])
    return out


# Kueue's condition message for a pod set it could not place (kueue.md, "no-fit" rows), and our reason codes for it
_PODSET = re.compile(r"couldn't assign flavors to pod set ([^:]+): (.*)$", re.S)
_UNUSED = re.compile(r"insufficient unused quota for (\S+) in flavor ([^,\s]+), (\S+) more needed")
_CAPACITY = re.compile(r"insufficient quota for (\S+) in flavor ([^,\s]+), previously considered podsets requests "
                       r"\((\S+)\) \+ current podset request \((\S+)\) > maximum capacity \((\S+)\)")
SHORT_CODES = ("QuotaExhausted", "NeedsPreemption", "PreemptionInProgress")


def said(doc: dict[str, Any], target: dict[str, Any], roles: dict[str, str], n: Names) -> dict[str, bool | None]:
    """issue 37 item 5: the live answer's words against Kueue's condition on the same Workload at the same
    moment, for every pod set Kueue's message names (`...; couldn't assign flavors to pod set B: ...`). `code`: the
    pod set's reason code is the class of Kueue's words for it (short of unused quota, or over the maximum
    capacity); `shortfall`: its flavor is one Kueue names for that pod set, and its `needed` Kueue's `N more
    needed` there (capacity: previous + request - maximum). Empty: Kueue says no such thing."""
    cond = condition(target, "QuotaReserved") or {}
    message = cond.get("message") or "" if cond.get("status") == "False" else ""
    parts = [m for p in re.split(r"; (?=couldn't assign flavors to pod set )", message) if (m := _PODSET.match(p))]
    item = doc["items"][0] if doc.get("items") else doc
    out: dict[str, bool | None] = {}
    for m in parts:
        names, rest = {m.group(1), roles.get(m.group(1), m.group(1))}, m.group(2)  # the pod set's, or its role's
        short = {_short(f, n): parse(q) for _r, f, q in _UNUSED.findall(rest)}
        over = {_short(f, n): parse(p) + parse(q) - parse(c) for _r, f, p, q, c in _CAPACITY.findall(rest)}
        if not short and not over:
            continue
        mine = next((r for r in item.get("reasons") or () if r.get("role") in names
                     and r["code"] in (*SHORT_CODES, "QuotaExceedsCapacity")), None)
        if mine is None:
            code_ok = fits = False
        else:
            expect = over if mine["code"] == "QuotaExceedsCapacity" else short
            code_ok = (mine["code"] == "QuotaExceedsCapacity") == (bool(over) and not short)
            needed = parse(mine["needed"]) if mine.get("needed") is not None else None
            fits = _short(mine.get("flavor"), n) in expect and needed == expect[_short(mine.get("flavor"), n)]
        out["code"] = out.get("code", True) and code_ok
        out["shortfall"] = out.get("shortfall", True) and fits
    return out


# ---------------------------------------------------------------- driving one state

@dataclass
class Record:
    seed: int
    kueue: str
    state: dict[str, Any]
    predicted: dict[str, Any]
    kueue_did: dict[str, Any]
    agree: dict[str, bool | None]
    preemptor: dict[str, bool] = field(default_factory=dict)  # preempted Workload -> why-pending names ours
    live_codes: list[str] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)  # Kueue's pod-set names -> our roles
    snapshot: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    words: dict[str, bool | None] = field(default_factory=dict)  # issue 37: codes and shortfall against Kueue's
    screen: list[str] = field(default_factory=list)  # what breaks one set of figures on the live screen
    said: dict[str, Any] = field(default_factory=dict)  # Kueue's message and our reasons, for a saved case

    @property
    def disagrees(self) -> bool:
        return False in self.agree.values() or False in self.preemptor.values() or False in self.words.values()


def ensure_priorities(plane: Plane) -> None:
    plane.apply(*[objs.priority_class(k, v) for k, v in PRIORITIES.items()])


def run(plane: Plane, state: Any, kueue_config: str | None = None, kit: Kit | None = None) -> Record:
    kit = kit or KIT
    t0 = time.monotonic()
    with timed("setup"):
        ns = plane.namespace(f"{kit.namespace_prefix}{state.seed}")
        n = Names(ns)
        admitted = setup(plane, state, n, kit)
    resource = kit.resource_of(state)
    with timed("why-pending.wait-held"):
        plane.apply(*kit.target_pods(state, n), server_side=False)
        wl = wait_for("the pod group's Workload", lambda: _target(plane, ns), timeout=30)
        roles = _role_names(plane, ns, wl, resource)
        # the hold seen by Kueue (the Workload inadmissible), then the snapshot
        wait_for("the held Workload seen", lambda: condition(_target(plane, ns) or {}, "QuotaReserved") is not None,
                 timeout=30)
    with timed("why-pending.predict"):
        snap = lift(kit.snapshot(plane, n), wl["metadata"]["name"])
        args = ["why-pending", "podgroup/pd", "-n", ns, "-o", "json", "-f", "-"]
        if kueue_config:
            args += ["--kueue-config", kueue_config]
        got = plane.pd(*args, input=yaml.safe_dump_all(snap, sort_keys=False))
    if got.returncode not in (0, 1):
        raise PlaneError(f"why-pending --from-file exited {got.returncode}: {got.stderr.strip()}")
    doc = json.loads(got.stdout)
    predicted = _rename(predict(doc, n), roles)
    # lift the hold in the cluster and let Kueue act
    with timed("why-pending.settle"):
        plane.kubectl("patch", "localqueue", "target", "-n", ns, "--type=json",
                      "-p", '[{"op":"remove","path":"/spec/stopPolicy"}]')
        kueue_did = _settle(plane, ns, n, admitted, roles, resource)
    with timed("why-pending.live"):
        rec = _live(plane, state, kueue_did, predicted, roles, snap, wl, n)
    rec.seconds = round(time.monotonic() - t0, 2)
    with timed("cleanup"):
        kit.cleanup(plane, state, n)
    return rec


def _live(plane: Plane, state: Any, kueue_did: Verdict, predicted: Verdict, roles: dict[str, str],
          snap: list[dict[str, Any]], wl: dict[str, Any], n: Names) -> Record:
    """The record of one state once Kueue settled: the preemptor named on each victim, the live answer's words."""
    ns = n.namespace
    rec = Record(state.seed, plane.version, state.to_dict(), asdict(predicted), asdict(kueue_did),
                 compare(predicted, kueue_did), roles=roles, snapshot=snap)
    for victim in kueue_did.preempted or []:
        if not is_true(plane.get("workload", victim, ns), "QuotaReserved"):  # readmitted since: not pending
            rec.preemptor[victim] = _names_preemptor(plane, ns, victim, wl)
    live = plane.pd("why-pending", "podgroup/pd", "-n", ns, "-o", "json")
    if live.returncode in (0, 1) and live.stdout.strip():
        doc = json.loads(live.stdout)
        rec.live_codes = [r["code"] for it in doc.get("items", [doc]) for r in it["reasons"]]
        now = _target(plane, ns)
        if now is not None and not kueue_did.admitted:
            rec.words = said(doc, now, roles, n)
            rec.said = {"kueue": (condition(now, "QuotaReserved") or {}).get("message"),
                        "ours": [{k: r.get(k) for k in ("code", "role", "flavor", "needed", "available")}
                                 for it in doc.get("items", [doc]) for r in it["reasons"]]}
        if "items" not in doc:  # one set of figures on the live screen too (tests/test_screen_property.py)
            _live_screen(plane, ns, doc, rec)
    return rec


def _live_screen(plane: Plane, ns: str, doc: dict[str, Any], rec: Record) -> None:
    """The text screen against the JSON of the same moment: the two are separate runs, so the JSON is read again
    after the text and the pair judged only when nothing moved between them (0.18.4 seed 46135: the group was
    admitted and its Pods ungated between the two, so the headline was not the first reason of the other run)."""
    from tests.test_screen_property import check_screen

    def codes(d: dict[str, Any]) -> list[tuple[str, Any]]:
        return [(r["code"], r.get("role")) for r in d.get("reasons") or []]

    for _ in range(3):
        text = plane.pd("why-pending", "podgroup/pd", "-n", ns)
        after = plane.pd("why-pending", "podgroup/pd", "-n", ns, "-o", "json")
        if text.returncode != 0 or after.returncode not in (0, 1) or not after.stdout.strip():
            return
        again = json.loads(after.stdout)
        if "items" not in again and codes(again) == codes(doc) and again.get("pending") == doc.get("pending"):
            rec.screen = check_screen(doc, text.stdout)
            rec.words["screen"] = not rec.screen
            return
        doc = again if "items" not in again else doc


def setup(plane: Plane, state: Any, n: Names, kit: Kit | None = None) -> list[str]:
    """The state's queues, then its running Workloads one at a time (each admitted or deactivated), once the
    ClusterQueues' status shows every admitted one: the names admitted."""
    kit = kit or KIT
    ns = n.namespace
    with timed("setup.queues"):
        if kit.prepare is not None:
            kit.prepare(plane, state, n)
        plane.apply(*kit.queue_objects(state, n))
        for q in kit.active(state):
            wait_for(f"ClusterQueue {n.cq(q)} active", lambda q=q: is_true(plane.get("clusterqueue", n.cq(q)),
                                                                           "Active"), timeout=30)
    admitted: list[str] = []
    with timed("setup.running"):
        for r in kit.running_objects(state, n):  # one at a time, in order: each is admitted or deactivated
            plane.apply(r)
            name = r["metadata"]["name"]
            got = wait_for(f"Workload {name} settled", lambda name=name: _settled_running(plane, ns, name),
                           timeout=30)
            if got == "admitted":  # admitted by quota alone: Kueue admits a preemptor only once its victims
                admitted.append(name)  # release their quota, which nothing does for ours, so none was evicted
                continue
            plane.kubectl("patch", "workload", name, "-n", ns, "--type=merge", "-p", '{"spec":{"active":false}}')
            # a Workload that needed preemption to fit may have had Kueue evict earlier ones before it was
            # deactivated: those are finished and leave the state (the target must meet a quiet cluster)
            time.sleep(0.5)
            for w in plane.get("workloads", namespace=ns)["items"]:
                if w["metadata"]["name"] in admitted and (_preempted(w) or not is_true(w, "QuotaReserved")):
                    _finish_eviction(plane, ns, w["metadata"]["name"], deactivate=True)
                    admitted.remove(w["metadata"]["name"])
    # the ClusterQueues' status (usage, counts) is written by Kueue a little after each admission: the
    # snapshot is taken once it shows every admitted Workload and what they reserve,
    # as a user's `kubectl get` would see it later. The count alone is not enough: a preempted Workload still
    # counted while the one admitted after it is not yet gives the same count (0.19.2 seed 46091: q1 counted 8
    # cards of run0 evicted instead of run4's 4, so the preflight saw no room a moment before Kueue admitted)
    with timed("setup.status"):
        wait_for("the ClusterQueues' status current", lambda: _status_current(plane, state, n, admitted),
                 timeout=30)
    return admitted


def _status_current(plane: Plane, state: Any, n: Names, admitted: list[str]) -> bool:
    """Every ClusterQueue's status counts the admitted Workloads, and reserves what their admissions charge."""
    by_queue = {q.name: [r.name for r in state.running if r.name in admitted and r.queue == q.name]
                for q in state.queues}
    workloads = {w["metadata"]["name"]: w for w in plane.get("workloads", namespace=n.namespace)["items"]}
    for q, names in by_queue.items():
        st = plane.get("clusterqueue", n.cq(q)).get("status") or {}
        if st.get("reservingWorkloads", 0) != len(names):
            return False
        want: dict[tuple[str, str], Any] = {}
        for name in names:
            for psa in ((workloads.get(name) or {}).get("status") or {}).get("admission", {}).get(
                    "podSetAssignments") or []:
                for res, qty in (psa.get("resourceUsage") or {}).items():
                    key = (psa.get("flavors", {}).get(res, ""), res)
                    want[key] = want.get(key, 0) + parse(qty)
        have = {(f["name"], r["name"]): parse(r.get("total", "0"))
                for f in st.get("flavorsReservation") or [] for r in f.get("resources") or []}
        covered = {r for _, r in have}  # what the queue covers: a resource it does not cover is not reserved
        want = {k: v for k, v in want.items() if k[1] in covered}
        if any(have.get(k, 0) != v for k, v in want.items()) or any(v and k not in want for k, v in have.items()):
            return False
    return True


def _settled_running(plane: Plane, ns: str, name: str) -> str | None:
    w = plane.get("workload", name, ns)
    if is_true(w, "QuotaReserved"):
        return "admitted"
    c = condition(w, "QuotaReserved")
    return "pending" if c is not None and c.get("reason") in ("Pending", "Inadmissible") else None


def _target(plane: Plane, ns: str) -> dict[str, Any] | None:
    for w in plane.get("workloads", namespace=ns)["items"]:
        if not w["metadata"]["name"].startswith("run"):
            return dict(w)
    return None


def _role_names(plane: Plane, ns: str, wl: dict[str, Any], resource: str = objs.GPU) -> dict[str, str]:
    """Kueue's pod-set names (a hash of each role's pod shape) to the role label of the pods behind them."""
    out = {}
    pods = plane.get("pods", namespace=ns)["items"]
    for ps in wl["spec"]["podSets"]:
        req = ps["template"]["spec"]["containers"][0]["resources"].get("requests", {})
        for p in pods:
            c = p["spec"]["containers"][0]
            if c["name"] == ps["template"]["spec"]["containers"][0]["name"] and \
                    c["resources"].get("requests", {}).get(resource) == req.get(resource):
                out[ps["name"]] = p["metadata"]["labels"]["pd.test/role"]
    return out


def _rename(v: Verdict, roles: dict[str, str]) -> Verdict:
    v.flavors = {roles.get(k, k): f for k, f in v.flavors.items()}
    return v


def _settle(plane: Plane, ns: str, n: Names, admitted: list[str], roles: dict[str, str],
           resource: str = objs.GPU) -> Verdict:
    """Wait until nothing changes for SETTLE seconds; finish each eviction Kueue asks for (nothing owns our
    Workloads to stop them), then wait for the preemptor's admission."""
    preempted: set[str] = set()  # by the target
    finished: set[str] = set()  # evictions finished (by the target or by a Workload queued again)
    last, quiet_since = "", time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        items = plane.get("workloads", namespace=ns)["items"]
        target = next(w for w in items if not w["metadata"]["name"].startswith("run"))
        running = [w for w in items if w["metadata"]["name"] in admitted]
        for w in running:
            if _preempted(w) and w["metadata"]["name"] not in finished:
                finished.add(w["metadata"]["name"])
                if _preempted(w, target["metadata"]["uid"]):
                    preempted.add(w["metadata"]["name"])
                _finish_eviction(plane, ns, w["metadata"]["name"])
        key = json.dumps([(w["metadata"]["name"], (w.get("status") or {}).get("admission"),
                           [(c["type"], c["status"], c.get("reason")) for c in (w.get("status") or {}).get(
                               "conditions") or []]) for w in items], sort_keys=True)
        if key != last:
            last, quiet_since = key, time.monotonic()
        elif is_true(target, "QuotaReserved") or time.monotonic() - quiet_since > SETTLE:
            v = outcome(target, running, n, roles, resource)
            v.preempted = sorted(preempted | set(v.preempted or []))
            return v
        time.sleep(0.3)
    raise PlaneError(f"namespace {ns}: Kueue did not settle in 60 s")


def _finish_eviction(plane: Plane, ns: str, name: str, deactivate: bool = False) -> None:
    """What the job a Workload stands for does when evicted, as Kueue's test utilities do it: the quota
    reservation is released (status.admission cleared, QuotaReserved false), and the Workload queues again
    (or, with DEACTIVATE, first leaves the state: `spec.active: false`, so it is not admitted again)."""
    if deactivate:
        plane.kubectl("patch", "workload", name, "-n", ns, "--type=merge", "-p", '{"spec":{"active":false}}',
                      check=False)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ours = {"QuotaReserved": {"type": "QuotaReserved", "status": "False", "reason": "Pending",
                              "message": "evicted by the test", "lastTransitionTime": now},
            "Admitted": {"type": "Admitted", "status": "False", "reason": "NoReservation",
                         "message": "evicted by the test", "lastTransitionTime": now}}
    current = (plane.get("workload", name, ns).get("status") or {}).get("conditions") or []
    # a merge patch replaces the whole list: Evicted and Preempted, as Kueue wrote them, are kept
    kept = [ours.pop(c["type"], c) if c["type"] in ours else c for c in current] + list(ours.values())
    patch = {"status": {"admission": None, "conditions": kept}}
    plane.kubectl("patch", "workload", name, "-n", ns, "--subresource=status", "--type=merge",
                  "-p", json.dumps(patch), check=False)


def _names_preemptor(plane: Plane, ns: str, victim: str, target: dict[str, Any]) -> bool:
    got = plane.pd("why-pending", f"workload/{victim}", "-n", ns, "-o", "json")
    if got.returncode not in (0, 1) or not got.stdout.strip():
        return False
    text = got.stdout
    return target["metadata"]["uid"] in text or target["metadata"]["name"] in text


def cleanup(plane: Plane, state: State, n: Names) -> None:
    """Workloads, pods and queues of a finished state deleted without waiting (its namespace stays: no
    namespace controller runs); the next state has names of its own."""
    plane.kubectl("delete", "pods,workloads,localqueues", "--all", "-n", n.namespace, "--wait=false",
                  "--grace-period=0", "--force", check=False)
    plane.kubectl("delete", "clusterqueues", *[n.cq(q.name) for q in state.queues], "--wait=false", check=False)
    plane.kubectl("delete", "resourceflavors", *[n.flavor(f) for f in state.flavors], "--wait=false", check=False)


@dataclass
class Kit:
    """What `run` makes of a state: this module's generator's by default; the layout generator
    (layouts.py) brings its own objects (Cohorts, Nodes, a resource other than the GPU) and reuses the rest."""

    queue_objects: Callable[[Any, Names], list[dict[str, Any]]]
    running_objects: Callable[[Any, Names], list[dict[str, Any]]]
    target_pods: Callable[[Any, Names], list[dict[str, Any]]]
    cleanup: Callable[[Plane, Any, Names], None]
    snapshot: Callable[[Plane, Names], list[dict[str, Any]]]
    prepare: Callable[[Plane, Any, Names], None] | None = None  # before the queues (Nodes)
    resource_of: Callable[[Any], str] = lambda state: objs.GPU  # the resource whose flavor is compared
    active: Callable[[Any], list[str]] = lambda state: [q.name for q in state.queues]  # queues that become Active
    namespace_prefix: str = "d"


KIT = Kit(queue_objects, running_objects, target_pods, cleanup, snapshot)


def summary(records: list[Record]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in records:
        for aspect, v in [*r.agree.items(), *(("preemptor", x) for x in r.preemptor.values()),
                          *((f"words.{k}", x) for k, x in r.words.items())]:
            row = out.setdefault(aspect, {"agree": 0, "disagree": 0, "unknown": 0})
            row["agree" if v is True else "disagree" if v is False else "unknown"] += 1
    return out
