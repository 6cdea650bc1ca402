"""Random and truncated Workload / ClusterQueue objects and Kueue messages never crash the diagnosis."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kubectl_pd import kube
from kubectl_pd.gpustack.model import model_deployment
from kubectl_pd.kueue import messages as km
from kubectl_pd.kueue.model import admission_check, cluster_queue, local_queue, resource_flavor, workload
from kubectl_pd.pending.diagnose import CODES, diagnose
from kubectl_pd.pending.gather import Facts, group_of_pod
from kubectl_pd.pending.render import render_text, to_dict
from kubectl_pd.pending.target import Target
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
BASE = {p.stem: load_objects(p) for p in sorted(FIX.glob("*.yaml"))}

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**7), st.text(max_size=12),
                    st.sampled_from(["True", "False", "Pending", "1600k", "-1", "x", "QuotaReserved", "Admitted"]))
junk = st.recursive(scalars, lambda c: st.one_of(st.lists(c, max_size=3),
                                                 st.dictionaries(st.text(max_size=8), c, max_size=3)), max_leaves=8)

MESSAGE_PIECES = [
    "couldn't assign flavors to pod set ", "decode", ": ", "insufficient unused quota for ",
    "credits.gpustack.ai/nvidia",
    " in flavor ", "h20", ", ", "3200k", " more needed", "insufficient quota for ", ", previously considered podsets "
    "requests (", ") + current podset request (", ") > maximum capacity (", "<unlimited>", ")", "; ",
    "untolerated taint {", "k v NoSchedule <nil>}", "flavor x doesn't match node affinity", "resource x unavailable "
    "in ClusterQueue", ". Pending the preemption of 2 workload(s)", "LocalQueue q doesn't exist", "ClusterQueue c is "
    "inactive", "Can't admit new workloads: ", "references missing ResourceFlavor(s): a,b", "is stopped", ".", "'",
    "group has fewer runnable pods than expected", "(", "\"", "topology \"t\" doesn't allow to fit any of 2 pod(s)",
]
messages = st.one_of(st.text(max_size=80), st.lists(st.sampled_from(MESSAGE_PIECES), max_size=14).map("".join))


def _facts(objs: list[dict[str, Any]]) -> Facts:
    f = Facts(Target("ModelDeployment", "qwen-pd", "team-a"))
    for o in objs:
        if not isinstance(o, dict):
            continue
        kind = o.get("kind")
        name = (o.get("metadata") or {}).get("name") if isinstance(o.get("metadata"), dict) else None
        name = name if isinstance(name, str) else "x"
        if kind == "ModelDeployment":
            f.deployment = model_deployment(o)
        elif kind == "Pod":
            f.pods.append(kube.pod(o))
        elif kind == "Workload":
            f.workloads[name] = workload(o)
        elif kind == "LocalQueue":
            f.local_queues[name] = local_queue(o)
        elif kind == "ClusterQueue":
            f.cluster_queues[name] = cluster_queue(o)
        elif kind == "ResourceFlavor":
            f.flavors[name] = resource_flavor(o)
        elif kind == "AdmissionCheck":
            f.checks[name] = admission_check(o)
        elif kind == "Event":
            f.events.append(kube.event(o))
        elif kind == "Namespace":
            f.namespace_obj = kube.namespace(o)
    for p in f.pods:
        try:
            g = group_of_pod(p)
        except AttributeError:
            g = None
        if isinstance(g, str) and g not in f.groups:
            f.groups.append(g)
    for g in f.workloads:
        if g not in f.groups:
            f.groups.append(g)
    return f


def _check(objs: list[dict[str, Any]]) -> None:
    d = diagnose(_facts(objs))
    assert d.reasons and all(r.code in CODES for r in d.reasons)
    render_text(d)
    render_text(d, color=True)
    json.dumps(to_dict(d))


def _mutate(obj: Any, path: list[Any], value: Any, drop: bool) -> None:
    cur = obj
    for step in path[:-1]:
        if isinstance(cur, dict) and cur:
            cur = cur[sorted(cur)[step % len(cur)]]
        elif isinstance(cur, list) and cur:
            cur = cur[step % len(cur)]
        else:
            return
    if isinstance(cur, dict) and cur:
        key = sorted(cur)[path[-1] % len(cur)]
        if drop:
            del cur[key]
        else:
            cur[key] = value
    elif isinstance(cur, list) and cur:
        i = path[-1] % len(cur)
        if drop:
            del cur[i]
        else:
            cur[i] = value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(BASE)), st.lists(st.tuples(st.integers(0, 40), st.lists(st.integers(0, 30), min_size=1,
                                                                                     max_size=6), junk, st.booleans()),
                                               min_size=1, max_size=6))
@example("admission-check-pending", [(22, [22], [None], False)])  # metadata a list: found in CI once
def test_truncated_and_scrambled_fixtures(name: str, edits: list[tuple[int, list[int], Any, bool]]) -> None:
    objs = copy.deepcopy(BASE[name])
    for idx, path, value, drop in edits:
        target = objs[idx % len(objs)]
        if target.get("kind") in ("Workload", "ClusterQueue", "LocalQueue", "Pod", "ResourceFlavor", "ModelDeployment"):
            _mutate(target, path, value, drop)
    _check(objs)


@settings(max_examples=200, deadline=None)
@given(messages, st.sampled_from(["Pending", "Inadmissible", "WaitingForQuota", "NoMatchingFlavor", "Misconfigured",
                                  "ExceedsMaxQuota", "Waiting", "", "Deactivated"]), messages)
def test_random_kueue_messages(message: str, reason: str, cq_message: str) -> None:
    objs = copy.deepcopy(BASE["quota-exhausted"])
    for o in objs:
        if o["kind"] == "Workload":
            o["status"]["conditions"] = [{"type": "QuotaReserved", "status": "False", "reason": reason,
                                          "message": message}]
        if o["kind"] == "ClusterQueue":
            o["status"]["conditions"] = [{"type": "Active", "status": "False", "reason": "X", "message": cq_message}]
        if o["kind"] == "Event":
            o["reason"] = "ErrWorkloadCompose"
            o["message"] = message
    _check(objs)
    km.parse_message(message)
    km.parse_cq_inactive(cq_message)
    km.parse_compose_error(message)
    km.parse_checks_message(message)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.fixed_dictionaries({"kind": st.sampled_from(["Workload", "ClusterQueue", "Pod", "LocalQueue",
                                                               "ModelDeployment", "ResourceFlavor"])},
                                      optional={"metadata": junk, "spec": junk, "status": junk}), max_size=6))
def test_random_objects(objs: list[dict[str, Any]]) -> None:
    _check(objs)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.datetimes().map(lambda t: t.isoformat()), st.text(max_size=25)), st.integers(-3, 5))
def test_requeue_times_of_any_shape(requeue_at: str, count: int) -> None:
    objs = copy.deepcopy(BASE["evicted"])
    for o in objs:
        if o["kind"] == "Workload":
            o["status"]["requeueState"] = {"count": count, "requeueAt": requeue_at}
    _check(objs)
