"""MultiKueue's answer (kubectl_pd/multikueue/answer.py), table-driven over typed records parsed from the shapes
Kueue v0.19.2 writes: the manager's state, its silent waits, and each worker's read and verdict."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import pytest

from kubectl_pd.kueue.model import MULTIKUEUE_CONTROLLER, admission_check
from kubectl_pd.multikueue import answer as a
from kubectl_pd.multikueue import model as m
from kubectl_pd.multikueue import words
from kubectl_pd.multikueue.codes import CODES, STATES
from kubectl_pd.pending.model import Reason, say

KV = "kueue.x-k8s.io/v1beta2"
GPU = "nvidia.com/gpu"


def wl_obj(*, reserved: bool = True, checks: list[tuple[str, str, str]] | None = None,
           nominated: list[str] | None = None, cluster: str | None = None, owner: str = "Pod") -> dict[str, Any]:
    status: dict[str, Any] = {"conditions": [{"type": "QuotaReserved", "status": "True" if reserved else "False",
                                              "reason": "QuotaReserved" if reserved else "Pending",
                                              "message": "Quota reserved" if reserved else "insufficient quota"}]}
    status["admissionChecks"] = [{"name": n, "state": s, "message": msg}
                                 for n, s, msg in (checks if checks is not None else [("multikueue", "Pending", "")])]
    if nominated:
        status["nominatedClusterNames"] = nominated
    if cluster:
        status["clusterName"] = cluster
    return {"apiVersion": KV, "kind": "Workload", "metadata": {
        "name": "g", "namespace": "ns", "ownerReferences": [{"kind": owner, "name": "g-0", "uid": "u"}]},
        "status": status}


def check_obj(name: str = "multikueue", controller: str = MULTIKUEUE_CONTROLLER, active: str = "True",
              reason: str = "Active") -> dict[str, Any]:
    return {"apiVersion": KV, "kind": "AdmissionCheck", "metadata": {"name": name},
            "spec": {"controllerName": controller, "parameters": {"apiGroup": "kueue.x-k8s.io",
                                                                  "kind": "MultiKueueConfig", "name": name}},
            "status": {"conditions": [{"type": "Active", "status": active, "reason": reason, "message": ""}]}}


def cluster_obj(name: str, active: str = "True", reason: str = "Active", since: str = "") -> dict[str, Any]:
    return {"apiVersion": KV, "kind": "MultiKueueCluster", "metadata": {"name": name},
            "status": {"conditions": [{"type": "Active", "status": active, "reason": reason,
                                       "message": "" if active == "True" else "dial tcp: connection refused",
                                       "lastTransitionTime": since}]}}


def manager(wl: dict[str, Any], *, workers: tuple[str, ...] = ("worker-1", "worker-2"),
            down: dict[str, str] | None = None, extra_checks: tuple[dict[str, Any], ...] = (),
            settings: dict[str, Any] | None = None, check: dict[str, Any] | None = None) -> m.Manager:
    checks = {c.name: c for c in map(admission_check, (check or check_obj(), *extra_checks))}
    clusters = {n: m.cluster(cluster_obj(n, "False", (down or {})[n], "2026-12-03T12:00:00Z")
                             if n in (down or {}) else cluster_obj(n)) for n in workers}
    cfg = m.config({"metadata": {"name": "multikueue"}, "spec": {"clusters": list(workers)}})
    return m.Manager(m.manager_workload(wl), checks, cfg, clusters, m.settings(settings))


def never_fits(needed: int = 4) -> Reason:
    """The worker engine's reason for a copy no quota there can hold: ps short by NEEDED (its own next step)."""
    return Reason("QuotaExceedsCapacity", say("wl.reserved-not-admitted", g="g"), role="ps", flavor="h100",
                  resource=GPU, needed=Fraction(needed),
                  hint=say("next.raise-nominal-of", resource=GPU, flavor="h100", needed=Fraction(needed)))


def short() -> Reason:
    return Reason("QuotaExhausted", say("wl.reserved-not-admitted", g="g"), flavor="h100")


