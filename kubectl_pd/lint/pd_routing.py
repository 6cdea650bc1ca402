"""PD307-PD313: how a prefill/decode deployment is paired, fronted and given ports (gpustack-modeldeployment.md
§1.2, §1.7, §1.8 rule 10).

Per-replica API only: a router (`spec.router`) is what pairs prefill with decode; it must be able to
front the engine (`vllm-router` only vLLM, `sglang-gateway` only SGLang, `llm-d-router` both), every
routed role must serve one common port, a role may not take a port the operator reserves for a
listener it adds to that role, and a decode role behind llm-d-router may not pin its own `--port`.
Each finding carries its evidence in `Finding.extra` (the rule's params: roles, ports, flags).
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_pd.gpustack.roles import PER_REPLICA
from kubectl_pd.lint.findings import Finding, ObjectRef

Obj = dict[str, Any]
ROUTER_ENGINES = {"llm-d-router": {"vllm", "sglang"}, "vllm-router": {"vllm"}, "sglang-gateway": {"sglang"}}
# router flags the operator derives itself, refused in spec.router.extraArgs, keyed by router
# (gpustack-operator docs "The router block"; webhook modelDeploymentRouterOwnedArgs): llm-d-router is
# configured by a mounted document; the other two by their command line, so their catalogs name the bind
# addresses and ports, service discovery, and each project's spelling of the disaggregation switch
_ARGV_ROUTER_FLAGS = ("--host", "--port", "--prometheus-host", "--prometheus-port", "--service-discovery",
                      "--service-discovery-namespace", "--service-discovery-port", "--selector",
                      "--prefill-selector", "--decode-selector")
OWNED_ROUTER_FLAGS = {
    "llm-d-router": ("--endpoint-selector", "--endpoint-target-ports", "--config-file", "--secure-serving",
                     "--grpc-health-port", "--metrics-endpoint-auth"),
    "vllm-router": (*_ARGV_ROUTER_FLAGS, "--kv-connector", "--vllm-pd-disaggregation"),
    "sglang-gateway": (*_ARGV_ROUTER_FLAGS, "--pd-disaggregation"),
}
DEFAULT_PORT = 8000  # the operator's serving port when a role does not pass --port
# listeners the operator adds to a role (gpustack-operator inject constants): vLLM's KV-event publisher and
# its replay socket (llm-d-router only, not on a decoder), vLLM's Mooncake bootstrap server and SGLang's
# bootstrap registry (on the prefiller of a declared prefill/decode pair)
VLLM_KV_EVENTS_PORTS = (5557, 5558)
BOOTSTRAP_PORT = 8998
_PORT_RE = re.compile(r"^--port(?:=(.*))?$")


def _engine_name(spec: Obj) -> str | None:
    engine = spec.get("engine")
    name = engine.get("name") if isinstance(engine, dict) else engine
    return name.lower() if isinstance(name, str) and name else None


def _kind(role: Obj) -> str:
    kind = role.get("kind")
    return kind.lower() if isinstance(kind, str) and kind else "server"


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def port_flag(role: Obj) -> tuple[int, int | None] | None:
    """(index in extraArgs, value) of the role's `--port`; value None when unreadable; None when absent."""
    args = _list(role.get("extraArgs"))
    for i, a in enumerate(args):
        m = _PORT_RE.match(str(a))
        if not m:
            continue
        value = m.group(1) if m.group(1) is not None else (str(args[i + 1]) if i + 1 < len(args) else "")
        return i, int(value) if value.isdigit() else None
    return None


def declared_ports(role: Obj) -> list[tuple[int, int]]:
    """(index, port) of each integer `ports[].port` the role declares."""
    return [(j, p["port"]) for j, p in enumerate(_list(role.get("ports")))
            if isinstance(p, dict) and isinstance(p.get("port"), int) and not isinstance(p.get("port"), bool)]


def serving_port(role: Obj) -> int | None:
    """The port a role's Service publishes: its first declared port, else `--port N`, else the operator's default."""
    declared = declared_ports(role)
    if declared:
        return declared[0][1]
    flag = port_flag(role)
    return DEFAULT_PORT if flag is None else flag[1]


