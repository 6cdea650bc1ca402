"""`--role name=N,kind=K,...` strings to role specs, and every check that needs no cluster.

Two kinds of failure, kept apart on purpose: malformed flag *syntax* (a segment with no `=`, an
unknown or repeated key) is a usage error (exit 2, raised as RoleSyntaxError); a well-formed flag
whose *value* breaks a rule (a name Kueue cannot use, `replicas=two`, two prefill roles) is a
validation problem (exit 1), reported with the field, the value and the rule.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kubectl_pd.gpustack.profiles import ApiProfile
from kubectl_pd.gpustack.roles import PD_ATOMIC, PER_REPLICA, RoleProblem, topology_level_problem, validate_roles

ROLE_KEYS = ("name", "kind", "replicas", "instance-type", "accelerator", "accelerator-key", "size", "image", "arg",
             "accelerator-type", "topology")
KIND_WORDS = ("server", "prefill", "decode")
TARGETS = ("modeldeployment", "pods", "lws", "disaggregatedset")
# the targets whose Pods kubectl-pd writes itself (a pod group, or a framework's templates): a --local-queue, an
# image per role, a resource a card requests
POD_TARGETS = ("pods", "lws", "disaggregatedset")
FRAMEWORK_TARGETS = ("lws", "disaggregatedset")  # create/frameworks.py renders them

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
# ASCII digits only: Python's int() also takes '٣' (Arabic-Indic three); Kubernetes does not
_INT = re.compile(r"-?[0-9]{1,30}")

INT32_MAX = 2**31 - 1
# A Kueue Workload has at most 10 pod sets (one per role) of int32 pods each (kueue v0.18
# apis/kueue/v1beta2/workload_types.go: podSets MaxItems=10, PodSet.count int32). Kubernetes is
# tested to 150,000 Pods in a whole cluster (kubernetes.io/docs/setup/best-practices/cluster-large):
# one pod group beyond that can never run, and rendering it would take minutes and gigabytes.
MAX_GROUP_PODS = 150_000


class RoleSyntaxError(ValueError):
    """A `--role` value that is not `key=value[,key=value...]` with known keys."""


# The value types below are NamedTuples, not frozen dataclasses: `create --dry-run=client` is on the
# startup budget (issue 12), and a dataclass costs about 2 ms to define, a NamedTuple 0.3 ms.


class RoleSpec(NamedTuple):
    """One role as typed: values are kept as text so validation can quote them."""

    name: str | None = None
    kind: str | None = None
    replicas: str | None = None
    instance_type: str | None = None
    accelerator: str | None = None
    accelerator_key: str | None = None
    size: str | None = None
    image: str | None = None
    args: tuple[str, ...] = ()
    flag: str = ""  # how the user gave it, for messages: `--role name=p,...` or `--prefill 2`
    accelerator_type: str | None = None  # v1 (GPUStack v0.11.2): the pool named by accelerator type
    topology: str | None = None  # v1: roles[].topology.requiredLevel, a node label key


_ATTR = {"instance-type": "instance_type", "accelerator-key": "accelerator_key", "accelerator-type": "accelerator_type"}


def parse_role(text: str) -> RoleSpec:
    """Parse one `--role` value. Commas inside an `arg=` value are kept unless a known `key=` follows."""
    if not text.strip():
        raise RoleSyntaxError("empty role: expected name=N[,kind=K][,replicas=R]...")
    values: dict[str, str] = {}
    args: list[str] = []
    last = ""
    for seg in text.split(","):
        key, eq, value = seg.partition("=")
        key = key.strip()
        if eq and key in ROLE_KEYS:
            if key == "arg":
                args.append(value)
            elif key in values:
                raise RoleSyntaxError(f"{key}= is given twice in {text!r}")
            else:
                values[key] = value.strip()
            last = key
            continue
        if last == "arg":  # `arg=--x=a,b`: the comma belonged to the argument
            args[-1] += "," + seg
            continue
        if not eq:
            raise RoleSyntaxError(f"{seg!r} in {text!r} is not key=value (keys: {', '.join(ROLE_KEYS)})")
        raise RoleSyntaxError(f"unknown key {key!r} in {text!r} (keys: {', '.join(ROLE_KEYS)})")
    kwargs = {_ATTR.get(k, k): v for k, v in values.items()}
    return RoleSpec(**kwargs, args=tuple(args), flag=_flag_text(f"--role {text}"))


def shortcut_role(kind: str, replicas: str) -> RoleSpec:
    """`--prefill R` / `--decode R`: a role named and kinded so."""
    return RoleSpec(name=kind, kind=kind, replicas=replicas, flag=_flag_text(f"--{kind} {replicas}"))


def complete_role(incomplete: str, kinds: tuple[str, ...] = KIND_WORDS) -> list[str]:
    """Shell completions for a partly typed `--role` value: the keys, and the kinds after `kind=`."""
    head, sep, last = incomplete.rpartition(",")
    prefix = head + sep
    used = {seg.partition("=")[0] for seg in head.split(",") if "=" in seg} if head else set()
    key, eq, value = last.partition("=")
    if eq:
        if key == "kind":
            return [f"{prefix}kind={k}" for k in kinds if k.startswith(value)]
        return []
    return [f"{prefix}{k}=" for k in ROLE_KEYS if k.startswith(last) and (k == "arg" or k not in used)]


class CreateRequest(NamedTuple):
    """Everything the flags say, before any rule is applied."""

    name: str
    namespace: str
    model: str
    engine: str = "vllm"
    engine_version: str | None = None
    roles: tuple[RoleSpec, ...] = ()
    instance_type: str | None = None
    kv_cache_pool: str | None = None
    router: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    target: str = "modeldeployment"
    local_queue: str | None = None
    accelerator_type: str | None = None  # --accelerator-type: for roles that name no pool
    topology_level: str | None = None  # --required-topology: for roles that name no level
    engine_image: str | None = None  # --engine-image: spec.engine.image (the v1 API's runner image)
    resource: str | None = None  # --resource: what one card of a --target pods Pod requests
    priority_class: str | None = None  # --priority-class: Kueue's WorkloadPriorityClass of the Pods


class Role(NamedTuple):
    """A validated role with typed values (kind lowercase; the profile spells it)."""

    name: str
    kind: str
    replicas: int
    instance_type: str | None
    accelerator: int
    accelerator_key: str | None
    size: int | None
    image: str | None
    args: tuple[str, ...]
    flag: str
    kind_given: bool = False
    accelerator_given: bool = False
    accelerator_type: str | None = None
    topology: str | None = None

    @property
    def pods(self) -> int:
        return self.replicas * (self.size or 1)


class Checked:
    """The typed roles and every problem found; filled in by check_request."""

    def __init__(self) -> None:
        self.roles: list[Role] = []
        self.problems: list[str] = []


def _number(value: str | None, default: int) -> int | None:
    """A whole number as typed (a sign allowed, ASCII digits only), else None."""
    if value is None:
        return default
    v = value.strip()
    return int(v) if _INT.fullmatch(v) else None


def _plain(value: str) -> bool:
    """Text the shared role rules may quote and convert: ASCII, and short enough for int()."""
    return value.isascii() and len(value) <= 30


def _role_prefix(spec: RoleSpec) -> str:
    return f"{spec.flag}: " if spec.flag else ""


def _flag_text(text: str) -> str:
    """The flag as typed, for messages: control characters escaped (one line, no terminal codes), a
    flood of characters cut."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    return text if len(text) <= 120 else text[:100] + f"... ({len(text):,} characters)"