def copy(*reasons: Reason, origin: str = "multikueue", pending: bool = True, fits: tuple[str, ...] = ()
         ) -> m.WorkerCopy:
    return m.WorkerCopy(origin, pending, reasons, fits=fits)


def read(name: str, how: m.Read = "read", c: m.WorkerCopy | None = None, error: str = "") -> m.WorkerRead:
    return m.WorkerRead(name, name if how != "no-context" else None, how, c, error)


NOW = datetime(2026, 12, 3, 12, 5, tzinfo=UTC)

# (id, manager, reads by worker, state, manager finding codes, {worker: (read, pending, finding codes)})
CASES: list[tuple[str, m.Manager, dict[str, m.WorkerRead], str, list[str], dict[str, tuple[str, Any, list[str]]]]] = [
    ("manager quota short", manager(wl_obj(reserved=False)), {}, "QuotaPending", ["MultiKueueQuotaPending"],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("behind another check", manager(wl_obj(checks=[("multikueue", "Pending", ""), ("gate", "Pending", "")]),
                                     extra_checks=(check_obj("gate", "example.com/gate"),)), {},
     "WaitingForOtherChecks", ["MultiKueueWaitingForOtherChecks"],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("other check ready: dispatch not yet",
     manager(wl_obj(checks=[("multikueue", "Pending", ""), ("gate", "Ready", "")]),
             extra_checks=(check_obj("gate", "example.com/gate"),)), {},
     "NotDispatched", ["MultiKueueNotDispatched"],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("one fits, one short", manager(wl_obj(nominated=["worker-1", "worker-2"])),
     {"worker-1": read("worker-1", c=copy(short())), "worker-2": read("worker-2", c=copy(pending=False))},
     "Dispatched", [], {"worker-1": ("read", True, []), "worker-2": ("read", False, [])}),
    ("no worker ever fits", manager(wl_obj(nominated=["worker-1", "worker-2"])),
     {"worker-1": read("worker-1", c=copy(never_fits())), "worker-2": read("worker-2", c=copy(never_fits()))},
     "Dispatched", ["MultiKueueNoWorkerFits"], {"worker-1": ("read", True, []), "worker-2": ("read", True, [])}),
    ("one never fits, the other short", manager(wl_obj(nominated=["worker-1", "worker-2"])),
     {"worker-1": read("worker-1", c=copy(never_fits())), "worker-2": read("worker-2", c=copy(short()))},
     "Dispatched", [], {"worker-1": ("read", True, []), "worker-2": ("read", True, [])}),
    ("a worker unreachable, the other diagnosed", manager(wl_obj(nominated=["worker-1", "worker-2"])),
     {"worker-1": read("worker-1", "unreachable", error="connection refused"),
      "worker-2": read("worker-2", c=copy(short()))},
     "Dispatched", [], {"worker-1": ("unreachable", None, ["MultiKueueWorkerUnreachable"]),
                        "worker-2": ("read", True, [])}),
    ("a worker with no context", manager(wl_obj(nominated=["worker-1", "worker-2"])),
     {"worker-1": read("worker-1", "no-context"), "worker-2": read("worker-2", c=copy(short()))},
     "Dispatched", [], {"worker-1": ("no-context", None, ["MultiKueueWorkerNotRead"]), "worker-2": ("read", True, [])}),
    ("forbidden on a worker", manager(wl_obj(nominated=["worker-1"])),
     {"worker-1": read("worker-1", "forbidden", error="Forbidden")},
     "Dispatched", [], {"worker-1": ("forbidden", None, ["MultiKueueWorkerForbidden"]),
                        "worker-2": ("not-nominated", None, [])}),
    ("copy missing", manager(wl_obj(nominated=["worker-1"])), {"worker-1": read("worker-1")},
     "Dispatched", [], {"worker-1": ("read", None, ["MultiKueueWorkerCopyMissing"]),
                        "worker-2": ("not-nominated", None, [])}),
    ("copy of another manager", manager(wl_obj(nominated=["worker-1"])),
     {"worker-1": read("worker-1", c=copy(short(), origin="other"))},
     "Dispatched", [], {"worker-1": ("read", True, ["MultiKueueWorkerCopyForeign"]),
                        "worker-2": ("not-nominated", None, [])}),
    ("nominated worker not connected", manager(wl_obj(nominated=["worker-1", "worker-2"]),
                                               down={"worker-1": "ClientConnectionFailed"}),
     {"worker-1": read("worker-1", "unreachable", error="refused"), "worker-2": read("worker-2", c=copy(short()))},
     "Dispatched", [], {"worker-1": ("unreachable", None, ["MultiKueueWorkerNotConnected",
                                                            "MultiKueueWorkerUnreachable"]),
                        "worker-2": ("read", True, [])}),
    ("incremental: next round", manager(wl_obj(nominated=["w1", "w2", "w3"]), workers=("w1", "w2", "w3", "w4"),
                                        settings={"multiKueue": {"dispatcherName": m.INCREMENTAL}}),
     {w: read(w, c=copy(short())) for w in ("w1", "w2", "w3")},
     "DispatchRound", ["MultiKueueDispatchRound"], {"w1": ("read", True, []), "w2": ("read", True, []),
                                                    "w3": ("read", True, []), "w4": ("not-nominated", None, [])}),
    ("incremental: every worker nominated", manager(wl_obj(nominated=["w1", "w2"]), workers=("w1", "w2"),
                                                    settings={"multiKueue": {"dispatcherName": m.INCREMENTAL}}),
     {w: read(w, c=copy(short())) for w in ("w1", "w2")},
     "Dispatched", [], {"w1": ("read", True, []), "w2": ("read", True, [])}),
    ("admitted on worker-2", manager(wl_obj(checks=[("multikueue", "Ready", 'The workload was admitted on "worker-2"')],
                                            cluster="worker-2")),
     {"worker-2": read("worker-2", c=copy(pending=False))}, "Admitted", [],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("read", False, [])}),
    ("admitting worker lost, within the timeout",
     manager(wl_obj(checks=[("multikueue", "Ready", "")], cluster="worker-2"),
             down={"worker-2": "ClientConnectionFailed"}, settings={"multiKueue": {"workerLostTimeout": "10m"}}),
     {"worker-2": read("worker-2", "unreachable", error="refused")}, "Admitted", ["MultiKueueWorkerLost"],
     {"worker-1": ("not-nominated", None, []),
      "worker-2": ("unreachable", None, ["MultiKueueWorkerNotConnected", "MultiKueueWorkerUnreachable"])}),
    ("admitting worker lost past the timeout",
     manager(wl_obj(checks=[("multikueue", "Retry", "Admitting remote lost")])), {}, "Retry",
     ["MultiKueueWorkerLost"], {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("no adapter for the owner",
     manager(wl_obj(checks=[("multikueue", "Rejected", 'No multikueue adapter found for owner kind "Foo.example.com"')],
                    owner="Foo")), {}, "Rejected", ["MultiKueueNoAdapter"],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("owner not managed", manager(wl_obj(checks=[("multikueue", "Rejected", "The owner is not managed by Kueue: x")])),
     {}, "Rejected", ["MultiKueueOwnerNotManaged"],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("evicted on a worker: retry", manager(wl_obj(checks=[("multikueue", "Retry", 'Workload evicted on worker cluster: '
                                                                                   '"worker-1", resetting')])),
     {}, "Retry", ["MultiKueueCheckRetry"],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("check inactive", manager(wl_obj(), check=check_obj(active="False", reason="NoUsableClusters")), {},
     "CheckInactive", ["MultiKueueCheckInactive"],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, [])}),
    ("nominated worker without a MultiKueueCluster", manager(wl_obj(nominated=["ghost"])),
     {"ghost": read("ghost", "no-context")}, "Dispatched", [],
     {"worker-1": ("not-nominated", None, []), "worker-2": ("not-nominated", None, []),
      "ghost": ("no-context", None, ["MultiKueueWorkerUnknown", "MultiKueueWorkerNotRead"])}),
]


@pytest.mark.parametrize(("mgr", "reads", "state", "found", "workers"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_answer(mgr: m.Manager, reads: dict[str, m.WorkerRead], state: str, found: list[str],
                workers: dict[str, tuple[str, Any, list[str]]]) -> None:
    ans = a.answer(mgr, reads, NOW)
    assert ans is not None
    assert ans.state == state and ans.state in STATES
    assert [f.code for f in ans.findings] == found
    got = {w.cluster: (w.read, w.pending, [f.code for f in w.findings]) for w in ans.workers}
    assert got == workers
    for f in (*ans.findings, *(f for w in ans.workers for f in w.findings)):
        assert f.code in CODES
        assert words.finding(f)  # every code has its sentence, with the params it is given
    assert words.state_line(ans)


def test_no_multikueue_check_is_no_answer() -> None:
    mgr = manager(wl_obj(checks=[("gate", "Pending", "")]), check=check_obj("gate", "example.com/gate"))
    assert a.answer(mgr, {}) is None


def test_worker_lost_params() -> None:
    mgr = manager(wl_obj(checks=[("multikueue", "Ready", "")], cluster="worker-2"),
                  down={"worker-2": "ClientConnectionFailed"}, settings={"multiKueue": {"workerLostTimeout": "10m"}})
    ans = a.answer(mgr, {}, NOW)
    assert ans is not None
    f = ans.findings[0]
    assert (f.code, f.params["cluster"], f.params["timeoutSeconds"], f.params["lostSeconds"], f.params["passed"]) == \
        ("MultiKueueWorkerLost", "worker-2", 600, 300, False)


def test_dispatch_round_names_the_next_three() -> None:
    mgr = manager(wl_obj(nominated=["w1"]), workers=("w1", "w2", "w3", "w4", "w5"),
                  settings={"multiKueue": {"dispatcherName": m.INCREMENTAL}})
    ans = a.answer(mgr, {"w1": read("w1", c=copy(short()))})
    assert ans is not None and ans.state == "DispatchRound"
    assert ans.findings[0].params["next"] == ["w2", "w3", "w4"] and ans.findings[0].params["roundSeconds"] == 300


@pytest.mark.parametrize(("text", "seconds"), [("15m", 900), ("90s", 90), ("1h30m", 5400), ("1.5m", 90),
                                               ("", None), ("15x", None), ("m", None), (5, None)])
def test_durations(text: Any, seconds: int | None) -> None:
    assert m._seconds(text) == seconds


def test_settings_defaults_and_read() -> None:
    assert m.settings(None) == m.MultiKueueSettings()
    s = m.settings({"multiKueue": {"origin": "mgr-a", "workerLostTimeout": "5m", "dispatcherName": m.INCREMENTAL}})
    assert (s.origin, s.lost_timeout_s, s.dispatcher, s.read) == ("mgr-a", 300, m.INCREMENTAL, True)


@pytest.mark.parametrize("obj", [{}, {"status": "x"}, {"spec": [], "status": {"admissionChecks": "x"}},
                                 {"metadata": None, "status": {"nominatedClusterNames": [1, None, "w"]}}])
def test_scrambled_objects_parse(obj: dict[str, Any]) -> None:
    wl = m.manager_workload(obj)
    assert wl.checks == () and wl.nominated in ((), ("w",))
    assert admission_check(obj).controller == "" and m.config(obj).clusters == () and m.cluster(obj).active is None


# issue 46, finding 6: MultiKueue's verdict and `next:` from the same workers as its table.
# (id, reads by worker, NoWorkerFits found, steps as (code, cluster or None))
STEP_CASES: list[tuple[str, dict[str, m.WorkerRead], bool, list[tuple[str, str | None]]]] = [
    ("no worker ever fits: each worker's quota, then the manager's", {
        "worker-1": read("worker-1", c=copy(never_fits(6))), "worker-2": read("worker-2", c=copy(never_fits(4)))},
     True, [("worker", "worker-1"), ("worker", "worker-2"), ("release", None)]),
    ("a worker's own figures fit while Kueue's words say never: no verdict of never, no quota to raise", {
        "worker-1": read("worker-1", c=copy(never_fits(4), fits=("ps",))),
        "worker-2": read("worker-2", c=copy(never_fits(6)))},
     False, [("worker-fits", "worker-1"), ("worker", "worker-2")]),
    ("a shortfall of zero or less is no evidence of never", {
        "worker-1": read("worker-1", c=copy(never_fits(-8))), "worker-2": read("worker-2", c=copy(never_fits(4)))},
     False, [("worker", "worker-1"), ("worker", "worker-2")]),
    ("copies wait, nothing to do on a worker: wait for the check", {
        "worker-1": read("worker-1", c=copy(short())), "worker-2": read("worker-2", "no-context")},
     False, [("wait", None)]),
]


@pytest.mark.parametrize(("reads", "nobody", "steps"), [c[1:] for c in STEP_CASES], ids=[c[0] for c in STEP_CASES])
def test_verdict_and_next_from_the_same_workers(reads: dict[str, m.WorkerRead], nobody: bool,
                                                steps: list[tuple[str, str | None]]) -> None:
    ans = a.answer(manager(wl_obj(nominated=["worker-1", "worker-2"])), reads, NOW)
    assert ans is not None and ans.state == "Dispatched"
    assert ("MultiKueueNoWorkerFits" in [f.code for f in ans.findings]) is nobody
    assert (ans.decisive is not None) is nobody
    assert [(st.code, st.params.get("cluster")) for st in ans.steps] == steps
    for w in ans.workers:  # a row's shortfall is one the worker's figures stand by, never beside "it fits"
        for r in w.reasons:
            assert not (w.short(r) and r.role in w.fits)
            assert w.short(r) == (r.needed is not None and r.needed > 0 and r.role not in w.fits)


def test_the_managers_diagnosis_takes_what_multikueue_decided_of_its_check() -> None:
    """pending/diagnose's `decided` (what MultiKueue's record says of the manager's wait on its check, handed before
    the headline is chosen): a reason replaces the wait (the headline's code and params are the record's); None keeps
    the wait without its generic `next:`; a check the record does not answer is untouched."""
    from pathlib import Path

    from kubectl_pd.cluster.snapshot import SnapshotSource
    from kubectl_pd.pending.diagnose import diagnose
    from kubectl_pd.pending.gather import gather
    from kubectl_pd.pending.model import read_only
    from kubectl_pd.pending.target import Target
    from tests.apiserver import load_objects

    items = load_objects(Path(__file__).parent / "fixtures" / "pending" / "admission-check-pending.yaml")
    facts = gather(SnapshotSource.from_objects(items), Target("ModelDeployment", "qwen-pd", "team-a"))
    now = datetime(2026, 11, 29, 9, 20, tzinfo=UTC)
    base = diagnose(facts, now)
    wait = next(r for r in base.reasons if r.code == "AdmissionCheckPending")
    check = wait.message.args["check"]
    assert "next.wait-check" in [h.id for h in base.hints]

    kept = diagnose(facts, now, decided={check: None})
    assert [r.code for r in kept.reasons] == [r.code for r in base.reasons]
    assert not {"next.wait-check", "next.describe-workload"} & {h.id for h in kept.hints}

    mine = Reason("MultiKueueNoWorkerFits", say("check.no-worker-fits", check=check, clusters=["w1", "w2"]),
                  workload=wait.workload, params=read_only({"check": check, "clusters": ["w1", "w2"]}))
    d = diagnose(facts, now, decided={check: mine})
    assert (d.reasons[0].code, dict(d.reasons[0].params)) == ("MultiKueueNoWorkerFits",
                                                              {"check": check, "clusters": ["w1", "w2"]})
    assert "AdmissionCheckPending" not in [r.code for r in d.reasons]
    assert "next.wait-check" not in [h.id for h in d.hints]

    other = diagnose(facts, now, decided={"another-check": mine})
    assert [r.code for r in other.reasons] == [r.code for r in base.reasons] and other.hints == base.hints
