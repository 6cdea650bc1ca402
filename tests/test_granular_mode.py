"""The engine's typed admission modes (kubectl_pd/kueue/admission.py) against Kueue's own ordering.

`TestIsPreferred` of pkg/scheduler/flavorassigner/flavorassigner_test.go:4183@v0.19.2 (ten cases) and
:4040@v0.18.4 (the first four of them; 0.18 has no rank for a flavor without preemption candidates),
translated case by case: Kueue's granularMode{preemptionMode, borrowingLevel} is our GranularMode, its
isPreferred our `preferred_to`. Then the orders Kueue states in its types (FlavorAssignmentMode,
flavorassigner.go:452@v0.19.2; preemptionMode, :522@v0.19.2) and shouldTryNextFlavor (:1259@v0.19.2) as
plain tables, since Kueue has no test of them alone.
"""

from __future__ import annotations

import pytest

from kubectl_pd.kueue.admission import (
    BEST_MODE,
    FIT,
    NO_FIT,
    PREEMPT,
    UNKNOWN,
    WORST_MODE,
    AssignmentMode,
    BorrowingLevel,
    GranularMode,
    PreemptionMode,
    worst,
)
from kubectl_pd.kueue.model import MAY_STOP_SEARCH, TRY_NEXT_FLAVOR, FlavorFungibility

P = PreemptionMode
TRY_BOTH = (TRY_NEXT_FLAVOR, TRY_NEXT_FLAVOR)
ZERO = FlavorFungibility("", "", None)  # Go's zero FlavorFungibility: isPreferred reads only its preference


def mode(p: PreemptionMode, borrowing: int) -> GranularMode:
    return GranularMode(p, BorrowingLevel(borrowing))


def ff(preference: str | None) -> FlavorFungibility:
    return FlavorFungibility(*TRY_BOTH, preference)


# (Kueue's case name, a, b, config, wantPreferred)
KUEUE_IS_PREFERRED = [
    ("feature gate disabled prioritises preemption", mode(P.FIT, 0), mode(P.PREEMPT, 0), ff(None), True),
    ("explicit BorrowingOverPreemption prioritises borrowing distance", mode(P.PREEMPT, 1), mode(P.FIT, 2),
     ff("BorrowingOverPreemption"), False),
    ("explicit PreemptionOverBorrowing prioritises lower preemption", mode(P.PREEMPT, 1), mode(P.FIT, 2),
     ff("PreemptionOverBorrowing"), True),
    ("explicit PreemptionOverBorrowing breaks borrowing ties with preemption", mode(P.PREEMPT, 1), mode(P.FIT, 1),
     ff("PreemptionOverBorrowing"), False),
    # from here on v0.19.2 only
    ("explicit PreemptionOverBorrowing rejects no-candidate flavor before borrowing comparison",
     mode(P.NO_CANDIDATES, 1), mode(P.FIT, 2), ff("PreemptionOverBorrowing"), False),
    ("explicit PreemptionOverBorrowing prefers fit over shallower-borrowing no-candidate flavor",
     mode(P.FIT, 2), mode(P.NO_CANDIDATES, 1), ff("PreemptionOverBorrowing"), True),
    ("no-candidate flavor remains preferable to no-fit flavor", mode(P.NO_CANDIDATES, 1), mode(P.NO_FIT, 0),
     ZERO, True),
    ("no-fit flavor remains worse than no-candidate flavor", mode(P.NO_FIT, 0), mode(P.NO_CANDIDATES, 1),
     ZERO, False),
    ("no-candidate flavors retain borrowing preference", mode(P.NO_CANDIDATES, 1), mode(P.NO_CANDIDATES, 2),
     FlavorFungibility("", "", "PreemptionOverBorrowing"), True),
    ("no-candidate flavors retain borrowing preference in reverse", mode(P.NO_CANDIDATES, 2),
     mode(P.NO_CANDIDATES, 1), FlavorFungibility("", "", "PreemptionOverBorrowing"), False),
]
IN_V018 = 4


@pytest.mark.parametrize(("name", "a", "b", "config", "want"), KUEUE_IS_PREFERRED,
                         ids=[c[0] for c in KUEUE_IS_PREFERRED])
def test_is_preferred_as_kueue_0_19(name: str, a: GranularMode, b: GranularMode, config: FlavorFungibility,
                                    want: bool) -> None:
    assert a.preferred_to(b, config, (0, 19)) is want


@pytest.mark.parametrize(("name", "a", "b", "config", "want"), KUEUE_IS_PREFERRED[:IN_V018],
                         ids=[c[0] for c in KUEUE_IS_PREFERRED[:IN_V018]])
def test_is_preferred_as_kueue_0_18(name: str, a: GranularMode, b: GranularMode, config: FlavorFungibility,
                                    want: bool) -> None:
    assert a.preferred_to(b, config, (0, 18)) is want


