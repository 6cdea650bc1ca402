"""Every lint rule: a manifest that passes and one that fails, checked through the pure core."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_pd.cluster.snapshot import SnapshotSource, parse_documents
from kubectl_pd.lint.context import LintContext, Malformed
from kubectl_pd.lint.engine import LintResult, context_from, lint_objects
from kubectl_pd.lint.limits import LEGACY, limits_for, parse_version
from kubectl_pd.lint.rules import BY_NAME, RULES, all_rules, resolve
from tests.builders import (
    CREDITS,
    GPUSTACK_QUEUE_LABELS,
    deployment_role,
    flavor_quotas,
    gpustack_queue,
    pd_deployment,
    queue_of_groups,
    resource_group,
)


def run(*objs: dict[str, Any], ctx: LintContext | None = None) -> LintResult:
    objs_ = [copy.deepcopy(o) for o in objs]
    src = SnapshotSource.from_objects(objs_)
    all_objs = list(src.all_objects())
    return lint_objects(all_objs, context_from(all_objs, ctx or LintContext()), origin_of=src.origin)


def ids(result: LintResult) -> list[str]:
    return [f.rule_id for f in result.findings]


def only(result: LintResult, rule: str) -> list:
    return [f for f in result.findings if f.rule_id == rule]


# -- the registry ---------------------------------------------------------------------------------

def test_registry_is_complete_and_resolvable() -> None:
    assert [r.id for r in all_rules()] == [
        "PD101", "PD102", "PD103", "PD104", "PD105", "PD106", "PD107", "PD108", "PD109", "PD110", "PD111",
        "PD112", "PD113", "PD201", "PD202", "PD203", "PD301", "PD302", "PD303", "PD304", "PD305", "PD306",
        "PD307", "PD308", "PD309", "PD310", "PD311", "PD312", "PD313", "PD314", "PD315", "PD316", "PD317",
        "PD318", "PD319", "PD320", "PD321", "PD322", "PD401", "PD402", "PD403", "PD404",
        "PD405", "PD406",
        "PD407", "PD408", "PD409", "PD410", "PD411", "PD412", "PD413", "PD414", "PD415", "PD416", "PD501", "PD502"]
    for r in all_rules():
        assert r.summary and r.remediation and r.severity in ("error", "warning")
        assert resolve(r.id.lower()) is r and resolve(r.name) is r
    assert RULES["PD203"].severity == "warning"
    assert BY_NAME["duplicate-covered-resource"].id == "PD101"
    assert resolve("nope") is None


def test_the_typed_rule_ids_are_the_registry_s() -> None:
    """RuleId and RoleRule are what mypy checks codes against: they list exactly the registry's ids and
    validate_roles' rule names."""
    from typing import get_args

    from kubectl_pd.gpustack.roles import RoleRule
    from kubectl_pd.lint.rules import ROLE_RULES, RuleId

    assert get_args(RuleId) == tuple(r.id for r in all_rules())
    assert set(ROLE_RULES) == set(get_args(RoleRule))
    assert set(ROLE_RULES.values()) <= set(get_args(RuleId))


def test_versions_and_limits() -> None:
    assert parse_version("0.18") == (0, 18) and parse_version("v0.13.2") == (0, 13)
    assert limits_for((0, 13)) is LEGACY and limits_for((0, 14)).flavors_per_group == 64
    with pytest.raises(ValueError):
        parse_version("latest")


# -- PD101 / PD102 --------------------------------------------------------------------------------

def test_pd101_split_queue_points_at_later_group_with_kueue_text() -> None:
    r = run(gpustack_queue(20))
    [f] = only(r, "PD101")
    assert f.path_text == "spec.resourceGroups[1].coveredResources[0]"
    assert f.kueue_message == f'spec.resourceGroups[1].coveredResources[0]: Duplicate value: "{CREDITS}"'
    assert f.message.startswith(f'Duplicate value: "{CREDITS}"')
    assert "split at 16 flavors" in f.message and "one group of 20 flavors" in f.message


