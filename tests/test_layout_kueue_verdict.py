"""The layout differential's reading of what Kueue did with a group it did not admit (layoutcheck.kueue_waits_or_never):
"never" only when no flavor Kueue tried is merely short of unused quota. The messages are Kueue's own, as the
preflight cases under tests/realcluster/cases/layouts/ saved them (0.19.2 seed 46025, 0.18.4 seed 46031: the group
waits, the preflight said so, and the check had called it never). And the copy capacity's byPreemption is judged
against: made by create, as the copies are."""

from __future__ import annotations

import pytest

from tests.realcluster import layoutcheck as lc
from tests.realcluster import layouts as ly

MAX_ONLY = ("couldn't assign flavors to pod set decode: insufficient quota for nvidia.com/gpu in flavor fa, previously "
            "considered podsets requests (0) + current podset request (8) > maximum capacity (6)")
SEED_46025 = ("couldn't assign flavors to pod set decode: insufficient quota for nvidia.com/gpu in flavor fa, "
              "previously considered podsets requests (0) + current podset request (8) > maximum capacity (6), "
              "insufficient unused quota for nvidia.com/gpu in flavor fb, 4 more needed")
SEED_46031 = ("couldn't assign flavors to pod set prefill: insufficient quota for credits.gpustack.ai/nvidia in flavor "
              "fb, previously considered podsets requests (3200k) + current podset request (3200k) > maximum capacity "
              "(3200k), insufficient unused quota for credits.gpustack.ai/nvidia in flavor fa, 3200k more needed")
SEED_46003 = ("couldn't assign flavors to pod set decode: insufficient unused quota for nvidia.com/gpu in flavor fa, 4 "
              "more needed; couldn't assign flavors to pod set prefill: insufficient quota for nvidia.com/gpu in "
              "flavor fa, previously considered podsets requests (4) + current podset request (2) > maximum capacity "
              "(4)")

SEED_46187 = ("couldn't assign flavors to pod set decode: insufficient quota for nvidia.com/gpu in flavor fc, "
              "previously considered podsets requests (0) + current podset request (2) > maximum capacity (0)")

CASES = [
    ("every flavor over its maximum: never", "never", MAX_ONLY, "never"),
    ("0.19 46187: a resumed scan names fc alone of fa, fb, fc: unknown", "never", SEED_46187, lc.UNKNOWN),
    ("0.19 46025: fa over its maximum, fb short of unused quota: waits", "never", SEED_46025, "blocked"),
    ("0.18 46031: fb over its maximum, fa short of unused quota: waits", "never", SEED_46031, "blocked"),
    ("0.19 46003: decode short of unused quota, prefill over fa's maximum: never", "never", SEED_46003, "never"),
    ("blocked stays blocked", "blocked", SEED_46025, "blocked"),
    ("admitted", "fits", None, "fits"),
    ("preempted", "preempts", None, "preempts"),
]


@pytest.mark.parametrize("case, did, message, want", CASES, ids=[c[0] for c in CASES])
def test_kueue_waits_or_never(case: str, did: str, message: str | None, want: str) -> None:
    flavors = ("fa", "fb", "fc") if message == SEED_46187 else ()  # the queue's flavors, where the case gives them
    assert lc.kueue_waits_or_never(did, message, flavors) == want


def test_the_saved_cases_messages() -> None:
    """The two saved cases carry those messages (so the table is Kueue's words, not ours)."""
    got = {(c["kueue"], c["seed"]): c["kueueDid"]["message"] for c in lc.load_cases("open") + lc.load_cases("fixed")
           if c["command"] == "preflight" and c["seed"] in (46025, 46031)}
    assert {k: lc.kueue_waits_or_never("never", m) for k, m in got.items()} == {k: "blocked" for k in got}
    assert len(got) == 3


@pytest.mark.parametrize("seed", [46008, 46036])
def test_the_higher_priority_copy_is_made_as_the_copies_are(seed: int) -> None:
    """byPreemption is judged against a copy at pd-top made by `kubectl pd create`, as capacity's copies are (a pod
    set per role), never bare group Pods, whose equal roles Kueue merges into one pod set (seed 46008, 0.19.2: one
    pod set of 9600k, so Kueue preempted copy1 in fc where capacity, judging decode and prefill, named copy0)."""
    lay = ly.generate(seed)
    args = lc.top_copy_args(lay, "ns")
    assert args == [*lc.copy_args(lay, "ns", "top"), "--force", "--priority-class", lc.TOP[0]]
    assert [a for a in args if a.startswith("--role=")] == lc._roles(lay)
