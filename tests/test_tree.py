"""`kubectl pd tree` (issue 32, item 5): ModelDeployment -> replica groups -> Workloads -> Pods with the newest
Event of each; a golden text per why-pending state (tests/golden/tree/), the JSON's codes, and the same tree
from the loopback server as from the file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd import kube
from kubectl_pd.pending.tree import newest_events
from tests.test_pending_fixtures import CASES, FIX

GOLDEN = Path(__file__).parent / "golden" / "tree"


def _golden(text: str, name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("PD_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.is_file(), f"no golden {path.name}: run with PD_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(), f"{name}: the text differs from {path} (PD_UPDATE_GOLDEN=1)"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_per_state(cli: Any, name: str) -> None:
    from tests.test_pending_fixtures import TARGETS

    r = cli(["tree", TARGETS[name][0] if name in TARGETS else "qwen-pd", "-n", "team-a", "-f",
             str(FIX / f"{name}.yaml")])
    assert r.exit_code == 0, r.stderr
    _golden(r.stdout, name)


# fixture -> [(group, workload state, [(pod, phase, gated)])]
SHAPES = {
    "quota-exhausted": [("qwen-pd", "pending", [("qwen-pd-decode-0", "Pending", True),
                                                ("qwen-pd-decode-1", "Pending", True),
                                                ("qwen-pd-prefill-0", "Pending", True)])],
    "not-pending": [("qwen-pd", "admitted", [("qwen-pd-decode-0", "Running", False),
                                             ("qwen-pd-decode-1", "Running", False),
                                             ("qwen-pd-prefill-0", "Running", False)])],
    "workload-missing": [("qwen-pd", "missing", [("qwen-pd-decode-0", "Pending", True),
                                                 ("qwen-pd-decode-1", "Pending", True),
                                                 ("qwen-pd-prefill-0", "Pending", True)])],
    "per-replica-joint": [("gpustack-fnv64-a0029932df519e9a", "pending", [("qwen-pd-decode-b1x7k", "Pending", True)]),
                          ("gpustack-fnv64-a0029a32df51a04d", "pending", [("qwen-pd-decode-a0x7k", "Pending", True)]),
                          ("gpustack-fnv64-f51e903ee6caa5bb", "quota-reserved",
                           [("qwen-pd-prefill-a0x7k", "Pending", True)])],
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_json_shape(cli: Any, name: str) -> None:
    r = cli(["tree", "qwen-pd", "-n", "team-a", "-f", str(FIX / f"{name}.yaml"), "-o", "json"])
    data = json.loads(r.stdout)
    assert (data["schemaVersion"], data["kind"], data["name"]) == ("1.1", "ModelDeployment", "qwen-pd")
    got = [(g["name"], g["workload"]["state"], [(p["name"], p["phase"], bool(p["gates"])) for p in g["pods"]])
           for g in data["groups"]]
    assert got == SHAPES[name]


def test_newest_event_of_each_object() -> None:
    def ev(name: str, kind: str, last: str, reason: str) -> dict[str, Any]:
        return {"involvedObject": {"kind": kind, "name": name}, "lastTimestamp": last, "reason": reason}

    events = [ev("w", "Workload", "2026-01-01T00:00:02Z", "b"), ev("w", "Workload", "2026-01-01T00:00:01Z", "a"),
              ev("w", "Pod", "2026-01-01T00:00:00Z", "c")]
    newest = newest_events([kube.event(e) for e in events])
    assert newest[("Workload", "w")].reason == "b" and newest[("Pod", "w")].reason == "c"


@pytest.mark.parametrize("name", ["quota-exhausted", "per-replica-joint", "pods-gated"])
def test_live_equals_file(cli: Any, apiserver: Any, name: str) -> None:
    server, env = apiserver(f"pending/{name}.yaml")
    live = cli(["tree", "qwen-pd", "-n", "team-a", "-o", "json"], env=env)
    assert live.exit_code == 0, live.stderr
    from_file = cli(["tree", "qwen-pd", "-n", "team-a", "-o", "json", "-f", str(FIX / f"{name}.yaml")])
    assert json.loads(live.stdout) == json.loads(from_file.stdout)
    assert set(server.methods) == {"GET"}


def test_other_targets_and_errors(cli: Any) -> None:
    f = str(FIX / "quota-exhausted.yaml")
    by_pod = json.loads(cli(["tree", "pod/qwen-pd-decode-0", "-n", "team-a", "-f", f, "-o", "json"]).stdout)
    assert by_pod["kind"] == "ModelDeployment" and by_pod["groups"][0]["name"] == "qwen-pd"
    r = cli(["tree", "nothing", "-n", "team-a", "-f", f])
    assert r.exit_code == 1 and r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 1
    r = cli(["tree", "bogus/x", "-f", f])
    assert r.exit_code == 2 and r.stderr.startswith("error: ")


def test_v1_deployment_of_gpustacks_operator(cli: Any, tmp_path: Path) -> None:
    """GPUStack's `v1` ModelDeployment (acceleratorType, no instanceType): the same groups, Workloads, Pods."""
    from tests.apiserver import load_objects

    objs = load_objects(FIX / "per-replica-joint.yaml")
    for o in objs:
        if o["kind"] == "ModelDeployment":
            o["apiVersion"] = "worker.gpustack.ai/v1"
            for role in o["spec"]["roles"]:
                role["acceleratorType"] = role.pop("instanceType")
        for ref in o.get("metadata", {}).get("ownerReferences") or []:
            if ref.get("kind") == "ModelDeployment":
                ref["apiVersion"] = "worker.gpustack.ai/v1"
    path = tmp_path / "v1.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    data = json.loads(cli(["tree", "qwen-pd", "-n", "team-a", "-f", str(path), "-o", "json"]).stdout)
    assert data["apiVersion"] == "worker.gpustack.ai/v1"
    got = [(g["name"], g["workload"]["state"], [(p["name"], p["phase"], bool(p["gates"])) for p in g["pods"]])
           for g in data["groups"]]
    assert got == SHAPES["per-replica-joint"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_obeys_the_published_schema(cli: Any, name: str) -> None:
    import jsonschema

    from kubectl_pd.agent import schemas
    from tests.test_pending_fixtures import TARGETS

    form = TARGETS[name][0] if name in TARGETS else "qwen-pd"
    doc = json.loads(cli(["tree", form, "-n", "team-a", "-f", str(FIX / f"{name}.yaml"), "-o", "json"]).stdout)
    validator = jsonschema.Draft202012Validator(schemas.SCHEMAS["tree"]())
    assert not [e.message for e in validator.iter_errors(doc)]
    assert list(validator.iter_errors({**doc, "surprise": 1}))  # closed: a new key is a schema change
