"""The journey tier's helpers (issue 37, item 1): cluster layouts of our own, the steps a user types, and
the claims every step's answer is held to against what Kueue wrote.

Two layouts, chosen per journey (`Layout.kind`):
- "gpu": plain `nvidia.com/gpu` quotas, two flavors (z0, z1), the ClusterQueues in one flat cohort (a
  `cohortName` with no Cohort object), lending and borrowing limits where a journey asks for them;
- "credits": GPUStack credits (`credits.gpustack.ai/nvidia`, 1,600,000 a card), the ClusterQueues under a
  Cohort tree (a v1beta2 Cohort `…-team` whose parent is the Cohort `…-root`), priorities.

A journey's quotas are written in cards; the layout turns them into its resource's quantities. Every name is
unique to the run (the plane is shared by the session): flavors, queues and cohorts carry `plane.unique`'s
prefix, every journey has a namespace of its own.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import yaml

from kubectl_pd.kueue.quantity import parse
from tests.conftest import ROOT
from tests.realcluster import objs
from tests.realcluster.plane import Plane, PlaneError, condition, is_true, wait_for

Obj = dict[str, Any]
CREDITS = "credits.gpustack.ai/nvidia"
CARD = 1_600_000
PRIORITIES = {"pd-low": 10, "pd-mid": 50, "pd-high": 100}  # the values the rest of the tier gives them
Quota = tuple[int, int | None, int | None]  # (nominal, borrowingLimit, lendingLimit) in cards


# ---------------------------------------------------------------------------------------------- layouts

@dataclass
class Layout:
    kind: str  # "gpu" | "credits"
    ns: str
    prefix: str
    cqs: dict[str, str] = field(default_factory=dict)  # short name -> ClusterQueue
    lqs: dict[str, str] = field(default_factory=dict)  # LocalQueue in ns -> the short name of its ClusterQueue
    cohort: str = ""

    @property
    def resource(self) -> str:
        return objs.GPU if self.kind == "gpu" else CREDITS

    def amount(self, cards: int) -> str:
        """CARDS as the layout's resource quantity."""
        return str(cards if self.kind == "gpu" else cards * CARD)

    def cards(self, q: str | None) -> Fraction | None:
        """A quantity of the layout's resource (as Kueue or kubectl-pd print it) in cards."""
        if q is None:
            return None
        v = parse(q)
        return v if self.kind == "gpu" else v / CARD

    def flavor(self, short: str) -> str:
        return f"{self.prefix}-{short}"

    def cq(self, short: str) -> str:
        return self.cqs[short]

    def cq_of(self, local_queue: str) -> str:
        return self.cqs[self.lqs[local_queue]]


def layout(plane: Plane, kind: str, ns: str, quotas: dict[str, dict[str, Quota]], *,
           preemption: Obj | None = None, queues: dict[str, str] | None = None, hold: Iterable[str] = (),
           checks: list[str] | None = None, fungibility: Obj | None = None) -> Layout:
    """The ClusterQueues of QUOTAS ({queue: {flavor: (nominal, borrowing, lending)}}, flavors tried in the
    order given) in the layout KIND's cohort, a LocalQueue of the same short name for each in NS and those of
    QUEUES ({LocalQueue: queue}; those in HOLD with `stopPolicy: Hold`), the priority classes, once Kueue
    reports every ClusterQueue active. CHECKS: the AdmissionChecks every ClusterQueue asks for; FUNGIBILITY
    its flavorFungibility."""
    prefix = plane.unique(f"j{kind[0]}")
    out = Layout(kind, ns, prefix)
    made: list[Obj] = [objs.priority_class(k, v) for k, v in PRIORITIES.items()]
    flavors = sorted({f for qs in quotas.values() for f in qs})
    made += [objs.flavor(out.flavor(f)) for f in flavors]
    if kind == "credits":  # a Cohort tree: root <- team <- the ClusterQueues
        out.cohort = f"{prefix}-team"
        made += [{"apiVersion": objs.KV, "kind": "Cohort", "metadata": {"name": f"{prefix}-root"}, "spec": {}},
                 {"apiVersion": objs.KV, "kind": "Cohort", "metadata": {"name": out.cohort},
                  "spec": {"parentName": f"{prefix}-root"}}]
    else:  # a flat cohort: only a name the ClusterQueues share
        out.cohort = f"{prefix}-flat"
    for short, qs in quotas.items():
        name = f"{prefix}-{short}"
        out.cqs[short] = name
        rows = [(out.flavor(f), [objs.quota(out.resource, out.amount(n),
                                            None if b is None else out.amount(b),
                                            None if lend is None else out.amount(lend))])
                for f, (n, b, lend) in qs.items()]
        made.append(objs.cluster_queue(name, rows, cohort=out.cohort, covered=[out.resource],
                                       preemption=preemption, checks=checks, fungibility=fungibility))
    out.lqs = {**{q: q for q in quotas}, **(queues or {})}
    for lq_name, short in out.lqs.items():
        lq = objs.local_queue(ns, lq_name, out.cqs[short])
        if lq_name in hold:
            lq["spec"]["stopPolicy"] = "Hold"
        made.append(lq)
    plane.apply(*made)
    for name in out.cqs.values():
        _active(plane, name)
    return out