def test_pd101_passes_for_one_group_of_64() -> None:
    assert ids(run(gpustack_queue(64, per_group=64))) == []


def test_pd101_overlap_not_identical_and_within_group() -> None:
    r = run(queue_of_groups(groups=[resource_group(["cpu", "memory"], ["a"]), resource_group(["memory", "gpu"], ["b"]),
                                    resource_group(["x", "x"], ["c"])]))
    paths = [f.path_text for f in only(r, "PD101")]
    assert paths == ["spec.resourceGroups[1].coveredResources[0]", "spec.resourceGroups[2].coveredResources[1]"]
    assert "split" not in only(r, "PD101")[0].message
    assert "listed twice" in only(r, "PD101")[1].message


def test_pd102_flavor_in_two_groups_and_twice_in_one() -> None:
    r = run(queue_of_groups(groups=[resource_group(["cpu"], ["a", "b", "a"]), resource_group(["gpu"], ["b"])]))
    fs = only(r, "PD102")
    assert [f.path_text for f in fs] == ["spec.resourceGroups[0].flavors[2].name",
                                         "spec.resourceGroups[1].flavors[0].name"]
    assert fs[0].message.startswith('Duplicate value: "a": listed twice')
    assert fs[1].kueue_message == 'spec.resourceGroups[1].flavors[0].name: Duplicate value: "b"'


def test_pd102_passes() -> None:
    assert ids(run(queue_of_groups(groups=[resource_group(["cpu"], ["a", "b"]), resource_group(["gpu"], ["c"])]))) == []


# -- PD103 - PD107: limits ------------------------------------------------------------------------

def test_pd103_groups() -> None:
    ok = queue_of_groups(groups=[resource_group([f"r{i}"], [f"f{i}"]) for i in range(16)])
    bad = queue_of_groups(groups=[resource_group([f"r{i}"], [f"f{i}"]) for i in range(17)])
    assert ids(run(ok)) == []
    [f] = only(run(bad), "PD103")
    assert f.kueue_message == "spec.resourceGroups: Too many: 17: must have at most 16 items"


def test_pd104_flavors_per_group_and_total_and_legacy() -> None:
    assert ids(run(queue_of_groups(groups=[resource_group(["cpu"], [f"f{i}" for i in range(64)])]))) == []
    [f] = only(run(queue_of_groups(groups=[resource_group(["cpu"], [f"f{i}" for i in range(65)])])), "PD104")
    assert f.path_text == "spec.resourceGroups[0].flavors"
    assert f.message.startswith("Too many: 65: must have at most 64 items")
    total = queue_of_groups(groups=[resource_group([f"r{g}"], [f"f{g}-{i}" for i in range(52)]) for g in range(5)])
    [t] = only(run(total), "PD104")
    assert t.kueue_message == ("spec.resourceGroups: Invalid value: 260: total number of flavors across all "
                               "resourceGroups must be ≤ 256, got 260")
    legacy = LintContext(limits=LEGACY)
    assert ids(run(queue_of_groups(groups=[resource_group(["cpu"], [f"f{i}" for i in range(16)])]), ctx=legacy)) == []
    [old] = only(run(queue_of_groups(groups=[resource_group(["cpu"], [f"f{i}" for i in range(17)])]),
                     ctx=LintContext(limits=LEGACY)),
                 "PD104")
    assert "must have at most 16 items" in old.message and "before 0.14" in old.message


def test_pd105_covered_resources() -> None:
    assert ids(run(queue_of_groups(groups=[resource_group([f"r{i}" for i in range(64)], ["f"])]))) == []
    [f] = only(run(queue_of_groups(groups=[resource_group([f"r{i}" for i in range(65)], ["f"])])), "PD105")
    assert f.message.startswith("Too many: 65: must have at most 64 items")
    total = queue_of_groups(groups=[resource_group([f"r{g}-{i}" for i in range(52)], [f"f{g}"]) for g in range(5)])
    [t] = only(run(total), "PD105")
    assert "total number of covered resources across all resourceGroups must be ≤ 256, got 260" in t.message
    [legacy] = only(run(queue_of_groups(groups=[resource_group([f"r{i}" for i in range(17)], ["f"])]),
                        ctx=LintContext(limits=LEGACY)),
                    "PD105")
    assert "at most 16 items" in legacy.message


