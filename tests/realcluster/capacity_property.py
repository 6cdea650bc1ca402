"""The capacity property over the 4a generator's states (tests/realcluster/differential.generate): on the real
Kueue, create exactly the `now` copies `kubectl pd capacity` gives, one by one: each is admitted; one more is
not, or, when capacity said it would preempt, Kueue preempts exactly the Workloads it named.

A state is set up in credits (GPUStack's `credits.gpustack.ai/nvidia`, a card of 1,600,000): the generator's
queues (nominal, borrowing and lending limits, fungibility, preemption policies) and its running Workloads, one
at a time, each admitted or deactivated, as differential.run does; the copies are `create --target pods` pod
groups of the generator's two roles (priority 0, below every running Workload), in the target's LocalQueue.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.realcluster import differential as df
from tests.realcluster import objs
from tests.realcluster.plane import Plane, PlaneError, condition, is_true, wait_for

CREDITS = "credits.gpustack.ai/nvidia"
CARD = 1_600_000
MAX_COPIES = 12  # a state whose answer is larger is counted but not created copy by copy (time)


@dataclass
class Outcome:
    seed: int
    now: int | None
    by_preemption: int | None = None
    admitted: list[bool] = field(default_factory=list)  # each of the `now` copies
    one_more: str | None = None  # admitted | pending | preempts
    named: list[str] = field(default_factory=list)  # what capacity said copy now+1 preempts
    preempted: list[str] = field(default_factory=list)  # what Kueue preempted for it
    skipped: str | None = None

    @property
    def holds(self) -> bool:
        if self.skipped:
            return True
        if not all(self.admitted):
            return False
        if self.by_preemption:
            return self.one_more in ("admitted", "preempts") and sorted(self.named) == sorted(self.preempted)
        return self.one_more == "pending"


def _cards(x: int | None) -> str | None:
    return None if x is None else str(x * CARD)


def queue_objects(state: df.State, n: df.Names) -> list[dict[str, Any]]:
    """differential.queue_objects in credits, without the held LocalQueue."""
    out: list[dict[str, Any]] = []
    for o in df.queue_objects(state, n):
        if o["kind"] == "LocalQueue" and o["spec"].get("stopPolicy"):
            continue
        if o["kind"] == "ClusterQueue":
            for g in o["spec"]["resourceGroups"]:
                g["coveredResources"] = [CREDITS]
                for f in g["flavors"]:
                    for r in f["resources"]:
                        r["name"] = CREDITS
                        for k in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                            if k in r:
                                r[k] = _cards(int(r[k]))
        out.append(o)
    return out


def _roles(state: df.State) -> list[str]:
    return [f"--role=name={role},kind={role},replicas={pods},accelerator={gpus},image=e:1"
            for role, pods, gpus in state.roles]


def _setup(plane: Plane, state: df.State, n: df.Names) -> None:
    ns = n.namespace
    plane.apply(*queue_objects(state, n))
    for q in state.queues:
        wait_for(f"ClusterQueue {n.cq(q.name)} active",
                 lambda q=q: is_true(plane.get("clusterqueue", n.cq(q.name)), "Active"), timeout=30)
    admitted = []
    for r in state.running:
        plane.apply(objs.workload(ns, r.name, r.queue, [("main", r.count, {CREDITS: str(r.gpus * CARD)})],
                                  priority=(r.priority, df.PRIORITIES[r.priority])))
        got = wait_for(f"Workload {r.name} settled", lambda r=r: df._settled_running(plane, ns, r.name), timeout=30)
        if got == "admitted":
            admitted.append(r.name)
        else:
            plane.kubectl("patch", "workload", r.name, "-n", ns, "--type=merge", "-p", '{"spec":{"active":false}}')
        time.sleep(0.5)
        for w in plane.get("workloads", namespace=ns)["items"]:
            if w["metadata"]["name"] in admitted and (df._preempted(w) or not is_true(w, "QuotaReserved")):
                df._finish_eviction(plane, ns, w["metadata"]["name"], deactivate=True)
                admitted.remove(w["metadata"]["name"])
    by_queue = {q.name: sum(1 for r in state.running if r.name in admitted and r.queue == q.name)
                for q in state.queues}
    wait_for("the ClusterQueues' status current", lambda: all(
        (plane.get("clusterqueue", n.cq(q)).get("status") or {}).get("reservingWorkloads", 0) == c
        for q, c in by_queue.items()), timeout=30)


def _create(plane: Plane, state: df.State, ns: str, name: str) -> None:
    made = plane.pd("create", name, "--model", "m", "--engine-version", "1", "-n", ns, "--target", "pods",
                    "--local-queue", state.target_queue, "--force", *_roles(state))
    if made.returncode != 0:
        raise PlaneError(f"create {name}: {made.stderr.strip()}")


def _group(plane: Plane, ns: str, name: str) -> dict[str, Any] | None:
    return next((w for w in plane.get("workloads", namespace=ns)["items"] if w["metadata"]["name"] == name), None)


def run(plane: Plane, seed: int) -> Outcome:
    state = df.generate(seed)
    ns = plane.namespace(f"cp{seed}")
    n = df.Names(ns)
    _setup(plane, state, n)
    got = plane.pd("capacity", "-n", ns, "--target", "pods", "--local-queue", state.target_queue, *_roles(state),
                   "-o", "json")
    if got.returncode not in (0, 1) or not got.stdout.strip():
        raise PlaneError(f"capacity exited {got.returncode}: {got.stderr.strip()}")
    doc = json.loads(got.stdout)
    out = Outcome(seed, doc["now"])
    pre = doc.get("byPreemption") or {}
    out.by_preemption = pre.get("count")
    if doc["now"] is None or doc["now"] > MAX_COPIES or pre.get("unknown"):
        out.skipped = "not judged" if doc["now"] is None else "unknown" if pre.get("unknown") else "large"
        df.cleanup(plane, state, n)
        return out
    if pre.get("copies"):
        out.named = [t["name"] for t in pre["copies"][0]["targets"]]
    for i in range(doc["now"]):
        _create(plane, state, ns, f"copy{i}")
        w = wait_for(f"copy{i} tried", lambda i=i: (g := _group(plane, ns, f"copy{i}")) is not None and condition(
            g, "QuotaReserved") is not None and g, timeout=30)
        out.admitted.append(is_true(w, "QuotaReserved"))
    _create(plane, state, ns, "one-more")
    out.one_more, out.preempted = _one_more(plane, ns)
    df.cleanup(plane, state, n)
    return out


def _one_more(plane: Plane, ns: str) -> tuple[str, list[str]]:
    """Let Kueue act on the extra copy for a few quiet seconds, finishing each eviction it asks for."""
    preempted: list[str] = []
    last, quiet = "", time.monotonic()
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        items = plane.get("workloads", namespace=ns)["items"]
        extra = next((w for w in items if w["metadata"]["name"] == "one-more"), None)
        if extra is not None:
            for w in items:
                name = w["metadata"]["name"]
                # by the extra copy only: a Workload preempted while the state was set up keeps its condition
                if name.startswith("run") and df._preempted(w, extra["metadata"]["uid"]) and name not in preempted:
                    preempted.append(name)
                    df._finish_eviction(plane, ns, name, deactivate=True)
            if is_true(extra, "QuotaReserved"):
                return ("preempts" if preempted else "admitted"), preempted
        key = json.dumps([(w["metadata"]["name"], [(c["type"], c["status"]) for c in (w.get("status") or {}).get(
            "conditions") or []]) for w in items], sort_keys=True)
        if key != last:
            last, quiet = key, time.monotonic()
        elif extra is not None and time.monotonic() - quiet > df.SETTLE:
            return ("preempts" if preempted else "pending"), preempted
        time.sleep(0.3)
    raise PlaneError(f"namespace {ns}: the extra copy did not settle in 40 s")