def _active(plane: Plane, cq: str) -> None:
    wait_for(f"ClusterQueue {cq} active", lambda: is_true(plane.get("clusterqueue", cq), "Active"), timeout=30)


def hold(plane: Plane, lay: Layout, name: str, queue: str, cards: int, priority: str | None = None) -> Obj:
    """A Workload of our own (one pod of CARDS) admitted through the LocalQueue QUEUE: the quota it holds is
    Kueue's `flavorsUsage` once the ClusterQueue's status counts it. Returns the admitted Workload."""
    cq = lay.cq_of(queue)
    before = _reserving(plane, cq)
    plane.apply(objs.workload(lay.ns, name, queue, [("main", 1, {lay.resource: lay.amount(cards)})],
                              priority=None if priority is None else (priority, PRIORITIES[priority])))
    wl = wait_for(f"Workload {name} admitted", lambda: (w := plane.get("workload", name, lay.ns)) and is_true(
        w, "QuotaReserved") and w, timeout=30)
    wait_for(f"ClusterQueue {cq} counts {name}", lambda: _reserving(plane, cq) == before + 1, timeout=30)
    return dict(wl)


def _reserving(plane: Plane, cq: str) -> int:
    return int((plane.get("clusterqueue", cq).get("status") or {}).get("reservingWorkloads", 0))


def group(plane: Plane, lay: Layout, name: str, queue: str, roles: list[tuple[str, int, int]],
          priority: str | None = None) -> list[Obj]:
    """A pod group as a user writes it (or `kubectl pd create --target pods` does): one Pod per replica of
    each (role, replicas, cards per Pod), the role named in `kueue.x-k8s.io/role-hash` (Kueue's pod-set
    name)."""
    total = sum(n for _, n, _ in roles)
    pods = []
    for role, n, cards in roles:
        for i in range(n):
            pod = objs.group_pod(lay.ns, f"{name}-{role}-{i}", name, total, queue, role,
                                 {lay.resource: lay.amount(cards)}, priority_class=priority,
                                 labels={"app.kubernetes.io/component": role})
            pod["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"] = role
            pods.append(pod)
    plane.apply(*pods, server_side=False)
    return pods


# ---------------------------------------------------------------------------------------------- steps

@dataclass
class Said:
    """One command's answer as the user sees it."""

    args: tuple[str, ...]
    rc: int
    out: str
    err: str

    @property
    def doc(self) -> Obj:
        try:
            return dict(json.loads(self.out))
        except ValueError as e:
            raise AssertionError(f"kubectl {' '.join(self.args)}: stdout is not JSON ({e}): {self.out[:800]!r} "
                                 f"stderr {self.err[-800:]!r}") from None

    def __str__(self) -> str:
        return f"kubectl {' '.join(self.args)} -> exit {self.rc}\n--- stdout\n{self.out[-3000:]}\n--- stderr\n" \
               f"{self.err[-2000:]}"