def test_pd106_order_count_and_repeat() -> None:
    ok = queue_of_groups(groups=[resource_group(["cpu", "memory"], ["a"])])
    assert ids(run(ok)) == []
    swapped = queue_of_groups(groups=[resource_group(["cpu", "memory"], [flavor_quotas("a", ["memory", "cpu"])])])
    fs = only(run(swapped), "PD106")
    assert [f.path_text for f in fs] == ["spec.resourceGroups[0].flavors[0].resources[0].name",
                                         "spec.resourceGroups[0].flavors[0].resources[1].name"]
    assert fs[0].message.startswith('Invalid value: "memory": must match the name in coveredResources')
    short = queue_of_groups(groups=[resource_group(["cpu", "memory"], [flavor_quotas("a", ["cpu"])])])
    [c] = only(run(short), "PD106")
    assert "flavors must have the same number of resources as the coveredResources" in c.message
    assert c.kueue_message.startswith('spec.resourceGroups[0]: Invalid value: "object"')
    twice = queue_of_groups(groups=[resource_group(["cpu", "memory"], [flavor_quotas("a", ["cpu", "cpu"])])])
    assert any(f.message.startswith('Duplicate value: "cpu"') for f in only(run(twice), "PD106"))


def test_pd107_flavor_resource_pairs() -> None:
    ok = queue_of_groups(groups=[resource_group([f"r{i}" for i in range(8)], [f"f{i}" for i in range(64)])])
    assert ids(run(ok)) == []
    bad = queue_of_groups(groups=[resource_group([f"r{i}" for i in range(9)], [f"f{i}" for i in range(57)])])
    [f] = only(run(bad), "PD107")
    assert f.message == ("Invalid value: 513: number of flavor-resource combinations in a resourceGroup must be "
                         "≤ 512, got 513")
    assert ids(run(bad, ctx=LintContext(limits=LEGACY))).count("PD107") == 0


# -- PD108 - PD110: quantities and limits ---------------------------------------------------------

def _one(quota: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return queue_of_groups(groups=[resource_group(["cpu"], [{"name": "a", "resources": [{"name": "cpu", **quota}]}])],
                           **spec)


def test_pd108_invalid_quantities() -> None:
    assert ids(run(_one({"nominalQuota": "500m"}))) == []
    r = run(_one({"nominalQuota": "-1"}), _one({"nominalQuota": "lots"}), _one({"borrowingLimit": "1"}))
    msgs = [f.message for f in only(r, "PD108")]
    assert msgs[0] == 'Invalid value: "-1": must be greater than or equal to 0'
    # the CRD's pattern refuses it before the webhook parses it (kueue.x-k8s.io_clusterqueues.yaml@v0.18.4)
    assert msgs[1].startswith('Invalid value: "lots": spec.resourceGroups[0].flavors[0].resources[0].nominalQuota '
                              "in body should match '^(\\+|-)?")
    assert msgs[2].startswith("Required value")


def test_pd109_limits_need_a_cohort() -> None:
    assert ids(run(_one({"nominalQuota": "4", "borrowingLimit": "2", "lendingLimit": "1"}, cohortName="c"))) == []
    r = run(_one({"nominalQuota": "4", "borrowingLimit": "2", "lendingLimit": "1"}))
    fs = only(r, "PD109")
    assert [f.path_text.rsplit(".", 1)[1] for f in fs] == ["borrowingLimit", "lendingLimit"]
    assert fs[0].message.startswith('Invalid value: "2": must be nil when cohort is empty')
    # v1beta1's `cohort` is read as cohortName
    assert ids(run(_one({"nominalQuota": "4", "borrowingLimit": "2"}, api="v1beta1", cohort="c"))) == []
    limited = {"name": "a", "resources": [{"name": "cpu", "nominalQuota": "4", "lendingLimit": "1"}]}
    cohort = queue_of_groups("root", [resource_group(["cpu"], [limited])], kind="Cohort")
    [c] = only(run(cohort), "PD109")
    assert "must be nil when parent is empty" in c.message


def test_pd110_lending_limit_above_nominal() -> None:
    assert ids(run(_one({"nominalQuota": "4", "lendingLimit": "4"}, cohortName="c"))) == []
    [f] = only(run(_one({"nominalQuota": "4", "lendingLimit": "5"}, cohortName="c")), "PD110")
    assert f.message.startswith('Invalid value: "5": must be less than or equal to the nominalQuota')


# -- PD111 / PD112: references --------------------------------------------------------------------

RF = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "a"}}
AC = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "ok-check"}}