def _quote(value: str) -> str:
    """A value as typed, or its length when quoting it would flood the terminal."""
    return repr(value) if len(value) <= 40 else f"({len(value):,} characters)"


def all_role_specs(roles: tuple[RoleSpec, ...], prefill: str | None, decode: str | None) -> tuple[RoleSpec, ...]:
    out = list(roles)
    if prefill is not None:
        out.append(shortcut_role("prefill", prefill))
    if decode is not None:
        out.append(shortcut_role("decode", decode))
    return tuple(out)


def _api_role(spec: RoleSpec, default_it: str | None) -> dict[str, object]:
    """The role as the API would carry it, for the shared role rules."""
    role: dict[str, object] = {"name": spec.name}
    if spec.kind is not None:
        role["kind"] = spec.kind
    if spec.replicas is not None:
        v = spec.replicas.strip()
        # refused by check_request with its own message (not ASCII, too long): 1 keeps the role rules quiet
        role["replicas"] = int(v) if _INT.fullmatch(v) else (spec.replicas if _plain(v) else 1)
    it = spec.instance_type or default_it
    if it:
        role["instanceType"] = it
    if spec.accelerator_key is not None:
        role["acceleratorKey"] = spec.accelerator_key
    return role


def _describe(problems: list[RoleProblem], specs: tuple[RoleSpec, ...]) -> list[str]:
    out = []
    for p in problems:
        idx = p.path[2] if len(p.path) > 2 and isinstance(p.path[2], int) else None
        prefix = _role_prefix(specs[idx]) if idx is not None and idx < len(specs) else ""
        out.append(f"{prefix}{p.message} [rule {p.rule}]")
    return out


