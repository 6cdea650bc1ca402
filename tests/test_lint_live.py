"""`kubectl pd lint` against the loopback API server: what it reads, what it finds, GET only."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonpatch
import yaml

from tests.apiserver import TOKEN, Forbid
from tests.builders import (
    GPUSTACK_QUEUE_LABELS,
    deployment_role,
    gpustack_queue,
    pd_deployment,
    queue_of_groups,
    resource_flavor,
    resource_group,
)

POOL = "gpustack--nvidia-h20"
# the PD frameworks' APIs lint also lists (PD414-PD416); a group not served answers 404 and is passed over
FRAMEWORK_APIS = ("/apis/apps", "/apis/leaderworkerset.x-k8s.io", "/apis/disaggregatedset.x-k8s.io",
                  "/apis/serving.kserve.io")


def flavors_for(queue: dict[str, Any]) -> list[dict[str, Any]]:
    names = [f["name"] for g in queue["spec"]["resourceGroups"] for f in g["flavors"]]
    return [resource_flavor(n, {"acceleratable.feature.gpustack.ai/nvidia-h20": "true",
                                "acceleratable.feature.gpustack.ai/nvidia-h20.count": "8"}) for n in names]


def cluster_objects() -> list[dict[str, Any]]:
    split = gpustack_queue(18, name=POOL)
    split["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": "gpustack-node-devices"}]}
    team = queue_of_groups("team-a", [resource_group(["cpu"], ["h100"])])
    cohort = queue_of_groups("research", [resource_group(["cpu"], ["x"]), resource_group(["memory"], ["x"])],
                             kind="Cohort")
    ac = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck",
          "metadata": {"name": "gpustack-node-devices"}}
    qwen = pd_deployment([deployment_role("prefill", itype=POOL, acceleratorKey="nvidia-l40s"),
                          deployment_role("decode", "decode", itype=POOL)], name="qwen", namespace="team-a")
    llama = pd_deployment([deployment_role("prefill", itype=POOL),
                           deployment_role("decode", "decode", itype="gpustack--nvidia-a10g")],
                          name="llama", namespace="team-b")
    return [split, *flavors_for(split), team, cohort, ac, qwen, llama]


def crd(with_size: bool) -> dict[str, Any]:
    props: dict[str, Any] = {"name": {"type": "string"}, "instanceType": {"type": "string"}}
    if with_size:
        props["size"] = {"type": "integer"}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "modeldeployments.worker.gpustack.ai"},
            "spec": {"group": "worker.gpustack.ai", "names": {"kind": "ModelDeployment"}, "versions": [
                {"name": "v1alpha1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "properties": {"spec": {"properties": {"roles": {"type": "array", "items": {
                        "properties": props}}}}}}}}]}}


def ids(stdout: str) -> list[str]:
    return [line.split()[2] for line in stdout.splitlines() if line.startswith("cluster: ")]


def test_live_lint_reads_with_get_only(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster_objects(), namespace="team-a")
    res = cli(["lint"], env=env)
    assert res.exit_code == 1, res.stderr
    found = ids(res.stdout)
    assert found.count("PD101") == 1 and "PD201" in found and "PD102" in found and "PD111" in found
    assert "PD306" in found  # nvidia-l40s is offered by no flavor of the pool
    assert "PD303" not in found  # llama lives in team-b, outside -n
    assert "cluster: error PD111 flavor-not-found ClusterQueue/team-a spec.resourceGroups[0].flavors[0].name" \
        in res.stdout
    assert set(server.methods) == {"GET"}
    paths = {r.path for r in server.requests}
    assert "/apis/kueue.x-k8s.io/v1beta2/clusterqueues" in paths
    assert "/apis/worker.gpustack.ai/v1alpha1/namespaces/team-a/modeldeployments" in paths
    assert TOKEN not in res.stdout + res.stderr


def test_all_namespaces_and_auto_profile(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster_objects())
    res = cli(["lint", "-A"], env=env)
    assert "ModelDeployment/team-b/llama" in res.stdout and "PD303" in ids(res.stdout)
    assert "/apis/worker.gpustack.ai/v1alpha1/modeldeployments" in {r.path for r in server.requests}
    # the installed CRD gives roles a size: the per-replica API, where instanceTypes may differ
    server2, env2 = apiserver(cluster_objects(), crd(with_size=True))
    res2 = cli(["lint", "-A"], env=env2)
    assert "PD303" not in ids(res2.stdout)
    assert any(r.path.endswith("/customresourcedefinitions/modeldeployments.worker.gpustack.ai")
               for r in server2.requests)
    assert set(server2.methods) == {"GET"}
    server3, env3 = apiserver(cluster_objects(), crd(with_size=False))
    assert "PD303" in ids(cli(["lint", "-A"], env=env3).stdout)


def test_model_deployment_crd_missing_is_a_note(cli: Callable, apiserver: Callable) -> None:
    groups = {"": ["v1"], "kueue.x-k8s.io": ["v1beta2", "v1beta1"], "apiextensions.k8s.io": ["v1"]}
    objs = [o for o in cluster_objects() if o["kind"] != "ModelDeployment"]
    server, env = apiserver(objs, groups=groups)
    res = cli(["lint", "-A"], env=env)
    assert res.exit_code == 1
    assert "note: the ModelDeployment CRD (modeldeployments.worker.gpustack.ai) is not installed" in res.stderr
    assert "PD101" in ids(res.stdout)
    assert set(server.methods) == {"GET"}


def test_kueue_missing_is_an_error(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver([], groups={"": ["v1"], "worker.gpustack.ai": ["v1alpha1"]})
    res = cli(["lint"], env=env)
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith("error: Kueue is not installed") and len(res.stderr.splitlines()) == 1


def test_forbidden_flavors_degrade(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster_objects(), forbid=[Forbid("list", "resourceflavors")], namespace="team-a")
    res = cli(["lint"], env=env)
    assert "note: RBAC hides ResourceFlavors" in res.stderr
    found = ids(res.stdout)
    assert "PD111" not in found and "PD306" not in found and "PD101" in found


def test_forbidden_cluster_queues_fail(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster_objects(), forbid=[Forbid("list", "clusterqueues")])
    res = cli(["lint"], env=env)
    assert res.exit_code == 1 and res.stderr.startswith("error: forbidden")


def test_live_fix_patch_applies_and_relints_clean(cli: Callable, apiserver: Callable) -> None:
    objs = cluster_objects()
    server, env = apiserver(objs, namespace="team-a")
    res = cli(["lint", "--fix", "-o", "patch"], env=env)
    assert set(server.methods) == {"GET"}
    entries = {e["name"]: e for e in json.loads(res.stdout)}
    assert set(entries) == {POOL}  # Cohort x is in two groups of different resources: no rewrite
    assert "Cohort/research: no automatic fix" in res.stderr
    stored = server.stored("ClusterQueue", "kueue.x-k8s.io/v1beta2", POOL)
    server.put(jsonpatch.apply_patch(copy.deepcopy(stored), entries[POOL]["patch"]))
    again = cli(["lint", "-o", "json"], env=env)
    left = [f for f in json.loads(again.stdout)["findings"] if f["object"]["name"] == POOL]
    assert left == []


def test_live_sarif_and_json_locations(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(cluster_objects(), namespace="team-a")
    sarif = json.loads(cli(["lint", "-o", "sarif"], env=env).stdout)
    loc = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc == {"artifactLocation": {"uri": "cluster"}}
    doc = json.loads(cli(["lint", "-o", "json"], env=env).stdout)
    assert all(f["file"] == "cluster" and f["line"] is None for f in doc["findings"])
    md_finding = next(f for f in doc["findings"] if f["id"] == "PD306")
    assert md_finding["object"] == {"kind": "ModelDeployment", "name": "qwen", "namespace": "team-a"}


def test_live_labels_are_gpustack(cli: Callable, apiserver: Callable) -> None:
    # a queue without the GPUStack label is linted by Kueue's rules only
    plain = gpustack_queue(18, name="plain")
    plain["metadata"]["labels"] = {k: v for k, v in GPUSTACK_QUEUE_LABELS.items() if "type" not in k}
    server, env = apiserver([plain, *flavors_for(plain)])
    res = cli(["lint"], env=env)
    assert ids(res.stdout) == ["PD101"]


def test_live_diff_and_fix_yaml(cli: Callable, apiserver: Callable) -> None:
    objs = cluster_objects()
    objs[0]["metadata"]["managedFields"] = [{"manager": "gpustack-operator", "operation": "Update"}]
    objs[0]["status"] = {"pendingWorkloads": 3}
    server, env = apiserver(objs, namespace="team-a")
    diff = cli(["lint", "--diff"], env=env)
    assert diff.exit_code == 1
    assert diff.stdout.startswith(f"--- a/ClusterQueue/{POOL}\n+++ b/ClusterQueue/{POOL}\n")
    fixed = cli(["lint", "--fix"], env=env)
    assert set(server.methods) == {"GET"}
    [doc] = [d for d in yaml.safe_load_all(fixed.stdout) if d]
    assert doc["metadata"]["name"] == POOL and "status" not in doc and "managedFields" not in doc["metadata"]
    assert len(doc["spec"]["resourceGroups"]) == 1 and len(doc["spec"]["resourceGroups"][0]["flavors"]) == 18


def test_live_old_kueue_serving_v1beta1_only(cli: Callable, apiserver: Callable) -> None:
    q = queue_of_groups("legacy", [resource_group(["cpu"], ["default"])], api="v1beta1", cohort="research",
                        admissionChecks=["gone"])
    q["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = "2"
    rf = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "default"}}
    groups = {"": ["v1"], "kueue.x-k8s.io": ["v1beta1"], "apiextensions.k8s.io": ["v1"]}
    server, env = apiserver([q, rf], groups=groups)
    res = cli(["lint", "-o", "json"], env=env)
    [f] = json.loads(res.stdout)["findings"]  # the cohort is read from v1beta1's `cohort`: no PD109
    assert (f["id"], f["path"]) == ("PD112", "spec.admissionChecks[0]")
    assert all(r.path.startswith(("/apis/kueue.x-k8s.io/v1beta1", "/apis/kueue.x-k8s.io", "/apis/worker",
                                  "/apis/apiextensions.k8s.io", *FRAMEWORK_APIS))
               for r in server.requests)
    assert set(server.methods) == {"GET"}