def test_pd111_only_when_flavors_are_known() -> None:
    q = queue_of_groups(groups=[resource_group(["cpu"], ["a", "b", "c"])])
    assert "PD111" not in ids(run(q))  # no ResourceFlavor in the input: cannot tell
    fs = only(run(q, RF), "PD111")
    assert [f.path_text for f in fs] == ["spec.resourceGroups[0].flavors[1].name",
                                         "spec.resourceGroups[0].flavors[2].name"]
    assert fs[0].kueue_message == "Can't admit new workloads: references missing ResourceFlavor(s): b,c."
    assert ids(run(queue_of_groups(groups=[resource_group(["cpu"], ["a"])]), RF)) == []


def test_pd112_admission_checks_v1beta2_and_v1beta1() -> None:
    v2 = queue_of_groups(groups=[resource_group(["cpu"], ["a"])],
                         admissionChecksStrategy={"admissionChecks": [{"name": "ok-check"}, {"name": "gone"}]})
    assert "PD112" not in ids(run(v2))
    [f] = only(run(v2, AC), "PD112")
    assert f.path_text == "spec.admissionChecksStrategy.admissionChecks[1].name"
    assert "AdmissionCheckNotFound" in f.message and "references missing AdmissionCheck(s): gone." in f.message
    v1 = queue_of_groups(groups=[resource_group(["cpu"], ["a"])], api="v1beta1", admissionChecks=["ok-check", "gone"])
    [g] = only(run(v1, AC), "PD112")
    assert g.path_text == "spec.admissionChecks[1]"
    assert ids(run(queue_of_groups(groups=[resource_group(["cpu"], ["a"])],
                                   admissionChecksStrategy={"admissionChecks": [{"name": "ok-check"}]}), AC)) == []


# -- PD2xx: GPUStack queues -----------------------------------------------------------------------

def test_pd201_single_group() -> None:
    assert ids(run(gpustack_queue(16))) == []
    [f] = only(run(gpustack_queue(40)), "PD201")
    assert f.path_text == "spec.resourceGroups[1]" and "3 groups with 40 flavors" in f.message
    assert "16 flavors" in f.message
    # not a GPUStack queue: no PD201
    plain = gpustack_queue(20)
    plain["metadata"].pop("labels")
    assert "PD201" not in ids(run(plain))


def test_pd201_says_when_one_group_cannot_hold_them() -> None:
    [f] = only(run(gpustack_queue(70)), "PD201")
    assert "70 flavors exceed the 64" in f.message


def test_pd202_covered_resource() -> None:
    cpu = queue_of_groups("gpustack--generic", [resource_group(["cpu"], ["f"])],
                          labels={"resource.gpustack.ai/type": "instancetypes"})
    assert ids(run(cpu)) == []
    two = queue_of_groups("g2", [resource_group(["cpu", "memory"], ["f"])],
                          labels={"resource.gpustack.ai/type": "instancetypes"})
    [f] = only(run(two), "PD202")
    assert f.path_text == "spec.resourceGroups[0].coveredResources"
    wrong_maker = queue_of_groups("g3", [resource_group(["credits.gpustack.ai/amd"], ["f"])],
                                  labels=dict(GPUSTACK_QUEUE_LABELS))
    [m] = only(run(wrong_maker), "PD202")
    assert "expected credits.gpustack.ai/nvidia" in m.message