def check_request(req: CreateRequest) -> Checked:
    """Every rule that holds whatever the cluster's API version: before any request is sent."""
    out = Checked()
    out.problems += _request_names(req)
    specs = req.roles
    if not specs:
        out.problems.append("no roles: give --role name=N,kind=K,replicas=R (repeatable), or --prefill R and "
                            "--decode R [rule roles-count]")
        return out
    api_roles = [_api_role(s, req.instance_type) for s in specs]
    out.problems += _describe(validate_roles({"roles": api_roles}, PER_REPLICA), specs)
    for i, s in enumerate(specs):
        problems, role = _check_role(req, i, s, api_roles[i].get("replicas", 1))
        out.problems += problems
        if role is not None:
            out.roles.append(role)
    out.problems += _shared_pool_without_cards(out.roles)
    for k, _ in req.env:
        if not _ENV_NAME.match(k):
            out.problems.append(f"--env {k!r}: an environment variable name is letters, digits, '_', '-' and '.', "
                                f"not starting with a digit [rule env]")
    if req.target not in TARGETS:
        out.problems.append(f"--target {req.target!r} is not one of {', '.join(TARGETS)} [rule target]")
    return out


def _request_names(req: CreateRequest) -> list[str]:
    """NAME and --model: the object's name and the model's."""
    problems: list[str] = []
    if len(req.name) > 253 or not _DNS_SUBDOMAIN.match(req.name):
        problems.append(
            f"NAME {req.name!r} must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', "
            f"starting and ending with a letter or digit, at most 253 characters [rule name]")
    if not req.model or len(req.model) > 253:
        problems.append(f"--model {req.model!r}: spec.model.name must be 1 to 253 characters [rule model]")
    return problems


def _check_role(req: CreateRequest, i: int, s: RoleSpec, n: object) -> tuple[list[str], Role | None]:
    """The rules of one role the shared role rules do not hold, and the typed role when every value reads
    (`n`: its replicas as the shared rules read them)."""
    pre = _role_prefix(s)
    problems: list[str] = []
    replicas_ok = s.replicas is None or _plain(s.replicas.strip())
    if s.replicas is not None and not replicas_ok:
        problems.append(f"{pre}spec.roles[{i}].replicas {_quote(s.replicas)} is not a whole number of at most "
                        f"{INT32_MAX:,}, in the digits 0-9 [rule numbers]")
    acc, acc_problems = _accelerator(pre, i, s.accelerator)
    size, size_problems = _size(pre, i, s.size)
    problems += acc_problems + size_problems
    it, at = _pool(s, req)
    if s.instance_type and s.accelerator_type:
        problems.append(f"{pre}instance-type= and accelerator-type= both name the role's pool: give one "
                        f"[rule instance-type]")
    elif not it and not at and not (req.target in POD_TARGETS and req.local_queue):
        problems.append(f"{pre}spec.roles[{i}].instanceType is required: give instance-type= in the role "
                        f"or --instance-type for every role (or accelerator-type= / --accelerator-type where the "
                        f"API has roles[].acceleratorType) [rule instance-type]")
    problems += _accelerator_type(pre, i, at)
    topology = s.topology if s.topology is not None else req.topology_level
    problems += _topology(pre, i, topology)
    if s.image is not None and not (0 < len(s.image) <= 512):
        problems.append(f"{pre}spec.roles[{i}].image {s.image!r} must be 1 to 512 characters [rule image]")
    if not (replicas_ok and isinstance(n, int) and n >= 1 and acc is not None and size is not None
            and isinstance(s.name, str) and s.name):
        return problems, None
    return problems, Role(
        name=s.name, kind=(s.kind or "server").lower(), replicas=n, instance_type=it or None,
        accelerator=acc, accelerator_key=s.accelerator_key, size=size if s.size is not None else None,
        image=s.image, args=s.args, flag=s.flag, kind_given=s.kind is not None,
        accelerator_given=s.accelerator is not None, accelerator_type=at or None, topology=topology or None)


