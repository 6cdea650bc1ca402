"""PD307-PD309: prefill/decode pairing and routing under the per-replica API
(reference/gpustack-modeldeployment.md §1.2 engine/router pairing, §1.8 rule 10)."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA
from kubectl_pd.lint.context import LintContext
from tests.test_lint_rules import md, role, run


def per_replica(engine: Any = "vllm", router: dict[str, Any] | None = None,
                prefill_args: list[str] | None = None, decode_args: list[str] | None = None) -> dict[str, Any]:
    obj = md([role("prefill", extraArgs=prefill_args or []), role("decode", "decode", extraArgs=decode_args or [])])
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
