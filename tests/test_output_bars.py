"""The one quota bar printer (kubectl_pd/output/bars.py): why-pending's screen and `kubectl pd queues` draw the
same figures with the same printer, each in its own style, and the same figures in one style are one string."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubectl_pd.kueue.verdicts import FlavorBar
from kubectl_pd.output import bars
from kubectl_pd.pending.render import bar as why_pending_bar
from kubectl_pd.queues.words import bar as queues_bar
from tests.test_queues_figures import figures as queue_figures

F = Fraction


@pytest.mark.parametrize(("figures", "style", "want"), [
    (bars.Figures(F(12), F(3), F(3)), bars.QUEUES, "[###===......]"),
    (bars.Figures(F(12), F(12), F(0), borrowed=F(2)), bars.QUEUES, "[############]!"),
    (bars.Figures(F(0), F(0), F(0)), bars.QUEUES, ""),
    (bars.Figures(F(12), F(3), F(3)), bars.Style(12), "[###===......]"),
    (bars.Figures(F(8), F(4), F(0), F(8)), bars.Style(12), "[####++++!!!!]"),
    (bars.Figures(F(8), F(4), F(0), F(8), borrowable=F(2)), bars.Style(12), "[####++++~~!!]"),
    (bars.Figures(F(0), F(0), F(0)), bars.Style(4), "[    ]"),
    (bars.Figures(F(4), F(1), F(1), F(1)), bars.Style(4, unicode=True), "[\u2588\u2593\u2591\u00b7]"),
])
def test_the_one_printer(figures: bars.Figures, style: bars.Style, want: str) -> None:
    assert bars.bar(figures, style) == want


@pytest.mark.parametrize(("nominal", "used", "reserved", "borrowed"), [
    (12, 0, 0, 0), (12, 6, 0, 0), (12, 3, 3, 0), (12, 12, 0, 2), (16, 5, 7, 0), (8, 3, 1, 0),
])
def test_both_commands_draw_their_figures_with_it(nominal: int, used: int, reserved: int, borrowed: int) -> None:
    """The queues row and why-pending's bar are the one printer over the same figures (each in its own style)."""
    figures = bars.Figures(F(nominal), F(used), F(reserved), borrowed=F(borrowed))
    assert queues_bar(queue_figures(nominal, used, reserved, borrowed)) == bars.bar(figures, bars.QUEUES)
    fb = FlavorBar("f", "nvidia.com/gpu", F(nominal), F(used), F(reserved), F(0), borrowed=F(borrowed))
    assert why_pending_bar(fb, unicode=False) == bars.bar(figures, bars.WHY_PENDING)
    assert bars.bar(figures, bars.QUEUES) == bars.bar(figures, bars.QUEUES)
