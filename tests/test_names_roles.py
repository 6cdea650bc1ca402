from kubectl_pd.gpustack import names
from kubectl_pd.gpustack.roles import PER_REPLICA, validate_roles


def test_fnv1a64_known_vectors() -> None:
    # published FNV-1a 64 test vectors
    assert names.fnv1a64("") == 0xCBF29CE484222325
    assert names.fnv1a64("a") == 0xAF63DC4C8601EC8C
    assert names.fnv1a64("foobar") == 0x85944171F73967E8


def test_hashed_names() -> None:
    lq = names.local_queue_name("gpustack--nvidia-h20-linux-amd64")
    assert lq.startswith("gpustack-fnv64-") and len(lq) == 31
    assert names.pod_group_name("team-a", "qwen-pd") == "qwen-pd"
    hashed = names.pod_group_name("team-a", "Qwen_PD")
    assert hashed == names.hashed("team-a/Qwen_PD") and len(hashed) == 31


def _spec(*roles: dict) -> dict:
    return {"roles": list(roles)}


def test_valid_pd_pair() -> None:
    spec = _spec({"name": "prefill", "kind": "prefill", "replicas": 1, "instanceType": "it"},
                 {"name": "decode", "kind": "decode", "replicas": 2, "instanceType": "it",
                  "acceleratorKey": "nvidia-h20"})
    assert validate_roles(spec) == []


def test_each_rule() -> None:
    rules = lambda spec, profile="pd-atomic": [p.rule for p in validate_roles(spec, profile)]  # noqa: E731
    assert rules(_spec()) == ["roles-count"]
    assert rules(_spec(*({"name": f"r{i}"} for i in range(11)))) == ["roles-count"]
    assert rules(_spec({"name": "Bad_Name"})) == ["role-name"]
    assert rules(_spec({"name": "a" * 64})) == ["role-name"]
    assert rules(_spec({"name": "a"}, {"name": "a"})) == ["role-name"]
    assert rules(_spec({"name": "a", "kind": "router"})) == ["role-kind"]
    assert rules(_spec({"name": "a", "kind": "prefill"}, {"name": "b", "kind": "prefill"})) == ["role-kind"]
    assert rules(_spec({"name": "a", "kind": "server"}, {"name": "b", "kind": "decode"})) == ["role-kind"]
    assert rules(_spec({"name": "a", "replicas": 0})) == ["replicas"]
    assert rules(_spec({"name": "a", "replicas": "two"})) == ["replicas"]
    assert rules(_spec({"name": "a", "acceleratorKey": "h20"})) == ["accelerator-key"]
    two_types = _spec({"name": "a", "instanceType": "x"}, {"name": "b", "instanceType": "y"})
    assert rules(two_types) == ["instance-type-mismatch"]
    assert rules(two_types, PER_REPLICA) == []
    problem = validate_roles(two_types)[0]
    assert (problem.rule, problem.path) == ("instance-type-mismatch", ("spec", "roles", 1, "instanceType"))
    assert problem.message == ("spec.roles[1].instanceType 'y' differs from 'x': a Workload carries one queueName, so "
                               "roles on two instanceTypes (two queues) cannot be admitted atomically; keep every role "
                               "on one instanceType and choose hardware inside that pool with acceleratorKey")


def test_pascal_case_kinds_are_accepted() -> None:
    spec = _spec({"name": "p", "kind": "Prefill"}, {"name": "d", "kind": "Decode"})
    assert validate_roles(spec, PER_REPLICA) == []
