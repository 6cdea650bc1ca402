"""PD307-PD310: how a prefill/decode deployment is paired and fronted (gpustack-modeldeployment.md §1.2, §1.8).

Per-replica API only: a router (`spec.router`) is what pairs prefill with decode; it must be able to
front the engine (`vllm-router` only vLLM, `sglang-gateway` only SGLang, `llm-d-router` both), and
every routed role must serve one common port. Each finding carries its evidence (kinds, names, ports).
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_pd.gpustack.roles import PER_REPLICA
from kubectl_pd.lint.findings import Finding, ObjectRef

Obj = dict[str, Any]
ROUTER_ENGINES = {"llm-d-router": {"vllm", "sglang"}, "vllm-router": {"vllm"}, "sglang-gateway": {"sglang"}}
# router flags the operator derives itself, refused in spec.router.extraArgs (gpustack-operator docs,
# "The router block"); only llm-d-router's catalog is written out there, so only it is checked
OWNED_ROUTER_FLAGS = {"llm-d-router": ("--endpoint-selector", "--endpoint-target-ports", "--config-file",
                                       "--secure-serving", "--grpc-health-port", "--metrics-endpoint-auth")}
DEFAULT_PORT = 8000  # the operator's serving port when a role does not pass --port
_PORT_RE = re.compile(r"^--port(?:=(\d+))?$")


def _engine_name(spec: Obj) -> str | None:
    engine = spec.get("engine")
    name = engine.get("name") if isinstance(engine, dict) else engine
    return name.lower() if isinstance(name, str) and name else None


def serving_port(role: Obj) -> int | None:
    """The port a role serves on: `--port N` in extraArgs, else the operator's default; None if unreadable."""
    args = role.get("extraArgs")
    args = args if isinstance(args, list) else []
    for i, a in enumerate(args):
        m = _PORT_RE.match(str(a))
        if not m:
            continue
        value = m.group(1) or (str(args[i + 1]) if i + 1 < len(args) else "")
        return int(value) if value.isdigit() else None
    return DEFAULT_PORT


def check_pd_routing(spec: Any, ref: ObjectRef, profile: str) -> list[Finding]:
    if profile != PER_REPLICA or not isinstance(spec, dict):
        return []
    roles = [r for r in spec.get("roles") or [] if isinstance(r, dict)] if isinstance(spec.get("roles"), list) else []
    out: list[Finding] = []
    router = spec.get("router")
    pd = [f"{r.get('name')} ({r.get('kind')})" for r in roles
          if str(r.get("kind", "")).lower() in ("prefill", "decode")]
    if router is None:
        if pd:
            out.append(Finding("PD307", ref, ("spec", "router"),
                               f"roles {', '.join(pd)} are prefill/decode but spec.router is not set: nothing "
                               "pairs them, so the deployment can go Ready and never exchange a KV block; add "
                               "spec.router (llm-d-router fronts vLLM and SGLang)"))
        return out
    if not isinstance(router, dict):
        return out
    name = router.get("name")
    engine = _engine_name(spec)
    allowed = ROUTER_ENGINES.get(str(name))
    if allowed is not None and engine is not None and engine not in allowed:
        out.append(Finding("PD308", ref, ("spec", "router", "name"),
                           f'Invalid value: "{name}": {name} fronts only {", ".join(sorted(allowed))}, and '
                           f'spec.engine is {engine}; use llm-d-router, or the router of {engine}'))
    if router.get("disaggregationThresholdTokens") is not None and name != "llm-d-router":
        out.append(Finding("PD308", ref, ("spec", "router", "disaggregationThresholdTokens"),
                           f"disaggregationThresholdTokens is only legal with llm-d-router (router is {name})"))
    args = router.get("extraArgs")
    for k, a in enumerate(args if isinstance(args, list) else []):
        flag = str(a).split("=", 1)[0]
        if flag in OWNED_ROUTER_FLAGS.get(str(name), ()):
            out.append(Finding("PD310", ref, ("spec", "router", "extraArgs", k),
                               f'Forbidden: "{flag}" is derived by the operator for {name}: it is refused rather '
                               f"than merged, so the setting has one source; remove it from spec.router.extraArgs"))
    ports = {str(r.get("name")): serving_port(r) for r in roles if not r.get("command")}
    known = {n: p for n, p in ports.items() if p is not None}
    if len(set(known.values())) > 1:
        shown = ", ".join(f"{n}: {p}" for n, p in known.items())
        out.append(Finding("PD309", ref, ("spec", "roles"),
                           f"under router {name} every routed role serves one common port, and these differ "
                           f"({shown}; {DEFAULT_PORT} when extraArgs has no --port)"))
    for i, r in enumerate(roles):
        for j, p in enumerate(r.get("ports") or [] if isinstance(r.get("ports"), list) else []):
            proto = p.get("protocol", "TCP") if isinstance(p, dict) else "TCP"
            if proto != "TCP":
                out.append(Finding("PD309", ref, ("spec", "roles", i, "ports", j, "protocol"),
                                   f'Unsupported value: "{proto}": under router {name} routed roles serve TCP'))
    return out