def test_pd203_whole_cards_is_a_warning() -> None:
    assert ids(run(gpustack_queue(2, quota="3200k"))) == []
    r = run(gpustack_queue(2, quota="1000k"))
    assert ids(r) == ["PD203", "PD203"] and r.errors == 0 and r.warnings == 2
    assert "0.625 cards" in r.findings[0].message


# -- suppression ----------------------------------------------------------------------------------

def test_suppression_by_id_and_name() -> None:
    q = gpustack_queue(20, quota="1000k")
    q["metadata"]["annotations"] = {"kubectl-pd.io/ignore": "PD203, gpustack-single-group"}
    r = run(q)
    assert ids(r) == ["PD101"] and r.suppressed == 21
    q["metadata"]["annotations"] = {"kubectl-pd.io/ignore": "all"}
    assert ids(run(q)) == []
    q["metadata"]["annotations"] = {"kubectl-pd.io/ignore": "PD999"}
    assert run(q).unknown_suppressions == ["ClusterQueue/gpustack--nvidia-h20: PD999"]


# -- PD3xx: ModelDeployments ----------------------------------------------------------------------

def test_pd301_roles_count() -> None:
    assert ids(run(pd_deployment([deployment_role("prefill"), deployment_role("decode", "decode")]))) == []
    assert ids(run(pd_deployment([]))) == ["PD301"]
    many = [deployment_role(f"s{i}", "server") for i in range(11)]
    assert "PD301" in ids(run(pd_deployment(many)))


def test_pd302_role_name() -> None:
    r = run(pd_deployment([deployment_role("Prefill"), deployment_role("decode", "decode"),
                           deployment_role("decode", "server")]))
    assert ids(r).count("PD302") == 2
    assert only(r, "PD302")[0].path_text == "spec.roles[0].name"


def test_pd303_instance_type_mismatch_pd_atomic_only() -> None:
    roles = [deployment_role("prefill"), deployment_role("decode", "decode", itype="gpustack--nvidia-a10g")]
    [f] = only(run(pd_deployment(roles)), "PD303")
    assert "one queueName" in f.message and "acceleratorKey" in f.message
    assert "PD303" not in ids(run(pd_deployment(roles), ctx=LintContext(profile="per-replica")))


def test_pd304_role_kind() -> None:
    assert only(run(pd_deployment([deployment_role("a", "server"), deployment_role("b", "prefill")])), "PD304")
    assert only(run(pd_deployment([deployment_role("a", "decode"), deployment_role("b", "decode")])), "PD304")
    assert only(run(pd_deployment([deployment_role("a", "leader")])), "PD304")
    assert ids(run(pd_deployment([deployment_role("a", "server"), deployment_role("b", "server")]))) == []


def test_pd305_replicas() -> None:
    r = deployment_role("a", "server")
    r["replicas"] = 0
    [f] = only(run(pd_deployment([r])), "PD305")
    assert f.path_text == "spec.roles[0].replicas"


POOL_RF = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
           "metadata": {"name": "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-0d"},
           "spec": {"nodeLabels": {"acceleratable.feature.gpustack.ai/nvidia-h20": "true",
                                   "acceleratable.feature.gpustack.ai/nvidia-h20.count": "8"}}}


def test_pd306_shape_and_pool() -> None:
    bad_shape = pd_deployment([deployment_role("prefill", acceleratorKey="H20!"), deployment_role("decode", "decode")])
    assert ids(run(bad_shape)) == ["PD306"]
    pool = gpustack_queue(1)
    decode = deployment_role("decode", "decode")
    offered = pd_deployment([deployment_role("prefill", acceleratorKey="nvidia-h20"), decode])
    not_offered = pd_deployment([deployment_role("prefill", acceleratorKey="nvidia-l40s"), decode])
    assert ids(run(pool, POOL_RF, offered)) == []
    [f] = only(run(pool, POOL_RF, not_offered), "PD306")
    assert "nvidia-l40s" in f.message and "use one of nvidia-h20" in f.message
    # no flavors known, or a pool with no flavors yet: not a finding
    assert ids(run(pool, not_offered)) == []
    empty_pool = queue_of_groups("gpustack--nvidia-h20", [], labels=dict(GPUSTACK_QUEUE_LABELS))
    assert ids(run(empty_pool, POOL_RF, not_offered)) == []