def _accelerator_type(pre: str, i: int, at: str | None) -> list[str]:
    """roles[].acceleratorType names an AcceleratorType, a cluster object (GPUStack v0.11.2 docs: the value is its
    name, e.g. gpustack--nvidia-a10g-linux-amd64), so it is an object name: a DNS-1123 subdomain."""
    if not at or (len(at) <= 253 and _DNS_SUBDOMAIN.match(at)):
        return []
    return [f"{pre}spec.roles[{i}].acceleratorType {at!r} names an AcceleratorType, so it must be an object name "
            f"(a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters), e.g. "
            f"gpustack--nvidia-h20-linux-amd64; see `kubectl get acceleratortypes` [rule accelerator-type]"]


def _pool(s: RoleSpec, req: CreateRequest) -> tuple[str | None, str | None]:
    """The role's (instanceType, acceleratorType): its own, else the request's; a role naming one of them
    takes neither default for the other."""
    if s.instance_type or s.accelerator_type:
        return s.instance_type, s.accelerator_type
    if req.instance_type:
        return req.instance_type, None
    return None, req.accelerator_type


def _topology(pre: str, i: int, level: str | None) -> list[str]:
    """topology.requiredLevel: the shared role rule (gpustack.roles.topology_level_problem)."""
    why = topology_level_problem(level)
    if why is None:
        return []
    return [f"{pre}spec.roles[{i}].topology.requiredLevel {_quote(level or '')}: {why} [rule topology]"]


def _accelerator(pre: str, i: int, value: str | None) -> tuple[int | None, list[str]]:
    """accelerator= as a whole number of cards per Pod (1 when not given), or None with the problem."""
    acc = _number(value, 1)
    if acc is None and value is not None:
        return None, [f"{pre}spec.roles[{i}].resources.accelerator {_quote(value)} is not a number: "
                      f"accelerator is a whole number of cards per Pod, digits 0-9 [rule numbers]"]
    if acc is not None and acc < 0:
        return None, [f"{pre}spec.roles[{i}].resources.accelerator is {acc}: must be at least 0 [rule accelerator]"]
    return acc, []


def _size(pre: str, i: int, value: str | None) -> tuple[int | None, list[str]]:
    """size= as a whole number of Pods per replica (1 when not given), and any problem with it."""
    size = _number(value, 1)
    if size is None and value is not None:
        return None, [f"{pre}spec.roles[{i}].size {_quote(value)} is not a number: size is a whole number "
                      f"of Pods per replica, at least 1, digits 0-9 [rule numbers]"]
    if size is not None and value is not None and size < 1:
        return size, [f"{pre}spec.roles[{i}].size is {size}: a replica has at least 1 Pod [rule size]"]
    return size, []


def _shared_pool_without_cards(roles: list[Role]) -> list[str]:
    """An explicit 0 is refused when another role shares the same instanceType (webhook rule, §1.4)."""
    return [f"{r.flag}: resources.accelerator=0 on instanceType {r.instance_type!r} shared with "
            f"another role: a role without cards on a shared accelerated pool runs uncharged "
            f"[rule accelerator]"
            for r in roles
            if r.accelerator == 0 and r.instance_type and sum(o.instance_type == r.instance_type for o in roles) > 1]


def group_size_rule(roles: list[Role]) -> list[str]:
    """Refuse, before anything is rendered, a pod group Kueue cannot count or no cluster can hold."""
    problems = [f"{r.flag}: {r.replicas:,} replicas x {r.size or 1} Pods is {r.pods:,} Pods in one pod set: "
                f"Kueue counts a pod set in an int32 (at most {INT32_MAX:,}) [rule replicas]"
                for r in roles if r.pods > INT32_MAX]
    total = sum(r.pods for r in roles)
    if not problems and total > MAX_GROUP_PODS:
        problems.append(f"the roles add up to {total:,} Pods in one pod group: Kubernetes supports at most "
                        f"{MAX_GROUP_PODS:,} Pods in a whole cluster, so Kueue could never admit it [rule replicas]")
    return problems


def check_profile(req: CreateRequest, roles: list[Role], profile: ApiProfile) -> list[str]:
    """Rules of one API version: fields it cannot hold are refused by name, never dropped."""
    where = f"the ModelDeployment API {profile.describe()} ({profile.source})"
    problems = _engine_rules(req, roles, profile, where)
    problems += _kv_cache_rules(req, profile, where)
    problems += _router_rules(req, profile, where)
    if req.env and not profile.has("env"):
        problems.append(_cannot(where, "--env", "spec.roles[].env"))
    for i, r in enumerate(roles):
        problems += _role_fields(i, r, profile, where)
        problems += _role_bounds(req, i, r, profile)
    if profile.name == PD_ATOMIC:
        problems += instance_type_rule(roles)
    return problems


