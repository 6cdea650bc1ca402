"""Seeded objects for `lint` against the API server (issue 28, 4c): ClusterQueues, Cohorts, ResourceFlavors,
LocalQueues and ModelDeployments, each a valid base with zero to two mutations drawn from what Kueue's schema,
CEL rules and webhooks (or the ModelDeployment CRD's schema) refuse, and some they accept."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

Obj = dict[str, Any]
KV = "kueue.x-k8s.io/v1beta2"
KV1 = "kueue.x-k8s.io/v1beta1"
GPU = "nvidia.com/gpu"


def _cq(name: str, rnd: random.Random) -> Obj:
    flavors = [{"name": f"f{i}", "resources": [{"name": "cpu", "nominalQuota": str(rnd.choice((0, 8, 64)))},
                                               {"name": GPU, "nominalQuota": str(rnd.choice((0, 4, 8)))}]}
               for i in range(rnd.randint(1, 4))]
    spec: Obj = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", GPU], "flavors": flavors}]}
    if rnd.random() < 0.5:
        spec["cohortName"] = "pool"
    return {"apiVersion": KV, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def _group(cq: Obj) -> Obj:
    """The first resource group, given back with one flavor and one covered resource at least (a mutation
    before may have emptied it)."""
    g = cq["spec"]["resourceGroups"][0]
    if not g["flavors"]:
        g["flavors"].append({"name": "f0", "resources": [{"name": GPU, "nominalQuota": "1"}]})
    if not g["coveredResources"]:
        g["coveredResources"].append(GPU)
    for f in g["flavors"]:
        if not f["resources"]:
            f["resources"].append({"name": GPU, "nominalQuota": "1"})
    return g  # the group itself: mutations write through


def m_dup_covered(o: Obj, rnd: random.Random) -> None:
    g = copy.deepcopy(_group(o))
    for f in g["flavors"]:
        f["name"] += "-b"
    o["spec"]["resourceGroups"].append(g)


def m_dup_flavor(o: Obj, rnd: random.Random) -> None:
    g = _group(o)
    g["flavors"].append(copy.deepcopy(g["flavors"][0]))


def m_many_groups(o: Obj, rnd: random.Random) -> None:
    o["spec"]["resourceGroups"] = [{"coveredResources": [f"example.com/r{i}"], "flavors": [
        {"name": f"g{i}", "resources": [{"name": f"example.com/r{i}", "nominalQuota": "1"}]}]}
        for i in range(rnd.choice((16, 17)))]


def m_many_flavors(o: Obj, rnd: random.Random) -> None:
    n = rnd.choice((16, 17, 64, 65))
    o["spec"]["resourceGroups"] = [{"coveredResources": [GPU], "flavors": [
        {"name": f"f{i}", "resources": [{"name": GPU, "nominalQuota": "1"}]} for i in range(n)]}]


def m_no_flavors(o: Obj, rnd: random.Random) -> None:
    _group(o)["flavors"] = []


def m_order(o: Obj, rnd: random.Random) -> None:
    f = _group(o)["flavors"][-1]
    f["resources"].reverse()


def m_count(o: Obj, rnd: random.Random) -> None:
    _group(o)["flavors"][0]["resources"].pop()


def m_negative(o: Obj, rnd: random.Random) -> None:
    _group(o)["flavors"][0]["resources"][0]["nominalQuota"] = rnd.choice(("-1", "-500m"))


def m_float(o: Obj, rnd: random.Random) -> None:
    _group(o)["flavors"][0]["resources"][-1]["nominalQuota"] = 2.5


def m_bad_quantity(o: Obj, rnd: random.Random) -> None:
    _group(o)["flavors"][0]["resources"][-1]["nominalQuota"] = rnd.choice(("lots", "1.5.2", " 4"))


def m_borrowing(o: Obj, rnd: random.Random) -> None:
    _group(o)["flavors"][0]["resources"][-1]["borrowingLimit"] = "2"


def m_lending(o: Obj, rnd: random.Random) -> None:
    r = _group(o)["flavors"][0]["resources"][-1]
    base = r["nominalQuota"]
    base = int(base) if isinstance(base, int) or (isinstance(base, str) and base.isdigit()) else 4
    r["lendingLimit"] = str(base + rnd.choice((0, 1)))


def m_enum(o: Obj, rnd: random.Random) -> None:
    field, value = rnd.choice((("queueingStrategy", "LIFO"), ("stopPolicy", "Pause"),
                               ("queueingStrategy", "StrictFIFO"), ("stopPolicy", "HoldAndDrain")))
    o["spec"][field] = value


def m_preemption(o: Obj, rnd: random.Random) -> None:
    o["spec"]["preemption"] = rnd.choice((
        {"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}},
        {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}},
        {"withinClusterQueue": "Sometimes"},
        {"withinClusterQueue": "LowerOrNewerEqualPriority", "reclaimWithinCohort": "LowerPriority"}))


def m_fungibility(o: Obj, rnd: random.Random) -> None:
    o["spec"]["flavorFungibility"] = rnd.choice((
        {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor", "preference": "BorrowingOverPreemption"},
        {"whenCanBorrow": "MayStopSearch", "preference": "PreemptionOverBorrowing"},
        {"whenCanBorrow": "Borrow"}, {"whenCanPreempt": "MayStopSearch"}))


def m_cohort_name(o: Obj, rnd: random.Random) -> None:
    o["spec"]["cohortName"] = rnd.choice(("Pool", "pool_a", "a" * 254, "pool.a", "-pool"))


def m_selector(o: Obj, rnd: random.Random) -> None:
    o["spec"]["namespaceSelector"] = rnd.choice((
        {"matchExpressions": [{"key": "team", "operator": "In", "values": []}]},
        {"matchExpressions": [{"key": "team", "operator": "Exists", "values": ["a"]}]},
        {"matchExpressions": [{"key": "team", "operator": "Near", "values": ["a"]}]},
        {"matchLabels": {"team": "a"}}, {"matchLabels": {"bad key!": "a"}}))


def m_weight(o: Obj, rnd: random.Random) -> None:
    o["spec"]["fairSharing"] = {"weight": rnd.choice(("-1", "0", "1", "500m", "1n"))}


def m_checks(o: Obj, rnd: random.Random) -> None:
    o["spec"]["admissionChecksStrategy"] = rnd.choice((
        {"admissionChecks": []}, {"admissionChecks": [{"name": "prov", "onFlavors": ["nope"]}]},
        {"admissionChecks": [{"name": "prov", "onFlavors": ["f0"]}]}))


def m_unknown_field(o: Obj, rnd: random.Random) -> None:
    o["spec"][rnd.choice(("cohort", "flavorsFungibility"))] = "pool"


def m_resource_name(o: Obj, rnd: random.Random) -> None:
    g = _group(o)
    bad = rnd.choice(("GPU!", "nvidia.com/", "a/b/c"))
    g["coveredResources"][-1] = bad
    for f in g["flavors"]:
        if f["resources"]:
            f["resources"][-1]["name"] = bad


def m_flavor_name(o: Obj, rnd: random.Random) -> None:
    _group(o)["flavors"][0]["name"] = rnd.choice(("F0", "f_0", "f0."))


CQ_MUTATIONS: list[Callable[[Obj, random.Random], None]] = [
    m_dup_covered, m_dup_flavor, m_many_groups, m_many_flavors, m_no_flavors, m_order, m_count, m_negative,
    m_float, m_bad_quantity, m_borrowing, m_lending, m_enum, m_preemption, m_fungibility, m_cohort_name,
    m_selector, m_weight, m_checks, m_unknown_field, m_resource_name, m_flavor_name]


def cluster_queue(name: str, rnd: random.Random) -> Obj:
    o = _cq(name, rnd)
    for m in rnd.sample(CQ_MUTATIONS, rnd.choice((0, 1, 1, 1, 2))):
        m(o, rnd)
    return o


def cohort(name: str, rnd: random.Random) -> Obj:
    spec: Obj = {}
    if rnd.random() < 0.5:
        spec["parentName"] = rnd.choice(("root", "Root", "root_x"))
    if rnd.random() < 0.7:
        base = _cq(name, rnd)
        spec["resourceGroups"] = base["spec"]["resourceGroups"]
        o = {"apiVersion": KV, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}
        for m in rnd.sample([m_dup_covered, m_dup_flavor, m_negative, m_borrowing, m_lending, m_order,
                             m_many_flavors, m_weight, m_float, m_bad_quantity], rnd.choice((0, 1, 1))):
            m(o, rnd)
        return o
    if rnd.random() < 0.3:
        spec["parent"] = "root"
    return {"apiVersion": KV, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def resource_flavor(name: str, rnd: random.Random) -> Obj:
    spec: Obj = {"nodeLabels": {"pool": "h100"}}
    pick = rnd.randint(0, 5)
    if pick == 1:
        spec["nodeLabels"] = {"bad key!": "x"}
    elif pick == 2:
        spec["nodeTaints"] = [{"key": "gpu", "value": "true", "effect": rnd.choice(("NoSchedule", "Sometimes"))}]
    elif pick == 3:
        spec["tolerations"] = [{"key": "gpu", "operator": rnd.choice(("Exists", "Equal", "Maybe")),
                                "effect": "NoSchedule"}]
    elif pick == 4:
        spec["topologyName"] = rnd.choice(("default", "Default_X"))
    return {"apiVersion": KV, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def local_queue(name: str, rnd: random.Random, namespace: str) -> Obj:
    spec: Obj = {"clusterQueue": rnd.choice(("main", "Main", "", "a" * 254, "main-cq"))}
    if rnd.random() < 0.3:
        spec["stopPolicy"] = rnd.choice(("Hold", "Pause"))
    return {"apiVersion": KV, "kind": "LocalQueue", "metadata": {"name": name, "namespace": namespace},
            "spec": spec}


def model_deployment(name: str, rnd: random.Random, namespace: str) -> Obj:
    roles = [{"name": "prefill", "kind": "Prefill", "replicas": 1, "size": 1, "instanceType": "h100",
              "resources": {"accelerator": "1"}},
             {"name": "decode", "kind": "Decode", "replicas": 2, "size": 1, "instanceType": "h100",
              "resources": {"accelerator": "2"}}]
    spec: Obj = {"model": {"name": "qwen3"}, "engine": {"name": "vLLM", "version": "0.11.0"}, "roles": roles}
    pick = rnd.randint(0, 7)
    if pick == 1:
        roles[0]["name"] = rnd.choice(("Prefill", "pre_fill", "-p"))
    elif pick == 2:
        roles[1]["replicas"] = rnd.choice((0, 1025, 4))
    elif pick == 3:
        roles[0]["kind"] = rnd.choice(("prefill", "Router"))
    elif pick == 4:
        spec["roles"] = []
    elif pick == 5:
        spec["engine"]["name"] = rnd.choice(("vllm", "TGI"))
    elif pick == 6:
        roles[1]["size"] = rnd.choice((0, 65, 8))
    return {"apiVersion": "worker.gpustack.ai/v1", "kind": "ModelDeployment",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def generate(seed: int, count: int, namespace: str) -> list[Obj]:
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        kind = rnd.choices(("cq", "cohort", "rf", "lq", "md"), weights=(10, 3, 2, 2, 3))[0]
        name = f"lint-{seed}-{i}"
        if kind == "cq":
            o = cluster_queue(name, rnd)
        elif kind == "cohort":
            o = cohort(name, rnd)
        elif kind == "rf":
            o = resource_flavor(name, rnd)
        elif kind == "lq":
            o = local_queue(name, rnd, namespace)
        else:
            o = model_deployment(name, rnd, namespace)
        out.append(o)
    return out