@pytest.mark.parametrize(("a", "b", "in_0_18", "in_0_19"), [
    # 0.18's isPreferred (flavorassigner.go:439@v0.18.4) has no no-candidates rule: with PreemptionOverBorrowing
    # the shallower borrowing wins; 0.19 ranks the flavor without candidates below the one that fits
    (mode(P.NO_CANDIDATES, 1), mode(P.FIT, 2), True, False),
    (mode(P.FIT, 2), mode(P.NO_CANDIDATES, 1), False, True),
])
def test_no_candidates_rank_last_from_0_19_only(a: GranularMode, b: GranularMode, in_0_18: bool,
                                               in_0_19: bool) -> None:
    pob = ff("PreemptionOverBorrowing")
    assert (a.preferred_to(b, pob, (0, 18)), a.preferred_to(b, pob, (0, 19))) == (in_0_18, in_0_19)


def test_the_orders_kueue_states() -> None:
    # FlavorAssignmentMode: NoFit < Preempt < (DeferredFit) < Fit; our Unknown below NoFit
    assert AssignmentMode.UNKNOWN < AssignmentMode.NO_FIT < AssignmentMode.PREEMPT < AssignmentMode.FIT
    assert [m.text for m in AssignmentMode] == [UNKNOWN, NO_FIT, PREEMPT, FIT]
    # preemptionMode: noFit < noPreemptionCandidates < preempt < reclaim < fit
    assert list(P) == sorted(P) == [P.NO_FIT, P.NO_CANDIDATES, P.PREEMPT, P.RECLAIM, P.FIT]
    # preemptionMode.flavorAssignmentMode: every preemption mode is Preempt
    assert {p: p.assignment_mode for p in P} == {
        P.NO_FIT: AssignmentMode.NO_FIT, P.NO_CANDIDATES: AssignmentMode.PREEMPT, P.PREEMPT: AssignmentMode.PREEMPT,
        P.RECLAIM: AssignmentMode.PREEMPT, P.FIT: AssignmentMode.FIT}
    assert [p for p in P if p.is_preempt] == [P.PREEMPT, P.RECLAIM]
    assert P.of_possibility("NoCandidates") is P.NO_CANDIDATES and P.of_possibility("Reclaim") is P.RECLAIM
    assert BEST_MODE == mode(P.FIT, 0) and WORST_MODE.preemption is P.NO_FIT


@pytest.mark.parametrize(("modes", "want"), [
    ((), FIT),
    ((FIT, PREEMPT), PREEMPT),
    ((PREEMPT, NO_FIT, FIT), NO_FIT),
    ((NO_FIT, UNKNOWN), UNKNOWN),
    ((FIT, FIT), FIT),
])
def test_worst_follows_the_assignment_order(modes: tuple[str, ...], want: str) -> None:
    assert worst(modes) == want


def test_the_best_and_worst_modes_bound_every_other() -> None:
    for config in (ff(None), ff("PreemptionOverBorrowing"), ZERO):
        for p in P:
            for b in (0, 1, 3):
                m = mode(p, b)
                assert not WORST_MODE.preferred_to(m, config, (0, 19))
                assert not m.preferred_to(BEST_MODE, config, (0, 19))
                assert m.preferred_to(WORST_MODE, config, (0, 19)) is (p is not P.NO_FIT)


@pytest.mark.parametrize(("m", "when_borrow", "when_preempt", "want"), [
    (mode(P.NO_FIT, 0), MAY_STOP_SEARCH, MAY_STOP_SEARCH, True),
    (mode(P.NO_CANDIDATES, 0), MAY_STOP_SEARCH, MAY_STOP_SEARCH, True),
    (mode(P.PREEMPT, 0), MAY_STOP_SEARCH, TRY_NEXT_FLAVOR, True),
    (mode(P.RECLAIM, 0), MAY_STOP_SEARCH, MAY_STOP_SEARCH, False),
    (mode(P.FIT, 0), TRY_NEXT_FLAVOR, TRY_NEXT_FLAVOR, False),  # fits without borrowing: stop
    (mode(P.FIT, 1), TRY_NEXT_FLAVOR, MAY_STOP_SEARCH, True),
    (mode(P.FIT, 1), MAY_STOP_SEARCH, TRY_NEXT_FLAVOR, False),
    (mode(P.PREEMPT, 2), TRY_NEXT_FLAVOR, MAY_STOP_SEARCH, True),  # borrowing while preempting
])
def test_should_try_next_flavor(m: GranularMode, when_borrow: str, when_preempt: str, want: bool) -> None:
    assert m.try_next(FlavorFungibility(when_borrow, when_preempt)) is want