def reserved_ports(spec: Obj, role: Obj) -> tuple[int, ...]:
    """The ports the operator reserves on this role for listeners it adds (none on a take-over role)."""
    if role.get("command"):
        return ()
    kinds = {_kind(r) for r in _list(spec.get("roles")) if isinstance(r, dict)}
    pair = {"prefill", "decode"} <= kinds
    router = spec.get("router")
    name = router.get("name") if isinstance(router, dict) else None
    kind, engine = _kind(role), _engine_name(spec)
    out: tuple[int, ...] = ()
    if engine == "vllm" and router is not None:
        if name == "llm-d-router" and kind != "decode":
            out += VLLM_KV_EVENTS_PORTS
        if kind == "prefill" and pair:
            out += (BOOTSTRAP_PORT,)
    elif engine == "sglang" and kind == "prefill" and pair and (router is not None or spec.get("kvCache")):
        out += (BOOTSTRAP_PORT,)
    return out


def check_pd_routing(spec: Any, ref: ObjectRef, profile: str) -> list[Finding]:
    """PD307-PD310 of a per-replica ModelDeployment: a router for prefill/decode roles, and what it takes."""
    if profile != PER_REPLICA or not isinstance(spec, dict):
        return []
    roles = [r for r in _list(spec.get("roles")) if isinstance(r, dict)]
    out = check_reserved_ports(spec, ref, roles)
    router = spec.get("router")
    if router is None:
        return out + _no_router(roles, ref)
    if not isinstance(router, dict):
        return out
    name = router.get("name")
    out += _router_fields(spec, router, ref)
    out += _routed_ports(roles, ref, name)
    if name == "llm-d-router":
        out.extend(_decode_port_collisions(roles, ref, name))
    return out


def _no_router(roles: list[Obj], ref: ObjectRef) -> list[Finding]:
    """PD307: prefill/decode roles with nothing to pair them."""
    pd = [f"{r.get('name')} ({r.get('kind')})" for r in roles if _kind(r) in ("prefill", "decode")]
    if not pd:
        return []
    return [Finding("PD307", ref, ("spec", "router"),
                    f"roles {', '.join(pd)} are prefill/decode but spec.router is not set: nothing "
                    "pairs them, so the deployment can go Ready and never exchange a KV block; add "
                    "spec.router (llm-d-router fronts vLLM and SGLang)",
                    extra={"roles": [r.get("name") for r in roles if _kind(r) in ("prefill", "decode")]})]


def _router_fields(spec: Obj, router: Obj, ref: ObjectRef) -> list[Finding]:
    """PD308/PD310: the router's engine, its llm-d-only field, and flags the operator derives."""
    out: list[Finding] = []
    name = router.get("name")
    engine = _engine_name(spec)
    allowed = ROUTER_ENGINES.get(str(name))
    if allowed is not None and engine is not None and engine not in allowed:
        out.append(Finding("PD308", ref, ("spec", "router", "name"),
                           f'Invalid value: "{name}": {name} fronts only {", ".join(sorted(allowed))}, and '
                           f'spec.engine is {engine}; use llm-d-router, or the router of {engine}',
                           extra={"router": name, "engine": engine, "fronts": sorted(allowed)}))
    if router.get("disaggregationThresholdTokens") is not None and name != "llm-d-router":
        out.append(Finding("PD308", ref, ("spec", "router", "disaggregationThresholdTokens"),
                           f"disaggregationThresholdTokens is only legal with llm-d-router (router is {name})",
                           extra={"router": name, "field": "disaggregationThresholdTokens"}))
    for k, a in enumerate(_list(router.get("extraArgs"))):
        flag = str(a).split("=", 1)[0]
        if flag in OWNED_ROUTER_FLAGS.get(str(name), ()):
            out.append(Finding("PD310", ref, ("spec", "router", "extraArgs", k),
                               f'Forbidden: "{flag}" is derived by the operator for {name}: it is refused rather '
                               f"than merged, so the setting has one source; remove it from spec.router.extraArgs",
                               extra={"flag": flag, "router": name}))
    return out