# -- lines and malformed shapes ---------------------------------------------------------------------

SPLIT_TEXT = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: split
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: a
      resources: [{name: cpu, nominalQuota: 1}]
  - coveredResources:
    - cpu
    flavors:
    - name: b
      resources: [{name: cpu, nominalQuota: 1}]
"""


def test_findings_carry_file_and_line() -> None:
    src = SnapshotSource(list(parse_documents(SPLIT_TEXT, "q.yaml")))
    objs = list(src.all_objects())
    [f] = lint_objects(objs, LintContext(), origin_of=src.origin).findings
    assert (f.file, f.line, f.rule_id) == ("q.yaml", 12, "PD101")


def test_resource_groups_not_a_list_is_malformed() -> None:
    bad = queue_of_groups()
    bad["spec"]["resourceGroups"] = {"coveredResources": ["cpu"]}
    with pytest.raises(Malformed) as e:
        run(bad)
    assert e.value.path == ("spec", "resourceGroups") and "not a list" in e.value.message
    flavors_bad = queue_of_groups(groups=[{"coveredResources": ["cpu"], "flavors": "a"}])
    with pytest.raises(Malformed):
        run(flavors_bad)


def test_empty_group_lists_are_refused_and_an_empty_split_group_is_fixed() -> None:
    from kubectl_pd.lint.fix import plan_fix

    q = gpustack_queue(16)
    q["spec"]["resourceGroups"].append({"coveredResources": [CREDITS], "flavors": []})
    r = run(q)
    [f] = only(r, "PD104")
    assert f.path_text == "spec.resourceGroups[1].flavors" and "at least 1 items" in f.message
    fx = plan_fix(q, LintContext())
    assert fx.after is not None and len(fx.after["spec"]["resourceGroups"]) == 1 and not fx.remaining
    [c] = only(run(queue_of_groups(groups=[{"coveredResources": [], "flavors": []}])), "PD105")
    assert "at least one resource" in c.message


# -- flavor checks run once per flavor shape (resource_groups._clean_flavor): never a verdict of another shape

@pytest.mark.parametrize("order", ["clean first", "faulty first"])
def test_a_flavor_shape_memo_tells_true_from_1_and_cohorts_apart(order: str) -> None:
    same = {"name": "gpu", "nominalQuota": 1, "borrowingLimit": "1"}
    as_bool = {**same, "nominalQuota": True}  # True == 1 in Python; the CRD refuses a boolean
    flavors = [{"name": "a", "resources": [dict(same)]}, {"name": "b", "resources": [dict(as_bool)]}]
    if order == "faulty first":
        flavors.reverse()
    alone = queue_of_groups("alone", [{"coveredResources": ["gpu"], "flavors": flavors}])
    shared = queue_of_groups("shared", [{"coveredResources": ["gpu"], "flavors": copy.deepcopy(flavors)}],
                             cohortName="pool")
    result = run(alone, shared)
    b = 1 if order == "clean first" else 0  # flavor b holds the boolean
    found = sorted((f.obj.name, f.rule_id, f.path[4], f.path[-1]) for f in result.findings)
    assert found == sorted([
        ("alone", "PD108", b, "nominalQuota"),  # True is not a quantity
        ("alone", "PD109", 0, "borrowingLimit"),  # no cohort: both flavors' borrowingLimit
        ("alone", "PD109", 1, "borrowingLimit"),
        ("shared", "PD108", b, "nominalQuota"),  # in a cohort the borrowingLimit stands
    ])
