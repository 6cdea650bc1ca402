"""Issue 42, M2 on the real control plane, where it was seen: a pending pod group whose Pods carry credentials in
container args and command, probe headers, env, annotation JSON and URL values; the snapshot holds none of
them, says by kind what it dropped, and its replay gives the live verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.realcluster import objs
from tests.realcluster.plane import Plane, condition, wait_for

pytestmark = pytest.mark.cluster

PLANTED = ["sk-real-args-do-not-write", "hf_real_flag_do_not_write", "cmd-real-do-not-write",
           "cmVhbDpwcm9iZS1kby1ub3Qtd3JpdGU=", "env-real-do-not-write", "json-real-do-not-write",
           "url-real-do-not-write"]


def _planted_pod(ns: str, role: str) -> dict[str, object]:
    pod = objs.group_pod(ns, f"s-{role}", "s", 2, "main", role, {objs.GPU: "2"})
    meta = pod["metadata"]
    assert isinstance(meta, dict)
    meta["annotations"].update({"example.com/config": json.dumps({"apiKey": "json-real-do-not-write"}),
                                "example.com/hook": "https://bot:url-real-do-not-write@example.com/x"})
    spec = pod["spec"]
    assert isinstance(spec, dict)
    spec["containers"][0].update({
        "args": ["--api-key", "sk-real-args-do-not-write", "--hf-token=hf_real_flag_do_not_write"],
        "command": ["sh", "-c", "serve --password cmd-real-do-not-write"],
        "env": [{"name": "HF_TOKEN", "value": "env-real-do-not-write"}],
        "readinessProbe": {"httpGet": {"path": "/", "port": 8080, "httpHeaders": [
            {"name": "Authorization", "value": "Basic cmVhbDpwcm9iZS1kby1ub3Qtd3JpdGU="}]}}})
    return pod


def test_a_snapshot_of_a_real_pending_group_keeps_no_credential(plane: Plane, tmp_path: Path) -> None:
    ns = plane.namespace("snap")
    rf, cq = plane.unique("snap-rf"), plane.unique("snap-cq")
    plane.apply(objs.flavor(rf), objs.cluster_queue(cq, [(rf, [objs.quota(objs.GPU, "2")])]),
                objs.local_queue(ns, "main", cq))
    plane.apply(*[_planted_pod(ns, r) for r in ("prefill", "decode")], server_side=False)
    wait_for("Kueue's verdict", lambda: any(condition(w, "QuotaReserved")
                                            for w in plane.get("workloads", namespace=ns)["items"]))
    wait_for("the ClusterQueue's pending count",
             lambda: plane.get("clusterqueues", cq).get("status", {}).get("pendingWorkloads") == 1)
    out = tmp_path / "snap.yaml"
    snap = plane.pd("snapshot", "podgroup/s", "-n", ns, "-o", str(out))
    assert snap.returncode == 0, snap.stderr
    text = out.read_text()
    assert [s for s in PLANTED if s in text] == []
    dropped = next(yaml.safe_load_all(text))["redaction"]["dropped"]
    assert {"args", "command", "env", "probes", "annotations"} <= set(dropped), dropped
    live = plane.pd("why-pending", "podgroup/s", "-n", ns, "-o", "json")
    replay = plane.pd("why-pending", "podgroup/s", "-n", ns, "-o", "json", "-f", str(out))
    assert [r["code"] for r in json.loads(replay.stdout)["reasons"]] == \
        [r["code"] for r in json.loads(live.stdout)["reasons"]]
