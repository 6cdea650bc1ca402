"""Issue 37 ("screen truth"): what the screen says is what was read, the fixed cases offline (the journeys on the
real control plane are tests/realcluster/test_journeys.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests import screen_cases as sc


def _file(tmp_path: Path, doc: dict[str, Any], name: str = "state.yaml") -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(doc))
    return str(p)


def _json(cli: Any, *args: str) -> tuple[int, dict[str, Any]]:
    r = cli(["why-pending", *args, "-o", "json"])
    return r.exit_code, (json.loads(r.stdout) if r.stdout.strip() else {})


def test_w3_pod_sets_are_judged_in_kueues_order_and_nothing_is_said_freed(cli: Any, tmp_path: Path) -> None:
    f = _file(tmp_path, sc.charged_in_order())
    code, doc = _json(cli, "podgroup/g", "-f", f)
    assert code == 0
    first = doc["reasons"][0]
    assert (first["code"], first["role"], first["flavor"]) == ("QuotaExhausted", "prefill", "z0")
    assert "freed" not in json.dumps(doc)
    text = cli(["why-pending", "podgroup/g", "-f", f]).stdout
    assert "freed" not in text and "fits flavor z1 now" not in text


def test_w4_a_group_being_deleted_has_no_quota_verdict(cli: Any, tmp_path: Path) -> None:
    for replacing in (False, True):
        code, doc = _json(cli, "podgroup/g", "-f", _file(tmp_path, sc.all_deleting(replacing)))
        assert code == 0
        assert [r["code"] for r in doc["reasons"]] == ["AllReplicasTerminating"]
        assert doc["reasons"][0]["params"]["waitingForReplacementPods"] is replacing
        assert doc["suggestions"] == []


def test_u1_a_bare_name_finds_the_pod_group(cli: Any, tmp_path: Path) -> None:
    f = _file(tmp_path, sc.charged_in_order())
    code, doc = _json(cli, "g", "-f", f)
    assert code == 0 and doc["target"]["kind"] == "PodGroup"
    r = cli(["why-pending", "nothing-here", "-f", f])
    assert r.exit_code == 1 and r.stderr.count("\n") == 1 and "podgroup/nothing-here" in r.stderr


def test_w5_a_pod_group_is_selected_by_its_own_name(cli: Any, tmp_path: Path) -> None:
    f = _file(tmp_path, sc.charged_in_order())
    code, doc = _json(cli, "-A", "--field-selector", "metadata.name=g", "-f", f)
    assert code == 0 and [i["target"]["name"] for i in doc["items"]] == ["g"]
    code, doc = _json(cli, "-A", "--field-selector", "metadata.name=g-decode-0", "-f", f)
    assert code == 0 and doc["items"] == []


def test_notes_go_to_stderr(cli: Any, tmp_path: Path) -> None:
    doc = sc.charged_in_order()
    doc["items"] = [o for o in doc["items"] if o["kind"] != "ResourceFlavor"]  # a note: flavors not read
    r = cli(["why-pending", "-A", "-f", _file(tmp_path, doc)])
    assert not any(line.startswith("note:") for line in r.stdout.splitlines())


CREATE = ["create", "g", "--model", "m", "--target", "pods", "--local-queue", "main", "-n", "team-a",
          "--role", "name=prefill,kind=prefill,accelerator=2,image=i", "--role", "name=decode,kind=decode,image=i",
          "--dry-run=client", "-o", "json"]


def test_w2_a_client_dry_run_refuses_cards_of_no_known_resource(cli: Any, tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none")}
    r = cli(CREATE, env=env)
    assert r.exit_code == 2 and "--resource" in r.stderr and not r.stdout
    r = cli([*CREATE, "--resource", sc.GPU], env=env)
    assert r.exit_code == 0, r.stderr
    pods = json.loads(r.stdout)["items"]
    asks = {p["metadata"]["labels"]["app.kubernetes.io/component"]:
            p["spec"]["containers"][0]["resources"]["requests"] for p in pods}
    assert asks == {"prefill": {sc.GPU: "2"}, "decode": {sc.GPU: "1"}}
    r = cli([*CREATE, "--resource", "credits.gpustack.ai/nvidia"], env=env)
    assert json.loads(r.stdout)["items"][0]["spec"]["containers"][0]["resources"]["requests"] == {
        "credits.gpustack.ai/nvidia": "3200000"}
    r = cli([*CREATE, "--resource", "not a name"], env=env)
    assert r.exit_code == 2


def test_w7_one_free_figure_per_flavor_and_what_is_lent_is_said(cli: Any, tmp_path: Path) -> None:
    code, doc = _json(cli, "podgroup/g", "-f", _file(tmp_path, sc.lent_away()))
    assert code == 0
    bar = next(b for b in doc["quota"] if b["flavor"] == "z0")
    first = doc["reasons"][0]
    assert (bar["free"], bar["lent"]) == ("0", "2")
    assert first["available"] == bar["free"] and first["flavor"] == "z0"


def test_w10_the_advice_without_a_kubeconfig_fits_the_command(cli: Any, tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none")}
    create = ["create", "x", "--model", "m", "--prefill", "1", "--decode", "1", "--instance-type",
              "gpustack--nvidia-h20-linux-amd64"]
    for argv, offline in ((["why-pending", "x"], "--from-file"), (["lint"], "--from-file"),
                          (create, "--dry-run=client"), ([*create, "--preflight"], None)):
        r = cli(argv, env=env)
        assert r.exit_code == 1 and r.stderr.startswith("error: no kubeconfig found"), argv
        said = [o for o in ("--from-file", "--dry-run=client") if o in r.stderr]
        assert said == ([offline] if offline else []), (argv, r.stderr)


def test_the_detail_column_is_whole_into_a_pipe(cli: Any, tmp_path: Path) -> None:
    r = cli(["why-pending", "-A", "-f", _file(tmp_path, sc.charged_in_order())])
    row = r.stdout.splitlines()[1]
    # whole: the message runs to its last clause (when Kueue wrote its words, issue 46 finding 6), never cut
    assert "of 4 nvidia.com/gpu nominal (Kueue's message of " in row and row.endswith(")") and len(row) > 120, row


def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads((Path(__file__).parent.parent / "docs" / "schema" /
                                                       "why-pending.json").read_text()))


def test_w6_a_refused_list_is_unknown_never_nothing_pending(cli: Any, apiserver: Any) -> None:
    """RBAC refusing the run's lists: kubectl's Forbidden (exit 1), never "No pending"; JSON keeps its schema."""
    from tests.apiserver import Forbid

    every = [Forbid("list", p, "team-a") for p in ("modeldeployments", "workloads", "pods")]
    cases = [(["-n", "team-a"], every), (["-A"], [Forbid("list", "workloads")]),
             (["-n", "team-a"], [Forbid("list", "workloads", "team-a")])]
    for flags, forbid in cases:
        _server, env = apiserver("pending/quota-exhausted.yaml", forbid=forbid)
        r = cli(["why-pending", *flags], env=env)
        assert r.exit_code == 1, (flags, r.stdout, r.stderr)
        assert "No pending" not in r.stdout and "WorkloadMissing" not in r.stdout
        assert r.stderr.startswith("error: cannot tell what is pending in"), r.stderr
        j = cli(["why-pending", *flags, "-o", "json"], env=env)
        assert j.exit_code == 1
        doc = json.loads(j.stdout)
        assert doc["items"] == [] and doc["incomplete"], doc
        assert not list(_validator().iter_errors(doc))


def test_w2_a_live_dry_run_asks_the_accelerator_its_queue_covers(cli: Any, apiserver: Any) -> None:
    """A LocalQueue whose ClusterQueue covers plain nvidia.com/gpu: the Pods ask it, one a card (before: nothing)."""
    objs = [o for o in sc.charged_in_order()["items"] if o["kind"] in ("ResourceFlavor", "ClusterQueue", "LocalQueue")]
    _server, env = apiserver(objs)
    argv = [a for a in CREATE if a != "--dry-run=client"] + ["--dry-run=server"]
    r = cli(argv, env=env)
    assert r.exit_code == 0, r.stderr
    asks = {p["metadata"]["labels"]["app.kubernetes.io/component"]:
            p["spec"]["containers"][0]["resources"]["requests"] for p in json.loads(r.stdout)["items"]}
    assert asks == {"prefill": {sc.GPU: "2"}, "decode": {sc.GPU: "1"}}


def test_w9_a_retry_from_another_flavor_is_not_never(cli: Any, tmp_path: Path) -> None:
    code, doc = _json(cli, "podgroup/g", "-f", _file(tmp_path, sc.retried_from_another_flavor()))
    assert code == 0
    first = doc["reasons"][0]
    assert (first["code"], first["role"], first["flavor"], first["needed"]) == ("QuotaExhausted", "decode", "z1", "12")
    assert "QuotaExceedsCapacity" not in [r["code"] for r in doc["reasons"]]
    rows = {r["name"]: (r["flavor"], r["verdict"]) for r in doc["roles"]}
    assert rows == {"decode": ("z1", "blocked"), "prefill": ("z0", "fits")}


def test_w1_a_404_names_the_api_its_group_and_resource_say() -> None:
    from kubectl_pd.cluster import kinds
    from kubectl_pd.cluster.live import _not_served

    it, md, cq = kinds.KINDS["InstanceType"], kinds.KINDS["ModelDeployment"], kinds.KINDS["ClusterQueue"]
    # the group served without the resource: the resource is named, never "the ModelDeployment CRD"
    said = _not_served(it, ["v1alpha1"])
    assert "instancetypes.worker.gpustack.ai is not served" in said and "ModelDeployment" not in said
    assert "instancetypes.worker.gpustack.ai" in _not_served(it) and "ModelDeployment" not in _not_served(it)
    assert "modeldeployments.worker.gpustack.ai" in _not_served(md)
    assert "Kueue is not installed" in _not_served(cq)
    assert "clusterqueues.kueue.x-k8s.io is not served" in _not_served(cq, ["v1beta1"])
