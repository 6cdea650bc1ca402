"""why-pending against the real Kueue on Workloads LWS makes (issue 47 item 6: the 4a differential gains the
frameworks), on the frameworks' plane (`scripts/real-cluster up --lws`).

A seeded generator makes a state: one ClusterQueue (one or two flavors of GPUs, preemption within it Never or
LowerPriority) and deployments in two waves: LeaderWorkerSets of several groups, sizes and priorities (some
groups larger than the queue can ever hold), and, where the plane's LWS has the API (v0.9, Kueue 0.19),
DisaggregatedSets of a prefill and a decode role. The first wave is deployed and left to settle, then the second
(whose higher priorities may preempt the first's groups), and Kueue settles again. Then, for every deployment,
`kubectl pd why-pending lws/NAME` (`ds/NAME`) is held against Kueue's Workloads, read before and after it (a
state that moved in between is read again):

- `workloads`: its `workloads[]` are Kueue's Workloads of that deployment, each admitted exactly when Kueue's
  Admitted condition is True;
- `headline`: every Workload admitted: no quota reason and no `PartlyAdmitted`; some: `PartlyAdmitted` among the
  reasons, its admitted and waiting roles (DisaggregatedSet) those of Kueue's Workloads; none: pending, no
  `PartlyAdmitted`;
- `codes`: for each waiting Workload whose QuotaReserved message is Kueue's quota verdict, a reason naming a
  waiting Workload of the same LWS (a DisaggregatedSet's: of the same role) is of its class:
  `QuotaExceedsCapacity` for `> maximum capacity` alone, else one of the short-of-quota codes (`QuotaExhausted`,
  `NeedsPreemption`, `PreemptionInProgress`). The groups of one LWS are alike, and Kueue writes nothing on a group
  it has not tried, so the reason may name a group other than the one Kueue's message is on.

Kueue's links (v0.19.2 `pkg/controller/jobs/leaderworkerset/`): one Workload per LWS group, owned by the LWS; a
DisaggregatedSet is one LWS per role (LWS v0.9.0 `pkg/controllers/disaggregatedset/`), labelled with the set's
name and the role. Disagreements are saved under tests/realcluster/cases/lws/ for replay.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.realcluster import frameworks as fw
from tests.realcluster import journey as jr
from tests.realcluster.plane import Plane, PlaneError, condition

Obj = dict[str, Any]
CASES = Path(__file__).parent / "cases" / "lws"
SHORT = ("QuotaExhausted", "NeedsPreemption", "PreemptionInProgress")
QUIET = 4.0  # seconds with no Workload changing: Kueue's verdict is in
PRIORITIES = tuple(jr.PRIORITIES)


@dataclass
class Deploy:
    kind: str  # "lws" | "ds"
    name: str
    priority: str
    wave: int  # 0: deployed first and settled; 1: deployed after (may preempt wave 0)
    replicas: int = 1  # lws: groups
    size: int = 1  # lws: Pods per group
    gpus: int = 1  # lws: cards per Pod
    roles: list[tuple[str, int, int, int]] = field(default_factory=list)  # ds: (role, groups, size, cards)

    @property
    def workloads(self) -> int:
        """How many Workloads Kueue makes for it: one per group (per role's group for a DisaggregatedSet)."""
        return self.replicas if self.kind == "lws" else sum(r[1] for r in self.roles)

    @property
    def target(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass
class State:
    seed: int
    flavors: list[tuple[str, int]]  # (flavor, nominal cards), tried in order
    within: str  # withinClusterQueue preemption
    deploys: list[Deploy]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def generate(seed: int, ds: bool) -> State:
    """A state of SEED; DS: DisaggregatedSets among the deployments (the plane's LWS has the API)."""
    rnd = random.Random(seed)
    flavors = [("fa", rnd.choice((4, 6, 8)))] + ([("fb", rnd.choice((2, 4)))] if rnd.random() < 0.35 else [])
    deploys = []
    for i in range(rnd.randint(2, 4)):
        wave = 0 if i == 0 else rnd.choice((0, 1))
        prio = rnd.choice(PRIORITIES)
        if ds and rnd.random() < 0.3:
            roles = [("prefill", rnd.choice((1, 1, 2)), 1, rnd.choice((1, 2))),
                     ("decode", 1, rnd.choice((1, 2)), rnd.choice((1, 2, 3)))]
            deploys.append(Deploy("ds", f"ds{i}", prio, wave, roles=roles))
        else:  # sizes up to 3 Pods of up to 3 cards: some groups beyond any flavor's nominal
            deploys.append(Deploy("lws", f"lws{i}", prio, wave, replicas=rnd.choice((1, 1, 2, 3)),
                                  size=rnd.choice((1, 2, 2, 3)), gpus=rnd.choice((1, 1, 2, 3))))
    return State(seed, flavors, rnd.choice(("Never", "LowerPriority", "LowerPriority")), deploys)


# ---------------------------------------------------------------------------------------------- objects

def objects(d: Deploy, ns: str) -> Obj:
    if d.kind == "lws":
        return fw.lws(ns, d.name, "q", replicas=d.replicas, size=d.size, gpus=d.gpus, priority_class=d.priority)
    out = fw.disaggregated_set(ns, d.name, "q", [fw.Role(r, replicas=n, size=s, gpus=g) for r, n, s, g in d.roles])
    for role in out["spec"]["roles"]:  # the set carries each role's labels to its LWS, where Kueue reads them
        role["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = d.priority
    return out


# ---------------------------------------------------------------------------------------------- Kueue's side

def kueue_workloads(plane: Plane, ns: str) -> dict[str, list[Obj]]:
    """Kueue's Workloads of the namespace by deployment: an LWS's own, a DisaggregatedSet's through its LWS."""
    lws = {x["metadata"]["name"]: (x["metadata"].get("labels") or {}).get(fw.DS_NAME) or x["metadata"]["name"]
           for x in fw.items(plane, "leaderworkersets.leaderworkerset.x-k8s.io", ns)}
    out: dict[str, list[Obj]] = {}
    for w in fw.items(plane, "workloads.kueue.x-k8s.io", ns):
        owner = next((r["name"] for r in w["metadata"].get("ownerReferences") or () if r.get("kind") ==
                      "LeaderWorkerSet"), None)
        if owner is not None:
            out.setdefault(lws.get(owner, owner), []).append(w)
    return {k: sorted(v, key=lambda w: w["metadata"]["name"]) for k, v in out.items()}


def _key(by: dict[str, list[Obj]]) -> str:
    return json.dumps({k: [(w["metadata"]["name"], w["metadata"]["resourceVersion"]) for w in ws]
                       for k, ws in sorted(by.items())})


def settle(plane: Plane, ns: str, deploys: list[Deploy], timeout: float = 120) -> dict[str, list[Obj]]:
    """Every deployment's Workloads made, nothing changed for QUIET seconds (Kueue writes no condition on a Workload
    it has not tried: one behind an inadmissible head of its queue may have none)."""
    want = {d.name: d.workloads for d in deploys}
    last, since = "", time.monotonic()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        by = kueue_workloads(plane, ns)
        ready = all(len(by.get(n, [])) == c for n, c in want.items())
        key = _key(by)
        if not ready or key != last:
            last, since = key if ready else "", time.monotonic()
        elif time.monotonic() - since >= QUIET:
            return by
        time.sleep(0.5)
    seen = {k: [(w["metadata"]["name"], w["metadata"]["resourceVersion"], [(c["type"], c["status"], c.get("reason"))
                                                                          for c in (w.get("status") or {}).get(
                                                                              "conditions") or []])
                for w in ws] for k, ws in kueue_workloads(plane, ns).items()}
    raise PlaneError(f"namespace {ns}: Kueue did not settle in {timeout:.0f} s (want {want}; last seen {seen})")


def admitted(w: Obj) -> bool:
    return fw.admitted(w)


def quota_class(w: Obj) -> str | None:
    """The class of Kueue's quota verdict on a waiting Workload: "capacity" (`> maximum capacity` only),
    "short" (`insufficient unused quota`), or None (Kueue says something else)."""
    msg = jr.kueue_message(w)
    short = "insufficient unused quota" in msg
    over = "> maximum capacity" in msg
    return "capacity" if over and not short else "short" if short else None


# ---------------------------------------------------------------------------------------------- checks

def role_of(w: Obj) -> str | None:
    """The DisaggregatedSet role of an LWS-made Workload (its LWS's name ends with the role)."""
    owner = next((r["name"] for r in w["metadata"].get("ownerReferences") or () if r.get("kind") ==
                  "LeaderWorkerSet"), "")
    return next((r for r in ("prefill", "decode") if owner.endswith(f"-{r}")), None)


def check(d: Deploy, doc: Obj, ws: list[Obj]) -> tuple[dict[str, bool | None], Obj]:
    """One deployment's answer DOC against Kueue's Workloads WS: per aspect True agree, False disagree, None not
    checkable; and what was compared (for a saved case)."""
    kueue = {w["metadata"]["name"]: admitted(w) for w in ws}
    ours = {w.get("name"): w.get("admitted") for w in doc.get("workloads") or []}
    reasons = doc.get("reasons") or []
    codes = [r.get("code") for r in reasons]
    out: dict[str, bool | None] = {"workloads": ours == kueue}
    n_adm = sum(kueue.values())
    quota = {"QuotaExceedsCapacity", *SHORT}
    if n_adm == len(kueue):
        out["headline"] = "PartlyAdmitted" not in codes and not quota.intersection(codes)
    elif n_adm:
        part = next((r for r in reasons if r.get("code") == "PartlyAdmitted"), None)
        ok = part is not None
        if ok and d.kind == "ds":
            p = part.get("params") or {}  # type: ignore[union-attr]
            want_adm = sorted({role_of(w) for w in ws if admitted(w)} - {None})  # type: ignore[type-var]
            want_wait = sorted({role_of(w) for w in ws if not admitted(w)} - {None})  # type: ignore[type-var]
            # a role admitted in one group and waiting in another is on both sides
            ok = sorted(p.get("admittedRoles") or []) == want_adm and sorted(p.get("waitingRoles") or []) == want_wait
        out["headline"] = ok
    else:
        out["headline"] = doc.get("pending") is True and "PartlyAdmitted" not in codes
    # the groups of one LWS (of one role's LWS) are alike: a reason may name any waiting one of them, not
    # necessarily the one Kueue tried last (Kueue writes nothing on a group behind its queue's head)
    waiting = {w["metadata"]["name"]: role_of(w) for w in ws if not admitted(w)}
    verdicts = []
    for w in ws:
        cls = None if admitted(w) else quota_class(w)
        if cls is None:
            continue
        mine = [r.get("code") for r in reasons if r.get("workload") in waiting
                and waiting[r.get("workload")] == role_of(w)]
        verdicts.append(("QuotaExceedsCapacity" in mine) if cls == "capacity" else bool(set(SHORT) & set(mine)))
    out["codes"] = all(verdicts) if verdicts else None
    said = {"kueue": {w["metadata"]["name"]: {"admitted": admitted(w), "message": jr.kueue_message(w)} for w in ws},
            "ours": {"workloads": ours, "pending": doc.get("pending"),
                     "reasons": [{k: r.get(k) for k in ("code", "workload", "role", "flavor", "needed", "params")}
                                 for r in reasons]}}
    return out, said


# ---------------------------------------------------------------------------------------------- one state

@dataclass
class Record:
    seed: int
    kueue: str
    lws: str
    state: dict[str, Any]
    agree: dict[str, dict[str, bool | None]] = field(default_factory=dict)  # target -> aspect -> verdict
    said: dict[str, Any] = field(default_factory=dict)  # target -> what was compared
    preempted: list[str] = field(default_factory=list)  # Workloads Kueue evicted by preemption
    seconds: float = 0.0

    @property
    def disagrees(self) -> bool:
        return any(v is False for a in self.agree.values() for v in a.values())


def _preempted(w: Obj) -> bool:
    return any(c is not None and c.get("reason") == "Preempted" for c in (condition(w, "Evicted"),
                                                                          condition(w, "Preempted")))


def run(plane: Plane, state: State) -> Record:
    t0 = time.monotonic()
    ns = plane.namespace(f"l{state.seed}")
    lay = jr.layout(plane, "gpu", ns, {"q": {f: (n, None, None) for f, n in state.flavors}},
                    preemption={"withinClusterQueue": state.within})
    rec = Record(state.seed, plane.version, str(plane.state().get("lws")), state.to_dict())
    try:
        for wave in (0, 1):  # wave by wave, each settled before the next
            mine = [d for d in state.deploys if d.wave == wave]
            if mine:
                plane.apply(*[objects(d, ns) for d in mine])
                settle(plane, ns, [d for d in state.deploys if d.wave <= wave])
        for attempt in range(3):
            before = kueue_workloads(plane, ns)
            docs = {d.name: _why(plane, d, ns) for d in state.deploys}
            after = kueue_workloads(plane, ns)
            if _key(before) == _key(after) or attempt == 2:
                break
            settle(plane, ns, state.deploys)
        rec.preempted = sorted(w["metadata"]["name"] for ws in after.values() for w in ws if _preempted(w))
        for d in state.deploys:
            rec.agree[d.target], rec.said[d.target] = check(d, docs[d.name], after.get(d.name, []))
        if _key(before) != _key(after):  # Kueue never stood still around the answers: nothing is judged
            rec.agree = {t: {k: None for k in a} for t, a in rec.agree.items()}
    finally:
        fw.cleanup(plane, ns)
        plane.kubectl("delete", "localqueue", "q", "-n", ns, "--wait=false", check=False)
        plane.kubectl("delete", "clusterqueue", lay.cq("q"), "--wait=false", check=False)
    rec.seconds = round(time.monotonic() - t0, 1)
    return rec


def _why(plane: Plane, d: Deploy, ns: str) -> Obj:
    said = jr.pd(plane, "why-pending", d.target, "-n", ns, "-o", "json")
    if said.rc not in (0, 1):
        raise PlaneError(str(said))
    return said.doc


def summary(records: list[Record]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in records:
        for target, aspects in r.agree.items():
            for aspect, v in aspects.items():
                row = out.setdefault(f"{target.split('/')[0]}.{aspect}", {"agree": 0, "disagree": 0, "unknown": 0})
                row["agree" if v is True else "disagree" if v is False else "unknown"] += 1
    return out


# ---------------------------------------------------------------------------------------------- cases

def case_path(kueue: str, seed: int) -> Path:
    line = ".".join(kueue.lstrip("v").split(".")[:2])
    return CASES / f"kueue-{line}-seed-{seed}.yaml"


def known(kueue: str, seed: int) -> bool:
    return case_path(kueue, seed).exists()


def save(rec: Record) -> Path:
    """A disagreement kept for replay: the state (generate(seed) makes it again), what Kueue did and what we said
    per deployment, and `explained` (None until understood)."""
    p = case_path(rec.kueue, rec.seed)
    p.parent.mkdir(parents=True, exist_ok=True)
    doc = {"kueue": rec.kueue, "lws": rec.lws, "seed": rec.seed, "explained": None, "agree": rec.agree,
           "preempted": rec.preempted, "said": rec.said, "state": rec.state}
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    return p
