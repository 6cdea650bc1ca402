"""create's preflight and why-pending judge the same cluster the same way: generated queues, cohorts and
role demands, each role's verdict compared (never fits <=> QuotaExceedsCapacity; fits now <=> fits)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_pd.cluster.admitted import Reading
from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.create import flags, preflight
from kubectl_pd.gpustack.roles import PD_ATOMIC
from kubectl_pd.kueue import model as kmodel
from kubectl_pd.kueue.preempt_answer import Context
from kubectl_pd.pending.diagnose import diagnose
from kubectl_pd.pending.gather import Facts
from kubectl_pd.pending.target import Target
from tests.builders import cluster_queue, resource_flavor

CARD = 1_600_000
RES = "credits.gpustack.ai/nvidia"
NS = "team-a"
KUEUE = "kueue.x-k8s.io/v1beta2"
QUOTA_CODES = {"QuotaExceedsCapacity", "QuotaExhausted", "NeedsPreemption", "QuotaUnknown", "NoMatchingFlavor"}
CREATE_CODE = {"never-fits": "QuotaExceedsCapacity", "no-matching-flavor": "NoMatchingFlavor"}


def _cq(name: str, flavors: list[tuple[str, int, int, int | None, int | None]], cohort: str | None,
        policy: str) -> dict[str, Any]:
    """flavors: (name, nominal cards, used cards, borrowingLimit, lendingLimit)."""
    def limits(n: int, b: int | None, lend: int | None) -> dict[str, Any]:
        q: dict[str, Any] = {}
        if b is not None:
            q["borrowingLimit"] = str(b * CARD)
        if lend is not None:
            q["lendingLimit"] = str(min(lend, n) * CARD)
        return q
    return cluster_queue(name, {f: str(n * CARD) for f, n, _, _, _ in flavors}, resource=RES, cohort=cohort,
                         preemption={"withinClusterQueue": policy}, active=True,
                         used={f: str(u * CARD) for f, _, u, _, _ in flavors if u},
                         limits={f: limits(n, b, lend) for f, n, _, b, lend in flavors} if cohort else None)


flavor_rows = st.lists(st.tuples(st.integers(0, 8), st.integers(0, 10), st.one_of(st.none(), st.integers(0, 6)),
                                 st.one_of(st.none(), st.integers(0, 6))), min_size=1, max_size=3)
role_rows = st.lists(st.tuples(st.integers(1, 3), st.integers(1, 4)), min_size=1, max_size=3)


@st.composite
def clusters(draw: Any) -> tuple[list[dict[str, Any]], list[tuple[int, int]]]:
    rows = draw(flavor_rows)
    names = [f"f{i}" for i in range(len(rows))]
    cohort = "pool" if draw(st.booleans()) else None
    policy = draw(st.sampled_from(["Never", "LowerPriority"]))
    objs = [_cq("cq", [(n, *r) for n, r in zip(names, rows, strict=True)], cohort, policy)]
    if cohort:
        for i, peer in enumerate(draw(st.lists(flavor_rows, max_size=2))):
            objs.append(_cq(f"peer{i}", [(n, *r) for n, r in zip(names, peer, strict=False)], cohort, "Never"))
    objs += [resource_flavor(n) for n in names]
    return objs, draw(role_rows)


def _create_codes(objs: list[dict[str, Any]], roles: list[flags.Role]) -> dict[str, str | None]:
    extra = [{"apiVersion": "worker.gpustack.ai/v1alpha1", "kind": "InstanceType", "metadata": {"name": "cq"},
              "status": {"entrance": "lq"}},
             {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": NS},
              "spec": {"clusterQueue": "cq"},
              "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Ready"}]}}]
    req = flags.CreateRequest("m", NS, "model")
    report = preflight.run(SnapshotSource.from_objects(objs + extra), req, roles, PD_ATOMIC, NS)
    out: dict[str, str | None] = {r.name: None for r in roles}
    for f in report.findings:
        role = f.params.get("role")
        if role is not None and f.params.get("code") in QUOTA_CODES:
            out[role] = f.params["code"]
        assert f.check in ("never-fits", "no-matching-flavor", "waits-for-quota", "fit-unknown"), f.message
    return out


def _why_pending_codes(objs: list[dict[str, Any]], roles: list[flags.Role]) -> dict[str, str | None]:
    wl = {"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": "grp", "namespace": NS},
          "spec": {"queueName": "lq", "podSets": [
              {"name": r.name, "count": r.replicas, "template": {"spec": {"containers": [
                  {"name": "c", "resources": {"requests": {RES: str(r.accelerator * CARD)}}}]}}} for r in roles]}}
    facts = Facts(Target("Workload", "grp", NS), workloads={"grp": kmodel.workload(wl)}, groups=["grp"])
    facts.local_queues["lq"] = kmodel.local_queue({"apiVersion": KUEUE, "kind": "LocalQueue",
                                                   "metadata": {"name": "lq", "namespace": NS},
                                                   "spec": {"clusterQueue": "cq"}})
    cqs = [o for o in objs if o["kind"] == "ClusterQueue"]
    facts.cluster_queues["cq"] = kmodel.cluster_queue(cqs[0])
    facts.peer_queues = [kmodel.cluster_queue(o) for o in cqs]
    facts.cohorts = []
    facts.flavors = {o["metadata"]["name"]: kmodel.resource_flavor(o) for o in objs if o["kind"] == "ResourceFlavor"}
    ctx = Context(Reading(SnapshotSource.from_objects(objs)))  # the same reads create's preflight makes (issue 19)
    d = diagnose(facts, preempt=ctx)
    out: dict[str, str | None] = {r.name: None for r in roles}
    for reason in d.reasons:
        if reason.role in out and reason.code in QUOTA_CODES:
            out[reason.role] = reason.code
    # a role that fits alone but not next to the roles before it (Kueue charges them in order) keeps its
    # "fits" row and is the one reason of the group, a waiting one (kueue/verdicts.together_blocked)
    together = [row.name for row in d.roles if row.verdict == "fits" and out[row.name] is not None]
    assert not together or (len(together) == 1 and len(roles) > 1 and all(
        row.verdict == "fits" for row in d.roles) and out[together[0]] in ("QuotaExhausted", "NeedsPreemption"))
    for row in d.roles:
        assert (row.verdict == "fits") == (out[row.name] is None) or row.name in together, (row, out)
    return out


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_create_and_why_pending_agree(cluster: tuple[list[dict[str, Any]], list[tuple[int, int]]]) -> None:
    objs, rows = cluster
    roles = [flags.Role(f"r{i}", "server", replicas, "cq", cards, None, None, None, (), f"--role name=r{i}")
             for i, (replicas, cards) in enumerate(rows)]
    assert _create_codes(objs, roles) == _why_pending_codes(objs, roles)


def test_the_issues_cohort_case_agrees() -> None:
    """2 cards of its own, no borrowingLimit, a cohort peer with 8: a 4-card role fits in both commands."""
    objs = [_cq("cq", [("f0", 2, 0, None, None)], "pool", "Never"),
            _cq("peer0", [("f0", 8, 0, None, None)], "pool", "Never"),
            resource_flavor("f0")]
    roles = [flags.Role("p", "prefill", 1, "cq", 4, None, None, None, (), "--prefill 1")]
    assert _create_codes(objs, roles) == _why_pending_codes(objs, roles) == {"p": None}