def pd(plane: Plane, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> Said:
    got = plane.pd(*args, env=env, input=input)
    return Said(("pd", *args), got.returncode, got.stdout, got.stderr)


def why(plane: Plane, target: str, ns: str, *more: str) -> tuple[Said, Obj]:
    """`kubectl pd why-pending TARGET -n NS -o json`: the answer and its document, held to the claims every
    why-pending document must keep (`doc_claims`)."""
    said = pd(plane, "why-pending", target, "-n", ns, "-o", "json", *more)
    assert said.rc in (0, 1), said
    doc = said.doc
    doc_claims(doc, str(said))
    return said, doc


def screen(plane: Plane, target: str, ns: str, doc: Obj, *more: str) -> Said:
    """The text screen of the same target, held to `screen_claims` against its JSON document DOC."""
    said = pd(plane, "why-pending", target, "-n", ns, *more)
    assert said.rc in (0, 1), said
    screen_claims(said, doc)
    return said


# ---------------------------------------------------------------------------------------------- Kueue's side

_POD_SET = re.compile(r"pod set (?P<ps>[^\s:]+): (?P<rest>.*?)(?=; couldn't assign|couldn't assign flavors to|$)")
_NEEDED = re.compile(r"insufficient unused quota for (?P<res>[^\s,]+) in flavor (?P<flv>[^\s,]+), "
                     r"(?P<n>[0-9A-Za-z.+\-]+) more needed")
_CAPACITY = re.compile(r"insufficient quota for (?P<res>[^\s,]+) in flavor (?P<flv>[^\s,]+),.*?> maximum capacity")


def workload(plane: Plane, ns: str, name: str) -> Obj | None:
    got = plane.kubectl("get", "workload", name, "-n", ns, "-o", "json", check=False)
    return dict(json.loads(got.stdout)) if got.returncode == 0 else None


def tried(plane: Plane, ns: str, name: str, timeout: float = 30) -> Obj:
    """The Workload NAME once Kueue has judged it (a QuotaReserved condition with a message)."""
    return dict(wait_for(f"Kueue's verdict on {name}", lambda: (w := workload(plane, ns, name)) and (
        condition(w, "QuotaReserved") or {}).get("message") and w, timeout=timeout))


def settled(plane: Plane, ns: str, name: str, quiet: float = 2, timeout: float = 30) -> Obj:
    """The Workload NAME once Kueue's message on it has stayed the same for QUIET seconds (Kueue's next attempt
    may start from the flavor after the one it tried last, and say something else)."""
    last, since = "", time.monotonic()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        wl = tried(plane, ns, name)
        if kueue_message(wl) != last:
            last, since = kueue_message(wl), time.monotonic()
        elif time.monotonic() - since >= quiet:
            return wl
        time.sleep(0.5)
    raise PlaneError(f"Kueue's message on {name} did not settle in {timeout:.0f} s: {last}")


def kueue_message(wl: Obj) -> str:
    return str((condition(wl, "QuotaReserved") or {}).get("message") or "")


def shortfalls(wl: Obj) -> dict[str, dict[str, str]]:
    """Kueue's `... in flavor F, N more needed`, per pod set: {pod set: {flavor: N}}."""
    out: dict[str, dict[str, str]] = {}
    for m in _POD_SET.finditer(kueue_message(wl)):
        for n in _NEEDED.finditer(m.group("rest")):
            out.setdefault(m.group("ps"), {})[n.group("flv")] = n.group("n")
    return out


def never_fits(wl: Obj) -> dict[str, set[str]]:
    """Kueue's `> maximum capacity`, per pod set: {pod set: {flavor}}."""
    out: dict[str, set[str]] = {}
    for m in _POD_SET.finditer(kueue_message(wl)):
        for n in _CAPACITY.finditer(m.group("rest")):
            out.setdefault(m.group("ps"), set()).add(n.group("flv"))
    return out


def pod_set_roles(plane: Plane, ns: str, wl: Obj) -> list[tuple[str, str]]:
    """Kueue's `spec.podSets`, in Kueue's order, each with the role of the Pods behind it (their role-hash
    annotation is the pod set's name)."""
    roles = {}
    for p in plane.get("pods", namespace=ns)["items"]:
        h = (p["metadata"].get("annotations") or {}).get("kueue.x-k8s.io/role-hash")
        if h:
            roles[h] = (p["metadata"].get("labels") or {}).get("app.kubernetes.io/component", h)
    return [(ps["name"], roles.get(ps["name"], ps["name"])) for ps in wl["spec"]["podSets"]]


def usage(plane: Plane, cq: str, which: str = "flavorsUsage") -> dict[tuple[str, str], tuple[str, str]]:
    """A ClusterQueue's status WHICH (flavorsUsage | flavorsReservation): {(flavor, resource): (total,
    borrowed)} as Kueue wrote them."""
    out = {}
    for f in (plane.get("clusterqueue", cq).get("status") or {}).get(which) or []:
        for r in f.get("resources") or []:
            out[(f["name"], r["name"])] = (str(r.get("total", "0")), str(r.get("borrowed", "0")))
    return out


def preempted_by(w: Obj, uid: str) -> bool:
    """Kueue evicted W to admit the Workload of UID (its Evicted/Preempted condition names the preemptor)."""
    for c in (condition(w, "Evicted"), condition(w, "Preempted")):
        if c is not None and c.get("status") == "True" and f"(UID: {uid}," in (c.get("message") or ""):
            return True
    return False


def finish_eviction(plane: Plane, ns: str, name: str) -> None:
    """What the job a preempted Workload stands for does (nothing owns ours): it stops, its quota is released
    (as Kueue's own test utilities do it) and it is deactivated so that it does not queue again."""
    plane.kubectl("patch", "workload", name, "-n", ns, "--type=merge", "-p", '{"spec":{"active":false}}')
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ours = {"QuotaReserved": {"type": "QuotaReserved", "status": "False", "reason": "Pending",
                              "message": "stopped by the test", "lastTransitionTime": now},
            "Admitted": {"type": "Admitted", "status": "False", "reason": "NoReservation",
                         "message": "stopped by the test", "lastTransitionTime": now}}
    current = (plane.get("workload", name, ns).get("status") or {}).get("conditions") or []
    kept = [ours.pop(c["type"]) if c["type"] in ours else c for c in current] + list(ours.values())
    plane.kubectl("patch", "workload", name, "-n", ns, "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": {"admission": None, "conditions": kept}}))


