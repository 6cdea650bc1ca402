"""A unit's role reads (pending/roles.RoleReads), read once per unit, answer what roles.pod_role and
roles.podset_role answer from the Pods themselves: every pod and pod set of a table of layouts, under several
sets of role names."""

from __future__ import annotations

import itertools

import pytest

from kubectl_pd import kube
from kubectl_pd.kueue.model import PodSet
from kubectl_pd.pending.roles import COMPONENT, ROLE_HASH, ROLE_LABELS, Unit, mark, pod_role, podset_role


def _pod(name: str, rh: str | None = None, **labels: str) -> kube.Pod:
    return kube.Pod(name, "ns", None, labels=dict(labels), annotations={ROLE_HASH: rh} if rh is not None else {})


DS, LLMD = ROLE_LABELS
LAYOUTS = {
    "hash names the role": [_pod("a", "prefill"), _pod("b", "decode")],
    "8-hex hash, component": [_pod("a", "1a2b3c4d", **{COMPONENT: "prefill"}),
                              _pod("b", "5e6f7a8b", **{COMPONENT: "decode"})],
    "first labelled pod of a hash wins": [_pod("a", "1a2b3c4d"), _pod("b", "1a2b3c4d", **{DS: "prefill"}),
                                          _pod("c", "1a2b3c4d", **{LLMD: "decode"})],
    "framework label before component": [_pod("a", None, **{LLMD: "decode", COMPONENT: "x"})],
    "empty label, no hash": [_pod("a", None, **{COMPONENT: ""}), _pod("b")],
    "no pods": [],
}
SETS = [PodSet("prefill", 1, {}), PodSet("1a2b3c4d", 1, {}), PodSet("5e6f7a8b", 1, {}), PodSet("", 1, {}),
        PodSet("0000ffff", 1, {}, template_labels={COMPONENT: "tpl"}), PodSet("main", 1, {})]
NAMES: list[set[str]] = [set(), {"prefill"}, {"prefill", "decode"}, {"1a2b3c4d"}, {"main", "tpl"}]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_unit_reads_answer_as_the_pods_do(layout: str) -> None:
    pods = LAYOUTS[layout]
    u = Unit("g", pods, None, False)
    for names in NAMES:
        for p in pods:
            assert u.role_of(p, names) == pod_role(p, names)
            assert u.mark(p) == mark(p)
        for ps in SETS:
            assert u.podset_role(ps, names) == podset_role(ps, pods, names)


def test_a_pod_outside_the_unit_is_read_as_itself() -> None:
    u = Unit("g", [_pod("a", "prefill")], None, False)
    other = _pod("b", "1a2b3c4d", **{COMPONENT: "decode"})
    for names in NAMES:
        assert u.role_of(other, names) == pod_role(other, names)


def test_the_reads_are_made_once() -> None:
    pods = LAYOUTS["8-hex hash, component"]
    u = Unit("g", pods, None, False)
    for names, p in itertools.product(NAMES, pods):
        u.role_of(p, names)
    reads = u.reads
    assert reads is not None
    for ps in SETS:
        u.podset_role(ps, set())
    assert u.reads is reads
