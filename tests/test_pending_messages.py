"""Kueue's message parsers: anchored patterns, never a split on commas (reference/kueue.md §3, §4.3, §6.4)."""

from __future__ import annotations

from fractions import Fraction

from kubectl_pd.kueue import messages as km

CRED = "credits.gpustack.ai/nvidia"
H20 = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"


def test_scheduler_test_example_two_flavors() -> None:
    m = km.parse_message("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                         "on-demand, 50 more needed, insufficient unused quota for cpu in flavor spot, 1 more needed")
    assert m.kind == "flavors"
    [ps] = m.pod_sets
    assert ps.pod_set == "main"
    assert [(r.kind, r.resource, r.flavor, r.needed) for r in ps.reasons] == [
        (km.INSUFFICIENT_UNUSED, "cpu", "on-demand", Fraction(50)),
        (km.INSUFFICIENT_UNUSED, "cpu", "spot", Fraction(1)),
    ]


def test_reasons_with_commas_inside_are_kept_whole() -> None:
    text = (f"couldn't assign flavors to pod set decode: flavor a10g doesn't match node affinity, insufficient quota "
            f"for {CRED} in flavor {H20}, previously considered podsets requests (3200k) + current podset request "
            f"(12800k) > maximum capacity (12800k), untolerated taint {{instance spot NoSchedule <nil>}} in flavor "
            f"tainted; couldn't assign flavors to pod set prefill: resource nvidia.com/gpu unavailable in "
            f"ClusterQueue. Pending the preemption of 2 workload(s)")
    m = km.parse_message(text)
    assert m.preempting == 2
    assert [p.pod_set for p in m.pod_sets] == ["decode", "prefill"]
    decode = m.pod_sets[0].reasons
    assert [r.kind for r in decode] == [km.NODE_AFFINITY, km.INSUFFICIENT_QUOTA, km.UNTOLERATED_TAINT]
    q = decode[1]
    assert (q.resource, q.flavor, q.previous, q.requested, q.capacity) == (
        CRED, H20, Fraction(3_200_000), Fraction(12_800_000), Fraction(12_800_000))
    assert decode[2].taint == "{instance spot NoSchedule <nil>}" and decode[2].flavor == "tainted"
    assert m.pod_sets[1].reasons[0].resource == "nvidia.com/gpu"


def test_unlimited_capacity_and_preemption_failed_suffix() -> None:
    m = km.parse_message("couldn't assign flavors to pod set main: insufficient quota for cpu in flavor x, previously "
                         "considered podsets requests (0) + current podset request (5) > maximum capacity (<unlimited>)"
                         ". Preempting 3 workload(s) failed, will retry.")
    assert m.preemption_failed == 3
    r = m.pod_sets[0].reasons[0]
    assert r.kind == km.INSUFFICIENT_QUOTA and r.capacity is None and r.requested == 5


def test_tas_reason_with_semicolons_stays_in_its_pod_set() -> None:
    text = ('couldn\'t assign flavors to pod set worker: topology "default" doesn\'t allow to fit any of 4 pod(s). '
            'Total nodes: 6; excluded: nodeSelector: 2, taint "gpu=true:NoSchedule": 1')
    m = km.parse_message(text)
    assert m.kind == "flavors" and len(m.pod_sets) == 1
    assert m.pod_sets[0].reasons[0].kind == km.TOPOLOGY
    assert m.pod_sets[0].reasons[0].text == text.split("pod set worker: ", 1)[1]  # Kueue's words, whole


def test_unknown_reason_is_kept_verbatim() -> None:
    m = km.parse_message("couldn't assign flavors to pod set main: something new, with a comma")
    assert [r.kind for r in m.pod_sets[0].reasons] == [km.OTHER]
    assert m.pod_sets[0].reasons[0].text == "something new, with a comma"


def test_whole_messages_of_both_versions() -> None:
    cases = {
        "LocalQueue lq-a doesn't exist": ("lq-missing", "lq-a"),
        "LocalQueue lq-a is inactive": ("lq-stopped", "lq-a"),
        "ClusterQueue cq-a doesn't exist": ("cq-missing", "cq-a"),
        "ClusterQueue cq-a is inactive": ("cq-inactive", "cq-a"),
        "ClusterQueue cq-a not found": ("cq-not-found", "cq-a"),
        "Workload namespace doesn't match ClusterQueue selector": ("namespace-mismatch", None),
        "workload namespace doesn't match ClusterQueue selector": ("namespace-mismatch", None),
        'workload namespace "x" does not exist: namespaces "x" not found': ("namespace-missing", '"x"'),
        "waiting for all admitted workloads to be in PodsReady condition": ("waiting-pods-ready", None),
        "Workload is pending evaluation in the scheduling queue": ("pending-evaluation", None),
        "The workload has failed admission checks": ("failed-admission-checks", None),
        "Workload has overlapping preemption targets with another workload, but will fit after these preemptions "
        "complete": ("overlapping-preemption", None),
        "failed to assign flavors to pod set main: no TAS flavor assigned": ("hard-error", "main"),
    }
    for text, (kind, subject) in cases.items():
        m = km.parse_message(text)
        assert (m.kind, m.subject) == (kind, subject), text


def test_anchored_not_searched() -> None:
    assert km.parse_message("prefix: LocalQueue a doesn't exist").kind == "unknown"
    assert km.parse_message(None).kind == "unknown"
    assert km.parse_message(12).text == "12"


def test_cluster_queue_inactive_parts() -> None:
    causes = km.parse_cq_inactive("Can't admit new workloads: is stopped, references missing ResourceFlavor(s): "
                                  "gpu-a,gpu-b, references inactive AdmissionCheck(s): gpustack-node-devices, there "
                                  'is no Topology "topo" for TAS flavor "tas".')
    assert [(c.kind, c.names) for c in causes] == [
        ("stopped", []), ("missing-flavors", ["gpu-a", "gpu-b"]), ("inactive-checks", ["gpustack-node-devices"]),
        ("missing-topology", ["topo", "tas"])]
    assert km.parse_cq_inactive("Can't admit new workloads.") == []
    assert km.parse_cq_inactive("Can admit new workloads") == []


def test_compose_errors() -> None:
    e = km.parse_compose_error("'qwen-pd' group has fewer runnable pods than expected")
    assert (e.kind, e.group) == ("fewer-pods", "qwen-pd")
    e = km.parse_compose_error("pods 'a' and 'b' has different queue names: lq1!=lq2")
    assert (e.kind, e.values) == ("queue-mismatch", ("a", "b", "lq1", "lq2"))
    e = km.parse_compose_error("pods 'a' and 'b' has different 'kueue.x-k8s.io/pod-group-total-count' values: 3!=4")
    assert e.kind == "count-mismatch" and e.values[2:] == ("3", "4")
    assert km.parse_compose_error("pod group can't include more than 10 roles").kind == "too-many-roles"
    e = km.parse_compose_error('A Workload named "g" already exists but is not a pod group workload; this pod group '
                               "cannot be admitted")
    assert (e.kind, e.group) == ("name-conflict", "g")


def test_admission_checks_builder() -> None:
    state, items = km.parse_checks_message('AdmissionChecks in Retry state: "a" (no room; try later); "b"')
    assert state == "Retry" and items == [("a", "no room; try later"), ("b", "")]
    assert km.parse_checks_message('Deactivated due to AdmissionCheck in Rejected state: "x" (no)') == (
        "Rejected", [("x", "no")])
    assert km.parse_checks_message("nothing") is None


def test_preempted_cause() -> None:
    msg = ("Preempted to accommodate a workload (UID: 1, JobUID: 2) due to prioritization in the ClusterQueue; "
           "preemptor path: /cq; preemptee path: /cq")
    assert km.parse_preempted(msg) == "prioritization in the ClusterQueue"