def snapshot(plane: Plane, lay: Layout) -> list[Obj]:
    """The layout as `kubectl get -o yaml` writes it: its cluster-scoped objects and its namespace's."""
    kinds = "resourceflavors,clusterqueues,cohorts,workloadpriorityclasses"
    items = [o for o in yaml.safe_load(plane.kubectl("get", kinds, "-o", "yaml").stdout)["items"]
             if o["kind"] == "WorkloadPriorityClass" or o["metadata"]["name"].startswith(lay.prefix + "-")]
    items += yaml.safe_load(plane.kubectl("get", "localqueues,workloads,pods", "-n", lay.ns, "-o",
                                          "yaml").stdout)["items"]
    return list(items)


def release_hold(snap: list[Obj], queue: str, workload_name: str) -> list[Obj]:
    """SNAP with the LocalQueue QUEUE's hold lifted and the held Workload as a scheduler first meets it."""
    out = []
    for o in json.loads(json.dumps(snap)):
        if o["kind"] == "LocalQueue" and o["metadata"]["name"] == queue:
            o["spec"].pop("stopPolicy", None)
            for c in (o.get("status") or {}).get("conditions") or []:
                if c.get("type") == "Active":
                    c.update(status="True", reason="Ready", message="Can submit new workloads to localQueue")
        if o["kind"] == "Workload" and o["metadata"]["name"] == workload_name:
            o.setdefault("status", {}).pop("conditions", None)
        out.append(o)
    return out


# ---------------------------------------------------------------------------------------------- the claims

def doc_claims(doc: Obj, where: str) -> None:
    """What every why-pending document (one target, or each item of a list) must hold, whatever the state:
    one free figure per flavor, a NeedsPreemption verdict that names its targets, no history without
    evidence, a role's flavor equal to its reasons'."""
    for item in doc.get("items", [doc]):
        bars = {(b["flavor"], b["resource"]): b for b in item.get("quota") or []}
        for r in item["reasons"]:
            b = bars.get((r.get("flavor"), r.get("resource")))
            if b is not None and r.get("available") is not None and r["code"] in ("QuotaExhausted",
                                                                                   "NeedsPreemption"):
                assert parse(b["free"]) == parse(r["available"]), (
                    f"two free figures for flavor {r['flavor']}: bar {b['free']}, reason {r['available']}\n{where}")
            assert "freed" not in r["params"], f"a claim about freed quota: {r['params']}\n{where}"
            assert "freed since" not in r["message"], f"{r['message']}\n{where}"
        if any(r["code"] == "NeedsPreemption" for r in item["reasons"]):
            pre = item.get("preemption") or {}
            assert pre.get("targets") or (pre.get("targets") is None and pre.get("unknown")), (
                f"NeedsPreemption names no target and says no reason why: {pre}\n{where}")
        flavors = {r["name"]: r.get("flavor") for r in item["roles"] if r.get("verdict") == "blocked"}
        for r in item["reasons"]:
            if r.get("role") in flavors and r.get("flavor") and flavors[r["role"]]:
                assert r["flavor"] == flavors[r["role"]], (
                    f"{r['code']} [{r['role']}] names flavor {r['flavor']}, its row {flavors[r['role']]}\n{where}")
        _once(item.get("next") or [], where)