# (engine -> keys) the operator renders itself and refuses in roles[].extraArgs / roles[].env
# (gpustack-operator docs/reference/model-deployment.md, "What the operator owns"); per engine, not per prefix
OWNED_ARGS = {"vllm": ("--kv-transfer-config", "--kv-events-config"),
              "sglang": ("--hicache-storage-backend", "--hicache-storage-backend-extra-config")}
OWNED_ENV = {"vllm": ("MOONCAKE_CONFIG_PATH", "VLLM_MOONCAKE_BOOTSTRAP_PORT"),
             "sglang": ("SGLANG_HICACHE_MOONCAKE_CONFIG_PATH", "MOONCAKE_MASTER", "MOONCAKE_TE_META_DATA_SERVER",
                        "MOONCAKE_PROTOCOL", "MOONCAKE_DEVICE", "MOONCAKE_GLOBAL_SEGMENT_SIZE",
                        "MOONCAKE_LOCAL_HOSTNAME", "MOONCAKE_TENANT_ID")}


def check_owned_keys(spec: Any, ref: ObjectRef) -> list[Finding]:
    """PD311: an operator-owned engine flag in extraArgs, or owned variable in env, of a managed role."""
    if not isinstance(spec, dict):
        return []
    engine = _engine_name(spec)
    if engine not in OWNED_ARGS:
        return []
    out: list[Finding] = []
    roles = spec.get("roles") if isinstance(spec.get("roles"), list) else []
    for i, r in enumerate(roles):
        if not isinstance(r, dict) or r.get("command"):
            continue  # a take-over role owns its whole argv: extraArgs is not read
        args = r.get("extraArgs") if isinstance(r.get("extraArgs"), list) else []
        for k, a in enumerate(args):
            flag = str(a).split("=", 1)[0]
            if flag in OWNED_ARGS[engine]:
                out.append(Finding("PD311", ref, ("spec", "roles", i, "extraArgs", k),
                                   f'Forbidden: "{flag}" is owned by the operator for engine {engine}: it renders '
                                   f"it and refuses a second value; to own it, take over the command line "
                                   f"(spec.roles[{i}].command)"))
        env = r.get("env") if isinstance(r.get("env"), list) else []
        for k, e in enumerate(env):
            name = e.get("name") if isinstance(e, dict) else None
            if name in OWNED_ENV[engine]:
                out.append(Finding("PD311", ref, ("spec", "roles", i, "env", k, "name"),
                                   f'Forbidden: "{name}" is owned by the operator for engine {engine}: it renders '
                                   f"it and refuses a second value; to own it, take over the command line "
                                   f"(spec.roles[{i}].command)"))
    return out
