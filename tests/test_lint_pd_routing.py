"""PD307-PD309: prefill/decode pairing and routing under the per-replica API
(reference/gpustack-modeldeployment.md §1.2 engine/router pairing, §1.8 rule 10)."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.lint.context import LintContext
from tests.builders import deployment_role, pd_deployment
from tests.test_lint_rules import run


def per_replica(engine: Any = "vllm", router: dict[str, Any] | None = None,
                prefill_args: list[str] | None = None, decode_args: list[str] | None = None) -> dict[str, Any]:
    obj = pd_deployment([deployment_role("prefill", extraArgs=prefill_args or []),
                         deployment_role("decode", "decode", extraArgs=decode_args or [])])
    obj["spec"]["engine"] = engine
    if router is not None:
        obj["spec"]["router"] = router
    return obj


def found(obj: dict[str, Any], profile: str = PER_REPLICA) -> list[tuple[str, str]]:
    r = run(obj, ctx=LintContext(profile=profile))
    return [(f.rule_id, f.path_text) for f in r.findings if f.rule_id in ("PD307", "PD308", "PD309", "PD310")]


CASES = [
    ("no router", per_replica(), [("PD307", "spec.router")]),
    ("llm-d fronts vllm", per_replica(router={"name": "llm-d-router"}), []),
    ("llm-d fronts sglang", per_replica({"name": "SGLang"}, {"name": "llm-d-router"}), []),
    ("vllm-router with sglang", per_replica({"name": "sglang", "version": "0.5"}, {"name": "vllm-router"}),
     [("PD308", "spec.router.name")]),
    ("sglang-gateway with vllm", per_replica("vllm", {"name": "sglang-gateway"}), [("PD308", "spec.router.name")]),
    ("threshold needs llm-d", per_replica("vllm", {"name": "vllm-router", "disaggregationThresholdTokens": 512}),
     [("PD308", "spec.router.disaggregationThresholdTokens")]),
    ("ports differ", per_replica(router={"name": "llm-d-router"}, decode_args=["--port", "9000"]),
     [("PD309", "spec.roles")]),
    ("llm-d owned flag", per_replica(router={"name": "llm-d-router", "extraArgs": ["--v=2", "--config-file=x"]}),
     [("PD310", "spec.router.extraArgs[1]")]),
    ("same explicit port", per_replica(router={"name": "llm-d-router"}, prefill_args=["--port=8000"]), []),
]


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_routing(obj: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert found(obj) == want


def test_evidence_in_the_messages() -> None:
    r = run(per_replica(router={"name": "llm-d-router"}, decode_args=["--port", "9000"]),
            ctx=LintContext(profile=PER_REPLICA))
    [f] = [f for f in r.findings if f.rule_id == "PD309"]
    assert "prefill: 8000" in f.message and "decode: 9000" in f.message
    [g] = [f for f in run(per_replica(), ctx=LintContext(profile=PER_REPLICA)).findings if f.rule_id == "PD307"]
    assert "prefill (prefill)" in g.message and "decode (decode)" in g.message
    assert g.severity == "warning"


def test_non_tcp_port_under_a_router() -> None:
    obj = per_replica(router={"name": "llm-d-router"})
    obj["spec"]["roles"][0]["ports"] = [{"port": 8000, "protocol": "UDP"}]
    assert found(obj) == [("PD309", "spec.roles[0].ports[0].protocol")]


def test_seed_profile_has_no_router() -> None:
    assert found(per_replica(), PD_ATOMIC) == []


OWNED = [
    # (engine, extraArgs, env, expected paths); gpustack-operator docs/reference/model-deployment.md "What the
    # operator owns": per (engine, key), so a key one engine owns is a plain argument on the other
    ("vllm", ["--kv-transfer-config={}", "--max-model-len", "8192"], [], ["spec.roles[0].extraArgs[0]"]),
    ("vllm", [], [{"name": "MOONCAKE_CONFIG_PATH", "value": "/x"}], ["spec.roles[0].env[0].name"]),
    ("sglang", ["--kv-transfer-config={}"], [], []),
    ({"name": "SGLang"}, [], [{"name": "MOONCAKE_TENANT_ID", "value": "t"}], ["spec.roles[0].env[0].name"]),
    ("sglang", ["--hicache-storage-backend", "mooncake"], [], ["spec.roles[0].extraArgs[0]"]),
]


@pytest.mark.parametrize(("engine", "args", "env", "want"), OWNED)
def test_operator_owned_keys(engine: Any, args: list[str], env: list[dict[str, str]], want: list[str]) -> None:
    obj = per_replica(engine, {"name": "llm-d-router"}, prefill_args=args)
    obj["spec"]["roles"][0]["env"] = env
    r = run(obj, ctx=LintContext(profile=PER_REPLICA))
    assert [f.path_text for f in r.findings if f.rule_id == "PD311"] == want


def test_take_over_role_owns_its_argv() -> None:
    obj = per_replica("vllm", {"name": "llm-d-router"}, prefill_args=["--kv-transfer-config={}"])
    obj["spec"]["roles"][0]["command"] = ["python", "-m", "vllm.entrypoints.openai.api_server"]
    assert not [f for f in run(obj, ctx=LintContext(profile=PER_REPLICA)).findings if f.rule_id == "PD311"]


# -- evidence as params, router-owned flags of every router, reserved ports, decode --port ------------

def params(obj: dict[str, Any], rules: tuple[str, ...]) -> list[tuple[str, str, dict[str, Any]]]:
    r = run(obj, ctx=LintContext(profile=PER_REPLICA))
    return [(f.rule_id, f.path_text, f.extra) for f in r.findings if f.rule_id in rules]


ROUTER_FLAGS = [
    # (engine, router, extraArgs, [(path, flag)]); gpustack-operator webhook modelDeploymentRouterOwnedArgs
    ("vllm", "vllm-router", ["--policy", "round_robin", "--port=9000", "--kv-connector", "nixl"],
     [("spec.router.extraArgs[2]", "--port"), ("spec.router.extraArgs[3]", "--kv-connector")]),
    ("vllm", "vllm-router", ["--vllm-pd-disaggregation", "--prometheus-port=1"],
     [("spec.router.extraArgs[0]", "--vllm-pd-disaggregation"), ("spec.router.extraArgs[1]", "--prometheus-port")]),
    ("sglang", "sglang-gateway", ["--pd-disaggregation", "--service-discovery-namespace=x", "--host"],
     [("spec.router.extraArgs[0]", "--pd-disaggregation"),
      ("spec.router.extraArgs[1]", "--service-discovery-namespace"), ("spec.router.extraArgs[2]", "--host")]),
    # each router's catalog is its own: vllm-router's spelling is a plain argument to the gateway
    ("sglang", "sglang-gateway", ["--vllm-pd-disaggregation", "--kv-connector=x", "--policy=random"], []),
    ("vllm", "llm-d-router", ["--port=9000", "--selector=a"], []),
    ("vllm", "llm-d-router", ["--secure-serving=true"], [("spec.router.extraArgs[0]", "--secure-serving")]),
]


@pytest.mark.parametrize(("engine", "router", "args", "want"), ROUTER_FLAGS)
def test_router_owned_flags(engine: str, router: str, args: list[str], want: list[tuple[str, str]]) -> None:
    got = params(per_replica(engine, {"name": router, "extraArgs": args}), ("PD310",))
    assert got == [("PD310", path, {"flag": flag, "router": router}) for path, flag in want]


def _ports(obj: dict[str, Any], i: int, *ports: int) -> dict[str, Any]:
    obj["spec"]["roles"][i]["ports"] = [{"port": p} for p in ports]
    return obj


RESERVED = [
    # (case, object, [(path, params)]); gpustack-operator webhook modelDeploymentRouterReservedPorts
    ("vllm llm-d prefill: events and bootstrap", _ports(per_replica("vllm", {"name": "llm-d-router"}), 0, 5557),
     [("spec.roles[0].ports[0].port", {"role": "prefill", "port": 5557, "reserved": [5557, 5558, 8998],
                                       "engine": "vllm", "router": "llm-d-router"})]),
    ("vllm llm-d prefill --port on the replay socket",
     per_replica("vllm", {"name": "llm-d-router"}, prefill_args=["--port", "5558"]),
     [("spec.roles[0].extraArgs[0]", {"role": "prefill", "port": 5558, "reserved": [5557, 5558, 8998],
                                      "engine": "vllm", "router": "llm-d-router"})]),
    ("vllm llm-d decode publishes no events", _ports(per_replica("vllm", {"name": "llm-d-router"}), 1, 5557), []),
    ("vllm-router prefill: bootstrap only", _ports(per_replica("vllm", {"name": "vllm-router"}), 0, 5557, 8998),
     [("spec.roles[0].ports[1].port", {"role": "prefill", "port": 8998, "reserved": [8998],
                                       "engine": "vllm", "router": "vllm-router"})]),
    ("vllm without a router reserves nothing", _ports(per_replica("vllm"), 0, 8998), []),
    ("sglang pair with a router", _ports(per_replica("sglang", {"name": "sglang-gateway"}), 0, 8998),
     [("spec.roles[0].ports[0].port", {"role": "prefill", "port": 8998, "reserved": [8998],
                                       "engine": "sglang", "router": "sglang-gateway"})]),
    ("sglang pair, no router, no kvCache", _ports(per_replica("sglang"), 0, 8998), []),
]


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in RESERVED], ids=[c[0] for c in RESERVED])
def test_reserved_ports(obj: dict[str, Any], want: list[tuple[str, dict[str, Any]]]) -> None:
    assert params(obj, ("PD312",)) == [("PD312", path, p) for path, p in want]


def test_reserved_port_sglang_with_a_kv_cache_and_no_router() -> None:
    obj = _ports(per_replica("sglang"), 0, 8998)
    obj["spec"]["kvCache"] = {"poolRef": {"name": "dram"}}
    assert params(obj, ("PD312",)) == [("PD312", "spec.roles[0].ports[0].port", {
        "role": "prefill", "port": 8998, "reserved": [8998], "engine": "sglang", "router": None})]


def test_take_over_role_reserves_nothing() -> None:
    obj = _ports(per_replica("vllm", {"name": "llm-d-router"}), 0, 5557)
    obj["spec"]["roles"][0]["command"] = ["vllm", "serve"]
    assert params(obj, ("PD312",)) == []


DECODE_PORT = [
    # (case, router, decode extraArgs, decode declared ports, [(path, params)])
    ("decode pins the serving port", "llm-d-router", ["--port", "8000"], [],
     [("spec.roles[1].extraArgs[0]", {"role": "decode", "port": 8000, "router": "llm-d-router"})]),
    ("decode pins its declared port", "llm-d-router", ["--max-num-seqs=4", "--port=8200"], [8200],
     [("spec.roles[1].extraArgs[1]", {"role": "decode", "port": 8200, "router": "llm-d-router"})]),
    ("decode's --port off its declared port", "llm-d-router", ["--port=8201"], [8200], []),
    ("no --port: the operator places it", "llm-d-router", [], [], []),
    ("vllm-router renders no proxy", "vllm-router", ["--port", "8000"], [], []),
]


@pytest.mark.parametrize(("router", "args", "declared", "want"), [c[1:] for c in DECODE_PORT],
                         ids=[c[0] for c in DECODE_PORT])
def test_decode_port_collision(router: str, args: list[str], declared: list[int],
                               want: list[tuple[str, dict[str, Any]]]) -> None:
    obj = _ports(per_replica("vllm", {"name": router}, decode_args=args), 1, *declared)
    assert params(obj, ("PD313",)) == [("PD313", path, p) for path, p in want]


def test_declared_port_is_the_serving_port() -> None:
    """PD309 compares the ports roles' Services publish: a declared port wins over the default."""
    obj = _ports(per_replica("vllm", {"name": "llm-d-router"}), 1, 9000)
    assert params(obj, ("PD309",)) == [("PD309", "spec.roles", {"router": "llm-d-router",
                                                                 "ports": {"prefill": 8000, "decode": 9000}})]