def _cannot(where: str, what: str, fld: str, hint: str = "", prefix: str = "") -> str:
    """A flag whose field the API version does not have."""
    return f"{prefix}{where} has no {fld} field, so {what} cannot be written{hint} [rule api-field]"


def _engine_rules(req: CreateRequest, roles: list[Role], profile: ApiProfile, where: str) -> list[str]:
    """--engine and --engine-version against the version's engine field(s)."""
    problems: list[str] = []
    if profile.spell_engine(req.engine) is None:
        problems.append(f"--engine {req.engine!r}: spec.engine must be one of {', '.join(profile.engines)} "
                        f"in {where} [rule engine]")
    if req.engine_version is not None:
        if profile.engine_version_field is None:
            problems.append(_cannot(where, f"--engine-version {req.engine_version!r}", "engine version"))
        elif not 1 <= len(req.engine_version) <= 64:
            problems.append(f"--engine-version {req.engine_version!r} must be 1 to 64 characters [rule engine-version]")
    elif profile.engine_version_field is not None:
        imageless = [r.name for r in roles if r.image is None and req.engine_image is None]
        if profile.engine_version_required:
            problems.append(f"--engine-version is required: {where} requires spec.{profile.engine_version_field} "
                            f"[rule engine-version]")
        elif imageless:
            problems.append(f"--engine-version is required: role(s) {', '.join(imageless)} name no image, so the "
                            f"operator assembles one from engine, version and instanceType "
                            f"(spec.{profile.engine_version_field}) [rule engine-version]")
    return problems + _engine_image_rules(req, profile, where)


def _engine_image_rules(req: CreateRequest, profile: ApiProfile, where: str) -> list[str]:
    """--engine-image against spec.engine.image (GPUStack's v1 docs: the runner image, required)."""
    if req.engine_image is None:
        if profile.engine_image_required:
            return [f"--engine-image is required: {where} requires spec.{profile.engine_image_field} (the runner "
                    f"image the cluster can pull) [rule engine-image]"]
        return []
    if profile.engine_image_field is None:
        return [_cannot(where, f"--engine-image {req.engine_image!r}", "spec.engine.image")]
    if not 0 < len(req.engine_image) <= 512 or any(c.isspace() for c in req.engine_image):
        return [f"--engine-image {req.engine_image!r} must be 1 to 512 characters, no spaces [rule engine-image]"]
    return []


def _kv_cache_rules(req: CreateRequest, profile: ApiProfile, where: str) -> list[str]:
    """--kv-cache-pool against spec.kvCache."""
    problems: list[str] = []
    if req.kv_cache_pool is not None and not profile.kv_cache:
        problems.append(_cannot(where, f"--kv-cache-pool {req.kv_cache_pool!r}", "spec.kvCache"))
    if req.kv_cache_pool is None and profile.kv_cache_required:
        problems.append(f"--kv-cache-pool is required: {where} requires spec.kvCache.poolRef.name "
                        f"(a KVCachePoolBinding in the namespace) [rule kv-cache]")
    if req.kv_cache_pool is not None and not req.kv_cache_pool:
        problems.append("--kv-cache-pool '': spec.kvCache.poolRef.name must not be empty [rule kv-cache]")
    return problems


def _router_rules(req: CreateRequest, profile: ApiProfile, where: str) -> list[str]:
    """--router against spec.router, and the engines each router fronts."""
    if req.router is None:
        return []
    if profile.router_names is None:
        return [_cannot(where, f"--router {req.router!r}", "spec.router")]
    if profile.router_names and req.router not in profile.router_names:
        return [f"--router {req.router!r}: spec.router.name must be one of {', '.join(profile.router_names)} "
                f"[rule router]"]
    eng = req.engine.lower()
    if (req.router == "vllm-router" and eng != "vllm") or (req.router == "sglang-gateway" and eng != "sglang"):
        return [f"--router {req.router!r} cannot front engine {req.engine!r}: vllm-router fronts "
                f"vllm only, sglang-gateway sglang only, llm-d-router both [rule router]"]
    return []