def _once(nexts: list[str], where: str) -> None:
    """No `next` twice."""
    assert len(nexts) == len(set(nexts)), f"a next: twice: {nexts}\n{where}"


def advice_once(nexts: list[str], where: str) -> None:
    """No advice twice: no `next` equal to another, nor repeating another with more words after it."""
    for i, a in enumerate(nexts):
        for b in nexts[i + 1:]:
            assert not (a.startswith(b) or b.startswith(a)), f"a next: twice: {a!r} / {b!r}\n{where}"


_FREE_OF_THEM = re.compile(r"\b(?P<free>\d+(?:\.\d+)?)(?: [^;]*?)? (?:are|is) free of [^;]*?, "
                           r"(?P<them>\d+(?:\.\d+)?)(?: [^;]*?)? of them for")


def free_of_them(text: str, where: str) -> None:
    """`N are free of ..., M of them for the roles before it`: M of N free, so never more than N."""
    for m in _FREE_OF_THEM.finditer(text):
        assert Fraction(m.group("them")) <= Fraction(m.group("free")), f"{m.group(0)!r}\n{where}"


@dataclass
class Screen:
    headline: str
    rows: dict[str, dict[str, str]]  # role -> {column: cell}
    nexts: list[str]
    notes: list[str]


def read_screen(text: str) -> Screen:
    lines = text.splitlines()
    rows: dict[str, dict[str, str]] = {}
    header: list[str] | None = None
    for line in lines:
        cells = re.split(r"\s{2,}", line.strip())
        if cells[:2] == ["ROLE", "KIND"]:
            header = cells
            continue
        if header is not None:
            if not line.strip():
                header = None
                continue
            rows[cells[0]] = dict(zip(header, cells, strict=False))
    return Screen(headline=lines[0] if lines else "", rows=rows,
                  nexts=[x.strip() for x in lines if x.strip().startswith("next:")],
                  notes=[x.strip() for x in lines if x.strip().startswith("note:")])


def screen_claims(said: Said, doc: Obj) -> Screen:
    """The text screen against its own JSON: the headline is the first reason and names its flavor, the
    row of that reason's role names that flavor too, no `next:` twice, notes on stderr (never among the
    rows)."""
    s = read_screen(said.out)
    assert not s.notes, f"notes on stdout: {s.notes}\n{said}"
    _once([n.removeprefix("next:").strip() for n in s.nexts], str(said))
    if doc.get("pending") and doc["reasons"]:
        first = doc["reasons"][0]
        assert f"({first['code']})" in s.headline, f"the headline is not the first reason {first['code']}\n{said}"
        named = re.findall(r"flavor (\S+?)[:,;]?(?:\s|$)", s.headline)
        if first.get("flavor"):
            assert named[:1] in ([], [first["flavor"]]), (
                f"headline names flavor {named[:1]}, the first reason {first['flavor']}\n{said}")
            row = s.rows.get(first.get("role") or "")
            if row is not None and row.get("FLAVOR") not in (None, "-"):
                assert row.get("FLAVOR") == first["flavor"], (
                    f"row {first['role']} says {row.get('FLAVOR')}, the headline's reason {first['flavor']}\n{said}")
    return s


def schema_errors(doc: Obj) -> list[str]:
    """DOC checked against the published docs/schema/why-pending.json."""
    import jsonschema

    schema = json.loads((ROOT / "docs" / "schema" / "why-pending.json").read_text())
    v = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(doc)]


def must(cond: bool, what: str) -> None:
    if not cond:
        raise PlaneError(what)
