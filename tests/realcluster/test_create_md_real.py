"""4b for the ModelDeployment itself: `create` (no dry run, no `--target pods`) writes a ModelDeployment on the
real cluster; a stand-in for GPUStack's operator (tests/realcluster/standin.py, from the published docs) turns
it into one pod group per replica and answers the joint AdmissionCheck; the preflight's verdict (fits / would
preempt these / can never fit / waits for quota) is compared with what Kueue then does. "Never" and "waits" are
told apart by Kueue too: the Workloads that hold the queue are deactivated, and the deployment is admitted
afterwards (it waited) or still not (it never could)."""

from __future__ import annotations

import time

import pytest

from tests.realcluster import standin
from tests.realcluster.createcase import case, preflight_then_create, prepare
from tests.realcluster.differential import _finish_eviction as finish_eviction
from tests.realcluster.differential import _preempted as preempted
from tests.realcluster.plane import Plane, is_true

pytestmark = pytest.mark.cluster


@pytest.mark.parametrize("seed", range(2800, 2808))
def test_modeldeployment_preflight_against_admission(plane: Plane, seed: int) -> None:
    standin.install(plane)
    c = case(seed)
    ns = plane.namespace(f"mdcreate{seed}")
    it = f"gpustack--nvidia-h100-linux-amd64-{ns}"  # GPUStack names an InstanceType and its queue alike
    plane.apply(standin.instance_type(it, "main"))
    admitted = prepare(plane, c, ns, it, checks=[standin.JOINT])
    said, victims = preflight_then_create(plane, c, ns, it)
    groups = standin.render(plane, plane.get("modeldeployment", "qwen", ns))
    did, evicted = _what_kueue_did(plane, ns, groups, admitted, [f"held{i}" for i in range(len(c["held"]))])
    assert (said, victims) == (did, evicted), f"case {c}: preflight said {said} {victims}, Kueue {did} {evicted}"


def _what_kueue_did(plane: Plane, ns: str, groups: list[str], admitted: list[str],
                    held: list[str]) -> tuple[str, list[str]]:
    standin.composed(plane, ns, groups)
    victims: set[str] = set()
    if _settles(plane, ns, groups, admitted, victims, rounds=40):
        return ("preempts", sorted(victims)) if victims else ("fits", [])
    if victims:
        return "preempts", sorted(victims)
    for name in held:  # free the queue (of the pending held ones too): one that waited is admitted now, never: not
        finish_eviction(plane, ns, name, deactivate=True)
    # Kueue requeues the pending groups when the quota frees; on a loaded machine that takes seconds
    return ("blocked" if _settles(plane, ns, groups, [], set(), rounds=90) else "never"), []


def _settles(plane: Plane, ns: str, groups: list[str], admitted: list[str], victims: set[str],
             rounds: int) -> bool:
    """Run the joint check's controller for ROUNDS half-seconds at most; whether every replica group was
    admitted. Preempted holders have their eviction finished as their job would."""
    for _ in range(rounds):
        wls = standin.answer(plane, ns, groups)
        if len(wls) == len(groups) and all(is_true(w, "Admitted") for w in wls.values()):
            return True
        for w in plane.get("workloads", namespace=ns)["items"]:
            name = w["metadata"]["name"]
            if name in admitted and name not in victims and preempted(w):
                victims.add(name)
                finish_eviction(plane, ns, name, deactivate=True)
        time.sleep(0.5)
    return False