def _role_fields(i: int, r: Role, profile: ApiProfile, where: str) -> list[str]:
    """Role values the version has no field for (or, for kind, no such value)."""
    pre = f"{r.flag}: "
    problems: list[str] = []
    if r.kind_given and not profile.has("kind") and r.kind != "server":
        problems.append(_cannot(where, f"kind={r.kind}", "spec.roles[].kind", prefix=pre))
    elif profile.kinds and profile.spell_kind(r.kind) is None:
        problems.append(f"{pre}spec.roles[{i}].kind {r.kind!r} is not one of {', '.join(profile.kinds)} "
                        f"in {where} [rule role-kind]")
    if r.accelerator_key is not None and not profile.has("acceleratorKey"):
        problems.append(_cannot(where, f"accelerator-key={r.accelerator_key}", "spec.roles[].acceleratorKey",
                                " (it was withdrawn; choose the hardware with instance-type=)", prefix=pre))
    if r.size is not None and not profile.has("size"):
        problems.append(_cannot(where, f"size={r.size}", "spec.roles[].size",
                                " (in the seed's design a replica is one Pod)", prefix=pre))
    if r.image is not None and profile.image_path is None:
        problems.append(_cannot(where, f"image={r.image}", "role image", prefix=pre))
    if r.args and not profile.has("extraArgs"):
        problems.append(_cannot(where, "arg=", "spec.roles[].extraArgs", prefix=pre))
    if r.accelerator_given and not profile.has("resources"):
        problems.append(_cannot(where, f"accelerator={r.accelerator}", "spec.roles[].resources", prefix=pre))
    if r.accelerator_type is not None and not profile.has("acceleratorType"):
        problems.append(_cannot(where, f"accelerator-type={r.accelerator_type}", "spec.roles[].acceleratorType",
                                " (it came with GPUStack v0.11.2's v1 API; name the pool with instance-type=)",
                                prefix=pre))
    if r.topology is not None and not profile.has("topology"):
        problems.append(_cannot(where, f"topology={r.topology}", "spec.roles[].topology", prefix=pre))
    return problems


def _role_bounds(req: CreateRequest, i: int, r: Role, profile: ApiProfile) -> list[str]:
    """replicas and size within the version's maxima (int32 at most), and the per-replica Service name."""
    pre = f"{r.flag}: "
    problems: list[str] = []
    # replicas and size are int32 in every version of the CRD, whatever maximum its schema states
    replicas_max = min(profile.replicas_max or INT32_MAX, INT32_MAX)
    if r.replicas > replicas_max:
        problems.append(f"{pre}spec.roles[{i}].replicas is {r.replicas}: at most {replicas_max} [rule replicas]")
    size_max = min(profile.size_max or INT32_MAX, INT32_MAX)
    if r.size is not None and r.size > size_max:
        problems.append(f"{pre}spec.roles[{i}].size is {r.size}: at most {size_max} [rule size]")
    if profile.name == PER_REPLICA:
        svc = f"{req.name}-{r.name}"
        if len(svc) > 63 or not _DNS_1035.match(svc):
            problems.append(f"{pre}the role Service name {svc!r} (<NAME>-<role>) must be a DNS-1035 label: "
                            f"at most 63 characters, starting with a letter [rule service-name]")
    return problems


def instance_type_rule(roles: list[Role]) -> list[str]:
    spec = {"roles": [{"name": r.name, "instanceType": r.instance_type} for r in roles]}
    found = [p for p in validate_roles(spec, PD_ATOMIC) if p.rule == "instance-type-mismatch"]
    out = []
    for p in found:
        idx = p.path[2] if isinstance(p.path[2], int) else 0
        out.append(f"{roles[idx].flag}: {p.message} [rule {p.rule}]")
    return out


def check_pods(req: CreateRequest, roles: list[Role]) -> list[str]:
    """`--target pods` renders the seed's one group: one Pod per replica, one queue, an image per role."""
    problems: list[str] = []
    for i, r in enumerate(roles):
        if r.image is None:
            problems.append(f"{r.flag}: spec.roles[{i}].image is required with --target pods: no operator "
                            f"assembles an image for plain Pods (image= on the role, or --engine-image for every "
                            f"role that names none) [rule image]")
        if r.size is not None and r.size != 1:
            problems.append(f"{r.flag}: size={r.size}: the seed's pod group has one Pod per replica "
                            f"(size belongs to the per-replica ModelDeployment) [rule api-field]")
    problems += group_size_rule(roles)
    if req.router is not None:
        problems.append("--router: plain Pods have no router; use --target modeldeployment [rule api-field]")
    if req.kv_cache_pool is not None:
        problems.append("--kv-cache-pool: plain Pods attach no KV cache pool; use --target modeldeployment "
                        "[rule api-field]")
    if not req.local_queue:
        problems += instance_type_rule(roles)
    return problems