def _routed_ports(roles: list[Obj], ref: ObjectRef, name: Any) -> list[Finding]:
    """PD309: routed roles serve one common port, over TCP."""
    out: list[Finding] = []
    ports = {str(r.get("name")): serving_port(r) for r in roles if not r.get("command")}
    known = {n: p for n, p in ports.items() if p is not None}
    if len(set(known.values())) > 1:
        shown = ", ".join(f"{n}: {p}" for n, p in known.items())
        out.append(Finding("PD309", ref, ("spec", "roles"),
                           f"under router {name} every routed role serves one common port, and these differ "
                           f"({shown}; a role serves its first declared port, else its --port, else {DEFAULT_PORT})",
                           extra={"router": name, "ports": known}))
    for i, r in enumerate(roles):
        for j, p in enumerate(_list(r.get("ports"))):
            proto = p.get("protocol", "TCP") if isinstance(p, dict) else "TCP"
            if proto != "TCP":
                out.append(Finding("PD309", ref, ("spec", "roles", i, "ports", j, "protocol"),
                                   f'Unsupported value: "{proto}": under router {name} routed roles serve TCP',
                                   extra={"router": name, "role": r.get("name"), "protocol": proto}))
    return out


def check_reserved_ports(spec: Obj, ref: ObjectRef, roles: list[Obj]) -> list[Finding]:
    """PD312: a declared port, or the `--port` a role serves on, that the operator reserves on that role."""
    out: list[Finding] = []
    router = spec.get("router")
    name = router.get("name") if isinstance(router, dict) else None
    engine = _engine_name(spec)
    for i, r in enumerate(roles):
        reserved = reserved_ports(spec, r)
        if not reserved:
            continue
        taken: list[tuple[tuple[str | int, ...], int]] = [
            (("spec", "roles", i, "ports", j, "port"), p) for j, p in declared_ports(r)]
        flag = port_flag(r)
        if flag is not None and flag[1] is not None:
            taken.append((("spec", "roles", i, "extraArgs", flag[0]), flag[1]))
        for path, port in taken:
            if port in reserved:
                under = f"engine {engine}" + (f" and router {name}" if name else "")
                out.append(Finding("PD312", ref, path,
                                   f"Invalid value: {port}: role {r.get('name')!r} takes port {port}, which the "
                                   f"operator reserves for a listener it adds to this role under {under} "
                                   f"(reserved here: {', '.join(map(str, reserved))}); pick another port",
                                   extra={"role": r.get("name"), "port": port, "reserved": list(reserved),
                                          "engine": engine, "router": name}))
    return out


def _decode_port_collisions(roles: list[Obj], ref: ObjectRef, router: str) -> list[Finding]:
    """PD313: a managed decode role behind llm-d-router that pins `--port` to the port its Service publishes."""
    out: list[Finding] = []
    for i, r in enumerate(roles):
        if _kind(r) != "decode" or r.get("command"):
            continue
        flag = port_flag(r)
        if flag is None or flag[1] is None or flag[1] != serving_port(r):
            continue
        out.append(Finding("PD313", ref, ("spec", "roles", i, "extraArgs", flag[0]),
                           f"Invalid value: {flag[1]}: decode role {r.get('name')!r} passes --port={flag[1]}, the "
                           f"port its Service publishes; behind {router} a routing proxy takes that port and the "
                           f"operator moves the model server off it, which a --port of the role's own prevents; "
                           f"remove --port",
                           extra={"role": r.get("name"), "port": flag[1], "router": router}))
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
    roles = _list(spec.get("roles"))
    for i, r in enumerate(roles):
        if not isinstance(r, dict) or r.get("command"):
            continue  # a take-over role owns its whole argv: extraArgs is not read
        args = _list(r.get("extraArgs"))
        for k, a in enumerate(args):
            flag = str(a).split("=", 1)[0]
            if flag in OWNED_ARGS[engine]:
                out.append(Finding("PD311", ref, ("spec", "roles", i, "extraArgs", k),
                                   f'Forbidden: "{flag}" is owned by the operator for engine {engine}: it renders '
                                   f"it and refuses a second value; to own it, take over the command line "
                                   f"(spec.roles[{i}].command)", extra={"key": flag, "engine": engine}))
        env = _list(r.get("env"))
        for k, e in enumerate(env):
            name = e.get("name") if isinstance(e, dict) else None
            if name in OWNED_ENV[engine]:
                out.append(Finding("PD311", ref, ("spec", "roles", i, "env", k, "name"),
                                   f'Forbidden: "{name}" is owned by the operator for engine {engine}: it renders '
                                   f"it and refuses a second value; to own it, take over the command line "
                                   f"(spec.roles[{i}].command)", extra={"key": name, "engine": engine}))
    return out