PARAMS = [
    ("PD307", per_replica(), {"roles": ["prefill", "decode"]}),
    ("PD308", per_replica("sglang", {"name": "vllm-router"}),
     {"router": "vllm-router", "engine": "sglang", "fronts": ["vllm"]}),
    ("PD311", per_replica("vllm", {"name": "llm-d-router"}, prefill_args=["--kv-events-config={}"]),
     {"key": "--kv-events-config", "engine": "vllm"}),
]


@pytest.mark.parametrize(("rule", "obj", "want"), PARAMS, ids=[p[0] for p in PARAMS])
def test_params_carry_the_evidence(rule: str, obj: dict[str, Any], want: dict[str, Any]) -> None:
    assert [p for _, _, p in params(obj, (rule,))] == [want]


def test_params_in_json_output(cli: Any, tmp_path: Any) -> None:
    import json

    import yaml

    obj = _ports(per_replica("vllm", {"name": "llm-d-router"}), 0, 8998)
    f = tmp_path / "md.yaml"
    f.write_text(yaml.safe_dump(obj))
    res = cli(["lint", "-f", str(f), "--api-profile", "per-replica", "-o", "json"])
    [got] = [x for x in json.loads(res.stdout)["findings"] if x["id"] == "PD312"]
    assert got["params"] == {"role": "prefill", "port": 8998, "reserved": [5557, 5558, 8998],
                             "engine": "vllm", "router": "llm-d-router"}
